// The finite scans (src/finite_scan.hpp) against std::isfinite / std::isnan / std::isinf, one
// special value at every position of buffers around the 64-element block (tails included),
// misaligned too.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attn/half.hpp"
#include "finite_scan.hpp"

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("finite scans: float32, each special value anywhere, as the <cmath> tests say") {
    const float specials[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::quiet_NaN(), std::bit_cast<float>(0x7f800001u),
                              std::bit_cast<float>(0xff800001u), std::numeric_limits<float>::max(),
                              -std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(), -0.0f};
    std::size_t cases = 0;
    for (std::size_t n : {1, 63, 64, 65, 130, 200})
        for (std::size_t offset : {0, 1}) {  // the data misaligned by one float
            std::vector<float> buffer(n + 1, 0.5f);
            float* data = buffer.data() + offset;
            for (const float special : specials)
                for (std::size_t at = 0; at < n; ++at) {
                    std::vector<float> copy(buffer);
                    float* x = copy.data() + offset;
                    x[at] = special;
                    INFO("n " << n << " offset " << offset << " at " << at << " bits "
                              << std::bit_cast<std::uint32_t>(special));
                    CHECK(attn::any_nonfinite_f32(x, n) == !std::isfinite(special));
                    CHECK(attn::any_nan_or_pos_inf_f32(x, n) == (std::isnan(special) || special == inf));
                    // Not seen past count.
                    CHECK_FALSE(attn::any_nonfinite_f32(x, at));
                    ++cases;
                }
            CHECK_FALSE(attn::any_nonfinite_f32(data, n));
            CHECK_FALSE(attn::any_nan_or_pos_inf_f32(data, n));
        }
    CHECK(cases > 1000);
}

TEST_CASE("finite scans: float16, each special value anywhere") {
    const std::uint16_t specials[] = {0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7bff, 0xfbff, 0x0001, 0x8000};
    for (std::size_t n : {1, 63, 64, 65, 130})
        for (const std::uint16_t special : specials)
            for (std::size_t at = 0; at < n; ++at) {
                std::vector<std::uint16_t> x(n, 0x3c00);  // 1.0
                x[at] = special;
                INFO("n " << n << " at " << at << " bits " << special);
                CHECK(attn::any_nonfinite_f16(x.data(), n) == !std::isfinite(attn::half_to_float(special)));
            }
}
