// The avx2 finite scans: instances of kernels/finite_scan_impl.hpp for xsimd::fma3<xsimd::avx2>,
// compiled with that ISA's flags (Makefile).
#include "kernels/finite_scan_impl.hpp"
#include "kernels/kernel_api.hpp"

namespace attn::kernels::avx2 {

using Arch = xsimd::fma3<xsimd::avx2>;
namespace impl = finite_scan_impl;

bool any_nonfinite_f32(const void* p, std::size_t n) { return impl::any_of<Arch>(p, n, impl::NonfiniteF32{}); }
bool any_nonfinite_f16(const void* p, std::size_t n) { return impl::any_of<Arch>(p, n, impl::NonfiniteF16{}); }
bool any_nan_or_pos_inf_f32(const void* p, std::size_t n) { return impl::any_of<Arch>(p, n, impl::NanOrPosInfF32{}); }

}  // namespace attn::kernels::avx2
