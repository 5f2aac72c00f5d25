// PLACEHOLDER: forwards to the scalar kernel until the avx512 micro-kernel is written.
#include "kernels/kernel_api.hpp"

namespace attn::kernels::avx512 {
void gemm(const GemmArgs& a) { scalar::gemm(a); }
}  // namespace attn::kernels::avx512
