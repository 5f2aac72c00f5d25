// The arch table (kernels/kernel_table.hpp). Compiled for the baseline ISA: it only takes
// the addresses of the per-arch kernels.
#include "kernels/kernel_table.hpp"

#include "kernels/fma_peak.hpp"

namespace attn::kernels {

namespace {

#define ATTN_KERNEL_SET(arch, ns, lanes, peak, read)                                                          \
    KernelSet {                                                                                                 \
        arch, lanes, ns::gemm, ns::exp, ns::softmax_rows, ns::flash, ns::score_epilogue, ns::decode_chunk,      \
            ns::any_nonfinite_f32, ns::any_nonfinite_f16, ns::any_nan_or_pos_inf_f32, peak, read                \
    }

const KernelSet table[] = {
    ATTN_KERNEL_SET(Arch::scalar, scalar, 1, nullptr, nullptr),
#if defined(__x86_64__) || defined(__i386__)
    ATTN_KERNEL_SET(Arch::avx2, avx2, 8, avx2::fma_peak, avx2::read_sum),
    ATTN_KERNEL_SET(Arch::avx512, avx512, 16, avx512::fma_peak, avx512::read_sum),
#elif defined(__aarch64__)
    ATTN_KERNEL_SET(Arch::neon, neon, 4, neon::fma_peak, neon::read_sum),
#endif
};

#undef ATTN_KERNEL_SET

}  // namespace

std::span<const KernelSet> compiled_kernel_sets() noexcept { return table; }

const KernelSet& table_of(Arch arch) noexcept {
    for (const KernelSet& k : table)
        if (k.arch == arch) return k;
    return table[0];
}

}  // namespace attn::kernels
