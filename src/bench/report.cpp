// attn bench: the results as a table, CSV or JSON (hyperfine's field names).
#include <cstdio>
#include <string>

#include "bench/bench.hpp"

namespace attn::bench {

std::string num(double v, const char* fmt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

namespace {

// The CPU time of all of a case's timed runs below which its "% (cpu)" is not shown: the
// process's CPU clock (getrusage) is too coarse for it (runs of 0.25 ms gave 146% and 1%).
constexpr double min_cpu_seconds = 0.05;

// The result's flops per CPU-second over the probe's: the fraction of the peak the kernel
// reaches while it runs, which holds on a machine shared with other work.
std::optional<double> cpu_fraction(const std::vector<Peak>& peaks, const Result& r) {
    const double cpu = r.timing.user + r.timing.system;
    if (r.c.flops() <= 0 || cpu * double(r.timing.times.size()) < min_cpu_seconds) return std::nullopt;
    for (const auto& p : peaks)
        if (p.arch == r.arch && p.threads == r.threads && p.cpu_gflops > 0)
            return r.c.flops() / cpu * 1e-9 / p.cpu_gflops;
    return std::nullopt;
}

double mib(std::size_t bytes) { return double(bytes) / double(1u << 20); }

// A case's name in the tables: op, then /mat, /c, /f16, /mask, /bias and the variant as they apply.
std::string label_of(const Case& c) {
    std::string label = op_name(c.op);
    if (c.op == Op::attention || c.op == Op::mha) {
        label += c.fused ? "" : "/mat";
        if (c.causal) label += c.bottom_right ? "/cbr" : "/c";
        if (c.kv_type != ElementType::f32) label += "/" + std::string(element_type_name(c.kv_type));
        if (c.mask) label += "/mask";
        if (c.bias) label += "/bias";
        if (!c.variant().empty()) label += "/" + c.variant();
    }
    return label;
}

// Whether a key rule hides cells of the case (causal, a window, documents): its visible fraction.
bool has_key_rule(const Case& c) {
    return (c.op == Op::attention || c.op == Op::mha) && (c.causal || c.window.bounded() || c.segments);
}

// Where a plain fused prefill's time goes (float32 K/V, no mask, bias or variant): its two
// products at the FMA peak, its exponentials (one per visible cell) at the exp probe's rate,
// and everything else, as fractions of its median.
void print_time_split(const std::vector<Result>& results, const std::vector<Peak>& peaks) {
    bool header = false;
    for (const auto& r : results) {
        const Case& c = r.c;
        if (c.op != Op::attention || !c.fused || c.memory_bound() || c.kv_type != ElementType::f32 || c.mask ||
            c.bias || !c.variant().empty())
            continue;
        const Peak* peak = nullptr;
        for (const auto& p : peaks)
            if (p.arch == r.arch && p.threads == r.threads && p.exps_per_second > 0) peak = &p;
        if (!peak) continue;
        if (!header) std::printf("\nwhere the time of the fused attention goes (fractions of its median):\n");
        header = true;
        // Both at their rates per CPU-second, as the exp probe is measured: the products' share does not
        // grow when the peak's probe met other work (flops(): the visible cells).
        const double fma = peak->cpu_gflops > 0 ? peak->cpu_gflops * r.threads : peak->gflops;
        const double products = c.flops() / (fma * 1e9) / r.timing.median;
        const double exps = double(c.batch * c.heads) * c.elements() * c.visible;
        const double exp_time = exps / (peak->exps_per_second * r.threads) / r.timing.median;
        const double rest = 1.0 - products - exp_time;
        std::printf("  %s %s: the products at the FMA peak per CPU-second %s, %s exponentials at the exp probe's rate %s, "
                    "everything else %s\n",
                    label_of(c).c_str(), c.shape().c_str(), num(100.0 * products, "%.0f%%").c_str(),
                    num(exps, "%.3g").c_str(), num(100.0 * exp_time, "%.0f%%").c_str(),
                    rest > 0 ? num(100.0 * rest, "%.0f%%").c_str() : "0% (the two at their probes' rates already fill the median)");
    }
    if (header)
        std::printf("  everything else: the score tiles' loads and stores, their maxima and sums, rescaling the "
                    "running output, packing Q, threads waiting for each other, and for a core when the machine "
                    "runs other work.\n");
}

}  // namespace

void print_table(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                 const BandwidthReport& bandwidth, bool quick) {
    if (!peaks.empty()) {
        std::printf("FMA peak (12 independent FMA chains per thread%s):\n",
                    quick ? "; a quick probe of this arch and thread count, not the long probes of every arch and thread count" : "");
        std::printf("  %-8s %7s %10s %14s %10s\n", "arch", "threads", "GFLOP/s", "per CPU-second", "G exp/s");
        for (const auto& p : peaks)
            std::printf("  %-8s %7u %10.1f %14.1f %10.2f\n", arch_name(p.arch), p.threads, p.gflops, p.cpu_gflops,
                        p.exps_per_second * 1e-9);
        std::printf("  G exp/s: the fused kernel's exponential alone over 1024 floats in L1 per thread (loads, exp, "
                    "stores), per CPU-second of one thread.\n");
        if (!results.empty() || !bandwidth.rows.empty()) std::printf("\n");
    }
    if (!bandwidth.rows.empty()) {
        std::printf("Read bandwidth (vector sum, best of %d runs; last-level cache %s):\n", bandwidth.runs,
                    bandwidth.llc_bytes ? (num(mib(bandwidth.llc_bytes), "%.0f") + " MiB").c_str() : "unknown");
        std::printf("  %7s %14s %14s\n", "threads", "memory GB/s", "in cache GB/s");
        for (const auto& b : bandwidth.rows) std::printf("  %7u %14.1f %14.1f\n", b.threads, b.memory_gbps, b.cache_gbps);
        std::printf("  memory: a %s MiB buffer (at least 4x the last-level cache); in cache: a %s MiB buffer read "
                    "again and again.\n",
                    num(mib(bandwidth.memory_bytes), "%.0f").c_str(), num(mib(bandwidth.cache_bytes), "%.0f").c_str());
        if (!results.empty()) std::printf("\n");
    }
    if (results.empty()) return;
    int lw = 18, sw = 16;  // the columns widen for the longest label and shape
    for (const auto& r : results) lw = std::max(lw, int(label_of(r.c).size())), sw = std::max(sw, int(r.c.shape().size()));
    // A key rule: the fraction of cells visible, which the flops count and a ratio is read against.
    bool any_visible = false;
    for (const auto& r : results) any_visible = any_visible || has_key_rule(r.c);
    std::printf("%-*s %-*s %-7s %3s %11s %11s %11s %9s %11s %9s %7s %8s %6s%s\n", lw, "op", sw, "shape", "arch", "thr",
                "median s", "min s", "max s", "GFLOP/s", "elements/s", "vs scalar", "% peak", "% (cpu)", "ratio",
                any_visible ? " visible" : "");
    bool any_attention = false, any_causal = false, any_ratio = false, any_variant = false, any_above = false;
    bool any_short = false, any_unscaled = false;
    for (const auto& r : results) {
        const double g = r.c.flops() / r.timing.median * 1e-9;
        const std::string label = label_of(r.c);
        any_attention = any_attention || r.c.op == Op::attention || r.c.op == Op::mha;
        any_causal = any_causal || ((r.c.op == Op::attention || r.c.op == Op::mha) && r.c.causal);
        const auto peak = peak_for(peaks, r.arch, r.threads);
        const auto cpu = cpu_fraction(peaks, r);
        any_ratio = any_ratio || r.ratio;
        any_variant = any_variant || !r.c.variant().empty();
        const bool att = r.c.op == Op::attention || r.c.op == Op::mha;
        const bool above = peak && g > above_peak * *peak;  // the probe was slowed: see the footnote
        any_above = any_above || (above && r.c.flops() > 0);
        any_short = any_short || (!cpu && peak && r.c.flops() > 0);
        any_unscaled = any_unscaled || (!r.speedup && r.arch != Arch::scalar);
        std::printf("%-*s %-*s %-7s %3u %11.6f %11.6f %11.6f %9s %11s %9s %7s %8s %6s%s\n", lw, label.c_str(), sw,
                    r.c.shape().c_str(),
                    arch_name(r.arch), r.threads, r.timing.median, r.timing.min, r.timing.max,
                    r.c.flops() > 0 ? num(g, "%.1f").c_str() : "-",
                    r.c.op == Op::softmax ? num(r.c.elements() / r.timing.median, "%.3g").c_str() : "-",
                    r.speedup ? num(*r.speedup, "%.1fx").c_str() : "-",
                    peak && r.c.flops() > 0 ? num(100.0 * g / *peak, above ? "%.0f%%*" : "%.0f%%").c_str() : "-",
                    cpu ? num(100.0 * *cpu, "%.0f%%").c_str() : "-", r.ratio ? num(*r.ratio, "%.2fx").c_str() : "-",
                    !any_visible ? "" : att ? num(r.c.visible, " %7.3g").c_str() : "       -");
    }
    print_time_split(results, peaks);
    bool any_memory_bound = false;
    for (const auto& r : results) any_memory_bound = any_memory_bound || r.c.memory_bound();
    if (any_memory_bound) {
        std::printf("\nmemory-bound (few query rows: reading K and V is the limit):\n");
        std::printf("%-*s %-*s %-7s %3s %11s %9s %9s %7s %9s\n", lw, "op", sw, "shape", "arch", "thr", "median s", "MiB",
                    "GB/s", "% bw", "vs");
        bool any_faster = false;
        for (const auto& r : results) {
            if (!r.c.memory_bound()) continue;
            const double gbps = r.c.moved_bytes() / r.timing.median * 1e-9;
            bool in_cache = false;
            const auto bw = bandwidth.fair_gbps(r.threads, r.c.moved_bytes(), &in_cache);
            const bool faster = bw && gbps > *bw;  // see the footnote
            any_faster = any_faster || faster;
            std::printf("%-*s %-*s %-7s %3u %11.6f %9s %9.1f %7s %9s\n", lw, label_of(r.c).c_str(), sw,
                        r.c.shape().c_str(), arch_name(r.arch), r.threads, r.timing.median,
                        num(r.c.moved_bytes() / double(1u << 20), r.c.moved_bytes() >= 100.0 * (1u << 20) ? "%.0f" : "%.3g").c_str(), gbps,
                        bw ? num(100.0 * gbps / *bw, faster ? "%.0f%%^" : "%.0f%%").c_str() : "-",
                        bw ? (in_cache ? "in cache" : "memory") : "-");
        }
        std::printf("MiB: what a call reads and writes (the rows of K and V its queries see, as stored; Q and the "
                    "output; a /bias or /mask); GB/s: it over the median; %% bw: over the measured read bandwidth (the peak probes) for "
                    "that many threads, in cache when it is no larger than the in-cache buffer plus 1/16 (it then "
                    "stays in the cache between runs), else from memory (vs).\n");
        if (any_faster)
            std::printf("^: faster than the bandwidth it is compared with: it stays in a cache level faster than that "
                        "probe's buffer (%s MiB in cache, %s MiB from memory), or other work slowed the probe.\n",
                        num(mib(bandwidth.cache_bytes), "%.0f").c_str(), num(mib(bandwidth.memory_bytes), "%.0f").c_str());
    }
    std::printf("\nshapes: matmul MxNxK (A is MxK); softmax rows x cols; attention Tq x Tk x d, or B x H[:G] x Tq x Tk x d "
                "(batch, heads[:key/value heads]); mha also projects X (B x Tq x H*d) and applies W_O.\n");
    if (any_unscaled)
        std::printf("vs scalar: the scalar kernels' median over this one; - where a case is too large to time them "
                    "(above 6e8 flop counted over every cell, masked or not, or 2^24 softmax elements).\n");
    if (!peaks.empty())
        std::printf("%% peak: GFLOP/s over the FMA peak by the wall clock (the best probe of that many threads or "
                    "fewer); %% (cpu): flops per CPU-second over the peak's (what the cores reach while they run: the "
                    "figure that holds on a shared machine)%s.\n",
                    any_short ? "; - where the timed runs took under 0.05 CPU-seconds in all, too little for the "
                                "process's CPU clock" : "");
    if (any_above)
        std::printf("*: above the FMA peak, probed three times: other work on this machine slowed every probe, so the "
                    "peak is at least this case's rate. Re-run when the machine is quiet, or measure the peaks at length.\n");
    if (any_attention)
        std::printf("attention GFLOP/s count 4*d per visible cell (both products): 4*Tq*Tk*d, about half of it when "
                    "causal%s, as FlashAttention's benchmarks count; /mat = materialized; /mask, /bias = with a random "
                    "Tq x Tk mask (no key rule: its cells count) or bias.\n",
                    any_causal ? " (/c; /cbr: aligned to the last key)" : "");
    if (any_variant)
        std::printf("variants (attend's options, each timed as a case of its own): softcap=C, window=L[:R], alibi=B "
                    "(max bias), sinks (one drawn logit per head), segments=N (N equal documents), rope=THETA.\n");
    if (any_visible)
        std::printf("visible: the fraction of the Tq x Tk cells the key rule lets a query see (causal, window, "
                    "documents): the cells the flops count; a skipping kernel's ideal ratio is its visible over the "
                    "plain case's.\n");
    if (any_ratio)
        std::printf("ratio: the median over rounds of the case's time over the first case of its shape (above it). "
                    "Cases of one shape are timed in turn, one run of each per round.\n");
}

void print_csv(const std::vector<Result>& results, const std::vector<Peak>& peaks,
               const BandwidthReport& bandwidth) {
    // The columns json has too; new ones go last, so that scripts reading by position keep working.
    std::printf("op,shape,arch,threads,causal,fused,median,min,max,mean,stddev,gflops,elements_per_s,speedup_vs_scalar,"
                "fraction_of_peak,user,system,fraction_of_peak_cpu,kv_dtype,mask,bias,ratio,gb_per_s_moved,"
                "fraction_of_bandwidth,bandwidth_compared,variant,visible_fraction\n");
    for (const auto& p : peaks)
        std::printf("fma_peak,,%s,%u,,,,,,,,%s,,,,,,,,,,,,,,,\n", arch_name(p.arch), p.threads, num(p.gflops).c_str());
    // The peak probes' read bandwidth: one row per thread count and probe, its GB/s in gb_per_s_moved.
    for (const auto& b : bandwidth.rows) {
        std::printf("read_bandwidth,memory,,%u,,,,,,,,,,,,,,,,,,,%s,,,,\n", b.threads, num(b.memory_gbps).c_str());
        std::printf("read_bandwidth,in_cache,,%u,,,,,,,,,,,,,,,,,,,%s,,,,\n", b.threads, num(b.cache_gbps).c_str());
    }
    for (const auto& r : results) {
        const double g = r.c.flops() / r.timing.median * 1e-9;
        const auto peak = peak_for(peaks, r.arch, r.threads);
        const bool att = (r.c.op == Op::attention || r.c.op == Op::mha);
        const auto cpu = cpu_fraction(peaks, r);
        std::string moved = ",,";  // gb_per_s_moved, fraction_of_bandwidth, bandwidth_compared
        if (r.c.memory_bound()) {
            const double gbps = r.c.moved_bytes() / r.timing.median * 1e-9;
            bool in_cache = false;
            const auto bw = bandwidth.fair_gbps(r.threads, r.c.moved_bytes(), &in_cache);
            moved = num(gbps) + "," + (bw ? num(gbps / *bw) + "," + (in_cache ? "in cache" : "memory") : ",");
        }
        std::printf("%s,%s,%s,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", op_name(r.c.op), r.c.shape().c_str(),
                    arch_name(r.arch), r.threads, att ? (!r.c.causal ? "false" : r.c.bottom_right ? "bottom-right" : "true") : "",
                    att ? (r.c.fused ? "true" : "false") : "", num(r.timing.median).c_str(),
                    num(r.timing.min).c_str(), num(r.timing.max).c_str(), num(r.timing.mean).c_str(),
                    r.timing.times.size() > 1 ? num(r.timing.stddev).c_str() : "", r.c.flops() > 0 ? num(g).c_str() : "",
                    r.c.op == Op::softmax ? num(r.c.elements() / r.timing.median).c_str() : "",
                    r.speedup ? num(*r.speedup).c_str() : "", peak && r.c.flops() > 0 ? num(g / *peak).c_str() : "",
                    num(r.timing.user).c_str(), num(r.timing.system).c_str(), cpu ? num(*cpu).c_str() : "",
                    att ? std::string(element_type_name(r.c.kv_type)).c_str() : "", att ? (r.c.mask ? "true" : "false") : "",
                    att ? (r.c.bias ? "true" : "false") : "", r.ratio ? num(*r.ratio).c_str() : "", moved.c_str(),
                    r.c.variant().c_str(), att ? num(r.c.visible).c_str() : "");
    }
}

void print_json(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                const BandwidthReport& bandwidth, bool quick) {
    std::printf("{\n  \"machine\": {\"online_cores\": %u, \"best_arch\": \"%s\"},\n", online_cores(),
                arch_name(best_arch()));
    std::printf("  \"flops_note\": \"matmul 2*M*N*K; attention 4*B*H*Tq*Tk*d times visible_fraction (the cells a "
                "query may see: about half when causal); mha adds 2*B*Tq*E*H*d + 2*B*Tk*E*2*G*d + 2*B*Tq*H*d*E "
                "(E = H*d)\",\n");
    std::printf("  \"limits\": \"%s\",\n", quick ? "quick" : "full");
    std::printf("  \"peak\": [");
    for (std::size_t i = 0; i < peaks.size(); ++i)
        std::printf("%s\n    {\"arch\": \"%s\", \"threads\": %u, \"gflops\": %s, \"gflops_per_cpu_second\": %s, "
                    "\"exps_per_second\": %s}",
                    i ? "," : "", arch_name(peaks[i].arch), peaks[i].threads, num(peaks[i].gflops).c_str(),
                    num(peaks[i].cpu_gflops).c_str(), num(peaks[i].exps_per_second).c_str());
    std::printf("%s],\n", peaks.empty() ? "" : "\n  ");
    if (!bandwidth.rows.empty()) {
        std::printf("  \"last_level_cache_bytes\": %zu, \"memory_probe_bytes\": %zu, \"cache_probe_bytes\": %zu,\n",
                    bandwidth.llc_bytes, bandwidth.memory_bytes, bandwidth.cache_bytes);
        std::printf("  \"read_bandwidth\": [");
        for (std::size_t i = 0; i < bandwidth.rows.size(); ++i)
            std::printf("%s\n    {\"threads\": %u, \"gb_per_s\": %s, \"in_cache_gb_per_s\": %s}", i ? "," : "",
                        bandwidth.rows[i].threads, num(bandwidth.rows[i].memory_gbps).c_str(),
                        num(bandwidth.rows[i].cache_gbps).c_str());
        std::printf("\n  ],\n");
    }
    std::printf("  \"results\": [");
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        const double g = r.c.flops() / r.timing.median * 1e-9;
        std::string command = std::string(op_name(r.c.op)) + " " + r.c.shape();
        if ((r.c.op == Op::attention || r.c.op == Op::mha))
            command += std::string(!r.c.causal ? "" : r.c.bottom_right ? " causal bottom-right" : " causal") +
                       (r.c.fused ? " fused" : " materialized") +
                       (r.c.kv_type != ElementType::f32 ? " " + std::string(element_type_name(r.c.kv_type)) : "") +
                       (r.c.mask ? " mask" : "") + (r.c.bias ? " bias" : "") +
                       (r.c.variant().empty() ? "" : " " + r.c.variant());
        std::printf("%s\n    {\"command\": \"%s\", \"op\": \"%s\", \"shape\": \"%s\", \"arch\": \"%s\", \"threads\": %u,",
                    i ? "," : "", command.c_str(), op_name(r.c.op), r.c.shape().c_str(), arch_name(r.arch), r.threads);
        if ((r.c.op == Op::attention || r.c.op == Op::mha))
            std::printf(" \"causal\": %s, \"fused\": %s, \"kv_dtype\": \"%s\", \"mask\": %s, \"bias\": %s,"
                        " \"variant\": \"%s\", \"visible_fraction\": %s,",
                        !r.c.causal ? "false" : r.c.bottom_right ? "\"bottom-right\"" : "true", r.c.fused ? "true" : "false",
                        std::string(element_type_name(r.c.kv_type)).c_str(), r.c.mask ? "true" : "false",
                        r.c.bias ? "true" : "false", r.c.variant().c_str(), num(r.c.visible).c_str());
        std::printf("\n     \"mean\": %s, \"stddev\": %s, \"median\": %s, \"user\": %s, \"system\": %s, "
                    "\"min\": %s, \"max\": %s,",
                    num(r.timing.mean).c_str(),
                    r.timing.times.size() > 1 ? num(r.timing.stddev).c_str() : "null",  // none of one run, as hyperfine
                    num(r.timing.median).c_str(), num(r.timing.user).c_str(), num(r.timing.system).c_str(), num(r.timing.min).c_str(),
                    num(r.timing.max).c_str());
        std::printf("\n     \"gflops\": %s,", r.c.flops() > 0 ? num(g).c_str() : "null");
        if (r.c.op == Op::softmax) std::printf(" \"elements_per_s\": %s,", num(r.c.elements() / r.timing.median).c_str());
        std::printf(" \"speedup_vs_scalar\": %s,", r.speedup ? num(*r.speedup).c_str() : "null");
        if (r.ratio) std::printf(" \"ratio_to_first_of_shape\": %s,", num(*r.ratio).c_str());
        const auto peak = peak_for(peaks, r.arch, r.threads);
        if (peak && r.c.flops() > 0) std::printf(" \"fraction_of_peak\": %s,", num(g / *peak).c_str());
        if (const auto cpu = cpu_fraction(peaks, r)) std::printf(" \"fraction_of_peak_cpu\": %s,", num(*cpu).c_str());
        if (r.c.memory_bound()) {
            const double gbps = r.c.moved_bytes() / r.timing.median * 1e-9;
            std::printf(" \"gb_per_s_moved\": %s,", num(gbps).c_str());
            bool in_cache = false;
            if (const auto bw = bandwidth.fair_gbps(r.threads, r.c.moved_bytes(), &in_cache))
                std::printf(" \"fraction_of_bandwidth\": %s, \"bandwidth_compared\": \"%s\",", num(gbps / *bw).c_str(),
                            in_cache ? "in cache" : "memory");
        }
        std::printf("\n     \"times\": [");
        for (std::size_t t = 0; t < r.timing.times.size(); ++t)
            std::printf("%s%s", t ? ", " : "", num(r.timing.times[t]).c_str());
        std::printf("]}");
    }
    std::printf("%s]\n}\n", results.empty() ? "" : "\n  ");
}

}  // namespace attn::bench
