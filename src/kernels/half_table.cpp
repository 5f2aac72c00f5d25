// The table of every float16 value as float32 (half_table.hpp).
#include "kernels/half_table.hpp"

#include "kernels/float16.hpp"

namespace attn::kernels {
namespace {

// A quarter of the table per constant evaluation: clang allows one about 2^20 steps, and the
// whole table in one takes some 1.4 million (GCC's limits are far higher).
constexpr std::size_t quarter = 16384;
template <std::uint32_t First>
constexpr std::array<float, quarter> halves_from() {
    std::array<float, quarter> t{};
    for (std::uint32_t i = 0; i < quarter; ++i) t[i] = half_to_float(std::uint16_t(First + i));
    return t;
}
constexpr std::array<float, quarter> q0 = halves_from<0>(), q1 = halves_from<quarter>(), q2 = halves_from<2 * quarter>(),
                                     q3 = halves_from<3 * quarter>();

constexpr std::array<float, 65536> every_half_as_float() {
    std::array<float, 65536> t{};
    const std::array<float, quarter>* quarters[4] = {&q0, &q1, &q2, &q3};
    for (std::size_t h = 0; h < t.size(); ++h) t[h] = (*quarters[h / quarter])[h % quarter];
    return t;
}

}  // namespace

constinit const std::array<float, 65536> half_floats = every_half_as_float();

}  // namespace attn::kernels
