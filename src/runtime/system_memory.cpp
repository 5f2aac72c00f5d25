#include "runtime/system_memory.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "attn/error.hpp"

namespace attn {

namespace {

// The first `max` bytes of a small file (a /proc or /sys file); nullopt when it cannot be read.
std::optional<std::string> read_small(const std::string& path, std::size_t max = 1 << 16) {
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (!f) return std::nullopt;
    std::string text(max, '\0');
    text.resize(std::fread(text.data(), 1, max, f));
    std::fclose(f);
    return text;
}

// The number at the start of `text` (after blanks), nullopt when there is none ("max").
std::optional<std::size_t> number_at(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    std::size_t n = 0;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), n);
    if (res.ptr == text.data()) return std::nullopt;
    return res.ec == std::errc() ? n : std::size_t(-1);  // beyond size_t: no limit
}

// The value of the line "KEY VALUE" (KEY followed by a blank) of a memory.stat, or /proc/meminfo's
// "KEY: VALUE kB" when key ends in ':'.
std::optional<std::size_t> keyed_value(std::string_view text, std::string_view key) {
    for (std::size_t at = 0; at < text.size();) {
        std::size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) eol = text.size();
        const std::string_view line = text.substr(at, eol - at);
        if (line.size() > key.size() && line.substr(0, key.size()) == key &&
            (key.back() == ':' || line[key.size()] == ' '))
            return number_at(line.substr(key.size()));
        at = eol + 1;
    }
    return std::nullopt;
}

// The files of one cgroup version's memory controller.
struct CgroupFiles {
    const char* limit;
    const char* usage;
    const char* inactive_keys[2];  // in memory.stat, the first found
};
constexpr CgroupFiles v2_files{"memory.max", "memory.current", {"inactive_file", "inactive_file"}};
constexpr CgroupFiles v1_files{"memory.limit_in_bytes", "memory.usage_in_bytes", {"total_inactive_file", "inactive_file"}};

// For the cgroup at `path` under the hierarchy mounted at `base`, and each of its ancestors up
// to the hierarchy's root (the root alone when the path is not there: a container that sees
// its own cgroup as the root), the limit less the usage, kept in `left` when smaller.
void take_cgroup(const std::string& base, std::string path, const CgroupFiles& files, MemoryLeft& left) {
    for (;;) {
        const std::string dir = base + path;
        const auto limit_text = read_small(dir + "/" + files.limit), usage_text = read_small(dir + "/" + files.usage);
        const auto limit = limit_text ? number_at(*limit_text) : std::nullopt;
        const auto usage = usage_text ? number_at(*usage_text) : std::nullopt;
        if (limit && usage) {
            std::size_t used = *usage;
            if (const auto stat = read_small(dir + "/memory.stat"))
                for (const char* key : files.inactive_keys)
                    if (const auto inactive = keyed_value(*stat, key)) {
                        used -= std::min(used, *inactive);
                        break;
                    }
            const std::size_t room = *limit > used ? *limit - used : 0;
            if (room < left.bytes) left = {room, path.empty() ? "/" : path};
        }
        if (path.empty()) return;
        path.resize(path.rfind('/'));  // "/a/b" → "/a" → ""
    }
}

}  // namespace

MemoryLeft memory_left(const MemorySources& sources) {
    MemoryLeft left;
    if (const auto meminfo = read_small(sources.proc + "/meminfo"))
        if (const auto available = keyed_value(*meminfo, "MemAvailable:"))
            left.bytes = (*available + keyed_value(*meminfo, "SwapFree:").value_or(0)) << 10;  // kB (KiB)
    // /proc/self/cgroup: "0::PATH" (v2), "ID:CONTROLLERS:PATH" (v1, memory among the controllers)
    const std::string cgroups = read_small(sources.proc + "/self/cgroup").value_or("");
    for (std::size_t at = 0; at < cgroups.size();) {
        std::size_t eol = cgroups.find('\n', at);
        if (eol == std::string::npos) eol = cgroups.size();
        const std::string_view line = std::string_view(cgroups).substr(at, eol - at);
        at = eol + 1;
        const std::size_t c1 = line.find(':'), c2 = c1 == line.npos ? c1 : line.find(':', c1 + 1);
        if (c2 == line.npos || line.size() == c2 + 1 || line[c2 + 1] != '/') continue;
        const std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
        std::string path(line.substr(c2 + 1));
        if (path == "/") path.clear();
        if (line.substr(0, c1) == "0" && controllers.empty()) {
            take_cgroup(sources.cgroup_fs, path, v2_files, left);  // unified
            take_cgroup(sources.cgroup_fs + "/unified", path, v2_files, left);  // hybrid
        } else {
            bool memory = false;
            for (std::size_t k = 0; k <= controllers.size();) {
                std::size_t comma = controllers.find(',', k);
                if (comma == controllers.npos) comma = controllers.size();
                memory |= controllers.substr(k, comma - k) == "memory";
                k = comma + 1;
            }
            if (memory) take_cgroup(sources.cgroup_fs + "/memory", path, v1_files, left);
        }
    }
    return left;
}

namespace {
std::string gigabytes(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", double(bytes) / 1e9);
    return text;
}
}  // namespace

void check_available(std::size_t bytes) { check_available(bytes, ""); }

void check_available(std::size_t bytes, const std::string& what) {
    if (bytes < checked_buffer_bytes) return;
    const MemoryLeft left = memory_left();
    if (bytes <= left.bytes) return;
    const std::string room = gigabytes(left.bytes) + (left.limited_by.empty() ? " this machine has available"
                                                                              : " left under the memory limit of cgroup " +
                                                                                    left.limited_by);
    throw RuntimeFailure("not enough memory: " +
                         (what.empty() ? "a buffer of " + gigabytes(bytes) + " is more than the " + room
                                       : what + " take " + gigabytes(bytes) + ", more than the " + room));
}

}  // namespace attn
