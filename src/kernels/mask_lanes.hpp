// Packed mask bits (attn/mask_bits.hpp) turned into -inf lanes, along keys or across query rows.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

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

}  // namespace
}  // namespace attn::kernels::attention_impl
