// IEEE half precision and bfloat16 to float32, exactly (every value of both is a float32):
// the one definition the readers (npy, safetensors), the library (attn::half_to_float) and
// the scalar kernels use. In an anonymous namespace: an inline function compiled into a
// per-arch TU with its ISA flags could be the copy the linker keeps for every caller
// (design notes §2); internal linkage gives each TU its own.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace attn::kernels {
namespace {

inline float half_to_float(std::uint16_t h) noexcept {
    const bool negative = h & 0x8000;
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    float v;
    if (exponent == 0) v = std::ldexp(float(mantissa), -24);
    else if (exponent == 31) v = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else v = std::ldexp(float(mantissa | 0x400), exponent - 25);
    return negative ? -v : v;
}

// bfloat16 is the top half of a float32.
inline float bfloat16_to_float(std::uint16_t b) noexcept { return std::bit_cast<float>(std::uint32_t(b) << 16); }

}  // namespace
}  // namespace attn::kernels
