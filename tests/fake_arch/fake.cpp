// The fake arch's translation unit: the table's fake row (src/arch/arches.def, defined under
// ATTN_FAKE_ARCH) instantiates every templated kernel for a narrower xsimd tag than any real
// row, sse4_2 (4 lanes, no FMA). Built only into the ASan build (`make test-sanitize`,
// `make test-fake-arch`), which shows that adding an arch is one row in the table plus one file
// like this one. A real arch would put its tuning (the blockings below) and its float16
// widening next to the other arches' in the kernel headers; here they stay in the test.
#include <bit>
#include <cstdint>

#include "arch/kernel_set_of.hpp"

namespace attn::kernels {

// 16 xmm registers, as AVX2's 16 ymm: the same register blocking.
template <>
struct GemmBlocking<xsimd::sse4_2> {
    static constexpr std::size_t MR = 6, NV = 2, KC = 256, NC = 384;
};

namespace attention_impl {
namespace {
template <>
struct FlashBlocking<xsimd::sse4_2> {
    static constexpr std::size_t R = 6, NV = 2, BC = 128, G = 8;
};

// SSE4.2 has no float16 conversion: widen the 4 halves one at a time (exact: every float16
// is a float32).
template <>
struct Halves<xsimd::sse4_2> {
    static float widen(std::uint16_t h) {
        const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
        if (exp == 0) return std::bit_cast<float>(sign) + (sign ? -1.0f : 1.0f) * float(man) * 0x1p-24f;
        if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
        return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
    }
    static vfloat<xsimd::sse4_2> load(const std::uint16_t* p) {
        alignas(16) const float f[4] = {widen(p[0]), widen(p[1]), widen(p[2]), widen(p[3])};
        return vfloat<xsimd::sse4_2>::load_aligned(f);
    }
};
}  // namespace
}  // namespace attention_impl

constinit const KernelSet fake_kernel_set = arch_table::kernel_set_of<arch_table::row::fake>();

}  // namespace attn::kernels
