// attn bench: the clock (medians, CPU time) and the FMA peak probes of the arch table.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "attn/matrix.hpp"
#include "bench/bench.hpp"
#include "runtime/system_memory.hpp"
#include "arch/kernel_table.hpp"

namespace attn::bench {

namespace {

using Clock = std::chrono::steady_clock;

Timing summarize(std::vector<double> times) {
    Timing t;
    t.times = times;
    std::sort(times.begin(), times.end());
    const std::size_t n = times.size();
    t.min = times.front();
    t.max = times.back();
    t.median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    for (double x : times) t.mean += x;
    t.mean /= double(n);
    for (double x : times) t.stddev += (x - t.mean) * (x - t.mean);
    t.stddev = n > 1 ? std::sqrt(t.stddev / double(n - 1)) : 0.0;  // sample stddev, as hyperfine
    return t;
}

// CPU seconds (user, system) used so far by the whole process.
std::pair<double, double> cpu_seconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    auto sec = [](const timeval& tv) { return double(tv.tv_sec) + 1e-6 * double(tv.tv_usec); };
    return {sec(u.ru_utime), sec(u.ru_stime)};
}

// Page faults the process has taken so far (minor: pages mapped in, none read from disk).
long page_faults() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt + u.ru_majflt;
}

}  // namespace

// Until the process has the memory its calls reuse (the allocator's heap, the pool's threads)
// and faults only where every call faults (a fresh mapping per call). A page fault costs about
// 8 µs per 4 KiB on a virtual machine (AMD EPYC guest, 2026-12-07): after 2 rounds, 3 of a
// T=4096 attention's 9 timed calls took 256 faults (2 ms) for their 1 MiB output, when tensors
// were aligned_alloc's blocks (kernels/aligned_memory.cpp).
int warm_up(const std::vector<std::function<void()>>& calls, int warmup) {
    const auto round = [&] {
        const long before = page_faults();
        for (const auto& call : calls) call();
        return page_faults() - before;
    };
    long faults = 0;
    for (int i = 0; i < warmup; ++i) faults = round();
    if (warmup == 0) return 0;  // asked for cold runs
    const auto start = Clock::now();
    int rounds = warmup;
    for (int extra = 0; extra < extra_warmup_rounds && faults > 0; ++extra) {
        if (std::chrono::duration<double>(Clock::now() - start).count() > extra_warmup_seconds) break;
        const long last = round();
        ++rounds;
        if (last >= faults) break;
        faults = last;
    }
    return rounds;
}

std::vector<Timing> measure_in_turn(const std::vector<std::function<void()>>& calls, int warmup, int repeat) {
    // Reserved before the warm-up: a vector growing between timed runs would take pieces of the
    // memory the runs' outputs were freed into, and the next output would get fresh pages.
    std::vector<std::vector<double>> times(calls.size());
    for (auto& t : times) t.reserve(std::size_t(repeat));
    std::vector<std::pair<double, double>> cpu(calls.size());
    warm_up(calls, warmup);
    for (int i = 0; i < repeat; ++i)
        for (std::size_t c = 0; c < calls.size(); ++c) {
            const auto cpu0 = cpu_seconds();
            const auto t0 = Clock::now();
            calls[c]();
            times[c].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            const auto cpu1 = cpu_seconds();
            cpu[c].first += cpu1.first - cpu0.first;
            cpu[c].second += cpu1.second - cpu0.second;
        }
    std::vector<Timing> result;
    for (std::size_t c = 0; c < calls.size(); ++c) {
        result.push_back(summarize(std::move(times[c])));
        result.back().user = cpu[c].first / repeat;
        result.back().system = cpu[c].second / repeat;
    }
    return result;
}

double median_ratio(const Timing& t, const Timing& base) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < t.times.size() && r < base.times.size(); ++r) ratios.push_back(t.times[r] / base.times[r]);
    return summarize(std::move(ratios)).median;
}

Timing measure(const std::function<void()>& call, int warmup, int repeat) {
    std::vector<double> times;
    times.reserve(std::size_t(repeat));  // as measure_in_turn's
    warm_up({call}, warmup);
    const auto cpu0 = cpu_seconds();
    for (int i = 0; i < repeat; ++i) {
        const auto t0 = Clock::now();
        call();
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const auto cpu1 = cpu_seconds();
    Timing t = summarize(std::move(times));
    t.user = (cpu1.first - cpu0.first) / repeat;
    t.system = (cpu1.second - cpu0.second) / repeat;
    return t;
}

namespace {

// A probe: `iterations` iterations of its work, its result kept alive through the seed.
using Probe = std::function<float(std::uint64_t iterations, float seed)>;

std::atomic<float> g_sink{0.0f};  // keeps the probes' results alive

// CPU seconds the calling thread has run (not waited for a core).
double thread_cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// All `threads` threads start together and run the probe for about `seconds`; the rate is
// the total work over the slowest thread's time, best of 3: work units per second × 1e-9 by
// the wall clock and per CPU-second of each thread (what a core delivers while it runs the
// probe: on a machine shared with other work the two differ). The calibration starts at
// `iterations`.
std::pair<double, double> measure_peak(const Probe& probe, double units_per_iteration, unsigned threads, double seconds,
                                       std::uint64_t iterations = 1u << 20) {
    // Calibrate on one thread.
    for (;;) {
        const auto t0 = Clock::now();
        g_sink = g_sink + probe(iterations, 1.0f);
        const double t = std::chrono::duration<double>(Clock::now() - t0).count();
        if (t > 0.02) {
            iterations = std::uint64_t(double(iterations) * seconds / t) + 1;
            break;
        }
        iterations *= 4;
    }
    double best = 0.0, best_cpu = 0.0;
    for (int trial = 0; trial < 3; ++trial) {
        std::atomic<unsigned> ready{0};
        std::atomic<bool> go{false};
        std::vector<double> elapsed(threads), cpu(threads);
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                ready.fetch_add(1);
                while (!go.load()) std::this_thread::yield();
                const auto t0 = Clock::now();
                const double c0 = thread_cpu_seconds();
                const float r = probe(iterations, 1.0f + float(t));
                cpu[t] = thread_cpu_seconds() - c0;
                elapsed[t] = std::chrono::duration<double>(Clock::now() - t0).count();
                g_sink = g_sink + r;
            });
        while (ready.load() < threads) std::this_thread::yield();
        go = true;
        for (auto& th : pool) th.join();
        const double slowest = *std::max_element(elapsed.begin(), elapsed.end());
        best = std::max(best, units_per_iteration * double(iterations) * threads / slowest * 1e-9);
        double cpu_total = 0.0;
        for (double c : cpu) cpu_total += c;
        if (cpu_total > 0) best_cpu = std::max(best_cpu, units_per_iteration * double(iterations) * threads / cpu_total * 1e-9);
    }
    return {best, best_cpu};
}

}  // namespace

namespace {

// Sum of n floats by the read probe of the best SIMD arch this CPU runs (its widest loads,
// 8 accumulators in registers: the loop is not the limit, memory is); plain C++ without one.
float sum_floats(const float* p, std::size_t n) {
    const kernels::KernelSet& k = kernels::table_of(best_arch());
    if (k.read_sum) return k.read_sum(p, n);
    float acc[16] = {}, s = 0.0f;
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (std::size_t j = 0; j < 16; ++j) acc[j] += p[i + j];
    for (float a : acc) s += a;
    for (; i < n; ++i) s += p[i];
    return s;
}

}  // namespace

namespace {

// "266240K", "32M", "1024" (bytes) as in sysfs cache sizes; "22582456 kB" as in /proc/meminfo.
std::size_t parse_size(const std::string& text) {
    std::size_t v = 0, i = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') v = v * 10 + std::size_t(text[i++] - '0');
    while (i < text.size() && text[i] == ' ') ++i;
    if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) v <<= 10;
    else if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) v <<= 20;
    else if (i < text.size() && (text[i] == 'G' || text[i] == 'g')) v <<= 30;
    return v;
}

std::string read_first_line(const std::string& path) {
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    return line;
}

// The best GB/s of `runs` runs of `threads` threads summing n floats of buffer, each its slice.
// The best, not the median: this is a probe of the limit, and the machine's other work only
// ever slows a run down (on the shared EPYC guest the median of 3 quick runs from memory gave
// 31, 46 and 49 GB/s in three processes a minute apart, the decoding kernel itself 38).
double probe_read(const float* buffer, std::size_t n, unsigned threads, int runs) {
    std::vector<double> rates;
    for (int run = 0; run < runs; ++run) {
        std::vector<std::thread> pool;
        std::atomic<unsigned> ready{0};
        std::atomic<bool> go{false};
        for (unsigned w = 0; w < threads; ++w)
            pool.emplace_back([&, w] {
                const std::size_t b = n * w / threads, e = n * (w + 1) / threads;
                ready.fetch_add(1);
                while (!go.load()) std::this_thread::yield();
                g_sink = g_sink + sum_floats(buffer + b, e - b);
            });
        while (ready.load() < threads) std::this_thread::yield();
        const auto start = Clock::now();
        go = true;
        for (auto& th : pool) th.join();
        const double secs = std::chrono::duration<double>(Clock::now() - start).count();
        rates.push_back(double(n * sizeof(float)) / secs * 1e-9);
    }
    return *std::max_element(rates.begin(), rates.end());
}

}  // namespace

std::size_t last_level_cache_bytes() {
    std::size_t best_level = 0, size = 0;
    for (int i = 0; i < 16; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        const std::string level = read_first_line(dir + "level"), type = read_first_line(dir + "type");
        if (level.empty()) break;
        if (type == "Instruction") continue;
        const std::size_t l = parse_size(level), bytes = parse_size(read_first_line(dir + "size"));
        if (l >= best_level && bytes > 0) best_level = l, size = bytes;
    }
    return size;
}

std::optional<double> BandwidthReport::fair_gbps(unsigned threads, double working_set, bool* in_cache) const {
    for (const Bandwidth& b : rows) {
        if (b.threads != threads) continue;
        // Only a working set no larger than the in-cache probe is known to be read at that
        // speed: a guest's last-level cache (sysfs) is shared with other guests, and 64 MiB
        // ran at the memory speed on a machine whose sysfs said 260 MiB.
        // Q and the output add a few KiB to a K/V of the probe's size: 1/16 of slack.
        const bool fits = cache_bytes > 0 && working_set <= double(cache_bytes) * (1.0 + 1.0 / 16);
        if (in_cache) *in_cache = fits;
        return fits ? b.cache_gbps : b.memory_gbps;
    }
    return std::nullopt;
}

BandwidthReport measure_bandwidth(unsigned threads, bool progress, bool quick) {
    BandwidthReport r;
    r.runs = quick ? 5 : 7;
    r.llc_bytes = last_level_cache_bytes();
    constexpr std::size_t MiB = std::size_t(1) << 20;
    // Memory: 4× the last-level cache (1 GiB when unknown), at least 256 MiB, at most 2 GiB
    // and a quarter of the memory left (the machine's, or the memory cgroup's).
    std::size_t mem = r.llc_bytes ? std::clamp(4 * r.llc_bytes, 256 * MiB, 2048 * MiB) : 1024 * MiB;
    if (const MemoryLeft left = memory_left(); left.bytes != std::size_t(-1)) mem = std::min(mem, std::max(left.bytes / 4, 64 * MiB));
    r.memory_bytes = mem / MiB * MiB;
    // In cache: 32 MiB (a 1×32768×128 K/V in float32), or half the last-level cache if smaller.
    r.cache_bytes = r.llc_bytes ? std::min(32 * MiB, r.llc_bytes / 2) / 4096 * 4096 : 32 * MiB;
    for (const bool memory : {true, false}) {
        const std::size_t n = (memory ? r.memory_bytes : r.cache_bytes) / sizeof(float);
        // Allocated as tensors are (transparent huge pages for big buffers, kernels/aligned_memory.cpp),
        // so that K and V are compared with a read of the same pages: on a KVM guest (AMD EPYC)
        // reading 4 KiB pages took 1.35-1.4x the CPU time of huge ones (1.5-1.7x the wall time).
        const std::unique_ptr<float[], void (*)(float*)> owner(aligned_alloc_floats(n), aligned_free_floats);
        float* const buffer = owner.get();
        std::fill(buffer, buffer + n, 1.0f);  // written once: every page is mapped before timing
        for (unsigned t = quick ? threads : 1; t <= threads; ++t) {
            if (progress)
                std::fprintf(stderr, "\rmeasuring the read bandwidth (%s): %u thread(s)...   ", memory ? "memory" : "in cache", t);
            if (!memory) g_sink = g_sink + sum_floats(buffer, n);  // into the cache
            const double gbps = probe_read(buffer, n, t, r.runs);
            if (memory) r.rows.push_back({t, gbps, 0.0});
            else r.rows[t - (quick ? threads : 1)].cache_gbps = gbps;
        }
    }
    return r;
}

namespace {

// The FMA probe of a kernel set: 12 independent chains of lanes-wide FMAs per iteration.
std::pair<double, double> measure_fma(const kernels::KernelSet& k, unsigned threads, double seconds) {
    return measure_peak(k.fma_peak, 12.0 * double(k.lanes) * 2.0, threads, seconds);
}

// Exponentials per CPU-second of one thread (Peak::exps_per_second): each thread runs the kernel set's exp
// probe, the fused kernel's exponential over its own 1024 floats in L1 (kernels/exp.hpp). Per
// CPU-second, not by the wall clock: this short probe is not probed again, and by the wall clock
// a busy machine took it to 6.6-8.2 G/s against 17-20 (from an audit), so that the time split
// gave the exponentials 17% of a run instead of 8%. The wall clock's rate without a CPU clock.
double measure_exps(const kernels::KernelSet& k, unsigned threads, double seconds) {
    const auto [wall, cpu] = measure_peak(k.exp_probe, 1024.0, threads, seconds, 64);
    return (cpu > 0 ? cpu : wall / threads) * 1e9;
}

}  // namespace

std::vector<Peak> measure_peaks(unsigned threads, bool progress) {
    std::vector<Peak> peaks;
    for (const kernels::KernelSet& k : kernels::compiled_kernel_sets()) {
        if (!k.fma_peak || !arch_supported(k.arch)) continue;
        for (unsigned t = 1; t <= threads; ++t) {
            if (progress) std::fprintf(stderr, "\rmeasuring the FMA peak: %s, %u thread(s)...   ", arch_name(k.arch), t);
            const auto [wall, cpu] = measure_fma(k, t, 0.25);
            peaks.push_back({k.arch, t, wall, cpu, measure_exps(k, t, 0.1)});
        }
    }
    return peaks;
}

std::optional<double> peak_for(const std::vector<Peak>& peaks, Arch arch, unsigned threads) {
    std::optional<double> best;
    for (const auto& p : peaks)
        if (p.arch == arch && p.threads <= threads) best = std::max(best.value_or(0.0), p.gflops);
    return best;
}

bool probe_peaks_again(std::vector<Peak>& peaks, const std::vector<Result>& results) {
    const auto above = [&](const Result& r) {
        const auto peak = peak_for(peaks, r.arch, r.threads);
        return peak && r.c.flops() > 0 && r.c.flops() / r.timing.median * 1e-9 > above_peak * *peak;
    };
    for (int round = 0; round < 2; ++round) {
        if (std::none_of(results.begin(), results.end(), above)) return true;
        for (Peak& p : peaks) {
            const bool needed = std::any_of(results.begin(), results.end(), [&](const Result& r) {
                return above(r) && r.arch == p.arch && r.threads == p.threads;
            });
            for (const kernels::KernelSet& k : kernels::compiled_kernel_sets())
                if (needed && k.arch == p.arch && k.fma_peak) {
                    const auto [wall, cpu] = measure_fma(k, p.threads, 0.1);
                    p.gflops = std::max(p.gflops, wall), p.cpu_gflops = std::max(p.cpu_gflops, cpu);
                }
        }
    }
    return std::none_of(results.begin(), results.end(), above);
}

std::vector<Peak> measure_peak_quickly(Arch arch, unsigned threads) {
    for (const kernels::KernelSet& k : kernels::compiled_kernel_sets())
        if (k.arch == arch && k.fma_peak && arch_supported(k.arch)) {
            const auto [wall, cpu] = measure_fma(k, threads, quick_peak_seconds);
            return {{k.arch, threads, wall, cpu, measure_exps(k, threads, quick_peak_seconds)}};
        }
    return {};  // the scalar kernels have no FMA probe
}

}  // namespace attn::bench
