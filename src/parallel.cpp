#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "attn/ops.hpp"

namespace attn {

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body) {
    const std::size_t workers = std::min<std::size_t>(current_threads(), count);
    if (workers <= 1) {
        for (std::size_t b = 0; b < count; ++b) body(b);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&] {
        for (std::size_t b; (b = next.fetch_add(1)) < count;) {
            try {
                body(b);
            } catch (...) {
                std::lock_guard lock(error_mutex);
                if (!error) error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace attn
