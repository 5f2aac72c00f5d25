// The vector kernels' online softmax works in base 2 (kernels/exp.hpp's softmax_weight): a tile's
// or a chunk's sums are relative to 2^m₂, m₂ = m·log2(e) rounded to float, not to e^m; and the
// split-K merge, a sink's starting sum and the log-sum-exp are in natural units
// (kernel_types.hpp's base2_to_natural). Scores near 3000 make that rounding visible: m₂ is
// then a multiple of 2^−11, e^m/2^m₂ up to 1 ± 1.7e−4, and a chunk merged without the factor
// moves the context by about that much. The scores here are exact in float (d = 1, scale 1,
// multiples of 1/8), so the float64 oracle (double_reference.hpp) leaves only the kernels'
// own rounding, far below the tolerance: every arch, fused and split-K, with and without a sink
// (3003.5, about half of each row's mass, e^m/2^m₂ = 1 + 1.9e−4).
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "attn/multihead.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

TEST_CASE("online softmax in base 2: chunks, tiles, sinks and lse keep their reference at scores near 3000") {
    test_util::ArchGuard guard;
    constexpr std::size_t Tk = 1024, dv = 8;  // split-K: chunks of 64 keys (split_key_chunk)
    std::mt19937 rng(41);
    attn::Tensor K(attn::Shape{1, Tk, 1}), V = test_util::random_tensor(attn::Shape{1, Tk, dv}, rng);
    for (std::size_t i = 0; i < Tk * dv; ++i) V.data()[i] += 4.0f;  // contexts near 4: errors relative to them
    for (std::size_t j = 0; j < Tk; ++j)  // each chunk of 64 keys its own max, 1.375 below the last
        K.data()[j] = 3000.0f - 1.375f * float(j / 64) + 0.125f * float(j % 5) - 0.25f * float(j % 3);
    for (const std::size_t Tq : {std::size_t(1), std::size_t(9)})  // split-K decoding, the fused kernel
        for (const bool sink : {false, true}) {
            attn::Tensor Q(attn::Shape{1, Tq, 1});
            for (std::size_t i = 0; i < Tq; ++i) Q.data()[i] = 1.0f - 0.125f * float(i % 2);
            attn::AttentionSpec spec;
            if (sink) spec.sinks = {3003.5f};
            attn::AttentionWants wants;
            wants.lse = true;
            test_ref::Spec s;
            s.scale = 1.0;
            if (sink) s.sink = 3003.5;
            test_ref::Grid want;
            test_ref::attention(test_util::slice_bh(Q, 0, 0), test_util::slice_bh(K, 0, 0), test_util::slice_bh(V, 0, 0), s,
                                &want);
            for (attn::Arch arch : test_util::supported_arches()) {
                attn::set_arch(arch);
                INFO("arch " << std::string(attn::arch_name(arch)) << ", Tq " << Tq << ", sink " << sink);
                const attn::BatchedAttention r = attn::batched_attention(Q.view(), K.view(), V.view(), spec, wants);
                CHECK(r.split_keys == (Tq <= attn::decode_max_rows));
                double worst = 0, worst_lse = 0;
                for (std::size_t i = 0; i < Tq; ++i) {
                    // ln Σ e^x in double, the sink a term of it
                    const double q = Q.data()[i];
                    double mx = sink ? 3003.5 : -INFINITY, sum = 0;
                    for (std::size_t j = 0; j < Tk; ++j) mx = std::max(mx, q * K.data()[j]);
                    for (std::size_t j = 0; j < Tk; ++j) sum += std::exp(q * K.data()[j] - mx);
                    if (sink) sum += std::exp(3003.5 - mx);
                    worst_lse = std::max(worst_lse, std::fabs(r.lse.data()[i] - (mx + std::log(sum))));
                    for (std::size_t c = 0; c < dv; ++c)
                        worst = std::max(worst, std::fabs(r.context.data()[i * r.context.row_stride() + c] - want[i][c]) / 4.0);
                }
                INFO("worst context error " << worst << ", lse " << worst_lse);
                // Relative. Float sums of 1024 terms near 4 in one tile loop: 3.1e−6 (scalar, fused);
                // without base2_to_natural 2.5e−5 (split-K, sink) and 3.0e−5 (fused, sink), and with
                // double's log2(e) in it instead of the kernels' float 8e−6 (split-K, sink).
                CHECK(worst < 5e-6);
                CHECK(worst_lse < 3e-4);  // the float lse's own ulp at 3000 is 2.4e-4
            }
        }
}
