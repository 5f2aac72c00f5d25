// The boundary between the library's public vocabulary (attn/masking.hpp, attn/half.hpp)
// and the kernels' own (kernels/kernel_types.hpp): the library converts here, at the call,
// so that no kernel includes a library header.
#pragma once
#include "attn/half.hpp"
#include "attn/masking.hpp"
#include "kernels/kernel_types.hpp"

namespace attn {

constexpr kernels::Causal to_kernel(Causal c) noexcept {
    switch (c) {
        case Causal::top_left: return kernels::Causal::top_left;
        case Causal::bottom_right: return kernels::Causal::bottom_right;
        case Causal::none: break;
    }
    return kernels::Causal::none;
}

constexpr kernels::MaskedRowPolicy to_kernel(MaskedRowPolicy p) noexcept {
    switch (p) {
        case MaskedRowPolicy::nan: return kernels::MaskedRowPolicy::nan;
        case MaskedRowPolicy::uniform: return kernels::MaskedRowPolicy::uniform;
        case MaskedRowPolicy::zero: break;
    }
    return kernels::MaskedRowPolicy::zero;
}

constexpr kernels::ElementType to_kernel(ElementType t) noexcept {
    switch (t) {
        case ElementType::f16: return kernels::ElementType::f16;
        case ElementType::bf16: return kernels::ElementType::bf16;
        case ElementType::q8_0: return kernels::ElementType::q8_0;
        case ElementType::f32: break;
    }
    return kernels::ElementType::f32;
}

constexpr kernels::KeyWindow to_kernel(Window w) noexcept { return {w.left, w.right}; }

static_assert(unbounded == kernels::unbounded_window, "an unbounded side passes through unchanged");
static_assert(no_key_limit == kernels::no_key_limit, "a key limit passes through unchanged");

}  // namespace attn
