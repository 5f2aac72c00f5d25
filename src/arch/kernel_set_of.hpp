// The kernel set of one SIMD row of the arch table (arch/arches.def): every templated kernel
// instantiated for the row's xsimd tag. Included only by the row's translation unit
// src/arch/NAME.cpp, which the Makefile compiles with the row's flags and nothing else with
// them: everything here is a template on the tag or has internal linkage (design notes §2),
// so no code compiled for this ISA can be picked by the linker for another TU's callers.
#pragma once
#include <cstddef>

#include "arch/arch_table.hpp"
#include "kernels/attention_impl.hpp"
#include "kernels/finite_scan_impl.hpp"
#include "kernels/gemm_impl.hpp"
#include "kernels/kernel_api.hpp"
#include "arch/kernel_table.hpp"

namespace attn::arch_table {

// Each row's lanes and xsimd tag: row_traits<row::NAME>::tag.
template <row R>
struct row_traits;
#define ATTN_ARCH(name, lanes_, tag_, host, cpu, flags) \
    template <>                                          \
    struct row_traits<row::name> {                       \
        using tag = tag_;                                \
        static constexpr std::size_t lanes = lanes_;     \
    };
#include "arch/arches.def"
#undef ATTN_ARCH

// The set of row R. ScanTag: the tag of the finite scans, which test float16 data in 16-bit
// lanes (the row's tag unless its xsimd arch lacks those, as avx512f does without BW).
template <row R, class ScanTag = typename row_traits<R>::tag>
constexpr kernels::KernelSet kernel_set_of() {
    using Tag = typename row_traits<R>::tag;
    static_assert(xsimd::batch<float, Tag>::size == row_traits<R>::lanes, "arches.def: lanes differ from the tag's");
    namespace a = kernels::attention_impl;
    namespace scan = kernels::finite_scan_impl;
    return {
        arch_of(R),
        row_traits<R>::lanes,
        kernels::Gemm<Tag>::run,
        a::exp_array<Tag>,
        a::softmax_weights_array<Tag>,
        a::tanh_array<Tag>,
        a::softmax_rows<Tag>,
        a::flash<Tag>,
        a::score_epilogue<Tag>,
        a::decode_chunk<Tag>,
        [](const void* p, std::size_t n) { return scan::any_of<ScanTag>(p, n, scan::NonfiniteF32{}); },
        [](const void* p, std::size_t n) { return scan::any_of<ScanTag>(p, n, scan::NonfiniteF16{}); },
        [](const void* p, std::size_t n) { return scan::any_of<ScanTag>(p, n, scan::NanOrPosInfF32{}); },
        kernels::FmaPeak<Tag>::run,
        kernels::ReadProbe<Tag>::run,
        a::exp_probe<Tag>,
        a::additive_scores<Tag>,
    };
}

}  // namespace attn::arch_table
