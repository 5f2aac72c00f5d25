// Internal to src/read: .npy files read without a copy of their data: a mapped one whose data a
// tensor can use where it lies, and a one-byte mask read in blocks straight into its bits.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "attn/half.hpp"
#include "attn/io.hpp"
#include "attn/tensor.hpp"

namespace attn::io::detail {

struct NpyInPlace {
    Shape shape;
    std::size_t data_offset = 0;  // from the start of the file
};

// The .npy in `bytes` (validated as parse_npy_tensor does, with its errors) when a Tensor
// (type f32) or a HalfTensor (f16) can adopt its data as it is: elements of that type,
// little-endian, in C order (or 1-D), starting on a 64-byte boundary of `bytes` (the file is
// mapped at a page boundary), rows that need no padding (padded_row_length, attn/matrix.hpp),
// every value one that `finite` allows (float16: every value finite). nullopt otherwise: the
// readers copy it.
std::optional<NpyInPlace> npy_in_place(std::string_view bytes, const std::string& source, std::size_t max_dims,
                                       ElementType type = ElementType::f32, Finite finite = Finite::required);

// parse_npy_tensor of `bytes` that are a read-only file mapping (`mapped`): its pages are
// dropped as they are converted, so that a float64 input and its float32 tensor do not stand
// in memory together.
Tensor parse_npy_tensor(std::string_view bytes, const std::string& source, Finite finite, std::size_t max_dims,
                        bool mapped);

// A one-byte .npy mask (bool, uint8 or int8; C order, or 1-D; rows of at most 2 MiB) in a file
// that PositionalFile opens, as parse_npy_mask of its bytes gives it (its errors too), read in
// blocks into each thread's buffer and packed there, not mapped. nullopt for any other file
// (and one whose first bytes cannot be read), which the caller reads as before.
std::optional<MaskBits> read_npy_byte_mask(const std::string& path, const std::string& source, std::size_t max_dims,
                                           const MaskRules& rules, bool* negative, bool* boolean);

}  // namespace attn::io::detail
