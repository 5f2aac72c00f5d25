// Score functions (AttentionSpec::score: general, additive, cosine) through the engine's paths
// (fused, materialised, split-K decoding) on every arch this machine runs, against the float64
// oracle of double_reference.hpp given scores written from each definition: Luong's q·W_a·kᵀ,
// Bahdanau's v_aᵀ·tanh(q·W_q + k·W_k) (d2l's AdditiveAttention), q·k/(|q|·|k|) with 0 for a
// zero vector. Awkward shapes: h = 1, Tq = 1, Tq ≠ Tk, d_q ≠ d_k, odd d, grouped-query heads,
// masks, lengths, windows, a softcap. Also: the same bits for any thread count and query rows,
// the default scales, and shapes that do not fit (errors naming the weight's role).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

namespace {

using attn::Causal;
using attn::ScoreFunction;
using attn::Shape;
using attn::Tensor;
using attn::TensorView;
using attn::unbounded;
using attn::Window;
using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
using test_util::check_same_bits_over_threads;
using test_util::slice_of;

struct Case {
    std::string name;
    ScoreFunction score = ScoreFunction::dot;
    Shape q, k, v;
    std::size_t h = 0;  // additive's hidden size
    Causal causal = Causal::none;
    Window window;
    float softcap = 0.0f, scale = 0.0f;  // scale 0: the default
    std::vector<std::size_t> lengths;
    bool mask = false, zero_rows = false;
};

Case make(std::string name, ScoreFunction score, Shape q, Shape k, Shape v) {
    Case c;
    c.name = std::move(name);
    c.score = score, c.q = q, c.k = k, c.v = v;
    return c;
}

std::vector<Case> cases() {
    std::vector<Case> c;
    Case g = make("general: gqa H=2 G=1, d_q=5 d_k=3, bottom-right, lengths", ScoreFunction::general, {2, 2, 7, 5}, {2, 1, 9, 3},
           {2, 1, 9, 4});
    g.causal = Causal::bottom_right, g.lengths = {9, 4};
    c.push_back(g);
    Case gd = make("general: decode Tq=1 over 700 keys, window 300:0, d_q=6 d_k=7", ScoreFunction::general, {1, 4, 1, 6},
            {1, 2, 700, 7}, {1, 2, 700, 5});
    gd.causal = Causal::bottom_right, gd.window = {300, 0};
    c.push_back(gd);
    Case gm = make("general: mask, softcap 2, Tq=33 Tk=17, d=16", ScoreFunction::general, {33, 16}, {17, 16}, {17, 16});
    gm.mask = true, gm.softcap = 2.0f;
    c.push_back(gm);
    Case cs = make("cosine: zero rows, causal, window 5, scale 3", ScoreFunction::cosine, {2, 3, 33, 17}, {2, 3, 33, 17},
            {2, 3, 33, 9});
    cs.zero_rows = true, cs.causal = Causal::top_left, cs.window = {5, unbounded}, cs.scale = 3.0f;
    c.push_back(cs);
    Case cd = make("cosine: decode Tq=2, softcap 0.5, gqa", ScoreFunction::cosine, {1, 4, 2, 8}, {1, 2, 500, 8}, {1, 2, 500, 3});
    cd.softcap = 0.5f, cd.zero_rows = true;
    c.push_back(cd);
    Case a1 = make("additive: h=1, d_q=3 d_k=5", ScoreFunction::additive, {1, 2, 6, 3}, {1, 2, 6, 5}, {1, 2, 6, 2});
    a1.h = 1;
    c.push_back(a1);
    Case a17 = make("additive: h=17, Tq=40 Tk=37, mask, lengths", ScoreFunction::additive, {2, 1, 40, 7}, {2, 1, 37, 4},
             {2, 1, 37, 5});
    a17.h = 17, a17.mask = true, a17.lengths = {37, 16};
    c.push_back(a17);
    Case ah = make("additive: h=lane+1 (17), odd d, Tq=1, causal window 3:1", ScoreFunction::additive, {1, 9}, {67, 9},
            {67, 3});
    ah.h = 17, ah.causal = Causal::bottom_right, ah.window = {3, 1};
    c.push_back(ah);
    Case ag = make("additive: gqa H=4 G=2, h=33, softcap 3, top-left Tq>Tk", ScoreFunction::additive, {4, 20, 6},
            {2, 15, 6}, {2, 15, 6});
    ag.h = 33, ag.softcap = 3.0f, ag.causal = Causal::top_left;
    c.push_back(ag);
    return c;
}

struct Inputs {
    Tensor Q, K, V, mask, wa, wq, wk, va;
    TensorView mv, wav, wqv, wkv, vav;
    attn::AttentionSpec spec;
};

void make_inputs(const Case& c, unsigned seed, Inputs& in) {
    std::mt19937 rng(seed);
    in.Q = random_tensor(c.q, rng), in.K = random_tensor(c.k, rng), in.V = random_tensor(c.v, rng);
    const std::size_t Tq = c.q.back(2), Tk = c.k.back(2), dq = c.q.back(1), dk = c.k.back(1);
    if (c.zero_rows) {  // a zero query and a zero key in the first slice
        std::fill(in.Q.data() + in.Q.row_stride(), in.Q.data() + in.Q.row_stride() + dq, 0.0f);
        std::fill(in.K.data(), in.K.data() + dk, 0.0f);
    }
    if (c.mask) {
        std::uniform_int_distribution<int> coin(0, 3);
        in.mask = Tensor(Shape{Tq, Tk});
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j) in.mask.data()[i * in.mask.row_stride() + j] = coin(rng) != 0;
        in.mv = in.mask.view();
        in.spec.mask = &in.mv;
    }
    in.spec.score = c.score;
    if (c.score == ScoreFunction::general) {
        in.wa = random_tensor(Shape{dq, dk}, rng, 1.0f / std::sqrt(float(dq)));
        in.wav = in.wa.view(), in.spec.wa = &in.wav;
    }
    if (c.score == ScoreFunction::additive) {
        in.wq = random_tensor(Shape{dq, c.h}, rng, 1.0f / std::sqrt(float(dq)));
        in.wk = random_tensor(Shape{dk, c.h}, rng, 1.0f / std::sqrt(float(dk)));
        in.va = random_tensor(Shape{c.h}, rng);
        in.wqv = in.wq.view(), in.wkv = in.wk.view(), in.vav = in.va.view();
        in.spec.wa_q = &in.wqv, in.spec.wa_k = &in.wkv, in.spec.va = &in.vav;
    }
    in.spec.causal = c.causal;
    in.spec.window = c.window;
    in.spec.softcap = c.softcap;
    in.spec.lengths = c.lengths;
    if (c.scale != 0.0f) in.spec.scale = c.scale;
}

attn::BatchedAttention run(const Inputs& in, const attn::AttentionSpec& spec, const attn::AttentionWants& w) {
    return attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
}

double at(const Tensor& t, std::size_t r, std::size_t c) { return t.data()[r * t.row_stride() + c]; }

// s(q_i, k_j) in float64 from the definitions.
test_ref::Grid scores(const Case& c, const Inputs& in, const attn::Matrix& Q, const attn::Matrix& K) {
    const std::size_t Tq = Q.rows(), Tk = K.rows(), dq = Q.cols(), dk = K.cols();
    test_ref::Grid s(Tq, std::vector<double>(Tk, 0.0));
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j) {
            double x = 0;
            if (c.score == ScoreFunction::general) {
                for (std::size_t a = 0; a < dq; ++a)
                    for (std::size_t b = 0; b < dk; ++b) x += double(Q(i, a)) * at(in.wa, a, b) * double(K(j, b));
            } else if (c.score == ScoreFunction::cosine) {
                double dot = 0, nq = 0, nk = 0;
                for (std::size_t a = 0; a < dq; ++a)
                    dot += double(Q(i, a)) * K(j, a), nq += double(Q(i, a)) * Q(i, a), nk += double(K(j, a)) * K(j, a);
                x = nq == 0 || nk == 0 ? 0.0 : dot / (std::sqrt(nq) * std::sqrt(nk));
            } else {
                for (std::size_t h = 0; h < c.h; ++h) {
                    double pre = 0;
                    for (std::size_t a = 0; a < dq; ++a) pre += double(Q(i, a)) * at(in.wq, a, h);
                    for (std::size_t b = 0; b < dk; ++b) pre += double(K(j, b)) * at(in.wk, b, h);
                    x += double(in.va.data()[h]) * std::tanh(pre);
                }
            }
            s[i][j] = x;
        }
    return s;
}

struct Oracle {
    test_ref::Grid weights, context;
    double reach = 0;  // the largest |scale·s|
};

Oracle oracle(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H, std::size_t G) {
    const std::size_t kv = h / (H / G);
    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, kv), V = slice_bh(in.V, b, kv);
    const std::size_t Tq = Q.rows(), Tk = K.rows();
    attn::Matrix mask(Tq, Tk, 1.0f);
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j) {
            if (c.mask) mask(i, j) = float(at(in.mask, i, j));
            if (!c.lengths.empty() && j >= c.lengths[b]) mask(i, j) = 0.0f;
        }
    const test_ref::Grid s = scores(c, in, Q, K);
    test_ref::Spec spec;
    const bool unit = c.score == ScoreFunction::additive || c.score == ScoreFunction::cosine;
    spec.scale = c.scale != 0.0f ? double(c.scale) : unit ? 1.0 : 1.0 / std::sqrt(double(K.cols()));
    spec.causal = c.causal == Causal::top_left ? 1 : c.causal == Causal::bottom_right ? 2 : 0;
    // bottom-right with lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen rule)
    if (c.causal == Causal::bottom_right && !c.lengths.empty()) spec.offset = (long long)c.lengths[b] - (long long)Tq;
    spec.mask = &mask;
    spec.softcap = c.softcap;
    spec.left = c.window.left == unbounded ? -1 : (long long)c.window.left;
    spec.right = c.window.right == unbounded ? -1 : (long long)c.window.right;
    spec.scores = &s;
    Oracle o;
    o.weights = test_ref::attention(Q, K, V, spec, &o.context);
    for (const auto& row : s)
        for (double x : row) o.reach = std::max(o.reach, std::fabs(spec.scale * x));
    if (c.softcap > 0) o.reach = std::min(o.reach, double(c.softcap));
    return o;
}

std::size_t mismatches(const float* p, std::size_t ld, const test_ref::Grid& want, double size, double rel) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j)
            bad += !(std::fabs(p[i * ld + j] - want[i][j]) <= rel * std::fabs(want[i][j]) + std::max(2e-6, rel / 4) * size);
    return bad;
}

}  // namespace

TEST_CASE("score functions: fused, materialised and split-K decoding match the float64 definitions, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 11;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, seed++, in);
            const attn::BatchedAttention ctx = run(in, in.spec, {});
            CHECK(ctx.fused == (c.score != ScoreFunction::additive));  // additive: through its score matrix
            attn::AttentionWants all;
            all.weights = true;
            const attn::BatchedAttention mat = run(in, in.spec, all);
            std::size_t bad = 0, bad_w = 0;
            double rel = 0;
            for (std::size_t b = 0; b < mat.batch; ++b)
                for (std::size_t h = 0; h < mat.heads; ++h) {
                    const Oracle o = oracle(c, in, b, h, mat.heads, mat.kv_heads);
                    rel = 1e-5 + 4e-7 * o.reach;
                    const std::size_t s = slice_of(c, b, h, mat.heads);
                    bad += mismatches(ctx.context.slice_data(s), ctx.context.row_stride(), o.context, 4.0, rel);
                    bad += mismatches(mat.context.slice_data(s), mat.context.row_stride(), o.context, 4.0, rel);
                    bad_w += mismatches(mat.weights.slice_data(s), mat.weights.row_stride(), o.weights, 1.0, rel);
                }
            INFO("tolerance " << rel);
            CHECK(bad == 0);
            CHECK(bad_w == 0);
        }
    }
}

TEST_CASE("score functions: the same bits for threads 1, 2 and 3, and for any range of query rows") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 300;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, seed++, in);
            attn::AttentionWants w;
            w.weights = true;
            const attn::BatchedAttention one =
                check_same_bits_over_threads({2u, 3u}, true, [&] { return run(in, in.spec, w); });
            const std::size_t Tq = c.q.back(2);
            attn::AttentionSpec s = in.spec;
            s.query_rows = {Tq - 1, Tq};
            const attn::BatchedAttention part = run(in, s, w);
            bool same = part.context.slices() == one.context.slices();
            for (std::size_t sl = 0; same && sl < part.context.slices(); ++sl)
                same = std::memcmp(one.context.slice_data(sl) + (Tq - 1) * one.context.row_stride(),
                                   part.context.slice_data(sl), part.context.cols() * sizeof(float)) == 0;
            CHECK(same);
        }
    }
}

TEST_CASE("score functions: default scales, and weights that do not fit name their role") {
    const Tensor q(Shape{2, 3}), k(Shape{4, 5}), v(Shape{4, 2}), k3(Shape{4, 3});
    const Tensor wa(Shape{3, 5}), wq(Shape{3, 7}), wk(Shape{5, 7}), va(Shape{7}), va_col(Shape{7, 1});
    const TensorView wav = wa.view(), wqv = wq.view(), wkv = wk.view(), vav = va.view(), vcv = va_col.view();
    attn::AttentionSpec g;
    g.score = ScoreFunction::general, g.wa = &wav;
    CHECK(attn::resolve_attention(q.view(), k.view(), v.view(), g).scale == attn::default_scale(5));
    attn::AttentionSpec a;
    a.score = ScoreFunction::additive, a.wa_q = &wqv, a.wa_k = &wkv, a.va = &vav;
    CHECK(attn::resolve_attention(q.view(), k.view(), v.view(), a).scale == 1.0f);
    a.va = &vcv;  // a (h, 1) column is v_a too
    CHECK(attn::resolve_attention(q.view(), k.view(), v.view(), a).scale == 1.0f);
    attn::AttentionSpec c;
    c.score = ScoreFunction::cosine;
    CHECK(attn::resolve_attention(q.view(), k3.view(), v.view(), c).scale == 1.0f);
    // d_q != d_k needs a score with weights.
    CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), v.view(), c), attn::ShapeError);
    // Missing, misshapen and misplaced weights.
    attn::AttentionSpec missing;
    missing.score = ScoreFunction::general;
    CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), v.view(), missing), attn::InputError);
    attn::AttentionSpec wrong = g;
    wrong.wa = &wqv;  // 3×7 for 3×5
    try {
        attn::resolve_attention(q.view(), k.view(), v.view(), wrong);
        FAIL("no error");
    } catch (const attn::ShapeError& e) {
        CHECK(e.role == attn::Role::wa);
        CHECK(e.dimension == "columns");
        CHECK(e.got == 7);
        CHECK(e.wanted == 5);
    }
    attn::AttentionSpec short_va = a;
    const Tensor va6(Shape{6});
    const TensorView va6v = va6.view();
    short_va.va = &va6v;
    try {
        attn::resolve_attention(q.view(), k.view(), v.view(), short_va);
        FAIL("no error");
    } catch (const attn::ShapeError& e) {
        CHECK(e.role == attn::Role::va);
        CHECK(e.got == 6);
    }
    attn::AttentionSpec stray;
    stray.wa = &wav;  // W_a with the dot score
    CHECK_THROWS_AS(attn::resolve_attention(q.view(), k3.view(), v.view(), stray), attn::InputError);
}
