// Small SIMD helpers shared by the per-arch kernels, papering over xsimd version
// differences. Everything here is a template on the batch/arch type: a plain inline
// function compiled with AVX-512 flags in one TU and picked by the linker for another TU
// would be an ODR violation that crashes on AVX2-only CPUs (design notes §2).
#pragma once
#include <algorithm>
#include <cstddef>
#include <xsimd/xsimd.hpp>

#include "kernels/aligned_memory.hpp"  // compiled for the baseline ISA

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

// Horizontal sums of `size` batches at once: lane i of the result is the sum of the lanes
// of rows[i], by a transposing reduction (a few shuffles and adds per batch). Every lane is
// summed by the same tree, whatever its position or the other rows (a unit test checks it
// bit for bit on every arch), so a lane's bits depend on its own row only. xsimd's haddp
// for AVX2 and NEON; its avx512f one in 8.1 returns lanes 2-5 and 10-13 in the wrong order.
template <class Arch>
inline xsimd::batch<float, Arch> reduce_add_rows(const xsimd::batch<float, Arch>* rows) noexcept {
    return xsimd::haddp(rows);
}
#if defined(__AVX512F__)
template <>
inline xsimd::batch<float, xsimd::avx512f> reduce_add_rows<xsimd::avx512f>(
    const xsimd::batch<float, xsimd::avx512f>* rows) noexcept {
    // Quarters q0..q3 (4 lanes each). Level 1, rows a, b: [a.q0+a.q2, a.q1+a.q3, b.q0+b.q2, b.q1+b.q3].
    __m512 h[8];
    for (int i = 0; i < 8; ++i)
        h[i] = _mm512_add_ps(_mm512_shuffle_f32x4(rows[2 * i], rows[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(rows[2 * i], rows[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    // Level 2: quarter k of f[i] holds the four partial sums of row 4i + k.
    __m512 f[4];
    for (int i = 0; i < 4; ++i)
        f[i] = _mm512_add_ps(_mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    // Levels 3 and 4 within each quarter k: pairs, then totals of rows k, 4 + k, 8 + k, 12 + k.
    const __m512 p01 = _mm512_add_ps(_mm512_shuffle_ps(f[0], f[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                     _mm512_shuffle_ps(f[0], f[1], _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512 p23 = _mm512_add_ps(_mm512_shuffle_ps(f[2], f[3], _MM_SHUFFLE(2, 0, 2, 0)),
                                     _mm512_shuffle_ps(f[2], f[3], _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512 t = _mm512_add_ps(_mm512_shuffle_ps(p01, p23, _MM_SHUFFLE(2, 0, 2, 0)),
                                   _mm512_shuffle_ps(p01, p23, _MM_SHUFFLE(3, 1, 3, 1)));
    // Lane 4k + m of t is row 4m + k: transpose the 4×4 lane index.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_ps(order, t);
}
#endif

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
    ~Scratch() { free_aligned(data); }
    float* get(std::size_t count) {
        if (count > capacity) {
            free_aligned(data);
            data = nullptr;
            capacity = 0;
            data = alloc_aligned_floats(count);  // throws std::bad_alloc
            // Zeroed once: the fused path's edge tiles leave score entries no row sees
            // uncomputed (flash.hpp), and the softmax's select reads them before replacing them
            // with -inf; they hold earlier tiles' numbers then, never uninitialised memory.
            std::fill(data, data + count, 0.0f);
            capacity = count;
        }
        return data;
    }
};

}  // namespace attn::kernels::simd
