// The process-wide thread count (attn/runtime.hpp); the pool that uses it is
// runtime/parallel.cpp, which also defines start_threads().
#include <algorithm>
#include <thread>

#include "attn/runtime.hpp"

namespace attn {

namespace {
unsigned g_threads = 0;  // 0: all online cores
}  // namespace

void set_threads(unsigned threads) noexcept { g_threads = threads; }
unsigned current_threads() noexcept { return g_threads ? g_threads : online_cores(); }
// Read once: glibc reads /sys/devices/system/cpu/online on every call, and every parallel_for
// asks (a materialised run over 400,000 heads opened that file 2 million times: most of its 36 s).
unsigned online_cores() noexcept {
    static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return cores;
}

}  // namespace attn
