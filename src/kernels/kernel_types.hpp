// The kernels' own vocabulary: the causal kind, what a fully masked query row gets, the
// element type of K and V, and the rule for how many leading keys a query row may see. The
// kernels include only kernel headers; the library converts its public enums
// (attn/masking.hpp, attn/half.hpp) to these at the call (src/attention/kernel_vocabulary.hpp),
// and its causal_visible / visible_keys forward to visible_keys below: one definition of the
// rule for the kernels, the library, the pictures and the reports. The enums carry the
// library's names (attn::kernels::Causal next to attn::Causal) so that kernel code reads as
// before; they are distinct types, so a kernel cannot take a library value unconverted.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>

namespace attn::kernels {

// top_left: query i sees keys j <= i; bottom_right: j <= i + (Tk - Tq) (the last query row
// sees every key, as in decoding with a cache).
enum class Causal : unsigned char { none, top_left, bottom_right };
// A fully masked query row's weights: 0, NaN, or uniform (1/Tk; its output is the mean of V).
enum class MaskedRowPolicy : unsigned char { zero, nan, uniform };
// K and V elements: float32, or IEEE float16, bfloat16 or ggml's q8_0 blocks widened to
// float32 as they are loaded (kernels/kv_elements.hpp).
enum class ElementType : unsigned char { f32, f16, bf16, q8_0 };

// A key limit of "none": every key is a real one.
inline constexpr std::size_t no_key_limit = std::numeric_limits<std::size_t>::max();

// A sliding window, ONNX's left and right sizes: the query at position p sees key j iff
// p − left ≤ j ≤ p + right; unbounded_window on a side bounds nothing there.
inline constexpr std::size_t unbounded_window = std::numeric_limits<std::size_t>::max();
struct KeyWindow {
    std::size_t left = unbounded_window, right = unbounded_window;
};
// The keys [begin, end) a query row may see; begin == end when none.
struct KeyRange {
    std::size_t begin, end;
};

// In an anonymous namespace (internal linkage, one copy per translation unit): the per-arch
// TUs compile this header with their ISA flags, and an ordinary inline function compiled
// with AVX-512 flags there could be the copy the linker keeps for every caller, which then
// dies on an AVX2-only CPU (design notes §2). Each TU keeps its own copy instead.
namespace {

// The causal offset an alignment stands for when the problem gives none of its own:
// bottom_right Tk − Tq (the last query row sees every key), otherwise 0. The resolved problem
// holds one offset per batch item (AttentionProblem::offset); the kernels take it as `offset`.
constexpr long long causal_offset(Causal causal, std::size_t Tq, std::size_t Tk) noexcept {
    return causal == Causal::bottom_right ? (long long)Tk - (long long)Tq : 0;
}

// Number of leading keys the query at position p may see (key j sits at position j): the
// causal rule j <= p, clamped to [0, Tk], then the key limit (a sequence's length: keys at or
// past it are padding). Every key at or past this index is masked, whatever the mask or bias
// say. Non-decreasing in p.
constexpr std::size_t visible_keys_at(Causal causal, long long p, std::size_t Tk, std::size_t key_limit) noexcept {
    std::size_t visible = Tk;
    if (causal != Causal::none) visible = p < 0 ? 0 : std::size_t(p) + 1 < Tk ? std::size_t(p) + 1 : Tk;
    return visible < key_limit ? visible : key_limit;
}

// The keys the query at position p = i + offset may see: visible_keys_at's limit, narrowed by
// the window around p, and by key_first: keys before it are outside the key rows computed (a
// key shard [key_first, key_limit) of the whole run, --key-rows; the shard's end is part of
// the key limit). Both ends are non-decreasing in p, clamped to [0, Tk], begin ≤ end. The one
// definition for the kernels, the library, the pictures and the reports.
constexpr KeyRange keys_at(Causal causal, KeyWindow window, long long p, std::size_t Tk, std::size_t key_limit,
                           std::size_t key_first = 0) noexcept {
    std::size_t end = visible_keys_at(causal, p, Tk, key_limit);
    end = end < Tk ? end : Tk;
    // A side wider than this bounds nothing (|p| is far below it: offsets are checked when the
    // problem is resolved): capped, no overflow.
    constexpr long long cap = 1LL << 60;
    const long long left = window.left < std::size_t(cap) ? (long long)window.left : cap;
    const long long right = window.right < std::size_t(cap) ? (long long)window.right : cap;
    const long long last = p + right + 1;  // one past the last key the window allows
    if (last < (long long)end) end = last <= 0 ? 0 : std::size_t(last);
    const long long first = p - left;
    std::size_t begin = first <= 0 ? 0 : std::size_t(first);
    if (begin < key_first) begin = key_first;
    return {begin < end ? begin : end, end};
}

// Documents (--segments; FlexAttention's document mask, FlashAttention's varlen): row i sees only
// the keys [doc_begin[i], doc_end[i]) of its own document, intersected with r (visible_range's).
// Null doc_begin: no documents. Both bounds are non-decreasing in i (each document is one run of
// positions), so both ends of the result are too, as visible_range's: the kernels' block bounds
// hold, and key tiles outside a block's documents are never loaded.
constexpr KeyRange in_document(KeyRange r, const std::size_t* doc_begin, const std::size_t* doc_end,
                               std::size_t i) noexcept {
    if (!doc_begin) return r;
    const std::size_t b = r.begin > doc_begin[i] ? r.begin : doc_begin[i];
    const std::size_t e = r.end < doc_end[i] ? r.end : doc_end[i];
    return {b < e ? b : e, e};
}

// The same for query row i of a Tq×Tk problem at the alignment's own offset (causal_offset).
constexpr std::size_t visible_keys(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk,
                                   std::size_t key_limit) noexcept {
    return visible_keys_at(causal, (long long)i + causal_offset(causal, Tq, Tk), Tk, key_limit);
}
constexpr KeyRange visible_range(Causal causal, KeyWindow window, std::size_t i, std::size_t Tq, std::size_t Tk,
                                 std::size_t key_limit, std::size_t key_first = 0) noexcept {
    return keys_at(causal, window, (long long)i + causal_offset(causal, Tq, Tk), Tk, key_limit, key_first);
}

// A row's log-sum-exp from its softmax's running max m and sum l = Σ exp(x − m): m + ln l,
// in double and rounded once; -inf for a fully masked row (l = 0), NaN where l is NaN (a score
// that overflowed to +inf gives exp(inf − inf): the overflow is reported, not a masked row).
// The one definition for the fused, split-K and materialised paths (--show lse, attn merge).
inline float log_sum_exp(float m, double l) noexcept {
    if (l != l) return std::numeric_limits<float>::quiet_NaN();
    return l > 0.0 ? float(double(m) + std::log(l)) : -std::numeric_limits<float>::infinity();
}

// The fused and split-K kernels fold a softcap's 1/c into the query when c ≥ 1: the factor of
// q·k is scale/c, and the capped score c·tanh(q·k·(scale/c)) needs no multiply per score
// (softcapped fused attention at T=4096, d=64, 2 threads: 1.12× → 1.10× the plain run). Only
// for c ≥ 1, where |scale/c| ≤ |scale| and no score overflows that did not: below 1, x/c may
// overflow where x does not (an overflow is reported, a large x is capped), so the kernels
// keep c·tanh(x·(1/c)) per score, as the materialised path always does. One definition for
// the scalar and vector kernels, so that they round alike.
constexpr bool softcap_folded(float softcap) noexcept { return softcap >= 1.0f; }
constexpr float query_scale(float scale, float softcap) noexcept {
    return softcap_folded(softcap) ? scale / softcap : scale;
}

// The materialised path scales Q·Kᵀ after the product, so a product that overflowed to −inf
// reads as a masked key, weight 0. That is float32's weight (below 2^−150 of another key's)
// unless the scale is tiny: the overflowed product is at least half a unit of FLT_MAX (1e31)
// beyond any finite one, so its scaled score trails theirs by at least |scale|·1e31, which is
// within e^104 only for |scale| < 1e−29 (--scale 1e−38 over products of 1e39: weight 4.5e−5 given
// as 0). Under such a scale a product that overflowed becomes NaN, which makes its row NaN and is
// reported as the inputs' overflow. (+inf is NaN after the max's subtraction in any case; the
// fused kernels fold the scale into Q first.) One rule for every arch.
constexpr bool overflowed_product_is_nan(float scale) noexcept { return scale < 1e-29f && scale > -1e-29f; }

// The weight each of the `cols` entries of a fully masked row gets under `fill`.
constexpr float masked_row_weight(MaskedRowPolicy fill, std::size_t cols) noexcept {
    return fill == MaskedRowPolicy::zero  ? 0.0f
           : fill == MaskedRowPolicy::nan ? std::numeric_limits<float>::quiet_NaN()
                                        : 1.0f / float(cols);
}

}  // namespace

}  // namespace attn::kernels
