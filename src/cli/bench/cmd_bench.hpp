// attn bench, shared between its files: the reports (cmd_bench_report.cpp); cmd_bench.cpp
// parses the options and runs the cases (bench/bench.hpp: the cases, the clock, the FMA
// peaks and the read bandwidth).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attn/ops.hpp"
#include "bench/bench.hpp"

namespace attn::cli::bench {

// The cases and the measurements: bench/bench.hpp.
using namespace attn::bench;

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

std::string num(double v, const char* fmt = "%.6g");
void print_table(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                 const BandwidthReport& bandwidth);
void print_csv(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                 const BandwidthReport& bandwidth);
void print_json(const std::vector<Result>& results, const std::vector<Peak>& peaks,
                 const BandwidthReport& bandwidth);

}  // namespace attn::cli::bench
