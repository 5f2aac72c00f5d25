#include "kernels/masked_rows.hpp"

#include <cstdint>

#include "kernels/float16.hpp"

namespace attn::kernels {

void mean_of_v(const void* V, ElementType type, std::size_t Tk, std::size_t dv, std::size_t ldv, float* out) {
    // Column blocks summed in doubles on the stack, each over every key in order.
    constexpr std::size_t block = 64;
    for (std::size_t c0 = 0; c0 < dv; c0 += block) {
        const std::size_t n = std::min(block, dv - c0);
        double sum[block] = {};
        for (std::size_t j = 0; j < Tk; ++j) {
            if (type == ElementType::f16) {
                const auto* row = static_cast<const std::uint16_t*>(V) + j * ldv + c0;
                for (std::size_t c = 0; c < n; ++c) sum[c] += half_to_float(row[c]);
            } else {
                const float* row = static_cast<const float*>(V) + j * ldv + c0;
                for (std::size_t c = 0; c < n; ++c) sum[c] += row[c];
            }
        }
        for (std::size_t c = 0; c < n; ++c) out[c0 + c] = float(sum[c] / double(Tk));
    }
}

}  // namespace attn::kernels
