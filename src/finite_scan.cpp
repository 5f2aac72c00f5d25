#include "finite_scan.hpp"

#include <cstdint>
#include <cstring>

namespace attn {

namespace {

// Whether bad(bits) holds for any of `count` elements of type U, in blocks of a fixed length.
template <class U, class Bad>
bool any_of_bits(const void* data, std::size_t count, Bad bad) {
    constexpr std::size_t block = 64;
    U any = 0;
    std::size_t i = 0;
    for (; i + block <= count; i += block) {
        U bits[block];
        std::memcpy(bits, static_cast<const char*>(data) + i * sizeof(U), sizeof bits);
        for (std::size_t j = 0; j < block; ++j) any |= U(bad(bits[j]));
    }
    for (; i < count; ++i) {
        U b;
        std::memcpy(&b, static_cast<const char*>(data) + i * sizeof(U), sizeof b);
        any |= U(bad(b));
    }
    return any != 0;
}

}  // namespace

bool any_nonfinite_f32(const void* data, std::size_t count) {
    return any_of_bits<std::uint32_t>(data, count, [](std::uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u; });
}

bool any_nonfinite_f16(const void* data, std::size_t count) {
    return any_of_bits<std::uint16_t>(data, count, [](std::uint16_t b) { return (b & 0x7c00u) == 0x7c00u; });
}

bool any_nan_or_pos_inf_f32(const void* data, std::size_t count) {
    // NaN: magnitude above inf's bits, either sign; +inf: exactly its bits.
    return any_of_bits<std::uint32_t>(data, count, [](std::uint32_t b) {
        return (b & 0x7fffffffu) > 0x7f800000u || b == 0x7f800000u;
    });
}

}  // namespace attn
