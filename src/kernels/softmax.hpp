// The row softmax (kernel_api.hpp's softmax_rows), in place, row by row.
// Stable: each row takes a max pass in two accumulators (−inf padded tails), then exp(x − max)
// stored with its sum in four accumulators (blocks of 64 vectors summed apart), then one
// multiply by 1/sum; −inf entries give exactly 0. A row whose max is −inf is fully masked
// (x − max would be NaN): it gets masked_row_weight(policy) and is counted; unless it holds a
// NaN, which makes the row NaN (masked_rows.hpp).
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <limits>

#include "kernels/kernel_types.hpp"
#include "kernels/exp.hpp"
#include "kernels/lanes.hpp"
#include "kernels/masked_rows.hpp"

namespace attn::kernels::attention_impl {
namespace {

// With lse, also each row's log_sum_exp (kernel_types.hpp) at lse[i]. A sink (not -inf; gpt-oss,
// kernel_api.hpp's FlashArgs::sink) joins every row's max and sum, never its entries: the weights
// then sum to less than 1, and a row with every entry -inf gets weights 0 (not the policy).
template <class Arch>
std::size_t softmax_rows_lse(float* S, std::size_t lds, std::size_t rows, std::size_t cols, MaskedRowPolicy policy,
                             float* lse, float sink = neg_inf) {  // see the opening comment
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const std::size_t full = cols - cols % W, tail = cols - full;
    std::size_t masked = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        float* row = S + i * lds;
        F m0(neg_inf), m1(neg_inf);
        std::size_t j = 0;
        for (; j + 2 * W <= full; j += 2 * W) {
            m0 = xsimd::max(m0, F::load_unaligned(row + j));
            m1 = xsimd::max(m1, F::load_unaligned(row + j + W));
        }
        if (j < full) m0 = xsimd::max(m0, F::load_unaligned(row + j));
        if (tail) m1 = xsimd::max(m1, load_partial<Arch>(row + full, tail, neg_inf));
        const float mx = std::max(sink, hmax<Arch>(xsimd::max(m0, m1)));
        if (mx == neg_inf) {  // fully masked (or no columns): x − max would be NaN
            const bool nan = holds_nan(row, cols);
            masked += !nan;
            const float fill = nan ? std::numeric_limits<float>::quiet_NaN() : masked_row_weight(policy, cols);
            std::fill(row, row + cols, fill);
            if (lse) lse[i] = nan ? fill : neg_inf;
            continue;
        }
        const F vmx(mx);
        F acc[4] = {F(0.0f), F(0.0f), F(0.0f), F(0.0f)};
        // In blocks of 64 vectors, each block's sum from 0 and then added to the row's (total):
        // along a row of 100,000 entries, one e^0 and the rest e^−17 (each below half a unit of 1),
        // one chain per accumulator lost 6e−5 of the sum; now a chain adds 16 terms, then the
        // blocks' sums and the last vectors join the row's.
        F total(0.0f);
        j = 0;
        for (; j + 4 * W <= full; j += 4 * W) {
            for (std::size_t u = 0; u < 4; ++u) {
                const F e = exp<Arch>(F::load_unaligned(row + j + u * W) - vmx);
                e.store_unaligned(row + j + u * W);
                acc[u] += e;
            }
            if ((j / (4 * W)) % 16 == 15) {
                total += (acc[0] + acc[1]) + (acc[2] + acc[3]);
                acc[0] = acc[1] = acc[2] = acc[3] = F(0.0f);
            }
        }
        for (; j < full; j += W) {
            const F e = exp<Arch>(F::load_unaligned(row + j) - vmx);
            e.store_unaligned(row + j);
            acc[0] += e;
        }
        if (tail) {
            const F e = exp<Arch>(load_partial<Arch>(row + full, tail, neg_inf) - vmx);
            store_partial<Arch>(row + full, e, tail);
            acc[1] += e;
        }
        float sum = hsum<Arch>(total + ((acc[0] + acc[1]) + (acc[2] + acc[3])));
        if (sink != neg_inf) {  // the sink's term, added once after the entries'
            alignas(64) float e[lanes<Arch>];
            exp<Arch>(F(sink - mx)).store_aligned(e);
            sum += e[0];
        }
        if (lse) lse[i] = log_sum_exp(mx, sum);
        const F inv(1.0f / sum);
        for (j = 0; j < full; j += W) (F::load_unaligned(row + j) * inv).store_unaligned(row + j);
        if (tail) store_partial<Arch>(row + full, load_partial<Arch>(row + full, tail, 0.0f) * inv, tail);
    }
    return masked;
}

template <class Arch>
std::size_t softmax_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols, MaskedRowPolicy policy) {
    return softmax_rows_lse<Arch>(S, lds, rows, cols, policy, nullptr);
}

}  // namespace
}  // namespace attn::kernels::attention_impl
