// The resolved attention problem: one attention call's inputs validated once, as BLIS's
// *_check.c and the contract above ggml_flash_attn_ext do, into a plain object that every
// part of attn asks instead of working the answers out again: the engine's schedules, the
// command line, the pictures and the diagnostics.
//
// It answers: the (batch item, head) slice of every input, the key/value head of a query head
// (grouped-query), which keys query row i of (b, h) may see (allowed), the scale, and the layout
// and rank of the results. A shape that does not fit is a ShapeError naming the input's role,
// the dimension, what it has and what it needed; the command line maps the role to its flag,
// so the library names no flag.
//
// Shapes. Q is (…, Tq, dk), K is (…, Tk, dk), V is (…, Tk, dv), each of rank 2 to 4, read as
// (B, H, T, d) with missing leading dimensions = 1. Leading dimensions broadcast as in
// torch.matmul (equal, 1 or missing). Grouped-query: Q with H heads (dim -3) and K/V with G
// heads, H % G == 0; query head h reads K/V head h / (H/G) (PyTorch's enable_gqa=True). Mask
// and bias broadcast to (B, H, Tq, Tk) (their last dimension must be Tk) and may carry the
// batch dimension alone. No input is copied to broadcast it: a broadcast dimension is a
// stride of 0, a K/V head of a group is pointer arithmetic.
//
// Rank of the results: a batch dimension when Q, K or V has rank 4, or the mask or bias
// carries more than one batch item; a head dimension by the rule of AttentionSpec::head_axis.
// 2-D in, 2-D out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/mask_bits.hpp"
#include "attn/masking.hpp"
#include "attn/tensor.hpp"

namespace attn {

// The default scale 1/sqrt(d_k): computed in double and rounded to float, as PyTorch's
// scaled_dot_product_attention does (float(1.0 / math.sqrt(d_k))); 1 for d_k = 0. The one
// definition: the engine, the command line and bench all take it from here.
float default_scale(std::size_t d_k) noexcept;
// The scale a name stands for: "auto" = default_scale(d_k), "none" = 1; nothing for other text.
std::optional<float> named_scale(std::string_view name, std::size_t d_k) noexcept;

// A half-open range [begin, end) of indices; end = npos means "to the end".
struct IndexRange {
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::size_t begin = 0, end = npos;
};

// The score function s(q, k) (issue 23's "score functions"; scores = scale·s(q, k)):
//   dot       q·k (scaled dot-product attention)
//   general   q·W_a·kᵀ, W_a d_q×d_k (Luong)
//   additive  v_aᵀ·tanh(q·W_q + k·W_k), W_q d_q×h, W_k d_k×h, v_a h entries (Bahdanau; d2l's
//             AdditiveAttention with bias-free Linear layers)
//   cosine    q·k / (|q|·|k|), 0 when q or k is a zero vector
// The weights are shared by every batch item and head. The default scale is 1/sqrt(d_k) for
// dot and general, 1 for additive and cosine (default_scale_of).
enum class ScoreFunction { dot, general, additive, cosine };
const char* score_name(ScoreFunction s) noexcept;  // "dot", "general", "additive", "cosine"
float default_scale_of(ScoreFunction s, std::size_t d_k) noexcept;

// Whether the results carry a head dimension: by_rank when Q, K or V has rank 3 or more;
// always (multi-head attention with its heads asked for); never (one head, results as 2-D or
// batched 3-D, whatever the inputs' head axis of extent 1).
enum class HeadAxis { by_rank, always, never };

// Positions (issue 23): RoPE rotates Q and K per head before the scores (the engine's pre-pass,
// attention/rope.cpp); half is HF Llama's rotate_half (dims i and i + N/2 paired), interleaved
// GPT-J's and RoFormer's pairs (2i, 2i + 1). Query row i sits at AttentionProblem::position,
// key j at j; the angles are position·inv_freq with inv_freq[k] = 1/theta^(2k/N) in float32,
// as HF computes them.
enum class RopeStyle { half, interleaved };
// HF's rope_scaling of the frequencies (modeling_rope_utils.py): linear divides every inv_freq
// by factor; llama3 divides the low frequencies (wavelength > original_max_positions /
// low_freq_factor) by factor, keeps the high ones (wavelength < original_max_positions /
// high_freq_factor) and blends those between; yarn blends inv_freq/factor and inv_freq over a
// ramp of the dims between those that turn beta_fast and beta_slow times in
// original_max_positions, and multiplies cos and sin by attention_factor. dynamic (NTK) raises
// theta for a sequence longer than original_max_positions (config.max_position_embeddings):
// rope_at_length (attention/rope.hpp) turns it into plain RoPE for one sequence's length.
// longrope (Phi-3) divides each base power by its own factor, short_factor's, or long_factor's
// for a sequence longer than original_max_positions (rope_at_length chooses), and multiplies
// cos and sin by attention_factor.
enum class RopeScalingKind { none, linear, llama3, yarn, dynamic, longrope };
struct RopeScaling {
    RopeScalingKind kind = RopeScalingKind::none;
    float factor = 1.0f, low_freq_factor = 1.0f, high_freq_factor = 4.0f;
    float original_max_positions = 8192.0f;
    double beta_fast = 32.0, beta_slow = 1.0;  // yarn: Python floats in HF, as its bounds are computed
    bool truncate = true;                      // yarn: the ramp's bounds rounded outward to whole dims
    float attention_factor = 1.0f;             // yarn, longrope: cos and sin multiplied by it
    // longrope: one per frequency (N/2): ext_factors the divisors in use (short_factor), and
    // long_factor, which rope_at_length puts in their place
    std::vector<float> ext_factors, long_factor;
};
struct Rope {
    float theta = 0.0f;                 // the base (Llama: 10000); 0: none, else finite and > 0
    RopeStyle style = RopeStyle::half;
    std::size_t dims = 0;               // N, the leading dims of each head rotated (even, <= d_k); 0: all d_k
    RopeScaling scaling;
    // The type the rotated keys are kept in (attend --kv-dtype): every key row, a cache's
    // included, rounded to it after the rotation, as an inference engine stores K in its cache
    // after RoPE (f32: as rotated).
    ElementType keys_as = ElementType::f32;
};
// ALiBi's slopes of H heads (BLOOM's build_alibi_tensor, ggml's max_bias): with n the largest
// power of two <= H, head h < n gets 2^(−B/n)^(h+1), and head n + k the odd powers of
// 2^(−B/2n), 2^(−B/2n)^(2k+1). B = 8 gives BLOOM's slopes.
std::vector<float> alibi_slopes(std::size_t heads, float max_bias);

// Everything that shapes the scores and their normalisation (attn/masking.hpp has the rule
// that decides which keys a query may see).
struct AttentionSpec {
    std::optional<float> scale;  // unset: default_scale(dk)
    Causal causal = Causal::none;
    const TensorView* mask = nullptr;  // broadcast to (B, H, Tq, Tk); nonzero = may attend
    // The same mask packed into bits (attn/mask_bits.hpp), built once by the caller when one
    // mask serves many calls. When set it is the mask and `mask` is not read; when only
    // `mask` is set, resolving packs it (one pass over the floats).
    const MaskBits* mask_bits = nullptr;
    // The order of operations (ONNX Attention's): x = scale·q·k; the softcap c·tanh(x/c) when
    // softcap > 0; + bias; the masks (causal rule, window, mask, lengths) set cells to -inf.
    float softcap = 0.0f;  // 0: none; otherwise finite and >= FLT_MIN (1/softcap finite)
    Window window;         // attn/masking.hpp; unbounded on both sides: none
    const TensorView* bias = nullptr;  // broadcast to (B, H, Tq, Tk); added after the softcap; -inf masks
    // Positions: RoPE on Q and K before step 1; ALiBi adds slope_h·(j − p) with the bias (step 3,
    // before it). alibi is the maximum bias B (BLOOM and ggml: 8); 0: none, else finite and > 0.
    Rope rope;
    float alibi = 0.0f;
    // Valid keys per batch item (key padding): keys at index >= lengths[b] are masked for
    // every query of batch item b. Empty = no padding; otherwise exactly B entries, each <= Tk.
    std::vector<std::size_t> lengths;
    // The causal offset of each batch item (issue 23): query row i of item b sits at position
    // p = i + offset(b) among the keys; the causal rule is j <= p, the window is p − L..p + R,
    // ALiBi and RoPE use p. Empty: the alignment's own, bottom_right Tk − Tq, or with lengths
    // each item's lengths[b] − Tq (ONNX's nonpad_kv_seqlen rule), otherwise 0. One entry: every
    // item; else exactly B entries. May be negative (|offset| <= max_causal_offset).
    std::vector<long long> offsets;
    // A K/V cache (ONNX's past_key/past_value, HF's past_key_values): the first `past` rows of K
    // and V are cached keys and values, already rotated by RoPE when there is one (as HF and
    // llama.cpp store them); the new keys follow at positions past…. The causal offset then
    // defaults to past (ONNX: the queries sit after the cache; with Tq new queries and keys that is
    // also bottom-right), and RoPE rotates only keys j >= past. 0: none; at most Tk.
    std::size_t past = 0;
    // ONNX's softmax_precision = float64: each row's softmax computed in double from the float
    // logits (the materialised path), the weights rounded once.
    bool softmax_f64 = false;
    Normalization normalize = Normalization::softmax;
    MaskedRowPolicy masked_rows = MaskedRowPolicy::zero;  // what a fully masked row gets
    // Compute only these query rows (global indices into Q; causal alignment uses the global
    // index) and these batch items (of the broadcast B). The results hold only them.
    IndexRange query_rows, batch_items;
    HeadAxis head_axis = HeadAxis::by_rank;
    // The score function and its weights (ScoreFunction; float32, null when not used): W_a
    // (general), W_q and W_k (2-D) and v_a (a vector, or one row or column) (additive).
    ScoreFunction score = ScoreFunction::dot;
    const TensorView *wa = nullptr, *wa_q = nullptr, *wa_k = nullptr, *va = nullptr;
    // Key shards (--key-rows): attend to keys [begin, end) only, a cell outside being masked
    // like any other; every rule keeps the global key index, so a shard's cells are masked
    // exactly as in the whole run. May be empty (every row fully masked).
    IndexRange key_rows;
    // Attention sinks (gpt-oss's learned sinks): one logit per query head, in the softmax's
    // denominator only (step 5): w_ij = exp(s_ij − m) / (exp(sink_h − m) + Σ_j exp(s_ij − m)), m the
    // max over the row's scores and the sink (gpt-oss: the sink as one more column, softmax, the column
    // dropped). The weights sum to less than 1; a row with every key masked gets weights 0 and
    // context 0 (whatever masked_rows says). Empty: none; else H finite values; softmax only, and
    // not with key shards (the sink must be counted once, not once per shard).
    std::vector<float> sinks;
    // Documents (FlexAttention's document mask, FlashAttention's varlen, packed sequences): a document
    // id per key position, `segment_rows` rows of Tk ids (row-major; 1 row for every batch item, or
    // B). Query row i of item b sits at position p = i + offset(b) (position(b, i); i itself for
    // self-attention) and takes the id there, as FlexAttention's document mask does with a cache or
    // an offset (document_id[q_idx + offset]); a query whose position is not a key's (p < 0, as
    // ONNX's padded queries, or p >= Tk) is in no document and sees no key. Query i sees key j
    // only when both are in the same document (step 4; with
    // the causal rule each document is causal). When each document is one contiguous run of
    // positions (ids 0 0 1 1 2, packed sequences) its keys are one range per query row, which the
    // kernels skip to; otherwise (0 1 0) the rule becomes mask bits (rows, 1, Tq, Tk), combined
    // with any mask: exact, O(Tq·Tk) bits, skipping only the tiles they mask entirely. Empty: none.
    std::vector<long long> segments;
    std::size_t segment_rows = 1;
};

// The inputs of a problem, for errors.
// The inputs of an attention problem, and of the projections before it (multihead.hpp's
// resolve_projections): the embeddings X, the key/value source, W_q, W_k, W_v and their biases.
enum class Role {
    queries, keys, values, mask, bias, lengths, query_rows, batch_items,
    embeddings, kv_embeddings, wq, wk, wv, bq, bk, bv,
    wa, wa_q, wa_k, va,  // the score function's weights (ScoreFunction)
    key_rows, sinks, segments, offsets,
    past_keys, past_values  // a K/V cache (AttentionSpec::past; multihead.hpp's KVCache)
};
const char* role_name(Role role) noexcept;  // "queries", "keys", …, "batch items", "embeddings", "W_q", "b_q", …

// A shape, length or range that does not fit: `role`'s `dimension` ("d_k", "length",
// "batch", "heads", "rows", "rank", "columns", "item") is `got` where `wanted` was needed,
// compared with `other` (the same role when the limit is not another input's). what() says it
// in the library's words, naming inputs by role and shape.
class ShapeError : public InputError {
public:
    ShapeError(Role role, std::string dimension, std::size_t got, std::size_t wanted, Role other,
               const std::string& message)
        : InputError(message), role(role), other(other), dimension(std::move(dimension)), got(got), wanted(wanted) {}
    Role role, other;
    std::string dimension;
    std::size_t got, wanted;
    // For a mask or bias: the scores' shape it must broadcast to, in the results' rank, and the
    // names of its axes ("batch items", "heads", "queries", "keys").
    Shape against;
    std::vector<std::string> against_axes;
};

// One input read as (B, H, T, d); a size-1 dimension gets stride 0 (broadcast). K and V may
// hold float16, bfloat16 or q8_0 elements (type, attn/half.hpp); every other input is float32.
struct Operand {
    const float* data = nullptr;
    ElementType type = ElementType::f32;
    std::size_t B = 1, H = 1, T = 0, d = 0;
    std::size_t sB = 0, sH = 0, sT = 0;
    Shape shape;  // as given, for messages

    const float* at(std::size_t b, std::size_t h) const noexcept { return data + b * sB + h * sH; }
    // (b, h) of a view of any element type.
    const void* element_at(std::size_t b, std::size_t h) const noexcept {
        return reinterpret_cast<const char*>(data) + storage_bytes(type, b * sB + h * sH);
    }
    // Row i of (b, h) (float32 operands); a broadcast row (T = 1) serves every i.
    const float* row(std::size_t b, std::size_t h, std::size_t i) const noexcept { return at(b, h) + i * sT; }
};

// The (B, H, T, d) reading of a view of rank 2 to 4 (ShapeError naming `role` otherwise).
Operand operand_of(const KVView& v, Role role);

// The mask's bits as (B, H, T) rows of words, broadcast dimensions with stride 0.
struct MaskWords {
    const std::uint64_t* data = nullptr;
    std::size_t sB = 0, sH = 0, sT = 0;
    const std::uint64_t* at(std::size_t b, std::size_t h) const noexcept { return data + b * sB + h * sH; }
};

struct AttentionProblem {
    Operand q, k, v, mask, bias;  // mask: its shape only (the kernels read mask_words)
    MaskWords mask_words;
    std::shared_ptr<const MaskBits> packed_mask;  // when the caller gave only the float mask
    bool has_mask = false, has_bias = false;
    std::size_t B = 1, H = 1, G = 1, Tq = 0, Tk = 0, dk = 0, dv = 0;
    std::size_t b0 = 0, b1 = 1, r0 = 0, r1 = 0;  // the batch items and query rows computed
    float scale = 1.0f;
    float softcap = 0.0f;  // 0: none (AttentionSpec's order of operations)
    Causal causal = Causal::none;
    Window window;
    // Positions (AttentionSpec): rope.dims resolved (N > 0 when rope.theta > 0); the ALiBi slope of
    // each query head (alibi_slopes), or empty for none.
    Rope rope;
    std::vector<float> alibi_slopes;
    std::vector<std::size_t> lengths;  // empty, or one per batch item
    std::vector<long long> offsets;    // one per batch item (AttentionSpec::offsets, resolved)
    std::size_t past = 0;              // keys [0, past) are a cache, already rotated (AttentionSpec::past)
    bool softmax_f64 = false;          // AttentionSpec's
    Normalization normalize = Normalization::softmax;
    MaskedRowPolicy masked_rows = MaskedRowPolicy::zero;
    bool batch_dim = false, head_dim = false;  // the results' rank (see above)
    // The score function (AttentionSpec's). dk is K's last dimension; Q's (q.d) differs for
    // general and additive. The engine turns general and cosine into dot products (and
    // additive's projections into Q and K of h columns) before any kernel runs
    // (attention/score_functions.hpp). wa, wa_q, wa_k: the weights; va: h floats.
    ScoreFunction score = ScoreFunction::dot;
    MatrixView wa, wa_q, wa_k;
    const float* va = nullptr;
    std::size_t va_stride = 1;  // floats between v_a's entries
    // The key rows attended to (AttentionSpec::key_rows): [0, Tk) once resolved; no limit unresolved.
    std::size_t k0 = 0, k1 = no_key_limit;
    // Attention sinks (AttentionSpec::sinks): one per query head, or empty.
    std::vector<float> sinks;
    // Documents (AttentionSpec::segments), resolved to the document [doc_begins[i], doc_ends[i]) of
    // query row i's position (doc_rows rows of Tq: 1, or B when the ids or the offsets differ per
    // item; empty: none): the keys a query row may see.
    std::vector<std::size_t> doc_begins, doc_ends;
    std::size_t doc_rows = 0;

    std::size_t group() const noexcept { return H / G; }
    std::size_t kv_head(std::size_t h) const noexcept { return h / group(); }
    // Keys at or past this index are padding for batch item b, or past the key rows (global index).
    std::size_t key_limit(std::size_t b) const noexcept {
        return lengths.empty() || lengths[b] > k1 ? k1 : lengths[b];
    }
    // Batch item b's causal offset (offsets; the alignment's own when none were resolved).
    long long offset(std::size_t b) const noexcept;
    // The position of query row i of batch item b among the keys (key j is at j): i + offset(b),
    // the causal frontier, the window's centre, ALiBi's p, RoPE's query position.
    long long position(std::size_t b, std::size_t i) const noexcept { return (long long)i + offset(b); }
    // The keys query row i of batch item b may see (causal rule, window, key limit, key rows, documents).
    KeyRange keys(std::size_t b, std::size_t i) const noexcept;
    // The sink of query head h (-inf: none).
    float sink(std::size_t h) const noexcept;
    // Batch item b's rows of documents' bounds, indexed by the query row (null: no documents).
    const std::size_t* doc_begin(std::size_t b) const noexcept {
        return doc_rows ? doc_begins.data() + (doc_rows == 1 ? 0 : b) * Tq : nullptr;
    }
    const std::size_t* doc_end(std::size_t b) const noexcept {
        return doc_rows ? doc_ends.data() + (doc_rows == 1 ? 0 : b) * Tq : nullptr;
    }
    // The whole rule for one cell (global b, h, i, j): in keys(b, i), the mask's bit, a bias not -inf.
    bool allowed(std::size_t b, std::size_t h, std::size_t i, std::size_t j) const noexcept;
    // Shape ([B',] [H,] rows, cols) of a result; with_heads = false for the mean over heads.
    Shape result_shape(bool with_heads, std::size_t rows, std::size_t cols) const;
    // Index of the (b, h) slice in a result of that shape (global b).
    std::size_t result_slice(std::size_t b, std::size_t h) const noexcept {
        return (b - b0) * (head_dim ? H : 1) + (head_dim ? h : 0);
    }
};

// The largest |causal offset| a problem accepts (far beyond any sequence; no overflow).
inline constexpr long long max_causal_offset = 1LL << 48;

// Narrows a resolved problem to these query rows and batch items (ShapeError when out of
// range); resolve_attention applies the spec's.
void select_ranges(AttentionProblem& problem, const IndexRange& query_rows, const IndexRange& batch_items);

// Validates Q, K, V and spec once. Throws ShapeError for shapes, lengths and ranges that do
// not fit; InputError for a mask that cannot be packed. Only shapes, strides and pointers are
// read, never the data of Q, K, V or the bias: a caller may validate shapes before it has them.
AttentionProblem resolve_attention(const TensorView& Q, const KVView& K, const KVView& V, const AttentionSpec& spec);

}  // namespace attn
