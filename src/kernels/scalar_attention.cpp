// Scalar exp / softmax / fused attention in the kernel-API form (the "scalar" arch).
// PLACEHOLDER bodies: straightforward loops until the real scalar variants are written.
#include <cmath>
#include <limits>
#include <vector>

#include "attn/ops.hpp"
#include "kernels/kernel_api.hpp"

namespace attn::kernels::scalar {

void exp(const float* x, float* y, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] <= -88.0f ? 0.0f : std::exp(x[i]);
}

std::size_t softmax_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols, MaskedRowPolicy policy) {
    const float ninf = -std::numeric_limits<float>::infinity();
    std::size_t masked = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        float* r = S + i * lds;
        float mx = ninf;
        for (std::size_t j = 0; j < cols; ++j) mx = std::fmax(mx, r[j]);
        if (mx == ninf) {
            ++masked;
            const float fill = policy == MaskedRowPolicy::zero  ? 0.0f
                               : policy == MaskedRowPolicy::nan ? std::numeric_limits<float>::quiet_NaN()
                                                                : 1.0f / float(cols);
            for (std::size_t j = 0; j < cols; ++j) r[j] = fill;
            continue;
        }
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols; ++j) sum += (r[j] = r[j] == ninf ? 0.0f : std::exp(r[j] - mx));
        for (std::size_t j = 0; j < cols; ++j) r[j] /= sum;
    }
    return masked;
}

std::size_t flash(const FlashArgs& a) {
    const float ninf = -std::numeric_limits<float>::infinity();
    std::vector<float> s(a.Tk);
    std::size_t masked = 0;
    for (std::size_t i = a.row_begin; i < a.row_end; ++i) {
        const std::size_t visible = causal_visible(a.causal, i, a.Tq, a.Tk);
        for (std::size_t j = 0; j < a.Tk; ++j) {
            float dot = 0.0f;
            for (std::size_t p = 0; p < a.dk; ++p) dot += a.Q[i * a.ldq + p] * a.K[j * a.ldk + p];
            float v = a.scale * dot + (a.bias ? a.bias[i * a.ldb + j] : 0.0f);
            const bool allowed = j < visible && (!a.mask || a.mask[i * a.ldm + j] != 0.0f);
            s[j] = allowed ? v : ninf;
        }
        masked += softmax_rows(s.data(), a.Tk, 1, a.Tk, a.policy);
        for (std::size_t c = 0; c < a.dv; ++c) {
            float acc = 0.0f;
            for (std::size_t j = 0; j < a.Tk; ++j) acc += s[j] * a.V[j * a.ldv + c];
            a.O[i * a.ldo + c] = acc;
        }
    }
    return masked;
}

}  // namespace attn::kernels::scalar
