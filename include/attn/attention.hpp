// The attention pipeline: project → score → scale/bias/mask → normalise → mix. The CLI
// only wires inputs into these functions; all numeric work goes through attn/ops.hpp.
#pragma once
#include <cstddef>

#include "attn/matrix.hpp"
#include "attn/ops.hpp"

namespace attn {

struct Projections {
    Matrix queries, keys, values;
};

// Q = X·W_q, K = X·W_k, V = X·W_v; a null projection is the identity (the copy of X).
// Throws InputError on inner-dimension mismatch, naming the options.
Projections project(const Matrix& X, const Matrix* Wq, const Matrix* Wk, const Matrix* Wv);

struct AttentionOptions {
    // scale (applied as given: the default 1 is no scaling; set 1/sqrt(d_k) for scaled
    // attention, which batched_attention's AttentionSpec::scale does when left unset), causal,
    // mask, bias
    ScoreMask score_mask;
    Normalization normalize = Normalization::softmax;
    MaskedRowPolicy masked_rows = MaskedRowPolicy::zero;
};

// Which intermediates the caller wants kept. When none of scores/scaled/weights is wanted
// and normalisation is softmax, the fused streaming path computes the context directly.
struct AttentionWants {
    bool scores = false, scaled = false, weights = false, context = true;
    bool weights_mean = false;  // weights averaged over heads (batched_attention only)
    bool capped = false;        // cap(scale·Q·Kᵀ) before the bias, unmasked (batched_attention only)
    bool lse = false;           // each row's log-sum-exp, softmax only (batched_attention only)
};

struct AttentionResult {
    Matrix scores;   // raw Q·Kᵀ (no scale, no mask)          — when wanted
    Matrix scaled;   // scale·Q·Kᵀ + bias, masked = -inf      — when wanted
    Matrix weights;  // normalised rows                        — when wanted
    Matrix context;  // weights·V                              — when wanted
    std::size_t masked_rows = 0;  // query rows with every key masked
    bool fused = false;           // computed by the streaming path
};

// allowed_keys (how many keys query row i may attend to) is in attn/masking.hpp.

// Checks shapes (d_k of Q and K, Tk of K and V, mask/bias Tq×Tk), then computes.
AttentionResult attend(const Matrix& Q, const Matrix& K, const Matrix& V, const AttentionOptions& opt,
                       const AttentionWants& wants);

}  // namespace attn
