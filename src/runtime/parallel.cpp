// parallel_for over a small persistent pool of std::threads. Measured (2 cores, 2 threads,
// a 128³ matmul called 2000 times): ≈ 76 µs a call when threads were spawned per call,
// ≈ 41 µs with the pool; the pool also keeps each thread's GEMM packing buffers warm.
#include "runtime/parallel.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "attn/runtime.hpp"
#include "runtime/signals.hpp"

namespace attn {

namespace {

thread_local bool t_inside_job = false;  // set while this thread runs a body

// How long a thread spins on the job state before it sleeps on a condition variable: a
// pool thread after a job (for the next one) and the caller after its share (for the
// helpers). Waking a sleeping thread is a futex and, on a virtual machine whose other vCPU
// went idle, an interrupt to it: measured 40-50 µs of a 130 µs decoding step (1×4096,
// d=128, 2 threads) when every call slept. The calls of a run follow each other within a
// few hundred µs (the input checks, the kernel, the result check, the next decoding step).
constexpr auto spin_window = std::chrono::microseconds(300);

// Spins until done() or spin_window has passed (not at all when `spin` is false); whether
// done() held.
template <class Done>
bool spin_until(bool spin, Done done) {
    if (!spin) return done();
    const auto deadline = std::chrono::steady_clock::now() + spin_window;
    for (unsigned i = 1;; ++i) {
        if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield");
#endif
        if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) return done();
    }
}

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
            pending_.store(helpers);
            error_ = nullptr;
            // A new job: its number and helper count in one word, published after the fields above.
            job_.store(((job_.load() >> 16) + 1) << 16 | helpers, std::memory_order_release);
        }
        wake_.notify_all();  // no system call when every helper is still spinning
        work();
        if (!spin_until(spin_.load(), [this] { return pending_.load(std::memory_order_acquire) == 0; })) {
            std::unique_lock lock(mutex_);
            done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
        }
        std::lock_guard lock(mutex_);
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
            stop_.store(true);
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }

private:
    ThreadPool() = default;

    // Under mutex_. A new thread waits for the next job (not the current generation's).
    // The threads block the asynchronous signals (inherited from the mask set around their
    // creation): a SIGINT or SIGTERM goes to the main thread, which can hold it off while it
    // publishes the outputs (write/temp_files.hpp, DeferredSignals).
    void spawn(std::size_t helpers) {
        const sigset_t quiet = asynchronous_signals();
        sigset_t old;
        pthread_sigmask(SIG_BLOCK, &quiet, &old);
        try {
            while (threads_.size() < helpers) {
                const std::size_t index = threads_.size();
                threads_.emplace_back([this, index, seen = job_.load() >> 16] { worker(index, seen); });
            }
        } catch (...) {
            pthread_sigmask(SIG_SETMASK, &old, nullptr);
            throw;
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        // With more threads than cores a spinning thread would hold a core that a thread
        // with work is waiting for: then they sleep at once.
        spin_.store(threads_.size() + 1 <= online_cores());
    }

    void worker(std::size_t index, std::uint64_t seen) {
        // A thread's first allocation makes its malloc arena (glibc: an mmap of 128 MiB and two
        // munmaps). Made now, while the caller is still reading its inputs, it is not on the
        // first job's path. (volatile: the compiler may drop a malloc/free pair.)
        void* volatile arena_warm_up = std::malloc(1);
        std::free(arena_warm_up);
        const auto job_or_stop = [&] { return stop_.load() || job_.load(std::memory_order_acquire) >> 16 != seen; };
        for (;;) {
            if (!spin_until(spin_.load(), job_or_stop)) {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, job_or_stop);
            }
            if (stop_.load()) return;
            // The number and the helper count of the same job (one load): a job wanting fewer
            // threads is skipped, and the caller cannot start the next one before every
            // thread it counted on has finished this one.
            const std::uint64_t job = job_.load(std::memory_order_acquire);
            seen = job >> 16;
            if (index >= (job & 0xffff)) continue;
            work();
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                // Through the mutex: the caller is either before its check (and sees 0) or
                // waiting on done_ (and is woken).
                { std::lock_guard lock(mutex_); }
                done_.notify_one();
            }
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
    std::mutex mutex_;      // guards the job's fields (written only while no helper runs one)
    std::condition_variable wake_, done_;
    std::vector<std::thread> threads_;
    const std::function<void(std::size_t)>* body_ = nullptr;
    std::size_t count_ = 0;
    std::atomic<std::size_t> next_{0}, pending_{0};  // next block; helpers still working
    std::atomic<std::uint64_t> job_{0};  // job number << 16 | helpers (fields published before it)
    std::exception_ptr error_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> spin_{false};  // threads wait by spinning first (no more threads than cores)
};

void run_serially(std::size_t count, const std::function<void(std::size_t)>& body) {
    for (std::size_t b = 0; b < count; ++b) body(b);
}

}  // namespace

// Threads of one job at most (the pool's job word keeps the helper count in 16 bits).
constexpr std::size_t max_threads = 4096;

namespace {
std::atomic<std::size_t> g_parallel_for_calls{0};
}  // namespace

std::size_t parallel_for_calls() noexcept { return g_parallel_for_calls.load(std::memory_order_relaxed); }

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body) {
    g_parallel_for_calls.fetch_add(1, std::memory_order_relaxed);
    const std::size_t threads = std::min({std::size_t(current_threads()), count, max_threads});
    if (threads <= 1 || t_inside_job) return run_serially(count, body);
    if (!ThreadPool::instance().run(threads - 1, count, body)) run_serially(count, body);
}

void start_threads() {
    if (const std::size_t threads = std::min<std::size_t>(current_threads(), max_threads); threads > 1)
        ThreadPool::instance().start(threads - 1);
}

}  // namespace attn
