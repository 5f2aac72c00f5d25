// Key shards (AttentionSpec::key_rows), each row's log-sum-exp (AttentionWants::lse) and
// merge_key_shards (attn/shards.hpp). The lse of every path (fused, split-K decoding,
// materialised) and arch against a float64 oracle written from the definition; shards of every
// size (empty, one key, a lane either side, uneven) merged against the whole run and the
// oracle, on causal, windowed, padded (lengths), masked and biased problems with heads and
// batches; the same bits for the same shards in any order; one shard returned unchanged; the
// merge itself against float64 shards; bad shards refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "attn/shards.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

namespace {

using attn::Causal;
using attn::Shape;
using attn::Tensor;
using attn::TensorView;
using attn::unbounded;
using attn::Window;
using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
using test_util::slice_of;

struct Case {
    std::string name;
    Shape q, k, v;
    Causal causal = Causal::none;
    Window window;
    float softcap = 0.0f;
    std::vector<std::size_t> lengths;
    bool mask_bias = false;  // a (Tq, Tk) mask and bias shared by every batch item and head
    int policy = 0;          // 0 zero, 1 nan, 2 uniform
};

std::vector<Case> cases() {
    std::vector<Case> c;
    c.push_back({"bottom-right causal, window 20:3, gqa H=4 G=2, lengths, mask and bias, odd d", {2, 4, 13, 7},
                 {2, 2, 70, 7}, {2, 2, 70, 5}, Causal::bottom_right, {20, 3}, 0.0f, {70, 41}, true, 0});
    c.push_back({"top-left causal Tq=Tk=130, softcap 5", {1, 2, 130, 16}, {1, 2, 130, 16}, {1, 2, 130, 16},
                 Causal::top_left, {}, 5.0f, {}, false, 0});
    c.push_back({"gqa H=4 G=2, no rule: the heads of a group stacked, Tq=37 (lse rows padded)", {1, 4, 37, 8},
                 {1, 2, 45, 8}, {1, 2, 45, 8}, Causal::none, {}, 0.0f, {}, false, 0});
    c.push_back({"2-D, Tq=1, no rule (split-K)", {1, 9}, {37, 9}, {37, 3}, Causal::none, {}, 0.0f, {}, false, 0});
    c.push_back({"decode Tq=1 of 2000 keys, window 300, gqa H=4 G=1 (split-K)", {1, 4, 1, 32}, {1, 1, 2000, 32},
                 {1, 1, 2000, 32}, Causal::bottom_right, {300, unbounded}, 0.0f, {}, false, 0});
    c.push_back({"decode Tq=3, lengths 50 and 17, nan policy", {2, 1, 3, 8}, {2, 1, 60, 8}, {2, 1, 60, 4},
                 Causal::bottom_right, {}, 0.0f, {50, 17}, false, 1});
    c.push_back({"window 0:0, Tq>Tk: rows past Tk see nothing (uniform)", {40, 6}, {30, 6}, {30, 4}, Causal::none,
                 {0, 0}, 0.0f, {}, false, 2});
    return c;
}

struct Inputs {
    Tensor Q, K, V, mask, bias;
    TensorView mv, bv;
    attn::AttentionSpec spec;
};

void make_inputs(const Case& c, unsigned seed, Inputs& in) {
    std::mt19937 rng(seed);
    in.Q = random_tensor(c.q, rng, 1.5f), in.K = random_tensor(c.k, rng, 1.5f), in.V = random_tensor(c.v, rng);
    const std::size_t Tq = c.q.back(2), Tk = c.k.back(2);
    if (c.mask_bias) {
        std::uniform_int_distribution<int> coin(0, 4);
        in.mask = Tensor(Shape{Tq, Tk});
        in.bias = random_tensor(Shape{Tq, Tk}, rng, 0.5f);
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j) {
                in.mask.data()[i * in.mask.row_stride() + j] = coin(rng) != 0;
                if (coin(rng) == 0) in.bias.data()[i * in.bias.row_stride() + j] = -INFINITY;
            }
        in.mv = in.mask.view(), in.bv = in.bias.view();
        in.spec.mask = &in.mv, in.spec.bias = &in.bv;
    }
    in.spec.causal = c.causal;
    in.spec.window = c.window;
    in.spec.softcap = c.softcap;
    in.spec.lengths = c.lengths;
    in.spec.masked_rows = c.policy == 0 ? attn::MaskedRowPolicy::zero
                          : c.policy == 1 ? attn::MaskedRowPolicy::nan
                                          : attn::MaskedRowPolicy::uniform;
}

attn::BatchedAttention run(const Inputs& in, const attn::AttentionSpec& spec, bool materialised) {
    attn::AttentionWants w;
    w.lse = true;
    w.weights = materialised;
    return attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
}

// The oracle's log-sum-exp of every row of (b, h) over keys [k0, k1): ln Σ_j exp(z_j) over the
// allowed cells, z in ONNX's order (scale·q·k, softcap, + bias), -inf when none is allowed.
std::vector<double> oracle_lse(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H,
                               std::size_t G, std::size_t k0, std::size_t k1) {
    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, h / (H / G));
    const std::size_t Tq = Q.rows(), Tk = K.rows(), d = Q.cols();
    attn::Matrix mask(Tq, Tk, 1.0f);
    attn::Matrix bias;
    if (c.mask_bias) bias = in.bias.slice_matrix(0);
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j) {
            if (c.mask_bias) mask(i, j) = in.mask.data()[i * in.mask.row_stride() + j];
            if ((!c.lengths.empty() && j >= c.lengths[b]) || j < k0 || j >= k1) mask(i, j) = 0.0f;
        }
    test_ref::Spec s;
    s.causal = c.causal == Causal::top_left ? 1 : c.causal == Causal::bottom_right ? 2 : 0;
    // bottom-right with lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen rule)
    if (c.causal == Causal::bottom_right && !c.lengths.empty()) s.offset = (long long)c.lengths[b] - (long long)Tq;
    s.mask = &mask;
    s.bias = c.mask_bias ? &bias : nullptr;
    s.left = c.window.left == unbounded ? -1 : (long long)c.window.left;
    s.right = c.window.right == unbounded ? -1 : (long long)c.window.right;
    const double scale = 1.0 / std::sqrt(double(d));
    std::vector<double> lse(Tq, -INFINITY);
    for (std::size_t i = 0; i < Tq; ++i) {
        std::vector<double> z;
        for (std::size_t j = 0; j < Tk; ++j) {
            if (!test_ref::allowed(s, i, j, Tq, Tk)) continue;
            double dot = 0;
            for (std::size_t p = 0; p < d; ++p) dot += double(Q(i, p)) * double(K(j, p));
            double x = scale * dot;
            if (c.softcap > 0) x = c.softcap * std::tanh(x / c.softcap);
            z.push_back(x + (c.mask_bias ? double(bias(i, j)) : 0.0));
        }
        if (z.empty()) continue;
        const double mx = *std::max_element(z.begin(), z.end());
        double sum = 0;
        for (double x : z) sum += std::exp(x - mx);
        lse[i] = mx + std::log(sum);
    }
    return lse;
}

// Row i of (b, h) of an lse result ([B',] [H,] Tq).
float lse_at(const Tensor& lse, std::size_t slice, std::size_t i) {
    return lse.data()[slice * (lse.rank() >= 2 ? lse.row_stride() : 0) + i];
}

// Checks an lse result against the oracle over keys [k0, k1); returns the mismatches.
std::size_t lse_mismatches(const Case& c, const Inputs& in, const attn::BatchedAttention& r, std::size_t k0,
                           std::size_t k1, double* worst) {
    std::size_t bad = 0;
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t h = 0; h < r.heads; ++h) {
            const std::vector<double> want = oracle_lse(c, in, b, h, r.heads, r.kv_heads, k0, k1);
            for (std::size_t i = 0; i < want.size(); ++i) {
                const double got = lse_at(r.lse, slice_of(c, b, h, r.heads), i);
                if (want[i] == -INFINITY) {
                    bad += got != -INFINITY;
                    continue;
                }
                const double err = std::fabs(got - want[i]);
                *worst = std::max(*worst, err);
                bad += !(err <= 2e-6 * (1.0 + std::fabs(want[i])));
            }
        }
    return bad;
}

// Shard boundaries over Tk keys: one shard; an empty one first; four near-equal; uneven ones
// with a single key, a lane either side of 16 and an empty shard in the middle.
std::vector<std::vector<std::size_t>> partitions(std::size_t Tk) {
    std::vector<std::vector<std::size_t>> p{{0, Tk}, {0, 0, Tk}, {0, Tk / 4, Tk / 2, 3 * Tk / 4, Tk}};
    std::vector<std::size_t> uneven{0, 1};
    for (std::size_t cut : {std::size_t(16), std::size_t(33), Tk / 2, Tk / 2, Tk - 1})
        if (cut >= uneven.back() && cut <= Tk) uneven.push_back(cut);
    uneven.push_back(Tk);
    p.push_back(uneven);
    return p;
}

struct ShardRuns {
    std::vector<attn::BatchedAttention> runs;
    std::vector<attn::KeyShard> shards(const std::vector<std::size_t>& order) const {
        std::vector<attn::KeyShard> s;
        for (std::size_t k : order) s.push_back({runs[k].context.view(), runs[k].lse.view()});
        return s;
    }
};

// merged within 2e-6 of the whole run, relative to the magnitude of the context's values;
// NaN where the whole run has NaN, and -inf lse where it has -inf.
std::size_t merge_mismatches(const attn::MergedShards& m, const attn::BatchedAttention& whole, double* worst) {
    const Tensor& w = whole.context;
    if (!(m.context.shape() == w.shape()) || !(m.lse.shape() == whole.lse.shape())) return 1;
    double size = 1e-30;
    for (std::size_t s = 0; s < w.slices(); ++s)
        for (std::size_t r = 0; r < w.rows(); ++r)
            for (std::size_t k = 0; k < w.cols(); ++k) {
                const float x = w.slice_data(s)[r * w.row_stride() + k];
                if (std::isfinite(x)) size = std::max(size, double(std::fabs(x)));
            }
    std::size_t bad = 0;
    for (std::size_t s = 0; s < w.slices(); ++s)
        for (std::size_t r = 0; r < w.rows(); ++r)
            for (std::size_t k = 0; k < w.cols(); ++k) {
                const double a = m.context.slice_data(s)[r * m.context.row_stride() + k];
                const double b = w.slice_data(s)[r * w.row_stride() + k];
                if (std::isnan(b) || std::isnan(a)) {
                    bad += std::isnan(a) != std::isnan(b);
                    continue;
                }
                *worst = std::max(*worst, std::fabs(a - b) / size);
                bad += !(std::fabs(a - b) <= 2e-6 * size);
            }
    const std::size_t n = whole.lse.shape().numel(), cols = whole.lse.cols();
    for (std::size_t e = 0; e < n; ++e) {
        const std::size_t off = (e / cols) * whole.lse.row_stride() + e % cols;
        const double a = m.lse.data()[off], b = whole.lse.data()[off];
        if (b == -INFINITY) bad += a != -INFINITY;
        else bad += !(std::fabs(a - b) <= 2e-6 * (1.0 + std::fabs(b)));
    }
    return bad;
}

}  // namespace

TEST_CASE("lse: the fused, split-K and materialised paths give the float64 oracle's log-sum-exp, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 31;
        for (const Case& c : cases()) {
            Inputs in;
            make_inputs(c, seed++, in);
            for (bool materialised : {false, true}) {
                INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name << ", materialised "
                             << materialised);
                const attn::BatchedAttention r = run(in, in.spec, materialised);
                CHECK(r.fused == !materialised);
                REQUIRE(r.lse.shape().rank() + 1 == r.context.shape().rank());
                double worst = 0;
                CHECK(lse_mismatches(c, in, r, 0, c.k.back(2), &worst) == 0);
                INFO("worst lse error " << worst);
                // The lse of a key shard is the oracle's over its keys (global indices for every rule).
                const std::size_t Tk = c.k.back(2), k0 = Tk / 3, k1 = Tk - Tk / 5;
                attn::AttentionSpec s = in.spec;
                s.key_rows = {k0, k1};
                const attn::BatchedAttention shard = run(in, s, materialised);
                CHECK(lse_mismatches(c, in, shard, k0, k1, &worst) == 0);
            }
        }
    }
}

TEST_CASE("key shards: merged shards of every size give the whole run, in any order, one shard bit for bit") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 90;
        for (const Case& c : cases()) {
            Inputs in;
            make_inputs(c, seed++, in);
            const std::size_t Tk = c.k.back(2);
            for (bool materialised : {false, true}) {
                const attn::BatchedAttention whole = run(in, in.spec, materialised);
                for (const std::vector<std::size_t>& cuts : partitions(Tk)) {
                    std::string cut_text;
                    for (std::size_t x : cuts) cut_text += " " + std::to_string(x);
                    INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name << ", materialised "
                                 << materialised << ", cuts" << cut_text);
                    ShardRuns sr;
                    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
                        attn::AttentionSpec s = in.spec;
                        s.key_rows = {cuts[k], cuts[k + 1]};
                        sr.runs.push_back(run(in, s, materialised));
                    }
                    std::vector<std::size_t> order(sr.runs.size());
                    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
                    const attn::MergedShards m = attn::merge_key_shards(sr.shards(order));
                    double worst = 0;
                    CHECK(merge_mismatches(m, whole, &worst) == 0);
                    INFO("worst merged error " << worst);
                    if (cuts.size() == 2) {  // one shard: unchanged, the whole run's bits
                        CHECK(same_bits(m.context, whole.context));
                        CHECK(same_bits(m.lse, whole.lse));
                    }
                    std::reverse(order.begin(), order.end());
                    const attn::MergedShards reversed = attn::merge_key_shards(sr.shards(order));
                    std::rotate(order.begin(), order.begin() + order.size() / 2, order.end());
                    const attn::MergedShards rotated = attn::merge_key_shards(sr.shards(order));
                    CHECK(same_bits(m.context, reversed.context));
                    CHECK(same_bits(m.lse, reversed.lse));
                    CHECK(same_bits(m.context, rotated.context));
                    CHECK(same_bits(m.lse, rotated.lse));
                }
            }
        }
    }
}

TEST_CASE("key shards: the same bits for threads 1, 2 and 3") {
    test_util::ArchGuard guard;
    unsigned seed = 150;
    for (const Case& c : cases()) {
        INFO("case " << c.name);
        Inputs in;
        make_inputs(c, seed++, in);
        attn::AttentionSpec s = in.spec;
        s.key_rows = {c.k.back(2) / 5, c.k.back(2) - 3};
        for (bool materialised : {false, true}) {
            attn::set_threads(1);
            const attn::BatchedAttention one = run(in, s, materialised);
            for (unsigned t : {2u, 3u}) {
                attn::set_threads(t);
                const attn::BatchedAttention other = run(in, s, materialised);
                CHECK(same_bits(one.context, other.context));
                CHECK(same_bits(one.lse, other.lse));
            }
        }
    }
}

TEST_CASE("key shards: merge_key_shards against float64 shards of float64 attention") {
    // Logits z and values V in double; each shard's softmax context and lse computed in double
    // and rounded to float32, as a shard writes them; the merge against the whole in double.
    std::mt19937 rng(7);
    std::normal_distribution<double> normal(0.0, 3.0);
    const std::size_t rows = 23, Tk = 41, dv = 6;
    std::vector<std::vector<double>> z(rows, std::vector<double>(Tk)), V(Tk, std::vector<double>(dv));
    for (auto& r : z)
        for (double& x : r) x = normal(rng);
    for (auto& r : V)
        for (double& x : r) x = normal(rng);
    for (std::size_t j = 0; j < Tk; ++j) z[5][j] = -INFINITY;       // masked everywhere
    for (std::size_t j = 0; j < 30; ++j) z[7][j] = -INFINITY;       // visible in the last shard only
    const std::vector<std::size_t> cuts{0, 10, 10, 30, 41};         // an empty shard too
    auto softmax = [&](std::size_t i, std::size_t k0, std::size_t k1, std::vector<double>& ctx) -> double {
        double mx = -INFINITY;
        for (std::size_t j = k0; j < k1; ++j) mx = std::max(mx, z[i][j]);
        ctx.assign(dv, 0.0);
        if (mx == -INFINITY) return -INFINITY;
        double sum = 0;
        for (std::size_t j = k0; j < k1; ++j) sum += std::exp(z[i][j] - mx);
        for (std::size_t j = k0; j < k1; ++j)
            for (std::size_t c = 0; c < dv; ++c) ctx[c] += std::exp(z[i][j] - mx) / sum * V[j][c];
        return mx + std::log(sum);
    };
    std::vector<Tensor> ctx, lse;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        ctx.emplace_back(Shape{rows, dv});
        lse.emplace_back(Shape{rows});
        for (std::size_t i = 0; i < rows; ++i) {
            std::vector<double> c;
            const double l = softmax(i, cuts[k], cuts[k + 1], c);
            lse.back().data()[i] = float(l);
            for (std::size_t d = 0; d < dv; ++d)  // a masked row holds NaN (--masked-rows nan): not read
                ctx.back().data()[i * ctx.back().row_stride() + d] = l == -INFINITY ? NAN : float(c[d]);
        }
    }
    std::vector<attn::KeyShard> shards;
    for (std::size_t k = 0; k < ctx.size(); ++k) shards.push_back({ctx[k].view(), lse[k].view()});
    const attn::MergedShards m = attn::merge_key_shards(shards);
    REQUIRE(m.context.shape() == (Shape{rows, dv}));
    REQUIRE(m.lse.shape() == (Shape{rows}));
    for (std::size_t i = 0; i < rows; ++i) {
        INFO("row " << i);
        std::vector<double> want;
        const double l = softmax(i, 0, Tk, want);
        if (l == -INFINITY) {
            CHECK(m.lse.data()[i] == -INFINITY);
            CHECK(std::isnan(m.context.data()[i * m.context.row_stride()]));  // the shards' policy value
            continue;
        }
        CHECK(std::fabs(m.lse.data()[i] - l) <= 1e-6 * (1 + std::fabs(l)));
        for (std::size_t d = 0; d < dv; ++d)
            CHECK(std::fabs(m.context.data()[i * m.context.row_stride() + d] - want[d]) <= 2e-6 * 10.0);
    }
}

TEST_CASE("key shards: mismatched shapes, NaN or +inf lse and a non-finite context are refused, naming the shard") {
    const Tensor c(Shape{2, 3, 4}), l(Shape{2, 3}), c_other(Shape{2, 4, 4}), l_other(Shape{2, 4});
    const Tensor l_wrong(Shape{3, 2});
    CHECK_THROWS_AS(attn::merge_key_shards({}), attn::InputError);
    try {
        attn::merge_key_shards({{c.view(), l.view()}, {c_other.view(), l_other.view()}});
        FAIL("mismatched shards merged");
    } catch (const attn::ShardError& e) {
        CHECK(e.shard == 1);
    }
    CHECK_THROWS_AS(attn::merge_key_shards({{c.view(), l_wrong.view()}}), attn::ShardError);
    for (float v : {NAN, INFINITY}) {
        Tensor bad(Shape{2, 3});
        bad.data()[1] = v;
        CHECK_THROWS_AS(attn::merge_key_shards({{c.view(), l.view()}, {c.view(), bad.view()}}), attn::ShardError);
    }
    Tensor nan_ctx(Shape{2, 3, 4});
    nan_ctx.data()[0] = NAN;  // row 0 with a finite lse (0): not a masked row
    CHECK_THROWS_AS(attn::merge_key_shards({{nan_ctx.view(), l.view()}}), attn::ShardError);
}

TEST_CASE("key rows: out of range is a ShapeError of role key rows; empty is allowed; visible_range's key_first") {
    const Tensor q(Shape{2, 3}), k(Shape{4, 3}), v(Shape{4, 2});
    attn::AttentionSpec s;
    s.key_rows = {3, 2};
    CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), v.view(), s), attn::ShapeError);
    s.key_rows = {0, 5};
    try {
        attn::resolve_attention(q.view(), k.view(), v.view(), s);
        FAIL("key rows past Tk resolved");
    } catch (const attn::ShapeError& e) {
        CHECK(e.role == attn::Role::key_rows);
    }
    s.key_rows = {2, 2};
    const attn::AttentionProblem p = attn::resolve_attention(q.view(), k.view(), v.view(), s);
    CHECK(p.keys(0, 0).begin == p.keys(0, 0).end);
    for (std::size_t first : {0, 2, 5})
        for (std::size_t limit : {std::size_t(4), std::size_t(7), attn::no_key_limit})
            for (std::size_t i = 0; i < 6; ++i) {
                const attn::KeyRange r = attn::visible_range(Causal::top_left, {2, unbounded}, i, 6, 8, limit, first);
                for (std::size_t j = 0; j < 8; ++j) {
                    const bool want = j <= i && j + 2 >= i && j < limit && j >= first;
                    CHECK((j >= r.begin && j < r.end) == want);
                }
            }
}
