// PLACEHOLDER: forwards to the scalar kernel until the avx2 micro-kernel is written.
#include "kernels/kernel_api.hpp"

namespace attn::kernels::avx2 {
void gemm(const GemmArgs& a) { scalar::gemm(a); }
}  // namespace attn::kernels::avx2
