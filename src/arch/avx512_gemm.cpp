// The packed GEMM (kernels/gemm_impl.hpp) for AVX-512 F (compiled with F/DQ/VL/BW, see the Makefile).
// Compiled with this arch's flags only; nothing else belongs in this file.
#include "kernels/gemm_impl.hpp"

namespace attn::kernels::avx512 {
void gemm(const GemmArgs& a) { Gemm<xsimd::avx512f>::run(a); }
}  // namespace attn::kernels::avx512
