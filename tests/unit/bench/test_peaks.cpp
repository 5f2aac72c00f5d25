// bench's FMA peaks: the peak a result is read against, and probing again when a result ran
// faster than its probe (a probe slowed by other work on a shared machine).
#include <doctest/doctest.h>

#include "attn/runtime.hpp"
#include "bench/bench.hpp"

using namespace attn;
using namespace attn::bench;

TEST_CASE("peak_for: the best probe of that many threads or fewer") {
    const Arch a = Arch(1), b = Arch(2);  // two arches of the table (their names do not matter here)
    const std::vector<Peak> peaks{{a, 1, 120.0, 118.0}, {a, 2, 110.0, 60.0}, {b, 2, 300.0, 150.0}};
    CHECK(peak_for(peaks, a, 1).value() == 120.0);
    CHECK(peak_for(peaks, a, 2).value() == 120.0);  // two threads never deliver less than one
    CHECK(peak_for(peaks, b, 2).value() == 300.0);
    CHECK_FALSE(peak_for(peaks, b, 1).has_value());
    CHECK_FALSE(peak_for(peaks, Arch::scalar, 2).has_value());
}

TEST_CASE("probe_peaks_again: a case faster than its peak has that peak probed again") {
    const Arch arch = current_arch();
    if (measure_peak_quickly(arch, 1).empty()) return;  // no FMA probe (the scalar kernels)
    // A matmul of 2·64³ flop timed at 1 µs: 524 GFLOP/s, beyond any probe of one thread here,
    // against a peak of 1e-6 GFLOP/s, far below any probe (even under emulation, where NEON's
    // runs at about 1): the probe runs again, raising the peak to what it measures, and the
    // case stays above it.
    Case c{Op::matmul};
    c.m = c.n = c.k = 64;
    Timing t;
    t.median = 1e-6;
    std::vector<Peak> peaks{{arch, 1, 1e-6, 1e-6}};
    CHECK_FALSE(probe_peaks_again(peaks, {Result{c, arch, 1, t, std::nullopt, std::nullopt}}));
    CHECK(peaks[0].gflops > 1e-6);
    // A case well within its peak leaves it alone.
    const double probed = peaks[0].gflops;
    t.median = 1000.0;  // 5.2e-7 GFLOP/s
    CHECK(probe_peaks_again(peaks, {Result{c, arch, 1, t, std::nullopt, std::nullopt}}));
    CHECK(peaks[0].gflops == probed);
}
