// Scalar GEMM in the kernel-API form (the "scalar" arch). Plain loops, float accumulation.
#include "kernels/kernel_api.hpp"

namespace attn::kernels::scalar {

void gemm(const GemmArgs& a) {
    for (std::size_t i = 0; i < a.m; ++i)
        for (std::size_t j = 0; j < a.n; ++j) {
            float acc = 0.0f;
            for (std::size_t p = 0; p < a.k; ++p)
                acc += a.A[i * a.lda + p] * (a.b_transposed ? a.B[j * a.ldb + p] : a.B[p * a.ldb + j]);
            a.C[i * a.ldc + j] = acc;
        }
}

}  // namespace attn::kernels::scalar
