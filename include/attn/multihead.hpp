// Attention as models use it: batched, multi-head and grouped-query tensors, key padding,
// and query-row / batch-item ranges for sharding; multi-head projections with W_O.
//
// Shapes, broadcasting, grouped-query heads and the results' rank: attn/problem.hpp.
//
// Results are bitwise identical for any thread count, and the rows of a query-row or
// batch-item range are bitwise identical to the same rows of the whole run.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "attn/attention.hpp"
#include "attn/problem.hpp"
#include "attn/half.hpp"
#include "attn/mask_bits.hpp"
#include "attn/masking.hpp"
#include "attn/tensor.hpp"

namespace attn {

// IndexRange, AttentionSpec and the resolved problem are in attn/problem.hpp.

// Which results to keep: AttentionWants of attn/attention.hpp (scores, scaled, weights,
// weights_mean, context). Only context wanted with softmax → the fused streaming kernel.

// Output rank rule: attn/problem.hpp (AttentionProblem::result_shape).
// scores/scaled/weights are ([B',] [H,] Tq', Tk), weights_mean is ([B',] Tq', Tk), context
// is ([B',] [H,] Tq', dv), where B' and Tq' count the requested ranges only. Slice s of a
// result is batch item b0 + s / H, head s % H (with a head dimension).
// Work: context alone with softmax runs the fused kernel in (batch item, K/V head group,
// query block) units, the query heads of a group back to back (stacked into one Q when no
// causal rule, window, mask, bias or ALiBi makes their rows differ), so K/V tiles are reused from
// cache; key lengths, causal limits and windows bound each row's key loop (no mask loads),
// and a softcap and ALiBi are a pass each over each tile of scores (RoPE rotates Q and K
// once, before). Otherwise each
// (batch item, head) is materialised: Q·Kᵀ, scale and mask, normalisation, ·V.
struct BatchedAttention {
    Tensor scores, scaled, weights, weights_mean, context;  // empty (rank 0) when not wanted
    Tensor capped;  // the softcap's output before the bias, every cell (AttentionWants::capped)
    // Each row's log-sum-exp ([B',] [H,] Tq'; AttentionWants::lse): ln Σ_j exp(x_j) over the
    // logits x that enter the softmax (natural log; -inf for a fully masked row). With the
    // context of key shards (AttentionSpec::key_rows) it is what merge_key_shards combines.
    Tensor lse;
    std::size_t batch = 1, heads = 1, kv_heads = 1;         // B, H, G of the computation
    std::size_t masked_rows = 0;  // computed (b, h, i) rows with every key masked
    bool fused = false;           // computed by the streaming kernel
    bool split_keys = false;      // fused, as split-K decoding (few query rows, keys in chunks)
};

// Split-K decoding (flash-decoding). When the fused kernel runs with few query rows
// (Tq <= decode_max_rows), the keys are cut into chunks of split_key_chunk(Tk, dk, dv, K/V element bytes) keys, each
// (batch item, K/V head, chunk) is a work unit computing every query row of its heads (the
// query heads of a grouped-query group together, so each K/V tile is loaded once for all of
// them) with its own running max, sum and unnormalised output, and the chunks are merged in
// key order. The chunk length depends on the shapes only, so the bits never depend on the
// thread count.
inline constexpr std::size_t decode_max_rows = 4;
std::size_t split_key_chunk(std::size_t Tk, std::size_t dk, std::size_t dv, std::size_t kv_bytes = 4) noexcept;

// The engine. Throws InputError on shapes that do not fit together (naming the shapes), on
// ranges or lengths out of bounds and on inputs of rank < 2 or > 4; RuntimeFailure on a zero
// row sum (normalize = sum), naming the first (batch item, head) that has one.
// K and V may be float16 (attn/half.hpp): the fused and split-K kernels widen them tile by
// tile; when the Tq×Tk matrices are materialised (or K and V differ in type) they are widened
// once. Accuracy: as float32 attention over the same (float16-rounded) values.
BatchedAttention batched_attention(const TensorView& Q, const KVView& K, const KVView& V,
                                   const AttentionSpec& spec, const AttentionWants& wants = {});
// The same on a problem already resolved (resolve_attention), which its caller may also ask
// for slices, the visibility rule and shapes.
BatchedAttention batched_attention(const AttentionProblem& problem, const AttentionWants& wants = {});

// ---- multi-head projections ---------------------------------------------------------------
// Weights in attn's layout: a projection W is in×out, applied as X·W (+ bias, one row). Heads
// are contiguous column blocks: column block h of W_q is head h (PyTorch's view(B, T, H, dh)).
struct MultiheadWeights {
    std::size_t heads = 1;     // H
    std::size_t kv_heads = 0;  // G; 0 = H
    const TensorView* wq = nullptr;  // D × (H·dh)
    const TensorView* wk = nullptr;  // D_kv × (G·dh)
    const TensorView* wv = nullptr;  // D_kv × (G·dv)
    const TensorView* bq = nullptr;  // 1 × (H·dh) (or a vector of that length); nullable
    const TensorView* bk = nullptr;
    const TensorView* bv = nullptr;
    const TensorView* wo = nullptr;  // (H·dv) × D_out; null = no output projection
    const TensorView* bo = nullptr;  // 1 × D_out; nullable
    // The element type K and V are kept in once projected, as an engine's cache keeps them
    // (to_kv: rounded to nearest even, or q8_0 blocks along each head's d); with RoPE, K is
    // kept so after its rotation (Rope::keys_as). f32: as projected. With a cache, the present
    // cache (past ++ new) is stored so: a cache kept in this type reads back unchanged.
    ElementType kv_type = ElementType::f32;
};

// The shapes of multi-head projections, resolved once: the one validator of them, which
// multihead_attention and the command line both take. X is T×D or B×T×D, the key/value source
// (rank 0: X) the same with the same B; W_q is D×(H·d_k), W_k D_kv×(G·d_k), W_v D_kv×(G·d_v)
// (null: the identity, D columns); a bias (null: none) one value per column of its weight.
struct ProjectionInputs {
    Shape x, kv;
    const Shape* wq = nullptr;
    const Shape* wk = nullptr;
    const Shape* wv = nullptr;
    const Shape* bq = nullptr;
    const Shape* bk = nullptr;
    const Shape* bv = nullptr;
    std::size_t heads = 1, kv_heads = 0;  // H, G (0 = H)
};
struct ProjectionShapes {
    std::size_t D = 0, D_kv = 0;                    // columns of X and of the key/value source
    std::size_t q_cols = 0, k_cols = 0, v_cols = 0;  // H·d_k, G·d_k, G·d_v
    std::size_t d_k = 0, d_v = 0;
};
// X and the key/value source alone (rank; the same B): ShapeError with role embeddings or
// kv_embeddings, dimension "rank" or "batch". resolve_projections starts with it.
void check_embeddings(const Shape& x, const Shape& kv);
// Every shape, in this order: the embeddings; each weight's rows against its source's columns
// (role wq/wk/wv, "rows"); the query columns into H heads (queries, "head columns": got the
// columns, wanted H); the key columns against G·d_k (keys, "d_k"); the value columns into G
// heads (values, "head columns"); each bias against its weight's columns (bq/bk/bv, "length").
// The first that fails throws its ShapeError.
ProjectionShapes resolve_projections(const ProjectionInputs& in);

// X·W + b as one GEMM over every row of X (T×D or B×T×D) and every head: the result has X's
// leading dimensions and W's columns. A null W is the identity (a copy of X).
// `what` names the weight in errors ("W_q").
Tensor linear(const TensorView& X, const TensorView* W, const TensorView* b, const char* what);

// The (…, H, T, d) view of a (…, T, H·d) projection: head h is columns [h·d, (h+1)·d) of
// every row, a strided view (no copy). Throws InputError when the columns are not H·d.
TensorView split_heads(const Tensor& projected, std::size_t heads);
// The same over any view whose last dimension is contiguous (float32 or float16 keys and
// values): (…, T, H·d) → (…, H, T, d), of rank 2 or 3.
KVView split_heads(const KVView& packed, std::size_t heads);

// The heads of a per-head result ([B,] H, T, d) side by side: ([B,] T, H·d), heads in order
// (split_heads' inverse, as a copy). `batched`: the first dimension is B.
Tensor concat_heads(const TensorView& per_head, bool batched);

// A K/V cache for multihead_attention (HF's past_key_values, ONNX's past_key/past_value): the
// keys and values of the P tokens before, per head, (B, G, P, d_k) and (B, G, P, d_v) (float32 or
// float16; B as X's, 1 for a 2-D X), the keys as they enter the scores, already rotated when the
// spec has RoPE. The new tokens' keys and values are appended per head (the present cache), the
// queries sit at P… and RoPE rotates the new keys at P… (AttentionSpec::past).
struct KVCache {
    KVView k, v;
};

// What multihead_attention computed. queries/keys/values are the projections
// ([B,] T, H·dh) / ([B,] T_kv, G·dh) / ([B,] T_kv, G·dv); split_heads gives their heads.
// With a cache, present_keys/present_values are the present cache, past ++ new per head,
// ([B,] G, P + T_kv, d) (the batch dimension as X's; the new keys before RoPE's rotation:
// rotated_queries_keys gives them rotated), which the problem reads as K and V.
struct Multihead {
    Tensor queries, keys, values;
    Tensor present_keys, present_values;  // rank 0 without a cache
    // K and V as MultiheadWeights::kv_type keeps them, per head ((B,) G, T, d; with a cache,
    // P + T rows), which the problem reads; empty for f32 (K also with RoPE, which rounds it
    // after its rotation).
    HalfTensor stored_keys, stored_values;
    AttentionProblem problem;    // the attention over the projected heads, resolved
    BatchedAttention attention;  // per head; context (B?, H, Tq, dv) when wanted
    Tensor concat;               // ([B,] Tq', H·dv): the heads side by side
    Tensor output;               // concat·W_O + b_O (([B,] Tq', D_out)); concat when no W_O
};

// nn.MultiheadAttention's forward: Q = X·W_q + b_q, K = X_kv·W_k + b_k, V = X_kv·W_v + b_v
// (X_kv = X when null: self-attention), attention per head (grouped-query when G < H; the
// scale defaults to 1/sqrt(dh)), heads concatenated, then W_O and b_O. X and X_kv are T×D or
// B×T×D (the same B). The batch dimension of the results follows X's rank; a head dimension
// is always present in attention's per-head results. spec.query_rows / batch_items select
// rows and items of the output as for batched_attention().
// With `past`, the cache above (spec.past is set from it; its shapes are checked against the
// projections: ShapeError with role past_keys / past_values).
Multihead multihead_attention(const TensorView& X, const TensorView* X_kv, const MultiheadWeights& w,
                              const AttentionSpec& spec, const AttentionWants& wants = {},
                              const KVCache* past = nullptr);

// A cache's shape against the new keys' or values' (B batch items, G heads of d columns):
// (B, G, P, d), any P; ShapeError naming `role` (past_keys, past_values) otherwise.
void check_cache(const Shape& past, std::size_t batch, std::size_t heads, std::size_t d, Role role);
// The cache of a projection: past (B, G, P, d) ++ the heads of `projected` (([B,] T, G·d)) along
// the key axis, ([B,] G, P + T, d) float32 (B when projected has it); check_cache first.
Tensor present_cache(const KVView& past, const Tensor& projected, std::size_t heads, Role role);

// Q and K of a resolved problem with RoPE as they enter the scores: rotated (a cache's keys as
// they are), into q (B, H_q, Tq, d_k) and k (B_k, G, Tk, d_k), float32 (H_q, B_k: as Q and K have).
void rotated_queries_keys(const AttentionProblem& p, Tensor& q, Tensor& k);

// The output step of multi-head attention, for every form of input: the heads of a per-head
// context ([B,] H, Tq', dv) side by side ([B,] Tq', H·dv) (a copy of the context when it has
// no head dimension), then ·W_O + b_O when W_O is given (output = concat otherwise).
struct OutputProjection {
    Tensor concat, output;
};
OutputProjection project_output(const TensorView& context, bool head_dim, bool batched, const TensorView* wo,
                                const TensorView* bo);

// ---- PyTorch layouts ------------------------------------------------------------------------
// nn.Linear.weight (out×in) → attn's in×out (a transposed copy).
Tensor from_linear_weight(const TensorView& weight);

// A fused Q/K/V projection and its bias (3E, or 1×3E): the q, k, v blocks in attn's in×out
// layout (E×E each) and their bias rows (1×E; empty when no bias). The weight is either
// nn.MultiheadAttention's in_proj_weight, 3E×E ([W_q; W_k; W_v] in nn.Linear's out×in
// layout), or GPT-2's Conv1D c_attn.weight, E×3E ([W_q | W_k | W_v] in x·W layout): the
// shapes tell them apart (3E×E is never E×3E for E > 0).
struct InProjection {
    Tensor wq, wk, wv, bq, bk, bv;
};
InProjection split_in_projection(const TensorView& in_proj_weight, const TensorView* in_proj_bias);
// E of a fused weight of rows×cols: cols for 3E×E (nn.Linear, stacked), rows for E×3E
// (Conv1D, side by side); 0 for any other shape.
std::size_t fused_projection_width(std::size_t rows, std::size_t cols) noexcept;

}  // namespace attn
