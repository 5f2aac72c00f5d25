#include "kernels/masked_rows.hpp"

#include <cstdint>

#include "kernels/kv_elements.hpp"

namespace attn::kernels {

void mean_of_v(const void* V, ElementType type, std::size_t Tk, std::size_t dv, std::size_t ldv, float* out) {
    // Column blocks summed in doubles on the stack, each over every key in order.
    constexpr std::size_t block = 64;
    for (std::size_t c0 = 0; c0 < dv; c0 += block) {
        const std::size_t n = std::min(block, dv - c0);
        double sum[block] = {};
        with_element_type(type, [&](auto e) {
            const auto rows = kv_begin<decltype(e)>(V);
            for (std::size_t j = 0; j < Tk; ++j) {
                const auto row = rows + j * ldv + c0;
                for (std::size_t c = 0; c < n; ++c) sum[c] += widen(row[c]);
            }
        });
        for (std::size_t c = 0; c < n; ++c) out[c0 + c] = float(sum[c] / double(Tk));
    }
}

}  // namespace attn::kernels
