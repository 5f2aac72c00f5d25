// Variance diagnostics against statistics computed directly in float64 in the test.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "attn/attention.hpp"
#include "attn/diagnostics.hpp"
#include "double_reference.hpp"

using attn::Matrix;

namespace {
double mean_of(const Matrix& m) {
    double s = 0;
    for (std::size_t i = 0; i < m.rows(); ++i)
        for (std::size_t j = 0; j < m.cols(); ++j) s += m(i, j);
    return s / double(m.size());
}
double var_of(const Matrix& m, double scale = 1) {
    const double mu = mean_of(m) * scale;
    double s = 0;
    for (std::size_t i = 0; i < m.rows(); ++i)
        for (std::size_t j = 0; j < m.cols(); ++j) s += (scale * m(i, j) - mu) * (scale * m(i, j) - mu);
    return s / double(m.size());
}
}  // namespace

TEST_CASE("variance report: statistics, theory and weight summaries") {
    std::mt19937 rng(21);
    const std::size_t T = 24, d = 64;
    const Matrix Q = test_ref::random_matrix(T, d, rng), K = test_ref::random_matrix(T, d, rng),
                 V = test_ref::random_matrix(T, 4, rng);
    attn::AttentionOptions opt;
    opt.score_mask.scale = 0.125f;
    opt.score_mask.causal = attn::Causal::top_left;
    const auto r = attn::attend(Q, K, V, opt, {true, false, true, false});
    const auto rep = attn::variance_report(Q, K, r.scores, r.weights, opt.score_mask);
    CHECK(rep.d_k == d);
    CHECK(rep.q_mean == doctest::Approx(mean_of(Q)).epsilon(1e-9));
    CHECK(rep.q_var == doctest::Approx(var_of(Q)).epsilon(1e-9));
    CHECK(rep.k_var == doctest::Approx(var_of(K)).epsilon(1e-9));
    CHECK(rep.scores_var == doctest::Approx(var_of(r.scores)).epsilon(1e-9));
    CHECK(rep.scaled_var == doctest::Approx(var_of(r.scores, 0.125)).epsilon(1e-6));
    const double theory = d * (rep.q_var * rep.k_var + rep.q_var * rep.k_mean * rep.k_mean +
                               rep.q_mean * rep.q_mean * rep.k_var);
    CHECK(rep.expected_scores_var == doctest::Approx(theory).epsilon(1e-12));
    CHECK(rep.expected_scaled_var == doctest::Approx(theory / 64).epsilon(1e-12));
    // Independent N(0,1) entries: the raw score variance is near d_k (loose: a statistic).
    CHECK(rep.scores_var > 0.7 * d);
    CHECK(rep.scores_var < 1.3 * d);
    // Row summaries from the weights, computed here directly.
    double mx = 0, ent = 0, uni = 0;
    std::size_t sat = 0;
    for (std::size_t i = 0; i < T; ++i) {
        double m = 0, h = 0;
        for (std::size_t j = 0; j < T; ++j) {
            const double p = r.weights(i, j);
            m = std::max(m, p);
            if (p > 0) h -= p * std::log(p);
        }
        mx += m, ent += h, uni += std::log(double(i + 1));  // causal: i + 1 allowed keys
        sat += m >= 0.99;
    }
    CHECK(rep.max_weight_mean == doctest::Approx(mx / T).epsilon(1e-9));
    CHECK(rep.entropy_mean == doctest::Approx(ent / T).epsilon(1e-9));
    CHECK(rep.entropy_uniform_mean == doctest::Approx(uni / T).epsilon(1e-9));
    CHECK(rep.saturated_rows == sat);
    CHECK(rep.saturated_rows >= 1);  // row 0 sees one key: weight 1
    CHECK(rep.masked_rows == 0);
}

TEST_CASE("variance report: fully masked rows are counted and left out of the means") {
    std::mt19937 rng(4);
    const Matrix Q = test_ref::random_matrix(4, 2, rng), K = test_ref::random_matrix(2, 2, rng),
                 V = test_ref::random_matrix(2, 2, rng);
    attn::AttentionOptions opt;
    opt.score_mask.causal = attn::Causal::bottom_right;  // Tq=4 > Tk=2: rows 0 and 1 see nothing
    const auto r = attn::attend(Q, K, V, opt, {true, false, true, false});
    const auto rep = attn::variance_report(Q, K, r.scores, r.weights, opt.score_mask);
    CHECK(rep.masked_rows == 2);
    CHECK(rep.entropy_uniform_mean == doctest::Approx((std::log(1.0) + std::log(2.0)) / 2));
    CHECK(rep.max_weight_mean > 0.5);
    const auto fields = attn::variance_fields(rep);
    REQUIRE(fields.size() == 15);
    CHECK(fields.front().first == "d_k");
    CHECK(fields.back().first == "masked_rows");
    CHECK(fields.back().second == 2.0);
}

TEST_CASE("variance report: with every row masked the weight means are undefined (NaN), not 0") {
    std::mt19937 rng(5);
    const Matrix Q = test_ref::random_matrix(2, 2, rng), K = test_ref::random_matrix(3, 2, rng),
                 V = test_ref::random_matrix(3, 2, rng);
    attn::AttentionOptions opt;
    const Matrix none(2, 3);  // zero-filled: no key visible to any row
    opt.score_mask.mask = &none;
    const auto r = attn::attend(Q, K, V, opt, {true, false, true, false});
    const auto rep = attn::variance_report(Q, K, r.scores, r.weights, opt.score_mask);
    CHECK(rep.masked_rows == 2);
    CHECK(std::isnan(rep.max_weight_mean));
    CHECK(std::isnan(rep.entropy_mean));
    CHECK(std::isnan(rep.entropy_uniform_mean));
    CHECK(rep.saturated_rows == 0);
}
