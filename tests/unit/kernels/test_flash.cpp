// The fused streaming attention kernel (kernels::ARCH::flash) of every supported arch
// against the materialised double-accumulator reference (attn::reference::attention), on
// awkward shapes and strides, every masking rule and every fully-masked-row policy, plus
// bitwise independence from how the rows are split into calls.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "arch_kernels.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "tensor_test_util.hpp"
#include "attn/masking.hpp"
#include "attn/matrix.hpp"
#include "attn/tensor.hpp"
#include "oracle/reference.hpp"

namespace {

using attn::Causal;
using attn::MaskedRowPolicy;
constexpr float ninf = -std::numeric_limits<float>::infinity();

// A rows × cols operand as the kernel reads it: an attn::MatrixView with row stride
// cols + pad (pad makes strides that are not multiples of the vector width) into tensor
// storage whose gaps hold garbage that must never be read into the result.
struct Operand {
    attn::Tensor storage;
    attn::MatrixView view;
    float& at(std::size_t i, std::size_t j) { return storage.data()[i * view.stride + j]; }
};

Operand operand(std::size_t rows, std::size_t cols, std::size_t pad) {
    Operand o{attn::Tensor(attn::Shape{std::max<std::size_t>(1, rows * (cols + pad))}), {}};
    std::fill(o.storage.data(), o.storage.data() + std::max<std::size_t>(1, rows * (cols + pad)), 9e9f);
    o.view = {o.storage.data(), rows, cols, cols + pad};
    return o;
}

// The view's contents as a Matrix, for the reference.
attn::Matrix to_matrix(const attn::MatrixView& v) {
    attn::Matrix m(v.rows, v.cols);
    for (std::size_t i = 0; i < v.rows; ++i)
        for (std::size_t j = 0; j < v.cols; ++j) m(i, j) = v(i, j);
    return m;
}

struct Problem {
    std::size_t Tq, Tk, dk, dv;
    Causal causal = Causal::none;
    MaskedRowPolicy policy = MaskedRowPolicy::zero;
    bool with_mask = false, with_bias = false;
    Operand Q, K, V, mask, bias;
    mutable attn::MaskBits bits;  // the mask as the kernels read it, packed by args()
    float scale = 1.0f;
    std::size_t key_limit = attn::no_key_limit;

    Problem(std::size_t tq, std::size_t tk, std::size_t d_k, std::size_t d_v, std::size_t pad, unsigned seed)
        : Tq(tq), Tk(tk), dk(d_k), dv(d_v), Q(operand(tq, d_k, pad)), K(operand(tk, d_k, pad + 2)),
          V(operand(tk, d_v, pad + 1)), mask(operand(tq, tk, pad)), bias(operand(tq, tk, pad)),
          scale(1.0f / std::sqrt(float(d_k))) {
        std::mt19937 gen(seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        for (Operand* m : {&Q, &K, &V})
            for (std::size_t i = 0; i < m->view.rows; ++i)
                for (std::size_t j = 0; j < m->view.cols; ++j) m->at(i, j) = 1.5f * normal(gen);
        std::uniform_int_distribution<int> coin(0, 4);
        for (std::size_t i = 0; i < tq; ++i)
            for (std::size_t j = 0; j < tk; ++j) {
                mask.at(i, j) = coin(gen) == 0 ? 0.0f : 1.0f;  // ~20% masked
                const int c = coin(gen);
                bias.at(i, j) = c == 0 ? ninf : 0.5f * normal(gen);  // ~20% −inf
            }
    }

    attn::kernels::FlashArgs args(float* O, std::size_t ldo, std::size_t r0, std::size_t r1) const {
        if (with_mask) bits = test_util::pack_mask(mask.view.data, Tq, Tk, mask.view.stride);  // the mask as it is now
        attn::kernels::FlashArgs a{Q.view.data, Q.view.stride, K.view.data, K.view.stride, V.view.data, V.view.stride,
                                   O + r0 * ldo, ldo, Tq, Tk, dk, dv, scale, attn::to_kernel(causal),
                                   with_mask ? bits.data() : nullptr, bits.row_words(), with_bias ? bias.view.data : nullptr,
                                   bias.view.stride, attn::to_kernel(policy), r0, r1, key_limit};
        a.offset = attn::kernels::causal_offset(a.causal, Tq, Tk);  // the alignment's own
        return a;
    }

    std::string describe() const {
        std::ostringstream s;
        s << "Tq " << Tq << " Tk " << Tk << " dk " << dk << " dv " << dv << " ldq " << Q.view.stride << " causal "
          << int(causal) << " mask " << with_mask << " bias " << with_bias << " policy " << int(policy) << " key limit "
          << (key_limit == attn::no_key_limit ? std::string("none") : std::to_string(key_limit));
        return s.str();
    }
};

// Runs the kernel over all rows (in one call) and compares with the reference.
void check_against_reference(const attn::test::ArchKernels& k, const Problem& p) {
    INFO(p.describe());
    const attn::Matrix Q = to_matrix(p.Q.view), K = to_matrix(p.K.view), V = to_matrix(p.V.view),
                       bias = to_matrix(p.bias.view);
    // The key limit, for the reference, as mask zeros on every key at or past it.
    attn::Matrix mask = p.with_mask ? to_matrix(p.mask.view) : attn::Matrix(p.Tq, p.Tk, 1.0f);
    for (std::size_t i = 0; i < p.Tq; ++i)
        for (std::size_t j = std::min(p.key_limit, p.Tk); j < p.Tk; ++j) mask(i, j) = 0.0f;
    attn::ScoreMask sm;
    sm.scale = p.scale;
    sm.causal = p.causal;
    sm.mask = p.with_mask || p.key_limit < p.Tk ? &mask : nullptr;
    sm.bias = p.with_bias ? &bias : nullptr;
    std::size_t ref_masked = 0;
    const attn::Matrix want = attn::reference::attention(Q, K, V, sm, p.policy, &ref_masked);

    float vmax = 0.0f;
    for (std::size_t j = 0; j < p.Tk; ++j)
        for (std::size_t c = 0; c < p.dv; ++c) vmax = std::max(vmax, std::fabs(p.V.view(j, c)));
    const std::size_t ldo = p.dv + 3;
    std::vector<float> out(p.Tq * ldo + 1, -7.0f);
    const std::size_t masked = k.flash(p.args(out.data(), ldo, 0, p.Tq));
    CHECK(masked == ref_masked);
    std::size_t bad = 0;
    double worst = 0.0;
    for (std::size_t i = 0; i < p.Tq; ++i) {
        for (std::size_t c = 0; c < p.dv; ++c) {
            const float got = out[i * ldo + c], w = want(i, c);
            if (std::isnan(w)) {
                bad += !std::isnan(got);
                continue;
            }
            // Relative 1e-5 of the value, and of the size of V for values near 0 (a wrong
            // mask or a lost tail key moves a row by ~|V|/Tk ≥ 3e-4·|V| here).
            const double err = std::fabs(double(got) - double(w));
            worst = std::max(worst, err / (std::fabs(w) + vmax));
            bad += !(err <= 1e-5 * std::fabs(w) + 2e-6 * vmax);
        }
        for (std::size_t c = p.dv; c < ldo; ++c) bad += out[i * ldo + c] != -7.0f;  // nothing written past dv
    }
    INFO("worst error relative to |want| + max|V|: " << worst);
    CHECK(bad == 0);
}

struct Shape {
    std::size_t Tq, Tk, dk, dv;
};

std::vector<Shape> awkward_shapes(std::size_t W) {
    // Around the vector width, the query block (16/64 rows) and the key tile (128 keys).
    return {{1, 1, 1, 1},           {1, W - 1 ? W - 1 : 1, 3, 5}, {W, W, W, W},          {W + 1, W - 1 ? W - 1 : 2, 7, 9},
            {4 * W + 3, W + 1, 5, 16}, {3, 4 * W + 3, 67, 33},     {17, 129, 64, 64},     {65, 127, 16, 70},
            {70, 300, 33, 1},       {130, 64, 2, 128},          {129, 257, 64, 65},    {64, 128, 128, 64}};
}

}  // namespace

TEST_CASE("flash: matches the materialised reference on awkward shapes, every masking rule, per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        unsigned seed = 1;
        for (const Shape& s : awkward_shapes(k.lanes)) {
            for (std::size_t pad : {0, 3}) {
                Problem p(s.Tq, s.Tk, s.dk, s.dv, pad, seed++);
                for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                    p.causal = causal;
                    p.with_mask = p.with_bias = false;
                    check_against_reference(k, p);
                    p.with_mask = true;
                    check_against_reference(k, p);
                    p.with_mask = false;
                    p.with_bias = true;
                    check_against_reference(k, p);
                    // Key padding: no key, one key, a tile boundary, past the end.
                    p.with_bias = false;
                    for (std::size_t limit : {std::size_t(0), std::size_t(1), p.Tk / 2, std::size_t(128), p.Tk}) {
                        p.key_limit = limit;
                        check_against_reference(k, p);
                    }
                    p.key_limit = attn::no_key_limit;
                }
            }
        }
    }
}

TEST_CASE("flash: fully masked rows follow each policy and are counted, per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        for (MaskedRowPolicy policy : {MaskedRowPolicy::zero, MaskedRowPolicy::nan, MaskedRowPolicy::uniform}) {
            // Bottom-right causal with Tq > Tk: the first Tq − Tk rows see no key at all.
            Problem p(2 * k.lanes + 5, k.lanes + 2, 9, 11, 1, 99);
            p.causal = Causal::bottom_right;
            p.policy = policy;
            check_against_reference(k, p);
            // An explicit mask that hides everything from rows 0 and 5, bias −inf on row 2.
            Problem q(70, 140, 8, 6, 2, 100);
            q.policy = policy;
            q.with_mask = q.with_bias = true;
            for (std::size_t j = 0; j < q.Tk; ++j) {
                q.mask.at(0, j) = q.mask.at(5, j) = 0.0f;
                q.bias.at(2, j) = ninf;
            }
            check_against_reference(k, q);
            std::vector<float> out(q.Tq * q.dv);
            CHECK(k.flash(q.args(out.data(), q.dv, 0, q.Tq)) >= 3);
            for (std::size_t c = 0; c < q.dv; ++c) {
                if (policy == MaskedRowPolicy::zero) CHECK(out[5 * q.dv + c] == 0.0f);
                if (policy == MaskedRowPolicy::nan) CHECK(std::isnan(out[5 * q.dv + c]));
            }
        }
    }
}

TEST_CASE("flash: masked keys get weight exactly 0 (NaN scores and huge values there do not leak), per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        // Keys 3, 40 and 100 are masked for every query; their K rows are NaN and their V
        // rows 1e38: any nonzero weight (even a subnormal one) would show.
        Problem p(33, 150, 16, 20, 1, 5);
        p.with_mask = true;
        for (std::size_t i = 0; i < p.Tq; ++i)
            for (std::size_t j = 0; j < p.Tk; ++j) p.mask.at(i, j) = (j == 3 || j == 40 || j == 100) ? 0.0f : 1.0f;
        for (std::size_t j : {3, 40, 100}) {
            for (std::size_t c = 0; c < p.dk; ++c) p.K.at(j, c) = std::numeric_limits<float>::quiet_NaN();
            for (std::size_t c = 0; c < p.dv; ++c) p.V.at(j, c) = 1e38f;
        }
        for (Causal causal : {Causal::none, Causal::top_left}) {
            p.causal = causal;
            std::vector<float> out(p.Tq * p.dv);
            k.flash(p.args(out.data(), p.dv, 0, p.Tq));
            for (float x : out) CHECK(std::fabs(x) < 10.0f);
            check_against_reference(k, p);
        }
    }
}

TEST_CASE("flash: a NaN score makes its row NaN, never a masked row's 0s or a count, per arch") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        for (MaskedRowPolicy policy : {MaskedRowPolicy::zero, MaskedRowPolicy::uniform}) {
            // Key 7's K row is NaN: under the causal rule rows 0…6 do not see it.
            Problem p(70, 150, 16, 9, 1, 41);
            p.causal = Causal::top_left;
            p.policy = policy;
            for (std::size_t c = 0; c < p.dk; ++c) p.K.at(7, c) = nan;
            check_against_reference(k, p);
            // One key, and a query row of NaN: every score of those rows is NaN (the max drops them).
            Problem one(k.lanes + 3, 1, 5, 4, 0, 42);
            one.policy = policy;
            for (std::size_t c = 0; c < one.dk; ++c) one.Q.at(2, c) = nan;
            check_against_reference(k, one);
            std::vector<float> out(one.Tq * one.dv);
            CHECK(k.flash(one.args(out.data(), one.dv, 0, one.Tq)) == 0);
            for (std::size_t c = 0; c < one.dv; ++c) CHECK(std::isnan(out[2 * one.dv + c]));
            CHECK(std::isfinite(out[0]));
        }
    }
}

TEST_CASE("flash: output is bitwise identical however the rows are split into calls, per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
            Problem p(203, 190, 24, 19, 1, 11);
            p.causal = causal;
            p.with_bias = causal == Causal::top_left;
            std::vector<float> whole(p.Tq * p.dv);
            const std::size_t whole_masked = k.flash(p.args(whole.data(), p.dv, 0, p.Tq));
            for (std::size_t chunk : {1, 7, 13, 16, 64, 100}) {
                INFO("causal " << int(causal) << " chunk " << chunk);
                std::vector<float> parts(p.Tq * p.dv, -1.0f);
                std::size_t masked = 0;
                for (std::size_t r0 = 0; r0 < p.Tq; r0 += chunk)
                    masked += k.flash(p.args(parts.data(), p.dv, r0, std::min(p.Tq, r0 + chunk)));
                CHECK(masked == whole_masked);
                CHECK(std::memcmp(whole.data(), parts.data(), whole.size() * sizeof(float)) == 0);
            }
            // Rows outside [row_begin, row_end) are not written.
            std::vector<float> some(p.Tq * p.dv, -1.0f);
            k.flash(p.args(some.data(), p.dv, 30, 77));
            for (std::size_t i = 0; i < p.Tq; ++i)
                for (std::size_t c = 0; c < p.dv; ++c)
                    CHECK((i >= 30 && i < 77) == (some[i * p.dv + c] != -1.0f));
        }
    }
}

TEST_CASE("flash: no keys at all: every row fully masked, the empty weighted sum is 0, per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        for (MaskedRowPolicy policy : {MaskedRowPolicy::zero, MaskedRowPolicy::nan, MaskedRowPolicy::uniform}) {
            Problem no_keys(5, 0, 4, 3, 1, 21);
            no_keys.policy = policy;
            check_against_reference(k, no_keys);
        }
    }
}
