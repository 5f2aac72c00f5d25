// The score functions brought to the kernels' terms (attention/score_functions.hpp).
#include "attention/score_functions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "arch/kernel_table.hpp"
#include "attention/schedules.hpp"
#include "attn/ops.hpp"
#include "kernels/kernel_api.hpp"
#include "runtime/parallel.hpp"

namespace attn::engine {

namespace {

// An operand's own (B, H) slices turned by `per_slice(source rows, destination rows)` into a new
// float32 operand of `d` columns (broadcast dimensions stay broadcast: stride 0).
template <class PerSlice>
Operand transformed(const Operand& o, std::size_t d, Tensor& storage, PerSlice per_slice) {
    storage = Tensor(Shape{o.B, o.H, o.T, d}, Tensor::Uninitialized{});
    Operand t = o;
    t.data = storage.data();
    t.type = ElementType::f32;
    t.d = d;
    t.shape[t.shape.rank() - 1] = d;
    const std::size_t ld = storage.row_stride();
    t.sT = o.T == 1 ? 0 : ld;
    t.sH = o.H == 1 ? 0 : o.T * ld;
    t.sB = o.B == 1 ? 0 : o.H * o.T * ld;
    for (std::size_t b = 0; b < o.B; ++b)
        for (std::size_t h = 0; h < o.H; ++h)
            per_slice(MatrixView{o.at(b, h), o.T, o.d, o.sT ? o.sT : o.d}, storage.slice_data(b * o.H + h), ld);
    return t;
}

// x·W for every slice of o.
Operand projected(const Operand& o, const MatrixView& w, Tensor& storage) {
    return transformed(o, w.cols, storage, [&](const MatrixView& x, float* y, std::size_t ld) {
        matmul_into(x, w, /*transpose_b=*/false, y, ld);
    });
}

// Each row divided by its Euclidean norm: the sum of squares in double, each entry x/|x|
// computed in double and rounded once to float32; a zero row stays zero (its cosine is 0).
Operand unit_rows(const Operand& o, Tensor& storage) {
    return transformed(o, o.d, storage, [&](const MatrixView& x, float* y, std::size_t ld) {
        parallel_for(x.rows, [&](std::size_t i) {
            const float* r = x.row(i);
            double ss = 0;
            for (std::size_t c = 0; c < x.cols; ++c) ss += double(r[c]) * double(r[c]);
            const double norm = std::sqrt(ss);
            for (std::size_t c = 0; c < x.cols; ++c) y[i * ld + c] = norm == 0 ? 0.0f : float(double(r[c]) / norm);
        });
    });
}

}  // namespace

bool needs_score_inputs(const AttentionProblem& p) noexcept {
    return p.score == ScoreFunction::general || p.score == ScoreFunction::cosine ||
           (p.score == ScoreFunction::additive && p.wa_q.data);
}

AttentionProblem score_inputs(const AttentionProblem& problem, ScoreInputs& st) {
    AttentionProblem p = problem;
    const Operand k = problem.k.type != ElementType::f32 && p.score != ScoreFunction::general
                          ? widened(problem.k, Role::keys, st.k_widened)
                          : problem.k;
    switch (p.score) {
        case ScoreFunction::general:
            p.q = projected(problem.q, p.wa, st.q);
            p.score = ScoreFunction::dot;
            break;
        case ScoreFunction::cosine:
            p.q = unit_rows(problem.q, st.q);
            p.k = unit_rows(k, st.k);
            p.score = ScoreFunction::dot;
            break;
        case ScoreFunction::additive:
            p.q = projected(problem.q, p.wa_q, st.q);
            p.k = projected(k, p.wa_k, st.k);
            p.dk = p.wa_q.cols;
            p.wa_q = p.wa_k = MatrixView{};
            break;
        case ScoreFunction::dot: break;
    }
    return p;
}

void additive_scores_into(const AttentionProblem& p, const MatrixView& q, const MatrixView& kt, float* s,
                          std::size_t lds) {
    constexpr std::size_t rows_per_block = 4;
    const std::size_t blocks = (q.rows + rows_per_block - 1) / rows_per_block;
    const auto kernel = kernels::table_of(current_arch()).additive_scores;
    parallel_for(blocks, [&](std::size_t blk) {
        const std::size_t i0 = blk * rows_per_block, i1 = std::min(q.rows, i0 + rows_per_block);
        kernels::AdditiveArgs a{};
        a.Qp = q.row(i0), a.ldq = q.stride;
        a.KpT = kt.data, a.ldkt = kt.stride;
        a.va = p.va, a.va_stride = p.va_stride, a.h = q.cols;
        a.S = s + i0 * lds, a.lds = lds;
        a.m = i1 - i0, a.n = kt.cols;
        kernel(a);
    });
}

}  // namespace attn::engine
