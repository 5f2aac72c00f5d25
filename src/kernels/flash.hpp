// Fused streaming attention (kernel_api.hpp's flash): FlashAttention's online softmax
// (Milakov & Gimelshein 2018), never materialising the Tq×Tk scores; memory O(tile).
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
// Tiling: R×NV accumulators of the micro-kernel, BC keys per tile, G query blocks per
// K/V tile (FlashBlocking: the register counts that justify them). A group of G blocks shares
// each tile while it is in cache, so K and V stream from memory once per group. Keys past a
// block's last visible key or before its first (the window) are never computed: the tiles are
// the multiples of BC for every block, and a block takes the part of each it may see (its first
// tile starts at the window's first key; rounded down to BC, a window of 1024 computed 1120
// keys per block of 64 rows on average, 1087 now); tiles wholly masked by
// the mask bits are skipped; diagonal tiles (rows that see part of the tile: the causal limit,
// the window's edges) apply the row's visible range in the softmax's scan, and compute each
// key only for the vectors of W rows that may see it (Vectors: the triangles at a window's
// edges and at the causal limit shrink from QB-row steps to W-row ones). A softcap is one
// pass over the tile (tanh.hpp) before the bias, ALiBi another (alibi.hpp). The weights are
// exp.hpp's softmax_weight (base 2). Rescaling: when a tile raises a lane's max m, the running
// sum and output are scaled by softmax_rescale, e^(m_old − m_new) (0 while nothing was visible).
// Sliding windows: a block of 64 rows at --window 1023 sees 1087 keys and computed 1120 on
// average (first tile rounded down to BC) with 64-row triangles at both edges; now 1087 with
// 16-row triangles, about 1.5% more products than the 1024 visible per row. Measured with
// build/attn bench --op attention --sizes 32768 --d 64 --threads 2 --causal --window 1023
// --repeat 3 --format json: speed-up over full causal as a fraction of the visible-cell
// ratio (16.2), runs alternating with main's binary under load 4-9: median 0.84 → 0.91 (15 and
// 9 runs; 0.83-0.90 → 0.87-0.97 in the steadiest 5 pairs). Left: the diagonal path's select pass on 2 of
// the ~9 tiles per block, per-block packing, and the fresh 8 MiB output (4-5% of the window's
// time on 1 thread: clear_page_erms), which full causal amortises over 16× the work.
// Scratch: one per-thread buffer that outlives the call (fresh blocks per work unit cost
// 210 of the 720 page faults of a T=4096 process; Flash::Flash).
// Prefetch: the next block_tile's bias rows and mask words are requested a few rows per key
// during the exponential pass (PrefetchAhead); requested during the micro-kernels instead,
// the biased kernel took 7-10% longer at T=4096 (block_tile).
// Where prefill's time goes (T=4096, d=128, avx512, 1 thread, Intel Xeon of the Emerald Rapids
// class; perf record -e cpu-clock on build/attn bench --op attention --sizes 4096x4096 --d 128
// --threads 1 --repeat 21): the two micro-kernels 91% of the kernel's samples (mix about 5%
// above scores, its first FMAs waiting on loads; a software prefetch of the V column did not
// change that beyond the run-to-run spread), the online softmax 7%, the rest 2%. Per score
// vector the softmax adds 14 vector instructions (exp.hpp's softmax_weight: 12 with the
// subtraction of the max; the sum, the column max) to the 2·d FMAs; on Intel's AVX-512 cores
// every 512-bit instruction shares the two FMA ports, so the ceiling there is 2d/(2d + 14) of
// the FMA peak: 90% at d=64, 95% at d=128 (17 instructions and 88%, 94% with the natural exp;
// measured at 2 threads, load 2: 81% and 85%). AMD's Zen 4 issues floating-point adds on
// pipes of their own (an EPYC measured 86-87% at 2 threads with the natural exp).
// The mix takes about 1.13× the scores' time at d=64 (perf, 1 thread); keeping its Pᵀ tile in L1
// (tiles of 64 keys, or the mix in key chunks of 32 or 64) changed nothing (data/bench, 2026-12-06).
// Fully masked rows follow the policy (kernels/masked_rows.hpp); with a sink no row is fully masked
// (it starts at m = sink, l = 1: no visible key gives context 0, gpt-oss's formula). Documents
// (--segments) narrow range_of, so a block's key tiles outside its documents are skipped.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "kernels/kernel_types.hpp"
#include "kernels/alibi.hpp"
#include "kernels/exp.hpp"
#include "kernels/kernel_api.hpp"
#include "kernels/kv_load.hpp"
#include "kernels/lanes.hpp"
#include "kernels/mask_lanes.hpp"
#include "kernels/masked_rows.hpp"
#include "kernels/tanh.hpp"
#include "kernels/transpose.hpp"

namespace attn::kernels::attention_impl {
namespace {

// The blocking of the opening comment.
template <class Arch>
struct FlashBlocking {
    // R × NV accumulators: 6×4 = 24 of 32 zmm / NEON registers (+4 loads, 1 broadcast).
    // G blocks of NV·lanes query rows share each tile of BC keys.
    static constexpr std::size_t R = 6, NV = 4, BC = 128, G = 4;
};
// 16 ymm registers: 5×2 accumulators (+2 loads, 1 broadcast). With 6×2, 15 of 16, GCC kept one
// accumulator on the stack, a store and a load in every step of both micro-kernels: prefill
// T=4096 on 2 threads went 1.145× (d=64) and 1.217× (d=128) as fast with 5×2, the same bits
// (data/bench/2026-12-06T0711-xeon-avx2-blocking-ab.csv).
template <>
struct FlashBlocking<xsimd::fma3<xsimd::avx2>> {
    static constexpr std::size_t R = 5, NV = 2, BC = 128, G = 8;
};

// C[r][0, NV·W) = (Acc ? C[r]·alpha : 0) + Σ_{p<kdim} a[r][p·aps] · B[p][0, NV·W), r < Rows
// (Acc without alpha: C[r] as it is). B is kdim rows of NV·W floats, ldb apart; B and C rows
// (ldc apart) 64-byte aligned. With colmax, also colmax[v] = max(colmax[v], max_r C[r][v])
// (the softmax's running max). The sum over p starts from 0 and C[r]·alpha joins it last (one
// fused multiply-add): the mix's tile of weighted values is summed as its weights' sum l is,
// before the running output takes it, so numerator and denominator round alike (a row of 100,000
// keys, one far above the rest, lost 4e-3 of its context when each product went into C).
template <class Arch, std::size_t Rows, std::size_t NV, bool Acc>
inline void micro_kernel(const float* const* a, std::size_t aps, const float* B, std::size_t ldb, std::size_t kdim,
                         float* C, std::size_t ldc, const vfloat<Arch>* alpha, vfloat<Arch>* colmax) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    // Without alpha, C·1 (exact): one path out of the loop, so GCC keeps the accumulators in
    // registers (two paths joined through a stack copy of them).
    F scale[NV];
    for (std::size_t v = 0; v < NV; ++v) scale[v] = Acc && alpha ? alpha[v] : F(1.0f);
    F acc[Rows][NV];
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t v = 0; v < NV; ++v) acc[r][v] = F(0.0f);
    // kdim ≥ 1 always (scores: dk; mix: a run of ≥ 1 keys): told to GCC, which otherwise copies
    // the accumulators through a stack array for the kdim = 0 path.
    if (kdim == 0) __builtin_unreachable();
    std::size_t off = 0;
    // Unrolled by 4: the loop's counter, pointer and branch instructions (4 per step rolled) can
    // issue on the FMA ports; unrolled, fewer of them share those ports with each FMA. Fused attention
    // T=4096 on 2 threads, alternating with the rolled loop: avx512 1.016× (d=64) and 1.013×
    // (d=128), avx2 1.034× and 1.061× (data/bench/2026-12-06T0629-xeon-prefill-unroll-ab.csv).
#pragma GCC unroll 4
    for (std::size_t p = 0; p < kdim; ++p, off += aps, B += ldb) {
        F b[NV];
        for (std::size_t v = 0; v < NV; ++v) b[v] = F::load_aligned(B + v * W);
        for (std::size_t r = 0; r < Rows; ++r) {
            const F x(a[r][off]);
            for (std::size_t v = 0; v < NV; ++v) acc[r][v] = fmadd<Arch>(x, b[v], acc[r][v]);
        }
    }
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t v = 0; v < NV; ++v) {
            if (Acc) acc[r][v] = fmadd<Arch>(F::load_aligned(C + r * ldc + v * W), scale[v], acc[r][v]);
            acc[r][v].store_aligned(C + r * ldc + v * W);
        }
    if (colmax)
        for (std::size_t v = 0; v < NV; ++v) {
            F m = acc[0][v];
            for (std::size_t r = 1; r < Rows; ++r) m = xsimd::max(m, acc[r][v]);
            colmax[v] = xsimd::max(colmax[v], m);
        }
}

// Run-time row count (1…R) and vector count (1…NV) → compile-time micro-kernel instance.
template <class Arch, bool Acc, std::size_t NV, std::size_t Rows = FlashBlocking<Arch>::R>
inline void micro_kernel_rows(std::size_t rows, const float* const* a, std::size_t aps, const float* B,
                              std::size_t ldb, std::size_t kdim, float* C, std::size_t ldc,
                              const vfloat<Arch>* alpha, vfloat<Arch>* colmax) {
    if constexpr (Rows == 0) {
        (void)rows, (void)a, (void)aps, (void)B, (void)ldb, (void)kdim, (void)C, (void)ldc, (void)alpha, (void)colmax;
    } else if (rows == Rows) {
        micro_kernel<Arch, Rows, NV, Acc>(a, aps, B, ldb, kdim, C, ldc, alpha, colmax);
    } else {
        micro_kernel_rows<Arch, Acc, NV, Rows - 1>(rows, a, aps, B, ldb, kdim, C, ldc, alpha, colmax);
    }
}
template <class Arch, bool Acc, std::size_t NV = FlashBlocking<Arch>::NV>
inline void micro_kernel_part(std::size_t vectors, std::size_t rows, const float* const* a, std::size_t aps,
                              const float* B, std::size_t ldb, std::size_t kdim, float* C, std::size_t ldc,
                              const vfloat<Arch>* alpha, vfloat<Arch>* colmax) {
    if constexpr (NV == 0) {
        (void)vectors, (void)rows, (void)a, (void)aps, (void)B, (void)ldb, (void)kdim, (void)C, (void)ldc, (void)alpha,
            (void)colmax;
    } else if (vectors == NV) {
        micro_kernel_rows<Arch, Acc, NV>(rows, a, aps, B, ldb, kdim, C, ldc, alpha, colmax);
    } else {
        micro_kernel_part<Arch, Acc, NV - 1>(vectors, rows, a, aps, B, ldb, kdim, C, ldc, alpha, colmax);
    }
}

template <class Arch>
class Flash {
    using F = vfloat<Arch>;
    using Blk = FlashBlocking<Arch>;
    static constexpr std::size_t W = lanes<Arch>, R = Blk::R, NV = Blk::NV, BC = Blk::BC, G = Blk::G;
    static constexpr std::size_t QB = NV * W;  // query rows per block

public:
    // Scratch, O(tile): per block of a group Qᵀ (dk×QB), Oᵀ (dv×QB), m and l (QB each);
    // one Sᵀ/Pᵀ tile (BC×QB); for K/V other than float32, the tile's K and V rows widened (BC×dk, BC×dv).
    // They are carved from one buffer per thread that outlives the call: a work unit is one
    // call, and fresh blocks per unit cost page faults on every unit (measured: 210 of the
    // 720 faults of a whole T=4096 process).
    explicit Flash(const FlashArgs& a) : a_(a) {
        const std::size_t kv = a.kv_type != ElementType::f32 ? BC * (a.dk + a.dv) : 0;
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
        std::size_t kbeg[G] = {}, kend[G] = {}, kfull[G] = {};
        for (std::size_t b = 0; b < nb; ++b) {
            const std::size_t q0 = g0 + b * QB, nq = std::min(QB, a_.Tq - q0);
            pack_q(q0, nq, qt(b));
            // A sink starts each row at m = sink, l = exp(sink − sink) = 1 (kernel_api.hpp's FlashArgs::sink).
            std::fill(m_of(b), m_of(b) + QB, a_.sink);
            std::fill(l_of(b), l_of(b) + QB, a_.sink == neg_inf ? 0.0f : 1.0f);
            std::fill(ot(b), ot(b) + a_.dv * QB, 0.0f);
            // Keys any row of the (whole, unclipped) block may see: both ends of the visible
            // range are non-decreasing in the row index. Keys outside are never computed.
            const KeyRange first = range_of(q0), last = range_of(q0 + nq - 1);
            kbeg[b] = first.begin, kend[b] = last.end;
            // Keys every row sees: [last.begin, first.end); tiles reaching outside are partial.
            kfull[b] = first.end, kfull_begin_[b] = last.begin;
        }
        // The tiles are [t0, t0 + BC) for t0 a multiple of BC, the same for every grouping of
        // the blocks (the bits of a row do not depend on the threads); a block takes the part
        // of each that it may see, so a window's first keys start a block's first (short) tile.
        bool first_tile = true;
        for (std::size_t t0 = kbeg[0] / BC * BC; t0 < kend[nb - 1]; t0 += BC) {
            const auto wanted = [&](std::size_t b) { return part(kbeg[b], kend[b], t0).size() != 0; };
            std::size_t b0 = 0;
            while (b0 < nb && !wanted(b0)) ++b0;
            if (b0 == nb) continue;  // between the windows of the group's blocks
            load_tile(t0, std::min(BC, kend[nb - 1] - t0));
            for (std::size_t b = b0; b < nb; ++b) {
                const Part k = part(kbeg[b], kend[b], t0);
                if (!k.size()) continue;
                if (a_.bias || a_.mask) {
                    if (first_tile) prefetch_bias_and_mask(g0 + b * QB, k.begin, k.size());
                    prefetch_next(g0, nb, kbeg, kend, b, t0);
                }
                first_tile = false;
                block_tile(g0 + b * QB, b, k.begin, k.size(), kfull[b]);
            }
        }
        std::size_t masked = 0;
        for (std::size_t b = 0; b < nb; ++b) masked += finish(g0 + b * QB, b);
        return masked;
    }

    // The keys [begin, end) of the tile at t0 that a block seeing [kbeg, kend) computes.
    struct Part {
        std::size_t begin, end;
        std::size_t size() const { return end > begin ? end - begin : 0; }
    };
    static Part part(std::size_t kbeg, std::size_t kend, std::size_t t0) {
        return {std::max(t0, kbeg), std::min(t0 + BC, kend)};
    }

    // Sets ahead_ to the bias and mask rows of the block_tile that follows (block b, tile t0)
    // in group's order: the next block seeing this tile, else the first seeing the next one.
    void prefetch_next(std::size_t g0, std::size_t nb, const std::size_t* kbeg, const std::size_t* kend, std::size_t b,
                       std::size_t t0) {
        const auto wanted = [&](std::size_t c, std::size_t t) { return part(kbeg[c], kend[c], t).size() != 0; };
        std::size_t next = b + 1, t = t0;
        while (next < nb && !wanted(next, t)) ++next;
        if (next == nb)
            for (next = 0, t = t0 + BC; next < nb && !wanted(next, t);) ++next;
        if (next < nb) {
            const Part k = part(kbeg[next], kend[next], t);
            ahead_.start(a_, g0 + next * QB, k.begin, k.size());
        } else {
            ahead_ = {};
        }
    }

    KeyRange range_of(std::size_t i) const {
        return in_document(keys_at(a_.causal, a_.window, (long long)i + a_.offset, a_.Tk, a_.key_limit, a_.key_first),
                           a_.doc_begin, a_.doc_end, i);
    }

    // The K and V rows of the tile at t0 as floats: in place for float32, widened into the
    // tile buffers for the other types (once per tile, shared by every block of the group).
    void load_tile(std::size_t t0, std::size_t nk) {
        if (a_.kv_type == ElementType::f32) {
            tile_ = t0;
            tk_ = static_cast<const float*>(a_.K) + t0 * a_.ldk, ldk_ = a_.ldk;
            tv_ = static_cast<const float*>(a_.V) + t0 * a_.ldv, ldv_ = a_.ldv;
            return;
        }
        float* k = kvt_;
        float* v = k + BC * a_.dk;
        with_element_type(a_.kv_type, [&](auto e) {
            const auto K = kv_begin<decltype(e)>(a_.K), V = kv_begin<decltype(e)>(a_.V);
            for (std::size_t j = 0; j < nk; ++j) {
                widen_row<Arch>(K + (t0 + j) * a_.ldk, k + j * a_.dk, a_.dk);
                widen_row<Arch>(V + (t0 + j) * a_.ldv, v + j * a_.dv, a_.dv);
            }
        });
        tile_ = t0, tk_ = k, ldk_ = a_.dk, tv_ = v, ldv_ = a_.dv;
    }

    // One block (rows q0…, state b) against keys [t0, t0 + nk).
    void block_tile(std::size_t q0, std::size_t b, std::size_t t0, std::size_t nk, std::size_t kfull) {
        const std::size_t nq = std::min(QB, a_.Tq - q0);
        // Some rows of the block see only part of the tile (the causal limit, the window).
        const bool diagonal = t0 + nk > kfull || t0 < kfull_begin_[b];
        // Unmodified scores: their column max comes out of the micro-kernel.
        const bool alibi = a_.alibi_slope != 0.0f;
        const bool plain = !diagonal && !a_.bias && !a_.mask && a_.softcap == 0.0f && !alibi;
        F mx[NV], m[NV], l[NV], lo[NV], vis[NV], alpha[NV];
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
        Vectors part;  // on the diagonal: the keys each vector of rows may see
        if (diagonal) lane_ranges(q0, t0, nk, lo, vis, part);
        const Vectors* parts = diagonal ? &part : nullptr;
        scores(t0, nk, qt(b), plain ? mx : nullptr, parts);
        // Off the diagonal the last of the bias and mask passes also takes the column max of
        // what it leaves (on the diagonal, online_softmax scans after the causal select).
        F* pass_max = diagonal ? nullptr : mx;
        if (a_.softcap != 0.0f) softcap_tile(nk, a_.bias || a_.mask || alibi ? nullptr : pass_max);
        if (alibi) {  // kernels/alibi.hpp, at the rows' positions (lanes past Tq: any)
            alignas(64) float p[QB];
            for (std::size_t q = 0; q < QB; ++q)
                p[q] = float((long long)std::min(q0 + q, a_.Tq - 1) + a_.offset);
            F pos[NV];
            for (std::size_t v = 0; v < NV; ++v) pos[v] = F::load_aligned(p + v * W);
            alibi_tile<Arch, NV>(st_, QB, t0, nk, a_.alibi_slope, pos, a_.bias || a_.mask ? nullptr : pass_max);
        }
        if (a_.bias) add_bias(q0, nq, t0, nk, a_.mask ? nullptr : pass_max);
        if (a_.mask) apply_mask(q0, nq, t0, nk, pass_max);
        online_softmax(nk, diagonal ? lo : nullptr, diagonal ? vis : nullptr, mx, m, l, alpha);
        for (std::size_t v = 0; v < NV; ++v) {
            m[v].store_aligned(m_of(b) + v * W);
            l[v].store_aligned(l_of(b) + v * W);
        }
        mix(t0, nk, alpha, ot(b), parts);
    }

    // Qᵀ[p][q] = scale·Q[q0 + q][p] (scale/c under a softcap c: query_scale), zero for rows past
    // Tq: W rows × W columns at a time, transposed in registers (element by element, a window's
    // blocks of 9 tiles spent 2.4% of their time here).
    void pack_q(std::size_t q0, std::size_t nq, float* qt) const {
        const F scale(query_scale(a_.scale, a_.softcap));
        for (std::size_t v = 0; v < NV; ++v) {
            const float* row[W];  // rows past Tq read the last row; their lanes are zeroed
            for (std::size_t l = 0; l < W; ++l) row[l] = a_.Q + (q0 + std::min(v * W + l, nq - 1)) * a_.ldq;
            const auto real = lanes_below(nq > v * W ? nq - v * W : 0);
            for (std::size_t p0 = 0; p0 < a_.dk; p0 += W) {
                const std::size_t n = std::min(W, a_.dk - p0);
                F t[W];
                load_transposed(row, p0, n, t);
                for (std::size_t c = 0; c < n; ++c)
                    xsimd::select(real, scale * t[c], F(0.0f)).store_aligned(qt + (p0 + c) * QB + v * W);
            }
        }
    }

    // The lanes l < n of a vector.
    static xsimd::batch_bool<float, Arch> lanes_below(std::size_t n) {
        alignas(64) float index[W];
        for (std::size_t l = 0; l < W; ++l) index[l] = float(l);
        return F::load_aligned(index) < F(float(n));
    }

    // On a diagonal tile, the keys [begin[v], end[v]) of the tile (0 … nk) that some row of
    // vector v (rows v·W … v·W + W − 1 of the block) may see: both non-decreasing in v.
    // The products of a key and a vector that sees none of it are not computed (their Sᵀ
    // entries hold anything; online_softmax's select gives them −inf, as to every key outside
    // a row's range): at a window's edge of 1024 keys and 64-row blocks, the triangles of
    // keys that the block's first rows see and its last do not (and the causal one) are
    // 4 × 16-row steps instead of one 64-row block, about 4% of a window's products.
    struct Vectors {
        std::size_t begin[NV], end[NV];
        // The vectors [first, last) that see some key of [j0, j1).
        std::pair<std::size_t, std::size_t> seeing(std::size_t j0, std::size_t j1) const {
            std::size_t first = 0, last = NV;
            while (first < NV && end[first] <= j0) ++first;
            while (last > first && begin[last - 1] >= j1) --last;
            return {first, last};
        }
    };

    // Sᵀ[j][·] for keys t0 + j, j < nk, of the loaded tile (and their column max into colmax when
    // given); with parts, only for the vectors that see key j.
    void scores(std::size_t t0, std::size_t nk, const float* qt, F* colmax, const Vectors* parts) {
        for (std::size_t j = 0; j < nk; j += R) {
            const std::size_t rows = std::min(R, nk - j);
            const float* krow[R] = {};
            for (std::size_t r = 0; r < rows; ++r) krow[r] = tk_ + (t0 - tile_ + j + r) * ldk_;
            const auto [v0, v1] = parts ? parts->seeing(j, j + rows) : std::pair<std::size_t, std::size_t>{0, NV};
            if (v0 < v1)
                micro_kernel_part<Arch, false>(v1 - v0, rows, krow, 1, qt + v0 * W, QB, a_.dk, st_ + j * QB + v0 * W,
                                               QB, nullptr, colmax ? colmax + v0 : nullptr);
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

    // Row q0 + v·W + q may see keys [lo, vis) of this tile, lane q of lo[v] and vis[v] (as
    // floats in [0, nk], exact), for the causal and window select in online_softmax; and the
    // keys of each vector of rows (part).
    void lane_ranges(std::size_t q0, std::size_t t0, std::size_t nk, F* lo, F* vis, Vectors& part) const {
        alignas(64) float b[QB], e[QB];
        const auto in_tile = [t0, nk](std::size_t k) { return k <= t0 ? 0 : std::min(nk, k - t0); };
        for (std::size_t v = 0; v < NV; ++v) {
            for (std::size_t q = v * W; q < v * W + W; ++q) {
                const KeyRange r = range_of(std::min(q0 + q, a_.Tq - 1));  // lanes past Tq: the last row's
                b[q] = float(in_tile(r.begin)), e[q] = float(in_tile(r.end));
                if (q == v * W) part.begin[v] = in_tile(r.begin);
                if (q == v * W + W - 1) part.end[v] = in_tile(r.end);
            }
            lo[v] = F::load_aligned(b + v * W), vis[v] = F::load_aligned(e + v * W);
        }
    }

    // The softcap over the tile (tanh.hpp): c·tanh(s) of s = q·k·scale/c when the queries carry
    // 1/c (pack_q, kernel_types.hpp's softcap_folded), else c·tanh(s/c); with colmax, also its
    // column max.
    void softcap_tile(std::size_t nk, F* colmax) {
        const F c(a_.softcap), inv_c(1.0f / a_.softcap);
        F mx[NV];
        for (std::size_t v = 0; v < NV; ++v) mx[v] = F(neg_inf);
        const auto pass = [&](auto folded) {
            for (std::size_t j = 0; j < nk; ++j)
                for (std::size_t v = 0; v < NV; ++v) {
                    float* p = st_ + j * QB + v * W;
                    const F x = fused_softcap<Arch, decltype(folded)::value>(F::load_aligned(p), c, inv_c);
                    x.store_aligned(p);
                    mx[v] = xsimd::max(mx[v], x);
                }
        };
        if (softcap_folded(a_.softcap)) pass(std::true_type{});
        else pass(std::false_type{});
        if (colmax)
            for (std::size_t v = 0; v < NV; ++v) colmax[v] = xsimd::max(colmax[v], mx[v]);
    }

    // Per query lane: m_new = max(m, max_j Sᵀ[j]); Pᵀ = exp(Sᵀ − m_new) in place;
    // alpha = exp(m − m_new) (0 while nothing was visible: the accumulators are still 0);
    // l = alpha·l + Σ_j Pᵀ[j]. Lanes with nothing visible yet get P = 0. The causal limits
    // vis (diagonal tiles) are applied here, with the scan for the column max; off the
    // diagonal, mx holds it already. The next block_tile's bias and mask lines are requested
    // during the exponentials (ahead_).
    void online_softmax(std::size_t nk, const F* lo, const F* vis, F* mx, F* m, F* l, F* alpha) {
        float* st = st_;
        const F ninf(neg_inf);
        if (vis) {
            F jf(0.0f);
            for (std::size_t j = 0; j < nk; ++j, jf += F(1.0f))
                for (std::size_t v = 0; v < NV; ++v) {
                    const F x = xsimd::select((jf >= lo[v]) & (jf < vis[v]), F::load_aligned(st + j * QB + v * W), ninf);
                    x.store_aligned(st + j * QB + v * W);
                    mx[v] = xsimd::max(mx[v], x);
                }
        }
        F shift[NV], sum[NV];
        for (std::size_t v = 0; v < NV; ++v) {
            const F m_new = xsimd::max(m[v], mx[v]);
            alpha[v] = softmax_rescale<Arch>(m[v], m_new);
            shift[v] = softmax_shift<Arch>(m_new);  // exp.hpp: the weights in base 2
            m[v] = m_new;
            sum[v] = F(0.0f);
        }
        for (std::size_t j = 0; j < nk; ++j) {
            for (std::size_t v = 0; v < NV; ++v) {
                const F p = softmax_weight<Arch>(F::load_aligned(st + j * QB + v * W), shift[v]);
                p.store_aligned(st + j * QB + v * W);
                sum[v] += p;
            }
            ahead_.issue();
        }
        for (std::size_t v = 0; v < NV; ++v) l[v] = fmadd<Arch>(alpha[v], l[v], sum[v]);
    }

    // Oᵀ[c][·] = alpha·Oᵀ[c][·] + Σ_j V[t0 + j][c]·Pᵀ[j][·] (V rows of the loaded tile; the sum
    // from 0, then added: micro_kernel). With parts, Oᵀ·alpha first, then each run of keys seen
    // by the same vectors adds its sum for those vectors only (a lane skips only keys whose
    // weight P is exactly 0). Which tiles are diagonal depends on the block alone, never on the
    // split of rows over threads: the same bits for any split.
    void mix(std::size_t t0, std::size_t nk, const F* alpha, float* ot, const Vectors* parts) {
        const auto run = [&](std::size_t j0, std::size_t j1, std::size_t v0, std::size_t v1, const F* scale) {
            for (std::size_t c = 0; c < a_.dv; c += R) {
                const std::size_t rows = std::min(R, a_.dv - c);
                const float* vcol[R] = {};
                for (std::size_t r = 0; r < rows; ++r) vcol[r] = tv_ + (t0 - tile_ + j0) * ldv_ + c + r;
                micro_kernel_part<Arch, true>(v1 - v0, rows, vcol, ldv_, st_ + j0 * QB + v0 * W, QB, j1 - j0,
                                              ot + c * QB + v0 * W, QB, scale ? scale + v0 : nullptr, nullptr);
            }
        };
        if (!parts) {
            run(0, nk, 0, NV, alpha);
        } else {
            for (std::size_t c = 0; c < a_.dv; ++c)
                for (std::size_t v = 0; v < NV; ++v) {
                    float* o = ot + c * QB + v * W;
                    (F::load_aligned(o) * alpha[v]).store_aligned(o);
                }
            for (std::size_t j0 = 0, j1; j0 < nk; j0 = j1) {
                const auto seen = parts->seeing(j0, j0 + 1);
                for (j1 = j0 + 1; j1 < nk && parts->seeing(j1, j1 + 1) == seen;) ++j1;
                if (seen.first < seen.second) run(j0, j1, seen.first, seen.second, nullptr);
            }
        }
        ahead_.issue(std::numeric_limits<std::size_t>::max());  // any left by online_softmax
    }

    // O = Oᵀ / l, or the fully-masked-row policy where nothing was visible (l = 0).
    std::size_t finish(std::size_t q0, std::size_t b) {
        const std::size_t nq = std::min(QB, a_.Tq - q0);
        const float* lsum = l_of(b);
        const float* ot = this->ot(b);
        if (a_.lse)
            for (std::size_t q = std::max(q0, a_.row_begin) - q0; q < std::min(q0 + nq, a_.row_end) - q0; ++q)
                a_.lse[q0 + q - a_.row_begin] = log_sum_exp(m_of(b)[q], lsum[q]);
        std::size_t masked = 0;
        const std::size_t qa = std::max(q0, a_.row_begin) - q0, qb = std::min(q0 + nq, a_.row_end) - q0;
        // Oᵀ transposed back W columns × W rows at a time in registers, each row times 1/l.
        for (std::size_t v = qa / W; v * W < qb; ++v)
            for (std::size_t c0 = 0; c0 < a_.dv; c0 += W) {
                const std::size_t n = std::min(W, a_.dv - c0);
                F t[W];
                for (std::size_t c = 0; c < W; ++c) t[c] = c < n ? F::load_aligned(ot + (c0 + c) * QB + v * W) : F(0.0f);
                transpose<Arch>(t);
                for (std::size_t q = std::max(qa, v * W); q < std::min(qb, v * W + W); ++q) {
                    if (lsum[q] == 0.0f) continue;  // nothing visible; NaN (a NaN score): a NaN row
                    float* out = a_.O + (q0 + q - a_.row_begin) * a_.ldo + c0;
                    const F x = t[q - v * W] * F(1.0f / lsum[q]);
                    if (n == W) x.store_unaligned(out);
                    else store_partial<Arch>(out, x, n);
                }
            }
        for (std::size_t q = qa; q < qb; ++q) {
            if (lsum[q] != 0.0f) continue;
            ++masked;
            write_masked_context(a_.policy, a_.Tk, a_.dv, a_.O + (q0 + q - a_.row_begin) * a_.ldo,
                                 [this] { return v_mean(); });
        }
        return masked;
    }

    // Column means of V (masked_rows.hpp), computed on first use.
    const float* v_mean() {
        if (!mean_) {
            mean_ = std::make_unique<AlignedFloats>(a_.dv);
            mean_of_v(a_.V, a_.kv_type, a_.Tk, a_.dv, a_.ldv, mean_->get());
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
    std::size_t kfull_begin_[G] = {};  // per block of the group: keys before it are partial tiles
    std::unique_ptr<AlignedFloats> mean_;
    std::size_t tile_ = 0;       // the current tile's first key
    const float* tk_ = nullptr;  // its K and V rows as floats (load_tile)
    const float* tv_ = nullptr;
    std::size_t ldk_ = 0, ldv_ = 0;
};

template <class Arch>
std::size_t flash(const FlashArgs& a) {
    if (a.row_begin >= a.row_end) return 0;
    return Flash<Arch>(a).run();
}

}  // namespace
}  // namespace attn::kernels::attention_impl
