// The vectorized exp of every supported arch against std::exp in double, over the whole
// float range (every 61st bit pattern: an odd stride reaches every exponent and low-order
// mantissa bits), plus the special values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "arch_kernels.hpp"

namespace {

using test_util::ulp_error;
const auto from_bits = test_util::float_from_bits;

}  // namespace

TEST_CASE("exp: error against std::exp over the float range, per arch") {
    constexpr float inf = std::numeric_limits<float>::infinity();
    const std::uint64_t stride = test_util::sweep_stride(61), chunk = 1 << 16;
    const auto arches = attn::test::supported_arch_kernels();
    std::vector<float> x(chunk), y(chunk);
    std::vector<double> worst_in_range(arches.size(), 0.0), worst_subnormal(arches.size(), 0.0);
    std::vector<std::size_t> bad_special(arches.size(), 0);
    for (std::uint64_t start = 0; start < (std::uint64_t(1) << 32); start += stride * chunk) {
        std::size_t n = 0;
        for (std::uint64_t b = start; b < (std::uint64_t(1) << 32) && n < chunk; b += stride) x[n++] = from_bits(std::uint32_t(b));
        for (std::size_t a = 0; a < arches.size(); ++a) {
            arches[a].exp(x.data(), y.data(), n);
            for (std::size_t i = 0; i < n; ++i) {
                const float xi = x[i], yi = y[i];
                if (std::isnan(xi)) {
                    bad_special[a] += !std::isnan(yi);
                } else if (xi <= -88.0f) {
                    bad_special[a] += !(yi == 0.0f && !std::signbit(yi));  // exactly +0
                } else if (xi > 88.7229f) {
                    bad_special[a] += yi != inf;
                } else if (xi < -87.0f) {  // results in or near the subnormal range
                    worst_subnormal[a] = std::max(worst_subnormal[a], ulp_error(yi, std::exp(double(xi))));
                } else if (xi <= 88.0f) {
                    const double e = std::isfinite(yi) ? ulp_error(yi, std::exp(double(xi))) : 1e30;
                    worst_in_range[a] = std::max(worst_in_range[a], e);
                } else {  // (88, 88.7229]: finite, close to FLT_MAX
                    const double exact = std::exp(double(xi));
                    const double e = std::isfinite(yi) ? ulp_error(yi, exact) : (exact > 3.4028e38 ? 0.0 : 1e30);
                    worst_in_range[a] = std::max(worst_in_range[a], e);
                }
            }
        }
    }
    for (std::size_t a = 0; a < arches.size(); ++a) {
        INFO("arch " << std::string(arches[a].name));
        MESSAGE("exp max error on [-87, 88.72] for " << std::string(arches[a].name) << ": " << worst_in_range[a]
                                                     << " ULP; (-88, -87): " << worst_subnormal[a] << " ULP");
        CHECK(bad_special[a] == 0);
        CHECK(worst_in_range[a] <= 2.0);
        CHECK(worst_subnormal[a] <= 2.0);
    }
}

TEST_CASE("exp: special values and awkward lengths, per arch") {
    constexpr float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        const std::vector<float> special = {-inf, -1e30f, -88.0f, -87.999f, 0.0f, -0.0f, 1.0f, 88.0f, 88.8f, 1e30f, inf, nan};
        std::vector<float> out(special.size());
        k.exp(special.data(), out.data(), special.size());
        CHECK(out[0] == 0.0f);
        CHECK(out[1] == 0.0f);
        CHECK(out[2] == 0.0f);
        CHECK(out[3] > 0.0f);  // exp(−87.999) ≈ 6.1e−39: subnormal, not flushed
        CHECK(out[4] == 1.0f);
        CHECK(out[5] == 1.0f);
        CHECK(out[6] == doctest::Approx(2.718281828).epsilon(1e-7));
        CHECK(std::isfinite(out[7]));
        CHECK(out[8] == inf);
        CHECK(out[9] == inf);
        CHECK(out[10] == inf);
        CHECK(std::isnan(out[11]));
        // Every length up to several vectors: the tail is computed and nothing past n is written.
        for (std::size_t n : {std::size_t(1), k.lanes - 1, k.lanes, k.lanes + 1, 4 * k.lanes + 3}) {
            if (n == 0) continue;
            std::vector<float> xs(n), ys(n + 1, 42.0f);
            for (std::size_t i = 0; i < n; ++i) xs[i] = -3.0f + 0.37f * float(i);
            k.exp(xs.data(), ys.data(), n);
            for (std::size_t i = 0; i < n; ++i) CHECK(ys[i] == doctest::Approx(std::exp(double(xs[i]))).epsilon(3e-7));
            CHECK(ys[n] == 42.0f);
        }
    }
}

TEST_CASE("exp: bench's exp probe computes the fused kernel's exponential, per arch") {
    // exp_probe runs softmax_weight (max 0) over x_i = −20·i/1024 and returns y[512]·seed = e^−10·seed.
    for (const auto& k : attn::test::supported_arch_kernels()) {
        if (!k.exp_probe) continue;  // scalar: no probe
        INFO("arch " << std::string(k.name));
        CHECK(k.exp_probe(3, 2.0f) == doctest::Approx(2.0 * std::exp(-10.0)).epsilon(3e-7));
    }
}

// The online softmax's weights (kernels/exp.hpp's softmax_weight): 2^y, y = (x − m)·log2e in
// float. Two checks per arch: the 2^y part against std::exp2 in double of that y, in ULP; and the
// whole against std::exp(x − m) in double, whose bound adds the exponent's roundings (x − m's
// and y's, 2^−24 of each, and log2e's float, 1.3e−8·|x − m|·log2 e: ln 2 times those relative).
// The max's own weight is exactly 1, at any m. And the same bits on every arch with a fused
// multiply-add: every row of arches.def but the fake sse4.2 one of the test build (two roundings).
TEST_CASE("exp: the online softmax's base-2 weights, per arch") {
    constexpr float inf = std::numeric_limits<float>::infinity();
    constexpr float log2e = 1.44269504088896341f;
    const auto arches = attn::test::supported_arch_kernels();
    std::vector<float> x;
    for (std::uint32_t b = 0; b < (1u << 31); b += 4099) {  // x − m over [−90, 0]: every 4099th float below 0
        const float d = -from_bits(b);
        if (d >= -90.0f) x.push_back(d);
    }
    const std::vector<float> ms = {0.0f, 3.7f, -251.3f, 1.0e4f, 5.0e9f, -1.0e20f};
    std::vector<float> first_fused;  // the first fused arch's results
    for (const auto& k : arches) {
        if (!k.softmax_weights) continue;  // scalar: no base-2 weights
        INFO("arch " << std::string(k.name));
        double worst_exp2 = 0.0, worst_rel = 0.0;
        std::size_t bad = 0;
        std::vector<float> results;
        for (float m : ms) {
            std::vector<float> xs(x.size()), y(x.size() + 1, 42.0f);
            for (std::size_t i = 0; i < x.size(); ++i) xs[i] = x[i] + m;
            k.softmax_weights(xs.data(), m, y.data(), xs.size());
            bad += y[x.size()] != 42.0f;  // nothing past n written
            for (std::size_t i = 0; i < xs.size(); ++i) {
                const float t = xs[i] - m, e2 = t * log2e;
                if (e2 < -126.0f) {  // below the least normal float: exactly 0
                    bad += !(y[i] == 0.0f && !std::signbit(y[i]));  // exactly +0
                    continue;
                }
                worst_exp2 = std::max(worst_exp2, ulp_error(y[i], std::exp2(double(e2))));
                const double d = double(xs[i]) - double(m), exact = std::exp(d);
                const double bound = 1.1 * (0x1p-23 + 0x1p-24 * (std::fabs(d) + std::fabs(e2) * 0.6931472) + 1.4e-8 * std::fabs(d));
                worst_rel = std::max(worst_rel, std::fabs(y[i] - exact) / exact / bound);
            }
            results.insert(results.end(), y.begin(), y.end());
        }
        MESSAGE("softmax weights for " << std::string(k.name) << ": 2^y at most " << worst_exp2
                                       << " ULP; e^(x - m) at " << worst_rel << " of its bound");
        CHECK(bad == 0);
        CHECK(worst_exp2 <= 1.25);
        CHECK(worst_rel <= 1.0);
        if (std::string(k.name) != "fake") {
            if (first_fused.empty()) first_fused = results;
            CHECK(std::memcmp(results.data(), first_fused.data(), results.size() * sizeof(float)) == 0);
        }
        // −inf and NaN, the max itself, and a length that is not a multiple of the lanes.
        const std::vector<float> special = {-inf, std::numeric_limits<float>::quiet_NaN(), 2.5f, 2.5f - 87.0f, -1e30f, 2.5f};
        std::vector<float> out(special.size());
        k.softmax_weights(special.data(), 2.5f, out.data(), special.size());
        CHECK(out[0] == 0.0f);
        CHECK(std::isnan(out[1]));
        CHECK(out[2] == 1.0f);  // the max: exactly 1
        CHECK(out[3] == doctest::Approx(std::exp(-87.0)).epsilon(1e-6));
        CHECK(out[4] == 0.0f);
    }
}
