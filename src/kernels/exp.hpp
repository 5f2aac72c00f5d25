// The vectorized exp (kernel_api.hpp's exp, and the exponentials of every softmax kernel).
// Cephes-style expf: n = round(x·log2 e), r = x − n·ln2 (two-constant Cody–Waite), e^r by a
// degree-7 polynomial (1 + r + r²·p(r)), times 2^n applied as two power-of-two factors
// 2^⌊n/2⌋·2^(n−⌊n/2⌋) so that results down to the subnormal range and the overflow to +inf
// come out right.
// x ≤ −88 (and −inf) give exactly 0, x > 88.72 gives +inf, NaN gives NaN.
// Measured maximum error against std::exp in double: 1.010 ULP over every float in [−87, 88.72]
// (exhaustive run, avx512 and avx2); tests/unit/kernels/test_exp.cpp samples every 61st bit pattern
// of the whole range per arch and finds 1.003 ULP there (neon under qemu: 1.003), 0.75 ULP on the
// subnormal results of (−88, −87), and asserts ≤ 2 ULP.
// The online softmax of the fused kernels computes its weights in base 2 instead
// (softmax_weight, exp2_nonpositive below): bench's exp probe 7.8 → 10.3 G/s per thread
// (avx512; avx2 3.2 → 3.6), fused attention T=4096 on 2 threads 1.026× as fast at d=64 (79% →
// 81% of the FMA peak), 1.013× at d=128 (medians of 8 alternating rounds, load 2; 1 thread
// 1.025× and 1.004×; avx2 1.00× and 1.01×; Intel Xeon, Emerald Rapids class,
// data/bench/2026-12-06T0609-xeon-prefill-exp2-ab.csv).
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

// c0·r^n + c1·r^(n−1) + … + cn by Horner's rule, highest coefficient first, one fused
// multiply-add a step: the one evaluation of both exps' polynomials.
template <class Arch, class... C>
inline vfloat<Arch> horner(const vfloat<Arch>& r, float c0, C... c) {
    vfloat<Arch> p(c0);
    ((p = fmadd<Arch>(p, r, vfloat<Arch>(float(c)))), ...);
    return p;
}

// exp's range reduction and polynomial: xc = n·ln2 + r with |r| ≤ ln2/2, and
// p ≈ e^r (Cephes coefficients). On return t = xc·log2(e) + magic, rounded, so n sits in
// t's low mantissa bits.
template <class Arch>
inline vfloat<Arch> exp_reduced(const vfloat<Arch>& xc, const vfloat<Arch>& magic, vfloat<Arch>& t) {
    using F = vfloat<Arch>;
    t = fmadd<Arch>(xc, F(1.44269504088896341f), magic);
    const F n = t - magic;
    F r = fnmadd<Arch>(n, F(0.693359375f), xc);  // ln 2 = 0.693359375 − 2.12194440e−4
    r = fnmadd<Arch>(n, F(-2.12194440e-4f), r);
    const F p = horner<Arch>(r, 1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f,
                             1.6666665459e-1f, 5.0000001201e-1f);
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

// 2^y for the online softmax (softmax_weight below), whose arguments are about ≤ 0: n = round(y)
// to nearest, r = y − n in [−½, ½] (exact), 2^r by a degree-6 polynomial, times 2^n (exact:
// 2^n·2^r is a normal float for y ≥ −126). The polynomial is the minimax one for relative error
// on [−½, ½] with c0 = 1 (2.0e−9 in exact arithmetic; fitted by Lawson's iteration in float64,
// 2026-12-06), so 2^0 = 1. Measured against std::exp2 in double: at most 0.86 ULP (1.13 without
// fused multiply-adds; tests/unit/kernels/test_exp.cpp). y < −126 gives exactly 0 (a weight below
// float32's least normal number, 1.18e−38, next to a row sum ≥ 1: no subnormal reaches the FMAs
// that follow; the materialised path's e^x keeps subnormals to e^−88 = 2^−126.96), −inf gives 0,
// NaN gives NaN; not for y ≥ 128. Every arch with a fused multiply-add (AVX2+FMA, AVX-512,
// NEON) computes the same bits (the same n and r, polynomial and exact scaling). On AVX-512, vreduceps gives r in one instruction and
// vscalefps applies 2^n itself, its zero-mask giving the 0s: 10 instructions on the two ports
// the FMAs use, against 14 for e^x with its two-constant range reduction and longer polynomial
// (exp below). Not taken (2026-12-07): n = ⌊y⌋, so that vscalefps takes y itself and the
// subtraction y − r goes (one instruction of the ~14 per score vector): r = y − ⌊y⌋ is then
// inexact for y in (−1, 0), vreduceps rounds it down where the other arches round to nearest
// (other bits), and the weights reach 1.27–1.38 ULP.
template <class Arch>
inline vfloat<Arch> exp2_fraction(const vfloat<Arch>& r) {  // 2^r, |r| ≤ ½
    return horner<Arch>(r, 1.535334159e-4f, 1.339887269e-3f, 9.618437849e-3f, 5.550332367e-2f, 2.402264774e-1f,
                        6.931471825e-1f, 1.0f);
}

template <class Arch>
inline vfloat<Arch> exp2_nonpositive(const vfloat<Arch>& y) {
    using F = vfloat<Arch>;
    using I = vint<Arch>;
    const F lo(-126.0f);
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<Arch, xsimd::avx512f>) {
        // imm 0x08: keep 0 fraction bits, round to nearest, no precision exception: r = y − n.
        // NaN is not below −126 (unordered): NaN out.
        const F r(_mm512_reduce_ps(y, 0x08));
        return _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(y, lo, _CMP_NLT_UQ), exp2_fraction<Arch>(r), y - r);
    }
#endif
    const F yc = xsimd::max(lo, y);   // keeps 2^n·2^r normal (n ≥ −126; −126 + r ≥ −126); −inf becomes −126
    const F magic(12582912.0f);       // 1.5·2^23: adding it rounds to an integer (to nearest)
    const F t = yc + magic;
    const F p = exp2_fraction<Arch>(yc - (t - magic));
    // The low bits of t hold n (two's complement): t << 23 is n << 23 modulo 2^32.
    const F e = xsimd::bitwise_cast<F>(xsimd::bitwise_cast<I>(p) + (xsimd::bitwise_cast<I>(t) << 23));
    return xsimd::select(y < lo, F(0.0f), xsimd::select(y == y, e, y));
}

// The online softmax's exponentials (flash.hpp, decode.hpp), in base 2: a weight e^(x − m) is
// 2^((x − m)·log2e), the subtraction exact near the max as before and one multiply more, so the
// sums stay relative to e^m (the max's own weight is exactly 1) at any magnitude. (Folding the
// subtraction into one FMA, x·log2e − float(m·log2e), saved that multiply but left m·log2e's
// rounding, up to 2^127 at |m| ≈ 1e9, in every weight. Folding log2e into the queries' scale
// instead, so that the scores are in base 2 where nothing is added to them, was tried
// 2026-12-07: prefill T=4096 1.00× (d=64 and 128, 10 alternating runs, load 4), and scores
// far from 0 lose their exactness: a sink of 3003.5 over scores near 3000 gave a context
// 2e−5·max|V| away, test_softmax_reference's bound being 5e−6.) softmax_shift is the m
// subtracted (0 for m = −inf: nothing visible yet). Against exp(x − m) with its Cody–Waite reduction: 12
// instructions per vector of scores on AVX-512 instead of 15. log2e is float(log2 e), 1.3e−8
// below it: a weight is e^((x − m)·(1 − 1.3e−8)), 4e−7 from e^(x − m) at x − m = −30.
inline constexpr float log2e = 1.44269504088896341f;
template <class Arch>
inline vfloat<Arch> softmax_shift(const vfloat<Arch>& m) {
    using F = vfloat<Arch>;
    return xsimd::select(m == F(-std::numeric_limits<float>::infinity()), F(0.0f), m);
}
template <class Arch>
inline vfloat<Arch> softmax_weight(const vfloat<Arch>& x, const vfloat<Arch>& shift) {
    return exp2_nonpositive<Arch>((x - shift) * vfloat<Arch>(log2e));
}
// The factor that moves a row's sums from max m to max m_new ≥ m (0 while m = −inf).
template <class Arch>
inline vfloat<Arch> softmax_rescale(const vfloat<Arch>& m, const vfloat<Arch>& m_new) {
    using F = vfloat<Arch>;
    return xsimd::select(m == F(-std::numeric_limits<float>::infinity()), F(0.0f),
                         softmax_weight<Arch>(m, softmax_shift<Arch>(m_new)));
}

// The exponential rate of `attn bench` (its G exp/s and the time split of a fused run):
// softmax_weight, the fused kernels' exponential, over 1024 floats in [−20, 0] (the range a
// softmax feeds it; max 0) in L1, loaded and stored, `iterations` times. Returns a value that
// depends on the results.
template <class Arch>
float exp_probe(std::uint64_t iterations, float seed) {
    constexpr std::size_t n = 1024, W = lanes<Arch>;
    alignas(64) float x[n], y[n];
    for (std::size_t i = 0; i < n; ++i) x[i] = -20.0f * float(i) / float(n);
    for (std::uint64_t it = 0; it < iterations; ++it) {
        for (std::size_t i = 0; i < n; i += W)
            softmax_weight<Arch>(vfloat<Arch>::load_aligned(x + i), vfloat<Arch>(0.0f)).store_aligned(y + i);
        asm volatile("" : : "r"(x), "r"(y) : "memory");  // every iteration loads and stores again
    }
    return y[n / 2] * seed;
}

// y[i] = softmax_weight(x[i]) for the max m: the fused kernels' e^(x[i] − m), x[i] ≤ m (tests).
template <class Arch>
void softmax_weights_array(const float* x, float m, float* y, std::size_t n) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const F shift = softmax_shift<Arch>(F(m));
    std::size_t i = 0;
    for (; i + W <= n; i += W) softmax_weight<Arch>(F::load_unaligned(x + i), shift).store_unaligned(y + i);
    if (i < n) store_partial<Arch>(y + i, softmax_weight<Arch>(load_partial<Arch>(x + i, n - i, 0.0f), shift), n - i);
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
