// Internal to src/read: a mapped .npy whose data a tensor can use where it lies, without a copy.
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

}  // namespace attn::io::detail
