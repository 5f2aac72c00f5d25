// Masks packed into bits (attn/mask_bits.hpp): the packing against a direct loop, and the
// kernels that read the bits (fused, split-K decoding, materialised epilogue) through the
// batched engine on every supported arch against the float64 oracle, on key counts around
// the 16-, 32- and 64-bit boundaries, broadcast rows, fully masked rows under each policy,
// single allowed keys, with the causal rule, key lengths and a bias; bitwise identical for
// any thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/mask_bits.hpp"
#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"

namespace {

using attn::Causal;
using attn::MaskBits;
using attn::Shape;
using attn::Tensor;
using attn::TensorView;
using test_util::slice_bh;

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

TEST_CASE("mask bits: packing matches a direct loop (zero and minus zero mask, anything else allows)") {
    std::mt19937 rng(7);
    const float values[] = {0.0f, -0.0f, 1.0f, -2.5f, nan_f, inf_f, -inf_f, 1e-45f};
    std::uniform_int_distribution<int> pick(0, 7);
    for (std::size_t Tk : {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200})
        for (const Shape& shape : {Shape{3, Tk}, Shape{1, Tk}, Shape{2, 3, Tk}, Shape{2, 1, 3, Tk}}) {
            INFO("shape " << shape.text());
            Tensor t(shape);  // rows padded: the padding must not be read as keys
            for (std::size_t s = 0; s < t.slices(); ++s)
                for (std::size_t r = 0; r < t.rows(); ++r) {
                    float* row = t.slice_data(s) + r * t.row_stride();
                    for (std::size_t j = 0; j < Tk; ++j) row[j] = values[pick(rng)];
                    for (std::size_t j = Tk; j < t.row_stride(); ++j) row[j] = 1.0f;
                }
            const MaskBits bits(t.view());
            REQUIRE(bits.shape() == shape);
            REQUIRE(bits.row_words() == (Tk + 63) / 64);
            REQUIRE(bits.rows() == t.slices() * t.rows());
            std::size_t row = 0;
            for (std::size_t s = 0; s < t.slices(); ++s)
                for (std::size_t r = 0; r < t.rows(); ++r, ++row) {
                    const float* m = t.slice_data(s) + r * t.row_stride();
                    const std::uint64_t* w = bits.row(row);
                    for (std::size_t j = 0; j < bits.row_words() * 64; ++j) {
                        const bool bit = (w[j / 64] >> (j % 64)) & 1u;
                        const bool want = j < Tk && !(m[j] == 0.0f);
                        CHECK(bit == want);
                        if (j < Tk) CHECK(bits.allowed(row, j) == want);
                    }
                }
        }
}

// One masked-attention problem through the batched engine: Q (B, H, Tq, d), K/V (B, 1, Tk, d)
// and a mask of the given shape; optional bias, causal rule and key lengths.
struct Problem {
    std::size_t B = 2, H = 2, Tq, Tk, dk = 7, dv = 5;
    Shape mask_shape;
    Causal causal = Causal::none;
    bool with_bias = false, with_lengths = false;
    int policy = 0;  // 0 zero, 1 nan, 2 uniform
    Tensor Q, K, V, mask, bias;
    std::vector<std::size_t> lengths;

    Problem(std::size_t tq, std::size_t tk, Shape ms, unsigned seed) : Tq(tq), Tk(tk), mask_shape(ms) {
        std::mt19937 rng(seed);
        Q = test_util::random_tensor(Shape{B, H, Tq, dk}, rng);
        K = test_util::random_tensor(Shape{B, 1, Tk, dk}, rng);
        V = test_util::random_tensor(Shape{B, 1, Tk, dv}, rng);
        bias = test_util::random_tensor(Shape{Tq, Tk}, rng, 0.5f);
        mask = Tensor(mask_shape);
        std::uniform_int_distribution<int> coin(0, 2);
        const std::size_t rows = mask.rows();
        for (std::size_t s = 0; s < mask.slices(); ++s)
            for (std::size_t r = 0; r < rows; ++r) {
                float* m = mask.slice_data(s) + r * mask.row_stride();
                for (std::size_t j = 0; j < Tk; ++j) m[j] = coin(rng) == 0 ? 0.0f : 1.0f;  // ~1/3 masked
                if (rows > 2 && r == 0) std::fill(m, m + Tk, 0.0f);  // a fully masked row
                if (rows > 2 && r == 1) {                             // a single allowed key, late
                    std::fill(m, m + Tk, 0.0f);
                    m[Tk - 1 - (s % Tk)] = 1.0f;
                }
            }
        for (std::size_t b = 0; b < B; ++b) lengths.push_back(b == 0 ? Tk : (Tk + 1) / 2);
    }

    attn::AttentionSpec spec(const MaskBits* bits, const TensorView* mv, const TensorView* bv) const {
        attn::AttentionSpec s;
        s.causal = causal;
        s.mask = mv;
        s.mask_bits = bits;
        s.bias = with_bias ? bv : nullptr;
        if (with_lengths) s.lengths = lengths;
        s.masked_rows = policy == 0 ? attn::MaskedRowPolicy::zero
                        : policy == 1 ? attn::MaskedRowPolicy::nan
                                      : attn::MaskedRowPolicy::uniform;
        return s;
    }

    std::string describe() const {
        return "Tq " + std::to_string(Tq) + " Tk " + std::to_string(Tk) + " mask " + mask_shape.text() + " causal " +
               std::to_string(int(causal)) + " bias " + std::to_string(with_bias) + " lengths " +
               std::to_string(with_lengths) + " policy " + std::to_string(policy);
    }
};

// The oracle for (b, h): the mask row of (b, h, i) after broadcasting, key lengths as zeros.
test_ref::Grid oracle(const Problem& p, std::size_t b, std::size_t h, test_ref::Grid* context) {
    const attn::Matrix Q = slice_bh(p.Q, b, h), K = slice_bh(p.K, b, 0), V = slice_bh(p.V, b, 0);
    const attn::Matrix m = slice_bh(p.mask, b, h);
    attn::Matrix mask(p.Tq, p.Tk, 1.0f);
    for (std::size_t i = 0; i < p.Tq; ++i)
        for (std::size_t j = 0; j < p.Tk; ++j) {
            mask(i, j) = m(m.rows() == 1 ? 0 : i, j);
            if (p.with_lengths && j >= p.lengths[b]) mask(i, j) = 0.0f;
        }
    const attn::Matrix bias = p.bias.slice_matrix(0);
    test_ref::Spec s;
    s.scale = 1.0 / std::sqrt(double(p.dk));
    s.causal = p.causal == Causal::top_left ? 1 : p.causal == Causal::bottom_right ? 2 : 0;
    // bottom-right with lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen rule)
    if (p.causal == Causal::bottom_right && p.with_lengths) s.offset = (long long)p.lengths[b] - (long long)p.Tq;
    s.mask = &mask;
    s.bias = p.with_bias ? &bias : nullptr;
    s.policy = p.policy;
    return test_ref::attention(Q, K, V, s, context);
}

// Every element of (b, h) of a result against the oracle: 1e-5 relative + 2e-6 absolute; NaN
// where the oracle has NaN.
std::size_t mismatches(const Tensor& got, std::size_t b, std::size_t h, std::size_t H, const test_ref::Grid& want) {
    const float* p = got.slice_data(b * H + h);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j) {
            const double w = want[i][j], g = p[i * got.row_stride() + j];
            if (std::isnan(w)) bad += !std::isnan(g);
            else bad += !(std::fabs(g - w) <= 1e-5 * std::fabs(w) + 2e-6);
        }
    return bad;
}

std::vector<Shape> mask_shapes(std::size_t Tq, std::size_t Tk) {
    return {Shape{Tq, Tk}, Shape{1, Tk}, Shape{2, 1, Tq, Tk}, Shape{2, 2, Tq, Tk}};
}

TEST_CASE("mask bits: fused, split-K and materialised kernels read the bits as the float64 oracle, every arch") {
    test_util::ArchGuard guard;
    unsigned seed = 100;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        // Tq 1 and 3 take the split-K decoding path, 17 and 70 the fused kernel.
        for (std::size_t Tq : {1, 3, 17, 70})
            for (std::size_t Tk : {1, 15, 16, 17, 63, 64, 65, 130}) {
                for (const Shape& ms : mask_shapes(Tq, Tk)) {
                    Problem p(Tq, Tk, ms, seed++);
                    const MaskBits bits(p.mask.view());
                    const TensorView mv = p.mask.view(), bv = p.bias.view();
                    for (int variant = 0; variant < 4; ++variant) {
                        p.causal = variant == 1 ? Causal::top_left : variant == 3 ? Causal::bottom_right : Causal::none;
                        p.with_bias = variant >= 2;
                        p.with_lengths = variant >= 1;
                        p.policy = variant % 3;
                        INFO("arch " << std::string(attn::arch_name(arch)) << ", " << p.describe());
                        const attn::AttentionSpec spec = p.spec(&bits, nullptr, &bv);
                        attn::AttentionWants fused_w, mat_w;
                        mat_w.weights = true;
                        const attn::BatchedAttention fused =
                            attn::batched_attention(p.Q.view(), p.K.view(), p.V.view(), spec, fused_w);
                        const attn::BatchedAttention mat =
                            attn::batched_attention(p.Q.view(), p.K.view(), p.V.view(), spec, mat_w);
                        REQUIRE(fused.fused);
                        CHECK(fused.split_keys == (Tq <= attn::decode_max_rows));
                        REQUIRE(!mat.fused);
                        for (std::size_t b = 0; b < p.B; ++b)
                            for (std::size_t h = 0; h < p.H; ++h) {
                                INFO("b " << b << " h " << h);
                                test_ref::Grid ctx;
                                const test_ref::Grid w = oracle(p, b, h, &ctx);
                                CHECK(mismatches(fused.context, b, h, p.H, ctx) == 0);
                                CHECK(mismatches(mat.context, b, h, p.H, ctx) == 0);
                                CHECK(mismatches(mat.weights, b, h, p.H, w) == 0);
                            }
                        CHECK(fused.masked_rows == mat.masked_rows);
                        // The float mask alone is packed by the call: the same bits.
                        const attn::BatchedAttention from_floats = attn::batched_attention(
                            p.Q.view(), p.K.view(), p.V.view(), p.spec(nullptr, &mv, &bv), fused_w);
                        CHECK(test_util::same_bits(from_floats.context, fused.context));
                    }
                }
            }
    }
}

TEST_CASE("mask bits: key tiles masked for every query (skipped by the fused kernel) match the oracle, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        for (std::size_t Tq : {70, 150})
            for (const Shape& ms : {Shape{Tq, 700}, Shape{1, 700}}) {
                Problem p(Tq, 700, ms, 21);
                // Keys [0, 128) and [256, 640) masked for every query: whole 128-key tiles, the
                // first one before anything is allowed; a few keys stay allowed in [128, 256).
                for (std::size_t r = 0; r < p.mask.rows(); ++r) {
                    float* m = p.mask.data() + r * p.mask.row_stride();
                    std::fill(m, m + 128, 0.0f);
                    std::fill(m + 256, m + 640, 0.0f);
                    m[130 + r % 100] = 1.0f;
                }
                const MaskBits bits(p.mask.view());
                const TensorView bv = p.bias.view();
                for (int variant = 0; variant < 3; ++variant) {
                    p.causal = variant == 1 ? Causal::bottom_right : Causal::none;
                    p.with_bias = variant == 2;
                    INFO("arch " << std::string(attn::arch_name(arch)) << ", " << p.describe());
                    attn::AttentionWants fused_w;
                    const attn::BatchedAttention fused =
                        attn::batched_attention(p.Q.view(), p.K.view(), p.V.view(), p.spec(&bits, nullptr, &bv), fused_w);
                    REQUIRE((fused.fused && !fused.split_keys));
                    for (std::size_t b = 0; b < p.B; ++b)
                        for (std::size_t h = 0; h < p.H; ++h) {
                            test_ref::Grid ctx;
                            oracle(p, b, h, &ctx);
                            CHECK(mismatches(fused.context, b, h, p.H, ctx) == 0);
                        }
                }
            }
    }
}

TEST_CASE("mask bits: a fully masked row follows each policy; the counts agree on every path, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        for (std::size_t Tq : {2, 40})
            for (std::size_t Tk : {1, 64, 65}) {
                Problem p(Tq, Tk, Shape{Tq, Tk}, 5);
                std::fill(p.mask.data(), p.mask.data() + p.mask.row_stride(), 0.0f);  // row 0
                const MaskBits bits(p.mask.view());
                for (int policy = 0; policy < 3; ++policy) {
                    p.policy = policy;
                    INFO("arch " << std::string(attn::arch_name(arch)) << ", " << p.describe());
                    attn::AttentionWants fused_w, mat_w;
                    mat_w.weights = true;
                    const attn::AttentionSpec spec = p.spec(&bits, nullptr, nullptr);
                    const attn::BatchedAttention fused =
                        attn::batched_attention(p.Q.view(), p.K.view(), p.V.view(), spec, fused_w);
                    const attn::BatchedAttention mat =
                        attn::batched_attention(p.Q.view(), p.K.view(), p.V.view(), spec, mat_w);
                    CHECK(fused.masked_rows >= p.B * p.H);  // row 0 of every (b, h), at least
                    CHECK(fused.masked_rows == mat.masked_rows);
                    for (std::size_t s = 0; s < p.B * p.H; ++s)
                        for (std::size_t c = 0; c < p.dv; ++c) {
                            const float got = fused.context.slice_data(s)[c];
                            if (policy == 0) CHECK(got == 0.0f);
                            if (policy == 1) CHECK(std::isnan(got));
                            if (policy == 2) {  // the mean of V
                                double mean = 0;
                                const attn::Matrix V = slice_bh(p.V, s / p.H, 0);
                                for (std::size_t j = 0; j < Tk; ++j) mean += V(j, c);
                                CHECK(std::fabs(got - mean / double(Tk)) <= 1e-6 * (1 + std::fabs(mean)));
                            }
                        }
                }
            }
    }
}

TEST_CASE("mask bits: masked results are bitwise identical for 1, 2, 3 and 7 threads, every arch and path") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        for (std::size_t Tq : {3, 300})
            for (const Shape& ms : {Shape{Tq, 200}, Shape{1, 200}, Shape{2, 2, Tq, 200}}) {
                Problem p(Tq, 200, ms, 9);
                p.with_bias = p.with_lengths = true;
                p.causal = Causal::bottom_right;
                const MaskBits bits(p.mask.view());
                const TensorView bv = p.bias.view();
                const attn::AttentionSpec spec = p.spec(&bits, nullptr, &bv);
                INFO("arch " << std::string(attn::arch_name(arch)) << ", " << p.describe());
                for (bool weights : {false, true}) {
                    attn::AttentionWants w;
                    w.weights = weights;
                    attn::set_threads(1);
                    const attn::BatchedAttention one =
                        attn::batched_attention(p.Q.view(), p.K.view(), p.V.view(), spec, w);
                    for (unsigned t : {2u, 3u, 7u}) {
                        attn::set_threads(t);
                        const attn::BatchedAttention r =
                            attn::batched_attention(p.Q.view(), p.K.view(), p.V.view(), spec, w);
                        CHECK(test_util::same_bits(r.context, one.context));
                        if (weights) CHECK(test_util::same_bits(r.weights, one.weights));
                        CHECK(r.masked_rows == one.masked_rows);
                    }
                }
            }
    }
}

TEST_CASE("mask bits: a mask that does not fit is an input error, whether given as floats or as bits") {
    std::mt19937 rng(3);
    const Tensor Q = test_util::random_tensor(Shape{4, 8}, rng), K = test_util::random_tensor(Shape{6, 8}, rng);
    const Tensor one_dim = test_util::random_tensor(Shape{6}, rng), wide = test_util::random_tensor(Shape{4, 7}, rng);
    for (const Tensor* m : {&one_dim, &wide}) {
        INFO("mask " << m->shape().text());
        const TensorView mv = m->view();
        const MaskBits bits(mv);
        attn::AttentionSpec floats, packed;
        floats.mask = &mv;
        packed.mask_bits = &bits;
        CHECK_THROWS_AS(attn::batched_attention(Q.view(), K.view(), K.view(), floats), attn::InputError);
        CHECK_THROWS_AS(attn::batched_attention(Q.view(), K.view(), K.view(), packed), attn::InputError);
    }
    const TensorView none;  // rank 0, no data: refused before anything is read
    attn::AttentionSpec spec;
    spec.mask = &none;
    CHECK_THROWS_AS(attn::batched_attention(Q.view(), K.view(), K.view(), spec), attn::InputError);
}

}  // namespace

TEST_CASE("mask bits: one-byte elements pack as a direct loop, any byte value, both polarities, any row length") {
    std::mt19937 rng(17);
    const unsigned char values[] = {0, 1, 0x7f, 0x80, 0xff, 2, 0x40, 0};
    std::uniform_int_distribution<int> pick(0, 7);
    CHECK(attn::pack_byte_word(values, 8) == 0b01111110u);
    for (std::size_t Tk : {1, 7, 8, 9, 15, 63, 64, 65, 127, 129, 200})
        for (bool zero_allows : {false, true}) {
            INFO("Tk " << Tk << " zero_allows " << zero_allows);
            std::vector<unsigned char> bytes(3 * Tk);
            for (unsigned char& b : bytes) b = values[pick(rng)];
            const MaskBits m(Shape{3, Tk}, bytes.data(), zero_allows);
            for (std::size_t r = 0; r < 3; ++r)
                for (std::size_t j = 0; j < m.row_words() * 64; ++j) {
                    const bool bit = (m.row(r)[j / 64] >> (j % 64)) & 1u;
                    CHECK(bit == (j < Tk && ((bytes[r * Tk + j] != 0) != zero_allows)));
                }
        }
}

TEST_CASE("mask bits: from one-byte elements, inverted, reshaped and combined by broadcasting") {
    using attn::MaskBits;
    using attn::Shape;
    // 2 rows of 70 keys (two words a row): nonzero allows; bits past the keys stay 0.
    std::vector<unsigned char> bytes(2 * 70, 0);
    for (std::size_t j = 0; j < 70; j += 3) bytes[j] = 1;
    bytes[70 + 69] = 255;
    const MaskBits m(Shape{2, 70}, bytes.data());
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t j = 0; j < 70; ++j) CHECK(m.allowed(r, j) == (bytes[r * 70 + j] != 0));
    CHECK((m.row(0)[1] >> 6) == 0);
    // PyTorch's polarity: zero allows.
    const MaskBits z(Shape{2, 70}, bytes.data(), true);
    const MaskBits inv = m.inverted();
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t j = 0; j < 70; ++j) {
            CHECK(z.allowed(r, j) == (bytes[r * 70 + j] == 0));
            CHECK(inv.allowed(r, j) == z.allowed(r, j));
        }
    CHECK((inv.row(1)[1] >> 6) == 0);  // inverting leaves the bits past the keys 0
    // (2, 70) as (2, 1, 1, 70), combined with a (3, 70) mask: (2, 1, 3, 70), each bit the AND.
    std::vector<unsigned char> other(3 * 70);
    for (std::size_t i = 0; i < other.size(); ++i) other[i] = (i * 7) % 5 != 0;
    const MaskBits o(Shape{3, 70}, other.data());
    const MaskBits both = MaskBits::both(m.reshaped(Shape{2, 1, 1, 70}), o);
    CHECK(both.shape() == Shape{2, 1, 3, 70});
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 70; ++j)
                CHECK(both.allowed(b * 3 + i, j) == (m.allowed(b, j) && o.allowed(i, j)));
    CHECK_THROWS_AS(MaskBits::both(m, MaskBits(Shape{3, 70}, other.data())), attn::InputError);  // 2 rows against 3
    CHECK_THROWS_AS(MaskBits::both(m, MaskBits(Shape{1, 69}, other.data())), attn::InputError);
}

TEST_CASE("MaskBits: the packers get zeroed words, whatever the memory held before") {
    // The words are not zero-filled when allocated (each thread zeroes the rows it packs): a
    // buffer of the same size freed just before, full of ones, is what malloc hands back here.
    const std::size_t rows = 300, keys = 200, n = attn::MaskBits::words_per_row(keys);
    void* dirty = attn::aligned_alloc_bytes(rows * n * sizeof(std::uint64_t));
    std::memset(dirty, 0xff, rows * n * sizeof(std::uint64_t));
    attn::aligned_free_bytes(dirty);
    // A packer that only sets bits (as the float .npy packer does): key r % keys of row r.
    const attn::MaskBits bits(attn::Shape{rows, keys}, 7, [&](std::size_t r0, std::size_t r1, std::uint64_t* words) {
        for (std::size_t r = r0; r < r1; ++r) words[(r - r0) * n + r % keys / 64] |= std::uint64_t(1) << (r % keys % 64);
    });
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < keys; ++j) {
            INFO(r, " ", j);
            REQUIRE(bits.allowed(r, j) == (j == r % keys));
        }
}
