// Split-K decoding, one chunk (kernel_api.hpp's decode_chunk): a few query rows (one token,
// or the query heads of a grouped-query group) against one chunk of keys, left unnormalised
// (running max m, sum l, accumulator); the caller merges the chunks.
// It runs "vector over d" (no query block to fill):
// per tile of keys each K row is loaded once for up to RB query rows (dot products in
// registers, one horizontal sum per row and key), then the online softmax of each row over
// the tile (a softcap first, tanh.hpp, then ALiBi, alibi.hpp; vector exp), then each V row is loaded once and
// accumulated into the rows' outputs. Every row's operations are the same whatever other rows
// share the call; tiles before every row's window are skipped (a tile wholly masked for a row
// leaves its state as it is).
// Tiles are long for one query row (256 KiB of K rows or more: see long_tile_keys), KT_shared
// keys for several (see the software prefetch below); both are multiples of every arch's
// lanes. The choice is the whole problem's (DecodeArgs::long_tiles): the tiles are where the
// online softmax rescales, so a range of query rows computed alone must get the same ones.
// The tile's score rows are a tile apart; a short last tile's softmax runs over its keys'
// lanes only.
// Software prefetch for the split-K loops, which stream K and V from the last-level cache
// (or memory) once. Two schemes, by the number of query rows sharing each K/V line:
// - One row (plain decoding): the rows `prefetch_distance_bytes` ahead in the stream being
//   read (K in the scores, V in the mix) are requested into L1, and those
//   `prefetch_far_distances` times as far into L2.
// - Several rows (the query heads of a grouped-query group): each line costs several times
//   the arithmetic, and the near requests left the loads waiting on K, at any distance.
//   Instead the other stream is requested one phase ahead, into L2: while the scores read K,
//   the same keys' V rows; while the mix reads V, the next tile's K rows; with short tiles
//   (KT_shared) the two streams alternate quickly. Measured (AMD EPYC, 2 threads,
//   1×32:8×1×8192, d=128, minimum of 21 runs, 5 alternating rounds): 3.5-4.3 ms → 2.5-3.0 ms;
//   the near requests added to it, 2.9-3.3 ms; 32- or 64-key tiles, about 3.0 ms. The same
//   scheme for one row was 15-25% slower than the near one.
// Prefetches past the last key are harmless (they never fault). The one-row requests are made
// only when DecodeArgs::stream_prefetch says so (attention/decoding.cpp decides where not).
// q8_0 K/V: the loops apply each block's scale once per block (kv_load.hpp's KvGroups: the
// dot product's block sum times d, the mix's weight P times d), walking each row by its
// blocks. Before, every vector found its block by Q8Ptr's division, then converted and
// multiplied by the scale, and q8_0 decoding was compute-bound: in L2 (1x1x1x2048, d=128,
// avx512, 1 thread, minimum of 2001 calls) 33 µs, as long as f32's from L3 (bf16 23 µs);
// now 24 µs. From memory (bench 1x8x1x131072, d=128, avx512, 2 threads; 9 runs, before and
// after alternating, under load from other jobs) q8_0 took 0.30-0.50x of f32's time (median
// 0.34x: 2.9x faster; 0.32-0.56x in 3 quieter runs) and now 0.24-0.31x (median 0.27x:
// 3.7x; its bytes are 0.27x of f32's), at f32's share of the measured read bandwidth (60-93%,
// f32 67-86%). perf now finds the samples on the software prefetches, waiting for memory.
// On an Intel Xeon (Emerald Rapids class) q8_0 stayed near compute-bound, its loops about as
// fast as its share of the bandwidth (2 threads in L3: 17.3 ns a key and core, memory's share
// 14.4): the scales, from half_table.hpp's table (a load, not three vector instructions),
// took it to 14.3 ns; from memory (1x10x1x131072, 2 threads, 7 alternating rounds) 12.83 to
// 12.52 ms, 2.91x to 2.96x as fast as f32; with prefetch_rows' requests of each line once,
// 12.3 ms, 3.0x (data/bench/2026-12-07T1420-xeon-emr-q8-scale-table-ab.csv and
// 2026-12-07T1440-xeon-emr-q8-prefetch-lines-ab.csv).
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/alibi.hpp"
#include "kernels/exp.hpp"
#include "kernels/kernel_api.hpp"
#include "kernels/kv_load.hpp"
#include "kernels/lanes.hpp"
#include "kernels/mask_lanes.hpp"
#include "kernels/masked_rows.hpp"
#include "kernels/tanh.hpp"

namespace attn::kernels::attention_impl {
namespace {

// The tiling of the opening comment: RB query rows per pass, KT_shared keys per tile when
// several rows share it.
template <class Arch>
struct DecodeBlocking {
    static constexpr std::size_t RB = 8, KT_shared = 16;
};

// One row's tiles are long: a tile reads its K rows, then the same keys' V rows, and from
// memory every switch between the two streams costs (a plain read alternating between two
// buffers, AMD EPYC, 2 threads: 32 KiB blocks 1.21x the time of one stream each, 128 KiB
// 1.10x, 512 B 1.8x). So a tile holds long_tile_bytes of K rows or more, whatever their type:
// the least power of two of keys that does, within 512 to 4096 (at d=128, 512 f32 rows, 1024
// float16 or bfloat16 ones, 2048 of q8_0). Against 512 keys for every type (70 KiB of
// q8_0 rows), measured on an AMD EPYC (Zen 5, 2 threads, the binaries alternating, medians of
// the per-round ratios in two runs of 6 and 8 rounds): q8_0 took 0.89-0.94x the time
// (1x10x1x131072 and 1x8x1x32768, d=128) and 0.96x at d=64 (1x8x1x65536), where float32 and
// float16 (1024 and 2048 keys) took 0.95x and 0.94x; 16-bit K/V at d=128 (1024 keys) stayed
// within the spread, 0.97-1.05x, as did f32 there (512 keys in both: 0.99-1.10x).
// data/bench/2026-12-07T0046-epyc-zen5-decode-byte-tiles-ab.csv.
// (A loop, not std::clamp of std::bit_ceil: a standard template left out of line here, as the
// sanitizer build leaves std::clamp, would be weak code the linker could take for every arch.)
inline constexpr std::size_t long_tile_bytes = std::size_t(256) << 10;
template <class E>
inline std::size_t long_tile_keys(std::size_t dk) {
    const std::size_t row = kv_bytes(E{}, dk);
    std::size_t keys = 512;
    while (keys < 4096 && keys * row < long_tile_bytes) keys *= 2;
    return keys;
}

// The distance of the one-row scheme (see the opening comment).
inline constexpr std::size_t prefetch_distance_bytes = 4096;
// The one-row scheme also requests the rows this many distances ahead into L2: with the near
// requests alone, 16-bit K/V streamed at 72-76% of the read bandwidth on an Intel Xeon (Emerald
// Rapids class; f32 91%), bf16 decoding taking 0.60x f32's time; with them 0.52x (1x8x1x131072,
// d=128, 2 threads, 4 alternating rounds; 3 and 7 distances alike; q8_0 and f32 unchanged;
// data/bench/2026-12-06T1130-xeon-decode-far-prefetch-ab.csv). A longer near distance (2048 or
// 8192 bytes) changed nothing.
inline constexpr std::size_t prefetch_far_distances = 3;

// The rows of `cols` elements at p, p + ld, ... (`rows` of them) requested into L1
// (Locality 3) or L2 (1). E here and below: a pointer into K or V (kv_elements.hpp's kv_ptr).
// q8_0 rows are no whole number of lines (136 bytes at d=128), so consecutive rows share
// one: a stream's lines below `next` (its first line not yet requested; the loops request
// rows in ascending order) are not requested again, where each row's took 3 requests for
// 2.1 lines. In L2 (1x1x1x512, d=128, avx512, 1 thread) that took q8_0 decoding from 15.1 to
// 13.4 ns a key; from memory (1x10x1x131072, 2 threads, 8 alternating rounds) 12.67 to
// 12.28 ms (medians; data/bench/2026-12-07T1440-xeon-emr-q8-prefetch-lines-ab.csv). The
// float types' rows at such d are whole lines, and tracking them took f32 4% longer from
// memory (38.1-38.5 ms against 36.0-37.0 at best, three runs), so they are requested whole
// (`next` unused).
template <int Locality = 3, class E>
inline void prefetch_rows(E p, std::size_t ld, std::size_t rows, std::size_t cols, std::uintptr_t& next) {
    const std::size_t bytes = kv_bytes(p, cols);
    for (std::size_t r = 0; r < rows; ++r) {
        const auto row = reinterpret_cast<std::uintptr_t>(kv_address(p + r * ld));
        std::uintptr_t line = row / 64 * 64;  // aligned or not
        if constexpr (std::is_same_v<E, Q8Ptr>) line = std::max(next, line);
        for (; line < row + bytes; line += 64) __builtin_prefetch(reinterpret_cast<const void*>(line), 0, Locality);
        if constexpr (std::is_same_v<E, Q8Ptr>) next = std::max(next, line);
    }
}

// How many rows of `cols` E elements make up the prefetch distance (at least 1).
template <class E>
inline std::size_t prefetch_rows_ahead(std::size_t cols) {
    const std::size_t row = std::max<std::size_t>(1, kv_bytes(E{}, cols));
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
// in order, a scale group at a time (kv_load.hpp's KvGroups), whichever keys share the call.
// One row: the keys one after the other, each K row read from its start to its end. Memory
// then sees one ascending stream, which the hardware prefetchers follow; the loads of the
// KU rows column by column (below, where several rows share each load) jump between rows,
// and from memory the scores took twice the mix's time (perf, AMD EPYC, 1x8x1x32768, d=128).
template <class Arch, std::size_t NR, std::size_t KU, class E>
inline void decode_dots(const float* q, std::size_t dkp, E k0, std::size_t ldk, std::size_t dk,
                        vfloat<Arch>* dots) {
    using F = vfloat<Arch>;
    using G = kv_groups<Arch, E>;
    constexpr std::size_t W = lanes<Arch>, GV = G::vectors;
    const std::size_t groups = G::groups(dk), tail = G::tail(dk);
    if constexpr (NR == 1) {
#pragma GCC unroll 4
        for (std::size_t u = 0; u < KU; ++u) {
            const auto k = kv_row(k0 + u * ldk);
            F a(0.0f);
            for (std::size_t g = 0; g < groups; ++g) {
                const float* qg = q + g * GV * W;
                F t = G::begin(F::load_aligned(qg), G::load(k, g, 0), a);
#pragma GCC unroll 8
                for (std::size_t i = 1; i < GV; ++i) t = fmadd<Arch>(F::load_aligned(qg + i * W), G::load(k, g, i), t);
                a = G::end(t, G::scale(k, g), a);
            }
            if (tail) a = fmadd<Arch>(F::load_aligned(q + groups * W), G::load_partial(k, groups, 0, tail), a);
            dots[u] = a;
        }
        return;
    }
    F acc[NR][KU];
    decltype(kv_row(k0)) k[KU];
    for (std::size_t u = 0; u < KU; ++u) {
        k[u] = kv_row(k0 + u * ldk);
        for (std::size_t r = 0; r < NR; ++r) acc[r][u] = F(0.0f);
    }
    for (std::size_t g = 0; g < groups; ++g) {  // the loops over i, u and r unrolled: acc stays in registers
        F t[NR][KU];
#pragma GCC unroll 8
        for (std::size_t i = 0; i < GV; ++i) {
            F qv[NR];
#pragma GCC unroll 8
            for (std::size_t r = 0; r < NR; ++r) qv[r] = F::load_aligned(q + r * dkp + (g * GV + i) * W);
#pragma GCC unroll 4
            for (std::size_t u = 0; u < KU; ++u) {
                const F kv = G::load(k[u], g, i);
#pragma GCC unroll 8
                for (std::size_t r = 0; r < NR; ++r)
                    t[r][u] = i == 0 ? G::begin(qv[r], kv, acc[r][u]) : fmadd<Arch>(qv[r], kv, t[r][u]);
            }
        }
#pragma GCC unroll 4
        for (std::size_t u = 0; u < KU; ++u) {
            const auto d = G::scale(k[u], g);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < NR; ++r) acc[r][u] = G::end(t[r][u], d, acc[r][u]);
        }
    }
    if (tail)
        for (std::size_t u = 0; u < KU; ++u) {
            const F kv = G::load_partial(k[u], groups, 0, tail);
            for (std::size_t r = 0; r < NR; ++r)
                acc[r][u] = fmadd<Arch>(F::load_aligned(q + r * dkp + groups * W), kv, acc[r][u]);
        }
    for (std::size_t r = 0; r < NR; ++r)
        for (std::size_t u = 0; u < KU; ++u) dots[r * W + u] = acc[r][u];
}

// sc[r·lds + j] = Σ_p q[r·dkp + p]·K[t0 + j][p] for rows r < NR, keys j < nk (q zero-padded
// to dkp, a multiple of the lanes and of K's scale groups, and 64-byte aligned; sc rows hold lds floats, a multiple
// of the lanes, and lanes past nk may be written); K holds E elements. Keys go in groups of
// W: their lane-wise dot products, then one transposing reduction (simd::reduce_add_rows)
// gives the group's W scores as one vector, a quarter or less of the instructions of one
// horizontal sum per key. The reduction sums every lane by the same tree and a missing key
// of the last group is a zero vector, so the bits of a score never depend on which keys or
// rows share the call. Prefetch (see prefetch_distance_bytes): one row, the K rows ahead
// before kend (the caller's last key); several, the V rows (ldv apart, dv long) of the same
// keys.
template <class Arch, std::size_t NR, class E>
inline void decode_scores(const float* q, std::size_t dkp, E K, std::size_t ldk, std::size_t dk,
                          std::size_t t0, std::size_t nk, std::size_t kend, float* sc, std::size_t lds, E V,
                          std::size_t ldv, std::size_t dv) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    // keys per decode_dots call: a power of two (a divisor of W), at most 4; a scaled type's
    // block sums take as many registers again
    constexpr std::size_t sums = kv_groups<Arch, E>::scaled ? 2 : 1;
    constexpr std::size_t KU = std::bit_floor(std::clamp<std::size_t>(decode_acc_regs<Arch> / (NR * sums), 1, 4));
    const std::size_t pf = prefetch_rows_ahead<E>(dk);
    F dots[NR * W];
    std::uintptr_t near = 0, far = 0;  // the lines requested (prefetch_rows)
    for (std::size_t j0 = 0; j0 < nk; j0 += W) {
        E k0 = K + (t0 + j0) * ldk;
        const std::size_t n = std::min(W, nk - j0);
        std::size_t u = 0;
        for (; u + KU <= n; u += KU) {
            if constexpr (NR == 1) {
                const std::size_t first = t0 + j0 + u + pf;
                if (first < kend) prefetch_rows(K + first * ldk, ldk, std::min(KU, kend - first), dk, near);
                const std::size_t far_first = first + prefetch_far_distances * pf;
                if (far_first < kend)
                    prefetch_rows<1>(K + far_first * ldk, ldk, std::min(KU, kend - far_first), dk, far);
            } else {
                prefetch_rows<1>(V + (t0 + j0 + u) * ldv, ldv, KU, dv, near);
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
// cols elements long; with far > 0, also row j + far into L2.
template <class E>
struct RowRequests {
    E base{};
    std::size_t ld = 0, rows = 0, cols = 0, far = 0;
};

// NB vectors of columns of decode_mix (v and acc point at the first column, a scale group's
// first; the last vector has `tail` lanes): NR·NB accumulators in registers while the keys
// stream, each row's weight times a group's scale once per key and group (KvGroups' factor),
// requesting the rows of ahead into L1 (Locality 3) or L2 (1) on the way.
template <class Arch, std::size_t NR, std::size_t NB, int Locality, class E>
inline void decode_mix_block(const float* P, std::size_t lds, const float* alpha, E v, std::size_t ldv,
                             std::size_t nk, float* acc, std::size_t ldacc, std::size_t tail,
                             const RowRequests<E>& ahead) {
    using F = vfloat<Arch>;
    using G = kv_groups<Arch, E>;
    constexpr std::size_t W = lanes<Arch>, GV = G::vectors;
    // The tile's sum from 0, then acc·alpha joins it (as flash.hpp's micro_kernel: numerator and
    // denominator summed alike).
    F o[NR][NB];
    for (std::size_t r = 0; r < NR; ++r)
        for (std::size_t b = 0; b < NB; ++b) o[r][b] = F(0.0f);
    std::uintptr_t near = 0, far = 0;  // the lines requested (prefetch_rows)
    // The loops over b and r are unrolled so that o stays in registers.
    for (std::size_t j = 0; j < nk; ++j, v += ldv) {
        if (j < ahead.rows) prefetch_rows<Locality>(ahead.base + j * ahead.ld, ahead.ld, 1, ahead.cols, near);
        if (ahead.far && j + ahead.far < ahead.rows)
            prefetch_rows<1>(ahead.base + (j + ahead.far) * ahead.ld, ahead.ld, 1, ahead.cols, far);
        const auto row = kv_row(v);
#pragma GCC unroll 16
        for (std::size_t b = 0; b < NB; ++b) {
            // (the scale and the factors of vector b's group: computed once per group)
            const auto d = G::scale(row, b / GV);
            const F vv = b + 1 < NB || tail == W ? G::load(row, b / GV, b % GV)
                                                 : G::load_partial(row, b / GV, b % GV, tail);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < NR; ++r) o[r][b] = fmadd<Arch>(G::factor(P[r * lds + j], d), vv, o[r][b]);
        }
    }
    for (std::size_t r = 0; r < NR; ++r)
        for (std::size_t b = 0; b < NB; ++b) {
            float* out = acc + r * ldacc + b * W;
            fmadd<Arch>(F::load_aligned(out), F(alpha[r]), o[r][b]).store_aligned(out);
        }
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
inline void decode_mix(const float* P, std::size_t lds, const float* alpha, E V, std::size_t ldv, std::size_t dv,
                       std::size_t t0, std::size_t nk, std::size_t kend, float* acc, std::size_t ldacc, E K,
                       std::size_t ldk, std::size_t dk, std::size_t next) {
    constexpr std::size_t W = lanes<Arch>;
    // (a multiple of the scale groups' vectors: every block starts on a group)
    constexpr std::size_t GV = kv_groups<Arch, E>::vectors;
    constexpr std::size_t CB = std::max<std::size_t>(GV, decode_acc_regs<Arch> / NR / GV * GV);
    constexpr int locality = NR == 1 ? 3 : 1;
    const std::size_t nvec = (dv + W - 1) / W, tail = dv - (nvec - 1) * W;
    const auto ahead = [&](std::size_t b0, std::size_t cols) {
        if constexpr (NR == 1) {
            const std::size_t pf = prefetch_rows_ahead<E>(dv);
            return RowRequests<E>{V + (t0 + pf) * ldv + b0 * W, ldv, kend - t0 > pf ? kend - t0 - pf : 0, cols,
                                  prefetch_far_distances * pf};
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
inline float softmax_rescale_scalar(float m, float m_new) {
    alignas(64) float t[lanes<Arch>];
    softmax_rescale<Arch>(vfloat<Arch>(m), vfloat<Arch>(m_new)).store_aligned(t);
    return t[0];
}

// kernels/kernel_api.hpp's decode_chunk for K/V elements of type E. acc rows: ldacc >= dv
// rounded up to 16 floats, 64-byte aligned.
template <class Arch, class E>
void decode_chunk_of(const DecodeArgs& a) {
    const kv_ptr<E> K = kv_begin<E>(a.K);
    const kv_ptr<E> V = kv_begin<E>(a.V);
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>, RB = DecodeBlocking<Arch>::RB;
    const std::size_t long_tile = long_tile_keys<kv_ptr<E>>(a.dk);
    // q zero-padded to whole scale groups (decode_dots reads a q8_0 row's last block whole)
    const std::size_t qg = kv_groups<Arch, kv_ptr<E>>::vectors * W;
    const std::size_t dkp = (a.dk + qg - 1) / qg * qg, dvp = (a.dv + W - 1) / W * W;
    AlignedFloats qbuf(RB * dkp), sbuf(std::max(long_tile, RB * DecodeBlocking<Arch>::KT_shared));
    float* q = qbuf.get();
    float* sc = sbuf.get();
    alignas(64) float alpha[RB];
    const F cap(a.softcap), inv_cap(a.softcap == 0.0f ? 0.0f : 1.0f / a.softcap);
    const float qscale = query_scale(a.scale, a.softcap);  // 1/c of a softcap c ≥ 1 in the query
    const F iota = lane_index<Arch>();
    for (std::size_t r0 = 0; r0 < a.nrows; r0 += RB) {
        const std::size_t nr = std::min(RB, a.nrows - r0);
        std::size_t end[RB], kmax = a.k_begin, kmin = a.k_end;
        for (std::size_t r = 0; r < nr; ++r) {
            const DecodeRow& row = a.rows[r0 + r];
            for (std::size_t p = 0; p < dkp; ++p) q[r * dkp + p] = p < a.dk ? qscale * row.q[p] : 0.0f;
            end[r] = std::max(a.k_begin, std::min(a.k_end, row.visible));
            kmax = std::max(kmax, end[r]);
            if (row.first < end[r]) kmin = std::min(kmin, std::max(a.k_begin, row.first));
            a.m[r0 + r] = neg_inf;
            a.l[r0 + r] = 0.0f;
            std::fill(a.acc + (r0 + r) * a.ldacc, a.acc + (r0 + r) * a.ldacc + dvp, 0.0f);
        }
        const std::size_t tile = a.long_tiles && nr == 1 ? long_tile : DecodeBlocking<Arch>::KT_shared;
        // The requests stop before key kmax; a lone row's, turned off, before t0 (none at all).
        const bool requests = nr > 1 || a.stream_prefetch;
        // Tiles before every row's window are skipped (tiles stay at k_begin + n·tile).
        const std::size_t start = kmin >= kmax ? kmax : a.k_begin + (kmin - a.k_begin) / tile * tile;
        for (std::size_t t0 = start; t0 < kmax; t0 += tile) {
            const std::size_t nk = std::min(tile, kmax - t0);
            const std::size_t span = (nk + W - 1) / W * W;  // the lanes written for nk keys
            with_row_count<RB>(nr, [&](auto rows) {
                decode_scores<Arch, decltype(rows)::value>(q, dkp, K, a.ldk, a.dk, t0, nk, requests ? kmax : t0, sc,
                                                           tile, V, a.ldv, a.dv);
            });
            for (std::size_t r = 0; r < nr; ++r) {
                const DecodeRow& row = a.rows[r0 + r];
                float* s = sc + r * tile;
                const std::size_t lim = end[r] > t0 ? std::min(nk, end[r] - t0) : 0;
                if (softcap_folded(a.softcap))
                    for (std::size_t j = 0; j < lim; j += W)
                        softcap_of_quotient<Arch>(F::load_aligned(s + j), cap).store_aligned(s + j);
                else if (a.softcap != 0.0f)
                    for (std::size_t j = 0; j < lim; j += W)
                        softcap<Arch>(F::load_aligned(s + j), cap, inv_cap).store_aligned(s + j);
                if (row.alibi_slope != 0.0f)  // alibi.hpp; lanes past lim are overwritten below
                    for (std::size_t j = 0; j < lim; j += W)
                        (rounded<Arch>(F::load_aligned(s + j)) +
                         alibi_lanes<Arch>(row.alibi_slope, (long long)(t0 + j) - row.position, iota))
                            .store_aligned(s + j);
                if (row.bias)
                    for (std::size_t j = 0; j < lim; ++j) s[j] += row.bias[t0 + j];
                if (row.mask)
                    for (std::size_t j = 0; j < lim; j += W)
                        mask_lanes<Arch>(F::load_aligned(s + j), mask_bits_at(row.mask, t0 + j, std::min(W, lim - j)))
                            .store_aligned(s + j);
                std::fill(s + lim, s + span, neg_inf);
                if (row.first > t0) std::fill(s, s + std::min(lim, row.first - t0), neg_inf);  // the window
                F mx(neg_inf);
                for (std::size_t j = 0; j < span; j += W) mx = xsimd::max(mx, F::load_aligned(s + j));
                const float m = a.m[r0 + r];
                float m_new = std::max(m, hmax<Arch>(mx));
                // The maxima drop a NaN; one in the tile makes the row NaN (masked_rows.hpp): m = NaN
                // carries it through shift, alpha, l and the accumulators.
                if (m_new == neg_inf && holds_nan(s, span)) m_new = std::numeric_limits<float>::quiet_NaN();
                if (m_new == neg_inf) {  // nothing allowed yet: the accumulators stay 0
                    alpha[r] = 1.0f;
                    std::fill(s, s + span, 0.0f);
                    continue;
                }
                const F shift = softmax_shift<Arch>(F(m_new));  // exp.hpp: the weights in base 2
                F sum(0.0f);
                for (std::size_t j = 0; j < span; j += W) {
                    const F p = softmax_weight<Arch>(F::load_aligned(s + j), shift);
                    p.store_aligned(s + j);
                    sum += p;
                }
                alpha[r] = softmax_rescale_scalar<Arch>(m, m_new);
                a.l[r0 + r] = alpha[r] * a.l[r0 + r] + hsum<Arch>(sum);
                a.m[r0 + r] = m_new;
            }
            with_row_count<RB>(nr, [&](auto rows) {
                decode_mix<Arch, decltype(rows)::value>(sc, tile, alpha, V, a.ldv, a.dv, t0, nk, requests ? kmax : t0,
                                                        a.acc + r0 * a.ldacc, a.ldacc, K, a.ldk, a.dk, t0 + tile);
            });
        }
    }
}

template <class Arch>
void decode_chunk(const DecodeArgs& a) {
    with_element_type(a.kv_type, [&](auto e) { decode_chunk_of<Arch, decltype(e)>(a); });
}

}  // namespace
}  // namespace attn::kernels::attention_impl
