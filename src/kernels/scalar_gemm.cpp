// Scalar GEMM in the kernel-API form (the "scalar" arch): plain loops in a cache-friendly
// order, float accumulation, no hand-written SIMD. It is the baseline `attn bench` reports
// speed-ups against; the float64 oracle is matmul in tests/oracle/reference.hpp.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/float16.hpp"
#include "kernels/kernel_api.hpp"

namespace attn::kernels::scalar {

namespace {

// B widened from 16-bit floats (GemmArgs::b_type), panel by panel as the packed GEMM does: the
// same products, in the same order, on the same float32 values.
void gemm_half(const GemmArgs& a) {
    const auto* h = reinterpret_cast<const std::uint16_t*>(a.B);
    const auto at = [&](std::size_t i) {
        return a.b_type == GemmB::f16 ? half_to_float(h[i]) : bfloat16_to_float(h[i]);
    };
    const std::size_t rows = a.b_transposed ? a.n : a.k, cols = a.b_transposed ? a.k : a.n;
    constexpr std::size_t panel = 64;  // rows of B widened at a time
    std::vector<float> wide(panel * cols);
    if (a.b_transposed) {
        for (std::size_t j0 = 0; j0 < rows; j0 += panel) {
            const std::size_t nj = std::min(panel, rows - j0);
            for (std::size_t r = 0; r < nj; ++r)
                for (std::size_t c = 0; c < cols; ++c) wide[r * cols + c] = at((j0 + r) * a.ldb + c);
            GemmArgs part = a;
            part.B = wide.data(), part.ldb = cols, part.b_type = GemmB::f32, part.C = a.C + j0, part.n = nj;
            gemm(part);
        }
        return;
    }
    // C = Σ over row panels of B of A[:, panel]·B[panel, :]: accumulate into C.
    for (std::size_t i = 0; i < a.m; ++i) std::fill(a.C + i * a.ldc, a.C + i * a.ldc + a.n, 0.0f);
    for (std::size_t p0 = 0; p0 < rows; p0 += panel) {
        const std::size_t np = std::min(panel, rows - p0);
        for (std::size_t r = 0; r < np; ++r)
            for (std::size_t c = 0; c < cols; ++c) wide[r * cols + c] = at((p0 + r) * a.ldb + c);
        for (std::size_t i = 0; i < a.m; ++i) {
            float* Ci = a.C + i * a.ldc;
            for (std::size_t p = 0; p < np; ++p) {
                const float aip = a.A[i * a.lda + p0 + p];
                const float* Bp = wide.data() + p * cols;
                for (std::size_t j = 0; j < a.n; ++j) Ci[j] += aip * Bp[j];
            }
        }
    }
}

}  // namespace

void gemm(const GemmArgs& a) {
    if (a.b_type != GemmB::f32) return gemm_half(a);
    for (std::size_t i = 0; i < a.m; ++i) {
        const float* Ai = a.A + i * a.lda;
        float* Ci = a.C + i * a.ldc;
        if (a.b_transposed) {  // C[i,j] = A[i,:]·Bt[j,:]: contiguous dot products
            for (std::size_t j = 0; j < a.n; ++j) {
                const float* Bj = a.B + j * a.ldb;
                float acc = 0.0f;
                for (std::size_t p = 0; p < a.k; ++p) acc += Ai[p] * Bj[p];
                Ci[j] = acc;
            }
        } else {  // C[i,:] = Σ_p A[i,p]·B[p,:]: streams rows of B
            std::fill(Ci, Ci + a.n, 0.0f);
            for (std::size_t p = 0; p < a.k; ++p) {
                const float aip = Ai[p];
                const float* Bp = a.B + p * a.ldb;
                for (std::size_t j = 0; j < a.n; ++j) Ci[j] += aip * Bp[j];
            }
        }
    }
}

}  // namespace attn::kernels::scalar
