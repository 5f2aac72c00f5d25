// FMA peak probes (one per SIMD arch, compiled in that arch's translation unit next to its
// GEMM): run `iterations` rounds of 12 independent vector FMA chains and return a value
// depending on all of them. Flops done = iterations · 12 · lanes · 2.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attn::kernels {

// read_sum: the read-bandwidth probe, the sum of n floats at p (kernels/gemm_impl.hpp).
#define ATTN_FMA_PEAK_DECLS                                          \
    float fma_peak(std::uint64_t iterations, float seed);            \
    std::size_t fma_peak_lanes();                                    \
    float read_sum(const float* p, std::size_t n);

namespace avx2 { ATTN_FMA_PEAK_DECLS }
namespace avx512 { ATTN_FMA_PEAK_DECLS }
namespace neon { ATTN_FMA_PEAK_DECLS }

#undef ATTN_FMA_PEAK_DECLS

}  // namespace attn::kernels
