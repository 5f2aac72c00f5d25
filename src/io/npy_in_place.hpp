// Internal to src/io: a mapped .npy whose data a tensor can use where it lies, without a copy.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "attn/tensor.hpp"

namespace attn::io::detail {

struct NpyInPlace {
    Shape shape;
    std::size_t data_offset = 0;  // from the start of the file
};

// The .npy in `bytes` (validated as parse_npy_tensor does, with its errors) when a Tensor can
// adopt its data as it is: float32 little-endian in C order (or 1-D), starting on a 64-byte
// boundary of `bytes` (the file is mapped at a page boundary), rows of whole 64-byte lines
// (no padding to add), every value finite. nullopt otherwise: parse_npy_tensor copies it.
std::optional<NpyInPlace> npy_in_place(std::string_view bytes, const std::string& source, std::size_t max_dims);

}  // namespace attn::io::detail
