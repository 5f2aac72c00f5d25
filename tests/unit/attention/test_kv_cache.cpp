// A K/V cache on the projections (attn/multihead.hpp's KVCache, AttentionSpec::past): the whole
// sequence at once against a prefix and decode steps that pass the present cache on, as HF's
// past_key_values does, with grouped-query heads, RoPE, biases and B = 2; the cached keys rotated
// once (the present cache bit for bit the whole run's), the steps' contexts the whole run's rows,
// the same bits for threads 1, 2 and 3; shapes that do not fit are ShapeErrors.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attn/error.hpp"
#include "attn/multihead.hpp"
#include "attn/runtime.hpp"
#include "tensor_test_util.hpp"

namespace {

using attn::Shape;
using attn::Tensor;
using attn::TensorView;

// Rows [t0, t1) of a (B, T, D) tensor, as a dense copy.
Tensor rows_of(const Tensor& x, std::size_t t0, std::size_t t1) {
    const std::size_t B = x.shape()[0], D = x.cols();
    Tensor out(Shape{B, t1 - t0, D});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = t0; t < t1; ++t)
            for (std::size_t c = 0; c < D; ++c)
                out.slice_data(b)[(t - t0) * out.row_stride() + c] = x.slice_data(b)[t * x.row_stride() + c];
    return out;
}

struct Weights {
    Tensor wq, wk, wv, bq, bk, bv;
    TensorView vq, vk, vv, vbq, vbk, vbv;
    attn::MultiheadWeights w;
};

void make_weights(std::mt19937& rng, std::size_t D, std::size_t H, std::size_t G, std::size_t d, Weights& m) {
    m.wq = test_util::random_tensor(Shape{D, H * d}, rng, 0.4f), m.wk = test_util::random_tensor(Shape{D, G * d}, rng, 0.4f);
    m.wv = test_util::random_tensor(Shape{D, G * d}, rng), m.bq = test_util::random_tensor(Shape{1, H * d}, rng);
    m.bk = test_util::random_tensor(Shape{1, G * d}, rng), m.bv = test_util::random_tensor(Shape{1, G * d}, rng);
    m.vq = m.wq.view(), m.vk = m.wk.view(), m.vv = m.wv.view(), m.vbq = m.bq.view(), m.vbk = m.bk.view(), m.vbv = m.bv.view();
    m.w.heads = H, m.w.kv_heads = G;
    m.w.wq = &m.vq, m.w.wk = &m.vk, m.w.wv = &m.vv, m.w.bq = &m.vbq, m.w.bk = &m.vbk, m.w.bv = &m.vbv;
}

// The present cache of a run, as the next step takes it: the keys as they enter the scores.
struct Cache {
    Tensor k, v;
};
Cache present(const attn::Multihead& m, std::size_t G, bool rope) {
    Cache c;
    Tensor q;
    if (rope) attn::rotated_queries_keys(m.problem, q, c.k);
    else c.k = m.present_keys.rank() ? m.present_keys : attn::to_tensor(attn::split_heads(m.keys, G));
    c.v = m.present_values.rank() ? m.present_values : attn::to_tensor(attn::split_heads(m.values, G));
    return c;
}

}  // namespace

TEST_CASE("a K/V cache on the projections: a prefix and decode steps give the whole run's rows and cache") {
    const std::size_t B = 2, T = 9, D = 12, H = 4, G = 2, d = 6;
    for (const bool rope : {true, false}) {
        INFO("rope " << rope);
        std::mt19937 rng(rope ? 5 : 6);
        Weights m;
        make_weights(rng, D, H, G, d, m);
        const Tensor x = test_util::random_tensor(Shape{B, T, D}, rng);
        attn::AttentionSpec spec;
        spec.causal = attn::Causal::top_left;
        if (rope) spec.rope.theta = 10000.0f;
        const attn::Multihead whole = attn::multihead_attention(x.view(), nullptr, m.w, spec);
        const Cache all = present(whole, G, rope);
        std::vector<std::size_t> cuts = {0, 5, 6, 9};  // a prefix of 5, one token, then three
        Cache cache;
        for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
            INFO("step " << s);
            const Tensor part = rows_of(x, cuts[s], cuts[s + 1]);
            attn::KVCache past{cache.k.view(), cache.v.view()};
            std::vector<Tensor> contexts;
            Cache next;
            for (const std::size_t threads : {1u, 2u, 3u}) {
                attn::set_threads(threads);
                attn::Multihead step = attn::multihead_attention(part.view(), nullptr, m.w, spec, {}, s ? &past : nullptr);
                CHECK(step.problem.Tk == cuts[s + 1]);
                CHECK(step.problem.past == cuts[s]);
                if (threads == 1) next = present(step, G, rope);
                contexts.push_back(std::move(step.attention.context));
            }
            attn::set_threads(0);
            cache = std::move(next);  // past's views point into the old cache until here
            CHECK(test_util::same_bits(contexts[0], contexts[1]));
            CHECK(test_util::same_bits(contexts[0], contexts[2]));
            const Tensor& c = contexts[0];
            double worst = 0;
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t h = 0; h < H; ++h)
                    for (std::size_t i = cuts[s]; i < cuts[s + 1]; ++i)
                        for (std::size_t e = 0; e < d; ++e) {
                            const float want = whole.attention.context.slice_data(b * H + h)[i * whole.attention.context.row_stride() + e];
                            const float got = c.slice_data(b * H + h)[(i - cuts[s]) * c.row_stride() + e];
                            worst = std::max(worst, std::fabs(double(want) - double(got)) / (1.0 + std::fabs(double(want))));
                        }
            INFO("worst error " << worst);
            CHECK(worst < 2e-6);  // float32 rounding of O(1) contexts (the paths differ: fused, split-K; 1.03e-6 seen)
        }
        CHECK(test_util::same_bits(cache.k, all.k));  // the new keys rotated once, at their positions
        CHECK(test_util::same_bits(cache.v, all.v));
    }
}

TEST_CASE("a K/V cache on the projections: shapes that do not fit are ShapeErrors naming the cache") {
    std::mt19937 rng(7);
    Weights m;
    make_weights(rng, 8, 2, 1, 4, m);
    const Tensor x = test_util::random_tensor(Shape{2, 1, 8}, rng);
    const auto run = [&](const Shape& k, const Shape& v) {
        const Tensor pk(k), pv(v);
        attn::KVCache past{pk.view(), pv.view()};
        return attn::multihead_attention(x.view(), nullptr, m.w, {}, {}, &past);
    };
    CHECK(run(Shape{2, 1, 3, 4}, Shape{2, 1, 3, 4}).problem.past == 3);
    const auto role_of = [&](const Shape& k, const Shape& v) {
        try {
            run(k, v);
        } catch (const attn::ShapeError& e) {
            return e.role;
        }
        return attn::Role::queries;
    };
    CHECK(role_of(Shape{1, 1, 3, 4}, Shape{2, 1, 3, 4}) == attn::Role::past_keys);    // batch
    CHECK(role_of(Shape{2, 2, 3, 4}, Shape{2, 1, 3, 4}) == attn::Role::past_keys);    // heads
    CHECK(role_of(Shape{2, 1, 3, 4}, Shape{2, 1, 3, 5}) == attn::Role::past_values);  // d_v
    CHECK(role_of(Shape{2, 1, 3, 4}, Shape{2, 1, 2, 4}) == attn::Role::past_values);  // lengths differ
    CHECK(role_of(Shape{1, 3, 4}, Shape{2, 1, 3, 4}) == attn::Role::past_keys);       // rank
}
