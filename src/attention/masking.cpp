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

bool is_allowed(const ScoreMask& sm, std::size_t i, std::size_t j, std::size_t Tq, std::size_t Tk) noexcept {
    return is_allowed(j, causal_visible(sm.causal, i, Tq, Tk), sm.mask ? sm.mask->row(i) : nullptr,
                      sm.bias ? sm.bias->row(i) : nullptr);
}

std::size_t allowed_keys(const ScoreMask& sm, std::size_t i, std::size_t Tq, std::size_t Tk) noexcept {
    const std::size_t visible = causal_visible(sm.causal, i, Tq, Tk);
    const float* mask = sm.mask ? sm.mask->row(i) : nullptr;
    const float* bias = sm.bias ? sm.bias->row(i) : nullptr;
    std::size_t allowed = 0;
    for (std::size_t j = 0; j < visible; ++j) allowed += is_allowed(j, visible, mask, bias);
    return allowed;
}

}  // namespace attn
