// The kernel table (arch/kernel_table.hpp): the rows of the arch table (arch/arches.def)
// this build compiles, in the table's order. Compiled for the baseline ISA: it only takes
// the addresses of the per-arch kernel sets.
#include "arch/kernel_table.hpp"

#include "arch/arch_table.hpp"

namespace attn::kernels {

namespace {

// Copies of the rows' sets. Each NAME_kernel_set is constant-initialised (constinit in its
// TU), so the copy is safe whenever it happens; made at the first call.
struct Table {
    KernelSet sets[0
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) ATTN_ON_HOST_##host(+1)
#include "arch/arches.def"
#undef ATTN_ARCH
    ] = {
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) ATTN_ON_HOST_##host(name##_kernel_set, )
#include "arch/arches.def"
#undef ATTN_ARCH
    };
};

const Table& table() noexcept {
    static const Table t;
    return t;
}

}  // namespace

std::span<const KernelSet> compiled_kernel_sets() noexcept { return table().sets; }

const KernelSet& table_of(Arch arch) noexcept {
    for (const KernelSet& k : table().sets)
        if (k.arch == arch) return k;
    return table().sets[0];
}

}  // namespace attn::kernels
