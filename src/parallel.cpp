// parallel_for over a small persistent pool of std::threads. Measured (2 cores, 2 threads,
// a 128³ matmul called 2000 times): ≈ 76 µs a call when threads were spawned per call,
// ≈ 41 µs with the pool; the pool also keeps each thread's GEMM packing buffers warm.
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "attn/ops.hpp"

namespace attn {

namespace {

thread_local bool t_inside_job = false;  // set while this thread runs a body

class ThreadPool {
public:
    static ThreadPool& instance() {
        static ThreadPool pool;
        return pool;
    }

    // Runs the job on the caller plus `helpers` pool threads; false if the pool is busy
    // with another caller's job (the caller then runs it alone).
    bool run(std::size_t helpers, std::size_t count, const std::function<void(std::size_t)>& body) {
        std::unique_lock job(job_mutex_, std::try_to_lock);
        if (!job) return false;
        {
            std::lock_guard lock(mutex_);
            spawn(helpers);
            body_ = &body;
            count_ = count;
            next_.store(0);
            helpers_ = helpers;
            pending_ = helpers;
            error_ = nullptr;
            ++generation_;
        }
        wake_.notify_all();
        work();
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return pending_ == 0; });
        if (error_) std::rethrow_exception(error_);
        return true;
    }

    // Starts threads up to `helpers` without work.
    void start(std::size_t helpers) {
        std::unique_lock job(job_mutex_, std::try_to_lock);
        if (!job) return;
        std::lock_guard lock(mutex_);
        spawn(helpers);
    }

    ~ThreadPool() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }

private:
    ThreadPool() = default;

    // Under mutex_. A new thread waits for the next job (not the current generation's).
    void spawn(std::size_t helpers) {
        while (threads_.size() < helpers) {
            const std::size_t index = threads_.size();
            threads_.emplace_back([this, index, seen = generation_] { worker(index, seen); });
        }
    }

    void worker(std::size_t index, std::uint64_t seen) {
        // A thread's first allocation makes its malloc arena (glibc: an mmap of 128 MiB and two
        // munmaps). Made now, while the caller is still reading its inputs, it is not on the
        // first job's path. (volatile: the compiler may drop a malloc/free pair.)
        void* volatile arena_warm_up = std::malloc(1);
        std::free(arena_warm_up);
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            if (index >= helpers_) continue;  // this job wants fewer threads
            lock.unlock();
            work();
            lock.lock();
            if (--pending_ == 0) done_.notify_one();
        }
    }

    void work() {
        t_inside_job = true;
        for (std::size_t b; (b = next_.fetch_add(1)) < count_;) {
            try {
                (*body_)(b);
            } catch (...) {
                std::lock_guard lock(mutex_);
                if (!error_) error_ = std::current_exception();
            }
        }
        t_inside_job = false;
    }

    std::mutex job_mutex_;  // one job at a time
    std::mutex mutex_;      // guards everything below except next_
    std::condition_variable wake_, done_;
    std::vector<std::thread> threads_;
    const std::function<void(std::size_t)>* body_ = nullptr;
    std::size_t count_ = 0, helpers_ = 0, pending_ = 0;
    std::atomic<std::size_t> next_{0};
    std::uint64_t generation_ = 0;
    std::exception_ptr error_;
    bool stop_ = false;
};

void run_serially(std::size_t count, const std::function<void(std::size_t)>& body) {
    for (std::size_t b = 0; b < count; ++b) body(b);
}

}  // namespace

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body) {
    const std::size_t threads = std::min<std::size_t>(current_threads(), count);
    if (threads <= 1 || t_inside_job) return run_serially(count, body);
    if (!ThreadPool::instance().run(threads - 1, count, body)) run_serially(count, body);
}

void start_threads() {
    if (const std::size_t threads = current_threads(); threads > 1) ThreadPool::instance().start(threads - 1);
}

}  // namespace attn
