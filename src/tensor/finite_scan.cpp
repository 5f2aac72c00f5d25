#include "tensor/finite_scan.hpp"

#include "attn/runtime.hpp"
#include "arch/kernel_table.hpp"

namespace attn {

bool any_nonfinite_f32(const void* data, std::size_t count) {
    return kernels::table_of(current_arch()).any_nonfinite_f32(data, count);
}

bool any_nonfinite_f16(const void* data, std::size_t count) {
    return kernels::table_of(current_arch()).any_nonfinite_f16(data, count);
}

bool any_nan_or_pos_inf_f32(const void* data, std::size_t count) {
    return kernels::table_of(current_arch()).any_nan_or_pos_inf_f32(data, count);
}

}  // namespace attn
