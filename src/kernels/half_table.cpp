// The table of every float16 value as float32 (half_table.hpp).
#include "kernels/half_table.hpp"

#include "kernels/float16.hpp"

namespace attn::kernels {
namespace {

constexpr std::array<float, 65536> every_half_as_float() {
    std::array<float, 65536> t{};
    for (std::uint32_t h = 0; h < t.size(); ++h) t[h] = half_to_float(std::uint16_t(h));
    return t;
}

}  // namespace

constinit const std::array<float, 65536> half_floats = every_half_as_float();

}  // namespace attn::kernels
