// PLACEHOLDER: forwards to the scalar kernel until the neon micro-kernel is written.
#include "kernels/kernel_api.hpp"

namespace attn::kernels::neon {
void gemm(const GemmArgs& a) { scalar::gemm(a); }
}  // namespace attn::kernels::neon
