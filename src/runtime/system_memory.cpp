#include "runtime/system_memory.hpp"

#include <cstdio>
#include <cstring>

namespace attn {

std::size_t meminfo_bytes(std::string_view key) {
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    std::size_t bytes = 0;
    char line[256];
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, key.data(), key.size()) == 0) {
            unsigned long long kib = 0;  // the file's unit is kB (KiB)
            if (std::sscanf(line + key.size(), " %llu", &kib) == 1) bytes = std::size_t(kib) << 10;
            break;
        }
    std::fclose(f);
    return bytes;
}

}  // namespace attn
