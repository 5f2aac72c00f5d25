// Vector types, partial loads and stores, horizontal reductions and an aligned float buffer
// shared by the attention kernels.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "kernels/aligned_memory.hpp"
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

struct AlignedFloats {
    struct Free {
        void operator()(float* p) const noexcept { free_aligned(p); }
    };
    std::unique_ptr<float[], Free> p;
    explicit AlignedFloats(std::size_t n) : p(alloc_aligned_floats(n ? n : 1)) {}
    float* get() const noexcept { return p.get(); }
};

}  // namespace
}  // namespace attn::kernels::attention_impl
