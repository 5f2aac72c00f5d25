// The kernel sets of the arch table (arch/arches.def) this build compiled: one KernelSet
// per row, defined by the row's translation unit src/arch/NAME.cpp as NAME_kernel_set.
// Dispatch (attention/ops.cpp), the engine, the tests and the benchmark iterate or index it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "attn/arch.hpp"
#include "kernels/kernel_api.hpp"

namespace attn::kernels {

struct KernelSet {
    Arch arch;
    std::size_t lanes;  // float lanes of the arch's vectors (1 for scalar)
    void (*gemm)(const GemmArgs&);
    void (*exp)(const float*, float*, std::size_t);
    // The fused kernels' weights e^(x[i] − m) (softmax_weight, kernels/exp.hpp); null for scalar.
    void (*softmax_weights)(const float* x, float m, float* y, std::size_t n);
    void (*tanh)(const float*, float*, std::size_t);
    std::size_t (*softmax_rows)(float*, std::size_t, std::size_t, std::size_t, MaskedRowPolicy);
    std::size_t (*flash)(const FlashArgs&);
    std::size_t (*score_epilogue)(const ScoreEpilogueArgs&);
    void (*decode_chunk)(const DecodeArgs&);
    bool (*any_nonfinite_f32)(const void*, std::size_t);
    bool (*any_nonfinite_f16)(const void*, std::size_t);
    bool (*any_nan_or_pos_inf_f32)(const void*, std::size_t);
    // The FMA peak and read-bandwidth probes (FmaPeak and ReadProbe, kernels/gemm_impl.hpp)
    // and the fused kernel's exponential rate (exp_probe, kernels/exp.hpp); null for scalar.
    float (*fma_peak)(std::uint64_t iterations, float seed);
    float (*read_sum)(const float* p, std::size_t n);
    float (*exp_probe)(std::uint64_t iterations, float seed);
    void (*additive_scores)(const AdditiveArgs&);  // kernels/additive.hpp
};

// Each row's set, defined in its TU (declared for every row; only this host's are defined).
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) extern const KernelSet name##_kernel_set;
#include "arch/arches.def"
#undef ATTN_ARCH

// Every arch compiled into this build, scalar first (whether or not this CPU can run it).
std::span<const KernelSet> compiled_kernel_sets() noexcept;
// The set of a compiled arch (scalar's for one that is not compiled in).
const KernelSet& table_of(Arch arch) noexcept;

}  // namespace attn::kernels
