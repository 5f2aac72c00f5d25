// The score functions other than dot (attn/problem.hpp's ScoreFunction) in the kernels' terms,
// once per call, before any schedule runs:
//   general   Q' = Q·W_a (d_k columns): then s = q'·k, a dot product on every schedule;
//   cosine    Q and K with unit rows (a zero row stays zero): then s = q̂·k̂, a dot product;
//   additive  Q' = Q·W_q and K' = K·W_k (h columns): the materialised schedule scores them with
//             the additive kernel (kernels/additive.hpp) instead of Q·Kᵀ; the epilogue (scale,
//             softcap, bias, masks, softmax) and ·V are the dot product's.
// Only the inputs change: masks, ranges, heads and results are the problem's as resolved.
#pragma once
#include <cstddef>

#include "attn/problem.hpp"
#include "attn/tensor.hpp"

namespace attn::engine {

// The storage of a problem's transformed Q and K.
struct ScoreInputs {
    Tensor q, k, k_widened;
};

// Whether `p` still has a score function to bring to the kernels' terms.
bool needs_score_inputs(const AttentionProblem& p) noexcept;

// `p` with Q (and K) transformed as above, stored in `storage`: score dot for general and
// cosine; additive with its projections applied (wa_q, wa_k cleared, dk = h).
AttentionProblem score_inputs(const AttentionProblem& p, ScoreInputs& storage);

// The additive scores of rows q (m×h, the projected queries) against kt (h×Tk, the projected
// keys transposed) into s (m×Tk, lds), over threads in blocks of rows (the same bits for any
// thread count).
void additive_scores_into(const AttentionProblem& p, const MatrixView& q, const MatrixView& kt, float* s,
                          std::size_t lds);

}  // namespace attn::engine
