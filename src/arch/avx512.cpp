// The avx512 kernel set: every templated kernel for xsimd::avx512f (compiled with F, DQ, VL
// and BW, arch/arches.def), and the finite scans for xsimd::avx512bw (16-bit lanes for the
// float16 scan; the avx512 row's CPU check requires BW).
// GCC 12's AVX-512 intrinsics initialise their "undefined" operand from itself
// (_mm512_undefined_ps), which -Wmaybe-uninitialized reports once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "arch/kernel_set_of.hpp"

namespace attn::kernels {
constinit const KernelSet avx512_kernel_set = arch_table::kernel_set_of<arch_table::row::avx512, xsimd::avx512bw>();
}  // namespace attn::kernels
