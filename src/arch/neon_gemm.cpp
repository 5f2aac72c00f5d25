// The packed GEMM (kernels/gemm_impl.hpp) for NEON (aarch64).
// Compiled with this arch's flags only; nothing else belongs in this file.
#include "kernels/gemm_impl.hpp"

namespace attn::kernels::neon {
void gemm(const GemmArgs& a) { Gemm<xsimd::neon64>::run(a); }
}  // namespace attn::kernels::neon
