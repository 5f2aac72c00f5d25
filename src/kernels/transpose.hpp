// A W×W transpose in registers.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <cstddef>
#include <type_traits>

#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

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

}  // namespace
}  // namespace attn::kernels::attention_impl
