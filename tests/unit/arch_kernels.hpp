// The per-arch kernel sets of kernels/kernel_api.hpp that this machine can run, so that a
// kernel test runs once per supported arch (scalar always) and names the arch it checks.
#pragma once
#include <cstddef>
#include <vector>

#include "attn/ops.hpp"
#include "kernels/kernel_api.hpp"

namespace attn::test {

struct ArchKernels {
    Arch arch;
    const char* name;
    std::size_t lanes;  // float lanes of the arch's vectors (1 for scalar)
    void (*exp)(const float*, float*, std::size_t);
    std::size_t (*softmax_rows)(float*, std::size_t, std::size_t, std::size_t, MaskedRowPolicy);
    std::size_t (*flash)(const kernels::FlashArgs&);
};

inline std::vector<ArchKernels> supported_arch_kernels() {
    namespace k = attn::kernels;
    std::vector<ArchKernels> all = {
        {Arch::scalar, "scalar", 1, k::scalar::exp, k::scalar::softmax_rows, k::scalar::flash},
#if defined(__x86_64__) || defined(__i386__)
        {Arch::avx2, "avx2", 8, k::avx2::exp, k::avx2::softmax_rows, k::avx2::flash},
        {Arch::avx512, "avx512", 16, k::avx512::exp, k::avx512::softmax_rows, k::avx512::flash},
#elif defined(__aarch64__)
        {Arch::neon, "neon", 4, k::neon::exp, k::neon::softmax_rows, k::neon::flash},
#endif
    };
    std::vector<ArchKernels> usable;
    for (const auto& a : all)
        if (arch_supported(a.arch)) usable.push_back(a);
    return usable;
}

}  // namespace attn::test
