// Splitting work over threads. Each block index runs on exactly one thread and blocks are
// independent, so results do not depend on the thread count.
#pragma once
#include <cstddef>
#include <functional>

namespace attn {

// Runs body(b) for every b in [0, count) on up to current_threads() threads (the caller
// plus workers of a persistent pool; 4096 at most) and waits. Blocks are handed out dynamically. The
// first exception thrown by a body is rethrown to the caller. A call made from
// inside a body, or while another thread's parallel_for is running, runs serially.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body);

// How many times parallel_for has been called in this process: tests count the dispatches a
// piece of work makes (each one wakes the pool, so work must not make one per small item).
std::size_t parallel_for_calls() noexcept;

}  // namespace attn
