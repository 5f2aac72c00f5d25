// The three schedules of the engine over a resolved problem (attn/problem.hpp): fused
// (attention/fused.cpp), materialised (attention/materialised.cpp) and split-K decoding
// (attention/decoding.cpp). Each returns the number of fully masked rows it computed.
#pragma once
#include <cstddef>

#include "attn/multihead.hpp"
#include "attn/problem.hpp"

namespace attn::engine {

// The (b, h) slice of a result shaped by p.result_shape (global b).
inline float* slice_of(Tensor& t, const AttentionProblem& p, std::size_t b, std::size_t h) {
    return t.slice_data(p.result_slice(b, h));
}
// The (b, h) row of the log-sum-exp result ([B',] [H,] Tq'), or null when it is not wanted.
inline float* lse_of(Tensor* lse, const AttentionProblem& p, std::size_t b, std::size_t h) {
    return lse ? lse->data() + p.result_slice(b, h) * lse->row_stride() : nullptr;
}

// One (b, h) of the materialised path: scores, scaled, normalised weights, context.
struct MaterialisedOut {
    Tensor *scores, *scaled, *weights, *context;
    Tensor* capped = nullptr;
    Tensor* lse = nullptr;
};

// lse (nullable): each row's log-sum-exp, ([B',] [H,] Tq') as lse_of reads it.
std::size_t run_fused(const AttentionProblem& p, Tensor& context, Tensor* lse = nullptr);
std::size_t run_materialised(const AttentionProblem& p, const MaterialisedOut& out);
// Mean over heads: ([B',] Tq', Tk) from ([B',] H, Tq', Tk) weights, summed in head order.
Tensor mean_over_heads(const Tensor& weights, const AttentionProblem& p);
std::size_t run_split_keys(const AttentionProblem& p, Tensor& context, Tensor* lse = nullptr);

// A float16 operand widened to float32 into `storage` (engine.cpp).
Operand widened(const Operand& o, Role role, Tensor& storage);

}  // namespace attn::engine
