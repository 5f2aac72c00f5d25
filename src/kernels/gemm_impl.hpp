// The packed GEMM, written once as a template on the xsimd arch tag and instantiated by
// src/arch/NAME.cpp (arch/kernel_set_of.hpp) with that arch's compiler flags (BLIS layering, see
// flame/blis docs/KernelsHowTo.md; the roles are transposed because C is row-major):
//
//   for each NC-wide column block of B           (j0)
//     for each KC-deep slice of k                 (p0)
//       pack B[p0:+KC, j0:+NC] into NR-column micro-panels          → stays in L2
//       for each MR-row micro-panel of A          (i0)
//         pack A[i0:+MR, p0:+KC]  (MR rows, stride KC)               → stays in L1
//         for each NR-column micro-panel of B     (jr)
//           micro-kernel: MR×NR tile of C in registers, KC rank-1 updates with FMA
//
// The micro-kernel holds MR×NV vectors of accumulators (NR = NV·lanes columns); every k
// step loads NV vectors of packed B and broadcasts MR values of packed A (one per row).
// Edge tiles (m, n not multiples of MR, NR) run the same kernel on zero-padded panels and
// store only the valid part, so every C element gets exactly the same sequence of
// operations wherever it lies: results do not depend on how the caller splits the rows or
// columns over threads. The first k-slice overwrites C (β = 0: C is never read), later
// slices add to it.
//
// Threads: the dispatcher (attention/ops.cpp) gives each thread one block of rows and every call
// packs its own B. Sharing one packed B between threads with dynamically handed-out row
// blocks was measured slower on the 2-core machine (1024³, 2 threads, quiet: 276 against
// 305 GFLOP/s): the B blocks then come from L3 once per row block instead of once per
// thread.
//
// Everything here is a template on Arch (no plain inline helpers: ODR, design notes §2).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/float16.hpp"
#include <cstdint>
#include <xsimd/xsimd.hpp>

#include "kernels/kernel_api.hpp"
#include "kernels/simd_util.hpp"

namespace attn::kernels {

// Blocking constants, one row per arch (in floats).
//   MR × NV·lanes : micro-tile of C in registers. Needs ≥ 8 independent accumulators to
//                   cover 2 FMA pipes × 4 cycles latency, and MR·NV + NV + 1 ≤ registers.
//   KC            : depth of a panel: the A micro-panel (MR×KC) stays in L1 while the B
//                   micro-panels (KC×NR) stream from L2.
//   NC            : columns of the packed B block (KC×NC floats, about half of L2).
template <class Arch>
struct GemmBlocking;

// AVX2 + FMA: 16 ymm registers → 6×2 accumulators + 2 B vectors + 1 broadcast = 15.
// KC·NC·4 = 256·1024·4 = 1 MiB of B in L2; the A micro-panel is 6·256·4 = 6 KiB.
// Measured (1 thread, GFLOP/s per CPU-second, AVX2 FMA peak ≈ 90): NC 1024 ≈ 84,
// NC 512 ≈ 80, KC 384 ≈ 80, 4×3 vectors ≈ 82.
template <>
struct GemmBlocking<xsimd::fma3<xsimd::avx2>> {
    static constexpr std::size_t MR = 6, NV = 2, KC = 256, NC = 1024;
};

// AVX-512: 32 zmm registers → 12×2 accumulators + 2 B vectors + 1 broadcast = 27.
// 1024 and 2048 are multiples of NR = 32. KC·NC·4 = 256·1024·4 = 1 MiB of B in L2
// (2 MiB per core on this Xeon; Zen 5 has 1 MiB: try NC = 512 there); the A micro-panel
// is 12·256·4 = 12 KiB of the 48 KiB L1. Measured (1 thread, 1024³/2048³, GFLOP/s per
// CPU-second): KC 256/NC 1024 ≈ 158, KC 384/NC 512 ≈ 152, KC 192 ≈ 152, MR 14 ≈ 150,
// 8×3 vectors ≈ 136, 6×4 ≈ 142, against an FMA peak of ≈ 176.
template <>
struct GemmBlocking<xsimd::avx512f> {
    static constexpr std::size_t MR = 12, NV = 2, KC = 256, NC = 1024;
};

// NEON (aarch64): 32 q registers → 8×3 accumulators + 3 B vectors + 2 broadcasts = 29.
// Not tuned: only run under qemu here (correctness, not speed). NC is a multiple of NR = 12.
template <>
struct GemmBlocking<xsimd::neon64> {
    static constexpr std::size_t MR = 8, NV = 3, KC = 256, NC = 384;
};

template <class Arch>
struct Gemm {
    using batch = xsimd::batch<float, Arch>;
    using blocking = GemmBlocking<Arch>;
    static constexpr std::size_t lanes = batch::size;
    static constexpr std::size_t MR = blocking::MR, NV = blocking::NV, NR = NV * lanes;
    static constexpr std::size_t KC = blocking::KC, NC = (blocking::NC + NR - 1) / NR * NR;

    // Packs rows [0, rows) × depth [0, kc) of A (row-major, lda) as MR rows of fixed
    // stride KC (a plain copy, no transpose: the kernel broadcasts Ap[r·KC + p], whose
    // displacement r·KC·4 is a compile-time constant); rows ≥ `rows` are zero.
    static void pack_a(const float* A, std::size_t lda, std::size_t rows, std::size_t kc, float* Ap) {
        for (std::size_t r = 0; r < MR; ++r) {
            float* dst = Ap + r * KC;
            if (r >= rows) {
                std::fill(dst, dst + kc, 0.0f);
                continue;
            }
            const float* src = A + r * lda;
            std::size_t p = 0;
            for (; p + lanes <= kc; p += lanes) batch::load_unaligned(src + p).store_aligned(dst + p);
            for (; p < kc; ++p) dst[p] = src[p];
        }
    }

    // One element of B as float32 (16-bit elements widened as they are packed).
    template <GemmB type>
    static float b_at(const void* B, std::size_t i) noexcept {
        if constexpr (type == GemmB::f32) return static_cast<const float*>(B)[i];
        else if constexpr (type == GemmB::f16) return half_to_float(static_cast<const std::uint16_t*>(B)[i]);
        else return bfloat16_to_float(static_cast<const std::uint16_t*>(B)[i]);
    }

    // pack_b of 16-bit B: element by element (the panel is packed once per KC×NC block and
    // reused by every row panel of A, so the widening is a small part of the work).
    template <GemmB type>
    static void pack_b16(const std::uint16_t* B, std::size_t ldb, std::size_t kc, std::size_t cols, float* Bp) {
        for (std::size_t j = 0; j < cols; j += NR, Bp += kc * NR) {
            const std::size_t w = std::min(NR, cols - j);
            for (std::size_t p = 0; p < kc; ++p)
                for (std::size_t c = 0; c < NR; ++c) Bp[p * NR + c] = c < w ? b_at<type>(B, p * ldb + j + c) : 0.0f;
        }
    }

    // Packs B[0:kc, 0:cols] (row-major k×n, ldb) into NR-column micro-panels, each kc×NR,
    // columns ≥ `cols` zero.
    static void pack_b(const float* B, std::size_t ldb, std::size_t kc, std::size_t cols, float* Bp) {
        for (std::size_t j = 0; j < cols; j += NR, Bp += kc * NR) {
            const std::size_t w = std::min(NR, cols - j);
            if (w == NR) {
                for (std::size_t p = 0; p < kc; ++p)
#pragma GCC unroll 4
                    for (std::size_t v = 0; v < NV; ++v)
                        batch::load_unaligned(B + p * ldb + j + v * lanes).store_aligned(Bp + p * NR + v * lanes);
            } else {
                for (std::size_t p = 0; p < kc; ++p)
                    for (std::size_t c = 0; c < NR; ++c) Bp[p * NR + c] = c < w ? B[p * ldb + j + c] : 0.0f;
            }
        }
    }

    // The same for B given transposed (n×k, ldb): element (p, j) is Bt[j·ldb + p]. The
    // transpose happens here, a few k steps at a time so the writes stay in L1.
    template <GemmB type = GemmB::f32, class T = float>
    static void pack_bt(const T* Bt, std::size_t ldb, std::size_t kc, std::size_t cols, float* Bp) {
        constexpr std::size_t step = 16;
        for (std::size_t j = 0; j < cols; j += NR, Bp += kc * NR) {
            const std::size_t w = std::min(NR, cols - j);
            for (std::size_t p0 = 0; p0 < kc; p0 += step) {
                const std::size_t pe = std::min(kc, p0 + step);
                for (std::size_t c = 0; c < w; ++c) {
                    const T* src = Bt + (j + c) * ldb;
                    for (std::size_t p = p0; p < pe; ++p) Bp[p * NR + c] = b_at<type>(src, p);
                }
                for (std::size_t c = w; c < NR; ++c)
                    for (std::size_t p = p0; p < pe; ++p) Bp[p * NR + c] = 0.0f;
            }
        }
    }

    // C[0:rows, 0:cols] (=|+=) Ap·Bp over kc steps; rows ≤ MR, cols ≤ NR.
    static void micro_kernel(std::size_t kc, const float* Ap, const float* Bp, float* C, std::size_t ldc,
                             std::size_t rows, std::size_t cols, bool accumulate) {
        // The C tile is written once at the end: start bringing its lines in now.
        for (std::size_t r = 0; r < rows; ++r) __builtin_prefetch(C + r * ldc, 1);
        batch acc[MR][NV];
#pragma GCC unroll 16
        for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NV; ++v) acc[r][v] = batch(0.0f);
        for (std::size_t p = 0; p < kc; ++p, ++Ap, Bp += NR) {
            batch b[NV];
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NV; ++v) b[v] = batch::load_aligned(Bp + v * lanes);
#pragma GCC unroll 16
            for (std::size_t r = 0; r < MR; ++r) {
                const batch a(Ap[r * KC]);
#pragma GCC unroll 4
                for (std::size_t v = 0; v < NV; ++v) acc[r][v] = simd::fmadd<Arch>(a, b[v], acc[r][v]);
            }
        }
        if (rows == MR && cols == NR) {
#pragma GCC unroll 16
            for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
                for (std::size_t v = 0; v < NV; ++v) {
                    float* c = C + r * ldc + v * lanes;
                    (accumulate ? batch::load_unaligned(c) + acc[r][v] : acc[r][v]).store_unaligned(c);
                }
            return;
        }
        alignas(64) float tile[MR * NR];
        // Unrolled so that acc stays in registers (indexing it with a loop variable would
        // make the compiler keep the whole array on the stack, in the main path too).
#pragma GCC unroll 16
        for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NV; ++v) acc[r][v].store_aligned(tile + r * NR + v * lanes);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c)
                C[r * ldc + c] = accumulate ? C[r * ldc + c] + tile[r * NR + c] : tile[r * NR + c];
    }

    // B[p0:+kc, j0:+nc] packed, whatever its layout and element type.
    static void pack_panel(const GemmArgs& g, std::size_t j0, std::size_t p0, std::size_t kc, std::size_t nc,
                           float* Bp) {
        const auto* h = reinterpret_cast<const std::uint16_t*>(g.B);
        switch (g.b_type) {
            case GemmB::f32:
                if (g.b_transposed) pack_bt(g.B + j0 * g.ldb + p0, g.ldb, kc, nc, Bp);
                else pack_b(g.B + p0 * g.ldb + j0, g.ldb, kc, nc, Bp);
                return;
            case GemmB::f16:
                if (g.b_transposed) pack_bt<GemmB::f16>(h + j0 * g.ldb + p0, g.ldb, kc, nc, Bp);
                else pack_b16<GemmB::f16>(h + p0 * g.ldb + j0, g.ldb, kc, nc, Bp);
                return;
            case GemmB::bf16:
                if (g.b_transposed) pack_bt<GemmB::bf16>(h + j0 * g.ldb + p0, g.ldb, kc, nc, Bp);
                else pack_b16<GemmB::bf16>(h + p0 * g.ldb + j0, g.ldb, kc, nc, Bp);
                return;
        }
    }

    static void run(const GemmArgs& g) {
        if (g.m == 0 || g.n == 0) return;
        if (g.k == 0) {  // empty sum: C = 0
            for (std::size_t i = 0; i < g.m; ++i) std::fill(g.C + i * g.ldc, g.C + i * g.ldc + g.n, 0.0f);
            return;
        }
        // Per-thread packing buffers, reused across calls (the thread pool keeps threads).
        static thread_local simd::Scratch<Arch> a_buf, b_buf;
        const std::size_t nc_max = std::min(NC, (g.n + NR - 1) / NR * NR);
        float* Bp = b_buf.get(KC * nc_max);
        float* Ap = a_buf.get(KC * MR);
        for (std::size_t j0 = 0; j0 < g.n; j0 += NC) {
            const std::size_t nc = std::min(NC, g.n - j0);
            for (std::size_t p0 = 0; p0 < g.k; p0 += KC) {
                const std::size_t kc = std::min(KC, g.k - p0);
                pack_panel(g, j0, p0, kc, nc, Bp);
                for (std::size_t i0 = 0; i0 < g.m; i0 += MR) {
                    const std::size_t mr = std::min(MR, g.m - i0);
                    pack_a(g.A + i0 * g.lda + p0, g.lda, mr, kc, Ap);
                    for (std::size_t jr = 0; jr < nc; jr += NR)
                        micro_kernel(kc, Ap, Bp + jr * kc, g.C + i0 * g.ldc + j0 + jr, g.ldc, mr,
                                     std::min(NR, nc - jr), /*accumulate=*/p0 != 0);
                }
            }
        }
    }
};

}  // namespace attn::kernels

namespace attn::kernels {

// The FMA roofline for `attn bench --peak`: 12 independent chains of vector FMAs (more
// than 2 pipes × 4 cycles of latency), nothing else in the loop. Returns a value that
// depends on every chain so the loop cannot be optimised away; flops done =
// iterations · 12 · lanes · 2.
template <class Arch>
struct FmaPeak {
    using batch = xsimd::batch<float, Arch>;
    static constexpr std::size_t chains = 12, lanes = batch::size;
    static float run(std::uint64_t iterations, float seed) {
        batch acc[chains];
        for (std::size_t c = 0; c < chains; ++c) acc[c] = batch(seed + float(c));
        const batch mul(0.999999f), add(1e-7f);
        for (std::uint64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 12
            for (std::size_t c = 0; c < chains; ++c) acc[c] = simd::fmadd<Arch>(acc[c], mul, add);
        batch total = acc[0];
        for (std::size_t c = 1; c < chains; ++c) total += acc[c];
        return simd::reduce_add(total);
    }
};

// The read-bandwidth probe: the sum of n floats in 8 independent vector accumulators
// (unrolled, so that they stay in registers), with this arch's widest loads.
template <class Arch>
struct ReadProbe {
    using batch = xsimd::batch<float, Arch>;
    static constexpr std::size_t chains = 8, lanes = batch::size;
    static float run(const float* p, std::size_t n) {
        batch acc[chains];
        for (std::size_t c = 0; c < chains; ++c) acc[c] = batch(0.0f);
        std::size_t i = 0;
        for (; i + chains * lanes <= n; i += chains * lanes)
#pragma GCC unroll 8
            for (std::size_t c = 0; c < chains; ++c) acc[c] += batch::load_unaligned(p + i + c * lanes);
        batch total = acc[0];
        for (std::size_t c = 1; c < chains; ++c) total += acc[c];
        float s = simd::reduce_add(total);
        for (; i < n; ++i) s += p[i];
        return s;
    }
};

}  // namespace attn::kernels
