// The vectorized tanh (kernel_api.hpp's tanh) and the logit softcap c·tanh(x/c) built on it
// (Gemma 2, Grok; ONNX Attention's softcap). Cephes-style tanhf: for |x| < 0.625 the odd
// polynomial x + x³·P(x²) (no cancellation near 0); above, 1 − 2/(e^{2|x|} + 1) with exp.hpp's
// exp, the sign put back. Both branches are computed and one selected per lane. |x| ≥ 9 gives
// exactly ±1 (tanh(9) rounds to 1 in float); NaN gives NaN; tanh(±0) = ±0.
// Measured maximum error against std::tanh in double: see tests/unit/kernels/test_tanh.cpp,
// which sweeps every 61st bit pattern of the float range per arch (2.1 ULP on avx512 and
// avx2, 2.0 scalar) and asserts ≤ 3 ULP.
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
    const F z = xsimd::min(xsimd::abs(x), F(9.0f));
    // Small branch: x + x·z²·P(z²) (Cephes tanhf coefficients).
    const F z2 = z * z;
    F p(-5.70498872745e-3f);
    p = fmadd<Arch>(p, z2, F(2.06390887954e-2f));
    p = fmadd<Arch>(p, z2, F(-5.37397155531e-2f));
    p = fmadd<Arch>(p, z2, F(1.33314422036e-1f));
    p = fmadd<Arch>(p, z2, F(-3.33332819422e-1f));
    const F small = fmadd<Arch>(p * z2, x, x);
    // Large branch: 1 − 2/(e^{2z} + 1), with x's sign.
    const F e = exp<Arch>(z + z);
    const F large = xsimd::copysign(F(1.0f) - F(2.0f) / (e + F(1.0f)), x);
    const F y = xsimd::select(z >= F(0.625f), large, small);
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
