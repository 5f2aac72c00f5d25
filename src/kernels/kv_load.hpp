// Float32 or float16 K/V elements loaded as float vectors.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

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

}  // namespace
}  // namespace attn::kernels::attention_impl
