// The per-arch kernel sets of the arch table (arch/kernel_table.hpp) that this machine
// can run, so that a kernel test runs once per supported arch (scalar always) and names the
// arch it checks.
#pragma once
#include <vector>

#include "attn/ops.hpp"
#include "arch/kernel_table.hpp"

namespace attn::test {

struct ArchKernels : kernels::KernelSet {
    const char* name;
};

inline std::vector<ArchKernels> supported_arch_kernels() {
    std::vector<ArchKernels> usable;
    for (const kernels::KernelSet& k : kernels::compiled_kernel_sets())
        if (arch_supported(k.arch)) usable.push_back({k, arch_name(k.arch)});
    return usable;
}

}  // namespace attn::test
