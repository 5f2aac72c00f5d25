// Internal: scans of float data for values a result or an input may not hold, fast enough to
// run over every element of a Tq×Tk matrix or a K/V cache: the active arch's kernels
// (kernels/finite_scan_impl.hpp). The data are read as bits, so any alignment will do.
#pragma once
#include <cstddef>

namespace attn {

// Whether any of `count` float32 / float16 values is NaN or ±inf.
bool any_nonfinite_f32(const void* data, std::size_t count);
bool any_nonfinite_f16(const void* data, std::size_t count);
// Whether any of `count` float32 values is NaN or +inf (-inf is allowed).
bool any_nan_or_pos_inf_f32(const void* data, std::size_t count);

}  // namespace attn
