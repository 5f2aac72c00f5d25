// The additive (Bahdanau) score kernel (kernel_api.hpp's additive_scores): for one query row
// at a time, a block of keys in vector lanes and the hidden size h streamed, x = q'[c] + k'ᵀ[c][j]
// (the projected query's entry broadcast, the projected keys transposed so that keys are
// contiguous), acc += v_a[c]·tanh(x) (tanh.hpp). Four vectors of keys at once keep four
// independent accumulators in flight; edge keys take a partial load and store and are computed
// as the others (each lane's operations do not depend on the block). The Tq×Tk×h work never
// leaves registers: no Tq×Tk×h buffer, as PyTorch's broadcast q[:, :, None] + k[:, None] makes.
// Part of kernels/attention_impl.hpp: internal linkage, included only by the per-arch TUs.
#pragma once
#include <cstddef>

#include "kernels/kernel_api.hpp"
#include "kernels/lanes.hpp"
#include "kernels/tanh.hpp"

namespace attn::kernels::attention_impl {
namespace {

// U vectors of keys from j (the last one n lanes wide, n ≤ W) of query row q.
template <class Arch, std::size_t U>
inline void additive_block(const AdditiveArgs& a, const float* q, std::size_t j, std::size_t n, float* s) {
    using F = vfloat<Arch>;
    constexpr std::size_t W = lanes<Arch>;
    F acc[U];
    for (std::size_t u = 0; u < U; ++u) acc[u] = F(0.0f);
    for (std::size_t c = 0; c < a.h; ++c) {
        const F qc(q[c]), vc(a.va[c * a.va_stride]);
        const float* k = a.KpT + c * a.ldkt + j;
        for (std::size_t u = 0; u < U; ++u) {
            const F kk = u + 1 < U || n == W ? F::load_unaligned(k + u * W) : load_partial<Arch>(k + u * W, n, 0.0f);
            acc[u] = fmadd<Arch>(vc, tanh<Arch>(qc + kk), acc[u]);
        }
    }
    for (std::size_t u = 0; u + 1 < U; ++u) acc[u].store_unaligned(s + j + u * W);
    if (n == W) acc[U - 1].store_unaligned(s + j + (U - 1) * W);
    else store_partial<Arch>(s + j + (U - 1) * W, acc[U - 1], n);
}

template <class Arch>
void additive_scores(const AdditiveArgs& a) {
    constexpr std::size_t W = lanes<Arch>;
    for (std::size_t i = 0; i < a.m; ++i) {
        const float* q = a.Qp + i * a.ldq;
        float* s = a.S + i * a.lds;
        std::size_t j = 0;
        for (; j + 4 * W <= a.n; j += 4 * W) additive_block<Arch, 4>(a, q, j, W, s);
        for (; j + W <= a.n; j += W) additive_block<Arch, 1>(a, q, j, W, s);
        if (j < a.n) additive_block<Arch, 1>(a, q, j, a.n - j, s);
    }
}

}  // namespace
}  // namespace attn::kernels::attention_impl
