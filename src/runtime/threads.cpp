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
unsigned online_cores() noexcept { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace attn
