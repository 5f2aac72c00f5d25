// memory_left: the memory left, from given /proc and /sys/fs/cgroup files (a folder of fake
// files per case). Expected figures worked out by hand from the files written.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "attn/error.hpp"
#include "runtime/system_memory.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::size_t MiB = std::size_t(1) << 20;

// A scratch folder with proc/ and cgroup/ under it, removed at the end.
struct FakeSystem {
    fs::path root;
    FakeSystem() {
        char pattern[] = "/tmp/attn-memory-XXXXXX";
        root = ::mkdtemp(pattern);
    }
    ~FakeSystem() { fs::remove_all(root); }
    void write(const std::string& file, const std::string& text) const {
        const fs::path p = root / file;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
    attn::MemoryLeft left() const { return attn::memory_left({(root / "proc").string(), (root / "cgroup").string()}); }
};

std::string meminfo(std::size_t available_kb, std::size_t swap_free_kb) {
    return "MemTotal:       24000000 kB\nMemFree:        1000 kB\nMemAvailable:   " + std::to_string(available_kb) +
           " kB\nSwapTotal:      0 kB\nSwapFree:       " + std::to_string(swap_free_kb) + " kB\n";
}

}  // namespace

TEST_CASE("memory_left: MemAvailable + SwapFree when no cgroup limits") {
    FakeSystem s;
    s.write("proc/meminfo", meminfo(1000, 24));
    s.write("proc/self/cgroup", "0::/\n");
    CHECK(s.left().bytes == 1024 * 1024);
    CHECK(s.left().limited_by.empty());
    // nothing readable: nothing known
    FakeSystem none;
    CHECK(none.left().bytes == std::size_t(-1));
}

TEST_CASE("memory_left: cgroup v2 memory.max − memory.current of the process's cgroup and its ancestors") {
    FakeSystem s;
    s.write("proc/meminfo", meminfo(8 * 1024 * 1024, 0));  // 8 GiB
    s.write("proc/self/cgroup", "0::/user.slice/job.scope\n");
    s.write("cgroup/user.slice/job.scope/memory.max", "629145600\n");  // 600 MiB
    s.write("cgroup/user.slice/job.scope/memory.current", "104857600\n");  // 100 MiB
    CHECK(s.left().bytes == 500 * MiB);
    CHECK(s.left().limited_by == "/user.slice/job.scope");
    // "max": no limit at that level; the parent's limit counts
    s.write("cgroup/user.slice/job.scope/memory.max", "max\n");
    CHECK(s.left().bytes == 8 * 1024 * MiB);
    s.write("cgroup/user.slice/memory.max", "419430400\n");  // 400 MiB
    s.write("cgroup/user.slice/memory.current", "314572800\n");  // 300 MiB
    CHECK(s.left().bytes == 100 * MiB);
    CHECK(s.left().limited_by == "/user.slice");
    // the inactive file cache is reclaimed before the OOM killer: not counted as used
    s.write("cgroup/user.slice/memory.stat", "anon 1000\nfile 262144000\ninactive_file 209715200\nactive_file 5\n");
    CHECK(s.left().bytes == 300 * MiB);
    // usage beyond the limit: nothing left
    s.write("cgroup/user.slice/memory.stat", "");
    s.write("cgroup/user.slice/memory.current", "500000000\n");
    CHECK(s.left().bytes == 0);
}

TEST_CASE("memory_left: a hybrid system's v2 hierarchy at unified/") {
    FakeSystem s;
    s.write("proc/meminfo", meminfo(8 * 1024 * 1024, 0));
    s.write("proc/self/cgroup", "1:name=systemd:/\n0::/box\n");
    s.write("cgroup/unified/box/memory.max", "209715200\n");
    s.write("cgroup/unified/box/memory.current", "0\n");
    CHECK(s.left().bytes == 200 * MiB);
}

TEST_CASE("memory_left: cgroup v1 memory.limit_in_bytes − memory.usage_in_bytes, memory among other controllers") {
    FakeSystem s;
    s.write("proc/meminfo", meminfo(8 * 1024 * 1024, 0));
    s.write("proc/self/cgroup", "9:pids:/\n4:cpu,memory:/process_api/abc\n0::/\n");
    const std::string dir = "cgroup/memory/process_api/abc/";
    s.write(dir + "memory.limit_in_bytes", "629145600\n");
    s.write(dir + "memory.usage_in_bytes", "524288000\n");  // 500 MiB
    s.write(dir + "memory.stat", "cache 0\ninactive_file 1048576\ntotal_inactive_file 52428800\n");  // the total: 50 MiB
    CHECK(s.left().bytes == 150 * MiB);
    CHECK(s.left().limited_by == "/process_api/abc");
    // unlimited (the kernel's largest page-counter value): the machine's figure stands
    s.write(dir + "memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(s.left().bytes == 8 * 1024 * MiB);
    // the root of the hierarchy: a container that sees its own cgroup there (the path absent)
    s.write("cgroup/memory/memory.limit_in_bytes", "1073741824\n");
    s.write("cgroup/memory/memory.usage_in_bytes", "0\n");
    CHECK(s.left().bytes == 1024 * MiB);
    CHECK(s.left().limited_by == "/");
    // a memory line under another name is not the memory controller
    s.write("proc/self/cgroup", "4:cpu,memoryx:/process_api/abc\n");
    CHECK(s.left().bytes == 8 * 1024 * MiB);
}

TEST_CASE("check_available: small buffers are never checked; large ones against what is left") {
    CHECK_NOTHROW(attn::check_available(attn::checked_buffer_bytes - 1));
    CHECK_THROWS_AS(attn::check_available(std::size_t(1) << 62), attn::RuntimeFailure);
    std::string s;
    CHECK_THROWS_AS(attn::reserve_checked(s, std::size_t(1) << 62), attn::RuntimeFailure);
    CHECK(s.capacity() < attn::checked_buffer_bytes);
}
