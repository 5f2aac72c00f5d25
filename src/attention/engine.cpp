// The batched multi-head engine (attn/multihead.hpp): resolves the problem once
// (attention/problem.hpp) and runs one of the three schedules (attention/schedules.hpp), after
// RoPE's pre-pass (attention/rope.hpp) when the problem has one.
#include "attn/multihead.hpp"

#include <algorithm>

#include "attn/ops.hpp"
#include "attention/rope.hpp"
#include "attention/schedules.hpp"
#include "attention/score_functions.hpp"

namespace attn {

using engine::MaterialisedOut;
using engine::run_fused;
using engine::run_materialised;
using engine::run_split_keys;
using engine::mean_over_heads;
using engine::with_rope;
using engine::widened;

std::size_t split_key_chunk(std::size_t Tk, std::size_t dk, std::size_t dv, std::size_t kv_bytes) noexcept {
    // About 1 MiB of K and V rows per chunk (float16 K/V gets twice the keys): each thread
    // reads long runs of each, and a run's start costs the hardware prefetchers their ramp-up
    // (measured, AMD EPYC, 1x8x1x32768, d=128, f32, 2 threads, calls of both alternating in one
    // process: 128 KiB chunks took 1.24x the CPU time of 1 MiB ones). At most Tk/16 keys, so
    // that a decode step over a few thousand keys still has work for every thread: the chunks
    // depend on the shapes only, never on the thread count.
    const std::size_t keys = (std::size_t(1) << 20) / std::max<std::size_t>((dk + dv) * kv_bytes, 1);
    return std::clamp<std::size_t>(std::min(keys, Tk / 16) / 64 * 64, 64, 4096);
}

namespace engine {

// A float16, bfloat16 or q8_0 operand widened to float32 (the materialised path reads float32 K/V only).
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

}  // namespace engine

BatchedAttention batched_attention(const AttentionProblem& problem, const AttentionWants& wants) {
    if (problem.rope.theta != 0.0f) {  // RoPE: Q and K rotated first (attention/rope.hpp)
        engine::RopeStore store;
        return batched_attention(with_rope(problem, store), wants);
    }
    // General, cosine and additive scores: Q and K transformed once (attention/score_functions.hpp).
    if (engine::needs_score_inputs(problem)) {
        engine::ScoreInputs storage;
        return batched_attention(engine::score_inputs(problem, storage), wants);
    }
    // Additive scores are a Tq×Tk matrix of their own kernel: the materialised path.
    const bool materialise = wants.scores || wants.scaled || wants.capped || wants.weights || wants.weights_mean ||
                             problem.normalize != Normalization::softmax || problem.score == ScoreFunction::additive ||
                             problem.softmax_f64;
    // The fused and decoding kernels read float16, bfloat16 and q8_0 K/V as they are, but both
    // K and V of one type; the materialised path (Tq×Tk matrices anyway) widens them once.
    const bool half = problem.k.type != ElementType::f32 || problem.v.type != ElementType::f32;
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
    if (wants.lse) {
        if (p.normalize != Normalization::softmax)
            throw InputError("the log-sum-exp of a row is the softmax's: it has none with normalisation by the sum");
        std::vector<std::size_t> dims = p.result_shape(true, rows, 1).to_vector();
        dims.pop_back();
        r.lse = Tensor(Shape(dims), Tensor::Uninitialized{});  // every row written by the schedule
    }
    Tensor* lse = wants.lse ? &r.lse : nullptr;
    if (!materialise) {
        if (!wants.context && !wants.lse) return r;
        // Both kernels write every element of every row (the masked-row policy included): a
        // zero-fill first would only fault the pages in on this thread, before the others start.
        r.context = Tensor(p.result_shape(true, rows, p.dv), Tensor::Uninitialized{});
        r.split_keys = p.Tq <= decode_max_rows;
        r.masked_rows = r.split_keys ? run_split_keys(p, r.context, lse) : run_fused(p, r.context, lse);
        if (!wants.context) r.context = Tensor();
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
                              wants.capped ? &r.capped : nullptr, lse};
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
