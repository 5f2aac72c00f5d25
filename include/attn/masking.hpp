// The masking vocabulary, in one place: which keys a query may attend to, and what a query
// row gets when it may attend to none. The library, diagnostics and pictures decide "is key j
// allowed for query i" through these definitions; the causal rule and the key limit forward
// to the kernels' one definition of them (src/kernels/kernel_types.hpp).
//
// Key j is allowed for query i (0-based, i < Tq, j < Tk) when all of these hold:
//   - the causal rule:   j < causal_visible(causal, i, Tq, Tk);
//   - the window:        p − left ≤ j ≤ p + right (visible_range; p = i + Tk − Tq for
//                        bottom-right causal, else i; a resolved problem's p = i + its batch
//                        item's causal offset, AttentionProblem::position);
//   - the key limit:     j < key_limit (a sequence's length: keys past it are padding);
//   - the mask:          no mask, or mask(i, j) != 0;
//   - the bias:          no bias, or bias(i, j) is not infinite (-inf = masked).
// i is always the global row index: a computation over query rows [A, B) uses the same
// limits as the whole run, so its rows are the same.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>

#include "attn/mask_bits.hpp"
#include "attn/matrix.hpp"

namespace attn {

enum class Causal { none, top_left, bottom_right };
enum class MaskedRowPolicy { zero, nan, uniform };  // what a fully masked query row gets
enum class Normalization { softmax, sum };

inline constexpr std::size_t no_key_limit = std::numeric_limits<std::size_t>::max();

// A sliding window, ONNX's left and right sizes: the query at position p sees key j iff
// p − left ≤ j ≤ p + right. `unbounded` on a side bounds nothing there, so Window{W − 1} with
// the causal rule is Mistral's sliding_window = W. p follows the causal offset in use.
inline constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();
struct Window {
    std::size_t left = unbounded, right = unbounded;
    bool bounded() const noexcept { return left != unbounded || right != unbounded; }
};
// Keys [begin, end); begin == end when there are none.
struct KeyRange {
    std::size_t begin = 0, end = 0;
};

// Number of leading keys query row i may see under the causal rule (all Tk when none).
// top_left: j <= i; bottom_right: j <= i + (Tk - Tq). Clamped to [0, Tk].
// (Defined out of line, in src/attention/masking.cpp, on the kernels' rule.)
std::size_t causal_visible(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk) noexcept;

// Leading keys query row i may see under the causal rule and a key limit: every key at or
// past this index is masked, whatever the mask or bias say.
std::size_t visible_keys(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk,
                         std::size_t key_limit) noexcept;

// The keys query row i may see under the causal rule, the window and a key limit: every key
// outside [begin, end) is masked, whatever the mask or bias say. Both ends are
// non-decreasing in i. Keys before key_first are outside the key rows computed (a key shard).
// (On the kernels' rule, as visible_keys.)
KeyRange visible_range(Causal causal, Window window, std::size_t i, std::size_t Tq, std::size_t Tk,
                       std::size_t key_limit, std::size_t key_first = 0) noexcept;

// mask_allows, the mask's rule for one entry, is defined in attn/mask_bits.hpp (the tensor
// layer, which packs masks into bits with it).

// The whole rule for one cell, given the row's visible_keys and the mask / bias rows
// (nullable; indexed by key).
inline bool is_allowed(std::size_t j, std::size_t visible, const float* mask_row, const float* bias_row) noexcept {
    return j < visible && (!mask_row || mask_allows(mask_row[j])) &&
           (!bias_row || bias_row[j] != -std::numeric_limits<float>::infinity());
}

// Everything that shapes the score matrix before normalisation.
struct ScoreMask {
    float scale = 1.0f;
    Causal causal = Causal::none;
    const Matrix* mask = nullptr;  // Tq×Tk, nonzero = may attend
    const Matrix* bias = nullptr;  // Tq×Tk, added after scaling; -inf allowed
};

// The rule for one cell of a 2-D problem under sm.
bool is_allowed(const ScoreMask& sm, std::size_t i, std::size_t j, std::size_t Tq, std::size_t Tk) noexcept;
// How many keys query row i may attend to under sm; 0 means the row is fully masked.
std::size_t allowed_keys(const ScoreMask& sm, std::size_t i, std::size_t Tq, std::size_t Tk) noexcept;

// What a fully masked row of `cols` weights holds under `policy` (uniform = 1/cols).
inline float masked_row_weight(MaskedRowPolicy policy, std::size_t cols) noexcept {
    return policy == MaskedRowPolicy::zero  ? 0.0f
           : policy == MaskedRowPolicy::nan ? std::numeric_limits<float>::quiet_NaN()
                                            : 1.0f / float(cols);
}

}  // namespace attn
