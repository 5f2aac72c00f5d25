// The contract between the dispatcher (attention/ops.cpp and the engine's schedules) and the
// per-arch kernels: the argument structs and the functions every arch's KernelSet holds
// (arch/kernel_table.hpp). The scalar ones are declared here (src/kernels/scalar_*.cpp);
// the SIMD ones are template instances, taken by src/arch/NAME.cpp (compiled with that arch's
// flags only). How each kernel works is in its own header (kernels/gemm_impl.hpp, exp.hpp,
// softmax.hpp, score_epilogue.hpp, flash.hpp, decode.hpp, finite_scan_impl.hpp). Pointers +
// leading dimensions (floats between row starts); no ownership. Only kernel headers here: the
// vocabulary is kernels/kernel_types.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/kernel_types.hpp"

namespace attn::kernels {

// C[m×n] = A[m×k] · B, where B is k×n (row-major, ldb) or, when b_transposed, n×k (so the
// product is A·Bᵀ without materialising a transpose). C is overwritten (never read).
// B may hold 16-bit floats (b_type f16 or bf16: B points at uint16_t, ldb counts them), as a
// model's weights lie in their file: they are widened as the panels of B are packed, never
// as a whole float32 copy.
enum class GemmB : unsigned char { f32, f16, bf16 };
struct GemmArgs {
    const float* A;
    std::size_t lda;
    const float* B;
    std::size_t ldb;
    bool b_transposed;
    float* C;
    std::size_t ldc;
    std::size_t m, n, k;
    GemmB b_type = GemmB::f32;
};

// Fused attention over query rows [row_begin, row_end) of the full problem: O[i - row_begin,:] =
// softmax_j(cap(scale·Q[i]·K[j]) + alibi_slope·(j − p) + bias[i,j], masked)·V, p = i + offset
// (O points at the output row of row_begin; Q, mask and bias are indexed by the global
// row i), where cap(x) = softcap·tanh(x/softcap), or x when
// softcap is 0. A key j is masked for query i when j is outside
// keys_at(causal, window, i + offset, Tk, key_limit), when the mask's bit j of row i is 0 (as
// attn/mask_bits.hpp packs them: row i is the words at mask + i*ldm, bit j % 64 of word j / 64), or
// when the biased score is -inf. Keys outside the visible range are never loaded. ldm / ldb may be 0
// (one row broadcast to every query). Fully masked rows follow `policy` (uniform = mean of all Tk
// rows of V). K and V hold kv_type elements (float32, or float16 widened to float32 a tile at a
// time); ldk, ldv count elements.
struct FlashArgs {
    const float* Q;
    std::size_t ldq;
    const void* K;
    std::size_t ldk;
    const void* V;
    std::size_t ldv;
    float* O;
    std::size_t ldo;
    std::size_t Tq, Tk, dk, dv;
    float scale;
    Causal causal;
    const std::uint64_t* mask;  // nullable, Tq rows of bits, ldm words apart
    std::size_t ldm;
    const float* bias;  // nullable, Tq×Tk, ldb
    std::size_t ldb;
    MaskedRowPolicy policy;
    std::size_t row_begin, row_end;
    std::size_t key_limit = no_key_limit;  // keys >= key_limit are masked for every query
    ElementType kv_type = ElementType::f32;
    KeyWindow window{};    // the sliding window (kernel_types.hpp's visible_range)
    float softcap = 0.0f;  // 0: none
    // Key shards (--key-rows, --show lse): keys < key_first are masked (the shard's end is in
    // key_limit); lse, when not null, gets row i's log_sum_exp at lse[i - row_begin].
    std::size_t key_first = 0;
    float* lse = nullptr;
    // ALiBi: slope·(j − p) added after the softcap, before the bias, p = i + offset (kernels/alibi.hpp); 0: none.
    float alibi_slope = 0.0f;
    // An attention sink (gpt-oss): a logit in the softmax's denominator only, w_ij = exp(s_ij − m) /
    // (exp(sink − m) + Σ_j exp(s_ij − m)); the online softmax starts each row at m = sink, l = 1, so a
    // row with no visible key gets context 0 (and is not counted as fully masked). -inf: none.
    float sink = -std::numeric_limits<float>::infinity();
    // Documents (--segments): row i also sees only keys [doc_begin[i], doc_end[i]) (global rows;
    // kernel_types.hpp's in_document); null: none.
    const std::size_t* doc_begin = nullptr;
    const std::size_t* doc_end = nullptr;
    // Query row i sits at position p = i + offset among the keys (the causal offset of this
    // batch item, AttentionProblem::offset): the causal rule j <= p, the window, ALiBi's p.
    long long offset = 0;
};

// Split-K decoding, one chunk: for each of `rows` query rows, the online softmax over keys
// [max(k_begin, row.first), min(k_end, row.visible)) with the softcap / mask / bias rules of FlashArgs, left
// unnormalised: m = the running max of the scaled scores (-inf when no key was allowed),
// l = Σ exp(s − m), acc[0, dv) = Σ exp(s − m)·V[j]. Rows are computed independently (the
// same bits whatever rows share the call). Keys at or past the largest visible are never
// loaded, nor keys before the smallest first. K and V hold kv_type elements (as FlashArgs). The caller merges the chunks
// (attn/multihead.hpp) and counts a sink there, once. Documents are in each row's first and visible.
struct DecodeRow {
    const float* q;     // dk floats
    const std::uint64_t* mask;  // nullable; the row's bits (bit j % 64 of word j / 64: key j allowed)
    const float* bias;  // nullable; indexed by the key
    std::size_t visible;  // keys >= visible are masked (causal rule, window and key limit)
    std::size_t first = 0;  // keys < first are masked (the window)
    float alibi_slope = 0.0f;  // ALiBi: slope·(j − position) added after the softcap (as FlashArgs)
    long long position = 0;    // the query's position (AttentionProblem::position)
};
struct DecodeArgs {
    const DecodeRow* rows;
    std::size_t nrows;
    const void* K;
    std::size_t ldk;
    const void* V;
    std::size_t ldv;
    std::size_t dk, dv;
    float scale;
    std::size_t k_begin, k_end;
    float* acc;  // nrows rows of ldacc floats (ldacc >= dv rounded up to 16, 64-byte aligned)
    std::size_t ldacc;
    float* m;  // nrows
    float* l;  // nrows
    ElementType kv_type = ElementType::f32;
    float softcap = 0.0f;  // as FlashArgs
    // Long tiles (decode.hpp's long_tile_keys) for a lone row: set when the whole problem has one
    // query row per K/V head (plain decoding), not from this call's rows, so that any range of
    // query rows runs the tiles, and gets the bits, of the whole run.
    bool long_tiles = false;
    // The one-row scheme's software prefetch (decode.hpp); off where the hardware prefetchers
    // stream K and V better alone (the caller decides). It changes no bits.
    bool stream_prefetch = true;
};

// The materialised path's score epilogue, for query rows [row_begin, row_end) of a Tq×Tk
// problem, one row at a time while it is in cache: x[j] = cap(scale·S[i][j]) (+ ALiBi, as FlashArgs) + bias[i][j] (the
// product rounded, then the sum: without a softcap, the bits of ops.hpp's scale_and_mask_rows), -inf
// where j is outside keys_at(causal, window, i + offset, Tk, key_limit) or mask bit j of row i is 0
// (as FlashArgs; cap as FlashArgs).
// x goes to `scaled` when it is not null, and to P, softmax-normalised when `softmax` (fully
// masked rows follow policy, as softmax_rows) or as is. S, scaled and P point at row row_begin (P may be S);
// mask and bias are indexed by the global row i (ldm / ldb may be 0: one row for all).
struct ScoreEpilogueArgs {
    const float* S;
    std::size_t lds;
    float* scaled;  // nullable
    std::size_t ld_scaled;
    float* P;
    std::size_t ldp;
    std::size_t Tq, Tk, row_begin, row_end;
    float scale;
    Causal causal;
    std::size_t key_limit;
    const std::uint64_t* mask;  // nullable; bits as FlashArgs, ldm words apart
    std::size_t ldm;
    const float* bias;  // nullable
    std::size_t ldb;
    bool softmax;
    MaskedRowPolicy policy;
    KeyWindow window{};
    float softcap = 0.0f;
    float* capped = nullptr;  // nullable: cap(scale·S), before the bias and masks
    std::size_t ld_capped = 0;
    std::size_t key_first = 0;  // as FlashArgs
    long long offset = 0;       // as FlashArgs
    float* lse = nullptr;       // as FlashArgs (softmax only)
    float alibi_slope = 0.0f;  // as FlashArgs
    float sink = -std::numeric_limits<float>::infinity();  // as FlashArgs (softmax only)
    const std::size_t* doc_begin = nullptr;  // as FlashArgs
    const std::size_t* doc_end = nullptr;
};

// Additive (Bahdanau) scores, kernels/additive.hpp: S[i][j] = Σ_c va[c]·tanh(Qp[i][c] + KpT[c][j])
// for rows i < m of Qp (m×h, ldq: the projected queries q·W_q) and keys j < n of KpT (h×n, ldkt:
// the projected keys k·W_k, transposed). The sum runs over c in order, one accumulator per cell
// (a fused multiply-add where the arch has one); tanh is the tanh kernel's. S (m×n, lds) is
// overwritten, never read; every cell is computed the same way whatever m and n (edge keys
// too), so any split of rows or keys gives the same bits.
struct AdditiveArgs {
    const float* Qp;
    std::size_t ldq;
    const float* KpT;
    std::size_t ldkt;
    const float* va;  // h floats, va_stride apart
    std::size_t va_stride;
    std::size_t h;
    float* S;
    std::size_t lds;
    std::size_t m, n;
};

#define ATTN_KERNEL_DECLS                                                                      \
    void gemm(const GemmArgs& a);                                                              \
    /* y[i] = exp(x[i]); x <= -88 (and -inf) give 0 */                                         \
    void exp(const float* x, float* y, std::size_t n);                                         \
    /* y[i] = tanh(x[i]) (kernels/tanh.hpp); the softcap's tanh */                               \
    void tanh(const float* x, float* y, std::size_t n);                                        \
    /* softmax of each row in place; -inf entries masked (weight exactly 0); fully masked */   \
    /* rows follow policy (uniform = 1/cols); returns the number of fully masked rows */       \
    std::size_t softmax_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols,     \
                             MaskedRowPolicy policy);                                          \
    /* returns the number of fully masked rows in [row_begin, row_end) */                     \
    std::size_t flash(const FlashArgs& a);                                                     \
    /* returns the number of fully masked rows (softmax only; 0 otherwise) */                  \
    std::size_t score_epilogue(const ScoreEpilogueArgs& a);                                    \
    void decode_chunk(const DecodeArgs& a);                                                    \
    /* whether any of n values at p (any alignment) is NaN or ±inf (float32 or float16 */     \
    /* bits), or NaN or +inf (float32; -inf allowed) */                                       \
    bool any_nonfinite_f32(const void* p, std::size_t n);                                      \
    bool any_nonfinite_f16(const void* p, std::size_t n);                                      \
    bool any_nan_or_pos_inf_f32(const void* p, std::size_t n);                                 \
    void additive_scores(const AdditiveArgs& a);

namespace scalar { ATTN_KERNEL_DECLS }

#undef ATTN_KERNEL_DECLS

}  // namespace attn::kernels
