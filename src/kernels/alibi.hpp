// ALiBi (Press et al. 2022; BLOOM, MPT, ggml's max_bias): the score of the query at position p
// (i + the causal offset, AttentionProblem::position) and key j gains slope·(j − p), after the softcap and
// before the bias (kernel_api.hpp's alibi_slope). Computed on the fly from (slope, p, j), never
// stored as a Tq×Tk bias: j − p is an exact integer in float32 (|j − p| < 2^24, which resolving
// the problem checks), the product is rounded once, then added (no fused multiply-add: the bits
// of the scalar kernels' x + slope·float(j − p)).
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <cstddef>

#include "kernels/lanes.hpp"

namespace attn::kernels::attention_impl {
namespace {

// Lane l: l as a float (0, 1, …, W − 1).
template <class Arch>
inline vfloat<Arch> lane_index() {
    alignas(64) float lane[lanes<Arch>];
    for (std::size_t l = 0; l < lanes<Arch>; ++l) lane[l] = float(l);
    return vfloat<Arch>::load_aligned(lane);
}

// Lane l: slope·(j0 + l − p), for W consecutive keys of one query (iota = lane_index).
template <class Arch>
inline vfloat<Arch> alibi_lanes(float slope, long long j0_minus_p, const vfloat<Arch>& iota) {
    using F = vfloat<Arch>;
    return rounded<Arch>(F(slope) * (F(float(j0_minus_p)) + iota));
}

// x + slope·(j − pos), one key j for a vector of query lanes at positions pos.
template <class Arch>
inline vfloat<Arch> add_alibi(const vfloat<Arch>& x, const vfloat<Arch>& slope, float j, const vfloat<Arch>& pos) {
    return rounded<Arch>(x) + rounded<Arch>(slope * (vfloat<Arch>(j) - pos));
}

// The fused kernel's transposed tile: Sᵀ[j][q] += slope·(t0 + j − pos[q]) for keys j < nk and the
// NV vectors of query lanes of each row (rows ld floats apart, aligned); with colmax, also
// colmax[v] = max(colmax[v], max_j Sᵀ[j][v]) over the result.
template <class Arch, std::size_t NV>
inline void alibi_tile(float* st, std::size_t ld, std::size_t t0, std::size_t nk, float slope,
                       const vfloat<Arch>* pos, vfloat<Arch>* colmax) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    const F s(slope);
    F mx[NV];
    for (std::size_t v = 0; v < NV; ++v) mx[v] = F(neg_inf);
    for (std::size_t j = 0; j < nk; ++j)
        for (std::size_t v = 0; v < NV; ++v) {
            float* p = st + j * ld + v * W;
            const F x = add_alibi<Arch>(F::load_aligned(p), s, float(t0 + j), pos[v]);
            x.store_aligned(p);
            mx[v] = xsimd::max(mx[v], x);
        }
    if (colmax)
        for (std::size_t v = 0; v < NV; ++v) colmax[v] = xsimd::max(colmax[v], mx[v]);
}

}  // namespace
}  // namespace attn::kernels::attention_impl
