// attn bench: times the library's compute calls in-process on generated inputs and reports
// medians, GFLOP/s (or elements/s), the speed-up over the scalar kernels and, with --peak,
// the machine's FMA peak so every figure can be read as a fraction of the physical limit.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "kernels/fma_peak.hpp"

namespace attn::cli {

namespace {

using Clock = std::chrono::steady_clock;

// ---- statistics ----------------------------------------------------------------------

struct Timing {
    std::vector<double> times;  // seconds, in run order
    double mean = 0, stddev = 0, median = 0, min = 0, max = 0;
    double user = 0, system = 0;  // mean CPU seconds per run, all threads (as hyperfine)
};

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

// Runs `call` warmup times untimed, then repeat times timed.
// CPU seconds (user, system) used so far by the whole process.
std::pair<double, double> cpu_seconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    auto sec = [](const timeval& tv) { return double(tv.tv_sec) + 1e-6 * double(tv.tv_usec); };
    return {sec(u.ru_utime), sec(u.ru_stime)};
}

Timing measure(const std::function<void()>& call, int warmup, int repeat) {
    for (int i = 0; i < warmup; ++i) call();
    std::vector<double> times;
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

// ---- cases ---------------------------------------------------------------------------

enum class Op { matmul, softmax, attention };
const char* op_name(Op op) {
    return op == Op::matmul ? "matmul" : op == Op::softmax ? "softmax" : "attention";
}

struct Case {
    Op op;
    std::size_t m = 0, n = 0, k = 0;  // matmul m×k · k×n; softmax m×n; attention Tq=m Tk=n d=k
    bool causal = false, fused = true;
    std::string shape() const {
        std::string s = std::to_string(m) + "x" + std::to_string(n);
        return op == Op::softmax ? s : s + "x" + std::to_string(k);
    }
    // Floating-point work: matmul 2mnk; attention 4·Tq·Tk·d (both products, counted
    // dense even when causal, as ggml counts them); softmax none (elements/s instead).
    double flops() const {
        if (op == Op::matmul) return 2.0 * double(m) * double(n) * double(k);
        if (op == Op::attention) return 4.0 * double(m) * double(n) * double(k);
        return 0.0;
    }
    double elements() const { return double(m) * double(n); }
    // Bytes of inputs and outputs the case allocates (a little more for packing).
    double bytes() const {
        const double M = double(m), N = double(n), K = double(k);
        if (op == Op::matmul) return 4.0 * (M * K + K * N + M * N);
        if (op == Op::softmax) return 4.0 * 2.0 * M * N;
        return 4.0 * (M * K + 2.0 * N * K + M * K + (fused ? 0.0 : 3.0 * M * N));  // Q, K, V, O (+ S, P)
    }
};

// Half of the physical memory: a case needing more is refused rather than swapped to death.
double memory_budget() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? 0.5 * double(pages) * double(page) : 4.0 * (1u << 30);
}

struct Result {
    Case c;
    Arch arch;
    unsigned threads;
    Timing timing;
    std::optional<double> speedup;  // scalar median / this median
};

Matrix random_matrix(std::size_t rows, std::size_t cols, std::mt19937& gen) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    Matrix M(rows, cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) M(r, c) = dist(gen);
    return M;
}

// Inputs and the library call of one case, built once and timed repeatedly.
std::function<void()> make_call(const Case& c) {
    std::mt19937 gen(12345);
    if (c.op == Op::matmul) {
        auto A = std::make_shared<Matrix>(random_matrix(c.m, c.k, gen));
        auto B = std::make_shared<Matrix>(random_matrix(c.k, c.n, gen));
        auto C = std::make_shared<Matrix>(c.m, c.n);
        return [A, B, C] { matmul(*A, *B, *C); };
    }
    if (c.op == Op::softmax) {
        auto S0 = std::make_shared<Matrix>(random_matrix(c.m, c.n, gen));
        auto S = std::make_shared<Matrix>(*S0);
        // Copying the input back is part of the timed call (a memcpy, small next to exp).
        return [S0, S] {
            for (std::size_t r = 0; r < S->rows(); ++r) std::copy(S0->row(r), S0->row(r) + S0->cols(), S->row(r));
            normalize_rows(*S, Normalization::softmax, MaskedRowPolicy::zero);
        };
    }
    auto Q = std::make_shared<Matrix>(random_matrix(c.m, c.k, gen));
    auto K = std::make_shared<Matrix>(random_matrix(c.n, c.k, gen));
    auto V = std::make_shared<Matrix>(random_matrix(c.n, c.k, gen));
    // The pipeline a user runs: attn::attend. Asking for the weights forces the materialised
    // path (Q·Kᵀ, scale/mask, softmax, ·V); the context alone takes the fused one.
    AttentionOptions opt;
    opt.score_mask.scale = 1.0f / std::sqrt(float(c.k));
    opt.score_mask.causal = c.causal ? Causal::top_left : Causal::none;
    AttentionWants wants;
    wants.weights = !c.fused;
    return [Q, K, V, opt, wants] {
        const AttentionResult r = attend(*Q, *K, *V, opt, wants);
        if (r.fused != !wants.weights) throw RuntimeFailure("bench: attend took an unexpected path");
    };
}

// The scalar run is "affordable" when it should take well under a second a call.
bool scalar_affordable(const Case& c) {
    return c.op == Op::softmax ? c.elements() <= 16.0 * 1024 * 1024 : c.flops() <= 6e8;
}

// ---- FMA peak ------------------------------------------------------------------------

struct Peak {
    Arch arch;
    unsigned threads;
    double gflops;
};

using PeakFn = float (*)(std::uint64_t, float);

std::optional<std::pair<PeakFn, std::size_t>> peak_probe(Arch arch) {
#if defined(__x86_64__) || defined(__i386__)
    if (arch == Arch::avx2) return std::make_pair(&kernels::avx2::fma_peak, kernels::avx2::fma_peak_lanes());
    if (arch == Arch::avx512) return std::make_pair(&kernels::avx512::fma_peak, kernels::avx512::fma_peak_lanes());
#elif defined(__aarch64__)
    if (arch == Arch::neon) return std::make_pair(&kernels::neon::fma_peak, kernels::neon::fma_peak_lanes());
#endif
    (void)arch;
    return std::nullopt;
}

std::atomic<float> g_sink{0.0f};  // keeps the probes' results alive

// All `threads` threads start together and run the probe for about `seconds`; the peak is
// the total flops over the slowest thread's time. Best of 3.
double measure_peak(PeakFn probe, std::size_t lanes, unsigned threads, double seconds) {
    const double flops_per_iteration = 12.0 * double(lanes) * 2.0;
    // Calibrate on one thread.
    std::uint64_t iterations = 1u << 20;
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
    double best = 0.0;
    for (int trial = 0; trial < 3; ++trial) {
        std::atomic<unsigned> ready{0};
        std::atomic<bool> go{false};
        std::vector<double> elapsed(threads);
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                ready.fetch_add(1);
                while (!go.load()) std::this_thread::yield();
                const auto t0 = Clock::now();
                const float r = probe(iterations, 1.0f + float(t));
                elapsed[t] = std::chrono::duration<double>(Clock::now() - t0).count();
                g_sink = g_sink + r;
            });
        while (ready.load() < threads) std::this_thread::yield();
        go = true;
        for (auto& th : pool) th.join();
        const double slowest = *std::max_element(elapsed.begin(), elapsed.end());
        best = std::max(best, flops_per_iteration * double(iterations) * threads / slowest * 1e-9);
    }
    return best;
}

// ---- option parsing ------------------------------------------------------------------

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, sep);) parts.push_back(item);
    if (!text.empty() && text.back() == sep) parts.push_back("");
    return parts;
}

std::size_t parse_dim(const std::string& text, const std::string& option) {
    const double v = parse_number(text, option);
    if (v < 1 || v > (1 << 20) || v != std::floor(v))
        throw UsageError("invalid --" + option + " '" + text + "': expected whole numbers from 1 to 1048576");
    return std::size_t(v);
}

// "N" or "AxB" or "AxBxC" → up to three dimensions.
std::vector<std::size_t> parse_shape(const std::string& text, std::size_t max_dims) {
    const auto parts = split(text, 'x');
    if (parts.empty() || parts.size() > max_dims)
        throw UsageError("invalid --sizes entry '" + text + "': expected N or " + (max_dims >= 3 ? "MxNxK" : "RxC"));
    std::vector<std::size_t> dims;
    for (const auto& p : parts) dims.push_back(parse_dim(p, "sizes"));
    return dims;
}

std::vector<std::string> list_option(const cxxopts::ParseResult& r, const char* name, const char* fallback) {
    const std::string text = r.count(name) ? r[name].as<std::string>() : fallback;
    auto items = split(text, ',');
    if (items.empty()) throw UsageError(std::string("invalid --") + name + " '': expected a comma-separated list");
    return items;
}

// ---- output --------------------------------------------------------------------------

std::string num(double v, const char* fmt = "%.6g") {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

std::optional<double> peak_for(const std::vector<Peak>& peaks, Arch arch, unsigned threads) {
    for (const auto& p : peaks)
        if (p.arch == arch && p.threads == threads) return p.gflops;
    return std::nullopt;
}

void print_table(const std::vector<Result>& results, const std::vector<Peak>& peaks) {
    if (!peaks.empty()) {
        std::printf("FMA peak (12 independent FMA chains per thread):\n");
        std::printf("  %-8s %7s %10s\n", "arch", "threads", "GFLOP/s");
        for (const auto& p : peaks) std::printf("  %-8s %7u %10.1f\n", arch_name(p.arch), p.threads, p.gflops);
        if (!results.empty()) std::printf("\n");
    }
    if (results.empty()) return;
    std::printf("%-15s %-16s %-7s %3s %11s %11s %11s %9s %11s %9s %7s\n", "op", "shape", "arch", "thr", "median s",
                "min s", "max s", "GFLOP/s", "elements/s", "vs scalar", "% peak");
    bool any_attention = false, any_causal = false;
    for (const auto& r : results) {
        const double g = r.c.flops() / r.timing.median * 1e-9;
        std::string label = op_name(r.c.op);
        if (r.c.op == Op::attention) {
            any_attention = true;
            label += r.c.fused ? "" : "/mat";
            if (r.c.causal) label += "/c", any_causal = true;
        }
        const auto peak = peak_for(peaks, r.arch, r.threads);
        std::printf("%-15s %-16s %-7s %3u %11.6f %11.6f %11.6f %9s %11s %9s %7s\n", label.c_str(), r.c.shape().c_str(),
                    arch_name(r.arch), r.threads, r.timing.median, r.timing.min, r.timing.max,
                    r.c.flops() > 0 ? num(g, "%.1f").c_str() : "-",
                    r.c.op == Op::softmax ? num(r.c.elements() / r.timing.median, "%.3g").c_str() : "-",
                    r.speedup ? num(*r.speedup, "%.1fx").c_str() : "-",
                    peak && r.c.flops() > 0 ? num(100.0 * g / *peak, "%.0f%%").c_str() : "-");
    }
    std::printf("\nshapes: matmul MxNxK (A is MxK); softmax rows x cols; attention Tq x Tk x d.\n");
    if (any_attention)
        std::printf("attention GFLOP/s count 4*Tq*Tk*d (both products), dense even when causal%s; /mat = materialized.\n",
                    any_causal ? " (/c)" : "");
}

void print_csv(const std::vector<Result>& results, const std::vector<Peak>& peaks) {
    std::printf("op,shape,arch,threads,causal,fused,median,min,max,mean,stddev,gflops,elements_per_s,speedup_vs_scalar,"
                "fraction_of_peak,user,system\n");
    for (const auto& p : peaks)
        std::printf("fma_peak,,%s,%u,,,,,,,,%s,,,,,\n", arch_name(p.arch), p.threads, num(p.gflops).c_str());
    for (const auto& r : results) {
        const double g = r.c.flops() / r.timing.median * 1e-9;
        const auto peak = peak_for(peaks, r.arch, r.threads);
        const bool att = r.c.op == Op::attention;
        std::printf("%s,%s,%s,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", op_name(r.c.op), r.c.shape().c_str(),
                    arch_name(r.arch), r.threads, att ? (r.c.causal ? "true" : "false") : "",
                    att ? (r.c.fused ? "true" : "false") : "", num(r.timing.median).c_str(),
                    num(r.timing.min).c_str(), num(r.timing.max).c_str(), num(r.timing.mean).c_str(),
                    num(r.timing.stddev).c_str(), r.c.flops() > 0 ? num(g).c_str() : "",
                    r.c.op == Op::softmax ? num(r.c.elements() / r.timing.median).c_str() : "",
                    r.speedup ? num(*r.speedup).c_str() : "", peak && r.c.flops() > 0 ? num(g / *peak).c_str() : "",
                    num(r.timing.user).c_str(), num(r.timing.system).c_str());
    }
}

void print_json(const std::vector<Result>& results, const std::vector<Peak>& peaks) {
    std::printf("{\n  \"machine\": {\"online_cores\": %u, \"best_arch\": \"%s\"},\n", online_cores(),
                arch_name(best_arch()));
    std::printf("  \"flops_note\": \"matmul 2*M*N*K; attention 4*Tq*Tk*d, dense even when causal\",\n");
    std::printf("  \"peak\": [");
    for (std::size_t i = 0; i < peaks.size(); ++i)
        std::printf("%s\n    {\"arch\": \"%s\", \"threads\": %u, \"gflops\": %s}", i ? "," : "",
                    arch_name(peaks[i].arch), peaks[i].threads, num(peaks[i].gflops).c_str());
    std::printf("%s],\n  \"results\": [", peaks.empty() ? "" : "\n  ");
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        const double g = r.c.flops() / r.timing.median * 1e-9;
        std::string command = std::string(op_name(r.c.op)) + " " + r.c.shape();
        if (r.c.op == Op::attention) command += std::string(r.c.causal ? " causal" : "") + (r.c.fused ? " fused" : " materialized");
        std::printf("%s\n    {\"command\": \"%s\", \"op\": \"%s\", \"shape\": \"%s\", \"arch\": \"%s\", \"threads\": %u,",
                    i ? "," : "", command.c_str(), op_name(r.c.op), r.c.shape().c_str(), arch_name(r.arch), r.threads);
        if (r.c.op == Op::attention)
            std::printf(" \"causal\": %s, \"fused\": %s,", r.c.causal ? "true" : "false", r.c.fused ? "true" : "false");
        std::printf("\n     \"mean\": %s, \"stddev\": %s, \"median\": %s, \"user\": %s, \"system\": %s, "
                    "\"min\": %s, \"max\": %s,",
                    num(r.timing.mean).c_str(), num(r.timing.stddev).c_str(), num(r.timing.median).c_str(),
                    num(r.timing.user).c_str(), num(r.timing.system).c_str(), num(r.timing.min).c_str(),
                    num(r.timing.max).c_str());
        std::printf("\n     \"gflops\": %s,", r.c.flops() > 0 ? num(g).c_str() : "null");
        if (r.c.op == Op::softmax) std::printf(" \"elements_per_s\": %s,", num(r.c.elements() / r.timing.median).c_str());
        std::printf(" \"speedup_vs_scalar\": %s,", r.speedup ? num(*r.speedup).c_str() : "null");
        const auto peak = peak_for(peaks, r.arch, r.threads);
        if (peak && r.c.flops() > 0) std::printf(" \"fraction_of_peak\": %s,", num(g / *peak).c_str());
        std::printf("\n     \"times\": [");
        for (std::size_t t = 0; t < r.timing.times.size(); ++t)
            std::printf("%s%s", t ? ", " : "", num(r.timing.times[t]).c_str());
        std::printf("]}");
    }
    std::printf("%s]\n}\n", results.empty() ? "" : "\n  ");
}

}  // namespace

int cmd_bench(int argc, char** argv) {
    cxxopts::Options options("attn bench", "Time attn's kernels in-process on generated inputs (medians of --repeat runs)");
    options.add_options()
        ("op", "What to time: matmul, softmax, attention or all (default all, or none with --peak)",
         cxxopts::value<std::string>(), "OP")
        ("sizes", "Comma-separated sizes: N (square) or MxNxK for matmul, N or RxC for softmax, N or TqxTk for attention "
                  "(defaults: matmul 256,1024,2048; softmax 1024,4096; attention 1024,4096)",
         cxxopts::value<std::string>(), "LIST")
        ("d,head-dims", "Comma-separated head dimensions for attention (default 64); also --d LIST",
         cxxopts::value<std::string>(), "LIST")
        ("causal", "Attention with the causal mask (query i sees keys j <= i)")
        ("fused", "Attention by the fused streaming kernel (default)")
        ("materialized", "Attention through the Tq x Tk score matrix: Q·Kᵀ, softmax, ·V")
        ("repeat", "Timed runs per case (default 10)", cxxopts::value<int>(), "R")
        ("warmup", "Untimed runs before them (default 2)", cxxopts::value<int>(), "W")
        ("peak", "Measure the FMA peak (GFLOP/s) for 1..threads threads and every SIMD arch, and show each "
                 "result as a fraction of it")
        ("format", "table, json (hyperfine's field names) or csv (default table)", cxxopts::value<std::string>(), "FMT");
    add_exec_options(options);
    // cxxopts has no one-letter long options: accept the documented --d / --d=LIST as -d.
    std::vector<std::string> args(argv, argv + argc);
    for (auto& a : args) {
        if (a == "--") break;
        if (a == "--d") a = "-d";
        else if (a.rfind("--d=", 0) == 0) a = "--head-dims=" + a.substr(4);
    }
    std::vector<char*> arg_ptrs;
    for (auto& a : args) arg_ptrs.push_back(a.data());
    const auto parsed = parse_or_help(options, argc, arg_ptrs.data());
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    apply_exec_options(r);

    const std::string format = r.count("format") ? r["format"].as<std::string>() : "table";
    if (format != "table" && format != "json" && format != "csv")
        throw UsageError("invalid --format '" + format + "': expected table, json or csv");
    if (r["fused"].as<bool>() && r["materialized"].as<bool>()) throw UsageError("--fused and --materialized exclude each other");
    const int repeat = r.count("repeat") ? r["repeat"].as<int>() : 10;
    const int warmup = r.count("warmup") ? r["warmup"].as<int>() : 2;
    if (repeat < 1 || repeat > 100000) throw UsageError("invalid --repeat " + std::to_string(repeat) + ": expected 1 to 100000");
    if (warmup < 0 || warmup > 100000) throw UsageError("invalid --warmup " + std::to_string(warmup) + ": expected 0 to 100000");
    const bool want_peak = r.count("peak") > 0;

    std::vector<Op> ops;
    const std::string op = r.count("op") ? r["op"].as<std::string>() : (want_peak ? "none" : "all");
    if (op == "all") ops = {Op::matmul, Op::softmax, Op::attention};
    else if (op == "matmul") ops = {Op::matmul};
    else if (op == "softmax") ops = {Op::softmax};
    else if (op == "attention") ops = {Op::attention};
    else if (op != "none" || r.count("op"))
        throw UsageError("invalid --op '" + op + "': expected matmul, softmax, attention or all");
    const bool attention_flags = r["causal"].as<bool>() || r["fused"].as<bool>() || r["materialized"].as<bool>() ||
                                 r.count("head-dims") > 0;
    if (attention_flags && std::find(ops.begin(), ops.end(), Op::attention) == ops.end())
        throw UsageError("--causal, --fused, --materialized and --d apply to --op attention (or all)");
    if (r.count("sizes") && ops.size() > 1)
        throw UsageError("--sizes needs a single --op (sizes mean different shapes for each op)");

    std::vector<std::size_t> dims_d;
    for (const auto& d : list_option(r, "head-dims", "64")) dims_d.push_back(parse_dim(d, "d"));

    std::vector<Case> cases;
    for (Op o : ops) {
        const char* fallback = o == Op::matmul ? "256,1024,2048" : "1024,4096";
        for (const auto& text : list_option(r, "sizes", fallback)) {
            const auto dims = parse_shape(text, o == Op::matmul ? 3 : 2);
            if (o == Op::matmul && dims.size() == 2)
                throw UsageError("invalid --sizes entry '" + text + "' for matmul: expected N or MxNxK");
            Case c{o};
            c.m = dims[0];
            c.n = dims.size() > 1 ? dims[1] : dims[0];
            c.k = dims.size() > 2 ? dims[2] : dims[0];
            if (o != Op::attention) {
                cases.push_back(c);
                continue;
            }
            c.causal = r["causal"].as<bool>();
            c.fused = !r["materialized"].as<bool>();
            for (std::size_t d : dims_d) {
                c.k = d;
                cases.push_back(c);
            }
        }
    }

    for (const Case& c : cases)
        if (c.bytes() > memory_budget())
            throw UsageError("--sizes " + c.shape() + " needs " + num(c.bytes() / (1u << 30), "%.1f") +
                             " GiB, more than half of this machine's memory");
    // A work cap next to the memory budget: 10^13 floating-point operations per run is about
    // half a minute at this machine's 300 GFLOP/s, and (warm-up + repeats) runs are timed.
    constexpr double max_flops = 1e13;
    for (const Case& c : cases)
        if (c.flops() > max_flops)
            throw UsageError("--sizes " + c.shape() + " needs " + num(c.flops() / 1e9, "%.0f") +
                             " GFLOP per run, more than the cap of 10000 GFLOP (about 30 s per run)");

    const Arch arch = current_arch();
    const unsigned threads = current_threads();
    const bool progress = ::isatty(STDERR_FILENO) == 1;
    std::vector<Peak> peaks;
    if (want_peak)
        for (Arch a : {Arch::avx2, Arch::avx512, Arch::neon}) {
            const auto probe = peak_probe(a);
            if (!probe || !arch_supported(a)) continue;
            for (unsigned t = 1; t <= threads; ++t) {
                if (progress) std::fprintf(stderr, "\rmeasuring the FMA peak: %s, %u thread(s)...   ", arch_name(a), t);
                peaks.push_back({a, t, measure_peak(probe->first, probe->second, t, 0.25)});
            }
        }

    std::vector<Result> results;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        if (progress)
            std::fprintf(stderr, "\r[%zu/%zu] %s %s on %s, %u thread(s)...          ", i + 1, cases.size(), op_name(c.op),
                         c.shape().c_str(), arch_name(arch), threads);
        Result res{c, arch, threads, {}, std::nullopt};
        {
            const auto call = make_call(c);
            res.timing = measure(call, warmup, repeat);
        }
        if (arch != Arch::scalar && scalar_affordable(c)) {
            set_arch(Arch::scalar);
            const auto call = make_call(c);
            const Timing scalar = measure(call, std::min(warmup, 1), std::min(repeat, 3));
            set_arch(arch);
            res.speedup = scalar.median / res.timing.median;
        }
        results.push_back(std::move(res));
    }
    if (progress) std::fprintf(stderr, "\r%70s\r", "");

    if (format == "json") print_json(results, peaks);
    else if (format == "csv") print_csv(results, peaks);
    else print_table(results, peaks);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw RuntimeFailure("cannot write the results to standard output");
    return exit_ok;
}

}  // namespace attn::cli
