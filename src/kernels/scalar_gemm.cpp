// Scalar GEMM in the kernel-API form (the "scalar" arch): plain loops in a cache-friendly
// order, float accumulation, no hand-written SIMD. It is the baseline `attn bench` reports
// speed-ups against; the float64 oracle is matmul in tests/oracle/reference.hpp.
#include <algorithm>

#include "kernels/kernel_api.hpp"

namespace attn::kernels::scalar {

void gemm(const GemmArgs& a) {
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
