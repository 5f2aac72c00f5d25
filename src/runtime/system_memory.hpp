// What /proc/meminfo says of the memory the system can still hand out.
#pragma once

#include <cstddef>
#include <string_view>

namespace attn {

// The value of a /proc/meminfo line ("MemAvailable:", "SwapFree:", ...) in bytes; 0 when the
// file or the line is missing (not Linux, a sandbox).
std::size_t meminfo_bytes(std::string_view key);

}  // namespace attn
