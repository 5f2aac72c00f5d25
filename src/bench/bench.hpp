// attn bench's engine: the timed cases (bench/cases.cpp), the clock, the FMA peaks and the
// read bandwidth (bench/measure.cpp), and the reports as a table, csv or json
// (bench/report.cpp). The command (cli/bench/cmd_bench.cpp) parses the options and runs them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attn/half.hpp"
#include "attn/ops.hpp"
#include "attn/problem.hpp"

namespace attn::bench {

// ---- cases ---------------------------------------------------------------------------
enum class Op { matmul, softmax, attention, mha };
const char* op_name(Op op);

struct Case {
    Op op;
    std::size_t m = 0, n = 0, k = 0;  // matmul m×k · k×n; softmax m×n; attention/mha Tq=m Tk=n d=k
    std::size_t batch = 1, heads = 1, kv_heads = 1;  // attention/mha: B, H, G
    bool causal = false, fused = true;
    bool bottom_right = false;  // the causal mask aligned to the last key (j <= i + Tk - Tq)
    ElementType kv_type = ElementType::f32;  // attention: the element type of K and V
    bool mask = false, bias = false;  // attention/mha: a random Tq×Tk mask / bias shared by every head
    // attention/mha: one of attend's variants (bench's --softcap, --window, ...; AttentionSpec's
    // fields, spec_of); all unset: none. bench times each variant as a case of its own.
    float softcap = 0.0f;      // C: scores become C·tanh(x/C)
    Window window{};           // L[:R] keys left and right of the query's position
    float alibi = 0.0f;        // ALiBi's maximum bias B (0: none)
    bool sinks = false;        // one sink logit per query head, drawn in [-1, 1]
    std::size_t segments = 0;  // N documents of equal length (0: none)
    Rope rope{};               // RoPE (theta 0: none)
    // The fraction of the Tq×Tk cells the key rule lets a query see (causal, window, documents;
    // not a --mask): what a kernel that skips invisible key blocks can save. Set by check_case.
    double visible = 1.0;
    // The fraction of the keys some query row of its batch item sees (the hull of their ranges):
    // what a decoding step reads of K and V. Set by check_case.
    double keys_read = 1.0;
    // The variant as a name: "softcap=30", "window=1023" (L; "L:R", ":R"), "alibi=8", "sinks",
    // "segments=8", "rope=10000[:interleaved][:dims=N]"; "" for none.
    std::string variant() const;
    bool batched() const { return batch > 1 || heads > 1 || op == Op::mha; }
    std::string shape() const;
    // Floating-point work: matmul 2mnk; attention 4·d per visible cell of the B·H·Tq·Tk
    // (both products; causal about half, as FlashAttention's benchmarks count it; a --mask's
    // cells are computed, so counted); mha adds the projections and W_O; softmax none
    // (elements/s instead).
    double flops() const;
    // The same with every cell counted: the work of a path that computes them all (the
    // materialized one), which the scalar runs and the work cap are judged by.
    double dense_flops() const;
    double elements() const { return double(m) * double(n); }
    // Bytes of inputs and outputs the case allocates (a little more for packing).
    double bytes() const;
    // Memory-bound: fused attention with few query rows (split-K decoding), whose time is
    // reading K and V. moved_bytes: what one call must move (the rows of K and V its queries
    // see, as stored in kv_type with their padding; Q and O; a bias or mask).
    bool memory_bound() const;
    double moved_bytes() const;
    double kv_element_bytes() const;  // 4, 2, or 34/32 for q8_0
    double kv_row_bytes() const;      // a stored row of K or V: d elements padded as kv_type pads them
};

// The attention spec of an attention or mha case's variant (no mask or bias): the fields of
// AttentionSpec that attend's options set, the sinks drawn from a fixed seed, the documents
// ids t·N/Tk of the key positions t (N runs of Tk/N positions, rounded down or up).
AttentionSpec spec_of(const Case& c);
// Resolves an attention or mha case's problem (attn/problem.hpp; its shapes only, no data) and sets
// c.visible from it: the library's errors (InputError, ShapeError) for a variant that does not fit.
void check_case(Case& c);

// Inputs and the library call of one case, built once and timed repeatedly.
std::function<void()> make_call(const Case& c);
// The scalar run is "affordable" when it should take well under a second a call.
bool scalar_affordable(const Case& c);

// ---- measurement ---------------------------------------------------------------------
struct Timing {
    std::vector<double> times;  // seconds, in run order
    double mean = 0, stddev = 0, median = 0, min = 0, max = 0;
    double user = 0, system = 0;  // mean CPU seconds per run, all threads (as hyperfine)
};
// The untimed rounds before a measurement (one call of each a round): `warmup` of them, then
// (warmup > 0) more while each takes fewer page faults than the one before, at most
// extra_warmup_rounds more and none begun after extra_warmup_seconds of them. Returns the rounds run.
inline constexpr int extra_warmup_rounds = 16;
inline constexpr double extra_warmup_seconds = 1.0;
int warm_up(const std::vector<std::function<void()>>& calls, int warmup);
// Runs `call` warm_up's rounds untimed, then repeat times timed.
Timing measure(const std::function<void()>& call, int warmup, int repeat);
// Runs the calls in turn, one run of each per round: warm_up's rounds untimed, then repeat
// rounds timed. Cases compared with each other (with and without a mask, say) are
// timed in the same rounds, so a slow phase of a shared machine falls on all of them alike.
std::vector<Timing> measure_in_turn(const std::vector<std::function<void()>>& calls, int warmup, int repeat);
// Median over rounds of times[r] / base[r] (the same rounds of measure_in_turn).
double median_ratio(const Timing& t, const Timing& base);

struct Peak {
    Arch arch;
    unsigned threads;
    double gflops;      // by the wall clock
    double cpu_gflops;  // per CPU-second of one thread (gflops / threads on a quiet machine)
    // The fused kernel's exponential over a 1024-float buffer in L1 on each thread (loads, exp,
    // stores; KernelSet::exp_probe): exponentials per CPU-second of one thread, what the fused
    // kernel's softmax costs at least (the "where the time goes" lines of the table).
    double exps_per_second = 0.0;
};
// The FMA peak of every SIMD arch this machine runs, for 1..threads threads; `progress`
// reports on standard error.
std::vector<Peak> measure_peaks(unsigned threads, bool progress);
// What bench measures when --peak is not given, so that "% peak" and "% bw" are always filled:
// the FMA peak of one arch and thread count, each trial quick_peak_seconds long (calibration
// included, about a tenth of a second; none for the scalar kernels, which have no probe).
inline constexpr double quick_peak_seconds = 0.03;
std::vector<Peak> measure_peak_quickly(Arch arch, unsigned threads);
// The FMA peak results of `arch` on `threads` threads are read against: the best of its probes
// for that many threads or fewer (more threads never deliver less; a probe that did was slowed).
std::optional<double> peak_for(const std::vector<Peak>& peaks, Arch arch, unsigned threads);

// Read bandwidth: a vectorised sum over a buffer, each thread its slice, the best GB/s of 7
// runs for 1..threads threads, twice: from memory (a buffer of at least 4× the last-level
// cache, so that no run finds it cached) and in cache (a buffer that stays in the
// last-level cache between runs, as a decoding step's K/V does when it fits there).
struct Bandwidth {
    unsigned threads;
    double memory_gbps;
    double cache_gbps;
};
struct BandwidthReport {
    std::size_t llc_bytes = 0;     // last-level cache (sysfs); 0 = unknown
    std::size_t memory_bytes = 0;  // buffer of the memory probe
    std::size_t cache_bytes = 0;   // buffer of the in-cache probe
    std::vector<Bandwidth> rows;   // empty: not measured
    int runs = 7;                  // per probe (the best is reported: a probe of the limit)
    // The figure a memory-bound case of `working_set` bytes compares with, and whether that
    // is the in-cache one (the working set is no larger than the in-cache probe's buffer).
    std::optional<double> fair_gbps(unsigned threads, double working_set, bool* in_cache) const;
};
// quick: `threads` threads only, 5 runs per probe (bench without --peak, memory-bound cases).
BandwidthReport measure_bandwidth(unsigned threads, bool progress, bool quick = false);
// The last-level cache of CPU 0 in bytes from sysfs (0 when unknown).
std::size_t last_level_cache_bytes();

// ---- reports -------------------------------------------------------------------------
struct Result {
    Case c;
    Arch arch;
    unsigned threads;
    Timing timing;
    std::optional<double> speedup;  // scalar median / this median
    // Median over rounds of this case's time over the first case's of its set (the same
    // shape, timed in turn with it: the plain fused case); none for the first case itself.
    std::optional<double> ratio;
};
// A case that ran faster than its peak (peak_for) says that other work on the machine slowed
// the probe: the peaks of such cases' arch and thread count are probed again (3 trials of
// 0.1 s), each keeping the best it has seen, at most twice. Whether every case is then within
// its peak.
bool probe_peaks_again(std::vector<Peak>& peaks, const std::vector<Result>& results);
// A case's GFLOP/s above this fraction of its peak is beyond what the probe saw (timing noise
// of a few percent is not).
inline constexpr double above_peak = 1.02;

std::string num(double v, const char* fmt = "%.6g");
// quick: the limits were measured quickly (no --peak), which the reports say.
void print_table(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                 const BandwidthReport& bandwidth, bool quick = false);
void print_csv(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                 const BandwidthReport& bandwidth);
void print_json(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                 const BandwidthReport& bandwidth, bool quick = false);

}  // namespace attn::bench
