// The three schedules of the engine over a resolved problem (attention/problem.hpp): fused
// (attention/fused.cpp), materialised (attention/materialised.cpp) and split-K decoding
// (attention/decoding.cpp). Each returns the number of fully masked rows it computed.
#pragma once
#include <cstddef>

#include "attention/problem.hpp"

namespace attn::engine {

// One (b, h) of the materialised path: scores, scaled, normalised weights, context.
struct MaterialisedOut {
    Tensor *scores, *scaled, *weights, *context;
};


std::size_t run_fused(const Problem& p, const AttentionSpec& spec, Tensor& context);
std::size_t run_materialised(const Problem& p, const AttentionSpec& spec, const MaterialisedOut& out);
// Mean over heads: ([B',] Tq', Tk) from ([B',] H, Tq', Tk) weights, summed in head order.
Tensor mean_over_heads(const Tensor& weights, const Problem& p);
std::size_t run_split_keys(const Problem& p, const AttentionSpec& spec, Tensor& context);

}  // namespace attn::engine
