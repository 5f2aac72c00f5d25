// Per-batch-item causal offsets (AttentionSpec::offsets, issue 23) through every path of the
// engine (fused, materialised, split-K decoding) and every arch this machine runs, against the
// float64 oracle of double_reference.hpp (ONNX's rule: key j visible iff j <= i + offset, the
// window and ALiBi at p = i + offset), on awkward shapes: Tq = 1, Tq ≠ Tk, negative offsets,
// offsets that leave whole rows without a key, offsets that differ per batch item, odd d,
// grouped-query heads; the float64 softmax; the same bits for threads 1, 2 and 3.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "attn/multihead.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

namespace {

using attn::Causal;
using attn::Shape;
using attn::Tensor;
using attn::unbounded;
using attn::Window;
using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
using test_util::Oracle;

// (Every field after the shapes has a default member initializer, so that a case may stop
// after any of them without -Wmissing-field-initializers.)
struct Case {
    std::string name;
    Shape q, k, v;  // (B, H, T, d) / (B, G, T, d)
    std::vector<long long> offsets = {};
    Causal causal = Causal::top_left;
    Window window = {};
    float alibi = 0.0f;
    std::vector<std::size_t> lengths = {};
    bool f64 = false;
};

std::vector<Case> cases() {
    std::vector<Case> c;
    c.push_back({"decode Tq=1, offsets 5 and -1 (item 1 sees no key), window 3", {2, 2, 1, 8}, {2, 2, 40, 8},
                 {2, 2, 40, 5}, {5, -1}, Causal::top_left, {3, unbounded}});
    c.push_back({"decode Tq=3, one offset 20 for both, ALiBi, gqa H=4 G=2", {2, 4, 3, 16}, {2, 2, 300, 16},
                 {2, 2, 300, 7}, {20}, Causal::top_left, {}, 8.0f});
    c.push_back({"Tq=7 Tk=13, offsets -4 and 2: item 0's first 4 rows empty, odd d", {2, 1, 7, 5}, {2, 1, 13, 5},
                 {2, 1, 13, 3}, {-4, 2}});
    c.push_back({"prefill Tq=70 Tk=50, offsets -20 and 100, window 10:2, gqa H=4 G=2, d=33", {2, 4, 70, 33},
                 {2, 2, 50, 33}, {2, 2, 50, 17}, {-20, 100}, Causal::top_left, {10, 2}});
    c.push_back({"prefill Tq=40 Tk=90, offsets 30 and 55 with lengths 60 and 90, ALiBi", {2, 2, 40, 16},
                 {2, 2, 90, 16}, {2, 2, 90, 16}, {30, 55}, Causal::top_left, {}, 4.0f, {60, 90}});
    c.push_back({"no causal rule, offsets 3 and -2 move the window 1:1 only", {2, 1, 9, 8}, {2, 1, 12, 8},
                 {2, 1, 12, 8}, {3, -2}, Causal::none, {1, 1}});
    c.push_back({"float64 softmax, Tq=33 Tk=20, offsets -5 and 7", {2, 2, 33, 8}, {2, 2, 20, 8}, {2, 2, 20, 8},
                 {-5, 7}, Causal::top_left, {}, 0.0f, {}, true});
    return c;
}

struct Inputs {
    Tensor Q, K, V;
    attn::AttentionSpec spec;
};

Inputs make_inputs(const Case& c, unsigned seed) {
    std::mt19937 rng(seed);
    Inputs in;
    in.Q = random_tensor(c.q, rng), in.K = random_tensor(c.k, rng), in.V = random_tensor(c.v, rng);
    in.spec.causal = c.causal;
    in.spec.offsets = c.offsets;
    in.spec.window = c.window;
    in.spec.alibi = c.alibi;
    in.spec.lengths = c.lengths;
    in.spec.softmax_f64 = c.f64;
    return in;
}

attn::BatchedAttention run(const Inputs& in, const attn::AttentionWants& w) {
    return attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), in.spec, w);
}

Oracle oracle(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H, std::size_t G) {
    const std::size_t kv = h / (H / G);
    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, kv), V = slice_bh(in.V, b, kv);
    const std::size_t Tq = Q.rows(), Tk = K.rows();
    attn::Matrix mask(Tq, Tk, 1.0f);
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j)
            if (!c.lengths.empty() && j >= c.lengths[b]) mask(i, j) = 0.0f;
    test_ref::Spec s;
    s.scale = 1.0 / std::sqrt(double(Q.cols()));
    s.causal = c.causal == Causal::none ? 0 : 1;
    s.offset = c.offsets[c.offsets.size() == 1 ? 0 : b];
    s.mask = &mask;
    s.left = c.window.left == unbounded ? -1 : (long long)c.window.left;
    s.right = c.window.right == unbounded ? -1 : (long long)c.window.right;
    // BLOOM's slopes for H heads (independently: 2^(-8/H·(h+1)) for H a power of two).
    if (c.alibi != 0.0f) s.alibi_slope = std::pow(2.0, -double(c.alibi) / double(H) * double(h + 1));
    Oracle o;
    o.weights = test_ref::attention(Q, K, V, s, &o.context, &o.masked);
    return o;
}

std::size_t mismatches(const float* p, std::size_t ld, const test_ref::Grid& want, double tol, double* worst) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j) {
            const double err = std::fabs(double(p[i * ld + j]) - want[i][j]);
            *worst = std::max(*worst, err);
            bad += !(err <= tol * (1.0 + std::fabs(want[i][j])));
        }
    return bad;
}

}  // namespace

TEST_CASE("causal offsets: fused, materialised and split-K decoding match the float64 oracle, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 31;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            const Inputs in = make_inputs(c, seed++);
            const attn::BatchedAttention first = run(in, {});
            CHECK(first.fused == !c.f64);  // the float64 softmax is the materialised path's
            if (!c.f64) CHECK(first.split_keys == (c.q.back(2) <= attn::decode_max_rows));
            attn::AttentionWants all;
            all.weights = true;
            const attn::BatchedAttention mat = run(in, all);
            CHECK(!mat.fused);
            const std::size_t B = mat.batch, H = mat.heads, G = mat.kv_heads;
            std::size_t bad = 0, bad_w = 0, masked = 0;
            double worst = 0;
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t h = 0; h < H; ++h) {
                    const Oracle o = oracle(c, in, b, h, H, G);
                    masked += o.masked;
                    const std::size_t s = b * H + h;
                    bad += mismatches(first.context.slice_data(s), first.context.row_stride(), o.context, 2e-5, &worst);
                    bad += mismatches(mat.context.slice_data(s), mat.context.row_stride(), o.context, 2e-5, &worst);
                    bad_w += mismatches(mat.weights.slice_data(s), mat.weights.row_stride(), o.weights, 2e-5, &worst);
                }
            INFO("worst error " << worst);
            CHECK(bad == 0);
            CHECK(bad_w == 0);
            CHECK(first.masked_rows == masked);
            CHECK(mat.masked_rows == masked);
        }
    }
}

TEST_CASE("causal offsets: the same bits for threads 1, 2 and 3") {
    for (const Case& c : cases()) {
        INFO("case " << c.name);
        const Inputs in = make_inputs(c, 7);
        attn::AttentionWants all;
        all.weights = true;
        attn::set_threads(1);
        const attn::BatchedAttention f1 = run(in, {}), m1 = run(in, all);
        for (std::size_t t : {2, 3}) {
            attn::set_threads(t);
            const attn::BatchedAttention ft = run(in, {}), mt = run(in, all);
            CHECK(same_bits(f1.context, ft.context));
            CHECK(same_bits(m1.context, mt.context));
            CHECK(same_bits(m1.weights, mt.weights));
        }
        attn::set_threads(0);
    }
}

TEST_CASE("causal offsets: the resolved problem's offset, position and keys; bad counts and magnitudes") {
    std::mt19937 rng(3);
    const Tensor q = random_tensor(Shape{3, 1, 4, 8}, rng), k = random_tensor(Shape{3, 1, 10, 8}, rng);
    attn::AttentionSpec spec;
    spec.causal = Causal::top_left;
    spec.offsets = {-6, 0, 7};
    const attn::AttentionProblem p = attn::resolve_attention(q.view(), k.view(), k.view(), spec);
    CHECK((p.offset(0) == -6 && p.offset(1) == 0 && p.offset(2) == 7));
    CHECK(p.position(0, 3) == -3);
    CHECK(p.keys(0, 3).end == 0);   // j <= -3: none
    CHECK(p.keys(1, 3).end == 4);   // j <= 3
    CHECK(p.keys(2, 3).end == 10);  // j <= 10, clamped to Tk
    // Without offsets, the alignment's own; bottom-right with lengths, each item's length − Tq.
    attn::AttentionSpec br;
    br.causal = Causal::bottom_right;
    CHECK(attn::resolve_attention(q.view(), k.view(), k.view(), br).offset(2) == 6);
    br.lengths = {2, 10, 5};
    const attn::AttentionProblem pl = attn::resolve_attention(q.view(), k.view(), k.view(), br);
    CHECK((pl.offset(0) == -2 && pl.offset(1) == 6 && pl.offset(2) == 1));
    spec.offsets = {1, 2};
    CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), k.view(), spec), attn::ShapeError);
    spec.offsets = {attn::max_causal_offset + 1};
    CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), k.view(), spec), attn::InputError);
}
