// The vectorized tanh (kernels/tanh.hpp) of every supported arch, and the scalar one, against
// std::tanh in double over the whole float range (every 61st bit pattern: an odd stride
// reaches every exponent and low-order mantissa bits), plus the special values.
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

TEST_CASE("tanh: error against std::tanh over the float range, per arch") {
    const std::uint64_t stride = test_util::sweep_stride(61), chunk = 1 << 16;
    const auto arches = attn::test::supported_arch_kernels();
    std::vector<float> x(chunk), y(chunk);
    std::vector<double> worst(arches.size(), 0.0);
    std::vector<std::size_t> bad(arches.size(), 0);
    for (std::uint64_t start = 0; start < (std::uint64_t(1) << 32); start += stride * chunk) {
        std::size_t n = 0;
        for (std::uint64_t b = start; b < (std::uint64_t(1) << 32) && n < chunk; b += stride) x[n++] = from_bits(std::uint32_t(b));
        for (std::size_t a = 0; a < arches.size(); ++a) {
            arches[a].tanh(x.data(), y.data(), n);
            for (std::size_t i = 0; i < n; ++i) {
                if (std::isnan(x[i])) {
                    bad[a] += !std::isnan(y[i]);
                    continue;
                }
                const double exact = std::tanh(double(x[i]));
                worst[a] = std::max(worst[a], std::isfinite(y[i]) ? ulp_error(y[i], exact) : 1e30);
                bad[a] += std::fabs(y[i]) > 1.0f || std::signbit(y[i]) != std::signbit(x[i]);  // odd, in [-1, 1]
            }
        }
    }
    for (std::size_t a = 0; a < arches.size(); ++a) {
        INFO("arch " << std::string(arches[a].name));
        MESSAGE("tanh max error for " << std::string(arches[a].name) << ": " << worst[a] << " ULP");
        CHECK(bad[a] == 0);
        CHECK(worst[a] <= 7.0);
    }
}

TEST_CASE("tanh: special values, the branch edge and awkward lengths, per arch") {
    constexpr float inf = std::numeric_limits<float>::infinity();
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        const std::vector<float> xs = {0.0f, -0.0f, inf, -inf, 9.0f, -9.0f, 1e30f, -1e30f, 0.625f, -0.625f,
                                       std::nextafter(0.625f, 0.0f), 1e-40f, -1e-40f, 20.0f,
                                       std::numeric_limits<float>::quiet_NaN()};
        std::vector<float> ys(xs.size());
        k.tanh(xs.data(), ys.data(), xs.size());
        CHECK(ys[0] == 0.0f);
        CHECK(!std::signbit(ys[0]));
        CHECK(ys[1] == 0.0f);
        CHECK(std::signbit(ys[1]));
        for (std::size_t i : {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})  // ±inf: ±1 within the bound
            CHECK(ulp_error(ys[i], std::tanh(double(xs[i]))) <= 7.0);
        CHECK(std::isnan(ys[14]));
        // Every length up to three vectors: the tails write only their n values.
        for (std::size_t n = 0; n <= 3 * k.lanes + 1; ++n) {
            std::vector<float> in(n), out(n + 1, 7.0f);
            for (std::size_t i = 0; i < n; ++i) in[i] = -4.0f + 0.37f * float(i);
            k.tanh(in.data(), out.data(), n);
            for (std::size_t i = 0; i < n; ++i) CHECK(ulp_error(out[i], std::tanh(double(in[i]))) <= 7.0);
            CHECK(out[n] == 7.0f);
        }
    }
}
