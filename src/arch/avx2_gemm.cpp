// The packed GEMM (kernels/gemm_impl.hpp) and the FMA peak probe (kernels/fma_peak.hpp) for AVX2 + FMA (fma3<avx2>: plain avx2's fma is not fused in xsimd 8.1).
// Compiled with this arch's flags only; nothing else belongs in this file.
#include "kernels/fma_peak.hpp"
#include "kernels/gemm_impl.hpp"

namespace attn::kernels::avx2 {
void gemm(const GemmArgs& a) { Gemm<xsimd::fma3<xsimd::avx2>>::run(a); }
float fma_peak(std::uint64_t iterations, float seed) { return FmaPeak<xsimd::fma3<xsimd::avx2>>::run(iterations, seed); }
std::size_t fma_peak_lanes() { return FmaPeak<xsimd::fma3<xsimd::avx2>>::lanes; }
float read_sum(const float* p, std::size_t n) { return ReadProbe<xsimd::fma3<xsimd::avx2>>::run(p, n); }
}  // namespace attn::kernels::avx2
