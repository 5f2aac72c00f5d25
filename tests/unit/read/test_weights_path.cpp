// The weights path: the score epilogue kernel (kernels::ARCH::score_epilogue: scale, bias,
// mask, causal / key limits and the row softmax in one pass) of every supported arch against
// a float64 oracle, the materialised batched path (Q·Kᵀ, epilogue, ·V in row blocks) against
// the float64 attention oracle with broadcast masks and biases, its bits for threads 1, 2,
// 3 and 7, and the fused kernel's vector mask / bias with broadcast (stride 0) rows.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "arch_kernels.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "tensor_test_util.hpp"
#include "attn/masking.hpp"
#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "attn/tensor.hpp"
#include "double_reference.hpp"
#include "test_util.hpp"

namespace {

using attn::Causal;
using attn::MaskedRowPolicy;
constexpr float ninf = -std::numeric_limits<float>::infinity();

using test_util::ArchGuard;

// Random rows × cols with row stride cols + pad (the gaps hold garbage never to be read).
struct Grid {
    std::size_t rows, cols, ld;
    std::vector<float> v;
    Grid(std::size_t r, std::size_t c, std::size_t pad) : rows(r), cols(c), ld(c + pad), v(std::max<std::size_t>(1, r * (c + pad)), 9e9f) {}
    float& at(std::size_t i, std::size_t j) { return v[i * ld + j]; }
    float at(std::size_t i, std::size_t j) const { return v[i * ld + j]; }
};

// One epilogue problem: raw scores, an optional mask and bias (each a full Tq×Tk grid or
// one broadcast row), the causal rule and a key limit.
struct Epilogue {
    std::size_t Tq, Tk;
    Grid S, mask, bias;
    bool with_mask = false, with_bias = false, row_mask = false, row_bias = false;
    Causal causal = Causal::none;
    std::size_t key_limit = attn::no_key_limit;
    float scale = 0.37f;
    MaskedRowPolicy policy = MaskedRowPolicy::zero;
    mutable attn::MaskBits bits;  // the mask as the kernels read it, packed by args()

    Epilogue(std::size_t tq, std::size_t tk, std::size_t pad, unsigned seed)
        : Tq(tq), Tk(tk), S(tq, tk, pad), mask(tq, tk, pad + 1), bias(tq, tk, pad + 2) {
        std::mt19937 gen(seed);
        std::normal_distribution<float> normal(0.0f, 3.0f);
        std::uniform_int_distribution<int> coin(0, 4);
        for (std::size_t i = 0; i < tq; ++i)
            for (std::size_t j = 0; j < tk; ++j) {
                S.at(i, j) = normal(gen);
                mask.at(i, j) = coin(gen) == 0 ? 0.0f : (coin(gen) == 0 ? -2.5f : 1.0f);  // nonzero = allowed
                bias.at(i, j) = coin(gen) == 0 ? ninf : 0.5f * normal(gen);
            }
    }

    const float* mask_row(std::size_t i) const { return with_mask ? &mask.v[(row_mask ? 0 : i) * mask.ld] : nullptr; }
    const float* bias_row(std::size_t i) const { return with_bias ? &bias.v[(row_bias ? 0 : i) * bias.ld] : nullptr; }

    attn::kernels::ScoreEpilogueArgs args(const float* s, std::size_t lds, float* scaled, std::size_t ld_scaled, float* P,
                                          std::size_t ldp, std::size_t r0, std::size_t r1, bool softmax) const {
        attn::kernels::ScoreEpilogueArgs a{};
        a.S = s, a.lds = lds, a.scaled = scaled, a.ld_scaled = ld_scaled, a.P = P, a.ldp = ldp;
        a.Tq = Tq, a.Tk = Tk, a.row_begin = r0, a.row_end = r1;
        a.scale = scale, a.causal = attn::to_kernel(causal), a.key_limit = key_limit;
        a.offset = attn::kernels::causal_offset(a.causal, Tq, Tk);  // the alignment's own
        if (with_mask) bits = test_util::pack_mask(mask.v.data(), Tq, Tk, mask.ld);  // the grid as it is now
        a.mask = with_mask ? bits.data() : nullptr, a.ldm = row_mask ? 0 : bits.row_words();
        a.bias = with_bias ? bias.v.data() : nullptr, a.ldb = row_bias ? 0 : bias.ld;
        a.softmax = softmax, a.policy = attn::to_kernel(policy);
        return a;
    }

    std::string describe() const {
        return "Tq " + std::to_string(Tq) + " Tk " + std::to_string(Tk) + " ld " + std::to_string(S.ld) + " mask " +
               std::to_string(with_mask) + (row_mask ? " (row)" : "") + " bias " + std::to_string(with_bias) +
               (row_bias ? " (row)" : "") + " causal " + std::to_string(int(causal)) + " key limit " +
               (key_limit == attn::no_key_limit ? std::string("none") : std::to_string(key_limit)) + " policy " +
               std::to_string(int(policy));
    }
};

// Written from the definition (attn/masking.hpp), in double: key j of row i is allowed when
// j is before the causal limit and the key limit, the mask is nonzero and the bias finite.
bool oracle_allowed(const Epilogue& e, std::size_t i, std::size_t j) {
    if (j >= e.key_limit) return false;
    if (e.causal == Causal::top_left && j > i) return false;
    if (e.causal == Causal::bottom_right && double(j) > double(i) + double(e.Tk) - double(e.Tq)) return false;
    if (e.with_mask && e.mask_row(i)[j] == 0.0f) return false;
    if (e.with_bias && std::isinf(e.bias_row(i)[j])) return false;
    return true;
}

// Runs the kernel on rows [r0, r1) (scaled copy and softmax in place of a copy of S) and
// checks every cell against the float64 oracle; returns the number of wrong cells.
std::size_t check_epilogue(const attn::test::ArchKernels& k, const Epilogue& e, std::size_t r0, std::size_t r1) {
    const std::size_t n = r1 - r0, ld = e.Tk + 5;
    std::vector<float> P(std::max<std::size_t>(1, n * ld), -7.0f), scaled(std::max<std::size_t>(1, n * ld), -7.0f);
    for (std::size_t r = 0; r < n; ++r) std::copy(&e.S.v[(r0 + r) * e.S.ld], &e.S.v[(r0 + r) * e.S.ld] + e.Tk, &P[r * ld]);
    // In place: S and P are the same rows.
    const std::size_t masked = k.score_epilogue(e.args(P.data(), ld, scaled.data(), ld, P.data(), ld, r0, r1, true));
    std::size_t bad = 0, want_masked = 0;
    for (std::size_t r = 0; r < n; ++r) {
        const std::size_t i = r0 + r;
        std::vector<double> x(e.Tk, -INFINITY);
        double mx = -INFINITY;
        for (std::size_t j = 0; j < e.Tk; ++j) {
            if (!oracle_allowed(e, i, j)) continue;
            x[j] = double(e.scale) * double(e.S.at(i, j)) + (e.with_bias ? double(e.bias_row(i)[j]) : 0.0);
            mx = std::max(mx, x[j]);
        }
        double sum = 0.0;
        for (std::size_t j = 0; j < e.Tk; ++j) sum += x[j] == -INFINITY ? 0.0 : std::exp(x[j] - mx);
        want_masked += mx == -INFINITY;
        for (std::size_t j = 0; j < e.Tk; ++j) {
            const float s = scaled[r * ld + j], p = P[r * ld + j];
            if (x[j] == -INFINITY) {
                bad += s != ninf;  // masked: exactly -inf in the scaled scores
            } else {
                bad += !(std::fabs(double(s) - x[j]) <= 2e-7 * (std::fabs(x[j]) + 1.0));
            }
            double w;
            if (mx == -INFINITY) {
                w = e.policy == MaskedRowPolicy::zero ? 0.0 : e.policy == MaskedRowPolicy::nan ? NAN : 1.0 / double(e.Tk);
            } else {
                w = x[j] == -INFINITY ? 0.0 : std::exp(x[j] - mx) / sum;
            }
            if (std::isnan(w)) bad += !std::isnan(p);
            else if (w == 0.0) bad += p != 0.0f;  // masked: weight exactly 0
            else bad += !(std::fabs(double(p) - w) <= 1e-5 * w + 1e-9);
        }
        for (std::size_t j = e.Tk; j < ld; ++j) bad += P[r * ld + j] != -7.0f || scaled[r * ld + j] != -7.0f;
    }
    CHECK(masked == want_masked);
    return bad;
}

std::vector<std::pair<std::size_t, std::size_t>> epilogue_shapes(std::size_t W) {
    return {{1, 1}, {1, W - 1 ? W - 1 : 2}, {2, W}, {3, W + 1}, {W + 1, 2 * W - 1}, {5, 4 * W + 3}, {7, 129}, {4, 300}};
}

}  // namespace

TEST_CASE("score epilogue: scale, bias, mask, causal and key limits, softmax — the float64 oracle, per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        unsigned seed = 1;
        for (const auto& shape : epilogue_shapes(k.lanes))  // (no structured binding: clang 14 cannot capture one in INFO)
            for (std::size_t pad : {0, 3}) {
                const std::size_t Tq = shape.first, Tk = shape.second;
                Epilogue e(Tq, Tk, pad, seed++);
                for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right})
                    for (int inputs = 0; inputs < 6; ++inputs) {
                        e.causal = causal;
                        e.with_mask = inputs == 1 || inputs == 3 || inputs == 4;
                        e.with_bias = inputs == 2 || inputs == 3 || inputs == 5;
                        e.row_mask = inputs == 4, e.row_bias = inputs == 5;  // one row for every query
                        for (std::size_t limit : {attn::no_key_limit, std::size_t(0), std::size_t(1), Tk / 2 + 1}) {
                            e.key_limit = limit;
                            INFO(e.describe());
                            CHECK(check_epilogue(k, e, 0, Tq) == 0);
                            if (Tq > 2) CHECK(check_epilogue(k, e, 1, Tq - 1) == 0);  // a row range: global row indices
                        }
                    }
            }
    }
}

TEST_CASE("score epilogue: all-masked rows follow each policy; a single allowed key gets weight 1, per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        for (MaskedRowPolicy policy : {MaskedRowPolicy::zero, MaskedRowPolicy::nan, MaskedRowPolicy::uniform}) {
            Epilogue e(6, 2 * k.lanes + 3, 1, 40);
            e.policy = policy;
            e.with_mask = e.with_bias = true;
            for (std::size_t j = 0; j < e.Tk; ++j) {
                e.mask.at(0, j) = 0.0f;                   // row 0: every key masked
                e.bias.at(1, j) = ninf;                   // row 1: every bias -inf
                e.mask.at(2, j) = j == e.Tk - 1 ? 1.0f : 0.0f;  // row 2: only the last key (in the tail)
                e.bias.at(2, j) = 1.0f;
            }
            INFO(e.describe());
            CHECK(check_epilogue(k, e, 0, e.Tq) == 0);
            std::vector<float> P(e.Tq * e.Tk);
            for (std::size_t i = 0; i < e.Tq; ++i)
                for (std::size_t j = 0; j < e.Tk; ++j) P[i * e.Tk + j] = e.S.at(i, j);
            CHECK(k.score_epilogue(e.args(P.data(), e.Tk, nullptr, 0, P.data(), e.Tk, 0, e.Tq, true)) >= 2);
            CHECK(P[2 * e.Tk + e.Tk - 1] == 1.0f);
        }
    }
}

TEST_CASE("score epilogue: without softmax P holds the scaled scores; the same bits as the scalar kernel, per arch") {
    const attn::test::ArchKernels* scalar = nullptr;
    const auto all = attn::test::supported_arch_kernels();
    for (const auto& k : all)
        if (k.arch == attn::Arch::scalar) scalar = &k;
    REQUIRE(scalar);
    for (const auto& k : all) {
        INFO("arch " << std::string(k.name));
        Epilogue e(9, 3 * k.lanes + 5, 2, 77);
        e.with_mask = e.with_bias = true;
        e.causal = Causal::bottom_right;
        const std::size_t ld = e.Tk + 1;
        std::vector<float> mine(e.Tq * ld, 1.0f), ref(e.Tq * ld, 1.0f), scaled(e.Tq * ld, 2.0f);
        k.score_epilogue(e.args(e.S.v.data(), e.S.ld, scaled.data(), ld, mine.data(), ld, 0, e.Tq, false));
        scalar->score_epilogue(e.args(e.S.v.data(), e.S.ld, nullptr, 0, ref.data(), ld, 0, e.Tq, false));
        // The product rounded, then the bias added: not contracted into one FMA.
        CHECK(std::memcmp(mine.data(), ref.data(), mine.size() * sizeof(float)) == 0);
        for (std::size_t i = 0; i < e.Tq; ++i)
            CHECK(std::memcmp(&mine[i * ld], &scaled[i * ld], e.Tk * sizeof(float)) == 0);
    }
}

namespace {

// Q (H, Tq, d), K and V (Tk, d) (broadcast to every head), a (Tq, Tk) mask and bias shared
// by every head (stride 0 over heads).
struct Batched {
    attn::Tensor Q, K, V, mask, bias;
    Batched(std::size_t H, std::size_t Tq, std::size_t Tk, std::size_t d, unsigned seed)
        : Q(attn::Shape{H, Tq, d}), K(attn::Shape{Tk, d}), V(attn::Shape{Tk, d + 3}), mask(attn::Shape{Tq, Tk}),
          bias(attn::Shape{Tq, Tk}) {
        std::mt19937 gen(seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::uniform_int_distribution<int> coin(0, 5);
        for (attn::Tensor* t : {&Q, &K, &V})
            for (std::size_t s = 0; s < t->slices(); ++s)
                for (std::size_t r = 0; r < t->rows(); ++r)
                    for (std::size_t c = 0; c < t->cols(); ++c) t->slice_data(s)[r * t->row_stride() + c] = normal(gen);
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j) {
                mask.data()[i * mask.row_stride() + j] = coin(gen) == 0 ? 0.0f : 1.0f;
                bias.data()[i * bias.row_stride() + j] = coin(gen) == 0 ? ninf : 0.3f * normal(gen);
            }
        for (std::size_t j = 0; j < Tk; ++j) mask.data()[j] = 0.0f;  // row 0 fully masked
    }
};

attn::Matrix slice(const attn::Tensor& t, std::size_t s) { return t.slice_matrix(s); }

}  // namespace

TEST_CASE("materialised path: broadcast mask and bias, row blocks, every result — the float64 oracle, per arch") {
    ArchGuard guard;
    for (const auto& k : attn::test::supported_arch_kernels()) {
        attn::set_arch(k.arch);
        // Tq 600 with Tk 70: several row blocks per head; 3 heads share the mask and the bias.
        for (const auto& shape : std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>{
                 {1, 1, 1}, {600, 70, 7}, {33, 2 * k.lanes + 1, 16}}) {
            const auto [Tq, Tk, d] = shape;
            const std::size_t tq = Tq, tk = Tk;  // for INFO: clang 14 cannot capture a structured binding
            Batched in(3, Tq, Tk, d, unsigned(Tq + Tk));
            const attn::TensorView mask = in.mask.view(), bias = in.bias.view();
            attn::AttentionSpec spec;
            spec.mask = &mask;
            spec.bias = &bias;
            spec.causal = Causal::bottom_right;
            spec.masked_rows = MaskedRowPolicy::uniform;
            attn::AttentionWants w;
            w.scores = w.scaled = w.weights = w.context = true;
            const attn::BatchedAttention r = attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
            CHECK(!r.fused);
            const attn::Matrix K = slice(in.K, 0), V = slice(in.V, 0), M = slice(in.mask, 0), B = slice(in.bias, 0);
            for (std::size_t h = 0; h < 3; ++h) {
                INFO("arch " << std::string(k.name) << " Tq " << tq << " Tk " << tk << " head " << h);
                const attn::Matrix Q = slice(in.Q, h);
                test_ref::Spec s;
                s.scale = 1.0 / std::sqrt(double(float(d)));
                s.causal = 2;
                s.mask = &M;
                s.bias = &B;
                s.policy = 2;
                test_ref::Grid context;
                const test_ref::Grid weights = test_ref::attention(Q, K, V, s, &context);
                // (slice_matrix copies: taken once per head, not per cell)
                const attn::Matrix got = r.weights.slice_matrix(h);
                CHECK(test_ref::max_rel_error(got, weights) <= 1e-5);
                CHECK(test_ref::max_rel_error(r.context.slice_matrix(h), context) <= 1e-5);
                const attn::Matrix scores = r.scores.slice_matrix(h), scaled = r.scaled.slice_matrix(h);
                std::size_t bad = 0;
                for (std::size_t i = 0; i < Tq; ++i)
                    for (std::size_t j = 0; j < Tk; ++j) {
                        double dot = 0.0;
                        for (std::size_t p = 0; p < d; ++p) dot += double(Q(i, p)) * double(K(j, p));
                        bad += !(std::fabs(double(scores(i, j)) - dot) <= 1e-5 * (1.0 + std::fabs(dot)));
                        if (!test_ref::allowed(s, i, j, Tq, Tk)) bad += scaled(i, j) != ninf;
                        else bad += !(std::fabs(double(scaled(i, j)) - (s.scale * dot + B(i, j))) <= 1e-5 * (1.0 + std::fabs(dot)));
                        bad += weights[i][j] == 0.0 && got(i, j) != 0.0f;
                    }
                CHECK(bad == 0);
            }
        }
    }
}

TEST_CASE("materialised path: the same bits for threads 1, 2, 3 and 7, with a broadcast mask and bias, per arch") {
    ArchGuard guard;
    for (const auto& k : attn::test::supported_arch_kernels()) {
        attn::set_arch(k.arch);
        Batched in(2, 530, 45, 19, 5);
        const attn::TensorView mask = in.mask.view(), bias = in.bias.view();
        attn::AttentionSpec spec;
        spec.mask = &mask;
        spec.bias = &bias;
        attn::AttentionWants w;
        w.scaled = w.weights = w.context = true;
        attn::set_threads(1);
        const attn::BatchedAttention one = attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
        for (unsigned t : test_util::thread_counts({2u, 3u, 7u})) {
            INFO("arch " << std::string(k.name) << " threads " << t);
            attn::set_threads(t);
            const attn::BatchedAttention other = attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
            for (const auto& [a, b] : {std::pair{&one.scaled, &other.scaled}, std::pair{&one.weights, &other.weights},
                                       std::pair{&one.context, &other.context}}) {
                REQUIRE(a->shape() == b->shape());
                CHECK(std::memcmp(a->data(), b->data(), a->slices() * a->rows() * a->row_stride() * sizeof(float)) == 0);
            }
            CHECK(other.masked_rows == one.masked_rows);
        }
    }
}

TEST_CASE("fused path: a mask and a bias of one row for every query (stride 0), and both at once — the oracle, per arch") {
    ArchGuard guard;
    for (const auto& k : attn::test::supported_arch_kernels()) {
        attn::set_arch(k.arch);
        for (const auto& shape : std::vector<std::pair<std::size_t, std::size_t>>{
                 {1, 1}, {k.lanes + 1, k.lanes - 1 ? k.lanes - 1 : 2}, {70, 131}, {130, 257}}) {
            const std::size_t Tq = shape.first, Tk = shape.second;
            const std::size_t d = 9;
            Batched in(2, Tq, Tk, d, unsigned(3 * Tq + Tk));
            // (1, Tk) rows: broadcast over queries and heads.
            attn::Tensor mrow(attn::Shape{1, Tk}), brow(attn::Shape{1, Tk});
            for (std::size_t j = 0; j < Tk; ++j) {
                mrow.data()[j] = j % 3 == 1 ? 0.0f : 1.0f;
                brow.data()[j] = j % 7 == 2 ? ninf : 0.1f * float(j % 5);
            }
            for (int variant = 0; variant < 3; ++variant) {
                const bool full = variant == 2;  // a full Tq×Tk mask and bias together
                const attn::TensorView mask = full ? in.mask.view() : mrow.view(), bias = full ? in.bias.view() : brow.view();
                attn::AttentionSpec spec;
                if (variant != 1 || full) spec.mask = &mask;
                if (variant != 0 || full) spec.bias = &bias;
                const attn::BatchedAttention r = attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, {});
                CHECK(r.fused);
                attn::Matrix M(Tq, Tk, 1.0f), B(Tq, Tk, 0.0f);
                for (std::size_t i = 0; i < Tq; ++i)
                    for (std::size_t j = 0; j < Tk; ++j) {
                        if (spec.mask) M(i, j) = full ? in.mask.data()[i * in.mask.row_stride() + j] : mrow.data()[j];
                        if (spec.bias) B(i, j) = full ? in.bias.data()[i * in.bias.row_stride() + j] : brow.data()[j];
                    }
                for (std::size_t h = 0; h < 2; ++h) {
                    INFO("arch " << std::string(k.name) << " Tq " << Tq << " Tk " << Tk << " variant " << variant << " head " << h);
                    test_ref::Spec s;
                    s.scale = 1.0 / std::sqrt(double(float(d)));
                    s.mask = &M;
                    s.bias = &B;
                    test_ref::Grid context;
                    test_ref::attention(slice(in.Q, h), slice(in.K, 0), slice(in.V, 0), s, &context);
                    CHECK(test_ref::max_rel_error(r.context.slice_matrix(h), context) <= 1e-5);
                }
            }
        }
    }
}
