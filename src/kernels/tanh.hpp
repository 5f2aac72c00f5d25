// The vectorized tanh (kernel_api.hpp's tanh) and the logit softcap c·tanh(x/c) built on it
// (Gemma 2, Grok; ONNX Attention's softcap). Eigen's rational approximation (its
// generic_fast_tanh_float): x clamped to ±7.905, then x·P(x²)/Q(x²) with P of degree 6 and Q
// of degree 3 in x², so tanh is odd and saturates at 0.9999997; 1/Q by x86's reciprocal
// estimate and a Newton step (a divide elsewhere). NaN gives NaN; tanh(±0) = ±0.
// Why not exp's reduction (Cephes tanhf, 1.3 ULP): its exp, divide and second branch made the
// softcapped fused kernel 1.26× the plain one at T=4096, d=64 (2 threads, AVX-512); this is
// 1.13× there (CPU time; the goal was 1.10×), and 1.10× with 1/c folded into the query
// (kernel_types.hpp's query_scale: softcap_of_quotient).
// Measured maximum error against std::tanh in double: 5.0 ULP (avx512), 5.1 (avx2), 5.3 (neon,
// under qemu; 5.6 on the sparser sweep, every 611th pattern, that make test-neon runs), 6.5 for
// the x86 scalar kernel (no FMA, a divide), largest near the clamp; a softcap's logit is off by
// at most about c·4e-7 (tests/unit/kernels/test_tanh.cpp sweeps every 61st bit pattern of the
// float range per arch and asserts ≤ 7 ULP).
#pragma once
#include <cstddef>
#include <limits>

#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

// The rational approximation of the opening comment: tanh(z) ≈ z·P(z²)/Q(z²) on
// |z| ≤ tanh_clamp, coefficients from the highest power down.
inline constexpr float tanh_clamp = 7.90531110763549805f;
inline constexpr float tanh_p[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                                    5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                                    4.89352455891786e-03f};
inline constexpr float tanh_q[4] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                                    4.89352518554385e-03f};

// 1/d for d in Q's range [4.9e-3, 0.91]: x86's reciprocal estimate (12 or 14 bits) refined by
// one Newton step (3 ops on the FMA ports instead of a divide); elsewhere a divide.
template <class Arch>
inline vfloat<Arch> reciprocal(const vfloat<Arch>& d) {
    using F = vfloat<Arch>;
#if defined(__AVX2__) || defined(__AVX512F__)
    const F r = xsimd::reciprocal(d);
    return fmadd<Arch>(r, fnmadd<Arch>(d, r, F(1.0f)), r);
#else
    return F(1.0f) / d;
#endif
}

// The rational part: tanh for x not NaN (NaN gives an unspecified value).
template <class Arch>
inline vfloat<Arch> tanh_of_number(const vfloat<Arch>& x) {
    using F = vfloat<Arch>;
    const F z = xsimd::max(xsimd::min(x, F(tanh_clamp)), F(-tanh_clamp));
    const F z2 = z * z;
    F p = fmadd<Arch>(F(tanh_p[0]), z2, F(tanh_p[1]));
    p = fmadd<Arch>(p, z2, F(tanh_p[2]));
    p = fmadd<Arch>(p, z2, F(tanh_p[3]));
    p = fmadd<Arch>(p, z2, F(tanh_p[4]));
    p = fmadd<Arch>(p, z2, F(tanh_p[5]));
    p = fmadd<Arch>(p, z2, F(tanh_p[6]));
    F q = fmadd<Arch>(F(tanh_q[0]), z2, F(tanh_q[1]));
    q = fmadd<Arch>(q, z2, F(tanh_q[2]));
    q = fmadd<Arch>(q, z2, F(tanh_q[3]));
    return (p * reciprocal<Arch>(q)) * z;
}

// See the opening comment.
template <class Arch>
inline vfloat<Arch> tanh(const vfloat<Arch>& x) {
    return xsimd::select(x == x, tanh_of_number<Arch>(x), x);  // NaN in, NaN out (the clamp gives ±1)
}

// c·tanh(x·inv_c) with inv_c = 1/c (a multiply, not a divide, per lane); softcap_of_quotient
// takes z = x/c already (the fused kernels fold 1/c into the query for c ≥ 1: kernel_types.hpp's
// softcap_folded). A score of ±inf or
// NaN is a product that overflowed float32 (the inputs are finite): it gives NaN, so the
// overflow is reported as it is without a softcap, not capped to ±c. That is x − x (0 for a
// finite x, NaN for ±inf and NaN) added in the product's fused multiply-add: c·t + 0 rounds as
// c·t does (only a −0 becomes +0), and it replaces a test and a select (abs, compare, blend) in
// its pass over the tile (cachegrind, avx2 kernels, T=1024 d=64, one thread: the softcapped
// fused kernel's extra instructions over the plain one from 3.44M to 3.31M a call).
template <class Arch>
inline vfloat<Arch> softcap(const vfloat<Arch>& x, const vfloat<Arch>& c, const vfloat<Arch>& inv_c) {
    return fmadd<Arch>(c, tanh_of_number<Arch>(x * inv_c), x - x);
}
template <class Arch>
inline vfloat<Arch> softcap_of_quotient(const vfloat<Arch>& z, const vfloat<Arch>& c) {
    return fmadd<Arch>(c, tanh_of_number<Arch>(z), z - z);
}
// Either, as the fused kernels' scores need it (kernel_types.hpp's softcap_folded).
template <class Arch, bool Folded>
inline vfloat<Arch> fused_softcap(const vfloat<Arch>& s, const vfloat<Arch>& c, const vfloat<Arch>& inv_c) {
    if constexpr (Folded) return softcap_of_quotient<Arch>(s, c);
    else return softcap<Arch>(s, c, inv_c);
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
