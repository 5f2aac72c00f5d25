// Scalar reference kernels (see oracle/reference.hpp). Clarity over speed: double
// accumulators, one obvious loop per definition.
#include "oracle/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"

namespace attn::reference {

namespace {
constexpr float neg_inf = -std::numeric_limits<float>::infinity();
}

void matmul(const Matrix& A, const Matrix& B, Matrix& C, bool transpose_b) {
    const std::size_t m = A.rows(), k = A.cols();
    const std::size_t n = transpose_b ? B.rows() : B.cols();
    C = Matrix(m, n);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double acc = 0.0;
            for (std::size_t p = 0; p < k; ++p)
                acc += double(A(i, p)) * double(transpose_b ? B(j, p) : B(p, j));
            C(i, j) = float(acc);
        }
}

std::size_t normalize_rows(Matrix& S, Normalization how, MaskedRowPolicy policy) {
    std::size_t masked_rows = 0;
    const std::size_t n = S.cols();
    for (std::size_t i = 0; i < S.rows(); ++i) {
        float* row = S.row(i);
        float mx = neg_inf;
        for (std::size_t j = 0; j < n; ++j) mx = std::fmax(mx, row[j]);
        if (std::any_of(row, row + n, [](float x) { return std::isnan(x); })) {  // torch: max NaN, every weight NaN
            std::fill(row, row + n, std::numeric_limits<float>::quiet_NaN());
            continue;
        }
        if (mx == neg_inf) {  // every key masked (or no keys at all)
            ++masked_rows;
            const float fill = policy == MaskedRowPolicy::zero  ? 0.0f
                               : policy == MaskedRowPolicy::nan ? std::numeric_limits<float>::quiet_NaN()
                                                                : 1.0f / float(n);
            for (std::size_t j = 0; j < n; ++j) row[j] = fill;
            continue;
        }
        double sum = 0.0;
        if (how == Normalization::softmax) {
            for (std::size_t j = 0; j < n; ++j) sum += row[j] == neg_inf ? 0.0 : std::exp(double(row[j]) - mx);
            for (std::size_t j = 0; j < n; ++j)
                row[j] = row[j] == neg_inf ? 0.0f : float(std::exp(double(row[j]) - mx) / sum);
        } else {
            for (std::size_t j = 0; j < n; ++j) sum += row[j] == neg_inf ? 0.0 : double(row[j]);
            if (sum == 0.0)
                throw RuntimeFailure("row " + std::to_string(i) + " (0-based) sums to zero: cannot normalize by its sum");
            for (std::size_t j = 0; j < n; ++j) row[j] = row[j] == neg_inf ? 0.0f : float(double(row[j]) / sum);
        }
    }
    return masked_rows;
}

Matrix scaled_scores(const Matrix& scores, const ScoreMask& sm) {
    const std::size_t Tq = scores.rows(), Tk = scores.cols();
    Matrix out(Tq, Tk);
    for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t visible = causal_visible(sm.causal, i, Tq, Tk);
        for (std::size_t j = 0; j < Tk; ++j) {
            float v = sm.scale * scores(i, j);
            if (sm.bias) v += (*sm.bias)(i, j);
            const bool allowed = j < visible && (!sm.mask || (*sm.mask)(i, j) != 0.0f);
            out(i, j) = allowed ? v : neg_inf;
        }
    }
    return out;
}

Matrix attention(const Matrix& Q, const Matrix& K, const Matrix& V, const ScoreMask& sm,
                 MaskedRowPolicy policy, std::size_t* masked_rows) {
    Matrix scores;
    reference::matmul(Q, K, scores, /*transpose_b=*/true);
    Matrix weights = reference::scaled_scores(scores, sm);
    const std::size_t masked = reference::normalize_rows(weights, Normalization::softmax, policy);
    if (masked_rows) *masked_rows = masked;
    Matrix context;
    reference::matmul(weights, V, context, /*transpose_b=*/false);
    return context;
}

}  // namespace attn::reference
