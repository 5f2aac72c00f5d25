// The materialised schedule: Q·Kᵀ (or the additive scores), the score epilogue, normalisation and ·V per (batch item,
// head, block of rows), the Tq×Tk results kept when wanted.
#include "attention/schedules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "attention/score_functions.hpp"
#include "kernels/kernel_api.hpp"
#include "arch/kernel_table.hpp"
#include "runtime/parallel.hpp"
#include "runtime/system_memory.hpp"

namespace attn::engine {

namespace {

// 1 MiB, so that the scores a unit writes are still in L2 when its softmax and ·V read
// them. Each row is computed the same way in any block (the GEMM's edge tiles compute like
// full ones; the epilogue is row by row), so the choice never changes the bits.
std::size_t materialised_rows_per_unit(std::size_t Tk) {
    const std::size_t rows = (std::size_t(1) << 20) / std::max<std::size_t>(Tk, 1);
    return std::clamp<std::size_t>(rows / 16 * 16, 16, 256);
}

// Per-thread scratch for the weights of a unit when they are not kept: grown when needed,
// never zero-filled, reused by every later unit and call on this thread.
float* thread_scratch(std::size_t floats) {
    thread_local std::unique_ptr<float[]> buffer;
    thread_local std::size_t size = 0;
    if (floats > size) {
        check_available(floats * sizeof(float));
        buffer.reset(new float[floats]);
        size = floats;
    }
    return buffer.get();
}

// The scale/bias/mask epilogue (and the softmax when asked) over rows [i0, i1) (indices into
// the computed rows), split over threads in blocks of rows (serially inside a unit).
std::size_t score_epilogue(const AttentionProblem& p, std::size_t b, std::size_t h, std::size_t i0,
                           std::size_t i1, const float* s, std::size_t lds, float* scaled, std::size_t ld_scaled,
                           float* capped, std::size_t ld_capped, float* w, std::size_t ldw, float* lse) {
    constexpr std::size_t rows_per_block = 32;
    const std::size_t blocks = (i1 - i0 + rows_per_block - 1) / rows_per_block;
    std::vector<std::size_t> masked(blocks, 0);
    const auto epilogue = kernels::table_of(current_arch()).score_epilogue;
    parallel_for(blocks, [&](std::size_t blk) {
        const std::size_t r0 = blk * rows_per_block, r1 = std::min(i1 - i0, r0 + rows_per_block);
        kernels::ScoreEpilogueArgs a{};
        a.S = s + r0 * lds, a.lds = lds;
        a.scaled = scaled ? scaled + r0 * ld_scaled : nullptr, a.ld_scaled = ld_scaled;
        a.capped = capped ? capped + r0 * ld_capped : nullptr, a.ld_capped = ld_capped;
        a.P = w + r0 * ldw, a.ldp = ldw;
        a.Tq = p.Tq, a.Tk = p.Tk;
        a.row_begin = p.r0 + i0 + r0, a.row_end = p.r0 + i0 + r1;
        a.scale = p.scale;
        a.causal = to_kernel(p.causal);
        a.window = to_kernel(p.window);
        a.softcap = p.softcap;
        a.alibi_slope = p.alibi_slopes.empty() ? 0.0f : p.alibi_slopes[h];
        a.sink = p.sink(h);
        a.doc_begin = p.doc_begin(b), a.doc_end = p.doc_end(b);
        a.key_limit = p.key_limit(b), a.key_first = p.k0, a.offset = p.offset(b);
        if (lse) a.lse = lse + i0 + r0;
        if (p.has_mask) a.mask = p.mask_words.at(b, h), a.ldm = p.mask_words.sT;
        if (p.has_bias) a.bias = p.bias.at(b, h), a.ldb = p.bias.sT;
        a.softmax = p.normalize == Normalization::softmax && !p.softmax_f64;
        a.policy = to_kernel(p.masked_rows);
        masked[blk] = epilogue(a);
    });
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

// softmax_f64: each row's softmax in double (ONNX's softmax_precision = 11) over the masked
// logits x (-inf masked), the weights rounded once, the sink (-inf: none) in the denominator as
// the float32 softmax has it; a fully masked row without a sink follows the policy.
// Returns the number of fully masked rows; lse (nullable) gets each row's log-sum-exp.
std::size_t softmax_rows_f64(float* x, std::size_t ld, std::size_t rows, std::size_t cols, MaskedRowPolicy policy,
                             float sink, float* lse) {
    std::size_t masked = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        float* row = x + i * ld;
        double m = double(sink);  // -inf without a sink; with one, a row of masked keys gets weights 0
        for (std::size_t j = 0; j < cols; ++j) m = std::max(m, double(row[j]));
        if (m == -std::numeric_limits<double>::infinity()) {
            ++masked;
            const float fill = kernels::masked_row_weight(to_kernel(policy), cols);
            for (std::size_t j = 0; j < cols; ++j) row[j] = fill;
            if (lse) lse[i] = -std::numeric_limits<float>::infinity();
            continue;
        }
        double sum = std::exp(double(sink) - m);  // the sink's term of the denominator (0 without one)
        for (std::size_t j = 0; j < cols; ++j) sum += std::exp(double(row[j]) - m);
        for (std::size_t j = 0; j < cols; ++j) row[j] = float(std::exp(double(row[j]) - m) / sum);
        if (lse) lse[i] = float(m + std::log(sum));
    }
    return masked;
}

// Rows [i0, i1) (indices into the computed rows r0…r1) of one (b, h) of the materialised
// path: Q·Kᵀ into the scores (when kept) or straight into the weights, the vector epilogue
// (scale, bias, mask, softmax; the scaled scores copied out on the way), ·V. Every element
// of the kept results is written exactly once.
std::size_t run_materialised_rows(const AttentionProblem& p, std::size_t b, std::size_t h,
                                  std::size_t i0, std::size_t i1, const MatrixView& kt, const MaterialisedOut& out) {
    const std::size_t rows = i1 - i0, kv = p.kv_head(h);
    const MatrixView q{p.q.at(b, h) + (p.r0 + i0) * p.q.sT, rows, p.dk, p.q.sT};
    const MatrixView v{p.v.at(b, kv), p.Tk, p.dv, p.v.sT};
    // The working rows: the weights result when kept, else this thread's scratch.
    float* w;
    std::size_t ldw;
    if (out.weights) {
        ldw = out.weights->row_stride(), w = slice_of(*out.weights, p, b, h) + i0 * ldw;
    } else {
        ldw = Matrix::padded_stride(p.Tk), w = thread_scratch(rows * ldw);
    }
    const std::size_t lds = out.scores ? out.scores->row_stride() : ldw;
    float* s = out.scores ? slice_of(*out.scores, p, b, h) + i0 * lds : w;
    if (p.score == ScoreFunction::additive) additive_scores_into(p, q, kt, s, lds);  // kt: K·W_k transposed
    else matmul_into(q, kt, /*transpose_b=*/false, s, lds);
    const std::size_t ld_scaled = out.scaled ? out.scaled->row_stride() : 0;
    float* scaled = out.scaled ? slice_of(*out.scaled, p, b, h) + i0 * ld_scaled : nullptr;
    const std::size_t ld_capped = out.capped ? out.capped->row_stride() : 0;
    float* capped = out.capped ? slice_of(*out.capped, p, b, h) + i0 * ld_capped : nullptr;
    std::size_t masked = score_epilogue(p, b, h, i0, i1, s, lds, scaled, ld_scaled, capped, ld_capped, w, ldw,
                                        lse_of(out.lse, p, b, h));
    if (p.softmax_f64) {  // rows i0… of the slice's lse (score_epilogue offsets its own)
        float* lse = lse_of(out.lse, p, b, h);
        masked = softmax_rows_f64(w, ldw, rows, p.Tk, p.masked_rows, p.sink(h), lse ? lse + i0 : nullptr);
    }
    else if (p.normalize != Normalization::softmax)
        masked = normalize_rows(w, ldw, rows, p.Tk, p.normalize, p.masked_rows);
    if (out.context) {
        const std::size_t ldc = out.context->row_stride();
        matmul_into({w, rows, p.Tk, ldw}, v, false, slice_of(*out.context, p, b, h) + i0 * ldc, ldc);
    }
    return masked;
}

// Kᵀ (dk×Tk) of every distinct K slice the (batch item, K/V head) pairs read, transposed
// once: every unit's GEMM then packs Kᵀ with vector copies instead of transposing K again
// (the same packed values, so the same bits as Q·Kᵀ from K).
struct TransposedKeys {
    std::vector<std::size_t> slot;  // (b - b0)·G + g → index of its Kᵀ
    std::size_t ld = 0;
    std::unique_ptr<float[]> data;

    explicit TransposedKeys(const AttentionProblem& p) : slot((p.b1 - p.b0) * p.G), ld(Matrix::padded_stride(p.Tk)) {
        std::vector<const float*> keys;
        std::unordered_map<const float*, std::size_t> index;  // K's slot (400,000 heads: a search each took 28 s)
        for (std::size_t b = p.b0; b < p.b1; ++b)
            for (std::size_t g = 0; g < p.G; ++g) {
                const float* k = p.k.at(b, g);
                const auto [it, added] = index.emplace(k, keys.size());
                slot[(b - p.b0) * p.G + g] = it->second;
                if (added) keys.push_back(k);
            }
        const std::size_t floats = std::max<std::size_t>(1, keys.size() * p.dk * ld);
        check_available(floats * sizeof(float));
        data.reset(new float[floats]);
        parallel_for(keys.size(), [&](std::size_t u) {
            float* kt = data.get() + u * p.dk * ld;
            constexpr std::size_t block = 16;  // keys per step: the reads of K stay in cache lines
            for (std::size_t j0 = 0; j0 < p.Tk; j0 += block) {
                const std::size_t j1 = std::min(p.Tk, j0 + block);
                for (std::size_t d = 0; d < p.dk; ++d)
                    for (std::size_t j = j0; j < j1; ++j) kt[d * ld + j] = keys[u][j * p.k.sT + d];
            }
        });
    }
    MatrixView of(const AttentionProblem& p, std::size_t b, std::size_t g) const {
        return {data.get() + slot[(b - p.b0) * p.G + g] * p.dk * ld, p.dk, p.Tk, ld};
    }
};

}  // namespace

std::size_t run_materialised(const AttentionProblem& p, const MaterialisedOut& out) {
    const std::size_t rows = p.r1 - p.r0;
    const TransposedKeys kt(p);
    // Softmax: units of (b, h, block of rows), all handed out to the threads (each unit's
    // kernels run serially), the scores of a unit going through the epilogue and ·V while
    // they are in cache. Normalisation by the sum: whole (b, h) units, so that a zero row
    // sum is reported with its row number in the (b, h).
    const std::size_t rpu = p.normalize == Normalization::softmax ? materialised_rows_per_unit(p.Tk)
                                                                     : std::max<std::size_t>(rows, 1);
    const std::size_t blocks = std::max<std::size_t>(1, (rows + rpu - 1) / rpu);
    const std::size_t units = (p.b1 - p.b0) * p.H * blocks;
    std::vector<std::size_t> masked(units, 0);
    // A failure (a zero row sum) is reported for the first (b, h) that has one, whatever the
    // thread count, and names it when there is more than one.
    std::vector<std::string> failure(units);
    auto one = [&](std::size_t u) {
        const std::size_t blk = u % blocks, b = p.b0 + u / blocks / p.H, h = u / blocks % p.H;
        const std::size_t i0 = std::min(rows, blk * rpu), i1 = std::min(rows, i0 + rpu);
        try {
            masked[u] = run_materialised_rows(p, b, h, i0, i1, kt.of(p, b, p.kv_head(h)), out);
        } catch (const RuntimeFailure& e) {
            std::string where;
            if (p.batch_dim) where += "batch item " + std::to_string(b);
            if (p.head_dim) where += (where.empty() ? "head " : ", head ") + std::to_string(h);
            failure[u] = where.empty() ? e.what() : where + ": " + e.what();
        }
    };
    // Many units: one per thread (the kernels inside run serially); few: one after the
    // other, each split over the threads. The bits are the same either way.
    if (units >= 2 * std::size_t(current_threads())) {
        parallel_for(units, one);
    } else {
        for (std::size_t u = 0; u < units; ++u) one(u);
    }
    for (const std::string& f : failure)
        if (!f.empty()) throw RuntimeFailure(f);
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

Tensor mean_over_heads(const Tensor& weights, const AttentionProblem& p) {
    std::vector<std::size_t> dims;
    if (p.batch_dim) dims.push_back(p.b1 - p.b0);
    dims.push_back(p.r1 - p.r0);
    dims.push_back(p.Tk);
    Tensor mean(Shape(dims), Tensor::Uninitialized{});  // head 0 writes every element
    const std::size_t rows = p.r1 - p.r0, ld = weights.row_stride();
    const float inv = 1.0f / float(p.H);
    parallel_for(p.b1 - p.b0, [&](std::size_t bi) {
        float* dst = mean.slice_data(bi);
        for (std::size_t h = 0; h < p.H; ++h) {
            const float* src = weights.slice_data(bi * (p.head_dim ? p.H : 1) + (p.head_dim ? h : 0));
            for (std::size_t i = 0; i < rows; ++i)
                for (std::size_t j = 0; j < p.Tk; ++j)
                    dst[i * ld + j] = h == 0 ? src[i * ld + j] : dst[i * ld + j] + src[i * ld + j];
        }
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < p.Tk; ++j) dst[i * ld + j] *= inv;
    });
    return mean;
}

}  // namespace attn::engine
