// The arch type alone, at the bottom of the house with the arch table and the kernels it
// indexes (src/arch/): the settings that choose one are attn/runtime.hpp.
#pragma once

namespace attn {

// An arch is a row of the build's arch table (src/arch/arches.def), named by arch_name().
// This header does not enumerate the rows, so that adding an arch changes no installed
// header: only Arch::scalar (row 0, in every build, on every CPU) has a name here; the
// others come from parse_arch, best_arch, current_arch or all_arches().
enum class Arch : unsigned char { scalar = 0 };

}  // namespace attn
