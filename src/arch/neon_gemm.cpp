// The packed GEMM (kernels/gemm_impl.hpp) and the FMA peak probe (kernels/fma_peak.hpp) for NEON (aarch64).
// Compiled with this arch's flags only; nothing else belongs in this file.
#include "kernels/fma_peak.hpp"
#include "kernels/gemm_impl.hpp"

namespace attn::kernels::neon {
void gemm(const GemmArgs& a) { Gemm<xsimd::neon64>::run(a); }
float fma_peak(std::uint64_t iterations, float seed) { return FmaPeak<xsimd::neon64>::run(iterations, seed); }
std::size_t fma_peak_lanes() { return FmaPeak<xsimd::neon64>::lanes; }
float read_sum(const float* p, std::size_t n) { return ReadProbe<xsimd::neon64>::run(p, n); }
}  // namespace attn::kernels::neon
