// The neon kernel set: every templated kernel for xsimd::neon64 (aarch64), compiled with this
// row's flags only (arch/arches.def).
#include "arch/kernel_set_of.hpp"

namespace attn::kernels {
constinit const KernelSet neon_kernel_set = arch_table::kernel_set_of<arch_table::row::neon>();
}  // namespace attn::kernels
