// Internal to the model readers: the element rules safetensors and torch checkpoints share
// (little-endian float32/float16/bfloat16 elements, the finite check and its message).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/tensor.hpp"
#include "kernels/float16.hpp"

namespace attn::io::detail {

enum class FloatKind { f32, f16, bf16, f64 };

// A little-endian float64 (kind f64) as it is.
inline double decode_double(const unsigned char* b) noexcept {
    std::uint64_t bits = 0;
    for (int i = 7; i >= 0; --i) bits = bits << 8 | b[i];
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
}

// Element b of `kind` as float32 (a float64 rounded: see check_range).
inline float decode_float(const unsigned char* b, FloatKind kind) noexcept {
    if (kind == FloatKind::f64) return static_cast<float>(decode_double(b));
    if (kind == FloatKind::f32) {
        const std::uint32_t bits = std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
        float v;
        std::memcpy(&v, &bits, 4);
        return v;
    }
    const std::uint16_t bits = std::uint16_t(b[0] | b[1] << 8);
    return kind == FloatKind::f16 ? kernels::half_to_float(bits) : kernels::bfloat16_to_float(bits);
}

// An element of a tensor as every message names it (a file's, a weight's), by its index, 0-based
// as NumPy and torch index and saying so: "element 5 (0-based)" of a vector, "row 1, column 2
// (0-based)" of a matrix, "index [0, 1, 2] (0-based)" beyond. (A text file's positions are its
// lines and columns, 1-based, as editors count.)
inline std::string element_position(const std::size_t* index, std::size_t rank) {
    if (rank <= 1) return "element " + std::to_string(rank ? index[0] : 0) + " (0-based)";
    if (rank == 2) return "row " + std::to_string(index[0]) + ", column " + std::to_string(index[1]) + " (0-based)";
    std::string at = "index [";
    for (std::size_t d = 0; d < rank; ++d) at += (d ? ", " : "") + std::to_string(index[d]);
    return at + "] (0-based)";
}
// The same of element k in C order of a tensor of `shape`.
inline std::string element_position(const Shape& shape, std::size_t k) {
    std::size_t idx[max_rank];
    for (std::size_t d = shape.rank(), r = k; d-- > 0;) idx[d] = r % shape[d], r /= shape[d];
    return element_position(idx, shape.rank());
}

// InputError "WHERE: POSITION: value is out of float32 range" for a finite float64 element that
// float32 cannot hold, as the .npy reader says it (other kinds: nothing to check).
inline void check_range(const unsigned char* b, FloatKind kind, const Shape& shape, std::size_t k,
                        const std::string& where) {
    if (kind != FloatKind::f64) return;
    const double v = decode_double(b);
    if (std::isfinite(v) && !std::isfinite(static_cast<float>(v)))
        throw InputError(where + ": " + element_position(shape, k) + ": value is out of float32 range");
}

// InputError "WHERE: POSITION: non-finite value ..." unless `finite` allows v.
inline void check_finite(Finite finite, float v, const Shape& shape, std::size_t k, const std::string& where) {
    if (finite_allows(finite, v)) return;
    throw InputError(where + ": " + element_position(shape, k) + ": non-finite value '" +
                     (std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf") + "' is not allowed here" +
                     (finite == Finite::allow_neg_inf ? " (only -inf is)" : ""));
}

}  // namespace attn::io::detail
