// What a fully masked query row gets: the one rule for every kernel and schedule (fused,
// streaming, split-K decoding, and the softmax of materialised scores).
// - Its weights are masked_row_weight(policy, Tk) each (kernel_types.hpp): 0, NaN or 1/Tk.
// - Its context follows: zero gives 0, nan gives NaN, uniform gives the mean of V's Tk rows
//   (the weighted sum with weights 1/Tk, as JAX's and PyTorch's uniform fill compute it).
//   Over no keys at all (Tk = 0) the weighted sum is empty, so every policy gives 0.
// The mean is computed in double, in key order, and rounded once: the same bits on every
// arch and for every thread count.
// A row is fully masked when every score is −inf (or there is none). A NaN score is not a
// mask: it makes every weight and the context of its row NaN, as torch's softmax does (its
// max is NaN), so the callers refuse it instead of passing a masked row's 0s off as a result.
// The kernels' maxima may drop a NaN (vmaxps, std::max), so where a max comes out −inf the
// row is checked for one (holds_nan), and the fused kernels test their sum l == 0, not l > 0.
#pragma once
#include <algorithm>
#include <cstddef>
#include <limits>

#include "kernels/kernel_types.hpp"

namespace attn::kernels {

// out[c] = mean over j < Tk of V[j·ldv + c], for c < dv (V's elements of type `type`).
// Compiled once, for the baseline ISA (masked_rows.cpp).
void mean_of_v(const void* V, ElementType type, std::size_t Tk, std::size_t dv, std::size_t ldv, float* out);

namespace {  // internal linkage: compiled with each arch TU's flags (design notes §2)

// Whether any of x[0, n) is NaN (the check of a row whose max came out −inf: see above).
inline bool holds_nan(const float* x, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j)
        if (x[j] != x[j]) return true;
    return false;
}

// Writes the context of a fully masked row (dv floats) to out. mean() returns V's column means
// (mean_of_v) and is called only under the uniform policy, so it may compute them on first use.
template <class MeanOfV>
void write_masked_context(MaskedRowPolicy policy, std::size_t Tk, std::size_t dv, float* out, MeanOfV&& mean) {
    if (policy == MaskedRowPolicy::uniform && Tk > 0) {
        const float* m = mean();
        std::copy(m, m + dv, out);
        return;
    }
    const float fill = policy == MaskedRowPolicy::nan && Tk > 0 ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    std::fill(out, out + dv, fill);
}

}  // namespace
}  // namespace attn::kernels
