// The execution settings: which kernel set (arch) runs and on how many threads. attn/ops.hpp
// includes this header; the settings are process-wide, set by the CLI before any
// computation (not thread-safe to change while kernels run).
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "attn/arch.hpp"

namespace attn {

// The Arch type: attn/arch.hpp.

// Every arch attn knows, compiled in or not (for names and messages), plainest first.
std::span<const Arch> all_arches() noexcept;
const char* arch_name(Arch arch) noexcept;
bool arch_supported(Arch arch) noexcept;  // CPU and OS can run it, and it is compiled in
Arch best_arch() noexcept;
// "auto" → best_arch(); otherwise a name from arch_name. Throws UsageError when unknown or
// when the CPU lacks it.
Arch parse_arch(std::string_view name);
// "auto, scalar, …": auto and every known arch name, the last one after last_separator
// (", " for a list, " or " for a sentence); parse_arch's message, the help, the man page.
std::string arch_choices(std::string_view last_separator);

// threads == 0 means all online cores.
void set_arch(Arch arch);  // throws UsageError if unsupported
Arch current_arch() noexcept;
void set_threads(unsigned threads) noexcept;
unsigned current_threads() noexcept;
unsigned online_cores() noexcept;
// Starts the pool's threads for current_threads() now, idle, so that by the first
// parallel kernel the scheduler has settled them on cores of their own. Started at the first
// parallel kernel instead, a worker began on its caller's core and the first kernel waited
// for the scheduler to move it (a whole `attend` at T=4096 about 3% slower, 2 threads).
void start_threads();

}  // namespace attn
