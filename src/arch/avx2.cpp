// The avx2 kernel set: every templated kernel for xsimd::fma3<xsimd::avx2> (plain avx2's fma
// is not fused in xsimd 8.1), compiled with this row's flags only (arch/arches.def).
#include "arch/kernel_set_of.hpp"

namespace attn::kernels {
constinit const KernelSet avx2_kernel_set = arch_table::kernel_set_of<arch_table::row::avx2>();
}  // namespace attn::kernels
