// The masking rule's out-of-line parts (attn/masking.hpp), compiled for the baseline ISA.
#include "attn/masking.hpp"

#include <algorithm>

namespace attn {

std::size_t causal_visible(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk) noexcept {
    switch (causal) {
        case Causal::none: return Tk;
        case Causal::top_left: return std::min(Tk, i + 1);
        case Causal::bottom_right: {
            // j <= i + (Tk - Tq)  ⇔  visible = i + 1 + Tk - Tq, clamped to [0, Tk]
            const long long v = (long long)i + 1 + (long long)Tk - (long long)Tq;
            return v <= 0 ? 0 : std::min<std::size_t>(Tk, std::size_t(v));
        }
    }
    return Tk;
}

std::size_t visible_keys(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk,
                         std::size_t key_limit) noexcept {
    return std::min(causal_visible(causal, i, Tq, Tk), key_limit);
}

}  // namespace attn
