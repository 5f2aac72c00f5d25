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

// In bit operations, not ldexp (a library call per value: a 16 MiB float16 bias took 0.3 s).
constexpr float half_to_float(std::uint16_t h) noexcept {
    const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float v;
    if (exponent == 0) v = float(mantissa) * 0x1p-24f;  // zero and subnormals: exact
    else if (exponent == 31) v = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else v = std::bit_cast<float>(((exponent + 112) << 23) | (mantissa << 13));  // exponent bias 15 → 127
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) | sign);
}

// bfloat16 is the top half of a float32.
inline float bfloat16_to_float(std::uint16_t b) noexcept { return std::bit_cast<float>(std::uint32_t(b) << 16); }

}  // namespace
}  // namespace attn::kernels
