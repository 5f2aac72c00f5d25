// The batched multi-head engine (attn/multihead.hpp) against the float64 oracle of
// double_reference.hpp, per (batch item, head), for every arch this machine runs: broadcast
// leading dimensions, grouped-query heads, key lengths, causal alignment, mask/bias
// broadcast, ranges equal bit for bit to the whole run, and any thread count.
#include <doctest/doctest.h>

#include "attention/kernel_vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "double_reference.hpp"
#include "arch/kernel_table.hpp"

#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

namespace {

using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
using test_util::check_same_bits_over_threads;
using test_util::Oracle;
const auto arches = test_util::supported_arches;

using attn::Causal;
using attn::Shape;
using attn::Tensor;
using attn::TensorView;

struct Case {
    std::string name;
    Shape q, k, v;
    Causal causal = Causal::none;
    std::vector<std::size_t> lengths;
    Shape mask, bias;  // rank 0 = none
    int policy = 0;    // 0 zero, 1 nan, 2 uniform
    // Mask pattern aligned to the split-K chunks (attn::split_key_chunk): chunk 1 fully
    // masked, chunk 2 with a single allowed key; elsewhere random.
    bool chunk_mask = false;
};

Case make_case(std::string name, Shape q, Shape k, Shape v, Causal causal = Causal::none,
               std::vector<std::size_t> lengths = {}, Shape mask = {}, Shape bias = {}, int policy = 0) {
    Case c;
    c.name = std::move(name);
    c.q = q, c.k = k, c.v = v, c.causal = causal, c.lengths = std::move(lengths), c.mask = mask, c.bias = bias;
    c.policy = policy;
    return c;
}

// Few query rows (Tq <= attn::decode_max_rows): the split-K decoding path. Key counts are
// not multiples of any tile or chunk (split_key_chunk gives 64 to 128 keys for most of these
// shapes, 1216 for the 20000 keys: two one-row tiles per chunk, of 1024 keys at d=64).
std::vector<Case> decode_cases() {
    std::vector<Case> c;
    c.push_back(make_case("decode Tq=1, chunks of several one-row tiles, lengths 20000 and 9001", {2, 2, 1, 64},
                          {2, 2, 20000, 64}, {2, 2, 20000, 20}, Causal::none, {20000, 9001}));
    c.push_back(make_case("decode gqa H=32 G=8 Tq=1, 1000 keys", {1, 32, 1, 64}, {1, 8, 1000, 64},
                          {1, 8, 1000, 64}));
    c.push_back(make_case("decode H=4 G=1 Tq=3, bottom-right causal, lengths 1 and 700", {2, 4, 3, 33},
                          {2, 1, 777, 33}, {2, 1, 777, 17}, Causal::bottom_right, {1, 700}));
    // One row per K/V head and query: a range of one query row must run the whole run's tiles.
    c.push_back(make_case("decode Tq=3 H=G=2, 1500 keys, no causal", {1, 2, 3, 24}, {1, 2, 1500, 24},
                          {1, 2, 1500, 24}));
    c.push_back(make_case("decode Tq=2 top-left causal: one or two visible keys, later chunks all masked",
                          {1, 2, 2, 16}, {1, 2, 600, 16}, {1, 2, 600, 16}, Causal::top_left));
    Case m = make_case("decode Tq=4 gqa H=8 G=2, chunk-aligned mask and bias, nan policy", {2, 8, 4, 40},
                       {2, 2, 1700, 40}, {2, 2, 1700, 24}, Causal::none, {1700, 1100}, {2, 8, 4, 1700},
                       {2, 1, 1, 1700}, 1);
    m.chunk_mask = true;
    c.push_back(m);
    Case b = make_case("decode Tq=1 mask (B,1,1,Tk), chunk-aligned, bottom-right causal", {3, 1, 1, 128},
                       {3, 1, 2000, 128}, {3, 1, 2000, 128}, Causal::bottom_right, {}, {3, 1, 1, 2000});
    b.chunk_mask = true;
    c.push_back(b);
    c.push_back(make_case("decode Tk=1, Tq=3 bottom-right: two rows fully masked, uniform policy", {3, 8}, {1, 8},
                          {1, 8}, Causal::bottom_right, {}, {}, {}, 2));
    c.push_back(make_case("decode Tq=4 Tk=1 lengths 0 and 1, nan policy", {2, 1, 4, 7}, {2, 1, 1, 7}, {2, 1, 1, 3},
                          Causal::none, {0, 1}, {}, {}, 1));
    return c;
}

std::vector<Case> cases() {
    std::vector<Case> c;
    c.push_back(make_case("gqa H=4 G=2, batch, lengths 0 and 9", {2, 4, 5, 7}, {2, 2, 9, 7}, {2, 2, 9, 5},
                          Causal::none, {0, 9}));
    c.push_back(make_case("gqa H=6 G=3, bottom-right causal Tq<Tk", {6, 33, 3}, {3, 40, 3}, {3, 40, 6},
                          Causal::bottom_right));
    c.push_back(make_case("gqa H=8 G=1, mask and bias broadcast", {1, 8, 17, 65}, {1, 1, 130, 65}, {130, 64},
                          Causal::none, {}, {17, 130}, {1, 8, 1, 130}));
    c.push_back(make_case("batch broadcast, one query head over two K/V heads", {3, 1, 5, 4}, {1, 2, 6, 4}, {2, 6, 3},
                          Causal::top_left, {2, 6, 1}));
    c.push_back(make_case("Tq=1 Tk=1 odd d", {2, 3, 1, 5}, {2, 3, 1, 5}, {2, 3, 1, 3}));
    c.push_back(make_case("Tq=1 long keys, lengths, uniform policy", {2, 2, 1, 9}, {2, 1, 300, 9}, {2, 1, 300, 17},
                          Causal::none, {0, 131}, {}, {}, 2));
    c.push_back(make_case("top-left causal with lengths, mask (B,1,1,Tk)", {2, 2, 70, 16}, {2, 2, 70, 16},
                          {2, 2, 70, 16}, Causal::top_left, {40, 70}, {2, 1, 1, 70}, {}, 1));
    c.push_back(make_case("2-D", {5, 3}, {7, 3}, {7, 2}, Causal::bottom_right));
    for (Case& d : decode_cases()) c.push_back(std::move(d));
    return c;
}

struct Inputs {
    Tensor Q, K, V, mask, bias;
    attn::AttentionSpec spec;
};

Inputs make_inputs(const Case& c, unsigned seed) {
    std::mt19937 rng(seed);
    Inputs in{random_tensor(c.q, rng, 1.5f), random_tensor(c.k, rng, 1.5f), random_tensor(c.v, rng), {}, {}, {}};
    std::uniform_int_distribution<int> coin(0, 4);
    if (c.mask.rank()) {
        in.mask = Tensor(c.mask);
        for (std::size_t s = 0; s < in.mask.slices(); ++s)
            for (std::size_t r = 0; r < in.mask.rows(); ++r)
                for (std::size_t j = 0; j < in.mask.cols(); ++j)
                    in.mask.slice_data(s)[r * in.mask.row_stride() + j] = coin(rng) == 0 ? 0.0f : 1.0f;
        if (c.chunk_mask) {
            const std::size_t C = attn::split_key_chunk(c.k.back(2), c.k.back(1), c.v.back(1));
            REQUIRE(in.mask.cols() > 3 * C);
            for (std::size_t s = 0; s < in.mask.slices(); ++s)
                for (std::size_t r = 0; r < in.mask.rows(); ++r)
                    for (std::size_t j = C; j < 3 * C; ++j)
                        in.mask.slice_data(s)[r * in.mask.row_stride() + j] = j == 2 * C + 5 + r ? 1.0f : 0.0f;
        }
    }
    if (c.bias.rank()) {
        in.bias = random_tensor(c.bias, rng, 0.5f);
        for (std::size_t s = 0; s < in.bias.slices(); ++s)
            for (std::size_t j = 0; j < in.bias.cols(); ++j)
                if (coin(rng) == 0) in.bias.slice_data(s)[j] = -INFINITY;
    }
    in.spec.causal = c.causal;
    in.spec.lengths = c.lengths;
    in.spec.masked_rows = c.policy == 0 ? attn::MaskedRowPolicy::zero
                          : c.policy == 1 ? attn::MaskedRowPolicy::nan
                                          : attn::MaskedRowPolicy::uniform;
    return in;
}

struct Run {
    attn::BatchedAttention r;
    TensorView mv, bv;
};

attn::BatchedAttention run(const Inputs& in, attn::AttentionSpec spec, const attn::AttentionWants& wants) {
    const TensorView mv = in.mask.view(), bv = in.bias.view();
    spec.mask = in.mask.rank() ? &mv : nullptr;
    spec.bias = in.bias.rank() ? &bv : nullptr;
    return attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, wants);
}

Oracle oracle(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H, std::size_t G) {
    const std::size_t kv = h / (H / G);
    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, kv), V = slice_bh(in.V, b, kv);
    const std::size_t Tq = Q.rows(), Tk = K.rows();
    // Key padding as a mask: key j is padding for batch item b when j >= lengths[b].
    attn::Matrix mask(Tq, Tk, 1.0f);
    if (in.mask.rank()) {
        const attn::Matrix m = slice_bh(in.mask, b, h);
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j) mask(i, j) = m(m.rows() == 1 ? 0 : i, j);
    }
    if (!c.lengths.empty())
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = c.lengths[b]; j < Tk; ++j) mask(i, j) = 0.0f;
    attn::Matrix bias;
    if (in.bias.rank()) {
        const attn::Matrix m = slice_bh(in.bias, b, h);
        bias = attn::Matrix(Tq, Tk);
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j) bias(i, j) = m(m.rows() == 1 ? 0 : i, j);
    }
    test_ref::Spec s;
    s.scale = 1.0 / std::sqrt(double(Q.cols()));
    s.causal = c.causal == Causal::top_left ? 1 : c.causal == Causal::bottom_right ? 2 : 0;
    // bottom-right with lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen rule)
    if (c.causal == Causal::bottom_right && !c.lengths.empty()) s.offset = (long long)c.lengths[b] - (long long)Tq;
    s.mask = &mask;
    s.bias = in.bias.rank() ? &bias : nullptr;
    s.policy = c.policy;
    Oracle o;
    o.weights = test_ref::attention(Q, K, V, s, &o.context, &o.masked);
    return o;
}

// got (rows×cols at p, stride ld) against want within 1e-5 relative, or 2e-6 of `size`.
std::size_t mismatches(const float* p, std::size_t ld, const test_ref::Grid& want, double size, double* worst) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j) {
            const double w = want[i][j], g = p[i * ld + j];
            if (std::isnan(w)) {
                bad += !std::isnan(g);
                continue;
            }
            const double err = std::fabs(g - w);
            *worst = std::max(*worst, err / (std::fabs(w) + size));
            bad += !(err <= 1e-5 * std::fabs(w) + 2e-6 * size);
        }
    return bad;
}

double max_abs(const Tensor& t) {
    double m = 0;
    for (std::size_t s = 0; s < t.slices(); ++s)
        for (std::size_t r = 0; r < t.rows(); ++r)
            for (std::size_t c = 0; c < t.cols(); ++c) m = std::max(m, double(std::fabs(t.slice_data(s)[r * t.row_stride() + c])));
    return m;
}

// Rows [r0, r1) of batch items [b0, b1) of `whole` equal `part` bit for bit.
bool same_rows(const Tensor& whole, const Tensor& part, std::size_t b0, std::size_t r0, bool batch_dim) {
    const std::size_t per_item = batch_dim ? whole.slices() / whole.shape()[0] : whole.slices();
    for (std::size_t s = 0; s < part.slices(); ++s) {
        const std::size_t ws = (batch_dim ? b0 * per_item : 0) + s;
        for (std::size_t r = 0; r < part.rows(); ++r)
            if (std::memcmp(whole.slice_data(ws) + (r0 + r) * whole.row_stride(), part.slice_data(s) + r * part.row_stride(),
                            part.cols() * sizeof(float)) != 0)
                return false;
    }
    return true;
}

using test_util::ArchGuard;

}  // namespace

TEST_CASE("batched attention: fused and materialised paths match the float64 oracle per (b, h), every arch") {
    ArchGuard guard;
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        unsigned seed = 11;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            const Inputs in = make_inputs(c, seed++);
            attn::AttentionWants fused_w;  // context only: the streaming kernel
            const attn::BatchedAttention fused = run(in, in.spec, fused_w);
            CHECK(fused.fused);
            attn::AttentionWants all;
            all.scores = all.scaled = all.weights = all.weights_mean = true;
            const attn::BatchedAttention mat = run(in, in.spec, all);
            CHECK(!mat.fused);
            const std::size_t B = fused.batch, H = fused.heads, G = fused.kv_heads;
            // attn/problem.hpp's rank rule: a batch dimension when Q, K or V has rank 4 or the mask or
            // bias carries more than one batch item; a head dimension when Q, K or V has rank >= 3.
            const auto batch_of = [](const Shape& s) { return s.rank() == 4 ? s[0] : std::size_t(1); };
            const bool batch_dim = c.q.rank() == 4 || c.k.rank() == 4 || c.v.rank() == 4 || batch_of(c.mask) > 1 ||
                                   batch_of(c.bias) > 1;
            const bool head_dim = c.q.rank() >= 3 || c.k.rank() >= 3 || c.v.rank() >= 3;
            CHECK(fused.context.rank() == 2 + batch_dim + head_dim);
            CHECK(mat.weights_mean.rank() == 2 + batch_dim);
            const double vsize = max_abs(in.V);
            std::size_t masked = 0, bad = 0, bad_w = 0, bad_mean = 0;
            double worst = 0, worst_w = 0;
            for (std::size_t b = 0; b < B; ++b) {
                test_ref::Grid mean;
                for (std::size_t h = 0; h < H; ++h) {
                    const Oracle o = oracle(c, in, b, h, H, G);
                    masked += o.masked;
                    const std::size_t s = b * (head_dim ? H : 1) + (head_dim ? h : 0);
                    bad += mismatches(fused.context.slice_data(s), fused.context.row_stride(), o.context, vsize, &worst);
                    bad += mismatches(mat.context.slice_data(s), mat.context.row_stride(), o.context, vsize, &worst);
                    bad_w += mismatches(mat.weights.slice_data(s), mat.weights.row_stride(), o.weights, 1.0, &worst_w);
                    if (h == 0) mean = o.weights;
                    else
                        for (std::size_t i = 0; i < mean.size(); ++i)
                            for (std::size_t j = 0; j < mean[i].size(); ++j) mean[i][j] += o.weights[i][j];
                }
                for (auto& row : mean)
                    for (double& x : row) x /= double(H);
                double worst_mean = 0;
                bad_mean += mismatches(mat.weights_mean.slice_data(b), mat.weights_mean.row_stride(), mean, 1.0, &worst_mean);
            }
            INFO("worst context error " << worst << ", weights " << worst_w);
            CHECK(bad == 0);
            CHECK(bad_w == 0);
            CHECK(bad_mean == 0);
            CHECK(fused.masked_rows == masked);
            CHECK(mat.masked_rows == masked);
        }
    }
}

TEST_CASE("batched attention: query-row and batch-item ranges equal the same rows of the whole run, bit for bit") {
    ArchGuard guard;
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        unsigned seed = 40;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            const Inputs in = make_inputs(c, seed++);
            const bool batch_dim = c.q.rank() == 4 || c.k.rank() == 4 || c.v.rank() == 4 || c.mask.rank() == 4 ||
                                   c.bias.rank() == 4;
            for (bool materialised : {false, true}) {
                attn::AttentionWants w;
                w.weights = materialised;
                const attn::BatchedAttention whole = run(in, in.spec, w);
                const std::size_t Tq = c.q.back(2), B = whole.batch;
                // (named copies, not a structured binding: INFO captures them in a lambda, which
                // clang 14 does not allow for bindings)
                for (const auto& range : {std::pair<std::size_t, std::size_t>{0, Tq}, {Tq / 3, Tq - Tq / 4},
                                          {Tq - 1, Tq}, {Tq / 2, Tq / 2}})
                    for (std::size_t b0 = 0, r0 = range.first, r1 = range.second; b0 < B; ++b0) {
                        INFO("rows " << r0 << ":" << r1 << ", item " << b0 << ", materialised " << materialised);
                        attn::AttentionSpec s = in.spec;
                        s.query_rows = {r0, r1};
                        s.batch_items = {b0, batch_dim ? b0 + 1 : B};
                        const attn::BatchedAttention part = run(in, s, w);
                        REQUIRE(part.context.rows() == r1 - r0);
                        CHECK(same_rows(whole.context, part.context, b0, r0, batch_dim));
                        if (materialised) CHECK(same_rows(whole.weights, part.weights, b0, r0, batch_dim));
                        if (!batch_dim) break;
                    }
            }
        }
    }
}

TEST_CASE("batched attention: the same bits for threads 1, 2, 3 and 7") {
    ArchGuard guard;
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        std::mt19937 rng(7);
        for (Causal causal : {Causal::top_left, Causal::none})  // none: the heads of a group stacked
        for (bool materialised : {false, true}) {
            const Case c = make_case("gqa", {2, 4, 300, 32}, {2, 2, 300, 32}, {2, 2, 300, 24}, causal, {250, 300});
            const Inputs in = make_inputs(c, 99);
            INFO("arch " << std::string(attn::arch_name(arch)) << ", causal " << int(causal) << ", materialised " << materialised);
            attn::AttentionWants w;
            w.weights = materialised;
            check_same_bits_over_threads({2u, 3u, 7u}, materialised, [&] { return run(in, in.spec, w); });
        }
    }
}

TEST_CASE("split-K decoding: few query rows run over key chunks, the same bits for threads 1, 2, 3 and 7") {
    ArchGuard guard;
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        unsigned seed = 300;
        for (const Case& c : decode_cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            const Inputs in = make_inputs(c, seed++);
            attn::set_threads(1);
            const attn::BatchedAttention one = run(in, in.spec, {});
            CHECK(one.fused);
            CHECK(one.split_keys);
            for (unsigned t : {2u, 3u, 7u}) {
                attn::set_threads(t);
                const attn::BatchedAttention other = run(in, in.spec, {});
                CHECK(same_bits(one.context, other.context));
                CHECK(other.masked_rows == one.masked_rows);
            }
        }
    }
}

// K and V as a model keeps them after its projections: one T×(G·d) matrix each, head g
// the column block g, so a key row of one head is G·d (plus padding) elements after the
// previous one. The split-K kernels read (and prefetch) such rows in place; their arithmetic
// must not depend on the strides, so the result equals the contiguous run bit for bit (and
// that one matches the float64 oracle above), float32 and float16, on every arch.
TEST_CASE("split-K decoding: K/V heads strided as column blocks of a projection equal the contiguous run, bit for bit") {
    ArchGuard guard;
    struct Shape4 {
        std::size_t H, G, Tq, Tk, d;
        Causal causal;
    };
    const Shape4 shapes[] = {{8, 2, 1, 1000, 40, Causal::none},
                             {4, 4, 3, 777, 24, Causal::bottom_right},
                             {6, 3, 2, 1301, 129, Causal::none}};
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        unsigned seed = 900;
        for (const Shape4& sh : shapes) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", H " << sh.H << " G " << sh.G << " Tq " << sh.Tq << " Tk " << sh.Tk
                         << " d " << sh.d);
            std::mt19937 rng(seed++);
            const Tensor Q = random_tensor(Shape{1, sh.H, sh.Tq, sh.d}, rng);
            const Tensor Kp = random_tensor(Shape{sh.Tk, sh.G * sh.d}, rng), Vp = random_tensor(Shape{sh.Tk, sh.G * sh.d}, rng);
            // Contiguous (1, G, Tk, d) copies.
            Tensor Kc(Shape{1, sh.G, sh.Tk, sh.d}), Vc(Shape{1, sh.G, sh.Tk, sh.d});
            for (std::size_t g = 0; g < sh.G; ++g)
                for (std::size_t j = 0; j < sh.Tk; ++j)
                    for (std::size_t c = 0; c < sh.d; ++c) {
                        Kc.slice_data(g)[j * Kc.row_stride() + c] = Kp.data()[j * Kp.row_stride() + g * sh.d + c];
                        Vc.slice_data(g)[j * Vc.row_stride() + c] = Vp.data()[j * Vp.row_stride() + g * sh.d + c];
                    }
            auto strided = [&](const Tensor& P) {
                TensorView v;
                v.data = P.data();
                v.shape = Shape{1, sh.G, sh.Tk, sh.d};
                v.strides = {0, sh.d, P.row_stride(), 1};
                return v;
            };
            // float16: the projection rows with an odd stride (rows not 64-byte aligned).
            const std::size_t ldh = sh.G * sh.d + 3;
            std::vector<std::uint16_t> Kh(sh.Tk * ldh), Vh(sh.Tk * ldh);
            for (std::size_t j = 0; j < sh.Tk; ++j)
                for (std::size_t c = 0; c < sh.G * sh.d; ++c) {
                    Kh[j * ldh + c] = attn::float_to_half(Kp.data()[j * Kp.row_stride() + c]);
                    Vh[j * ldh + c] = attn::float_to_half(Vp.data()[j * Vp.row_stride() + c]);
                }
            auto strided_half = [&](const std::vector<std::uint16_t>& P) {
                attn::KVView v;
                v.type = attn::ElementType::f16;
                v.data = P.data();
                v.shape = Shape{1, sh.G, sh.Tk, sh.d};
                v.strides = {0, sh.d, ldh, 1};
                return v;
            };
            const attn::HalfTensor Khc = attn::to_half(Kc.view()), Vhc = attn::to_half(Vc.view());
            attn::AttentionSpec spec;
            spec.causal = sh.causal;
            for (unsigned threads : {1u, 3u}) {
                attn::set_threads(threads);
                const attn::BatchedAttention a = attn::batched_attention(Q.view(), strided(Kp), strided(Vp), spec);
                const attn::BatchedAttention b = attn::batched_attention(Q.view(), Kc.view(), Vc.view(), spec);
                CHECK(a.split_keys);
                CHECK(same_bits(a.context, b.context));
                const attn::BatchedAttention ah = attn::batched_attention(Q.view(), strided_half(Kh), strided_half(Vh), spec);
                const attn::BatchedAttention bh = attn::batched_attention(Q.view(), Khc.view(), Vhc.view(), spec);
                CHECK(ah.split_keys);
                CHECK(same_bits(ah.context, bh.context));
                // Not vacuous: float16 rounding changes the result.
                CHECK(!same_bits(a.context, ah.context));
            }
        }
    }
}

// The split-K score loop sums W keys' dot products at once by a transposing reduction; a
// score's bits must not depend on the key's position in that group (or in its tile, chunk
// or the last, partial group). With every key a copy of one row, every score is then the
// same float, so each weight is exactly 1/Tk: with V = the Tk×Tk identity, a context row's
// Tk entries are all the same bits. Key counts around the lanes, the 64-key tile and the
// chunks; 1 to 4 query rows; float32 and float16 K; every arch.
TEST_CASE("split-K decoding: equal keys get equal scores wherever they sit (exactly uniform weights)") {
    ArchGuard guard;
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        unsigned seed = 1200;
        for (std::size_t Tk : {1u, 3u, 5u, 15u, 17u, 63u, 65u, 129u, 700u})
            for (std::size_t d : {7u, 128u})
                for (std::size_t Tq : {1u, 2u, 4u}) {
                    INFO("arch " << std::string(attn::arch_name(arch)) << ", Tq " << Tq << " Tk " << Tk << " d " << d);
                    std::mt19937 rng(seed++);
                    const Tensor Q = random_tensor(Shape{Tq, d}, rng), row = random_tensor(Shape{1, d}, rng);
                    Tensor K(Shape{Tk, d}), V(Shape{Tk, Tk});
                    for (std::size_t j = 0; j < Tk; ++j) {
                        std::copy(row.data(), row.data() + d, K.data() + j * K.row_stride());
                        std::fill(V.data() + j * V.row_stride(), V.data() + j * V.row_stride() + Tk, 0.0f);
                        V.data()[j * V.row_stride() + j] = 1.0f;
                    }
                    const attn::HalfTensor Kh = attn::to_half(K.view());
                    attn::set_threads(2);
                    for (const attn::BatchedAttention& r :
                         {attn::batched_attention(Q.view(), K.view(), V.view(), {}),
                          attn::batched_attention(Q.view(), Kh.view(), V.view(), {})}) {
                        CHECK(r.split_keys);
                        for (std::size_t i = 0; i < Tq; ++i) {
                            const float* c = r.context.data() + i * r.context.row_stride();
                            CHECK(std::all_of(c, c + Tk, [&](float x) { return std::memcmp(&x, c, sizeof x) == 0; }));
                            CHECK(std::fabs(c[0] * float(Tk) - 1.0f) < 1e-5f);
                        }
                    }
                }
    }
}

TEST_CASE("split-K decoding: more than decode_max_rows query rows keep the query-block kernel") {
    std::mt19937 rng(3);
    const Case c = make_case("prefill", {2, 5, 16}, {2, 300, 16}, {2, 300, 16});
    const Inputs in = make_inputs(c, 8);
    const attn::BatchedAttention r = run(in, in.spec, {});
    CHECK(r.fused);
    CHECK(!r.split_keys);
}

TEST_CASE("batched attention: 2-D inputs give what the 2-D ops compute, bit for bit (attend's results before the engine)") {
    ArchGuard guard;
    std::mt19937 rng(5);
    const attn::Matrix Q = test_ref::random_matrix(37, 9, rng), K = test_ref::random_matrix(70, 9, rng),
                       V = test_ref::random_matrix(70, 5, rng);
    attn::ScoreMask sm;
    sm.scale = 0.4f;
    sm.causal = Causal::bottom_right;
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        INFO("arch " << std::string(attn::arch_name(arch)));
        // The arch's fused kernel called directly over blocks of 64 query rows; or the ops-level
        // pipeline: Q·Kᵀ, scale and mask, softmax, ·V.
        std::size_t fused_masked = 0;
        attn::Matrix fused(Q.rows(), V.cols());
        for (std::size_t r0 = 0; r0 < Q.rows(); r0 += 64) {
            attn::kernels::FlashArgs a{};
            a.Q = Q.data(), a.ldq = Q.stride(), a.K = K.data(), a.ldk = K.stride(), a.V = V.data(), a.ldv = V.stride();
            a.O = fused.data() + r0 * fused.stride(), a.ldo = fused.stride();
            a.Tq = Q.rows(), a.Tk = K.rows(), a.dk = Q.cols(), a.dv = V.cols();
            a.scale = sm.scale, a.causal = attn::to_kernel(sm.causal), a.policy = attn::to_kernel(attn::MaskedRowPolicy::zero);
            a.offset = attn::kernels::causal_offset(a.causal, a.Tq, a.Tk);
            a.row_begin = r0, a.row_end = std::min(Q.rows(), r0 + 64);
            fused_masked += attn::kernels::table_of(arch).flash(a);
        }
        const attn::Matrix scores = attn::matmul(Q, K, true);
        attn::Matrix weights = attn::scaled_scores(scores, sm);
        attn::normalize_rows(weights, attn::Normalization::softmax, attn::MaskedRowPolicy::zero);
        const attn::Matrix context = attn::matmul(weights, V);

        attn::AttentionSpec spec;
        spec.scale = 0.4f;
        spec.causal = Causal::bottom_right;
        const attn::BatchedAttention got_fused =
            attn::batched_attention(attn::view_of(Q), attn::view_of(K), attn::view_of(V), spec);
        attn::AttentionWants w;
        w.scores = w.weights = true;
        const attn::BatchedAttention got =
            attn::batched_attention(attn::view_of(Q), attn::view_of(K), attn::view_of(V), spec, w);
        REQUIRE(got_fused.context.rank() == 2);
        CHECK(same_bits(Tensor(attn::Matrix(fused)), got_fused.context));
        CHECK(got_fused.masked_rows == fused_masked);
        CHECK(same_bits(Tensor(attn::Matrix(scores)), got.scores));
        CHECK(same_bits(Tensor(attn::Matrix(weights)), got.weights));
        CHECK(same_bits(Tensor(attn::Matrix(context)), got.context));
    }
}

TEST_CASE("batched attention: both streaming paths write every element of the context (it is not zero-filled first)") {
    ArchGuard guard;
    std::mt19937 rng(17);
    struct Sizes {
        std::size_t H, Tq, Tk, d;
    };
    // Decoding (split-K) and fused, rows fully masked (uniform and zero policies) included.
    for (const Sizes& z : {Sizes{4, 1, 300, 33}, Sizes{3, 3, 70, 16}, Sizes{2, 70, 129, 17}}) {
        const Tensor Q = random_tensor({z.H, z.Tq, z.d}, rng), K = random_tensor({z.H, z.Tk, z.d}, rng),
                     V = random_tensor({z.H, z.Tk, z.d}, rng);
        Tensor mask(Shape{z.H, z.Tq, z.Tk});
        for (std::size_t s = 0; s < z.H * z.Tq; ++s)
            for (std::size_t j = 0; j < z.Tk; ++j) mask.slice_data(0)[s * mask.row_stride() + j] = (s % 3 != 1) && rng() % 4;
        for (attn::Arch arch : arches()) {
            attn::set_arch(arch);
            for (auto policy : {attn::MaskedRowPolicy::zero, attn::MaskedRowPolicy::uniform}) {
                INFO("arch " << std::string(attn::arch_name(arch)) << ", H " << z.H << " Tq " << z.Tq << " Tk " << z.Tk);
                attn::AttentionSpec spec;
                const TensorView mv = mask.view();
                spec.mask = &mv;
                spec.masked_rows = policy;
                // The result's memory is what a freed buffer of its size held: a poison value
                // (malloc hands the same block back), so an element left unwritten shows.
                std::vector<Tensor> runs;
                for (float poison : {-7.0f, 3.0f}) {
                    {
                        Tensor junk(Shape{z.H, z.Tq, z.d}, Tensor::Uninitialized{});
                        std::fill(junk.data(), junk.data() + z.H * z.Tq * junk.row_stride(), poison);
                    }
                    attn::BatchedAttention r = attn::batched_attention(Q.view(), K.view(), V.view(), spec);
                    REQUIRE(r.fused);
                    CHECK(r.split_keys == (z.Tq <= attn::decode_max_rows));
                    std::size_t poisoned = 0;
                    for (std::size_t s = 0; s < z.H * z.Tq; ++s)
                        for (std::size_t c = 0; c < z.d; ++c) poisoned += r.context.data()[s * r.context.row_stride() + c] == poison;
                    CHECK(poisoned == 0);
                    runs.push_back(std::move(r.context));
                }
                CHECK(same_bits(runs[0], runs[1]));
            }
        }
    }
}

TEST_CASE("batched attention: shapes that do not fit are input errors naming the shapes") {
    std::mt19937 rng(1);
    const Tensor Q = random_tensor({6, 4, 8}, rng), K = random_tensor({4, 5, 8}, rng), V = random_tensor({4, 5, 3}, rng);
    try {
        attn::batched_attention(Q.view(), K.view(), V.view(), {});
        FAIL("H % G != 0 accepted");
    } catch (const attn::InputError& e) {
        const std::string m = e.what();
        CHECK(m.find("(6, 4, 8)") != std::string::npos);
        CHECK(m.find("(4, 5, 8)") != std::string::npos);
    }
    const Tensor Kb = random_tensor({2, 1, 5, 8}, rng), Qb = random_tensor({3, 1, 4, 8}, rng);
    CHECK_THROWS_AS(attn::batched_attention(Qb.view(), Kb.view(), Kb.view(), {}), attn::InputError);
    attn::AttentionSpec s;
    s.lengths = {6};
    const Tensor K1 = random_tensor({5, 8}, rng), Q1 = random_tensor({4, 8}, rng);
    CHECK_THROWS_AS(attn::batched_attention(Q1.view(), K1.view(), K1.view(), s), attn::InputError);  // 6 > Tk
    s.lengths = {1, 2};
    CHECK_THROWS_AS(attn::batched_attention(Q1.view(), K1.view(), K1.view(), s), attn::InputError);  // one per item
    s.lengths.clear();
    s.query_rows = {2, 5};
    CHECK_THROWS_AS(attn::batched_attention(Q1.view(), K1.view(), K1.view(), s), attn::InputError);
    const Tensor five = random_tensor({1, 1, 1, 4, 8}, rng);
    CHECK_THROWS_AS(attn::batched_attention(five.view(), K1.view(), K1.view(), {}), attn::InputError);
}

TEST_CASE("multi-head attention: projections, grouped-query heads and W_O match a float64 computation") {
    ArchGuard guard;
    std::mt19937 rng(3);
    const std::size_t B = 2, T = 7, Tkv = 9, D = 10, H = 4, G = 2, dh = 3, dv = 5, Dout = 6;
    const Tensor X = random_tensor({B, T, D}, rng), Xkv = random_tensor({B, Tkv, D}, rng);
    const Tensor Wq = random_tensor({D, H * dh}, rng, 0.5f), Wk = random_tensor({D, G * dh}, rng, 0.5f),
                 Wv = random_tensor({D, G * dv}, rng, 0.5f), Wo = random_tensor({H * dv, Dout}, rng, 0.5f);
    const Tensor bq = random_tensor({1, H * dh}, rng), bk = random_tensor({G * dh}, rng),
                 bv = random_tensor({1, G * dv}, rng), bo = random_tensor({1, Dout}, rng);
    const TensorView vWq = Wq.view(), vWk = Wk.view(), vWv = Wv.view(), vWo = Wo.view(), vbq = bq.view(),
                     vbk = bk.view(), vbv = bv.view(), vbo = bo.view();
    attn::MultiheadWeights w;
    w.heads = H, w.kv_heads = G;
    w.wq = &vWq, w.wk = &vWk, w.wv = &vWv, w.wo = &vWo, w.bq = &vbq, w.bk = &vbk, w.bv = &vbv, w.bo = &vbo;
    attn::AttentionSpec spec;
    spec.causal = Causal::bottom_right;
    spec.lengths = {9, 4};
    const TensorView vXkv = Xkv.view();

    // float64: projections (rounded to float, as the engine's inputs are floats), the
    // oracle per head, the concatenation and W_O.
    auto at = [](const Tensor& t, std::size_t s, std::size_t r, std::size_t c) {
        return double(t.slice_data(s)[r * t.row_stride() + c]);
    };
    auto project = [&](const Tensor& x, std::size_t b, const Tensor& W, const Tensor& bias, std::size_t c0,
                       std::size_t n) {
        attn::Matrix m(x.rows(), n);
        for (std::size_t i = 0; i < x.rows(); ++i)
            for (std::size_t c = 0; c < n; ++c) {
                double acc = bias.data()[c0 + c];
                for (std::size_t p = 0; p < D; ++p) acc += at(x, b, i, p) * at(W, 0, p, c0 + c);
                m(i, c) = float(acc);
            }
        return m;
    };
    for (attn::Arch arch : arches()) {
        attn::set_arch(arch);
        INFO("arch " << std::string(attn::arch_name(arch)));
        attn::AttentionWants wants;
        wants.weights_mean = true;
        const attn::Multihead m = attn::multihead_attention(X.view(), &vXkv, w, spec, wants);
        REQUIRE(m.output.shape() == Shape({B, T, Dout}));
        REQUIRE(m.attention.context.shape() == Shape({B, H, T, dv}));
        REQUIRE(m.attention.weights_mean.shape() == Shape({B, T, Tkv}));
        std::size_t bad = 0;
        double worst = 0;
        for (std::size_t b = 0; b < B; ++b) {
            std::vector<std::vector<double>> concat(T, std::vector<double>(H * dv));
            for (std::size_t h = 0; h < H; ++h) {
                const std::size_t g = h / (H / G);
                const attn::Matrix q = project(X, b, Wq, bq, h * dh, dh), k = project(Xkv, b, Wk, bk, g * dh, dh),
                                   v = project(Xkv, b, Wv, bv, g * dv, dv);
                attn::Matrix mask(T, Tkv, 1.0f);
                for (std::size_t i = 0; i < T; ++i)
                    for (std::size_t j = spec.lengths[b]; j < Tkv; ++j) mask(i, j) = 0.0f;
                test_ref::Spec s;
                s.scale = 1.0 / std::sqrt(double(dh));
                s.causal = 2;
                s.offset = (long long)spec.lengths[b] - (long long)T;  // bottom-right with lengths: length − Tq
                s.mask = &mask;
                test_ref::Grid ctx;
                test_ref::attention(q, k, v, s, &ctx);
                for (std::size_t i = 0; i < T; ++i)
                    for (std::size_t c = 0; c < dv; ++c) concat[i][h * dv + c] = ctx[i][c];
            }
            test_ref::Grid out(T, std::vector<double>(Dout));
            for (std::size_t i = 0; i < T; ++i)
                for (std::size_t c = 0; c < Dout; ++c) {
                    double acc = bo.data()[c];
                    for (std::size_t p = 0; p < H * dv; ++p) acc += concat[i][p] * at(Wo, 0, p, c);
                    out[i][c] = acc;
                }
            bad += mismatches(m.output.slice_data(b), m.output.row_stride(), out, 1.0, &worst);
        }
        INFO("worst output error " << worst);
        CHECK(bad == 0);
    }
}

TEST_CASE("PyTorch layouts: nn.Linear weight and in_proj_weight / in_proj_bias split") {
    // in_proj_weight 3E×E with E = 2: rows 0-1 q, 2-3 k, 4-5 v; entry (r, c) = 10·r + c.
    Tensor w(Shape{6, 2});
    for (std::size_t r = 0; r < 6; ++r)
        for (std::size_t c = 0; c < 2; ++c) w.data()[r * w.row_stride() + c] = float(10 * r + c);
    Tensor b(Shape{6});
    for (std::size_t i = 0; i < 6; ++i) b.data()[i] = float(100 + i);
    const TensorView bv = b.view();
    const attn::InProjection p = attn::split_in_projection(w.view(), &bv);
    // attn's layout is in×out: W_k(c, r) = in_proj_weight(2 + r, c).
    REQUIRE(p.wk.shape() == Shape({2, 2}));
    CHECK(p.wk.data()[0] == 20.0f);
    CHECK(p.wk.data()[1] == 30.0f);
    CHECK(p.wk.data()[p.wk.row_stride()] == 21.0f);
    CHECK(p.wv.data()[p.wv.row_stride() + 1] == 51.0f);
    CHECK(p.bv.data()[0] == 104.0f);
    CHECK(p.bv.data()[1] == 105.0f);
    const Tensor t = attn::from_linear_weight(w.view());
    REQUIRE(t.shape() == Shape({2, 6}));
    CHECK(t.data()[t.row_stride() + 5] == 51.0f);
    // Its transpose, 2×6 = E×3E, is GPT-2's Conv1D c_attn ([W_q | W_k | W_v] in x·W layout):
    // the same blocks, told apart by shape alone.
    const attn::InProjection c = attn::split_in_projection(t.view(), &bv);
    for (const auto& [got, want] : {std::pair{&c.wq, &p.wq}, {&c.wk, &p.wk}, {&c.wv, &p.wv}, {&c.bk, &p.bk}}) {
        REQUIRE(got->shape() == want->shape());
        for (std::size_t r = 0; r < got->rows(); ++r)
            for (std::size_t k = 0; k < got->cols(); ++k)
                CHECK(got->data()[r * got->row_stride() + k] == want->data()[r * want->row_stride() + k]);
    }
    CHECK_THROWS_AS(attn::split_in_projection(Tensor(Shape{4, 2}).view(), nullptr), attn::InputError);
    CHECK_THROWS_AS(attn::split_in_projection(Tensor(Shape{2, 2}).view(), nullptr), attn::InputError);
}

TEST_CASE("batched attention: a zero row sum under sum normalisation names the first batch item and head") {
    // Head 1 of batch item 1 has all-zero keys: its scores are 0, their sum is 0.
    Tensor Q(Shape{2, 2, 3, 4}), K(Shape{2, 2, 5, 4}), V(Shape{2, 2, 5, 2});
    for (std::size_t s = 0; s < 4; ++s)
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < 4; ++c) Q.slice_data(s)[r * Q.row_stride() + c] = 1.0f;
    for (std::size_t s = 0; s < 3; ++s)
        for (std::size_t r = 0; r < 5; ++r)
            for (std::size_t c = 0; c < 4; ++c) K.slice_data(s)[r * K.row_stride() + c] = 0.5f;
    attn::AttentionSpec spec;
    spec.normalize = attn::Normalization::sum;
    for (unsigned threads : {1u, 2u, 3u}) {
        attn::set_threads(threads);
        try {
            attn::batched_attention(Q.view(), K.view(), V.view(), spec);
            FAIL("a zero row sum was accepted");
        } catch (const attn::RuntimeFailure& e) {
            CHECK(std::string(e.what()) == "batch item 1, head 1: row 0 (0-based) sums to zero: cannot normalize by its sum");
        }
    }
    attn::set_threads(0);
}

TEST_CASE("resolve_projections: the one validator of -x's shapes, each failure by role and dimension") {
    using attn::ProjectionInputs;
    using attn::Role;
    using attn::Shape;
    const Shape w64{6, 4}, w63{6, 3}, w46{4, 6}, b3{3}, b4{1, 4};
    ProjectionInputs in;
    in.x = Shape{5, 6};
    in.wq = &w64, in.wk = &w64, in.wv = &w64, in.heads = 2;
    const attn::ProjectionShapes p = attn::resolve_projections(in);
    CHECK(p.D == 6);
    CHECK(p.q_cols == 4);
    CHECK(p.d_k == 2);
    CHECK(p.d_v == 2);
    const auto fails = [](const ProjectionInputs& bad, Role role, const char* dimension, std::size_t got,
                          std::size_t wanted) {
        try {
            attn::resolve_projections(bad);
            FAIL("no ShapeError");
        } catch (const attn::ShapeError& e) {
            CHECK(e.role == role);
            CHECK(e.dimension == dimension);
            CHECK(e.got == got);
            CHECK(e.wanted == wanted);
        }
    };
    ProjectionInputs bad = in;
    bad.x = Shape{6};
    fails(bad, Role::embeddings, "rank", 1, 2);
    bad = in, bad.kv = Shape{2, 5, 6};
    fails(bad, Role::kv_embeddings, "rank", 3, 2);
    bad = in, bad.x = Shape{2, 5, 6}, bad.kv = Shape{3, 5, 6};
    fails(bad, Role::kv_embeddings, "batch", 3, 2);
    bad = in, bad.wk = &w46;
    fails(bad, Role::wk, "rows", 4, 6);
    bad = in, bad.heads = 3;
    fails(bad, Role::queries, "head columns", 4, 3);
    bad = in, bad.wk = &w63;
    fails(bad, Role::keys, "d_k", 3, 4);
    bad = in, bad.kv_heads = 1;  // one key/value head of d_k = 2: W_k must give 2 columns
    fails(bad, Role::keys, "d_k", 4, 2);
    bad = in, bad.wv = &w63;
    fails(bad, Role::values, "head columns", 3, 2);
    bad = in, bad.bq = &b3;
    fails(bad, Role::bq, "length", 3, 4);
    bad = in, bad.bv = &b4;
    CHECK_NOTHROW(attn::resolve_projections(bad));  // one row of 4
}
