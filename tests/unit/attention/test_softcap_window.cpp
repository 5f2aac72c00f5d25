// The softcap c·tanh(x/c) and ONNX's sliding window (AttentionSpec::softcap, ::window) through
// every path of the engine (fused, materialised, split-K decoding) and every arch this machine
// runs, against the float64 oracle of double_reference.hpp written from the definition (ONNX
// Attention's order: scale·q·k, softcap, + bias, masks, softmax, ·V), on awkward shapes:
// Tq = 1, Tq ≠ Tk, windows wider than Tk, of 0, one-sided, rows the window masks entirely,
// odd d, lengths a lane either side of a vector, Gemma 2's softcap with a sliding window.
// Also: the same bits for threads 1, 2, 3 and 7 and for any query-row range, and each SIMD
// arch against the scalar one.
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
using attn::Shape;
using attn::Tensor;
using attn::TensorView;
using attn::unbounded;
using attn::Window;
using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
using test_util::check_same_bits_over_threads;
using test_util::Oracle;
using test_util::mismatches;
using test_util::slice_of;

struct Case {
    std::string name;
    Shape q, k, v;
    Causal causal = Causal::none;
    Window window;
    float softcap = 0.0f;
    std::vector<std::size_t> lengths;
    bool bias = false, mask = false;  // (Tq, Tk), shared by every batch item and head
    int policy = 0;                   // 0 zero, 1 nan, 2 uniform
    float sd = 1.5f;                  // of Q and K
    float scale = 0.0f;               // 0: the default 1/sqrt(d_k)
};

Case make(std::string name, Shape q, Shape k, Shape v, Causal causal, Window w, float softcap = 0.0f) {
    Case c;
    c.name = std::move(name);
    c.q = q, c.k = k, c.v = v, c.causal = causal, c.window = w, c.softcap = softcap;
    return c;
}

std::vector<Case> cases() {
    std::vector<Case> c;
    c.push_back(make("window 2:1, bottom-right Tq<Tk, odd d", {1, 2, 7, 5}, {1, 2, 9, 5}, {1, 2, 9, 3},
                     Causal::bottom_right, {2, 1}));
    Case sc = make("softcap 5 before a bias with -inf, and a mask", {2, 2, 37, 17}, {2, 1, 70, 17}, {2, 1, 70, 9},
                   Causal::none, {}, 5.0f);
    sc.bias = sc.mask = true, sc.sd = 3.0f;
    c.push_back(sc);
    c.push_back(make("window wider than Tk on both sides", {2, 50, 8}, {2, 50, 8}, {2, 50, 8}, Causal::none,
                     {1000, 1000}, 2.0f));
    Case zero = make("window 0:0, Tq>Tk: rows past Tk see nothing (uniform)", {40, 6}, {30, 6}, {30, 4}, Causal::none,
                     {0, 0});
    zero.policy = 2;
    c.push_back(zero);
    c.push_back(make("one-sided window 0:3, keys ahead only", {3, 33, 8}, {3, 33, 8}, {3, 33, 7}, Causal::none, {0, 3}));
    c.push_back(make("left unbounded, right 2, top-left causal Tq>Tk", {45, 9}, {31, 9}, {31, 9}, Causal::top_left,
                     {unbounded, 2}, 7.0f));
    Case nan = make("every key masked by the window for most rows (nan policy)", {2, 20, 4}, {2, 5, 4}, {2, 5, 3},
                    Causal::bottom_right, {0, 0});
    nan.policy = 1;
    c.push_back(nan);
    Case lanes = make("lengths a lane either side, causal, window 7, softcap 10", {3, 2, 40, 33}, {3, 2, 40, 33},
                      {3, 2, 40, 33}, Causal::top_left, {7, unbounded}, 10.0f);
    lanes.lengths = {15, 17, 16};
    c.push_back(lanes);
    Case gemma = make("Gemma 2: softcap 50, causal sliding window 32, gqa H=8 G=4, d=256, scale 1/16",
                      {1, 8, 300, 256}, {1, 4, 300, 256}, {1, 4, 300, 256}, Causal::top_left, {31, unbounded}, 50.0f);
    gemma.sd = 4.0f, gemma.scale = 1.0f / 16.0f;
    c.push_back(gemma);
    c.push_back(make("tiles skipped: causal window 150, Tq=Tk=700", {2, 700, 64}, {2, 700, 64}, {2, 700, 64},
                     Causal::top_left, {150, unbounded}, 20.0f));
    // Few query rows: split-K decoding, key chunks outside every row's window skipped.
    c.push_back(make("decode Tq=1, window 100 of 2000 keys, softcap 30, gqa", {1, 8, 1, 64}, {1, 2, 2000, 64},
                     {1, 2, 2000, 64}, Causal::bottom_right, {100, unbounded}, 30.0f));
    Case dec = make("decode Tq=3, window 600:0 with lengths 1700 and 1100", {2, 4, 3, 40}, {2, 2, 1700, 40},
                    {2, 2, 1700, 24}, Causal::bottom_right, {600, 0}, 3.0f);
    dec.lengths = {1700, 1100};
    dec.bias = true;
    c.push_back(dec);
    c.push_back(make("decode Tq=2, window 0 (one key each), no causal", {2, 2, 9}, {2, 900, 9}, {2, 900, 9},
                     Causal::none, {0, 0}));
    return c;
}

struct Inputs {
    Tensor Q, K, V, mask, bias;
    TensorView mv, bv;
    attn::AttentionSpec spec;
};

void make_inputs(const Case& c, unsigned seed, Inputs& in) {
    std::mt19937 rng(seed);
    in.Q = random_tensor(c.q, rng, c.sd), in.K = random_tensor(c.k, rng, c.sd), in.V = random_tensor(c.v, rng);
    const std::size_t Tq = c.q.back(2), Tk = c.k.back(2);
    std::uniform_int_distribution<int> coin(0, 4);
    if (c.mask) {
        in.mask = Tensor(Shape{Tq, Tk});
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j) in.mask.data()[i * in.mask.row_stride() + j] = coin(rng) != 0;
        in.mv = in.mask.view();
        in.spec.mask = &in.mv;
    }
    if (c.bias) {
        in.bias = random_tensor(Shape{Tq, Tk}, rng, 0.5f);
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j)
                if (coin(rng) == 0) in.bias.data()[i * in.bias.row_stride() + j] = -INFINITY;
        in.bv = in.bias.view();
        in.spec.bias = &in.bv;
    }
    in.spec.causal = c.causal;
    in.spec.window = c.window;
    in.spec.softcap = c.softcap;
    in.spec.lengths = c.lengths;
    if (c.scale != 0.0f) in.spec.scale = c.scale;
    in.spec.masked_rows = c.policy == 0 ? attn::MaskedRowPolicy::zero
                          : c.policy == 1 ? attn::MaskedRowPolicy::nan
                                          : attn::MaskedRowPolicy::uniform;
}

attn::BatchedAttention run(const Inputs& in, const attn::AttentionSpec& spec, const attn::AttentionWants& w) {
    return attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
}

Oracle oracle(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H, std::size_t G) {
    const std::size_t kv = h / (H / G);
    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, kv), V = slice_bh(in.V, b, kv);
    const std::size_t Tq = Q.rows(), Tk = K.rows();
    attn::Matrix mask(Tq, Tk, 1.0f);
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j) {
            if (c.mask) mask(i, j) = in.mask.data()[i * in.mask.row_stride() + j];
            if (!c.lengths.empty() && j >= c.lengths[b]) mask(i, j) = 0.0f;
        }
    attn::Matrix bias;
    if (c.bias) bias = in.bias.slice_matrix(0);
    test_ref::Spec s;
    s.scale = c.scale != 0.0f ? double(c.scale) : 1.0 / std::sqrt(double(Q.cols()));
    s.causal = c.causal == Causal::top_left ? 1 : c.causal == Causal::bottom_right ? 2 : 0;
    // bottom-right with lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen rule)
    if (c.causal == Causal::bottom_right && !c.lengths.empty()) s.offset = (long long)c.lengths[b] - (long long)Tq;
    s.mask = &mask;
    s.bias = c.bias ? &bias : nullptr;
    s.policy = c.policy;
    s.softcap = c.softcap;
    s.left = c.window.left == unbounded ? -1 : (long long)c.window.left;
    s.right = c.window.right == unbounded ? -1 : (long long)c.window.right;
    Oracle o;
    o.weights = test_ref::attention(Q, K, V, s, &o.context, &o.masked);
    return o;
}

// Float32 logits of magnitude L carry errors of about L·2^-23 into the weights: the tolerance
// grows with the largest logit the case can reach (the softcap bounds it).
double tolerance(const Case& c) {
    const double dk = double(c.q.back(1)), scale = c.scale != 0.0f ? c.scale : 1.0 / std::sqrt(dk);
    const double reach = c.softcap > 0 ? double(c.softcap) : 4.0 * c.sd * c.sd * dk * scale;
    return 1e-5 + 4e-7 * reach;
}

}  // namespace

TEST_CASE("softcap and window: fused, materialised and split-K decoding match the float64 oracle, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 5;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, seed++, in);
            const attn::BatchedAttention fused = run(in, in.spec, {});
            CHECK(fused.fused);
            CHECK(fused.split_keys == (c.q.back(2) <= attn::decode_max_rows));
            attn::AttentionWants all;
            all.weights = true;
            const attn::BatchedAttention mat = run(in, in.spec, all);
            CHECK(!mat.fused);
            const std::size_t B = fused.batch, H = fused.heads, G = fused.kv_heads;
            const double vsize = 4.0, rel = tolerance(c);  // |V| < 4 sd
            std::size_t bad = 0, bad_w = 0, masked = 0;
            double worst = 0, worst_w = 0;
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t h = 0; h < H; ++h) {
                    const Oracle o = oracle(c, in, b, h, H, G);
                    masked += o.masked;
                    const std::size_t s = slice_of(c, b, h, H);
                    bad += mismatches(fused.context.slice_data(s), fused.context.row_stride(), o.context, vsize, rel,
                                      &worst);
                    bad += mismatches(mat.context.slice_data(s), mat.context.row_stride(), o.context, vsize, rel, &worst);
                    bad_w += mismatches(mat.weights.slice_data(s), mat.weights.row_stride(), o.weights, 1.0, rel, &worst_w);
                }
            INFO("worst context error " << worst << ", weights " << worst_w << ", tolerance " << rel);
            CHECK(bad == 0);
            CHECK(bad_w == 0);
            CHECK(fused.masked_rows == masked);
            CHECK(mat.masked_rows == masked);
        }
    }
}

TEST_CASE("softcap and window: --show capped is cap(scale·Q·Kᵀ) before the bias, every cell; scaled adds bias and masks") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        for (const Case& c : cases()) {
            if (c.q.back(2) * c.k.back(2) > 40000) continue;
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, 77, in);
            attn::AttentionWants w;
            w.capped = w.scaled = true;
            const attn::BatchedAttention r = run(in, in.spec, w);
            const attn::AttentionProblem p = attn::resolve_attention(in.Q.view(), in.K.view(), in.V.view(), in.spec);
            const std::size_t Tq = c.q.back(2), Tk = c.k.back(2), d = c.q.back(1);
            std::size_t bad = 0;
            for (std::size_t b = 0; b < r.batch; ++b)
                for (std::size_t h = 0; h < r.heads; ++h) {
                    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, h / (r.heads / r.kv_heads));
                    const std::size_t s = slice_of(c, b, h, r.heads);
                    for (std::size_t i = 0; i < Tq; ++i)
                        for (std::size_t j = 0; j < Tk; ++j) {
                            double dot = 0;
                            for (std::size_t t = 0; t < d; ++t) dot += double(Q(i, t)) * double(K(j, t));
                            double x = double(p.scale) * dot;
                            if (c.softcap > 0) x = c.softcap * std::tanh(x / c.softcap);
                            const float got = r.capped.slice_data(s)[i * r.capped.row_stride() + j];
                            bad += !(std::fabs(got - x) <= 1e-5 * (1.0 + std::fabs(x)));
                            const float scaled = r.scaled.slice_data(s)[i * r.scaled.row_stride() + j];
                            const float bias = c.bias ? in.bias.data()[i * in.bias.row_stride() + j] : 0.0f;
                            if (!p.allowed(b, h, i, j)) bad += scaled != -INFINITY;
                            else bad += !(scaled == got + bias);  // the capped value, rounded, plus the bias
                        }
                }
            CHECK(bad == 0);
        }
    }
}

TEST_CASE("softcap and window: the same bits for threads 1, 2, 3 and 7, and for any range of query rows") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 200;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, seed++, in);
            for (bool materialised : {false, true}) {
                INFO("materialised " << materialised);
                attn::AttentionWants w;
                w.weights = materialised;
                const attn::BatchedAttention one =
                    check_same_bits_over_threads({2u, 3u, 7u}, materialised, [&] { return run(in, in.spec, w); });
                const std::size_t Tq = c.q.back(2);
                const bool batch_dim = c.q.rank() == 4 || c.k.rank() == 4;
                const std::size_t per_item = one.context.slices() / (batch_dim ? one.batch : 1);
                for (const auto& range : {std::pair<std::size_t, std::size_t>{Tq / 3, Tq - Tq / 4}, {Tq - 1, Tq}}) {
                    attn::AttentionSpec s = in.spec;
                    s.query_rows = {range.first, range.second};
                    const attn::BatchedAttention part = run(in, s, w);
                    bool same = part.context.slices() == one.context.slices();
                    for (std::size_t sl = 0; same && sl < part.context.slices(); ++sl)
                        for (std::size_t r = 0; same && r < part.context.rows(); ++r)
                            same = std::memcmp(one.context.slice_data(sl) + (range.first + r) * one.context.row_stride(),
                                               part.context.slice_data(sl) + r * part.context.row_stride(),
                                               part.context.cols() * sizeof(float)) == 0;
                    INFO("rows " << range.first << ":" << range.second << " of " << per_item << " slices per item");
                    CHECK(same);
                }
            }
        }
    }
}

TEST_CASE("softcap and window: each SIMD arch agrees with the scalar kernels") {
    test_util::ArchGuard guard;
    unsigned seed = 400;
    for (const Case& c : cases()) {
        Inputs in;
        make_inputs(c, seed++, in);
        attn::set_arch(attn::Arch::scalar);
        const attn::BatchedAttention want = run(in, in.spec, {});
        for (attn::Arch arch : test_util::supported_arches()) {
            if (arch == attn::Arch::scalar) continue;
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            attn::set_arch(arch);
            const attn::BatchedAttention got = run(in, in.spec, {});
            REQUIRE(got.context.shape() == want.context.shape());
            const double rel = tolerance(c);
            std::size_t bad = 0;
            for (std::size_t s = 0; s < got.context.slices(); ++s)
                for (std::size_t r = 0; r < got.context.rows(); ++r)
                    for (std::size_t k = 0; k < got.context.cols(); ++k) {
                        const double g = got.context.slice_data(s)[r * got.context.row_stride() + k];
                        const double w = want.context.slice_data(s)[r * want.context.row_stride() + k];
                        if (std::isnan(w) || std::isnan(g)) bad += std::isnan(w) != std::isnan(g);
                        else bad += !(std::fabs(g - w) <= 2 * rel * std::fabs(w) + 4e-6 * 4.0);
                    }
            CHECK(bad == 0);
            CHECK(got.masked_rows == want.masked_rows);
        }
    }
}

TEST_CASE("window: the visible range is ONNX's p - L <= j <= p + R on top of the causal rule and lengths") {
    for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right})
        for (std::size_t Tq : {1, 4, 9})
            for (std::size_t Tk : {0, 1, 5, 9})
                for (std::size_t L : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(20), unbounded})
                    for (std::size_t R : {std::size_t(0), std::size_t(2), std::size_t(20), unbounded})
                        for (std::size_t limit : {std::size_t(3), attn::no_key_limit}) {
                            INFO("causal " << int(causal) << " Tq " << Tq << " Tk " << Tk << " L " << L << " R " << R);
                            std::size_t last_begin = 0, last_end = 0;
                            for (std::size_t i = 0; i < Tq; ++i) {
                                const attn::KeyRange r = attn::visible_range(causal, {L, R}, i, Tq, Tk, limit);
                                const long long p = (long long)i + (causal == Causal::bottom_right ? (long long)Tk - (long long)Tq : 0);
                                for (std::size_t j = 0; j < Tk; ++j) {
                                    const long long jj = (long long)j;
                                    const bool want = (L == unbounded || jj >= p - (long long)L) &&
                                                      (R == unbounded || jj <= p + (long long)R) &&
                                                      (causal == Causal::none || jj <= p) && j < limit;
                                    CHECK((j >= r.begin && j < r.end) == want);
                                }
                                CHECK(r.begin <= r.end);
                                CHECK(r.end <= Tk);
                                CHECK(r.begin >= last_begin);  // non-decreasing: the kernels skip by it
                                CHECK(r.end >= last_end);
                                last_begin = r.begin, last_end = r.end;
                            }
                        }
}

TEST_CASE("softcap: 0 is none; a negative, infinite or NaN softcap is an input error") {
    const Tensor q(Shape{2, 3}), k(Shape{4, 3}), v(Shape{4, 2});
    for (float bad : {-1.0f, INFINITY, NAN, 1e-40f}) {
        attn::AttentionSpec s;
        s.softcap = bad;
        CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), v.view(), s), attn::InputError);
    }
    attn::AttentionSpec none;
    CHECK(attn::resolve_attention(q.view(), k.view(), v.view(), none).softcap == 0.0f);
}
