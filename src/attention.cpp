// The attention pipeline. Shapes are checked here; numbers go through attn/ops.hpp.
#include "attn/attention.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn {

namespace {

std::string shape(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }

Matrix project_one(const Matrix& X, const Matrix* W, const char* name) {
    if (!W) return X;
    if (W->rows() != X.cols())
        throw InputError(std::string(name) + " is " + shape(*W) + " but X has D=" + std::to_string(X.cols()) +
                         " columns: a projection must have D rows");
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
            throw InputError(std::string(m == sm.mask ? "mask" : "bias") + " is " + shape(*m) + " but the scores are " +
                             std::to_string(Q.rows()) + "x" + std::to_string(K.rows()));

    AttentionResult r;
    const bool need_matrices = wants.scores || wants.scaled || wants.weights;
    if (!need_matrices && opt.normalize == Normalization::softmax) {
        // Streaming path: never materialises the Tq×Tk matrices.
        r.context = fused_attention(Q, K, V, sm, opt.masked_rows, &r.masked_rows);
        r.fused = true;
        if (!wants.context) r.context = Matrix();
        return r;
    }
    Matrix scores = matmul(Q, K, /*transpose_b=*/true);
    Matrix weights = scaled_scores(scores, sm);
    if (wants.scaled) r.scaled = weights;
    r.masked_rows = normalize_rows(weights, opt.normalize, opt.masked_rows);
    if (wants.context) r.context = matmul(weights, V);
    if (wants.scores) r.scores = std::move(scores);
    if (wants.weights) r.weights = std::move(weights);
    return r;
}

}  // namespace attn
