// How much memory this process can still be given, and the one check of large buffers.
// Linux hands out more memory than it has (overcommit): a buffer larger than what the system
// or the process's memory cgroup (a container, Slurm --mem, a systemd scope) can still give is
// granted, and the process is killed by the OOM killer while filling it (exit 137). Large
// buffers are checked first and refused with a message instead.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

namespace attn {

// Where the memory figures are read; tests point these at files of their own.
struct MemorySources {
    std::string proc = "/proc";              // meminfo, self/cgroup
    std::string cgroup_fs = "/sys/fs/cgroup";  // v2 at its root or at unified/, v1 under memory/
};

// The memory left, and what limits it.
struct MemoryLeft {
    std::size_t bytes = std::size_t(-1);  // -1: nothing known
    std::string limited_by;               // "" (the machine), or the cgroup's path
};

// The smallest of MemAvailable + SwapFree and, for the process's memory cgroup and each of
// its ancestors, its limit less its usage: v2 memory.max − memory.current, v1
// memory.limit_in_bytes − memory.usage_in_bytes. The usage leaves out the inactive file
// cache (memory.stat), which the kernel reclaims before it kills: a cgroup full of cache
// that was read once still has room.
MemoryLeft memory_left(const MemorySources& sources = {});

// Buffers of this size or more are checked.
inline constexpr std::size_t checked_buffer_bytes = std::size_t(256) << 20;

// Throws RuntimeFailure ("not enough memory: ...") when a buffer of `bytes` (at least
// checked_buffer_bytes) is more than memory_left(). Every buffer that large, tensor storage
// and std::string (inflated members, standard input) alike, goes through this check.
void check_available(std::size_t bytes);
// The same for `what` (a plural noun, "the tensors of FILE as float32"), which together take
// `bytes`.
void check_available(std::size_t bytes, const std::string& what);

// Room for `n` elements in a std::string or std::vector, checked first when it must grow.
template <class Buffer>
void reserve_checked(Buffer& buffer, std::size_t n) {
    if (n <= buffer.capacity()) return;
    check_available(n * sizeof(typename Buffer::value_type));
    buffer.reserve(n);
}

// Room to append `more` elements, growing twofold as the buffer itself would, checked.
template <class Buffer>
void grow_checked(Buffer& buffer, std::size_t more) {
    const std::size_t need = buffer.size() + more;
    if (need > buffer.capacity()) reserve_checked(buffer, std::max(need, 2 * buffer.capacity()));
}

}  // namespace attn
