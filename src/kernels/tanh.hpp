// The vectorized tanh (kernel_api.hpp's tanh) and the logit softcap c·tanh(x/c) built on it
// (Gemma 2, Grok; ONNX Attention's softcap). Cephes-style tanhf: for |x| < 0.625 the odd
// polynomial x + x³·P(x²) (no cancellation near 0); above, 1 − 2/(e^{2|x|} + 1) with exp.hpp's
// exp; both computed on |x|, one selected per lane, x's sign put back. |x| ≥ 10 gives exactly
// ±1 (tanh(10) rounds to 1 in float; tanh(9) does not); NaN gives NaN; tanh(±0) = ±0.
// Measured maximum error against std::tanh in double: 1.30 ULP on avx512, avx2 and scalar
// (tests/unit/kernels/test_tanh.cpp sweeps every 61st bit pattern of the float range per arch
// and asserts ≤ 3 ULP).
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <cstddef>

#include "kernels/exp.hpp"
#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

// See the opening comment.
template <class Arch>
inline vfloat<Arch> tanh(const vfloat<Arch>& x) {
    using F = vfloat<Arch>;
    const F z = xsimd::min(xsimd::abs(x), F(10.0f));
    // Small branch: z + z·z²·P(z²) (Cephes tanhf coefficients).
    const F z2 = z * z;
    F p(-5.70498872745e-3f);
    p = fmadd<Arch>(p, z2, F(2.06390887954e-2f));
    p = fmadd<Arch>(p, z2, F(-5.37397155531e-2f));
    p = fmadd<Arch>(p, z2, F(1.33314422036e-1f));
    p = fmadd<Arch>(p, z2, F(-3.33332819422e-1f));
    const F small = fmadd<Arch>(p * z2, z, z);
    // Large branch: 1 − 2/(e^{2z} + 1).
    const F large = F(1.0f) - F(2.0f) / (exp<Arch>(z + z) + F(1.0f));
    const F y = xsimd::copysign(xsimd::select(z >= F(0.625f), large, small), x);  // tanh is odd
    return xsimd::select(x == x, y, x);  // NaN in, NaN out
}

// c·tanh(x·inv_c) with inv_c = 1/c (a multiply, not a divide, per lane).
template <class Arch>
inline vfloat<Arch> softcap(const vfloat<Arch>& x, const vfloat<Arch>& c, const vfloat<Arch>& inv_c) {
    return c * tanh<Arch>(x * inv_c);
}

template <class Arch>
void tanh_array(const float* x, float* y, std::size_t n) {
    constexpr std::size_t W = lanes<Arch>;
    std::size_t i = 0;
    for (; i + W <= n; i += W) tanh<Arch>(vfloat<Arch>::load_unaligned(x + i)).store_unaligned(y + i);
    if (i < n) store_partial<Arch>(y + i, tanh<Arch>(load_partial<Arch>(x + i, n - i, 0.0f)), n - i);
}

}  // namespace
}  // namespace attn::kernels::attention_impl
