// Small SIMD helpers shared by the per-arch kernels, papering over xsimd version
// differences. Everything here is a template on the batch/arch type: a plain inline
// function compiled with AVX-512 flags in one TU and picked by the linker for another TU
// would be an ODR violation that crashes on AVX2-only CPUs (design notes §2).
#pragma once
#include <cstddef>
#include <xsimd/xsimd.hpp>

#include "attn/matrix.hpp"  // aligned_alloc_floats: compiled for the baseline ISA

namespace attn::kernels::simd {

// Horizontal sum of all lanes. xsimd 8.1 calls it hadd (and needs AVX512DQ for avx512f
// batches); 9.0+ renamed it reduce_add and later versions dropped hadd.
template <class T, class Arch>
inline T reduce_add(const xsimd::batch<T, Arch>& v) noexcept {
#if XSIMD_VERSION_MAJOR >= 9
    return xsimd::reduce_add(v);
#else
    return xsimd::hadd(v);
#endif
}

// Horizontal maximum of all lanes (8.1 has no reduce_max): through memory, lane order.
template <class T, class Arch>
inline T reduce_max(const xsimd::batch<T, Arch>& v) noexcept {
#if XSIMD_VERSION_MAJOR >= 9
    return xsimd::reduce_max(v);
#else
    alignas(64) T lanes[xsimd::batch<T, Arch>::size];
    v.store_aligned(lanes);
    T m = lanes[0];
    for (std::size_t i = 1; i < xsimd::batch<T, Arch>::size; ++i) m = lanes[i] > m ? lanes[i] : m;
    return m;
#endif
}

// a·b + c with a single rounding where the arch has a fused instruction. xsimd 8.1's fma
// for avx512f is the generic a*b+c (the compiler may or may not contract it); this
// overload set guarantees the fused vfmadd on AVX-512. fma3<avx2> and neon64 already fuse.
template <class Arch>
inline xsimd::batch<float, Arch> fmadd(const xsimd::batch<float, Arch>& a, const xsimd::batch<float, Arch>& b,
                                       const xsimd::batch<float, Arch>& c) noexcept {
    return xsimd::fma(a, b, c);
}
#if defined(__AVX512F__)
template <>
inline xsimd::batch<float, xsimd::avx512f> fmadd<xsimd::avx512f>(const xsimd::batch<float, xsimd::avx512f>& a,
                                                                 const xsimd::batch<float, xsimd::avx512f>& b,
                                                                 const xsimd::batch<float, xsimd::avx512f>& c) noexcept {
    return _mm512_fmadd_ps(a, b, c);
}
#endif

// c − a·b with a single rounding (same guarantee as fmadd).
template <class Arch>
inline xsimd::batch<float, Arch> fnmadd(const xsimd::batch<float, Arch>& a, const xsimd::batch<float, Arch>& b,
                                        const xsimd::batch<float, Arch>& c) noexcept {
    return xsimd::fnma(a, b, c);
}
#if defined(__AVX512F__)
template <>
inline xsimd::batch<float, xsimd::avx512f> fnmadd<xsimd::avx512f>(const xsimd::batch<float, xsimd::avx512f>& a,
                                                                  const xsimd::batch<float, xsimd::avx512f>& b,
                                                                  const xsimd::batch<float, xsimd::avx512f>& c) noexcept {
    return _mm512_fnmadd_ps(a, b, c);
}
#endif

// 64-byte aligned scratch buffer of floats for packing; grows, never shrinks. One per
// kernel call or per thread. Allocation goes through the baseline-compiled allocator, not
// xsimd's inline one (which would be compiled with each arch's flags: ODR).
template <class Arch>
struct Scratch {
    float* data = nullptr;
    std::size_t capacity = 0;
    Scratch() = default;
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch() { aligned_free_floats(data); }
    float* get(std::size_t count) {
        if (count > capacity) {
            aligned_free_floats(data);
            data = nullptr;
            capacity = 0;
            data = aligned_alloc_floats(count);  // throws std::bad_alloc
            capacity = count;
        }
        return data;
    }
};

}  // namespace attn::kernels::simd
