// Positions (AttentionSpec::rope, ::alibi) through every path of the engine (fused,
// materialised, split-K decoding) and every arch this machine runs, against the float64 oracle
// of double_reference.hpp: ALiBi's slope·(j − p) after the softcap, with the bias (BLOOM's slopes
// written out here from build_alibi_tensor's definition, independently of the library); RoPE's
// rotation written from HF's apply_rotary_pos_emb / GPT-J's rotate_every_two (angles in float32
// as HF computes them, the rotation in double). Awkward shapes: H = 3, 5, 6 (not powers of two),
// Tq = 1, Tq ≠ Tk, bottom-right positions, odd d with even rope dims, grouped-query heads. Also:
// the same bits for threads 1, 2, 3 and 7 and for query-row ranges, and bad settings refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "attention/rope.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

namespace {

using attn::Causal;
using attn::Shape;
using attn::Tensor;
using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
using test_util::check_same_bits_over_threads;
using test_util::slice_of;

struct Case {
    std::string name;
    Shape q, k, v;
    Causal causal = Causal::none;
    float alibi = 0.0f;  // max bias
    attn::Rope rope;
    float softcap = 0.0f;
    bool bias = false;
    attn::Window window;
};

Case make(std::string name, Shape q, Shape k, Shape v, Causal causal) {
    Case c;
    c.name = std::move(name), c.q = q, c.k = k, c.v = v, c.causal = causal;
    return c;
}

std::vector<Case> cases() {
    std::vector<Case> c;
    Case a = make("alibi H=3, Tq<Tk bottom-right, odd d", {1, 3, 7, 5}, {1, 3, 19, 5}, {1, 3, 19, 3},
                  Causal::bottom_right);
    a.alibi = 8;
    c.push_back(a);
    a = make("alibi H=5, max bias 4, no causal, softcap 6 and a bias", {2, 5, 37, 17}, {2, 5, 70, 17},
             {2, 5, 70, 9}, Causal::none);
    a.alibi = 4, a.softcap = 6, a.bias = true;
    c.push_back(a);
    a = make("alibi H=6 gqa G=2, causal, Tq>Tk top-left, window 20", {6, 150, 64}, {2, 130, 64}, {2, 130, 64},
             Causal::top_left);
    a.alibi = 8, a.window = {20, attn::unbounded};
    c.push_back(a);
    a = make("alibi decode Tq=1, H=5, 2000 keys", {1, 5, 1, 32}, {1, 5, 2000, 32}, {1, 5, 2000, 32},
             Causal::bottom_right);
    a.alibi = 8;
    c.push_back(a);
    a = make("alibi decode Tq=3 gqa H=6 G=3, bias", {6, 3, 24}, {3, 900, 24}, {3, 900, 24}, Causal::bottom_right);
    a.alibi = 8, a.bias = true;
    c.push_back(a);
    Case r = make("rope half, bottom-right Tq<Tk", {1, 2, 9, 16}, {1, 2, 33, 16}, {1, 2, 33, 8}, Causal::bottom_right);
    r.rope.theta = 10000;
    c.push_back(r);
    r = make("rope interleaved, dims 6 of odd d=9, gqa", {4, 40, 9}, {2, 40, 9}, {2, 40, 9}, Causal::top_left);
    r.rope = {500000, attn::RopeStyle::interleaved, 6, {}};
    c.push_back(r);
    r = make("rope half dims 8 of 12, Tq>Tk, no causal", {3, 70, 12}, {3, 50, 12}, {3, 50, 7}, Causal::none);
    r.rope = {10000, attn::RopeStyle::half, 8, {}};
    c.push_back(r);
    r = make("rope interleaved, bottom-right Tq>Tk: negative query positions, alibi", {2, 300, 8}, {2, 40, 8},
             {2, 40, 8}, Causal::bottom_right);
    r.rope = {10000, attn::RopeStyle::interleaved, 0, {}}, r.alibi = 8;
    c.push_back(r);
    r = make("rope decode Tq=1 at position 1499, d=64", {1, 1, 64}, {1, 1500, 64}, {1, 1500, 64},
             Causal::bottom_right);
    r.rope.theta = 10000;
    c.push_back(r);
    r = make("rope and alibi together, H=3, T=300", {3, 300, 32}, {3, 300, 32}, {3, 300, 32}, Causal::top_left);
    r.rope.theta = 10000, r.alibi = 8;
    c.push_back(r);
    return c;
}

struct Inputs {
    Tensor Q, K, V, bias;
    attn::TensorView bv;
    attn::AttentionSpec spec;
};

void make_inputs(const Case& c, unsigned seed, Inputs& in) {
    std::mt19937 rng(seed);
    in.Q = random_tensor(c.q, rng, 1.2f), in.K = random_tensor(c.k, rng, 1.2f), in.V = random_tensor(c.v, rng);
    if (c.bias) {
        in.bias = random_tensor(Shape{c.q.back(2), c.k.back(2)}, rng, 0.5f);
        in.bv = in.bias.view();
        in.spec.bias = &in.bv;
    }
    in.spec.causal = c.causal;
    in.spec.alibi = c.alibi;
    in.spec.rope = c.rope;
    in.spec.softcap = c.softcap;
    in.spec.window = c.window;
}

// BLOOM's build_alibi_tensor slopes from its definition (modeling_bloom.py): closest power of
// two n; base = torch.tensor(2^(−2^−(log2 n − 3)), float32) (= 2^(−8/n), ggml's 2^(−B/n)),
// powers 1…n; the rest the odd powers of the base of 2n. The powers of the float32 base in double.
double bloom_slope(std::size_t H, std::size_t h, double max_bias) {
    const std::size_t n = std::size_t(1) << std::size_t(std::floor(std::log2(double(H))));
    if (h < n) return std::pow(double(float(std::pow(2.0, -max_bias / double(n)))), double(h + 1));
    return std::pow(double(float(std::pow(2.0, -max_bias / double(2 * n)))), double(2 * (h - n) + 1));
}

// Row x of d floats at position pos, rotated as HF does: inv_freq in float32 (1/(theta^(2k/N))),
// the angle float32(pos)·inv_freq rounded to float32, then cos, sin and the rotation in double.
std::vector<double> rotated(const attn::Rope& r, const float* x, std::size_t d, long long pos) {
    const std::size_t n = r.dims ? r.dims : d;
    std::vector<double> out(x, x + d);
    for (std::size_t k = 0; k < n / 2; ++k) {
        const float inv = 1.0f / float(std::pow(double(r.theta), double(float(2 * k) / float(n))));
        const double a = double(float(pos) * inv), c = std::cos(a), s = std::sin(a);
        const std::size_t i1 = r.style == attn::RopeStyle::half ? k : 2 * k;
        const std::size_t i2 = r.style == attn::RopeStyle::half ? k + n / 2 : 2 * k + 1;
        out[i1] = double(x[i1]) * c - double(x[i2]) * s;
        out[i2] = double(x[i2]) * c + double(x[i1]) * s;
    }
    return out;
}

struct Oracle {
    test_ref::Grid weights, context;
};

Oracle oracle(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H, std::size_t G) {
    const std::size_t kv = h / (H / G);
    attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, kv);
    const attn::Matrix V = slice_bh(in.V, b, kv);
    const std::size_t Tq = Q.rows(), Tk = K.rows(), d = Q.cols();
    // RoPE in double; the oracle takes float rows, so the rotated rows are rounded once to
    // float32 (2^-24 relative, within the tolerance).
    if (c.rope.theta != 0.0f) {
        for (std::size_t i = 0; i < Tq; ++i) {
            const long long pos = (long long)i + (c.causal == Causal::bottom_right ? (long long)Tk - (long long)Tq : 0);
            const std::vector<double> r = rotated(c.rope, Q.row(i), d, pos);
            for (std::size_t t = 0; t < d; ++t) Q(i, t) = float(r[t]);
        }
        for (std::size_t j = 0; j < Tk; ++j) {
            const std::vector<double> r = rotated(c.rope, K.row(j), d, (long long)j);
            for (std::size_t t = 0; t < d; ++t) K(j, t) = float(r[t]);
        }
    }
    attn::Matrix bias;
    if (c.bias) bias = in.bias.slice_matrix(0);
    test_ref::Spec s;
    s.scale = 1.0 / std::sqrt(double(d));
    s.causal = c.causal == Causal::top_left ? 1 : c.causal == Causal::bottom_right ? 2 : 0;
    s.bias = c.bias ? &bias : nullptr;
    s.softcap = c.softcap;
    s.left = c.window.left == attn::unbounded ? -1 : (long long)c.window.left;
    s.right = c.window.right == attn::unbounded ? -1 : (long long)c.window.right;
    s.alibi_slope = c.alibi != 0.0f ? bloom_slope(H, h, c.alibi) : 0.0;
    Oracle o;
    o.weights = test_ref::attention(Q, K, V, s, &o.context);
    return o;
}

std::size_t mismatches(const float* p, std::size_t ld, const test_ref::Grid& want, double size, double rel,
                       double* worst) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j) {
            const double w = want[i][j], g = p[i * ld + j], err = std::fabs(g - w);
            *worst = std::max(*worst, err / (std::fabs(w) + size));
            bad += !(err <= rel * (std::fabs(w) + size));
        }
    return bad;
}

// Logits reach |scale·q·k| ≲ 4·sd²·√d plus ALiBi's slope·T; their float32 rounding (and the
// rotated rows rounded to float in the oracle) carries about 2^-23 of that into the weights.
double tolerance(const Case& c) {
    const double d = double(c.q.back(1)), T = double(c.k.back(2));
    return 2e-6 + 3e-7 * (4.0 * 1.44 * std::sqrt(d) + (c.alibi != 0.0f ? 0.5 * T : 0.0));
}

attn::BatchedAttention run(const Inputs& in, const attn::AttentionSpec& spec, const attn::AttentionWants& w) {
    return attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
}

}  // namespace

TEST_CASE("rope and alibi: ALiBi and RoPE on the fused, materialised and split-K paths match the float64 oracle, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 11;
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
            const std::size_t B = fused.batch, H = fused.heads, G = fused.kv_heads;
            const double rel = tolerance(c);
            std::size_t bad = 0, bad_w = 0;
            double worst = 0, worst_w = 0;
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t h = 0; h < H; ++h) {
                    const Oracle o = oracle(c, in, b, h, H, G);
                    const std::size_t s = slice_of(c, b, h, H);
                    bad += mismatches(fused.context.slice_data(s), fused.context.row_stride(), o.context, 4.0, rel, &worst);
                    bad += mismatches(mat.context.slice_data(s), mat.context.row_stride(), o.context, 4.0, rel, &worst);
                    bad_w += mismatches(mat.weights.slice_data(s), mat.weights.row_stride(), o.weights, 1.0, rel, &worst_w);
                }
            INFO("worst context error " << worst << ", weights " << worst_w << ", tolerance " << rel);
            CHECK(bad == 0);
            CHECK(bad_w == 0);
        }
    }
}

TEST_CASE("rope and alibi: ALiBi without positions in the oracle fails (the test sees ALiBi)") {
    Case c = cases()[0];
    Inputs in;
    make_inputs(c, 3, in);
    const attn::BatchedAttention got = run(in, in.spec, {});
    Case plain = c;
    plain.alibi = 0;
    const Oracle o = oracle(plain, in, 0, 1, 3, 3);
    double worst = 0;
    CHECK(mismatches(got.context.slice_data(1), got.context.row_stride(), o.context, 4.0, tolerance(c), &worst) > 0);
}

TEST_CASE("rope and alibi: the same bits for threads 1, 2, 3 and 7, and for any range of query rows") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 300;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, seed++, in);
            for (bool materialised : {false, true}) {
                attn::AttentionWants w;
                w.weights = materialised;
                const attn::BatchedAttention one =
                    check_same_bits_over_threads({2u, 3u, 7u}, false, [&] { return run(in, in.spec, w); });
                const std::size_t Tq = c.q.back(2);
                attn::AttentionSpec s = in.spec;
                s.query_rows = {Tq - 1, Tq};
                const attn::BatchedAttention part = run(in, s, w);
                bool same = true;
                for (std::size_t sl = 0; sl < part.context.slices(); ++sl)
                    same = same && std::memcmp(one.context.slice_data(sl) + (Tq - 1) * one.context.row_stride(),
                                               part.context.slice_data(sl), part.context.cols() * sizeof(float)) == 0;
                CHECK(same);
            }
        }
    }
}

TEST_CASE("rope and alibi: alibi_slopes are BLOOM's, H = 1 to 40, max bias 8 and 3") {
    for (double B : {8.0, 3.0})
        for (std::size_t H = 1; H <= 40; ++H) {
            const std::vector<float> s = attn::alibi_slopes(H, float(B));
            REQUIRE(s.size() == H);
            for (std::size_t h = 0; h < H; ++h) {
                INFO("H " << H << " h " << h << " B " << B);
                CHECK(std::fabs(double(s[h]) - bloom_slope(H, h, B)) <= 0x1p-24 * bloom_slope(H, h, B));  // rounded once
            }
        }
}

TEST_CASE("rope and alibi: bad settings are input errors (theta <= 0 or not finite, odd or too many rope dims, alibi <= 0)") {
    const Tensor q(Shape{2, 6}), k(Shape{4, 6}), v(Shape{4, 2}), odd(Shape{2, 5}), odd_k(Shape{4, 5});
    for (float theta : {-1.0f, INFINITY, NAN}) {
        attn::AttentionSpec s;
        s.rope.theta = theta;
        CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), v.view(), s), attn::InputError);
    }
    for (std::size_t dims : {3, 8}) {
        attn::AttentionSpec s;
        s.rope = {10000, attn::RopeStyle::half, dims, {}};
        CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), v.view(), s), attn::InputError);
    }
    attn::AttentionSpec all_odd;
    all_odd.rope.theta = 10000;  // every dim of an odd d_k: not pairs
    CHECK_THROWS_AS(attn::resolve_attention(odd.view(), odd_k.view(), v.view(), all_odd), attn::InputError);
    all_odd.rope.dims = 4;
    CHECK(attn::resolve_attention(odd.view(), odd_k.view(), v.view(), all_odd).rope.dims == 4);
    for (float b : {-8.0f, INFINITY, NAN}) {
        attn::AttentionSpec s;
        s.alibi = b;
        CHECK_THROWS_AS(attn::resolve_attention(q.view(), k.view(), v.view(), s), attn::InputError);
    }
}

TEST_CASE("rope and alibi: float16 K and V give the bits of float32 K and V holding the same values") {
    test_util::ArchGuard guard;
    std::mt19937 rng(21);
    const Tensor Q = random_tensor(Shape{1, 6, 3, 32}, rng, 1.2f);  // Tq = 3: split-K decoding
    const Tensor Qp = random_tensor(Shape{1, 6, 90, 32}, rng, 1.2f);  // the fused path
    const attn::HalfTensor K16 = attn::to_half(random_tensor(Shape{1, 3, 500, 32}, rng, 1.2f).view());
    const attn::HalfTensor V16 = attn::to_half(random_tensor(Shape{1, 3, 500, 16}, rng).view());
    const Tensor K = attn::to_float(K16.view()), V = attn::to_float(V16.view());
    attn::AttentionSpec spec;
    spec.causal = Causal::bottom_right;
    spec.rope.theta = 10000;
    spec.alibi = 8;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        for (const Tensor* q : {&Q, &Qp}) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", Tq " << q->shape().back(2));
            const attn::BatchedAttention half = attn::batched_attention(q->view(), K16.view(), V16.view(), spec);
            const attn::BatchedAttention full = attn::batched_attention(q->view(), K.view(), V.view(), spec);
            CHECK(same_bits(half.context, full.context));
        }
    }
}

// HF's rope_scaling (modeling_rope_utils.py) worked by hand for d = 8, theta 10000: the default
// inv_freq is 1, 0.1, 0.01, 0.001 (wavelengths 2π/f: 6.28, 62.8, 628, 6283).
TEST_CASE("rope and alibi: rope_scaling linear divides every frequency; llama3 keeps, blends and divides") {
    const std::vector<float> plain = attn::engine::rope_inv_freq(10000, 8);
    attn::RopeScaling linear;
    linear.kind = attn::RopeScalingKind::linear, linear.factor = 4.0f;
    const std::vector<float> lin = attn::engine::rope_inv_freq(10000, 8, linear);
    for (std::size_t k = 0; k < 4; ++k) CHECK(lin[k] == plain[k] / 4.0f);
    // llama3, factor 8, low 1, high 4, original 64: wavelength < 64/4 = 16 kept; > 64/1 = 64
    // divided by 8; 62.8 in between blended with smooth = (64/62.83 − 1)/(4 − 1).
    attn::RopeScaling l3;
    l3.kind = attn::RopeScalingKind::llama3, l3.factor = 8.0f, l3.low_freq_factor = 1.0f, l3.high_freq_factor = 4.0f;
    l3.original_max_positions = 64.0f;
    const std::vector<float> f = attn::engine::rope_inv_freq(10000, 8, l3);
    CHECK(f[0] == plain[0]);
    const double smooth = (64.0 / (2 * M_PI / 0.1) - 1.0) / 3.0;
    CHECK(f[1] == doctest::Approx((1 - smooth) * 0.1 / 8 + smooth * 0.1).epsilon(1e-6));
    CHECK(f[2] == doctest::Approx(0.01 / 8).epsilon(1e-6));
    CHECK(f[3] == doctest::Approx(0.001 / 8).epsilon(1e-6));
}

// YaRN worked by hand for d = 8, theta 10000, original 64: the dims turning 32 and 1 times in 64
// positions are 8·ln(64/(32·2π))/(2·ln 10⁴) = −0.50 and 8·ln(64/2π)/(2·ln 10⁴) = 1.01, rounded
// out to 0 and 2: frequency 0 kept, 1 half kept and half divided by the factor, 2 and 3 divided;
// without truncation the ramp runs from 0 to 1.01. cos and sin carry the attention factor.
TEST_CASE("rope and alibi: rope_scaling yarn blends over its ramp; dynamic raises theta beyond the positions") {
    const std::vector<float> plain = attn::engine::rope_inv_freq(10000, 8);
    attn::RopeScaling yarn;
    yarn.kind = attn::RopeScalingKind::yarn, yarn.factor = 4.0f;
    yarn.original_max_positions = 64.0f;
    const std::vector<float> y = attn::engine::rope_inv_freq(10000, 8, yarn);
    CHECK(y[0] == plain[0]);
    CHECK(y[1] == doctest::Approx(0.5 * 0.1 / 4 + 0.5 * 0.1).epsilon(1e-6));
    CHECK(y[2] == doctest::Approx(0.01 / 4).epsilon(1e-6));
    CHECK(y[3] == doctest::Approx(0.001 / 4).epsilon(1e-6));
    yarn.truncate = false;
    const double high = 8 * std::log(64 / (2 * M_PI)) / (2 * std::log(10000.0));
    const std::vector<float> u = attn::engine::rope_inv_freq(10000, 8, yarn);
    CHECK(u[1] == doctest::Approx((1 / high) * 0.1 / 4 + (1 - 1 / high) * 0.1).epsilon(1e-6));
    CHECK(u[2] == doctest::Approx(0.01 / 4).epsilon(1e-6));
    yarn.attention_factor = 1.25f;
    const attn::engine::RopeTable t = attn::engine::rope_table(u, 3, 1, yarn.attention_factor);
    CHECK(t.cos_at(3)[0] == doctest::Approx(1.25 * std::cos(3.0)).epsilon(1e-6));
    CHECK(t.sin_at(3)[1] == doctest::Approx(1.25 * std::sin(3.0 * u[1])).epsilon(1e-6));

    // dynamic, factor 2, max_position_embeddings 5, d = 8: theta unchanged up to 5 positions;
    // for 7, 10000·(2·7/5 − 1)^(8/6).
    attn::Rope rope;
    rope.theta = 10000.0f, rope.dims = 8, rope.scaling.kind = attn::RopeScalingKind::dynamic, rope.scaling.factor = 2.0f;
    rope.scaling.original_max_positions = 5.0f;
    for (std::size_t T : {1, 5}) {
        const attn::Rope r = attn::engine::rope_at_length(rope, T);
        CHECK(r.theta == 10000.0f);
        CHECK(r.scaling.kind == attn::RopeScalingKind::none);
    }
    // in float32, as torch computes it from the tensor seq_len (21895.92578125, not double's 21895.9277)
    CHECK(attn::engine::rope_at_length(rope, 7).theta == 10000.0f * std::pow(2.0f * 7.0f / 5.0f - 1.0f, float(8.0 / 6)));
    CHECK(attn::engine::rope_at_length(rope, 7).theta == doctest::Approx(10000 * std::pow(1.8, 8.0 / 6)).epsilon(1e-6));
    CHECK_THROWS_AS(attn::engine::rope_inv_freq(10000, 8, rope.scaling), std::logic_error);
}

// LongRoPE (Phi-3), d = 8, theta 100, original 4: each base power divided by its own factor,
// short_factor's up to 4 positions and long_factor's beyond (longrope_frequency_update).
TEST_CASE("rope and alibi: rope_scaling longrope divides each frequency by its factor, the long ones past the original length") {
    attn::Rope rope;
    rope.theta = 100.0f, rope.dims = 8, rope.scaling.kind = attn::RopeScalingKind::longrope;
    rope.scaling.original_max_positions = 4.0f;
    rope.scaling.ext_factors = {1.0f, 2.0f, 3.0f, 4.0f};
    rope.scaling.long_factor = {5.0f, 6.0f, 7.0f, 8.0f};
    for (std::size_t T : {1, 4, 5, 9}) {
        const attn::Rope r = attn::engine::rope_at_length(rope, T);
        const std::vector<float> inv = attn::engine::rope_inv_freq(r.theta, 8, r.scaling);
        REQUIRE(inv.size() == 4);
        for (std::size_t k = 0; k < 4; ++k) {
            // 1.0 / (ext_factors * base ** (2k / 8)), in float32
            const float power = float(std::pow(100.0, double(float(2 * k) / 8.0f)));
            const float factor = T > 4 ? float(5 + k) : float(1 + k);
            CAPTURE(T);
            CAPTURE(k);
            CHECK(inv[k] == 1.0f / (factor * power));
        }
    }
    // The library's caller gets an input error for lists of another length than dims / 2.
    const Tensor x(Shape{2, 8});
    attn::AttentionSpec spec;
    spec.rope = rope;
    spec.rope.scaling.long_factor.pop_back();
    try {
        attn::resolve_attention(x.view(), x.view(), x.view(), spec);
        FAIL("no error");
    } catch (const attn::InputError& e) {
        CHECK(std::string(e.what()).find("longrope scaling of 8 rotated dims needs 4 factors in each list") != std::string::npos);
    }
}

// HF's q·cos + rotate_half(q)·sin rounds each product, then the sum: the rotation must not
// fuse them into multiply-adds (aarch64's baseline has them; the Makefile builds rope.cpp with
// -ffp-contract=off). The expected bits go through volatile floats, which no compiler can fuse
// (this file is built without the flag: GCC turned an expectation computed in double back into
// float products and fused them on aarch64).
TEST_CASE("rope and alibi: the rotation rounds each product, then the sum (HF's bits), both styles") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    const std::size_t d = 37, n = 34, half = n / 2;  // dims past N copied
    std::vector<float> x(d), c(half), s(half), out(d);
    for (float& v : x) v = u(rng);
    for (std::size_t k = 0; k < half; ++k) c[k] = std::cos(u(rng)), s[k] = std::sin(u(rng));
    const auto rounded = [](float v) {
        volatile float r = v;
        return float(r);
    };
    for (const attn::RopeStyle style : {attn::RopeStyle::half, attn::RopeStyle::interleaved}) {
        attn::Rope r{10000, style, n, {}};
        attn::engine::rope_row(r, c.data(), s.data(), x.data(), out.data(), d);
        int wrong = 0;
        for (std::size_t k = 0; k < half; ++k) {
            const std::size_t i1 = style == attn::RopeStyle::half ? k : 2 * k;
            const std::size_t i2 = style == attn::RopeStyle::half ? k + half : 2 * k + 1;
            const float o1 = rounded(rounded(x[i1] * c[k]) - rounded(x[i2] * s[k]));
            const float o2 = rounded(rounded(x[i2] * c[k]) + rounded(x[i1] * s[k]));
            wrong += std::memcmp(&o1, &out[i1], 4) != 0;
            wrong += std::memcmp(&o2, &out[i2], 4) != 0;
        }
        for (std::size_t i = n; i < d; ++i) wrong += out[i] != x[i];
        CHECK(wrong == 0);
    }
}

// The calling thread keeps the angles of a call for the next (rope.cpp's KeptAngles): every
// call must still rotate with its own frequencies and positions. A sequence of calls that
// reuse, outgrow and change them, each checked row by row against rope_row with a table
// computed for that row alone.
TEST_CASE("rope and alibi: calls after calls rotate with their own angles (kept angles reused, outgrown, changed)") {
    struct Call {
        float theta;
        std::size_t dims, Tq, Tk;
        Causal causal;
    };
    const Call calls[] = {{10000, 16, 40, 40, Causal::top_left},   {10000, 16, 20, 20, Causal::top_left},
                          {10000, 16, 80, 80, Causal::none},       {10000, 16, 50, 30, Causal::bottom_right},
                          {500000, 16, 40, 40, Causal::top_left},  {10000, 8, 40, 40, Causal::top_left},
                          {10000, 16, 1, 300, Causal::bottom_right}, {10000, 16, 40, 40, Causal::top_left}};
    std::mt19937 rng(5);
    for (const Call& c : calls) {
        INFO("theta " << c.theta << ", dims " << c.dims << ", Tq " << c.Tq << ", Tk " << c.Tk);
        const std::size_t d = 16;
        const Tensor Q = random_tensor(Shape{2, c.Tq, d}, rng, 1.0f), K = random_tensor(Shape{2, c.Tk, d}, rng, 1.0f);
        const Tensor V = random_tensor(Shape{2, c.Tk, d}, rng, 1.0f);
        attn::AttentionSpec spec;
        spec.causal = c.causal;
        spec.rope = {c.theta, attn::RopeStyle::half, c.dims, {}};
        const attn::AttentionProblem p = attn::resolve_attention(Q.view(), K.view(), V.view(), spec);
        Tensor q, k;
        attn::rotated_queries_keys(p, q, k);
        const std::vector<float> inv = attn::engine::rope_inv_freq(c.theta, c.dims);
        std::vector<float> want(d);
        std::size_t wrong = 0;
        const auto check = [&](const float* x, const float* got, long long pos) {
            const attn::engine::RopeTable t = attn::engine::rope_table(inv, pos, 1);
            attn::engine::rope_row(p.rope, t.cos_at(pos), t.sin_at(pos), x, want.data(), d);
            wrong += std::memcmp(want.data(), got, d * sizeof(float)) != 0;
        };
        const long long offset = c.causal == Causal::bottom_right ? (long long)c.Tk - (long long)c.Tq : 0;
        for (std::size_t h = 0; h < 2; ++h) {
            for (std::size_t i = 0; i < c.Tq; ++i)
                check(Q.slice_data(h) + i * Q.row_stride(), q.slice_data(h) + i * q.row_stride(), (long long)i + offset);
            for (std::size_t j = 0; j < c.Tk; ++j)
                check(K.slice_data(h) + j * K.row_stride(), k.slice_data(h) + j * k.row_stride(), (long long)j);
        }
        CHECK(wrong == 0);
    }
}
