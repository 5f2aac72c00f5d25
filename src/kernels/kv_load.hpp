// K/V elements (kernels/kv_elements.hpp: float32, float16, bfloat16, q8_0) loaded as float
// vectors, exactly: every element of each type is a float32 (a q8_0 value d·q too).
// bfloat16 is widened everywhere (a 16-bit shift), also where the CPU has AVX512-BF16: its
// vdpbf16ps takes both operands in bfloat16, so Q would be rounded to 8 mantissa bits (a
// relative error near 2^-9 in every score, far outside the tests' tolerance against the
// float64 oracle), and splitting Q into two bfloat16 halves doubles the dot products of a
// decoding step that waits on memory anyway; it also flushes subnormals. The widening shift
// costs one instruction per vector.
// q8_0 loads take `lanes` (4, 8 or 16) values of one block: they divide 32 and rows start on
// a block, so a vector never straddles two blocks, and the last block's padding is zeros.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/half_table.hpp"
#include "kernels/kv_elements.hpp"
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

// ---- bfloat16 and q8_0 ---------------------------------------------------------------------
// Per arch: `lanes` bfloat16 bits widened (the bits shifted into a float32's top half) and
// `lanes` int8 values converted (a q8_0 block's scale d comes from half_table.hpp's table).
// The primary template widens through memory (any arch: the fake arch of tests/fake_arch).
template <class Arch>
struct NarrowLoads {
    static vfloat<Arch> bf16(const std::uint16_t* p) {
        alignas(64) float t[lanes<Arch>];
        for (std::size_t i = 0; i < lanes<Arch>; ++i) t[i] = bfloat16_to_float(p[i]);
        return vfloat<Arch>::load_aligned(t);
    }
    static vfloat<Arch> q8_values(const std::int8_t* q) {
        alignas(64) float t[lanes<Arch>];
        for (std::size_t i = 0; i < lanes<Arch>; ++i) t[i] = float(q[i]);
        return vfloat<Arch>::load_aligned(t);
    }
};
#if defined(__AVX512F__)
template <>
struct NarrowLoads<xsimd::avx512f> {
    static vfloat<xsimd::avx512f> bf16(const std::uint16_t* p) {
        const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
    }
    static vfloat<xsimd::avx512f> q8_values(const std::int8_t* q) {
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q))));
    }
};
#endif
#if defined(__F16C__) && defined(__AVX2__)
template <>
struct NarrowLoads<xsimd::fma3<xsimd::avx2>> {
    static vfloat<xsimd::fma3<xsimd::avx2>> bf16(const std::uint16_t* p) {
        const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
    }
    static vfloat<xsimd::fma3<xsimd::avx2>> q8_values(const std::int8_t* q) {
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q))));
    }
};
#endif
#if defined(__aarch64__)
template <>
struct NarrowLoads<xsimd::neon64> {
    static vfloat<xsimd::neon64> bf16(const std::uint16_t* p) {
        return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
    }
    static vfloat<xsimd::neon64> q8_values(const std::int8_t* q) {
        std::int32_t four;  // 4 values: a 32-bit load, then widened 8 → 16 → 32 bits
        std::memcpy(&four, q, sizeof four);
        const int16x8_t w = vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(four)));
        return vcvtq_f32_s32(vmovl_s16(vget_low_s16(w)));
    }
};
#endif

// `lanes` K/V elements at p as floats (unaligned), and the first n < lanes of them (the
// other lanes 0; never reads past p + n, but for q8_0, whose lanes lie in p's block, where
// the values past the row's end are zeros).
template <class Arch>
inline vfloat<Arch> load_kv(const float* p) {
    return vfloat<Arch>::load_unaligned(p);
}
template <class Arch>
inline vfloat<Arch> load_kv(const std::uint16_t* p) {
    return Halves<Arch>::load(p);
}
template <class Arch>
inline vfloat<Arch> load_kv(const Bf16* p) {
    return NarrowLoads<Arch>::bf16(&p->bits);
}
template <class Arch>
inline vfloat<Arch> load_kv(Q8Ptr p) {
    return NarrowLoads<Arch>::q8_values(p.values()) * vfloat<Arch>(half_floats.value[p.block().d]);
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
template <class Arch>
inline vfloat<Arch> load_kv_partial(const Bf16* p, std::size_t n) {
    alignas(64) std::uint16_t t[lanes<Arch>];
    for (std::size_t i = 0; i < lanes<Arch>; ++i) t[i] = i < n ? p[i].bits : std::uint16_t(0);
    return NarrowLoads<Arch>::bf16(t);
}
template <class Arch>
inline vfloat<Arch> load_kv_partial(Q8Ptr p, std::size_t) {
    return load_kv<Arch>(p);  // the block's padding past the row's end is zeros
}

// out[0, n) = the n K/V elements at p as floats.
template <class Arch, class P>
inline void widen_row(P p, float* out, std::size_t n) {
    constexpr std::size_t W = lanes<Arch>;
    std::size_t i = 0;
    for (; i + W <= n; i += W) load_kv<Arch>(p + i).store_unaligned(out + i);
    if (i < n) {
        alignas(64) float t[W];
        load_kv_partial<Arch>(p + i, n - i).store_aligned(t);
        std::copy(t, t + (n - i), out + i);
    }
}

// ---- Scale groups: how the decoding loops (decode.hpp) walk a K/V row -------------------
// A row (kv_elements.hpp's kv_row) is read in groups of `vectors` vectors that share one
// scale: one vector of a float type (scale 1), or a q8_0 block (32 values: 2 AVX-512
// vectors, 4 AVX2, 8 NEON), whose scale the loops then apply once per block instead of once
// per vector (load_kv's multiply):
// - a dot product over a block, Σ q·(d·k) = d·Σ q·k: the block's lanes summed over the
//   converted int8 values (begin, then fmadd), then one fmadd by the broadcast scale into
//   the key's chain (end);
// - an accumulation over a block, o += P·(d·v) = (P·d)·v: one product P·d per row, key and
//   block (factor), then one fmadd per vector as for the float types.
// For the float types begin is the chain's fmadd and end and factor change nothing: the same
// operations and bits as one fmadd per vector. For q8_0 the rounding moves (d·k was exact;
// now Σ q·k is rounded, then its product with d, and P·d): a relative 2^-24 or so per block.
// Several query rows (grouped-query decoding) pay one scale product per row and block where
// one multiply per vector served them all: from L2 (4 or 8 query heads on one K/V head, 1024
// keys, d=128, 1 thread), 4 rows take the time they took; 8 rows 6% more on AVX-512 (2
// vectors a block: 66 against 62 µs), and on AVX2 (4) about f32's time, as before. One order
// for every row count keeps a row's bits whatever rows share its loads. What it bought one
// row: decode.hpp.
// Rows of q8_0 are stored in whole blocks (the last padded with zeros), so the loops read
// groups(n) whole groups and no partial vector; the float types read n / lanes vectors and a
// partial one of tail(n) = n % lanes values.
template <class Arch, class Row>
struct KvGroups {
    using F = vfloat<Arch>;
    struct Scale {};
    static constexpr std::size_t vectors = 1;
    static constexpr bool scaled = false;
    static std::size_t groups(std::size_t n) { return n / lanes<Arch>; }
    static std::size_t tail(std::size_t n) { return n % lanes<Arch>; }
    // Vector i of group g; the first n values of it (the others 0).
    static F load(Row row, std::size_t g, std::size_t) { return load_kv<Arch>(row + g * lanes<Arch>); }
    static F load_partial(Row row, std::size_t g, std::size_t, std::size_t n) {
        return load_kv_partial<Arch>(row + g * lanes<Arch>, n);
    }
    static Scale scale(Row, std::size_t) { return {}; }
    // A dot product's chain acc over group: t = begin(q, k, acc) for its first vector,
    // t = fmadd(q, k, t) for the others, then acc = end(t, scale, acc).
    static F begin(F q, F k, F acc) { return fmadd<Arch>(q, k, acc); }
    static F end(F t, Scale, F) { return t; }
    // The weight p of a row to accumulate times the group's values.
    static F factor(float p, Scale) { return F(p); }
};
template <class Arch>
struct KvGroups<Arch, const Q8Block*> {
    using F = vfloat<Arch>;
    using Scale = F;
    static constexpr std::size_t vectors = q8_block / lanes<Arch>;
    static constexpr bool scaled = true;
    static std::size_t groups(std::size_t n) { return (n + q8_block - 1) / q8_block; }
    static std::size_t tail(std::size_t) { return 0; }
    static F load(const Q8Block* row, std::size_t g, std::size_t i) {
        return NarrowLoads<Arch>::q8_values(row[g].q + i * lanes<Arch>);
    }
    static F load_partial(const Q8Block* row, std::size_t g, std::size_t i, std::size_t) {
        return load(row, g, i);  // the block's padding past the row's end is zeros
    }
    // (from the table of every float16's float32 value, half_table.hpp: one load)
    static Scale scale(const Q8Block* row, std::size_t g) { return F(half_floats.value[row[g].d]); }
    static F begin(F q, F k, F) { return q * k; }
    static F end(F t, Scale d, F acc) { return fmadd<Arch>(t, d, acc); }
    static F factor(float p, Scale d) { return F(p) * d; }
};
// The groups of a kv_ptr<E>'s rows.
template <class Arch, class E>
using kv_groups = KvGroups<Arch, decltype(kv_row(E{}))>;

}  // namespace
}  // namespace attn::kernels::attention_impl
