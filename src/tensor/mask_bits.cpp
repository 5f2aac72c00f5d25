// Packing a float mask into bits (attn/mask_bits.hpp), compiled for the baseline ISA.
#include "attn/mask_bits.hpp"

#include <algorithm>


namespace attn {

std::uint64_t pack_mask_word(const float* mask, std::size_t n) noexcept {
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < n; ++j) w |= std::uint64_t(mask_allows(mask[j])) << j;
    return w;
}

MaskBits::MaskBits(const TensorView& mask) : shape_(mask.shape) {
    if (mask.rank() == 0) return;  // no mask: no rows
    const std::size_t n = row_words(), Tk = keys(), per_slice = mask.rows();
    words_.assign(mask.slices() * per_slice * n, 0);
    for (std::size_t s = 0, r = 0; s < mask.slices(); ++s) {
        const MatrixView m = mask.slice(s);
        for (std::size_t i = 0; i < per_slice; ++i, ++r) {
            std::uint64_t* out = words_.data() + r * n;
            for (std::size_t w = 0; w < n; ++w)
                out[w] = pack_mask_word(m.row(i) + w * word_bits, std::min(word_bits, Tk - w * word_bits));
        }
    }
}

}  // namespace attn
