// The attention pipeline. Shapes are checked here; numbers go through attn/ops.hpp.
#include "attn/attention.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/multihead.hpp"
#include "attn/tensor.hpp"

namespace attn {

namespace {

Matrix project_one(const Matrix& X, const Matrix* W, const char* name) {
    if (!W) return X;
    if (W->rows() != X.cols())
        throw InputError(std::string(name) + " is " + Shape{W->rows(), W->cols()}.dims_text() + " but X has D=" +
                         std::to_string(X.cols()) + " columns: a projection must have D rows");
    return matmul(X, *W);
}

}  // namespace

Projections project(const Matrix& X, const Matrix* Wq, const Matrix* Wk, const Matrix* Wv) {
    Projections p{project_one(X, Wq, "W_q"), project_one(X, Wk, "W_k"), project_one(X, Wv, "W_v")};
    if (p.queries.cols() != p.keys.cols())
        throw InputError("queries have d_k=" + std::to_string(p.queries.cols()) + " but keys have d_k=" +
                         std::to_string(p.keys.cols()) + ": W_q and W_k must have the same number of columns");
    return p;
}

AttentionResult attend(const Matrix& Q, const Matrix& K, const Matrix& V, const AttentionOptions& opt,
                       const AttentionWants& wants) {
    if (K.cols() != Q.cols())
        throw InputError("K has d_k=" + std::to_string(K.cols()) + " but Q has d_k=" + std::to_string(Q.cols()));
    if (V.rows() != K.rows())
        throw InputError("V has " + std::to_string(V.rows()) + " rows but K has " + std::to_string(K.rows()) +
                         ": every key needs a value");
    const ScoreMask& sm = opt.score_mask;
    for (const Matrix* m : {sm.mask, sm.bias})
        if (m && (m->rows() != Q.rows() || m->cols() != K.rows()))
            throw InputError(std::string(m == sm.mask ? "mask" : "bias") + " is " + Shape{m->rows(), m->cols()}.dims_text() +
                             " but the scores are " + Shape{Q.rows(), K.rows()}.dims_text());

    // The batched engine on rank-2 views: the same kernels, the same bits.
    AttentionSpec spec;
    spec.scale = sm.scale;
    spec.causal = sm.causal;
    const TensorView mask = sm.mask ? view_of(*sm.mask) : TensorView{}, bias = sm.bias ? view_of(*sm.bias) : TensorView{};
    spec.mask = sm.mask ? &mask : nullptr;
    spec.bias = sm.bias ? &bias : nullptr;
    spec.normalize = opt.normalize;
    spec.masked_rows = opt.masked_rows;
    AttentionWants w = wants;
    w.weights_mean = false;
    BatchedAttention b = batched_attention(view_of(Q), view_of(K), view_of(V), spec, w);
    auto matrix = [](Tensor& t) { return t.rank() == 2 ? std::move(t).to_matrix() : Matrix(); };
    AttentionResult r;
    r.scores = matrix(b.scores);
    r.scaled = matrix(b.scaled);
    r.weights = matrix(b.weights);
    r.context = matrix(b.context);
    r.masked_rows = b.masked_rows;
    r.fused = b.fused;
    return r;
}

}  // namespace attn
