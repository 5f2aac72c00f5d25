// The finite scans (kernels/finite_scan_impl.hpp) of every kernel set this machine runs,
// against std::isfinite / std::isnan / std::isinf: one special value at every position of
// buffers around the vector steps (4 vectors of up to 32 lanes) and the scalar kernel's
// 64-element block, tails included, misaligned too; and src/tensor/finite_scan.hpp's dispatch.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attn/half.hpp"
#include "tensor/finite_scan.hpp"
#include "arch/kernel_table.hpp"
#include "tensor_test_util.hpp"

using test_util::ArchGuard;
using test_util::supported_arches;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
const std::size_t lengths[] = {1, 15, 16, 17, 63, 64, 65, 130, 200, 257, 300};

}  // namespace

TEST_CASE("finite scans: float32, each special value anywhere, as the <cmath> tests say") {
    const float specials[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::quiet_NaN(), std::bit_cast<float>(0x7f800001u),
                              std::bit_cast<float>(0xff800001u), std::numeric_limits<float>::max(),
                              -std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(), -0.0f};
    for (const attn::Arch arch : supported_arches()) {
        const auto& k = attn::kernels::table_of(arch);
        std::size_t cases = 0;
        for (std::size_t n : lengths)
            for (std::size_t offset : {0, 1}) {  // the data misaligned by one float
                std::vector<float> buffer(n + 1, 0.5f);
                for (const float special : specials)
                    for (std::size_t at = 0; at < n; ++at) {
                        std::vector<float> copy(buffer);
                        float* x = copy.data() + offset;
                        x[at] = special;
                        INFO(std::string(attn::arch_name(arch)) << " n " << n << " offset " << offset << " at " << at << " bits "
                                                   << std::bit_cast<std::uint32_t>(special));
                        CHECK(k.any_nonfinite_f32(x, n) == !std::isfinite(special));
                        CHECK(k.any_nan_or_pos_inf_f32(x, n) == (std::isnan(special) || special == inf));
                        // Not seen past count.
                        CHECK_FALSE(k.any_nonfinite_f32(x, at));
                        CHECK_FALSE(k.any_nan_or_pos_inf_f32(x, at));
                        ++cases;
                    }
                CHECK_FALSE(k.any_nonfinite_f32(buffer.data() + offset, n));
                CHECK_FALSE(k.any_nan_or_pos_inf_f32(buffer.data() + offset, n));
            }
        CHECK(cases > 5000);
    }
}

TEST_CASE("finite scans: float16, each special value anywhere") {
    const std::uint16_t specials[] = {0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7bff, 0xfbff, 0x0001, 0x8000};
    for (const attn::Arch arch : supported_arches()) {
        const auto& k = attn::kernels::table_of(arch);
        for (std::size_t n : lengths)
            for (std::size_t offset : {0, 1}) {  // misaligned by one half
                for (const std::uint16_t special : specials)
                    for (std::size_t at = 0; at < n; ++at) {
                        std::vector<std::uint16_t> buffer(n + 1, 0x3c00);  // 1.0
                        std::uint16_t* x = buffer.data() + offset;
                        x[at] = special;
                        INFO(std::string(attn::arch_name(arch)) << " n " << n << " offset " << offset << " at " << at << " bits "
                                                   << special);
                        CHECK(k.any_nonfinite_f16(x, n) == !std::isfinite(attn::half_to_float(special)));
                        CHECK_FALSE(k.any_nonfinite_f16(x, at));
                    }
            }
    }
}

TEST_CASE("finite scans: the entry points run the active kernel set's scans") {
    ArchGuard guard;
    std::vector<float> x(100, 1.0f);
    x[97] = -inf;
    const std::vector<std::uint16_t> h(100, 0x7c00);
    for (const attn::Arch arch : supported_arches()) {
        attn::set_arch(arch);
        CHECK(attn::any_nonfinite_f32(x.data(), x.size()));
        CHECK_FALSE(attn::any_nan_or_pos_inf_f32(x.data(), x.size()));
        CHECK_FALSE(attn::any_nonfinite_f32(x.data(), 97));
        CHECK(attn::any_nonfinite_f16(h.data(), 1));
    }
}
