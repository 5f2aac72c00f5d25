// Packing a float mask into bits (attn/mask_bits.hpp), compiled for the baseline ISA.
#include "attn/mask_bits.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "attn/error.hpp"
#include "runtime/parallel.hpp"

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

std::uint64_t pack_byte_word(const unsigned char* bytes, std::size_t n) noexcept {
    static_assert(std::endian::native == std::endian::little, "byte j of a loaded word is bits 8j to 8j + 7");
    constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7fu, ones = 0x0101010101010101u;
    std::uint64_t word = 0;
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        std::uint64_t x;
        std::memcpy(&x, bytes + j, 8);
        // Each byte's top bit set when it is nonzero (its low seven bits carry into it, never
        // beyond: 0x7f + 0x7f < 0x100), moved to the byte's bottom bit...
        x = ((((x & low7) + low7) | x) >> 7) & ones;
        // ... and byte k's bit to bit 56 + k by one multiplication (no two partial products
        // meet there), then to bit j + k.
        word |= ((x * 0x0102040810204080u) >> 56) << j;
    }
    for (; j < n; ++j) word |= std::uint64_t(bytes[j] != 0) << j;
    return word;
}

MaskBits::MaskBits(const Shape& shape, std::size_t rows_per_block, const PackRows& pack) : shape_(shape) {
    if (shape.rank() == 0) return;
    const std::size_t n = row_words(), rows = shape.numel() / keys();
    words_.resize(rows * n);  // unset (MaskWordAllocator): zeroed below by the thread that packs them
    rows_per_block = std::max<std::size_t>(rows_per_block, 1);
    parallel_for((rows + rows_per_block - 1) / rows_per_block, [&](std::size_t block) {
        const std::size_t r0 = block * rows_per_block, r1 = std::min(rows, r0 + rows_per_block);
        std::fill(words_.data() + r0 * n, words_.data() + r1 * n, std::uint64_t(0));
        pack(r0, r1, words_.data() + r0 * n);
    });
}

MaskBits::MaskBits(const Shape& shape, const std::vector<std::uint64_t>& words)
    : shape_(shape), words_(words.begin(), words.end()) {
    if (shape.rank() && words_.size() != shape.numel() / keys() * row_words())
        throw std::logic_error("MaskBits: " + std::to_string(words_.size()) + " words for a mask of shape " +
                               shape.text());
}

MaskBits::MaskBits(const Shape& shape, const unsigned char* bytes, bool zero_allows,
                   const std::function<void(std::size_t, std::size_t)>& consumed)
    : MaskBits(shape, 256, [&](std::size_t r0, std::size_t r1, std::uint64_t* words) {
          const std::size_t Tk = shape.back(1);
          pack_byte_rows(bytes + r0 * Tk, r1 - r0, Tk, zero_allows, words);
          if (consumed) consumed(r0 * Tk, r1 * Tk);
      }) {}

void pack_byte_rows(const unsigned char* bytes, std::size_t rows, std::size_t keys, bool zero_allows,
                    std::uint64_t* words) noexcept {
    constexpr std::size_t word_bits = MaskBits::word_bits;
    const std::size_t n = MaskBits::words_per_row(keys);
    for (std::size_t r = 0; r < rows; ++r) {
        const unsigned char* in = bytes + r * keys;
        std::uint64_t* out = words + r * n;
        for (std::size_t w = 0; w < n; ++w) {
            const std::size_t count = std::min(word_bits, keys - w * word_bits);
            const std::uint64_t valid = count == word_bits ? ~std::uint64_t(0) : (std::uint64_t(1) << count) - 1;
            const std::uint64_t nonzero = pack_byte_word(in + w * word_bits, count);
            out[w] = zero_allows ? ~nonzero & valid : nonzero;
        }
    }
}

MaskBits MaskBits::reshaped(const Shape& shape) const {
    MaskBits m = *this;
    m.shape_ = shape;
    return m;
}

MaskBits MaskBits::inverted() const {
    MaskBits m = *this;
    const std::size_t n = row_words(), Tk = keys();
    for (std::size_t r = 0; r < rows(); ++r)
        for (std::size_t w = 0; w < n; ++w) {
            const std::size_t valid = std::min(word_bits, Tk - w * word_bits);  // bits past Tk stay 0
            const std::uint64_t keep = valid == word_bits ? ~std::uint64_t(0) : (std::uint64_t(1) << valid) - 1;
            m.words_[r * n + w] = ~words_[r * n + w] & keep;
        }
    return m;
}

MaskBits MaskBits::both(const MaskBits& a, const MaskBits& b) {
    const std::size_t rank = std::max(a.rank(), b.rank());
    const auto dim = [&](const MaskBits& m, std::size_t d) {  // d counted in the common rank
        return d + m.rank() < rank ? std::size_t(1) : m.shape_[d + m.rank() - rank];
    };
    std::vector<std::size_t> dims(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        const std::size_t x = dim(a, d), y = dim(b, d);
        if ((x != y && x != 1 && y != 1) || (d + 1 == rank && x != y))
            throw InputError("masks " + a.shape_.text() + " and " + b.shape_.text() +
                             " do not broadcast together (each dimension equal, or 1 in one of them; the keys equal)");
        dims[d] = std::max(x, y);
    }
    MaskBits m;
    m.shape_ = Shape(dims);
    const std::size_t n = m.row_words(), rows = m.shape_.numel() / m.keys();
    m.words_.assign(rows * n, 0);
    std::vector<std::size_t> index(rank - 1);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t d = rank - 1, rest = r; d-- > 0;) index[d] = rest % dims[d], rest /= dims[d];
        std::size_t ra = 0, rb = 0;  // the rows of a and b that row r reads (0 where they broadcast)
        for (std::size_t d = 0; d + 1 < rank; ++d) {
            ra = ra * dim(a, d) + (dim(a, d) == 1 ? 0 : index[d]);
            rb = rb * dim(b, d) + (dim(b, d) == 1 ? 0 : index[d]);
        }
        for (std::size_t w = 0; w < n; ++w) m.words_[r * n + w] = a.row(ra)[w] & b.row(rb)[w];
    }
    return m;
}

}  // namespace attn
