// The vectorized exp (kernel_api.hpp's exp, and the exponentials of every softmax kernel).
// Cephes-style expf: n = round(x·log2 e), r = x − n·ln2 (two-constant Cody–Waite), e^r by a
// degree-6 polynomial, times 2^n applied as two power-of-two factors 2^⌊n/2⌋·2^(n−⌊n/2⌋) so
// that results down to the subnormal range and the overflow to +inf come out right.
// x ≤ −88 (and −inf) give exactly 0, x > 88.72 gives +inf, NaN gives NaN.
// Measured maximum error against std::exp in double: 1.010 ULP over every float in [−87, 88.72]
// (exhaustive run, avx512 and avx2); tests/unit/kernels/test_exp.cpp samples every 61st bit pattern
// of the whole range per arch and finds 1.003 ULP there (neon under qemu: 1.003), 0.75 ULP on the
// subnormal results of (−88, −87), and asserts ≤ 2 ULP.
// exp_nonpositive, the online softmax's variant for arguments x − max ≤ 0, flushes
// x < −87 to 0 so that 2^n is one add to the exponent field (see it below). On AVX-512 it
// is vscalefps with a zero-mask instead of the clamp, the add and two selects: 4 fewer
// instructions on the two ports the FMAs use, the same bits (compared on every float x ≤ 0,
// NaN in, NaN out), fused attention T=4096 d=64 on 1 thread 3% faster (fastest of 11 runs, 6
// rounds alternating with the old binary: 0.0229-0.0233 s → 0.0221-0.0224 s, leaving out the first
// round's 0.0256 s; d=128 unchanged).
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

// The range reduction and polynomial both exps share: xc = n·ln2 + r with |r| ≤ ln2/2, and
// p ≈ e^r (Cephes coefficients). On return t = xc·log2(e) + magic, rounded, so n sits in
// t's low mantissa bits.
template <class Arch>
inline vfloat<Arch> exp_reduced(const vfloat<Arch>& xc, const vfloat<Arch>& magic, vfloat<Arch>& t) {
    using F = vfloat<Arch>;
    t = fmadd<Arch>(xc, F(1.44269504088896341f), magic);
    const F n = t - magic;
    F r = fnmadd<Arch>(n, F(0.693359375f), xc);  // ln 2 = 0.693359375 − 2.12194440e−4
    r = fnmadd<Arch>(n, F(-2.12194440e-4f), r);
    F p(1.9875691500e-4f);
    p = fmadd<Arch>(p, r, F(1.3981999507e-3f));
    p = fmadd<Arch>(p, r, F(8.3334519073e-3f));
    p = fmadd<Arch>(p, r, F(4.1665795894e-2f));
    p = fmadd<Arch>(p, r, F(1.6666665459e-1f));
    p = fmadd<Arch>(p, r, F(5.0000001201e-1f));
    return fmadd<Arch>(p, r * r, r) + F(1.0f);
}

// See the opening comment.
template <class Arch>
inline vfloat<Arch> exp(const vfloat<Arch>& x) {
    using F = vfloat<Arch>;
    using I = vint<Arch>;
    const F lo(-88.0f), hi(88.8f);
    const F xc = xsimd::min(xsimd::max(x, lo), hi);  // keeps n within [−127, 128]
    const F magic(12582912.0f);                     // 1.5·2^23: adding it rounds to an integer
    F t;
    const F p = exp_reduced<Arch>(xc, magic, t);
    const I ni = xsimd::bitwise_cast<I>(t) - xsimd::bitwise_cast<I>(magic);
    const I n1 = ni >> 1;
    const I n2 = ni - n1;
    const F s1 = xsimd::bitwise_cast<F>((n1 + I(127)) << 23);
    const F s2 = xsimd::bitwise_cast<F>((n2 + I(127)) << 23);
    F y = (p * s1) * s2;
    y = xsimd::select(x <= lo, F(0.0f), y);
    return xsimd::select(x == x, y, x);  // NaN in, NaN out (x != x is an ordered compare: false)
}

// exp for the online softmax, whose arguments are x − max ≤ 0: the same reduction and
// polynomial as exp() (so the same ≤ 1.01 ULP where the result is a normal float), but
// x < −87 gives exactly 0 instead of a subnormal (a weight below 1.7e−38 next to a row sum
// ≥ 1 changes nothing), so 2^n is a single add to the exponent field. −inf gives 0, NaN
// gives NaN; not for x > 0.
template <class Arch>
inline vfloat<Arch> exp_nonpositive(const vfloat<Arch>& x) {
    using F = vfloat<Arch>;
    using I = vint<Arch>;
    const F lo(-87.0f);
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<Arch, xsimd::avx512f>) {
        // The same bits in 4 fewer instructions: vscalefps applies 2^n (exact: 2^n·p is normal
        // for x ≥ −87) and its zero-mask gives 0 to x < −87 and −inf, whose unclamped
        // reduction is garbage (NaN at −inf). NaN is not below −87 (unordered): NaN out.
        const F magic(12582912.0f);
        F t;
        const F p = exp_reduced<Arch>(x, magic, t);
        return _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ), p, t - magic);
    }
#endif
    const F xc = xsimd::max(lo, x);  // keeps 2^n·p normal (n ≥ −126 and p ≥ 1 at n = −126)
    const F magic(12582912.0f);     // 1.5·2^23: adding it rounds to an integer
    F t;
    const F p = exp_reduced<Arch>(xc, magic, t);
    // The low bits of t hold n (two's complement): t << 23 is n << 23 modulo 2^32.
    const F y = xsimd::bitwise_cast<F>(xsimd::bitwise_cast<I>(p) + (xsimd::bitwise_cast<I>(t) << 23));
    return xsimd::select(x < lo, F(0.0f), xsimd::select(x == x, y, x));
}

// The exponential rate of `attn bench` (its G exp/s and the time split of a fused run):
// exp_nonpositive, the fused kernel's exponential, over 1024 floats in [−20, 0] (the range a
// softmax feeds it) in L1, loaded and stored, `iterations` times. Returns a value that
// depends on the results.
template <class Arch>
float exp_probe(std::uint64_t iterations, float seed) {
    constexpr std::size_t n = 1024, W = lanes<Arch>;
    alignas(64) float x[n], y[n];
    for (std::size_t i = 0; i < n; ++i) x[i] = -20.0f * float(i) / float(n);
    for (std::uint64_t it = 0; it < iterations; ++it) {
        for (std::size_t i = 0; i < n; i += W)
            exp_nonpositive<Arch>(vfloat<Arch>::load_aligned(x + i)).store_aligned(y + i);
        asm volatile("" : : "r"(x), "r"(y) : "memory");  // every iteration loads and stores again
    }
    return y[n / 2] * seed;
}

template <class Arch>
void exp_array(const float* x, float* y, std::size_t n) {
    constexpr std::size_t W = lanes<Arch>;
    std::size_t i = 0;
    for (; i + W <= n; i += W) exp<Arch>(vfloat<Arch>::load_unaligned(x + i)).store_unaligned(y + i);
    if (i < n) store_partial<Arch>(y + i, exp<Arch>(load_partial<Arch>(x + i, n - i, 0.0f)), n - i);
}

}  // namespace
}  // namespace attn::kernels::attention_impl
