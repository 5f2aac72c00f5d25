// Variance diagnostics (see attn/diagnostics.hpp). Two passes, double accumulators.
#include "attn/diagnostics.hpp"

#include "attn/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace attn {

std::pair<double, double> mean_and_variance(const Matrix& m) {
    const double n = double(m.size());
    if (n == 0) return {0.0, 0.0};
    double sum = 0.0;
    for (std::size_t i = 0; i < m.rows(); ++i)
        for (std::size_t j = 0; j < m.cols(); ++j) sum += m(i, j);
    const double mean = sum / n;
    double ss = 0.0;
    for (std::size_t i = 0; i < m.rows(); ++i)
        for (std::size_t j = 0; j < m.cols(); ++j) {
            const double d = m(i, j) - mean;
            ss += d * d;
        }
    return {mean, ss / n};
}

VarianceReport variance_report(const Matrix& Q, const Matrix& K, const Matrix& scores, const Matrix& weights,
                               const ScoreMask& sm) {
    VarianceReport r;
    r.d_k = Q.cols();
    r.scale = sm.scale;
    std::tie(r.q_mean, r.q_var) = mean_and_variance(Q);
    std::tie(r.k_mean, r.k_var) = mean_and_variance(K);
    r.scores_var = mean_and_variance(scores).second;
    // Scaled scores as `--show scaled` defines them (scale·QKᵀ + bias) but with the mask
    // ignored: a -inf bias entry is a mask, so it counts as +0 here.
    Matrix scaled(scores.rows(), scores.cols());
    for (std::size_t i = 0; i < scores.rows(); ++i)
        for (std::size_t j = 0; j < scores.cols(); ++j) {
            const float b = sm.bias ? (*sm.bias)(i, j) : 0.0f;
            scaled(i, j) = sm.scale * scores(i, j) + (std::isinf(b) ? 0.0f : b);
        }
    r.scaled_var = mean_and_variance(scaled).second;
    r.expected_scores_var =
        double(r.d_k) * (r.q_var * r.k_var + r.q_var * r.k_mean * r.k_mean + r.q_mean * r.q_mean * r.k_var);
    r.expected_scaled_var = r.expected_scores_var * double(sm.scale) * double(sm.scale);

    const std::size_t Tq = weights.rows(), Tk = weights.cols();
    std::size_t counted = 0;
    for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t allowed = allowed_keys(sm, i, Tq, Tk);
        if (allowed == 0) {
            ++r.masked_rows;
            continue;
        }
        double mx = 0.0, entropy = 0.0;
        for (std::size_t j = 0; j < Tk; ++j) {
            const double p = weights(i, j);
            mx = std::max(mx, p);
            if (p > 0) entropy -= p * std::log(p);
        }
        r.max_weight_mean += mx;
        r.entropy_mean += entropy;
        r.entropy_uniform_mean += std::log(double(allowed));
        if (mx >= 0.99) ++r.saturated_rows;
        ++counted;
    }
    if (counted) {
        r.max_weight_mean /= double(counted);
        r.entropy_mean /= double(counted);
        r.entropy_uniform_mean /= double(counted);
    } else {  // no row to average (every row fully masked): undefined, printed as nan / null
        r.max_weight_mean = r.entropy_mean = r.entropy_uniform_mean = std::numeric_limits<double>::quiet_NaN();
    }
    return r;
}

std::vector<std::pair<std::string, double>> variance_fields(const VarianceReport& r) {
    return {{"d_k", double(r.d_k)},
            {"scale", r.scale},
            {"q_mean", r.q_mean},
            {"q_var", r.q_var},
            {"k_mean", r.k_mean},
            {"k_var", r.k_var},
            {"scores_var", r.scores_var},
            {"scaled_var", r.scaled_var},
            {"expected_scores_var", r.expected_scores_var},
            {"expected_scaled_var", r.expected_scaled_var},
            {"max_weight_mean", r.max_weight_mean},
            {"entropy_mean", r.entropy_mean},
            {"entropy_uniform_mean", r.entropy_uniform_mean},
            {"saturated_rows", double(r.saturated_rows)},
            {"masked_rows", double(r.masked_rows)}};
}

}  // namespace attn
