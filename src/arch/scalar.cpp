// The scalar kernel set: the plain C++ kernels of src/kernels/scalar_*.cpp, compiled for the
// baseline ISA like the rest of attn. Every build and every CPU has it (arch/arches.def, row 0).
#include "arch/arch_table.hpp"
#include "kernels/kernel_api.hpp"
#include "arch/kernel_table.hpp"

namespace attn::kernels {
constinit const KernelSet scalar_kernel_set = {
    arch_table::arch_of(arch_table::row::scalar),
    1,
    scalar::gemm,
    scalar::exp,
    nullptr,  // no base-2 online softmax: the scalar kernels compute exp(x − m) with std::exp
    scalar::tanh,
    scalar::softmax_rows,
    scalar::flash,
    scalar::score_epilogue,
    scalar::decode_chunk,
    scalar::any_nonfinite_f32,
    scalar::any_nonfinite_f16,
    scalar::any_nan_or_pos_inf_f32,
    nullptr,  // no FMA peak, read or exp probe: bench measures the SIMD sets'
    nullptr,
    nullptr,
    scalar::additive_scores,
};
}  // namespace attn::kernels
