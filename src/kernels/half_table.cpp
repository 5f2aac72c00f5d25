// The table of every float16 value as float32 (half_table.hpp).
#include "kernels/half_table.hpp"

#include <cstddef>
#include <cstdint>

#include "kernels/float16.hpp"

namespace attn::kernels {
namespace {

// A quarter of the table per constant evaluation: clang allows one about 2^20 steps, and the
// whole table in one takes some 1.4 million (GCC's limits are far higher).
constexpr std::size_t quarter = 16384;
struct Quarter {
    float value[quarter];
};
template <std::uint32_t First>
constexpr Quarter halves_from() {
    Quarter t{};
    for (std::uint32_t i = 0; i < quarter; ++i) t.value[i] = half_to_float(std::uint16_t(First + i));
    return t;
}
constexpr Quarter q0 = halves_from<0>(), q1 = halves_from<quarter>(), q2 = halves_from<2 * quarter>(),
                  q3 = halves_from<3 * quarter>();

constexpr HalfTable every_half_as_float() {
    HalfTable t{};
    const Quarter* quarters[4] = {&q0, &q1, &q2, &q3};
    for (std::size_t h = 0; h < 65536; ++h) t.value[h] = quarters[h / quarter]->value[h % quarter];
    return t;
}

}  // namespace

constinit const HalfTable half_floats = every_half_as_float();

}  // namespace attn::kernels
