// The masking rule's out-of-line parts (attn/masking.hpp), compiled for the baseline ISA.
#include "attn/masking.hpp"

#include "attention/kernel_vocabulary.hpp"

namespace attn {

// The rule itself is the kernels' (kernels/kernel_types.hpp): one definition for both.
std::size_t causal_visible(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk) noexcept {
    return kernels::visible_keys(to_kernel(causal), i, Tq, Tk, kernels::no_key_limit);
}

std::size_t visible_keys(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk,
                         std::size_t key_limit) noexcept {
    return kernels::visible_keys(to_kernel(causal), i, Tq, Tk, key_limit);
}

KeyRange visible_range(Causal causal, Window window, std::size_t i, std::size_t Tq, std::size_t Tk,
                       std::size_t key_limit, std::size_t key_first) noexcept {
    const kernels::KeyRange r =
        kernels::visible_range(to_kernel(causal), to_kernel(window), i, Tq, Tk, key_limit, key_first);
    return {r.begin, r.end};
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
