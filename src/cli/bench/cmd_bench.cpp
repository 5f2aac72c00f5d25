// attn bench: times the library's compute calls in-process on generated inputs and reports
// medians, GFLOP/s (or elements/s), the speed-up over the scalar kernels and each figure as a
// fraction of the machine's FMA peak and read bandwidth (measured quickly, or at length with --peak).
// This file parses the options and runs the cases; the cases, the measurements and the
// reports are bench/bench.hpp.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "bench/bench.hpp"
#include "cli/attend/attend_options.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "write/output_file.hpp"
#include "cli/option_values.hpp"
#include "runtime/did_you_mean.hpp"

namespace attn::cli {

namespace {

using namespace attn::bench;

// Half of the physical memory: a case needing more is refused rather than swapped to death.
double memory_budget() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? 0.5 * double(pages) * double(page) : 4.0 * (1u << 30);
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
    return std::size_t(parse_integer(text, "--" + option, 1, 1 << 20));
}

// "N" or "AxB" or "AxBxC" or "AxBxCxD" → up to max_dims dimensions.
std::vector<std::size_t> parse_shape(const std::string& text, std::size_t max_dims) {
    // The tables write grouped-query shapes as BxH:GxTqxTk; G is given by --kv-heads.
    if (max_dims == 4 && text.find(':') != std::string::npos)
        throw UsageError("invalid --sizes entry '" + text + "': the key/value heads G of a table's BxH:GxTqxTk "
                         "go in --kv-heads G (--sizes BxHxTqxTk)");
    const auto parts = split(text, 'x');
    const bool empty_part = std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); });
    if (parts.empty() || parts.size() > max_dims || empty_part)
        throw UsageError("invalid --sizes entry '" + text + "': expected " +
                         (max_dims == 4 ? "N, TqxTk or BxHxTqxTk" : max_dims == 3 ? "N or MxNxK" : "N or RxC"));
    std::vector<std::size_t> dims;
    // A bad dimension names its entry ("invalid --sizes entry '0x10' dimension '0': ...").
    for (const auto& p : parts)
        dims.push_back(std::size_t(parse_integer(p, "--sizes entry '" + text + "' dimension", 1, 1 << 20)));
    return dims;
}

std::vector<std::string> list_option(const cxxopts::ParseResult& r, const char* name, const char* fallback) {
    const std::string text = r.count(name) ? r[name].as<std::string>() : fallback;
    auto items = split(text, ',');
    if (items.empty()) throw UsageError(std::string("invalid --") + name + " '': expected a comma-separated list");
    // An item given twice counts once, as in --show (--sizes 64,64 timed the case twice).
    std::vector<std::string> once;
    for (auto& item : items)
        if (std::find(once.begin(), once.end(), item) == once.end()) once.push_back(std::move(item));
    return once;
}

// The attention variants asked for, each a case of its own next to the plain one (attend's
// options and value rules: attend_options.hpp). d_k is checked per head dimension (check_variants).
std::vector<Case> variants_of(const cxxopts::ParseResult& r) {
    for (const char* o : {"rope-style", "rope-dims"})
        if (r.count(o) && !r.count("rope"))
            throw UsageError(std::string("--") + o + " shapes RoPE's rotation: --rope THETA is missing");
    if (r.count("alibi-max-bias") && !r["alibi"].as<bool>())
        throw UsageError("--alibi-max-bias sets ALiBi's slopes: --alibi is missing");
    std::vector<Case> variants;
    Case v{Op::attention};
    if (r.count("softcap")) {
        // 0 is refused: the plain case is always timed.
        v.softcap = parse_softcap(r["softcap"].as<std::string>(), /*zero_is_none=*/false);
        variants.push_back(v), v.softcap = 0.0f;
    }
    if (r.count("window")) variants.push_back(v), variants.back().window = parse_window(r["window"].as<std::string>());
    if (r["alibi"].as<bool>())
        variants.push_back(v), variants.back().alibi = r.count("alibi-max-bias")
                                                           ? parse_alibi_max_bias(r["alibi-max-bias"].as<std::string>())
                                                           : 8.0f;
    if (r["sinks"].as<bool>()) variants.push_back(v), variants.back().sinks = true;
    if (const auto n = integer_option(r, "segments", 1, 1LL << 40)) variants.push_back(v), variants.back().segments = std::size_t(*n);
    if (r.count("rope")) {
        Case c = v;
        c.rope.theta = parse_rope_theta(r["rope"].as<std::string>());
        if (r.count("rope-style")) c.rope.style = parse_rope_style(r["rope-style"].as<std::string>());
        variants.push_back(c);
    }
    return variants;
}

// A variant case of head dimension d and shape `text`: the rules attend states in its words,
// then the resolved problem's (check_case), whose message names the option.
void check_variant(const cxxopts::ParseResult& r, Case& c, const std::string& text) {
    if (c.rope.theta != 0.0f) {
        c.rope.dims = rope_dims(r.count("rope-dims") ? std::optional(r["rope-dims"].as<std::string>()) : std::nullopt, c.k);
    }
    if (c.segments > c.n)
        throw UsageError("invalid --segments " + std::to_string(c.segments) + ": --sizes " + text + " has only " +
                         std::to_string(c.n) + " key positions to split into documents");
    try {
        check_case(c);
    } catch (const InputError& e) {
        throw UsageError("--" + c.variant().substr(0, c.variant().find('=')) + " with --sizes " + text + ": " + e.what());
    }
}

// Cases of one set: the same op and shape, told apart only by path, K/V type, mask, bias and variant.
bool same_shape(const Case& a, const Case& b) {
    return a.op == b.op && a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch && a.heads == b.heads &&
           a.kv_heads == b.kv_heads && a.causal == b.causal && a.bottom_right == b.bottom_right;
}

}  // namespace

int cmd_bench(int argc, char** argv) {
    cxxopts::Options options("attn bench", "Time attn's kernels in-process on generated inputs (medians of --repeat runs)");
    options.add_options()
        ("op", "What to time: matmul, softmax, attention, mha (multi-head: projections, attention, W_O) or all "
               "(default all: matmul, softmax, attention; none with --peak)",
         cxxopts::value<std::string>(), "OP")
        ("sizes", "Comma-separated sizes: N (square) or MxNxK for matmul, N or RxC for softmax, N, TqxTk or "
                  "BxHxTqxTk (batch, heads) for attention and mha (defaults: matmul 256,1024,2048; softmax "
                  "1024,4096; attention 1024,4096; mha 1x8x1024x1024)",
         cxxopts::value<std::string>(), "LIST")
        ("d,head-dims", "Comma-separated head dimensions for attention (default 64); also --d LIST",
         cxxopts::value<std::string>(), "LIST")
        ("kv-heads", "Key/value heads G for attention and mha (grouped-query; H must be a multiple; default H)",
         cxxopts::value<std::string>(), "G")
        ("kv-dtype", "Comma-separated element types of K and V for --op attention: f32 (default), f16 (IEEE "
                     "half precision), bf16 (bfloat16) or q8_0 (ggml's int8 blocks of 32 with a float16 scale), "
                     "the float32 draws rounded or quantised once and widened by the kernels as they load them; "
                     "f32,bf16,q8_0 times them side by side",
         cxxopts::value<std::string>(), "LIST")
        ("causal", "Attention with the causal mask: top-left (default; query i sees keys j <= i) or bottom-right "
                   "(j <= i + Tk - Tq: a decoding step's rows see every key before them). Use --causal or "
                   "--causal=ALIGN", cxxopts::value<std::string>()->implicit_value("top-left"), "ALIGN")
        ("fused", "Attention by the fused streaming kernel (default)")
        ("materialized", "Attention through the Tq x Tk score matrix: Q·Kᵀ, softmax, ·V")
        ("paths", "Comma-separated attention paths to time side by side: fused, materialized (instead of "
                  "--fused or --materialized)", cxxopts::value<std::string>(), "LIST")
        ("mask", "Also time each attention case with a random Tq x Tk mask (about one key in eight masked), "
                 "shared by every head, packed into bits before the timed runs (as attend does when it reads --mask)")
        ("bias", "Also time each attention case with a random Tq x Tk bias in [-1, 1], shared by every head")
        ("softcap", "Also time each attention case with attend's logit softcap: scores x become C·tanh(x/C) (C > 0)",
         cxxopts::value<std::string>(), "C")
        ("window", "Also time each attention case with attend's sliding window: the query at position p sees keys "
                   "p-L..p+R, R omitted unbounded (--causal --window W-1: Mistral's sliding_window=W)",
         cxxopts::value<std::string>(), "L[:R]")
        ("alibi", "Also time each attention case with attend's ALiBi: slope_h·(j - p) added to head h's scores")
        ("alibi-max-bias", "ALiBi's maximum bias B of --alibi (default 8, BLOOM's)", cxxopts::value<std::string>(), "B")
        ("sinks", "Also time each attention case with attention sinks (attend's --sinks FILE): one logit per query "
                  "head, drawn in [-1, 1] as the inputs are, in the softmax's denominator")
        ("segments", "Also time each attention case with N documents of equal length (attend's --segments FILE "
                     "of ids t·N/Tk, one per key position t < Tk): a query sees only its own document (causal "
                     "within it with --causal)", cxxopts::value<std::string>(), "N")
        ("rope", "Also time each attention case with RoPE of base THETA (attend's --rope): Q and K rotated before "
                 "the kernel, as part of the timed call", cxxopts::value<std::string>(), "THETA")
        ("rope-style", "half (default) or interleaved, as attend's", cxxopts::value<std::string>(), "STYLE")
        ("rope-dims", "Rotate only the first N dims of each head, as attend's (default all d)",
         cxxopts::value<std::string>(), "N")
        ("repeat", "Timed runs per case (default 10). The cases of one shape (each path and K/V type, with and "
                   "without --mask or --bias, each variant) run in turn, one run of each per round, and each is reported with its ratio to the "
                   "first (the median of the per-round ratios)",
         cxxopts::value<std::string>(), "R")
        ("warmup", "Untimed runs before them (default 2); unless 0, then more while each takes fewer page faults "
                   "than the one before (up to " + std::to_string(bench::extra_warmup_rounds) + " more, begun within " +
                   num(bench::extra_warmup_seconds, "%g") + " s): the timed runs are the steady state of repeated "
                   "calls, not the first calls' fresh memory",
         cxxopts::value<std::string>(), "W")
        ("peak", "Measure the FMA peak (GFLOP/s) for 1..threads threads and every SIMD arch, and the read "
                 "bandwidth (GB/s, 1..threads threads) from memory (a buffer of at least 4x the last-level cache) "
                 "and in cache; show each result as a fraction of the FMA peak, and memory-bound ones (attention "
                 "with at most 4 query rows) as a fraction of the bandwidth: in cache when their working set is no "
                 "larger than the in-cache buffer (32 MiB, or half the last-level cache when that is smaller) plus 1/16, else from "
                 "memory, marked ^ when faster than that. "
                 "Without --peak the same fractions are shown against a quick probe (0.03 s trials) of the "
                 "arch and thread count in use, and of the bandwidth (the best of 5 runs) when a case is memory-bound. "
                 "A case faster than its peak has the peak probed again (up to twice; other work on a shared machine "
                 "slows a probe), and is marked * if it stays above. "
                 "With either, the rate of the fused kernel's exponential is measured too, and the table says "
                 "where the time of each plain fused attention (float32, no mask, bias or variant, more than 4 "
                 "query rows) goes: its two products at the FMA peak, its exponentials (one per visible cell) at "
                 "that rate, both per CPU-second (what the cores deliver while they run, whatever else the machine "
                 "does), and everything else")
        ("format", "table, json (hyperfine's field names) or csv (default table)", cxxopts::value<std::string>(), "FMT");
    add_exec_options(options);
    // cxxopts has no one-letter long options: accept the documented --d / --d=LIST as -d.
    std::vector<std::string> args(argv, argv + argc);
    std::string dims_name = "d";  // as the user wrote it, for its errors
    for (auto& a : args) {
        if (a == "--") break;
        if (a == "--d") a = "-d";
        else if (a.rfind("--d=", 0) == 0) a = "--head-dims=" + a.substr(4);
        else if (a.rfind("--head-dims", 0) == 0) dims_name = "head-dims";
    }
    std::vector<char*> arg_ptrs;
    for (auto& a : args) arg_ptrs.push_back(a.data());
    const auto parsed = parse_or_help(options, argc, arg_ptrs.data());
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    const std::string format = r.count("format") ? r["format"].as<std::string>() : "table";
    if (format != "table" && format != "json" && format != "csv")
        throw UsageError("invalid --format '" + format + "': expected table, json or csv" +
                         did_you_mean(format, {"table", "json", "csv"}));
    if (r["fused"].as<bool>() && r["materialized"].as<bool>()) throw UsageError("--fused and --materialized exclude each other");
    if (r.count("paths") && (r["fused"].as<bool>() || r["materialized"].as<bool>()))
        throw UsageError("--paths replaces --fused and --materialized: give one or the other");
    std::vector<bool> paths;  // fused?
    for (const auto& path : list_option(r, "paths", r["materialized"].as<bool>() ? "materialized" : "fused")) {
        if (!option_names::one_of(option_names::bench_paths, path))
            throw UsageError("invalid --paths entry '" + path + "': expected fused or materialized" +
                             did_you_mean(path, option_names::bench_paths));
        if (std::find(paths.begin(), paths.end(), path == "fused") == paths.end()) paths.push_back(path == "fused");
    }
    const int repeat = int(integer_option(r, "repeat", 1, 100000, 10));
    const int warmup = int(integer_option(r, "warmup", 0, 100000, 2));
    const std::optional<long long> kv_heads = integer_option(r, "kv-heads", 1, 65536);
    const bool want_peak = r.count("peak") > 0;

    std::vector<Op> ops;
    const std::string op = r.count("op") ? r["op"].as<std::string>() : (want_peak ? "none" : "all");
    if (op == "all") ops = {Op::matmul, Op::softmax, Op::attention};
    else if (op == "matmul") ops = {Op::matmul};
    else if (op == "softmax") ops = {Op::softmax};
    else if (op == "attention") ops = {Op::attention};
    else if (op == "mha") ops = {Op::mha};
    else if (op != "none" || r.count("op"))
        throw UsageError("invalid --op '" + op + "': expected matmul, softmax, attention, mha or all" +
                         did_you_mean(op, {"matmul", "softmax", "attention", "mha", "all"}));
    const std::vector<Case> variants = variants_of(r);
    const Causal causal = r.count("causal") ? parse_causal(r["causal"].as<std::string>()) : Causal::none;
    const bool attention_flags = causal != Causal::none || r["fused"].as<bool>() || r["materialized"].as<bool>() ||
                                 r.count("head-dims") > 0 || r.count("kv-heads") > 0 || r.count("kv-dtype") > 0 ||
                                 r.count("paths") > 0 || r["mask"].as<bool>() || r["bias"].as<bool>() ||
                                 !variants.empty();
    const bool has_attention = std::find(ops.begin(), ops.end(), Op::attention) != ops.end() ||
                               std::find(ops.begin(), ops.end(), Op::mha) != ops.end();
    if (attention_flags && !has_attention)
        throw UsageError("--causal, --fused, --materialized, --paths, --mask, --bias, --kv-heads, --kv-dtype, --d and "
                         "the variants (--softcap, --window, --alibi, --sinks, --segments, --rope) apply to --op "
                         "attention, mha (or all)");
    if (r.count("kv-dtype") && std::find(ops.begin(), ops.end(), Op::attention) == ops.end())
        throw UsageError("--kv-dtype applies to --op attention (or all): mha makes K and V in float32 with its "
                         "projections");
    std::vector<ElementType> kv_types;
    for (const auto& t : list_option(r, "kv-dtype", "f32")) {
        const std::vector<std::string>& names = option_names::kv_dtype;
        const auto at = std::find(names.begin(), names.end(), t);
        if (at == names.end())
            throw UsageError("invalid --kv-dtype '" + t + "': expected f32, f16, bf16, q8_0 or a list (f32,q8_0)" +
                             did_you_mean(t, names));
        const auto type = ElementType(at - names.begin());
        if (std::find(kv_types.begin(), kv_types.end(), type) == kv_types.end()) kv_types.push_back(type);
    }
    if (r.count("sizes") && ops.size() > 1)
        throw UsageError("--sizes needs a single --op (sizes mean different shapes for each op)");

    std::vector<std::size_t> dims_d;
    for (const auto& d : list_option(r, "head-dims", "64")) dims_d.push_back(parse_dim(d, dims_name));

    std::vector<Case> cases;
    for (Op o : ops) {
        const char* fallback = o == Op::matmul ? "256,1024,2048" : o == Op::mha ? "1x8x1024x1024" : "1024,4096";
        const bool attention_like = o == Op::attention || o == Op::mha;
        for (const auto& text : list_option(r, "sizes", fallback)) {
            const auto dims = parse_shape(text, o == Op::matmul ? 3 : attention_like ? 4 : 2);
            if (o == Op::matmul && dims.size() == 2)
                throw UsageError("invalid --sizes entry '" + text + "' for matmul: expected N or MxNxK");
            if (attention_like && dims.size() == 3)
                throw UsageError("invalid --sizes entry '" + text + "': expected N, TqxTk or BxHxTqxTk");
            Case c{o};
            if (attention_like && dims.size() == 4) {
                c.batch = dims[0], c.heads = dims[1];
                c.m = dims[2], c.n = dims[3];
            } else {
                c.m = dims[0];
                c.n = dims.size() > 1 ? dims[1] : dims[0];
                c.k = dims.size() > 2 ? dims[2] : dims[0];
            }
            if (!attention_like) {
                cases.push_back(c);
                continue;
            }
            c.kv_heads = kv_heads ? std::size_t(*kv_heads) : c.heads;
            if (c.heads % c.kv_heads != 0)
                throw UsageError("invalid --kv-heads " + std::to_string(c.kv_heads) + ": the " +
                                 std::to_string(c.heads) + " heads of --sizes " + text + " must be a multiple of it");
            c.causal = causal != Causal::none;
            c.bottom_right = causal == Causal::bottom_right;
            // mha keeps K and V in float32 (its projections make them).
            const std::vector<ElementType> types = o == Op::attention ? kv_types : std::vector{ElementType::f32};
            for (std::size_t d : dims_d)
                for (bool fused : paths)
                    for (ElementType type : types) {
                        c.fused = fused;
                        c.k = d;
                        c.kv_type = type;
                        c.mask = c.bias = false;
                        cases.push_back(c);
                        if (r["mask"].as<bool>()) c.mask = true, cases.push_back(c), c.mask = false;
                        if (r["bias"].as<bool>()) c.bias = true, cases.push_back(c), c.bias = false;
                        for (const Case& v : variants) {
                            Case cv = c;
                            cv.softcap = v.softcap, cv.window = v.window, cv.alibi = v.alibi, cv.sinks = v.sinks;
                            cv.segments = v.segments, cv.rope = v.rope;
                            check_variant(r, cv, text);
                            cases.push_back(cv);
                        }
                    }
        }
    }

    for (Case& c : cases)
        if (c.variant().empty()) check_case(c);  // the visible fraction of the plain cases
    for (const Case& c : cases)
        if (c.bytes() > memory_budget())
            throw UsageError("--sizes " + c.shape() + " needs " + num(c.bytes() / (1u << 30), "%.1f") +
                             " GiB, more than half of this machine's memory");
    // A work cap next to the memory budget: 10^13 floating-point operations per run is about
    // half a minute at this machine's 300 GFLOP/s, and (warm-up + repeats) runs are timed.
    constexpr double max_flops = 1e13;
    for (const Case& c : cases)
        if (c.dense_flops() > max_flops)
            throw UsageError("--sizes " + c.shape() + " needs " + num(c.dense_flops() / 1e9, "%.0f") +
                             " GFLOP per run, more than the cap of 10000 GFLOP (about 30 s per run)");

    const Arch arch = current_arch();
    const unsigned threads = current_threads();
    if (threads > online_cores())  // accepted (results are the same), but timed on fewer cores (from an audit)
        std::fprintf(stderr, "attn: note: --threads %u on %u online cores: the threads share them, and so do their "
                             "FMA peak and bandwidth\n", threads, online_cores());
    const bool progress = ::isatty(STDERR_FILENO) == 1;
    std::vector<Peak> peaks;
    BandwidthReport bandwidth;
    // The limits every "% peak" and "% bw" is read against: with --peak, every arch and thread
    // count at length; without, quickly, only what the cases need.
    if (want_peak) {
        peaks = measure_peaks(threads, progress), bandwidth = measure_bandwidth(threads, progress);
    } else if (!cases.empty()) {
        peaks = measure_peak_quickly(arch, threads);
        if (std::any_of(cases.begin(), cases.end(), [](const Case& c) { return c.memory_bound(); }))
            bandwidth = measure_bandwidth(threads, progress, true);
    }

    std::vector<Result> results;
    // Times cases [first, end) in turn; each after the first gets its ratio to the first.
    const auto time_together = [&](std::size_t first, std::size_t end) {
        if (progress)
            std::fprintf(stderr, "\r[%zu/%zu] %s %s on %s, %u thread(s)...          ", end, cases.size(),
                         op_name(cases[first].op), cases[first].shape().c_str(), arch_name(arch), threads);
        std::vector<Timing> timings;
        {
            std::vector<std::function<void()>> calls;
            for (std::size_t i = first; i < end; ++i) calls.push_back(make_call(cases[i]));
            timings = measure_in_turn(calls, warmup, repeat);
        }
        for (std::size_t i = first; i < end; ++i) {
            const Case& c = cases[i];
            Result res{c, arch, threads, timings[i - first], std::nullopt, std::nullopt};
            if (i > first) res.ratio = median_ratio(res.timing, timings[0]);
            if (arch != Arch::scalar && scalar_affordable(c)) {
                set_arch(Arch::scalar);
                const auto call = make_call(c);
                const Timing scalar = measure(call, std::min(warmup, 1), std::min(repeat, 3));
                set_arch(arch);
                res.speedup = scalar.median / res.timing.median;
            }
            results.push_back(std::move(res));
        }
    };
    for (std::size_t first = 0, end; first < cases.size(); first = end) {
        // A set: the cases of one shape (each path and K/V type, with and without mask or
        // bias). They are timed in turn when their inputs fit in memory together, else one
        // at a time, without ratios.
        double set_bytes = cases[first].bytes();
        for (end = first + 1; end < cases.size() && same_shape(cases[end], cases[first]); ++end)
            set_bytes += cases[end].bytes();
        if (set_bytes <= memory_budget()) time_together(first, end);
        else
            for (std::size_t i = first; i < end; ++i) time_together(i, i + 1);
    }
    if (progress) std::fprintf(stderr, "\r%70s\r", "");
    probe_peaks_again(peaks, results);

    if (format == "json") print_json(results, peaks, bandwidth, !want_peak);
    else if (format == "csv") print_csv(results, peaks, bandwidth);
    else print_table(results, peaks, bandwidth, !want_peak);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        if (errno == EPIPE) io::detail::die_of_sigpipe();  // the reader went away (| head), as every command ends
        throw RuntimeFailure("cannot write the results to standard output");
    }
    return exit_ok;
}

}  // namespace attn::cli
