// The batched multi-head engine (attn/multihead.hpp): resolves the problem once
// (attention/problem.hpp) and runs one of the three schedules (attention/schedules.hpp).
#include "attn/multihead.hpp"

#include <algorithm>

#include "attn/ops.hpp"
#include "attention/schedules.hpp"

namespace attn {

using engine::MaterialisedOut;
using engine::run_fused;
using engine::run_materialised;
using engine::run_split_keys;
using engine::mean_over_heads;

std::size_t split_key_chunk(std::size_t dk, std::size_t dv, std::size_t kv_bytes) noexcept {
    // About 128 KiB of K and V rows per chunk: long enough to stream, short enough that a
    // decode step over a few thousand keys still has work for every thread. float16 K/V
    // gets twice the keys (the same bytes).
    const std::size_t keys = 131072 / std::max<std::size_t>((dk + dv) * kv_bytes, 1) / 64 * 64;
    return std::clamp<std::size_t>(keys, 64, 1024);
}

namespace {

// A float16 operand widened to float32 (the materialised path reads float32 K/V only).
Operand widened(const Operand& o, Role role, Tensor& storage) {
    KVView v;
    v.type = o.type;
    v.data = o.data;
    v.shape = o.shape;
    const std::size_t r = o.shape.rank();
    v.strides[r - 1] = 1, v.strides[r - 2] = o.sT;
    if (r >= 3) v.strides[r - 3] = o.sH;
    if (r == 4) v.strides[0] = o.sB;
    storage = to_float(v);
    return operand_of(storage.view(), role);
}

}  // namespace

BatchedAttention batched_attention(const AttentionProblem& problem, const AttentionWants& wants) {
    const bool materialise = wants.scores || wants.scaled || wants.capped || wants.weights || wants.weights_mean ||
                             problem.normalize != Normalization::softmax;
    // The fused and decoding kernels read float16 K/V as they are, but both K and V of one
    // type; the materialised path (Tq×Tk matrices anyway) widens them once.
    const bool half = problem.k.type == ElementType::f16 || problem.v.type == ElementType::f16;
    if (half && (materialise || problem.k.type != problem.v.type)) {
        AttentionProblem p = problem;
        Tensor k, v;
        p.k = widened(problem.k, Role::keys, k);
        p.v = widened(problem.v, Role::values, v);
        return batched_attention(p, wants);
    }
    const AttentionProblem& p = problem;
    BatchedAttention r;
    r.batch = p.B, r.heads = p.H, r.kv_heads = p.G;
    const std::size_t rows = p.r1 - p.r0;
    if (!materialise) {
        if (!wants.context) return r;
        // Both kernels write every element of every row (the masked-row policy included): a
        // zero-fill first would only fault the pages in on this thread, before the others start.
        r.context = Tensor(p.result_shape(true, rows, p.dv), Tensor::Uninitialized{});
        r.split_keys = p.Tq <= decode_max_rows;
        r.masked_rows = r.split_keys ? run_split_keys(p, r.context) : run_fused(p, r.context);
        r.fused = true;
        return r;
    }
    // Every element of these is written once by run_materialised: no zero-fill before.
    const Tensor::Uninitialized unset;
    if (wants.scores) r.scores = Tensor(p.result_shape(true, rows, p.Tk), unset);
    if (wants.scaled) r.scaled = Tensor(p.result_shape(true, rows, p.Tk), unset);
    if (wants.capped) r.capped = Tensor(p.result_shape(true, rows, p.Tk), unset);
    if (wants.weights || wants.weights_mean) r.weights = Tensor(p.result_shape(true, rows, p.Tk), unset);
    if (wants.context) r.context = Tensor(p.result_shape(true, rows, p.dv), unset);
    const MaterialisedOut out{wants.scores ? &r.scores : nullptr, wants.scaled ? &r.scaled : nullptr,
                              r.weights.rank() ? &r.weights : nullptr, wants.context ? &r.context : nullptr,
                              wants.capped ? &r.capped : nullptr};
    r.masked_rows = run_materialised(p, out);
    if (wants.weights_mean) r.weights_mean = mean_over_heads(r.weights, p);
    if (!wants.weights) r.weights = Tensor();
    return r;
}

BatchedAttention batched_attention(const TensorView& Q, const KVView& K, const KVView& V,
                                   const AttentionSpec& spec, const AttentionWants& wants) {
    return batched_attention(resolve_attention(Q, K, V, spec), wants);
}

}  // namespace attn
