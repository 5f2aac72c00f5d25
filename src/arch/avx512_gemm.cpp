// The packed GEMM (kernels/gemm_impl.hpp) and the FMA peak probe (kernels/fma_peak.hpp) for AVX-512 F (compiled with F/DQ/VL/BW, see the Makefile).
// Compiled with this arch's flags only; nothing else belongs in this file.
#include "kernels/fma_peak.hpp"
#include "kernels/gemm_impl.hpp"

namespace attn::kernels::avx512 {
void gemm(const GemmArgs& a) { Gemm<xsimd::avx512f>::run(a); }
float fma_peak(std::uint64_t iterations, float seed) { return FmaPeak<xsimd::avx512f>::run(iterations, seed); }
std::size_t fma_peak_lanes() { return FmaPeak<xsimd::avx512f>::lanes; }
float read_sum(const float* p, std::size_t n) { return ReadProbe<xsimd::avx512f>::run(p, n); }
}  // namespace attn::kernels::avx512
