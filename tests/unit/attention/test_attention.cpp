// The attention pipeline (attn::attend, attn::project) against an independent float64
// implementation, on awkward shapes and every masking feature, through the active arch.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "double_reference.hpp"

using attn::Matrix;

namespace {

struct Shape {
    std::size_t Tq, Tk, dk, dv;
};
const Shape shapes[] = {{1, 1, 1, 1}, {1, 5, 3, 2}, {5, 1, 3, 2}, {6, 6, 3, 3}, {7, 17, 15, 16}, {17, 7, 16, 1},
                        {33, 65, 9, 31}, {64, 64, 64, 64}, {3, 130, 5, 7}};

attn::Causal causal_of(int c) {
    return c == 0 ? attn::Causal::none : c == 1 ? attn::Causal::top_left : attn::Causal::bottom_right;
}
attn::MaskedRowPolicy policy_of(int p) {
    return p == 0 ? attn::MaskedRowPolicy::zero : p == 1 ? attn::MaskedRowPolicy::nan : attn::MaskedRowPolicy::uniform;
}

}  // namespace

TEST_CASE("attend: materialised and fused paths match a float64 reference") {
    std::mt19937 rng(7);
    for (const Shape& s : shapes)
        for (int causal = 0; causal < 3; ++causal)
            for (int extra = 0; extra < 3; ++extra) {  // 0 plain, 1 mask, 2 bias with -inf
                CAPTURE(s.Tq);
                CAPTURE(s.Tk);
                CAPTURE(s.dk);
                CAPTURE(causal);
                CAPTURE(extra);
                const Matrix Q = test_ref::random_matrix(s.Tq, s.dk, rng), K = test_ref::random_matrix(s.Tk, s.dk, rng),
                             V = test_ref::random_matrix(s.Tk, s.dv, rng);
                Matrix mask(s.Tq, s.Tk), bias = test_ref::random_matrix(s.Tq, s.Tk, rng, 0.5);
                std::bernoulli_distribution keep(0.7);
                for (std::size_t i = 0; i < s.Tq; ++i)
                    for (std::size_t j = 0; j < s.Tk; ++j) {
                        mask(i, j) = keep(rng) ? 1.0f : 0.0f;
                        if (!keep(rng)) bias(i, j) = -std::numeric_limits<float>::infinity();
                    }
                for (int policy = 0; policy < 3; ++policy) {
                    CAPTURE(policy);
                    test_ref::Spec spec;
                    spec.scale = 1.0 / std::sqrt(double(s.dk));
                    spec.causal = causal;
                    spec.mask = extra == 1 ? &mask : nullptr;
                    spec.bias = extra == 2 ? &bias : nullptr;
                    spec.policy = policy;
                    test_ref::Grid want_ctx;
                    std::size_t want_masked = 0;
                    const auto want_w = test_ref::attention(Q, K, V, spec, &want_ctx, &want_masked);

                    attn::AttentionOptions opt;
                    opt.score_mask.scale = float(spec.scale);
                    opt.score_mask.causal = causal_of(causal);
                    opt.score_mask.mask = spec.mask;
                    opt.score_mask.bias = spec.bias;
                    opt.masked_rows = policy_of(policy);
                    const auto full = attn::attend(Q, K, V, opt, {true, true, true, true});
                    CHECK_FALSE(full.fused);
                    CHECK(full.masked_rows == want_masked);
                    CHECK(test_ref::max_rel_error(full.weights, want_w) < 2e-6);
                    CHECK(test_ref::max_rel_error(full.context, want_ctx) < 2e-5);
                    const auto fused = attn::attend(Q, K, V, opt, {});
                    CHECK(fused.fused);
                    CHECK(fused.masked_rows == want_masked);
                    CHECK(test_ref::max_rel_error(fused.context, want_ctx) < 2e-5);
                    // Masked weights are exactly zero; unmasked rows sum to 1.
                    for (std::size_t i = 0; i < s.Tq; ++i) {
                        double sum = 0;
                        bool any = false;
                        for (std::size_t j = 0; j < s.Tk; ++j) {
                            if (!test_ref::allowed(spec, i, j, s.Tq, s.Tk) && policy != 2 && !std::isnan(want_w[i][0]))
                                CHECK(full.weights(i, j) == 0.0f);
                            any = any || test_ref::allowed(spec, i, j, s.Tq, s.Tk);
                            sum += full.weights(i, j);
                        }
                        if (any) CHECK(std::fabs(sum - 1.0) < 1e-5);
                    }
                }
            }
}

TEST_CASE("attend: scores are raw, scaled holds -inf where masked") {
    std::mt19937 rng(11);
    const Matrix Q = test_ref::random_matrix(4, 3, rng), K = test_ref::random_matrix(6, 3, rng),
                 V = test_ref::random_matrix(6, 2, rng);
    attn::AttentionOptions opt;
    opt.score_mask.scale = 0.5f;
    opt.score_mask.causal = attn::Causal::bottom_right;  // query i sees j <= i + 2
    const auto r = attn::attend(Q, K, V, opt, {true, true, true, false});
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 6; ++j) {
            double dot = 0;
            for (std::size_t p = 0; p < 3; ++p) dot += double(Q(i, p)) * K(j, p);
            CHECK(r.scores(i, j) == doctest::Approx(dot).epsilon(1e-6));
            if (j <= i + 2) CHECK(r.scaled(i, j) == doctest::Approx(0.5 * dot).epsilon(1e-6));
            else CHECK(std::isinf(r.scaled(i, j)));
        }
    CHECK(r.context.empty());
}

TEST_CASE("attend: causal alignments on Tq != Tk, including fully masked rows") {
    // top-left with Tq > Tk: every row sees at least key 0. bottom-right with Tq > Tk: the
    // first Tq - Tk rows see nothing.
    std::mt19937 rng(3);
    const Matrix Q = test_ref::random_matrix(5, 2, rng), K = test_ref::random_matrix(3, 2, rng),
                 V = test_ref::random_matrix(3, 2, rng);
    attn::AttentionOptions opt;
    opt.score_mask.causal = attn::Causal::top_left;
    CHECK(attn::attend(Q, K, V, opt, {false, false, true, true}).masked_rows == 0);
    opt.score_mask.causal = attn::Causal::bottom_right;
    const auto r = attn::attend(Q, K, V, opt, {false, false, true, true});
    CHECK(r.masked_rows == 2);
    for (std::size_t j = 0; j < 3; ++j) CHECK(r.weights(0, j) == 0.0f);
    CHECK(r.weights(2, 0) == 1.0f);
    opt.masked_rows = attn::MaskedRowPolicy::uniform;
    const auto u = attn::attend(Q, K, V, opt, {});
    for (std::size_t c = 0; c < 2; ++c)
        CHECK(u.context(0, c) == doctest::Approx((double(V(0, c)) + V(1, c) + V(2, c)) / 3).epsilon(1e-6));
}

TEST_CASE("softmax normalisation is stable and exact at the edges") {
    Matrix s(4, 2);
    s(0, 0) = 1000, s(0, 1) = 1001;
    s(1, 0) = -1000, s(1, 1) = -1000;
    s(2, 0) = -INFINITY, s(2, 1) = 3;
    s(3, 0) = -INFINITY, s(3, 1) = -INFINITY;
    const Matrix original = s;
    const std::size_t masked = attn::normalize_rows(s, attn::Normalization::softmax, attn::MaskedRowPolicy::zero);
    CHECK(masked == 1);
    const double e = std::exp(1.0);
    CHECK(s(0, 0) == doctest::Approx(1 / (1 + e)).epsilon(1e-7));
    CHECK(s(0, 1) == doctest::Approx(e / (1 + e)).epsilon(1e-7));
    CHECK(s(1, 0) == 0.5f);
    CHECK(s(1, 1) == 0.5f);
    CHECK(s(2, 0) == 0.0f);
    CHECK(s(2, 1) == 1.0f);
    CHECK(s(3, 0) == 0.0f);
    Matrix n = original;
    attn::normalize_rows(n, attn::Normalization::softmax, attn::MaskedRowPolicy::nan);
    CHECK(std::isnan(n(3, 0)));
    CHECK(std::isnan(n(3, 1)));
    CHECK_FALSE(std::isnan(n(2, 1)));
    // Adding a constant to a row changes nothing.
    std::mt19937 rng(5);
    Matrix a = test_ref::random_matrix(3, 37, rng), b = a;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 37; ++j) b(i, j) += 50.0f;
    attn::normalize_rows(a, attn::Normalization::softmax, attn::MaskedRowPolicy::zero);
    attn::normalize_rows(b, attn::Normalization::softmax, attn::MaskedRowPolicy::zero);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 37; ++j) CHECK(a(i, j) == doctest::Approx(b(i, j)).epsilon(1e-4));
}

TEST_CASE("sum normalisation divides by the row sum and refuses a zero sum") {
    Matrix s(2, 3);
    s(0, 0) = 1, s(0, 1) = 2, s(0, 2) = 5;
    s(1, 0) = 1, s(1, 1) = -1, s(1, 2) = 0;
    Matrix first(1, 3);
    for (std::size_t j = 0; j < 3; ++j) first(0, j) = s(0, j);
    attn::normalize_rows(first, attn::Normalization::sum, attn::MaskedRowPolicy::zero);
    CHECK(first(0, 0) == doctest::Approx(0.125));
    CHECK(first(0, 2) == doctest::Approx(0.625));
    CHECK_THROWS_AS(attn::normalize_rows(s, attn::Normalization::sum, attn::MaskedRowPolicy::zero), attn::RuntimeFailure);
}

TEST_CASE("attend and project reject shape mismatches") {
    const Matrix Q(2, 3), K(4, 2), V(4, 2), X(5, 3), W(2, 2);
    CHECK_THROWS_AS(attn::attend(Q, K, V, {}, {}), attn::InputError);
    const Matrix K3(4, 3), V3(3, 2);
    CHECK_THROWS_AS(attn::attend(Q, K3, V3, {}, {}), attn::InputError);
    CHECK_THROWS_AS(attn::project(X, &W, nullptr, nullptr), attn::InputError);
    const Matrix Wq(3, 2), Wk(3, 4);
    CHECK_THROWS_AS(attn::project(X, &Wq, &Wk, nullptr), attn::InputError);
    const Matrix mask(3, 4);
    attn::AttentionOptions opt;
    opt.score_mask.mask = &mask;
    CHECK_THROWS_AS(attn::attend(Q, K3, V, opt, {}), attn::InputError);
}

TEST_CASE("project: identity when a projection is omitted") {
    std::mt19937 rng(9);
    const Matrix X = test_ref::random_matrix(4, 3, rng), Wv = test_ref::random_matrix(3, 5, rng);
    const auto p = attn::project(X, nullptr, nullptr, &Wv);
    CHECK(p.queries.cols() == 3);
    CHECK(p.queries(2, 1) == X(2, 1));
    CHECK(p.values.cols() == 5);
    double want = 0;
    for (std::size_t k = 0; k < 3; ++k) want += double(X(3, k)) * Wv(k, 4);
    CHECK(p.values(3, 4) == doctest::Approx(want).epsilon(1e-6));
}
