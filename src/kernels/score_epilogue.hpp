// The materialised path's score epilogue (kernel_api.hpp's score_epilogue): after the GEMM
// S = Q·Kᵀ, each row of scores becomes scale·s (+ ALiBi, alibi.hpp) + bias, masked, and (when asked) softmax-
// normalised while it is in L1. Per row, one vector pass writes the scaled, capped (tanh.hpp's
// softcap), masked scores: keys outside the row's visible range (kernel_types.hpp's
// visible_range) are −inf without a load, mask bits blend −inf in (mask_lanes.hpp), and the product is rounded before the bias
// is added (`rounded`: no fused multiply-add, so the bits equal the scalar kernel's). Then
// softmax_rows (softmax.hpp) runs on the row. Rows are independent: any split of rows over
// threads gives the same bits.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/alibi.hpp"
#include "kernels/kernel_types.hpp"
#include "kernels/kernel_api.hpp"
#include "kernels/lanes.hpp"
#include "kernels/mask_lanes.hpp"
#include "kernels/softmax.hpp"
#include "kernels/tanh.hpp"

namespace attn::kernels::attention_impl {
namespace {

// The softcap of the epilogue: c and 1/c splat (c = 0: none).
template <class Arch>
struct Cap {
    float c;
    vfloat<Arch> vc, inv_c;
    explicit Cap(float cap) : c(cap), vc(cap), inv_c(cap == 0.0f ? 0.0f : 1.0f / cap) {}
    // scale·s, capped: the n first lanes of s are read. A product s that overflowed is NaN under
    // a scale below 1e−29 (kernel_types.hpp's overflowed_product_is_nan).
    vfloat<Arch> operator()(const float* s, float scale, std::size_t n) const {
        using F = vfloat<Arch>;
        const F raw = n == lanes<Arch> ? F::load_unaligned(s) : load_partial<Arch>(s, n, 0.0f);
        F x = raw * F(scale);
        if (overflowed_product_is_nan(scale))
            x = xsimd::select(xsimd::abs(raw) == F(std::numeric_limits<float>::infinity()),
                              F(std::numeric_limits<float>::quiet_NaN()), x);
        return c == 0.0f ? x : softcap<Arch>(x, vc, inv_c);
    }
};

// x = cap(scale·s) (+ *alibi, the lanes' ALiBi terms, when not null) (+ bias), -inf where a mask
// bit is 0 (mask: the n lanes' bits, or null) or
// the lane is at or past `allowed` (a count of leading lanes, W = all); the n first lanes
// are read (tails: n < W).
template <class Arch>
inline vfloat<Arch> scaled_lanes(const float* s, const std::uint32_t* mask, const float* bias, float scale,
                                 const Cap<Arch>& cap, const vfloat<Arch>* alibi, std::size_t n, std::size_t allowed) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const F ninf(neg_inf);
    F x = cap(s, scale, n);
    if (alibi) x = rounded<Arch>(x) + *alibi;
    if (bias) x = rounded<Arch>(x) + (n == W ? F::load_unaligned(bias) : load_partial<Arch>(bias, n, 0.0f));
    if (mask) x = mask_lanes<Arch>(x, *mask);
    if (allowed < W) {
        x = xsimd::select(lane_index<Arch>() < F(float(allowed)), x, ninf);
    }
    return x;
}

// The kernel (see the opening comment).
template <class Arch>
std::size_t score_epilogue(const ScoreEpilogueArgs& a) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const std::size_t Tk = a.Tk;
    const Cap<Arch> cap(a.softcap);
    const F iota = lane_index<Arch>();
    std::size_t masked = 0;
    for (std::size_t i = a.row_begin; i < a.row_end; ++i) {
        const std::size_t r = i - a.row_begin;
        const float* s = a.S + r * a.lds;
        float* p = a.P + r * a.ldp;
        const std::uint64_t* mask = a.mask ? a.mask + i * a.ldm : nullptr;
        const float* bias = a.bias ? a.bias + i * a.ldb : nullptr;
        if (a.capped) {  // every key, masked or not (before p is written: P may be S)
            float* c = a.capped + r * a.ld_capped;
            for (std::size_t j = 0; j < Tk; j += W) {
                const std::size_t n = std::min(W, Tk - j);
                if (n == W) cap(s + j, a.scale, W).store_unaligned(c + j);
                else store_partial<Arch>(c + j, cap(s + j, a.scale, n), n);
            }
        }
        const KeyRange keys = in_document(keys_at(a.causal, a.window, (long long)i + a.offset, Tk, a.key_limit, a.key_first),
                                          a.doc_begin, a.doc_end, i);
        const std::size_t visible = keys.end;
        // Keys before the window's start: -inf without a load, from the vector holding it on.
        std::size_t j = keys.begin / W * W;
        std::fill(p, p + j, neg_inf);
        std::uint32_t bits = 0;
        // ALiBi (alibi.hpp): slope·(j − p) for the W keys from j.
        const long long pos = (long long)i + a.offset;
        F ab;
        const auto alibi = [&](std::size_t j) {
            return a.alibi_slope == 0.0f ? nullptr : &(ab = alibi_lanes<Arch>(a.alibi_slope, (long long)j - pos, iota));
        };
        for (; j + W <= visible; j += W) {
            if (mask) bits = mask_bits_at(mask, j, W);
            scaled_lanes<Arch>(s + j, mask ? &bits : nullptr, bias ? bias + j : nullptr, a.scale, cap, alibi(j), W, W)
                .store_unaligned(p + j);
        }
        if (j < visible) {  // the vector holding the visible limit
            const std::size_t n = std::min(W, Tk - j);
            if (mask) bits = mask_bits_at(mask, j, n);
            const F x = scaled_lanes<Arch>(s + j, mask ? &bits : nullptr, bias ? bias + j : nullptr, a.scale, cap,
                                           alibi(j), n, visible - j);
            if (n == W) x.store_unaligned(p + j);
            else store_partial<Arch>(p + j, x, n);
            j += n;
        }
        std::fill(p + j, p + Tk, neg_inf);
        std::fill(p + keys.begin / W * W, p + keys.begin, neg_inf);
        if (a.scaled) std::copy(p, p + Tk, a.scaled + r * a.ld_scaled);
        if (a.softmax) masked += softmax_rows_lse<Arch>(p, a.ldp, 1, Tk, a.policy, a.lse ? a.lse + r : nullptr, a.sink);
    }
    return masked;
}

}  // namespace
}  // namespace attn::kernels::attention_impl
