// A boolean attention mask packed one bit per key, as the kernels read it.
//
// A float mask (0 = masked, anything else = allowed: mask_allows below) of shape
// (…, T, Tk) becomes rows of words_per_row(Tk) 64-bit words, one row per row of the float mask
// in C order: bit j % 64 of word j / 64 of a row is set when key j is allowed. Bits past Tk
// are 0. A Tq×Tk float mask of 64 MiB at T = 4096 is 2 MiB of bits, so the kernels stream
// 32 times less mask from memory. Broadcasting stays as the float mask's: a dimension of size
// 1 serves every batch item, head or query row (attn/multihead.hpp).
//
// Pack once when a mask is read, and pass the bits (AttentionSpec::mask_bits) to every call
// that uses the same mask.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <utility>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

// The mask's rule for one entry: 0 masks the key, anything else (NaN included) allows it.
// MaskBits packs masks into bits with it; the kernels read only the bits.
inline bool mask_allows(float m) noexcept { return m != 0.0f; }

// The storage of the bits: aligned_alloc_bytes's (a large mask in 2 MiB pages), and words that
// resize() leaves unset, for the packers to zero and fill on all threads (each thread first
// touches the pages it fills).
template <class T>
struct MaskWordAllocator {
    using value_type = T;
    MaskWordAllocator() = default;
    template <class U>
    MaskWordAllocator(const MaskWordAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
        return static_cast<T*>(aligned_alloc_bytes(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t) noexcept { aligned_free_bytes(p); }
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;  // default-initialised: no zero-fill
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <class U>
    bool operator==(const MaskWordAllocator<U>&) const noexcept { return true; }
};

class MaskBits {
public:
    static constexpr std::size_t word_bits = 64;
    static constexpr std::size_t words_per_row(std::size_t keys) noexcept {
        return (keys + word_bits - 1) / word_bits;
    }

    MaskBits() = default;  // rank 0: no mask
    // The bits of a float mask of rank 1 to 4 (a rank-1 mask is one row).
    explicit MaskBits(const TensorView& mask);
    // The bits of a mask of one-byte elements in C order (a bool, uint8 or int8 .npy's data):
    // nonzero allows, or, with `zero_allows` (PyTorch's attn_mask and key_padding_mask, True =
    // not allowed), zero does. Packed by all threads, with no float copy; `consumed` (if set)
    // is told each byte range [begin, end) once its bits are packed (a mapped file's pages can
    // then be dropped: the peak memory stays near the bits').
    MaskBits(const Shape& shape, const unsigned char* bytes, bool zero_allows = false,
             const std::function<void(std::size_t, std::size_t)>& consumed = {});
    // Packs rows [r0, r1) of a mask into `words` (zeroed, row_words() words per row, row r0's
    // first): bit j % 64 of word j / 64 set when key j is allowed.
    using PackRows = std::function<void(std::size_t r0, std::size_t r1, std::uint64_t* words)>;
    // The bits of a mask of `shape` (rank 1 to 4) from any source: blocks of rows_per_block
    // rows, each packed once by one call of `pack`, on all threads.
    MaskBits(const Shape& shape, std::size_t rows_per_block, const PackRows& pack);
    // Bits already packed: row_words() words per row, rows in C order, bits past Tk 0.
    MaskBits(const Shape& shape, const std::vector<std::uint64_t>& words);

    // A key allowed by both masks, broadcast as torch.matmul broadcasts (their last dimensions,
    // the keys, equal; every other equal or 1; the shorter shape padded with 1 in front).
    // InputError naming both shapes when they do not broadcast.
    static MaskBits both(const MaskBits& a, const MaskBits& b);
    // The same bits under another shape of as many rows (a (B, Tk) mask as (B, 1, 1, Tk)).
    MaskBits reshaped(const Shape& shape) const;
    // Every key's bit flipped (the other polarity: PyTorch's True = not allowed).
    MaskBits inverted() const;

    const Shape& shape() const noexcept { return shape_; }  // the float mask's shape
    std::size_t rank() const noexcept { return shape_.rank(); }
    std::size_t keys() const noexcept { return shape_.back(1); }
    std::size_t row_words() const noexcept { return words_per_row(keys()); }
    std::size_t rows() const noexcept { return row_words() ? words_.size() / row_words() : 0; }
    // Row r in C order over every dimension but the last.
    const std::uint64_t* row(std::size_t r) const noexcept { return words_.data() + r * row_words(); }
    const std::uint64_t* data() const noexcept { return words_.data(); }
    bool allowed(std::size_t r, std::size_t j) const noexcept {
        return (row(r)[j / word_bits] >> (j % word_bits)) & 1u;
    }

private:
    Shape shape_;
    std::vector<std::uint64_t, MaskWordAllocator<std::uint64_t>> words_;
};

// The words of n float mask entries (n <= 64), bit j set when mask[j] is allowed.
std::uint64_t pack_mask_word(const float* mask, std::size_t n) noexcept;
// The word of n <= 64 bytes, bit j set when bytes[j] is nonzero: eight bytes at a time.
std::uint64_t pack_byte_word(const unsigned char* bytes, std::size_t n) noexcept;
// The words of `rows` rows of `keys` one-byte entries in C order (MaskBits's byte constructor):
// bit j of a row set when its byte j is nonzero, or with `zero_allows` when it is zero.
void pack_byte_rows(const unsigned char* bytes, std::size_t rows, std::size_t keys, bool zero_allows,
                    std::uint64_t* words) noexcept;

}  // namespace attn
