// exp, row softmax and fused streaming attention, written once on the xsimd arch tag.
// Included only by src/arch/ARCH_attention.cpp, each compiled with its own ISA flags; all of
// it has internal linkage (anonymous namespace), so no inline function compiled with one
// arch's flags can be shared with another translation unit (design notes §2, ODR trap).
#pragma once
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "attn/matrix.hpp"
#include "attn/masking.hpp"
#include "kernels/kernel_api.hpp"
#include "kernels/simd_util.hpp"

namespace attn::kernels::attention_impl {
namespace {

template <class Arch>
using vfloat = xsimd::batch<float, Arch>;
template <class Arch>
using vint = xsimd::batch<std::int32_t, Arch>;

template <class Arch>
constexpr std::size_t lanes = vfloat<Arch>::size;

inline constexpr float neg_inf = -std::numeric_limits<float>::infinity();

// Fused multiply-adds and horizontal reductions shared with the GEMM (kernels/simd_util.hpp).
using simd::fmadd;
using simd::fnmadd;
template <class Arch>
inline float hsum(const vfloat<Arch>& v) {
    return simd::reduce_add(v);
}
template <class Arch>
inline float hmax(const vfloat<Arch>& v) {
    return simd::reduce_max(v);
}

// The first n (< lanes) floats at p, the other lanes `fill`; never reads past p + n.
template <class Arch>
inline vfloat<Arch> load_partial(const float* p, std::size_t n, float fill) {
    alignas(64) float t[lanes<Arch>];
    for (std::size_t i = 0; i < lanes<Arch>; ++i) t[i] = i < n ? p[i] : fill;
    return vfloat<Arch>::load_aligned(t);
}

template <class Arch>
inline void store_partial(float* p, const vfloat<Arch>& v, std::size_t n) {
    alignas(64) float t[lanes<Arch>];
    v.store_aligned(t);
    for (std::size_t i = 0; i < n; ++i) p[i] = t[i];
}

// ---- packed mask bits (attn/mask_bits.hpp) ---------------------------------------------
// n <= 32 bits of a mask row from key k on (bit u = key k + u allowed); reads only the
// words that hold keys [k, k + n).
inline std::uint32_t mask_bits_at(const std::uint64_t* row, std::size_t k, std::size_t n) {
    const std::size_t w = k / 64, b = k % 64;
    std::uint64_t v = row[w] >> b;
    if (b + n > 64) v |= row[w + 1] << (64 - b);
    return std::uint32_t(v) & (n >= 32 ? ~0u : (1u << n) - 1u);
}

// x along keys: lane u becomes -inf where bit u of `bits` is 0. AVX-512: the bits are the
// __mmask16 of a blend; AVX2 / NEON: the bits broadcast, and-ed with {1, 2, 4, …} and compared
// into a lane mask.
template <class Arch>
inline vfloat<Arch> mask_lanes(const vfloat<Arch>& x, std::uint32_t bits) {
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<Arch, xsimd::avx512f>)
        return _mm512_mask_blend_ps(__mmask16(bits), _mm512_set1_ps(neg_inf), x);
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same_v<Arch, xsimd::fma3<xsimd::avx2>>) {
        const __m256i lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        const __m256i on = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int(bits)), lane), lane);
        return _mm256_blendv_ps(_mm256_set1_ps(neg_inf), x, _mm256_castsi256_ps(on));
    }
#endif
#if defined(__aarch64__)
    if constexpr (lanes<Arch> == 4) {
        const uint32x4_t lane = {1, 2, 4, 8};
        return vbslq_f32(vtstq_u32(vdupq_n_u32(bits), lane), x, vdupq_n_f32(neg_inf));
    }
#endif
    alignas(64) float t[lanes<Arch>];
    x.store_aligned(t);
    for (std::size_t u = 0; u < lanes<Arch>; ++u)
        if (!((bits >> u) & 1u)) t[u] = neg_inf;
    return vfloat<Arch>::load_aligned(t);
}

// 32 keys of `lanes` query rows, one 32-bit granule of mask bits per row (lane), for the
// fused kernel whose vectors run over queries: key(x, u) is x with the lanes whose row has
// key u (< 32) masked set to -inf. AVX-512: vptestmd gives the __mmask16 directly; AVX2:
// bit u shifted into the sign bit, which blendv reads; NEON: vtst.
template <class Arch>
struct QueryLaneBits {
    xsimd::batch<std::uint32_t, Arch> words;

    vfloat<Arch> key(const vfloat<Arch>& x, unsigned u) const {
#if defined(__AVX512F__)
        if constexpr (std::is_same_v<Arch, xsimd::avx512f>)
            return _mm512_mask_blend_ps(_mm512_test_epi32_mask(words, _mm512_set1_epi32(int(1u << u))),
                                        _mm512_set1_ps(neg_inf), x);
#endif
#if defined(__AVX2__)
        if constexpr (std::is_same_v<Arch, xsimd::fma3<xsimd::avx2>>)
            return _mm256_blendv_ps(_mm256_set1_ps(neg_inf), x,
                                    _mm256_castsi256_ps(_mm256_sll_epi32(words, _mm_cvtsi32_si128(int(31 - u)))));
#endif
#if defined(__aarch64__)
        if constexpr (lanes<Arch> == 4)
            return vbslq_f32(vtstq_u32(words, vdupq_n_u32(1u << u)), x, vdupq_n_f32(neg_inf));
#endif
        alignas(64) std::uint32_t w[lanes<Arch>];
        words.store_aligned(w);
        std::uint32_t bits = 0;
        for (std::size_t l = 0; l < lanes<Arch>; ++l) bits |= ((w[l] >> u) & 1u) << l;
        return mask_lanes<Arch>(x, bits);
    }
};

// ---- float16 keys and values ----------------------------------------------------------
// xsimd 8.1 has no half-precision batch: each arch widens `lanes` halves with its own
// instruction (design notes §7). The avx2 translation unit is compiled with -mf16c and the
// avx2 kernel set needs F16C at run time (src/ops.cpp).
template <class Arch>
struct Halves;  // no specialisation: the arch cannot read float16 K/V
#if defined(__AVX512F__)
template <>
struct Halves<xsimd::avx512f> {
    static vfloat<xsimd::avx512f> load(const std::uint16_t* p) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
};
#endif
#if defined(__F16C__) && defined(__AVX2__)
template <>
struct Halves<xsimd::fma3<xsimd::avx2>> {
    static vfloat<xsimd::fma3<xsimd::avx2>> load(const std::uint16_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
};
#endif
#if defined(__aarch64__)
template <>
struct Halves<xsimd::neon64> {
    static vfloat<xsimd::neon64> load(const std::uint16_t* p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
};
#endif

// `lanes` K/V elements at p as floats (unaligned), and the first n < lanes of them (the
// other lanes 0; never reads past p + n).
template <class Arch>
inline vfloat<Arch> load_kv(const float* p) {
    return vfloat<Arch>::load_unaligned(p);
}
template <class Arch>
inline vfloat<Arch> load_kv(const std::uint16_t* p) {
    return Halves<Arch>::load(p);
}
template <class Arch>
inline vfloat<Arch> load_kv_partial(const float* p, std::size_t n) {
    alignas(64) float t[lanes<Arch>];
    for (std::size_t i = 0; i < lanes<Arch>; ++i) t[i] = i < n ? p[i] : 0.0f;
    return vfloat<Arch>::load_aligned(t);
}
template <class Arch>
inline vfloat<Arch> load_kv_partial(const std::uint16_t* p, std::size_t n) {
    alignas(64) std::uint16_t t[lanes<Arch>];
    for (std::size_t i = 0; i < lanes<Arch>; ++i) t[i] = i < n ? p[i] : std::uint16_t(0);
    return Halves<Arch>::load(t);
}

// out[0, n) = the n K/V elements at p as floats.
template <class Arch, class E>
inline void widen_row(const E* p, float* out, std::size_t n) {
    constexpr std::size_t W = lanes<Arch>;
    std::size_t i = 0;
    for (; i + W <= n; i += W) load_kv<Arch>(p + i).store_unaligned(out + i);
    if (i < n) {
        alignas(64) float t[W];
        load_kv_partial<Arch>(p + i, n - i).store_aligned(t);
        std::copy(t, t + (n - i), out + i);
    }
}

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

// ---- exp -----------------------------------------------------------------------------
// Cephes-style expf: n = round(x·log2 e), r = x − n·ln2 (two-constant Cody–Waite), e^r by a
// degree-6 polynomial, times 2^n applied as two power-of-two factors 2^⌊n/2⌋·2^(n−⌊n/2⌋) so
// that results down to the subnormal range and the overflow to +inf come out right.
// x ≤ −88 (and −inf) give exactly 0, x > 88.72 gives +inf, NaN gives NaN.
// Measured maximum error against std::exp in double: 1.010 ULP over every float in
// [−87, 88.72] (exhaustive run, avx512 and avx2); tests/unit/test_exp.cpp samples every
// 61st bit pattern of the whole range per arch and finds 1.003 ULP there (neon under qemu:
// 1.003), 0.75 ULP on the subnormal results of (−88, −87), and asserts ≤ 2 ULP.
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
    const F xc = xsimd::max(lo, x);  // keeps 2^n·p normal (n ≥ −126 and p ≥ 1 at n = −126)
    const F magic(12582912.0f);     // 1.5·2^23: adding it rounds to an integer
    F t;
    const F p = exp_reduced<Arch>(xc, magic, t);
    // The low bits of t hold n (two's complement): t << 23 is n << 23 modulo 2^32.
    const F y = xsimd::bitwise_cast<F>(xsimd::bitwise_cast<I>(p) + (xsimd::bitwise_cast<I>(t) << 23));
    return xsimd::select(x < lo, F(0.0f), xsimd::select(x == x, y, x));
}

template <class Arch>
void exp_array(const float* x, float* y, std::size_t n) {
    constexpr std::size_t W = lanes<Arch>;
    std::size_t i = 0;
    for (; i + W <= n; i += W) exp<Arch>(vfloat<Arch>::load_unaligned(x + i)).store_unaligned(y + i);
    if (i < n) store_partial<Arch>(y + i, exp<Arch>(load_partial<Arch>(x + i, n - i, 0.0f)), n - i);
}

// ---- row softmax ----------------------------------------------------------------------
inline float masked_row_fill(MaskedRowPolicy policy, std::size_t cols) {
    return policy == MaskedRowPolicy::zero  ? 0.0f
           : policy == MaskedRowPolicy::nan ? std::numeric_limits<float>::quiet_NaN()
                                            : 1.0f / float(cols);
}

// Stable softmax of each row: max, exp(x − max) with the sum in four accumulators, times
// 1/sum. −inf entries give exactly 0 (exp(−inf) = 0); tails are padded with −inf.
template <class Arch>
std::size_t softmax_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols,
                         MaskedRowPolicy policy) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const std::size_t full = cols - cols % W, tail = cols - full;
    std::size_t masked = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        float* row = S + i * lds;
        F m0(neg_inf), m1(neg_inf);
        std::size_t j = 0;
        for (; j + 2 * W <= full; j += 2 * W) {
            m0 = xsimd::max(m0, F::load_unaligned(row + j));
            m1 = xsimd::max(m1, F::load_unaligned(row + j + W));
        }
        if (j < full) m0 = xsimd::max(m0, F::load_unaligned(row + j));
        if (tail) m1 = xsimd::max(m1, load_partial<Arch>(row + full, tail, neg_inf));
        const float mx = hmax<Arch>(xsimd::max(m0, m1));
        if (mx == neg_inf) {  // fully masked (or no columns): x − max would be NaN
            ++masked;
            const float fill = masked_row_fill(policy, cols);
            std::fill(row, row + cols, fill);
            continue;
        }
        const F vmx(mx);
        F acc[4] = {F(0.0f), F(0.0f), F(0.0f), F(0.0f)};
        j = 0;
        for (; j + 4 * W <= full; j += 4 * W)
            for (std::size_t u = 0; u < 4; ++u) {
                const F e = exp<Arch>(F::load_unaligned(row + j + u * W) - vmx);
                e.store_unaligned(row + j + u * W);
                acc[u] += e;
            }
        for (; j < full; j += W) {
            const F e = exp<Arch>(F::load_unaligned(row + j) - vmx);
            e.store_unaligned(row + j);
            acc[0] += e;
        }
        if (tail) {
            const F e = exp<Arch>(load_partial<Arch>(row + full, tail, neg_inf) - vmx);
            store_partial<Arch>(row + full, e, tail);
            acc[1] += e;
        }
        const F inv(1.0f / hsum<Arch>((acc[0] + acc[1]) + (acc[2] + acc[3])));
        for (j = 0; j < full; j += W) (F::load_unaligned(row + j) * inv).store_unaligned(row + j);
        if (tail) store_partial<Arch>(row + full, load_partial<Arch>(row + full, tail, 0.0f) * inv, tail);
    }
    return masked;
}

// ---- the materialised path's score epilogue ------------------------------------------
// v, as a value the compiler cannot see into: a product passed through it is rounded on its
// own and never contracted with a following add into a fused multiply-add (which would
// round once and change the bits against the scalar pass).
template <class Arch>
inline vfloat<Arch> rounded(vfloat<Arch> v) {
    auto r = v.data;
#if defined(__aarch64__)
    __asm__("" : "+w"(r));
#else
    __asm__("" : "+v"(r));
#endif
    return vfloat<Arch>(r);
}

// x = scale·s (+ bias), -inf where a mask bit is 0 (mask: the n lanes' bits, or null) or
// the lane is at or past `allowed` (a count of leading lanes, W = all); the n first lanes
// are read (tails: n < W).
template <class Arch>
inline vfloat<Arch> scaled_lanes(const float* s, const std::uint32_t* mask, const float* bias, float scale,
                                 std::size_t n, std::size_t allowed) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const F ninf(neg_inf);
    F x = (n == W ? F::load_unaligned(s) : load_partial<Arch>(s, n, 0.0f)) * F(scale);
    if (bias) x = rounded<Arch>(x) + (n == W ? F::load_unaligned(bias) : load_partial<Arch>(bias, n, 0.0f));
    if (mask) x = mask_lanes<Arch>(x, *mask);
    if (allowed < W) {
        alignas(64) float lane[W];
        for (std::size_t l = 0; l < W; ++l) lane[l] = float(l);
        x = xsimd::select(F::load_aligned(lane) < F(float(allowed)), x, ninf);
    }
    return x;
}

// kernels/kernel_api.hpp's score_epilogue: per row, one vector pass writes the scaled,
// masked scores (keys past the visible limit are -inf without a load), then the row
// softmax of softmax_rows runs on the row while it is in L1.
template <class Arch>
std::size_t score_epilogue(const ScoreEpilogueArgs& a) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const std::size_t Tk = a.Tk;
    std::size_t masked = 0;
    for (std::size_t i = a.row_begin; i < a.row_end; ++i) {
        const std::size_t r = i - a.row_begin;
        const float* s = a.S + r * a.lds;
        float* p = a.P + r * a.ldp;
        const std::uint64_t* mask = a.mask ? a.mask + i * a.ldm : nullptr;
        const float* bias = a.bias ? a.bias + i * a.ldb : nullptr;
        const std::size_t visible = std::min(Tk, visible_keys(a.causal, i, a.Tq, Tk, a.key_limit));
        std::uint32_t bits = 0;
        std::size_t j = 0;
        for (; j + W <= visible; j += W) {
            if (mask) bits = mask_bits_at(mask, j, W);
            scaled_lanes<Arch>(s + j, mask ? &bits : nullptr, bias ? bias + j : nullptr, a.scale, W, W)
                .store_unaligned(p + j);
        }
        if (j < visible) {  // the vector holding the visible limit
            const std::size_t n = std::min(W, Tk - j);
            if (mask) bits = mask_bits_at(mask, j, n);
            const F x = scaled_lanes<Arch>(s + j, mask ? &bits : nullptr, bias ? bias + j : nullptr, a.scale, n,
                                           visible - j);
            if (n == W) x.store_unaligned(p + j);
            else store_partial<Arch>(p + j, x, n);
            j += n;
        }
        std::fill(p + j, p + Tk, neg_inf);
        if (a.scaled) std::copy(p, p + Tk, a.scaled + r * a.ld_scaled);
        if (a.softmax) masked += softmax_rows<Arch>(p, a.ldp, 1, Tk, a.policy);
    }
    return masked;
}

// ---- W×W transpose in registers -------------------------------------------------------
// r[i] lane j ← r[j] lane i. Unpack/shuffle networks per ISA (xsimd 8.1 has no transpose and
// its zips work within 128-bit lanes); any other arch goes through a small aligned buffer.
template <class Arch>
inline void transpose(vfloat<Arch>* r) {
    constexpr std::size_t W = lanes<Arch>;
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<Arch, xsimd::avx512f>) {
        __m512 t[16];
        for (int i = 0; i < 8; ++i) {
            t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        __m512 u[16];  // u[4g + k], 128-bit lane L: rows 4g…4g+3 at column 4L + k
        for (int g = 0; g < 4; ++g) {
            u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
            u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
            u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
            u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
        }
        for (int k = 0; k < 4; ++k) {
            const __m512 s0 = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88), s1 = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xDD);
            const __m512 s2 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88),
                         s3 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xDD);
            r[k] = _mm512_shuffle_f32x4(s0, s2, 0x88);
            r[8 + k] = _mm512_shuffle_f32x4(s0, s2, 0xDD);
            r[4 + k] = _mm512_shuffle_f32x4(s1, s3, 0x88);
            r[12 + k] = _mm512_shuffle_f32x4(s1, s3, 0xDD);
        }
        return;
    }
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same_v<Arch, xsimd::fma3<xsimd::avx2>>) {
        __m256 t[8];
        for (int i = 0; i < 4; ++i) {
            t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        __m256 u[8];  // u[4g + k], 128-bit lane L: rows 4g…4g+3 at column 4L + k
        for (int g = 0; g < 2; ++g) {
            u[4 * g + 0] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
            u[4 * g + 1] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
            u[4 * g + 2] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
            u[4 * g + 3] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
        }
        for (int k = 0; k < 4; ++k) {
            r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
            r[4 + k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
        }
        return;
    }
#endif
#if defined(__aarch64__)
    if constexpr (W == 4) {
        const float32x4x2_t p = vtrnq_f32(r[0], r[1]), q = vtrnq_f32(r[2], r[3]);
        r[0] = vcombine_f32(vget_low_f32(p.val[0]), vget_low_f32(q.val[0]));
        r[1] = vcombine_f32(vget_low_f32(p.val[1]), vget_low_f32(q.val[1]));
        r[2] = vcombine_f32(vget_high_f32(p.val[0]), vget_high_f32(q.val[0]));
        r[3] = vcombine_f32(vget_high_f32(p.val[1]), vget_high_f32(q.val[1]));
        return;
    }
#endif
    alignas(64) float m[W * W];
    for (std::size_t i = 0; i < W; ++i) r[i].store_aligned(m + i * W);
    for (std::size_t i = 0; i < W; ++i) {
        alignas(64) float col[W];
        for (std::size_t j = 0; j < W; ++j) col[j] = m[j * W + i];
        r[i] = vfloat<Arch>::load_aligned(col);
    }
}

// ---- fused streaming attention -------------------------------------------------------
// Everything runs "vector over queries": a block of QB = NV·lanes query rows is packed
// d-major (Qᵀ, pre-scaled), so
//   Sᵀ[j][q] = Σ_p K[j][p]·Qᵀ[p][q]   (K rows broadcast straight from K: no K packing),
//   online softmax per query lane     (max, sum, rescale are vertical vector ops: no
//                                      horizontal reductions),
//   Oᵀ[c][q] += Σ_j V[j][c]·Pᵀ[j][q]   (V entries broadcast straight from V),
// and Oᵀ is transposed back into O once per block. Both products are the same
// register-blocked micro-kernel: R broadcast rows × NV vectors of queries, R·NV accumulators.
// Blocks are aligned to multiples of QB in absolute row index and every lane is computed
// independently, so each output row gets the same operations whatever [row_begin, row_end)
// is: the result is bitwise identical for any split of the rows over threads.
template <class Arch>
struct FlashBlocking {
    // R × NV accumulators: 6×4 = 24 of 32 zmm / NEON registers (+4 loads, 1 broadcast).
    // G blocks of NV·lanes query rows share each tile of BC keys.
    static constexpr std::size_t R = 6, NV = 4, BC = 128, G = 4;
};
template <>
struct FlashBlocking<xsimd::fma3<xsimd::avx2>> {  // 16 ymm registers: 6×2 accumulators
    static constexpr std::size_t R = 6, NV = 2, BC = 128, G = 8;
};

// C[r][0, NV·W) = (Acc ? C[r]·alpha : 0) + Σ_{p<kdim} a[r][p·aps] · B[p][0, NV·W), r < Rows.
// B is kdim rows of NV·W floats (64-byte aligned), C rows are ldc apart (aligned).
// With colmax, also colmax[v] = max(colmax[v], max_r C[r][v]) (the softmax's running max).
template <class Arch, std::size_t Rows, std::size_t NV, bool Acc>
inline void micro_kernel(const float* const* a, std::size_t aps, const float* B, std::size_t kdim, float* C,
                         std::size_t ldc, const vfloat<Arch>* alpha, vfloat<Arch>* colmax) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>, PW = NV * W;
    F acc[Rows][NV];
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t v = 0; v < NV; ++v)
            acc[r][v] = Acc ? F::load_aligned(C + r * ldc + v * W) * alpha[v] : F(0.0f);
    std::size_t off = 0;
    for (std::size_t p = 0; p < kdim; ++p, off += aps, B += PW) {
        F b[NV];
        for (std::size_t v = 0; v < NV; ++v) b[v] = F::load_aligned(B + v * W);
        for (std::size_t r = 0; r < Rows; ++r) {
            const F x(a[r][off]);
            for (std::size_t v = 0; v < NV; ++v) acc[r][v] = fmadd<Arch>(x, b[v], acc[r][v]);
        }
    }
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t v = 0; v < NV; ++v) acc[r][v].store_aligned(C + r * ldc + v * W);
    if (colmax)
        for (std::size_t v = 0; v < NV; ++v) {
            F m = acc[0][v];
            for (std::size_t r = 1; r < Rows; ++r) m = xsimd::max(m, acc[r][v]);
            colmax[v] = xsimd::max(colmax[v], m);
        }
}

// Run-time row count (1…R) → compile-time micro-kernel instance.
template <class Arch, bool Acc, std::size_t Rows = FlashBlocking<Arch>::R>
inline void micro_kernel_rows(std::size_t rows, const float* const* a, std::size_t aps, const float* B,
                              std::size_t kdim, float* C, std::size_t ldc, const vfloat<Arch>* alpha,
                              vfloat<Arch>* colmax) {
    if constexpr (Rows == 0) {
        (void)rows, (void)a, (void)aps, (void)B, (void)kdim, (void)C, (void)ldc, (void)alpha, (void)colmax;
    } else if (rows == Rows) {
        micro_kernel<Arch, Rows, FlashBlocking<Arch>::NV, Acc>(a, aps, B, kdim, C, ldc, alpha, colmax);
    } else {
        micro_kernel_rows<Arch, Acc, Rows - 1>(rows, a, aps, B, kdim, C, ldc, alpha, colmax);
    }
}

struct AlignedFloats {
    struct Free {
        void operator()(float* p) const noexcept { aligned_free_floats(p); }
    };
    std::unique_ptr<float[], Free> p;
    explicit AlignedFloats(std::size_t n) : p(aligned_alloc_floats(n ? n : 1)) {}
    float* get() const noexcept { return p.get(); }
};

template <class Arch>
class Flash {
    using F = vfloat<Arch>;
    using Blk = FlashBlocking<Arch>;
    static constexpr std::size_t W = lanes<Arch>, R = Blk::R, NV = Blk::NV, BC = Blk::BC, G = Blk::G;
    static constexpr std::size_t QB = NV * W;  // query rows per block

public:
    // Scratch, O(tile): per block of a group Qᵀ (dk×QB), Oᵀ (dv×QB), m and l (QB each);
    // one Sᵀ/Pᵀ tile (BC×QB); for float16 K/V, the tile's K and V rows widened (BC×dk, BC×dv).
    // They are carved from one buffer per thread that outlives the call: a work unit is one
    // call, and fresh blocks per unit cost page faults on every unit (measured: 210 of the
    // 720 faults of a whole T=4096 process).
    explicit Flash(const FlashArgs& a) : a_(a) {
        const std::size_t kv = a.kv_type == ElementType::f16 ? BC * (a.dk + a.dv) : 0;
        const std::size_t sizes[] = {G * a.dk * QB, G * a.dv * QB, G * 2 * QB, BC * QB, kv};
        std::size_t total = 0;
        for (std::size_t n : sizes) total += round_up(n, W_ALIGN);
        static thread_local simd::Scratch<Arch> scratch;
        float* p = scratch.get(total);
        float** parts[] = {&qt_, &ot_, &ml_, &st_, &kvt_};
        for (std::size_t i = 0; i < 5; ++i) *parts[i] = p, p += round_up(sizes[i], W_ALIGN);
    }

    // Groups of up to G blocks share each K/V tile while it is in cache (the tile loop is
    // outside the block loop), so K and V stream from memory once per group, not per block.
    std::size_t run() {
        std::size_t masked = 0;
        for (std::size_t g0 = a_.row_begin / QB * QB; g0 < a_.row_end; g0 += G * QB) {
            const std::size_t nb = std::min(G, (std::min(a_.row_end, a_.Tq) - g0 + QB - 1) / QB);
            masked += group(g0, nb);
        }
        return masked;
    }

private:
    static constexpr std::size_t W_ALIGN = 16;  // floats per 64-byte line: parts stay aligned
    static constexpr std::size_t round_up(std::size_t n, std::size_t q) { return (n + q - 1) / q * q; }
    float* qt(std::size_t b) const { return qt_ + b * a_.dk * QB; }
    float* ot(std::size_t b) const { return ot_ + b * a_.dv * QB; }
    float* m_of(std::size_t b) const { return ml_ + b * 2 * QB; }
    float* l_of(std::size_t b) const { return ml_ + b * 2 * QB + QB; }

    // Blocks b < nb of query rows [g0 + b·QB, … + QB) ∩ [0, Tq); outputs written for the
    // rows in [row_begin, row_end).
    std::size_t group(std::size_t g0, std::size_t nb) {
        std::size_t kend[G], kfull[G];
        for (std::size_t b = 0; b < nb; ++b) {
            const std::size_t q0 = g0 + b * QB, nq = std::min(QB, a_.Tq - q0);
            pack_q(q0, nq, qt(b));
            std::fill(m_of(b), m_of(b) + QB, neg_inf);
            std::fill(l_of(b), l_of(b) + QB, 0.0f);
            std::fill(ot(b), ot(b) + a_.dv * QB, 0.0f);
            // Keys any row of the (whole, unclipped) block may see: visible limits are
            // non-decreasing in the row index. Tiles beyond are never computed.
            kend[b] = visible_keys(a_.causal, q0 + nq - 1, a_.Tq, a_.Tk, a_.key_limit);
            kfull[b] = visible_keys(a_.causal, q0, a_.Tq, a_.Tk, a_.key_limit);  // seen by every row
        }
        for (std::size_t t0 = 0; t0 < kend[nb - 1]; t0 += BC) {
            load_tile(t0, std::min(BC, kend[nb - 1] - t0));
            for (std::size_t b = 0; b < nb; ++b) {
                if (t0 >= kend[b]) continue;
                if (a_.bias || a_.mask) {
                    if (t0 == 0 && b == 0) prefetch_bias_and_mask(g0, 0, std::min(BC, kend[0]));
                    prefetch_next(g0, nb, kend, b, t0);
                }
                block_tile(g0 + b * QB, b, t0, std::min(BC, kend[b] - t0), kfull[b]);
            }
        }
        std::size_t masked = 0;
        for (std::size_t b = 0; b < nb; ++b) masked += finish(g0 + b * QB, b);
        return masked;
    }

    // Sets ahead_ to the bias and mask rows of the block_tile that follows (block b, tile t0)
    // in group's order: the next block seeing this tile, else the first seeing the next one.
    void prefetch_next(std::size_t g0, std::size_t nb, const std::size_t* kend, std::size_t b, std::size_t t0) {
        std::size_t next = b + 1, t = t0;
        while (next < nb && t >= kend[next]) ++next;
        if (next == nb)
            for (next = 0, t = t0 + BC; next < nb && t >= kend[next];) ++next;
        if (next < nb) ahead_.start(a_, g0 + next * QB, t, std::min(BC, kend[next] - t));
        else ahead_ = {};
    }

    // The K and V rows of the tile at t0 as floats: in place for float32, widened into the
    // tile buffers for float16 (once per tile, shared by every block of the group).
    void load_tile(std::size_t t0, std::size_t nk) {
        if (a_.kv_type == ElementType::f32) {
            tk_ = static_cast<const float*>(a_.K) + t0 * a_.ldk, ldk_ = a_.ldk;
            tv_ = static_cast<const float*>(a_.V) + t0 * a_.ldv, ldv_ = a_.ldv;
            return;
        }
        float* k = kvt_;
        float* v = k + BC * a_.dk;
        const auto* K = static_cast<const std::uint16_t*>(a_.K);
        const auto* V = static_cast<const std::uint16_t*>(a_.V);
        for (std::size_t j = 0; j < nk; ++j) {
            widen_row<Arch>(K + (t0 + j) * a_.ldk, k + j * a_.dk, a_.dk);
            widen_row<Arch>(V + (t0 + j) * a_.ldv, v + j * a_.dv, a_.dv);
        }
        tk_ = k, ldk_ = a_.dk, tv_ = v, ldv_ = a_.dv;
    }

    // One block (rows q0…, state b) against keys [t0, t0 + nk).
    void block_tile(std::size_t q0, std::size_t b, std::size_t t0, std::size_t nk, std::size_t kfull) {
        const std::size_t nq = std::min(QB, a_.Tq - q0);
        const bool diagonal = t0 + nk > kfull;  // some rows of the block see only part of the tile
        // Unmodified scores: their column max comes out of the micro-kernel.
        const bool plain = !diagonal && !a_.bias && !a_.mask;
        F mx[NV], m[NV], l[NV], vis[NV], alpha[NV];
        for (std::size_t v = 0; v < NV; ++v) {
            mx[v] = F(neg_inf);
            m[v] = F::load_aligned(m_of(b) + v * W);
            l[v] = F::load_aligned(l_of(b) + v * W);
        }
        // A tile whose mask words are all 0 for every row of the block changes nothing (the
        // online softmax of all -inf leaves m, l and the output as they are): skip it.
        if (a_.mask && tile_masked(q0, nq, t0, nk)) return;
        // The next block_tile's bias rows and mask words are requested a few per key of the
        // exponential pass (online_softmax). Measured at T=4096: requested during the
        // micro-kernels instead (scores, mix), the biased kernel took 7-10% longer.
        if (a_.bias || a_.mask) ahead_.per_step = (ahead_.rows_left() + nk - 1) / nk;
        scores(nk, qt(b), plain ? mx : nullptr);
        // Off the diagonal the last of the bias and mask passes also takes the column max of
        // what it leaves (on the diagonal, online_softmax scans after the causal select).
        F* pass_max = diagonal ? nullptr : mx;
        if (a_.bias) add_bias(q0, nq, t0, nk, a_.mask ? nullptr : pass_max);
        if (a_.mask) apply_mask(q0, nq, t0, nk, pass_max);
        if (diagonal) causal_offsets(q0, t0, vis);
        online_softmax(nk, diagonal ? vis : nullptr, mx, m, l, alpha);
        for (std::size_t v = 0; v < NV; ++v) {
            m[v].store_aligned(m_of(b) + v * W);
            l[v].store_aligned(l_of(b) + v * W);
        }
        mix(nk, alpha, ot(b));
    }

    // Qᵀ[p][q] = scale·Q[q0 + q][p], zero for rows past Tq.
    void pack_q(std::size_t q0, std::size_t nq, float* qt) const {
        for (std::size_t q = 0; q < QB; ++q) {
            if (q < nq) {
                const float* row = a_.Q + (q0 + q) * a_.ldq;
                for (std::size_t p = 0; p < a_.dk; ++p) qt[p * QB + q] = a_.scale * row[p];
            } else {
                for (std::size_t p = 0; p < a_.dk; ++p) qt[p * QB + q] = 0.0f;
            }
        }
    }

    // Sᵀ[j][·] for keys j < nk of the loaded tile (and their column max into colmax when given).
    void scores(std::size_t nk, const float* qt, F* colmax) {
        for (std::size_t j = 0; j < nk; j += R) {
            const std::size_t rows = std::min(R, nk - j);
            const float* krow[R] = {};
            for (std::size_t r = 0; r < rows; ++r) krow[r] = tk_ + (j + r) * ldk_;
            micro_kernel_rows<Arch, false>(rows, krow, 1, qt, a_.dk, st_ + j * QB, QB, nullptr, colmax);
        }
    }

    // The bias, added to the transposed tile with vector code element by element (the bits
    // of the materialised path). A broadcast row (ldb 0: one row for every query) is one
    // value per key, splat across the query lanes; otherwise W rows of W keys are loaded as
    // vectors and transposed in registers. Lanes of rows past Tq read row q0 (their results
    // are unused). With colmax, also colmax[v] = max(colmax[v], max_j Sᵀ[j][v]) over the
    // biased tile, in the same pass (the softmax's scan).
    void add_bias(std::size_t q0, std::size_t nq, std::size_t t0, std::size_t nk, F* colmax) {
        float* st = st_;
        F mx[NV];
        for (std::size_t v = 0; v < NV; ++v) mx[v] = F(neg_inf);
        if (a_.ldb == 0) {
            const float* b = a_.bias + t0;
            for (std::size_t j = 0; j < nk; ++j)
                for (std::size_t v = 0; v < NV; ++v) {
                    float* p = st + j * QB + v * W;
                    const F x = F::load_aligned(p) + F(b[j]);
                    x.store_aligned(p);
                    mx[v] = xsimd::max(mx[v], x);
                }
        } else {
            for (std::size_t v = 0; v < NV; ++v) {
                if (v * W >= nq) {  // rows past Tq: nothing to add, the max for the scan only
                    for (std::size_t j = 0; colmax && j < nk; ++j)
                        mx[v] = xsimd::max(mx[v], F::load_aligned(st + j * QB + v * W));
                    continue;
                }
                const float* brow[W];
                for (std::size_t l = 0; l < W; ++l)
                    brow[l] = a_.bias + (q0 + (v * W + l < nq ? v * W + l : 0)) * a_.ldb + t0;
                for (std::size_t j0 = 0; j0 < nk; j0 += W) {
                    const std::size_t n = std::min(W, nk - j0);
                    F bt[W];
                    load_transposed(brow, j0, n, bt);
                    for (std::size_t c = 0; c < n; ++c) {
                        float* p = st + (j0 + c) * QB + v * W;
                        const F x = F::load_aligned(p) + bt[c];
                        x.store_aligned(p);
                        mx[v] = xsimd::max(mx[v], x);
                    }
                }
            }
        }
        if (colmax)
            for (std::size_t v = 0; v < NV; ++v) colmax[v] = xsimd::max(colmax[v], mx[v]);
    }

    // The mask bits: masked (0) scores of the tile become -inf. A broadcast row (ldm 0) is one
    // bit per key for every lane; otherwise each vector of W query rows takes the 32-bit
    // granules of its W rows as one integer vector and turns bit u of every lane into the
    // lane mask of key u (QueryLaneBits). Lanes of rows past Tq read row q0. With colmax, also
    // colmax[v] = max(colmax[v], max_j Sᵀ[j][v]) over the masked tile (the softmax's scan).
    void apply_mask(std::size_t q0, std::size_t nq, std::size_t t0, std::size_t nk, F* colmax) {
        float* st = st_;
        const F ninf(neg_inf);
        if (a_.ldm == 0) {
            for (std::size_t j = 0; j < nk; ++j) {
                const bool off = !((a_.mask[(t0 + j) / 64] >> ((t0 + j) % 64)) & 1u);
                for (std::size_t v = 0; v < NV; ++v) {
                    float* p = st + j * QB + v * W;
                    if (off) ninf.store_aligned(p);
                    else if (colmax) colmax[v] = xsimd::max(colmax[v], F::load_aligned(p));
                }
            }
            return;
        }
        for (std::size_t v = 0; v < NV; ++v) {
            if (v * W >= nq) {  // rows past Tq: nothing to mask, the max for the scan only
                if (colmax)
                    for (std::size_t j = 0; j < nk; ++j)
                        colmax[v] = xsimd::max(colmax[v], F::load_aligned(st + j * QB + v * W));
                continue;
            }
            const std::uint64_t* mrow[W];
            for (std::size_t l = 0; l < W; ++l)
                mrow[l] = a_.mask + (q0 + (v * W + l < nq ? v * W + l : 0)) * a_.ldm;
            F mx(neg_inf);
            for (std::size_t j0 = 0; j0 < nk; j0 += 32) {
                const std::size_t n = std::min<std::size_t>(32, nk - j0);
                alignas(64) std::uint32_t w[W];
                std::uint32_t any = 0;
                for (std::size_t l = 0; l < W; ++l) any |= ~(w[l] = mask_bits_at(mrow[l], t0 + j0, n));
                float* p = st + j0 * QB + v * W;
                if (!(any & (n == 32 ? ~0u : (1u << n) - 1u))) {  // every key allowed for every row
                    if (colmax)
                        for (std::size_t u = 0; u < n; ++u) mx = xsimd::max(mx, F::load_aligned(p + u * QB));
                    continue;
                }
                const QueryLaneBits<Arch> bits{xsimd::batch<std::uint32_t, Arch>::load_aligned(w)};
                for (std::size_t u = 0; u < n; ++u) {
                    const F x = bits.key(F::load_aligned(p + u * QB), unsigned(u));
                    x.store_aligned(p + u * QB);
                    mx = xsimd::max(mx, x);
                }
            }
            if (colmax) colmax[v] = xsimd::max(colmax[v], mx);
        }
    }

    // Whether every key of the tile is masked for every row of the block (rows < Tq).
    bool tile_masked(std::size_t q0, std::size_t nq, std::size_t t0, std::size_t nk) const {
        const std::size_t w0 = t0 / 64, w1 = (t0 + nk - 1) / 64;
        for (std::size_t q = 0; q < (a_.ldm ? nq : 1); ++q) {
            const std::uint64_t* row = a_.mask + (q0 + q) * a_.ldm;
            for (std::size_t w = w0; w <= w1; ++w)
                if (row[w]) return false;
        }
        return true;
    }

    // The bias rows and mask words of a group's first block_tile, requested into L2 at once
    // (nothing computes yet to hide them behind); later ones come through ahead_.
    void prefetch_bias_and_mask(std::size_t q0, std::size_t t0, std::size_t nk) const {
        PrefetchAhead first;
        first.start(a_, q0, t0, nk);
        first.issue(std::numeric_limits<std::size_t>::max());
    }

    // t[c] lane l = row[l][j0 + c] for c < n (n ≤ W keys of W rows): W vector loads and an
    // in-register transpose.
    static void load_transposed(const float* const* row, std::size_t j0, std::size_t n, F* t) {
        if (n == W)
            for (std::size_t l = 0; l < W; ++l) t[l] = F::load_unaligned(row[l] + j0);
        else
            for (std::size_t l = 0; l < W; ++l) t[l] = load_partial<Arch>(row[l] + j0, n, 0.0f);
        transpose<Arch>(t);
    }

    // vis[v] lane q: number of keys of this tile row q0 + v·W + q may see (as a float in
    // [0, BC], exact), for the causal select in online_softmax.
    void causal_offsets(std::size_t q0, std::size_t t0, F* vis) const {
        alignas(64) float t[QB];
        for (std::size_t q = 0; q < QB; ++q) {
            const std::size_t i = std::min(q0 + q, a_.Tq - 1);  // lanes past Tq: any value
            const std::size_t v = visible_keys(a_.causal, i, a_.Tq, a_.Tk, a_.key_limit);
            t[q] = float(v <= t0 ? 0 : std::min(BC, v - t0));
        }
        for (std::size_t v = 0; v < NV; ++v) vis[v] = F::load_aligned(t + v * W);
    }

    // Per query lane: m_new = max(m, max_j Sᵀ[j]); Pᵀ = exp(Sᵀ − m_new) in place;
    // alpha = exp(m − m_new) (0 while nothing was visible: the accumulators are still 0);
    // l = alpha·l + Σ_j Pᵀ[j]. Lanes with nothing visible yet get P = 0. The causal limits
    // vis (diagonal tiles) are applied here, with the scan for the column max; off the
    // diagonal, mx holds it already. The next block_tile's bias and mask lines are requested
    // during the exponentials (ahead_).
    void online_softmax(std::size_t nk, const F* vis, F* mx, F* m, F* l, F* alpha) {
        float* st = st_;
        const F ninf(neg_inf);
        if (vis) {
            F jf(0.0f);
            for (std::size_t j = 0; j < nk; ++j, jf += F(1.0f))
                for (std::size_t v = 0; v < NV; ++v) {
                    const F x = xsimd::select(jf < vis[v], F::load_aligned(st + j * QB + v * W), ninf);
                    x.store_aligned(st + j * QB + v * W);
                    mx[v] = xsimd::max(mx[v], x);
                }
        }
        F mu[NV], sum[NV];
        for (std::size_t v = 0; v < NV; ++v) {
            const F m_new = xsimd::max(m[v], mx[v]);
            alpha[v] = xsimd::select(m[v] == ninf, F(0.0f), exp_nonpositive<Arch>(m[v] - m_new));
            mu[v] = xsimd::select(m_new == ninf, F(0.0f), m_new);  // exp(−inf − 0) = 0, not NaN
            m[v] = m_new;
            sum[v] = F(0.0f);
        }
        for (std::size_t j = 0; j < nk; ++j) {
            for (std::size_t v = 0; v < NV; ++v) {
                const F p = exp_nonpositive<Arch>(F::load_aligned(st + j * QB + v * W) - mu[v]);
                p.store_aligned(st + j * QB + v * W);
                sum[v] += p;
            }
            ahead_.issue();
        }
        for (std::size_t v = 0; v < NV; ++v) l[v] = fmadd<Arch>(alpha[v], l[v], sum[v]);
    }

    // Oᵀ[c][·] = alpha·Oᵀ[c][·] + Σ_j V[t0 + j][c]·Pᵀ[j][·] (V rows of the loaded tile).
    void mix(std::size_t nk, const F* alpha, float* ot) {
        for (std::size_t c = 0; c < a_.dv; c += R) {
            const std::size_t rows = std::min(R, a_.dv - c);
            const float* vcol[R] = {};
            for (std::size_t r = 0; r < rows; ++r) vcol[r] = tv_ + c + r;
            micro_kernel_rows<Arch, true>(rows, vcol, ldv_, st_, nk, ot + c * QB, QB, alpha, nullptr);
        }
        ahead_.issue(std::numeric_limits<std::size_t>::max());  // any left by online_softmax
    }

    // O = Oᵀ / l, or the fully-masked-row policy where nothing was visible (l = 0).
    std::size_t finish(std::size_t q0, std::size_t b) {
        const std::size_t nq = std::min(QB, a_.Tq - q0);
        const float* lsum = l_of(b);
        const float* ot = this->ot(b);
        std::size_t masked = 0;
        const std::size_t qa = std::max(q0, a_.row_begin) - q0, qb = std::min(q0 + nq, a_.row_end) - q0;
        for (std::size_t q = qa; q < qb; ++q) {
            float* out = a_.O + (q0 + q - a_.row_begin) * a_.ldo;
            if (lsum[q] > 0.0f) {
                const float inv = 1.0f / lsum[q];
                for (std::size_t c = 0; c < a_.dv; ++c) out[c] = ot[c * QB + q] * inv;
                continue;
            }
            ++masked;
            if (a_.policy == MaskedRowPolicy::uniform && a_.Tk > 0) {
                const float* mean = v_mean();
                std::copy(mean, mean + a_.dv, out);
            } else {
                // zero; nan; and any policy over no keys at all, whose weighted sum is empty (0)
                const float fill = a_.policy == MaskedRowPolicy::nan && a_.Tk > 0
                                       ? std::numeric_limits<float>::quiet_NaN()
                                       : 0.0f;
                std::fill(out, out + a_.dv, fill);
            }
        }
        return masked;
    }

    // Column means of V (double sums), computed on first use.
    const float* v_mean() {
        if (!mean_) {
            mean_ = std::make_unique<AlignedFloats>(a_.dv);
            // No std::vector here: its out-of-line members would be weak symbols compiled for
            // this arch, which the linker may pick for baseline callers (design notes §2).
            AlignedFloats row(a_.dv);
            constexpr std::size_t block = 64;  // columns summed at a time, in doubles on the stack
            for (std::size_t c0 = 0; c0 < a_.dv; c0 += block) {
                const std::size_t n = std::min(block, a_.dv - c0);
                double sum[block] = {};
                for (std::size_t j = 0; j < a_.Tk; ++j) {
                    if (a_.kv_type == ElementType::f16)
                        widen_row<Arch>(static_cast<const std::uint16_t*>(a_.V) + j * a_.ldv + c0, row.get(), n);
                    else
                        widen_row<Arch>(static_cast<const float*>(a_.V) + j * a_.ldv + c0, row.get(), n);
                    for (std::size_t c = 0; c < n; ++c) sum[c] += row.get()[c];
                }
                for (std::size_t c = 0; c < n; ++c) mean_->get()[c0 + c] = float(sum[c] / double(a_.Tk));
            }
        }
        return mean_->get();
    }

    // The bias rows (and mask words) of one block_tile, requested into L2 a few rows at a
    // time during the block_tile before it. One burst of them all waited on the memory system
    // (they are one stream per query row, too many for the hardware prefetchers); spread
    // out, they arrive while the FMAs run. A row's lines are requested together by a pointer
    // loop (recomputing each line from a row and line index was over a third of the biased
    // kernel's extra instructions).
    struct PrefetchAhead {
        struct Rows {  // bytes [base + r·ld, + bytes) for r < rows
            const char* base = nullptr;
            std::size_t ld = 0, rows = 0, bytes = 0;
        };
        Rows streams[2];  // the bias rows, then the mask words
        std::size_t count = 0, stream = 0, row = 0;  // the next row to request
        std::size_t per_step = 0;  // rows per issue()
        void start(const FlashArgs& a, std::size_t q0, std::size_t t0, std::size_t nk) {
            const std::size_t nq = std::min(QB, a.Tq - q0);
            *this = {};
            if (a.bias)
                streams[count++] = {reinterpret_cast<const char*>(a.bias + q0 * a.ldb + t0), a.ldb * sizeof(float),
                                    a.ldb ? nq : 1, nk * sizeof(float)};
            if (a.mask) {
                const std::size_t w0 = t0 / 64, w1 = (t0 + nk - 1) / 64;
                streams[count++] = {reinterpret_cast<const char*>(a.mask + q0 * a.ldm + w0),
                                    a.ldm * sizeof(std::uint64_t), a.ldm ? nq : 1, (w1 - w0 + 1) * sizeof(std::uint64_t)};
            }
        }
        std::size_t rows_left() const {
            std::size_t n = 0;
            for (std::size_t k = stream; k < count; ++k) n += streams[k].rows - (k == stream ? row : 0);
            return n;
        }
        void issue() { issue(per_step); }
        void issue(std::size_t rows) {
            for (; rows > 0 && stream < count; --rows) {
                const Rows& s = streams[stream];
                const auto first = reinterpret_cast<std::uintptr_t>(s.base + row * s.ld);
                for (std::uintptr_t line = first / 64 * 64; line < first + s.bytes; line += 64)
                    __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 2);
                if (++row == s.rows) ++stream, row = 0;
            }
        }
    };

    const FlashArgs& a_;
    float *qt_ = nullptr, *ot_ = nullptr, *ml_ = nullptr, *st_ = nullptr, *kvt_ = nullptr;  // in scratch
    PrefetchAhead ahead_;
    std::unique_ptr<AlignedFloats> mean_;
    const float* tk_ = nullptr;  // the current tile's K and V rows as floats (load_tile)
    const float* tv_ = nullptr;
    std::size_t ldk_ = 0, ldv_ = 0;
};

template <class Arch>
std::size_t flash(const FlashArgs& a) {
    if (a.row_begin >= a.row_end) return 0;
    return Flash<Arch>(a).run();
}

// ---- split-K decoding ----------------------------------------------------------------
// A few query rows against one chunk of keys, "vector over d" (no query block to fill):
// per tile of keys each K row is loaded once for up to RB query rows (dot products in
// registers, one horizontal sum per row and key), then the online softmax of each row over
// the tile (vector exp), then each V row is loaded once and accumulated into the rows'
// outputs. Every row's operations are the same whatever other rows share the call.
// Tiles are KT keys for one query row, KT_shared for several (see the software prefetch
// below); both are multiples of every arch's lanes. The tile's score rows are a tile apart.
template <class Arch>
struct DecodeBlocking {
    static constexpr std::size_t RB = 8, KT = 64, KT_shared = 16;
};

// Software prefetch for the split-K loops, which stream K and V from the last-level cache
// (or memory) once. Two schemes, by the number of query rows sharing each K/V line:
// - One row (plain decoding): the rows `prefetch_distance_bytes` ahead in the stream being
//   read (K in the scores, V in the mix) are requested into L1.
// - Several rows (the query heads of a grouped-query group): each line costs several times
//   the arithmetic, and the near requests left the loads waiting on K, at any distance.
//   Instead the other stream is requested one phase ahead, into L2: while the scores read K,
//   the same keys' V rows; while the mix reads V, the next tile's K rows; with short tiles
//   (KT_shared) the two streams alternate quickly. Measured (AMD EPYC, 2 threads,
//   1×32:8×1×8192, d=128, minimum of 21 runs, 5 alternating rounds): 3.5-4.3 ms → 2.5-3.0 ms;
//   the near requests added to it, 2.9-3.3 ms; 32- or 64-key tiles, about 3.0 ms. The same
//   scheme for one row was 15-25% slower than the near one.
// Prefetches past the last key are harmless (they never fault).
inline constexpr std::size_t prefetch_distance_bytes = 4096;

// The rows of `cols` elements at p, p + ld, ... (`rows` of them) requested into L1
// (Locality 3) or L2 (1).
template <int Locality = 3, class E>
inline void prefetch_rows(const E* p, std::size_t ld, std::size_t rows, std::size_t cols) {
    const std::size_t bytes = cols * sizeof(E);
    for (std::size_t r = 0; r < rows; ++r) {
        const auto row = reinterpret_cast<std::uintptr_t>(p + r * ld);
        for (std::uintptr_t line = row / 64 * 64; line < row + bytes; line += 64)  // aligned or not
            __builtin_prefetch(reinterpret_cast<const void*>(line), 0, Locality);
    }
}

// How many rows of `cols` E elements make up the prefetch distance (at least 1).
template <class E>
inline std::size_t prefetch_rows_ahead(std::size_t cols) {
    const std::size_t row = std::max<std::size_t>(1, cols * sizeof(E));
    return std::max<std::size_t>(1, (prefetch_distance_bytes + row - 1) / row);
}

// fn(std::integral_constant<n>) for a run-time n in [1, N].
template <std::size_t N, class Fn>
inline void with_row_count(std::size_t n, Fn&& fn) {
    if constexpr (N == 0) {
        (void)n, (void)fn;
    } else if (n == N) {
        fn(std::integral_constant<std::size_t, N>{});
    } else {
        with_row_count<N - 1>(n, fn);
    }
}

// Vector accumulators the decoding loops may keep in registers (16 of 32 zmm / NEON
// registers; 8 of AVX2's 16 ymm), next to the loads and broadcasts.
template <class Arch>
constexpr std::size_t decode_acc_regs = std::is_same_v<Arch, xsimd::fma3<xsimd::avx2>> ? 8 : 16;

// dots[r·W + u] = Σ_p q[r·dkp + p]·K row u (at k0 + u·ldk) over p, lane by lane (W lanes,
// not yet summed), for rows r < NR and KU keys u: KU·NR independent accumulators (one FMA
// chain each would leave the FMA units waiting on its latency). Each key's chain runs over p
// in order whichever keys share the call.
template <class Arch, std::size_t NR, std::size_t KU, class E>
inline void decode_dots(const float* q, std::size_t dkp, const E* k0, std::size_t ldk, std::size_t dk,
                        vfloat<Arch>* dots) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const std::size_t full = dk - dk % W;
    F acc[NR][KU];
    for (std::size_t r = 0; r < NR; ++r)
        for (std::size_t u = 0; u < KU; ++u) acc[r][u] = F(0.0f);
    std::size_t p = 0;
    for (; p < full; p += W) {  // the loops over u and r unrolled: acc stays in registers
        F qv[NR];
#pragma GCC unroll 8
        for (std::size_t r = 0; r < NR; ++r) qv[r] = F::load_aligned(q + r * dkp + p);
#pragma GCC unroll 4
        for (std::size_t u = 0; u < KU; ++u) {
            const F kv = load_kv<Arch>(k0 + u * ldk + p);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < NR; ++r) acc[r][u] = fmadd<Arch>(qv[r], kv, acc[r][u]);
        }
    }
    if (p < dk)
        for (std::size_t u = 0; u < KU; ++u) {
            const F kv = load_kv_partial<Arch>(k0 + u * ldk + p, dk - p);
            for (std::size_t r = 0; r < NR; ++r) acc[r][u] = fmadd<Arch>(F::load_aligned(q + r * dkp + p), kv, acc[r][u]);
        }
    for (std::size_t r = 0; r < NR; ++r)
        for (std::size_t u = 0; u < KU; ++u) dots[r * W + u] = acc[r][u];
}

// sc[r·lds + j] = Σ_p q[r·dkp + p]·K[t0 + j][p] for rows r < NR, keys j < nk (q zero-padded
// to dkp, a multiple of the lanes, and 64-byte aligned; sc rows hold lds floats, a multiple
// of the lanes, and lanes past nk may be written); K holds E elements. Keys go in groups of
// W: their lane-wise dot products, then one transposing reduction (simd::reduce_add_rows)
// gives the group's W scores as one vector, a quarter or less of the instructions of one
// horizontal sum per key. The reduction sums every lane by the same tree and a missing key
// of the last group is a zero vector, so the bits of a score never depend on which keys or
// rows share the call. Prefetch (see prefetch_distance_bytes): one row, the K rows ahead
// before kend (the caller's last key); several, the V rows (ldv apart, dv long) of the same
// keys.
template <class Arch, std::size_t NR, class E>
inline void decode_scores(const float* q, std::size_t dkp, const E* K, std::size_t ldk, std::size_t dk,
                          std::size_t t0, std::size_t nk, std::size_t kend, float* sc, std::size_t lds, const E* V,
                          std::size_t ldv, std::size_t dv) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    // keys per decode_dots call: a power of two (a divisor of W), at most 4
    constexpr std::size_t KU = std::bit_floor(std::clamp<std::size_t>(decode_acc_regs<Arch> / NR, 1, 4));
    const std::size_t pf = prefetch_rows_ahead<E>(dk);
    F dots[NR * W];
    for (std::size_t j0 = 0; j0 < nk; j0 += W) {
        const E* k0 = K + (t0 + j0) * ldk;
        const std::size_t n = std::min(W, nk - j0);
        std::size_t u = 0;
        for (; u + KU <= n; u += KU) {
            if constexpr (NR == 1) {
                const std::size_t first = t0 + j0 + u + pf;
                if (first < kend) prefetch_rows(K + first * ldk, ldk, std::min(KU, kend - first), dk);
            } else {
                prefetch_rows<1>(V + (t0 + j0 + u) * ldv, ldv, KU, dv);
            }
            decode_dots<Arch, NR, KU>(q, dkp, k0 + u * ldk, ldk, dk, dots + u);
        }
        for (; u < n; ++u) decode_dots<Arch, NR, 1>(q, dkp, k0 + u * ldk, ldk, dk, dots + u);
        for (std::size_t r = 0; r < NR; ++r) {
            for (std::size_t v = n; v < W; ++v) dots[r * W + v] = F(0.0f);
            simd::reduce_add_rows(dots + r * W).store_aligned(sc + r * lds + j0);
        }
    }
}

// Rows requested one per key while decode_mix_block streams: row j < rows at base + j·ld,
// cols elements long.
template <class E>
struct RowRequests {
    const E* base = nullptr;
    std::size_t ld = 0, rows = 0, cols = 0;
};

// NB vectors of columns of decode_mix (v and acc point at the first column; the last vector
// has `tail` lanes): NR·NB accumulators in registers while the keys stream, requesting the
// rows of ahead into L1 (Locality 3) or L2 (1) on the way.
template <class Arch, std::size_t NR, std::size_t NB, int Locality, class E>
inline void decode_mix_block(const float* P, std::size_t lds, const float* alpha, const E* v, std::size_t ldv,
                             std::size_t nk, float* acc, std::size_t ldacc, std::size_t tail,
                             const RowRequests<E>& ahead) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    F o[NR][NB];
    for (std::size_t r = 0; r < NR; ++r)
        for (std::size_t b = 0; b < NB; ++b) o[r][b] = F::load_aligned(acc + r * ldacc + b * W) * F(alpha[r]);
    // The loops over b and r are unrolled so that o stays in registers.
    for (std::size_t j = 0; j < nk; ++j, v += ldv) {
        if (j < ahead.rows) prefetch_rows<Locality>(ahead.base + j * ahead.ld, ahead.ld, 1, ahead.cols);
#pragma GCC unroll 16
        for (std::size_t b = 0; b + 1 < NB; ++b) {
            const F vv = load_kv<Arch>(v + b * W);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < NR; ++r) o[r][b] = fmadd<Arch>(F(P[r * lds + j]), vv, o[r][b]);
        }
        const F vv = tail == W ? load_kv<Arch>(v + (NB - 1) * W) : load_kv_partial<Arch>(v + (NB - 1) * W, tail);
#pragma GCC unroll 8
        for (std::size_t r = 0; r < NR; ++r) o[r][NB - 1] = fmadd<Arch>(F(P[r * lds + j]), vv, o[r][NB - 1]);
    }
    for (std::size_t r = 0; r < NR; ++r)
        for (std::size_t b = 0; b < NB; ++b) o[r][b].store_aligned(acc + r * ldacc + b * W);
}

// acc[r][0, dv) = alpha[r]·acc[r] + Σ_{j<nk} P[r·lds + j]·V[t0 + j] for rows r < NR (acc
// rows ldacc apart, 64-byte aligned, padded to a multiple of the lanes); V holds E elements.
// Blocks of up to CB vectors of every row's output stay in registers while the keys stream
// (V rows read in order, NR·CB independent FMA chains); each output element still sums its
// keys in order, so the bits do not depend on the blocking. Prefetch (see
// prefetch_distance_bytes): one row, the V rows ahead before kend (the caller's last key);
// several, the K rows (ldk apart, dk long) of the next tile, which starts at `next`, during
// the first block.
template <class Arch, std::size_t NR, class E>
inline void decode_mix(const float* P, std::size_t lds, const float* alpha, const E* V, std::size_t ldv, std::size_t dv,
                       std::size_t t0, std::size_t nk, std::size_t kend, float* acc, std::size_t ldacc, const E* K,
                       std::size_t ldk, std::size_t dk, std::size_t next) {
    constexpr std::size_t W = lanes<Arch>;
    constexpr std::size_t CB = std::max<std::size_t>(1, decode_acc_regs<Arch> / NR);
    constexpr int locality = NR == 1 ? 3 : 1;
    const std::size_t nvec = (dv + W - 1) / W, tail = dv - (nvec - 1) * W;
    const auto ahead = [&](std::size_t b0, std::size_t cols) {
        if constexpr (NR == 1) {
            const std::size_t pf = prefetch_rows_ahead<E>(dv);
            return RowRequests<E>{V + (t0 + pf) * ldv + b0 * W, ldv, kend - t0 > pf ? kend - t0 - pf : 0, cols};
        } else {
            return RowRequests<E>{K + next * ldk, ldk, b0 == 0 && next < kend ? kend - next : 0, dk};
        }
    };
    std::size_t b0 = 0;
    for (; b0 + CB <= nvec; b0 += CB) {
        const std::size_t last = b0 + CB == nvec ? tail : W;
        decode_mix_block<Arch, NR, CB, locality>(P, lds, alpha, V + t0 * ldv + b0 * W, ldv, nk, acc + b0 * W, ldacc,
                                                 last, ahead(b0, (CB - 1) * W + last));
    }
    if (b0 < nvec)
        with_row_count<CB>(nvec - b0, [&](auto nb) {
            constexpr std::size_t NB = decltype(nb)::value;
            decode_mix_block<Arch, NR, NB, locality>(P, lds, alpha, V + t0 * ldv + b0 * W, ldv, nk, acc + b0 * W,
                                                     ldacc, tail, ahead(b0, (NB - 1) * W + tail));
        });
}

template <class Arch>
inline float exp_nonpositive_scalar(float x) {
    alignas(64) float t[lanes<Arch>];
    exp_nonpositive<Arch>(vfloat<Arch>(x)).store_aligned(t);
    return t[0];
}

// kernels/kernel_api.hpp's decode_chunk for K/V elements of type E. acc rows: ldacc >= dv
// rounded up to 16 floats, 64-byte aligned.
template <class Arch, class E>
void decode_chunk_of(const DecodeArgs& a) {
    const E* K = static_cast<const E*>(a.K);
    const E* V = static_cast<const E*>(a.V);
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>, RB = DecodeBlocking<Arch>::RB, KT = DecodeBlocking<Arch>::KT;
    const std::size_t dkp = (a.dk + W - 1) / W * W, dvp = (a.dv + W - 1) / W * W;
    AlignedFloats qbuf(RB * dkp), sbuf(RB * KT);
    float* q = qbuf.get();
    float* sc = sbuf.get();
    alignas(64) float alpha[RB];
    for (std::size_t r0 = 0; r0 < a.nrows; r0 += RB) {
        const std::size_t nr = std::min(RB, a.nrows - r0);
        std::size_t end[RB], kmax = a.k_begin;
        for (std::size_t r = 0; r < nr; ++r) {
            const DecodeRow& row = a.rows[r0 + r];
            for (std::size_t p = 0; p < dkp; ++p) q[r * dkp + p] = p < a.dk ? a.scale * row.q[p] : 0.0f;
            end[r] = std::max(a.k_begin, std::min(a.k_end, row.visible));
            kmax = std::max(kmax, end[r]);
            a.m[r0 + r] = neg_inf;
            a.l[r0 + r] = 0.0f;
            std::fill(a.acc + (r0 + r) * a.ldacc, a.acc + (r0 + r) * a.ldacc + dvp, 0.0f);
        }
        const std::size_t tile = nr == 1 ? KT : DecodeBlocking<Arch>::KT_shared;
        for (std::size_t t0 = a.k_begin; t0 < kmax; t0 += tile) {
            const std::size_t nk = std::min(tile, kmax - t0);
            with_row_count<RB>(nr, [&](auto rows) {
                decode_scores<Arch, decltype(rows)::value>(q, dkp, K, a.ldk, a.dk, t0, nk, kmax, sc, tile, V, a.ldv,
                                                           a.dv);
            });
            for (std::size_t r = 0; r < nr; ++r) {
                const DecodeRow& row = a.rows[r0 + r];
                float* s = sc + r * tile;
                const std::size_t lim = end[r] > t0 ? std::min(nk, end[r] - t0) : 0;
                if (row.bias)
                    for (std::size_t j = 0; j < lim; ++j) s[j] += row.bias[t0 + j];
                if (row.mask)
                    for (std::size_t j = 0; j < lim; j += W)
                        mask_lanes<Arch>(F::load_aligned(s + j), mask_bits_at(row.mask, t0 + j, std::min(W, lim - j)))
                            .store_aligned(s + j);
                std::fill(s + lim, s + tile, neg_inf);
                F mx(neg_inf);
                for (std::size_t j = 0; j < tile; j += W) mx = xsimd::max(mx, F::load_aligned(s + j));
                const float m = a.m[r0 + r], m_new = std::max(m, hmax<Arch>(mx));
                if (m_new == neg_inf) {  // nothing allowed yet: the accumulators stay 0
                    alpha[r] = 1.0f;
                    std::fill(s, s + tile, 0.0f);
                    continue;
                }
                const F mu(m_new);
                F sum(0.0f);
                for (std::size_t j = 0; j < tile; j += W) {
                    const F p = exp_nonpositive<Arch>(F::load_aligned(s + j) - mu);
                    p.store_aligned(s + j);
                    sum += p;
                }
                alpha[r] = m == neg_inf ? 0.0f : exp_nonpositive_scalar<Arch>(m - m_new);
                a.l[r0 + r] = alpha[r] * a.l[r0 + r] + hsum<Arch>(sum);
                a.m[r0 + r] = m_new;
            }
            with_row_count<RB>(nr, [&](auto rows) {
                decode_mix<Arch, decltype(rows)::value>(sc, tile, alpha, V, a.ldv, a.dv, t0, nk, kmax,
                                                        a.acc + r0 * a.ldacc, a.ldacc, K, a.ldk, a.dk, t0 + tile);
            });
        }
    }
}

template <class Arch>
void decode_chunk(const DecodeArgs& a) {
    if (a.kv_type == ElementType::f16)
        decode_chunk_of<Arch, std::uint16_t>(a);
    else
        decode_chunk_of<Arch, float>(a);
}

}  // namespace
}  // namespace attn::kernels::attention_impl
