// The scalar finite scans: kernels/finite_scan_impl.hpp's rules a value at a time, compiled
// for the baseline ISA.
#include "kernels/finite_scan_impl.hpp"
#include "kernels/kernel_api.hpp"

namespace attn::kernels::scalar {

namespace impl = finite_scan_impl;

bool any_nonfinite_f32(const void* p, std::size_t n) { return impl::any_of_scalar(p, n, impl::NonfiniteF32{}); }
bool any_nonfinite_f16(const void* p, std::size_t n) { return impl::any_of_scalar(p, n, impl::NonfiniteF16{}); }
bool any_nan_or_pos_inf_f32(const void* p, std::size_t n) { return impl::any_of_scalar(p, n, impl::NanOrPosInfF32{}); }

}  // namespace attn::kernels::scalar
