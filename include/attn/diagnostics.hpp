// Variance diagnostics: why scores are scaled by 1/sqrt(d_k). Two-pass statistics with
// double accumulators.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/ops.hpp"

namespace attn {

struct VarianceReport {
    std::size_t d_k = 0;
    double scale = 1;
    double q_mean = 0, q_var = 0, k_mean = 0, k_var = 0;  // over all entries, population variance
    double scores_var = 0, scaled_var = 0;                 // over all Tq×Tk raw / scale·raw entries
    double expected_scores_var = 0, expected_scaled_var = 0;  // d_k(σq²σk² + σq²μk² + μq²σk²), ×scale²
    double max_weight_mean = 0;        // over rows that are not fully masked
    double entropy_mean = 0;           // nats, same rows
    double entropy_uniform_mean = 0;   // ln(number of allowed keys), same rows
    std::size_t saturated_rows = 0;    // max weight >= 0.99
    std::size_t masked_rows = 0;       // every key masked
};

// `scores` are the raw Q·Kᵀ, `weights` the normalised rows, `sm` the mask that produced
// them (to count allowed keys per row).
VarianceReport variance_report(const Matrix& Q, const Matrix& K, const Matrix& scores, const Matrix& weights,
                               const ScoreMask& sm);

// The report as ordered (key, value) pairs with the JSON key names.
std::vector<std::pair<std::string, double>> variance_fields(const VarianceReport& r);

// Population mean and variance of a matrix's entries (two passes, double accumulators).
std::pair<double, double> mean_and_variance(const Matrix& m);

}  // namespace attn
