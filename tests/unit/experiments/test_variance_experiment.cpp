// The variance experiment against an independent float64 reference (scores as double dot
// products, softmax in long double, the Jacobian built as an explicit L×L matrix) and against
// the values PyTorch 1.13 prints for the tutorial's cell.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "attn/torch_rng.hpp"
#include "attn/variance_experiment.hpp"

namespace {

struct RefStats {
    double var = 0, max_w = 0, entropy = 0, saturated = 0, tiny = 0, jac = 0;
};

// Everything in double/long double, straight from the definitions.
RefStats reference(const std::vector<float>& Q, const std::vector<float>& K, std::size_t B, std::size_t L,
                   std::size_t d, double scale) {
    std::vector<double> s(B * L * L);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < L; ++i)
            for (std::size_t j = 0; j < L; ++j) {
                long double acc = 0;
                for (std::size_t k = 0; k < d; ++k)
                    acc += (long double)Q[(b * L + i) * d + k] * K[(b * L + j) * d + k];
                s[(b * L + i) * L + j] = double(acc) * scale;
            }
    RefStats r;
    long double sum = 0, sum2 = 0;
    for (double x : s) sum += x;
    const long double mean = sum / s.size();
    for (double x : s) sum2 += (x - mean) * (x - mean);
    r.var = double(sum2 / s.size());
    for (std::size_t row = 0; row < B * L; ++row) {
        const double* x = &s[row * L];
        const double mx = *std::max_element(x, x + L);
        std::vector<long double> p(L);
        long double z = 0;
        for (std::size_t j = 0; j < L; ++j) z += p[j] = std::exp((long double)(x[j] - mx));
        long double pmax = 0, h = 0;
        for (std::size_t j = 0; j < L; ++j) {
            p[j] /= z;
            pmax = std::max(pmax, p[j]);
            if (p[j] > 0) h -= p[j] * std::log(p[j]);
            r.tiny += p[j] < 1e-6;
        }
        r.max_w += double(pmax);
        r.entropy += double(h);
        r.saturated += pmax >= 0.99;
        long double f = 0;  // ‖diag(p) − ppᵀ‖_F, entry by entry
        for (std::size_t i = 0; i < L; ++i)
            for (std::size_t j = 0; j < L; ++j) {
                const long double e = (i == j ? p[i] : 0) - p[i] * p[j];
                f += e * e;
            }
        r.jac += double(std::sqrt(f));
    }
    const double rows = double(B * L);
    r.max_w /= rows;
    r.entropy /= rows;
    r.saturated /= rows;
    r.jac /= rows;
    r.tiny /= rows * double(L);
    return r;
}

void check_stats(const attn::SoftmaxStats& got, const RefStats& want, std::size_t rows, std::size_t L) {
    CHECK(got.max_weight_mean == doctest::Approx(want.max_w).epsilon(1e-5));
    CHECK(got.entropy_mean == doctest::Approx(want.entropy).epsilon(1e-4));
    CHECK(got.jacobian_norm_mean == doctest::Approx(want.jac).epsilon(1e-4));
    // Threshold counts may flip for a row sitting on the threshold (float vs double scores).
    CHECK(std::fabs(got.saturated_fraction - want.saturated) <= 1.0 / double(rows) + 1e-12);
    CHECK(std::fabs(got.tiny_fraction - want.tiny) <= 2.0 / double(rows * L) + 1e-12);
}

}  // namespace

TEST_CASE("variance experiment: the tutorial's cell gives PyTorch's 512.0118 and 1.000023") {
    // torch 1.13: torch.manual_seed(92); q = torch.randn(4,8,32,512); k = torch.randn(4,8,32,512);
    // s = q @ k.transpose(-2,-1); s.var(unbiased=False) -> 512.0118, (s/512**0.5).var(unbiased=False) -> 1.0000230
    const std::vector<attn::VarianceResult> r = attn::run_variance_experiment(attn::VarianceExperiment{});
    REQUIRE(r.size() == 1);
    CHECK(r[0].d_k == 512);
    CHECK(r[0].unscaled_var == doctest::Approx(512.0118).epsilon(2e-7));
    CHECK(r[0].scaled_var == doctest::Approx(1.000023).epsilon(2e-6));
    CHECK(r[0].theory_unscaled_var == 512.0);
    CHECK(r[0].theory_scaled_var == 1.0);
    // float64 softmax statistics of the same draws, computed with torch in double.
    CHECK(r[0].unscaled.max_weight_mean == doctest::Approx(0.9279300961620041).epsilon(1e-6));
    CHECK(r[0].unscaled.entropy_mean == doctest::Approx(0.17393793218925482).epsilon(1e-5));
    CHECK(std::fabs(r[0].unscaled.saturated_fraction - 0.6162109375) <= 1.0 / 1024);  // one row may flip
    CHECK(r[0].scaled.max_weight_mean == doctest::Approx(0.16255958209820318).epsilon(1e-6));
    CHECK(r[0].scaled.entropy_mean == doctest::Approx(3.0161968521656437).epsilon(1e-6));
    CHECK(r[0].scaled.jacobian_norm_mean == doctest::Approx(0.24067304183993238).epsilon(1e-6));
    CHECK(r[0].scaled.saturated_fraction == 0.0);
}

TEST_CASE("variance experiment: every statistic against a float64 reference") {
    for (std::size_t d : {1u, 7u, 64u, 300u}) {
        CAPTURE(d);
        const std::size_t B = 3, L = 9;
        const double sigma = 1.7;
        attn::TorchGenerator gen(2024);
        std::vector<float> Q = gen.randn({B, L, d}), K = gen.randn({B, L, d});
        for (float& x : Q) x *= float(sigma);
        for (float& x : K) x *= float(sigma);
        const attn::VarianceResult got = attn::variance_of_scores(Q, K, B, L, d, sigma);
        const RefStats raw = reference(Q, K, B, L, d, 1.0);
        const RefStats scaled = reference(Q, K, B, L, d, 1.0 / std::sqrt(double(d)));
        CHECK(got.unscaled_var == doctest::Approx(raw.var).epsilon(1e-5));
        CHECK(got.scaled_var == doctest::Approx(scaled.var).epsilon(1e-5));
        CHECK(got.theory_unscaled_var == doctest::Approx(double(d) * std::pow(sigma, 4)));
        CHECK(got.theory_scaled_var == doctest::Approx(std::pow(sigma, 4)));
        check_stats(got.unscaled, raw, B * L, L);
        check_stats(got.scaled, scaled, B * L, L);
    }
}

TEST_CASE("variance experiment: the theory holds on a large sample; reseeded per d_k") {
    attn::VarianceExperiment e;
    e.d_ks = {16, 256};
    e.batch = 64;
    e.sigma = 0.5;
    const std::vector<attn::VarianceResult> r = attn::run_variance_experiment(e);
    REQUIRE(r.size() == 2);
    for (const attn::VarianceResult& x : r) {
        CHECK(x.unscaled_var == doctest::Approx(double(x.d_k) * 0.0625).epsilon(0.05));
        CHECK(x.scaled_var == doctest::Approx(0.0625).epsilon(0.05));
    }
    // Saturation grows with d_k without scaling, not with it.
    CHECK(r[1].unscaled.max_weight_mean > r[0].unscaled.max_weight_mean);
    // Each d_k is what the seed alone gives for that d_k.
    attn::VarianceExperiment single = e;
    single.d_ks = {256};
    CHECK(attn::run_variance_experiment(single)[0].unscaled_var == r[1].unscaled_var);
}

TEST_CASE("softmax stats: uniform and one-hot rows by hand") {
    const float uniform[4] = {2, 2, 2, 2};
    const attn::SoftmaxStats u = attn::softmax_stats(uniform, 1, 4);
    CHECK(u.max_weight_mean == doctest::Approx(0.25));
    CHECK(u.entropy_mean == doctest::Approx(std::log(4.0)));
    CHECK(u.saturated_fraction == 0.0);
    CHECK(u.tiny_fraction == 0.0);
    CHECK(u.jacobian_norm_mean == doctest::Approx(std::sqrt(0.25 - 0.0625)));  // √(1/L − 1/L²)

    const float one_hot[6] = {1000, 0, 0, 0, 1000, 0};  // two rows
    const attn::SoftmaxStats h = attn::softmax_stats(one_hot, 2, 3);
    CHECK(h.max_weight_mean == doctest::Approx(1.0));
    CHECK(h.entropy_mean == doctest::Approx(0.0));
    CHECK(h.saturated_fraction == 1.0);
    CHECK(h.tiny_fraction == doctest::Approx(4.0 / 6.0));
    CHECK(h.jacobian_norm_mean == doctest::Approx(0.0));

    const double p[2] = {0.5, 0.5};  // J = [[.25, -.25], [-.25, .25]] → ‖J‖ = 0.5
    CHECK(attn::softmax_jacobian_norm(p, 2) == doctest::Approx(0.5));
}
