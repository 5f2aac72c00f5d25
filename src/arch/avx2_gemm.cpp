// The packed GEMM (kernels/gemm_impl.hpp) for AVX2 + FMA (fma3<avx2>: plain avx2's fma is not fused in xsimd 8.1).
// Compiled with this arch's flags only; nothing else belongs in this file.
#include "kernels/gemm_impl.hpp"

namespace attn::kernels::avx2 {
void gemm(const GemmArgs& a) { Gemm<xsimd::fma3<xsimd::avx2>>::run(a); }
}  // namespace attn::kernels::avx2
