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
// K and V elements: float32, or IEEE float16 widened to float32 a tile at a time.
enum class ElementType : unsigned char { f32, f16 };

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

// Number of leading keys query row i (0-based, i < Tq) may see: the causal rule, clamped to
// [0, Tk], then the key limit (a sequence's length: keys at or past it are padding). Every
// key at or past this index is masked, whatever the mask or bias say. Non-decreasing in i.
constexpr std::size_t visible_keys(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk,
                                   std::size_t key_limit) noexcept {
    std::size_t visible = Tk;
    if (causal == Causal::top_left) {
        visible = i + 1 < Tk ? i + 1 : Tk;
    } else if (causal == Causal::bottom_right) {
        // j <= i + (Tk - Tq)  ⇔  visible = i + 1 + Tk - Tq, clamped to [0, Tk]
        const long long v = (long long)i + 1 + (long long)Tk - (long long)Tq;
        visible = v <= 0 ? 0 : std::size_t(v) < Tk ? std::size_t(v) : Tk;
    }
    return visible < key_limit ? visible : key_limit;
}

// The position p of query row i among the keys (key j sits at position j): it follows the
// causal offset in use (bottom_right: p = i + Tk − Tq; otherwise p = i). The one definition
// for the window (visible_range), ALiBi's distance j − p and RoPE's query angles.
constexpr long long query_position(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk) noexcept {
    return (long long)i + (causal == Causal::bottom_right ? (long long)Tk - (long long)Tq : 0);
}

// The keys query row i may see: visible_keys's limit, narrowed by the window around the
// query's position p (query_position), and by key_first: keys before it are outside the key rows
// computed (a key shard [key_first, key_limit) of the whole run, --key-rows; the shard's end is
// part of the key limit). Both ends are non-decreasing in i, clamped to [0, Tk], begin ≤ end.
constexpr KeyRange visible_range(Causal causal, KeyWindow window, std::size_t i, std::size_t Tq, std::size_t Tk,
                                 std::size_t key_limit, std::size_t key_first = 0) noexcept {
    std::size_t end = visible_keys(causal, i, Tq, Tk, key_limit);
    end = end < Tk ? end : Tk;
    const long long p = query_position(causal, i, Tq, Tk);
    // A side wider than Tk + Tq bounds nothing (p is in [−Tq, Tk + Tq)): capped, no overflow.
    const long long span = (long long)Tk + (long long)Tq;
    const long long left = window.left < std::size_t(span) ? (long long)window.left : span;
    const long long right = window.right < std::size_t(span) ? (long long)window.right : span;
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

// A row's log-sum-exp from its softmax's running max m and sum l = Σ exp(x − m): m + ln l,
// in double and rounded once; -inf for a fully masked row (l = 0). The one definition for the
// fused, split-K and materialised paths (--show lse, attn merge).
inline float log_sum_exp(float m, double l) noexcept {
    return l > 0.0 ? float(double(m) + std::log(l)) : -std::numeric_limits<float>::infinity();
}

// The weight each of the `cols` entries of a fully masked row gets under `fill`.
constexpr float masked_row_weight(MaskedRowPolicy fill, std::size_t cols) noexcept {
    return fill == MaskedRowPolicy::zero  ? 0.0f
           : fill == MaskedRowPolicy::nan ? std::numeric_limits<float>::quiet_NaN()
                                        : 1.0f / float(cols);
}

}  // namespace

}  // namespace attn::kernels
