// The vector kernels' online softmax works in base 2 (kernels/exp.hpp's softmax_weight), with
// every sum relative to e^m for the running max m: split-K chunks merged in natural units, a
// sink's starting sum 1, the log-sum-exp m + ln l. At any magnitude of the scores: a chunk
// max near 3000 (where float(m·log2 e) is off by up to 1.9e−4 of a unit), finite scores of 5e9
// and −1e20, a row HF-masked by float32's lowest value, sinks of ±1e10 (a weight computed as
// 2^(x·log2 e − float(m·log2 e)) was off by up to 2^128 there: contexts of 0, or errors). The
// scores are exact in float (d = 1, scale 1), so the float64 oracle (double_reference.hpp) leaves
// only the kernels' own rounding: every arch, fused (Tq = 9) and split-K decoding (Tq = 1).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/multihead.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

namespace {

struct Case {
    std::string name;
    std::vector<float> keys;  // d = 1: the scores are q·k
    float q_odd = 1.0f;       // odd query rows' q (even rows: 1)
    float sink = -std::numeric_limits<float>::infinity();
    float bias_row0 = 0.0f;   // added to every score of query row 0 (an HF-style mask when huge)
    float v_offset = 0.0f;    // V = N(0, 1) + v_offset
    double tol = 1e-6;        // context error over (|V|'s largest entry)
};

std::vector<Case> cases() {
    std::vector<Case> c;
    constexpr std::size_t Tk = 1024;  // split-K: 16 chunks of 64 keys (split_key_chunk)
    Case near = {"chunk maxima near 3000, 1.375 apart", {}, 0.875f};
    for (std::size_t j = 0; j < Tk; ++j)
        near.keys.push_back(3000.0f - 1.375f * float(j / 64) + 0.125f * float(j % 5) - 0.25f * float(j % 3));
    near.v_offset = 4.0f;  // float sums of 1024 terms near 4 in one tile loop: 3.1e−6 (scalar, fused)
    near.tol = 5e-6;
    c.push_back(near);
    Case sink = near;
    sink.name = "the same with a sink of 3003.5, about half of each row's mass";
    sink.sink = 3003.5f;
    c.push_back(sink);
    Case huge = {"scores 5e9 (ulp 512): the top keys share the weight", {}, 1.0f};
    for (std::size_t j = 0; j < Tk; ++j) huge.keys.push_back(5e9f - 512.0f * float(j % 4) - 4096.0f * float(j / 256));
    c.push_back(huge);
    Case huge_sink = huge;
    huge_sink.name = "scores 1488525184 with a sink of the same";
    for (float& k : huge_sink.keys) k = 1488525184.0f;
    huge_sink.sink = 1488525184.0f;
    c.push_back(huge_sink);
    Case low = {"scores near -1e20, every third key 2 ulp higher", {}, 1.0f};
    for (std::size_t j = 0; j < Tk; ++j) low.keys.push_back(j % 3 ? -1e20f : std::nextafter(std::nextafter(-1e20f, 0.0f), 0.0f));
    c.push_back(low);
    Case hf = {"row 0 masked by float32's lowest value (a uniform row, as PyTorch gives)", {}, 0.5f};
    std::mt19937 rng(3);
    std::normal_distribution<float> n(0.0f, 2.0f);
    for (std::size_t j = 0; j < Tk; ++j) hf.keys.push_back(n(rng));
    hf.bias_row0 = std::numeric_limits<float>::lowest();
    c.push_back(hf);
    Case big_sink = hf;
    big_sink.name = "a sink of 1e10 (weights of about e^−1e10: context 0)", big_sink.bias_row0 = 0.0f;
    big_sink.sink = 1e10f;
    c.push_back(big_sink);
    Case low_sink = big_sink;
    low_sink.name = "a sink of -1e10 (weight 0)", low_sink.sink = -1e10f;
    c.push_back(low_sink);
    return c;
}

}  // namespace

TEST_CASE("online softmax in base 2: sums relative to e^m at any magnitude, fused and split-K, every arch") {
    test_util::ArchGuard guard;
    std::mt19937 rng(41);
    for (const Case& c : cases()) {
        const std::size_t Tk = c.keys.size(), dv = 8;
        attn::Tensor K(attn::Shape{1, Tk, 1}), V = test_util::random_tensor(attn::Shape{1, Tk, dv}, rng);
        std::copy(c.keys.begin(), c.keys.end(), K.data());
        double vmax = 0;
        for (std::size_t i = 0; i < Tk * dv; ++i) vmax = std::max(vmax, std::fabs(double(V.data()[i] += c.v_offset)));
        for (const std::size_t Tq : {std::size_t(1), std::size_t(9)}) {
            attn::Tensor Q(attn::Shape{1, Tq, 1}), bias(attn::Shape{Tq, Tk});
            for (std::size_t i = 0; i < Tq; ++i) Q.data()[i] = i % 2 ? c.q_odd : 1.0f;
            for (std::size_t j = 0; j < Tk; ++j) bias.data()[j] = c.bias_row0;
            const attn::TensorView bias_view = bias.view();
            attn::AttentionSpec spec;
            spec.scale = 1.0f;
            if (c.sink > -std::numeric_limits<float>::infinity()) spec.sinks = {c.sink};
            if (c.bias_row0 != 0.0f) spec.bias = &bias_view;
            attn::AttentionWants wants;
            wants.lse = true;
            const attn::Matrix bm = test_util::slice_bh(bias, 0, 0);
            test_ref::Spec s;
            s.scale = 1.0;
            s.sink = c.sink;
            if (c.bias_row0 != 0.0f) s.bias = &bm;
            test_ref::Grid want;
            test_ref::attention(test_util::slice_bh(Q, 0, 0), test_util::slice_bh(K, 0, 0), test_util::slice_bh(V, 0, 0), s,
                                &want);
            std::vector<double> want_lse(Tq);  // ln Σ e^x in double, the sink one of the terms
            for (std::size_t i = 0; i < Tq; ++i) {
                std::vector<double> x(Tk);
                double mx = c.sink;
                for (std::size_t j = 0; j < Tk; ++j)
                    mx = std::max(mx, x[j] = double(Q.data()[i]) * K.data()[j] + (i == 0 ? double(c.bias_row0) : 0.0));
                double sum = std::exp(double(c.sink) - mx);
                for (std::size_t j = 0; j < Tk; ++j) sum += std::exp(x[j] - mx);
                want_lse[i] = mx + std::log(sum);
            }
            for (attn::Arch arch : test_util::supported_arches()) {
                attn::set_arch(arch);
                INFO("arch " << std::string(attn::arch_name(arch)) << ", " << c.name << ", Tq " << Tq);
                const attn::BatchedAttention r = attn::batched_attention(Q.view(), K.view(), V.view(), spec, wants);
                CHECK(r.split_keys == (Tq <= attn::decode_max_rows));
                double worst = 0, worst_lse = 0;
                for (std::size_t i = 0; i < Tq; ++i) {
                    // lse to float's own rounding of it (2 ulp), or 1e-6 near 0
                    const double e = std::fabs(r.lse.data()[i] - want_lse[i]);
                    worst_lse = std::max(worst_lse, e / std::max(1e-6, 2.0 * std::ldexp(1.0, std::ilogb(want_lse[i]) - 23)));
                    for (std::size_t col = 0; col < dv; ++col)
                        worst = std::max(worst, std::fabs(r.context.data()[i * r.context.row_stride() + col] - want[i][col]) / vmax);
                }
                INFO("worst context error " << worst << " of the largest |V|, lse " << worst_lse << " of its bound");
                CHECK(worst < c.tol);
                CHECK(worst_lse <= 1.0);
            }
        }
    }
}

TEST_CASE("online softmax: a long row's weighted values are summed as its weights are, every arch") {
    // V all ones: the context is exactly 1 whatever the weights. One key far above 30,000 others
    // (scores 17 and 0): each small weight, e^−17 of the max's, is below half a unit of the max's
    // own, so added one by one to a running output near 1 they were all lost, while the weights'
    // sum l (summed per tile from 0) kept them: the fused kernel gave 0.99592 (4e−3 off). Now each
    // tile's weighted values are summed from 0 too. Fused (Tq = 8); split-K decoding (Tq = 1) adds
    // its chunks' products in one chain per column, so its bound is looser (the naive sum's).
    test_util::ArchGuard guard;
    const std::size_t Tk = 30000;
    attn::Tensor K(attn::Shape{1, Tk, 1}), V(attn::Shape{1, Tk, 1});
    for (std::size_t j = 0; j < Tk; ++j) K.data()[j] = j == 0 ? 17.0f : 0.0f, V.data()[j] = 1.0f;
    for (const std::size_t Tq : {std::size_t(8), std::size_t(1)}) {
        attn::Tensor Q(attn::Shape{1, Tq, 1});
        for (std::size_t i = 0; i < Tq; ++i) Q.data()[i] = 1.0f;
        attn::AttentionSpec spec;
        spec.scale = 1.0f;
        for (attn::Arch arch : test_util::supported_arches()) {
            attn::set_arch(arch);
            INFO("arch " << std::string(attn::arch_name(arch)) << ", Tq " << Tq);
            const attn::BatchedAttention r = attn::batched_attention(Q.view(), K.view(), V.view(), spec, {});
            for (std::size_t i = 0; i < Tq; ++i)
                CHECK(std::fabs(r.context.data()[i * r.context.row_stride()] - 1.0f) <= (Tq > 1 ? 2.4e-7 : 2e-4));
        }
    }
}
