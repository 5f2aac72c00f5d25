// Keys and values kept as inference engines keep them: IEEE float16, bfloat16, or ggml's q8_0
// blocks. A K/V cache in 16-bit floats halves the bytes a decoding step reads, q8_0 nearly
// quarters them; attn keeps such inputs in memory as they are and the kernels widen them to
// float32 as they load them (F16C / AVX-512 / NEON conversions, a shift for bfloat16, an int8
// conversion and one multiply for q8_0), never as a whole copy.
//
// HalfTensor holds one of those types (its name is from when float16 was the only one). It is
// laid out like Tensor (C order, the last dimension padded to padded_row_length(cols,
// stride_quantum): rows of 32 elements or more start on a 64-byte boundary for the 16-bit
// types; padding is zero). q8_0 rows are always padded to whole blocks of 32 (ggml's
// block_q8_0: a float16 scale d, then 32 int8 values q, value = d·q; 34 bytes), the last
// block's padding values 0. KVView is what batched_attention takes for K and V: any float32
// TensorView converts to it implicitly, a HalfTensor gives one by view().
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "attn/matrix.hpp"
#include "attn/tensor.hpp"

namespace attn {

enum class ElementType : unsigned char { f32, f16, bf16, q8_0 };
// The names users give (--kv-dtype, --dtype): f32, f16, bf16, q8_0.
std::string_view element_type_name(ElementType t) noexcept;
// Bytes per element (q8_0: 34 per 32, counted as 1: what chunk sizes need).
inline constexpr std::size_t element_size(ElementType t) noexcept {
    return t == ElementType::f32 ? 4 : t == ElementType::q8_0 ? 1 : 2;
}
// The values per q8_0 block and its bytes (ggml's QK8_0 and sizeof(block_q8_0)).
inline constexpr std::size_t q8_0_block = 32, q8_0_block_bytes = 34;
// The bytes n elements take from the start of a row (q8_0: n a multiple of 32, as every
// stride of a q8_0 view but the last is).
inline constexpr std::size_t storage_bytes(ElementType t, std::size_t n) noexcept {
    return t == ElementType::q8_0 ? n / q8_0_block * q8_0_block_bytes : n * element_size(t);
}

// float → float16, rounded to nearest (ties to even); beyond the float16 range gives ±inf,
// NaN stays NaN. float16 → float is exact.
std::uint16_t float_to_half(float x) noexcept;
float half_to_float(std::uint16_t h) noexcept;
// float → bfloat16, rounded to nearest (ties to even), as torch's .bfloat16(): beyond the
// range gives ±inf, NaN gives 0x7fc0. bfloat16 → float is exact (the bits shifted up 16).
std::uint16_t float_to_bfloat16(float x) noexcept;
float bfloat16_to_float(std::uint16_t b) noexcept;
// ggml's quantize_row_q8_0_ref: the n values at x into ⌈n/32⌉ blocks at out (34 bytes each:
// the scale d = amax/127 as float16 bits, then q = round(x/d), halves away from zero, as
// roundf), the last block padded with zero values. A block of zeros gets d = 0.
void quantize_q8_0(const float* x, std::size_t n, unsigned char* out) noexcept;
// Element i of q8_0 blocks, dequantised: d·q (exact in float32).
float dequantize_q8_0(const unsigned char* blocks, std::size_t i) noexcept;

// A K or V input: elements of `type`, shape and strides in elements (0 = broadcast).
struct KVView {
    ElementType type = ElementType::f32;
    const void* data = nullptr;
    Shape shape;
    std::array<std::size_t, max_rank> strides{};

    KVView() = default;
    KVView(const TensorView& v) noexcept;  // NOLINT: every float32 view is a K/V input
    std::size_t rank() const noexcept { return shape.rank(); }
    // The float32 view (type must be f32).
    TensorView f32() const noexcept;
};

class HalfTensor {
public:
    static constexpr std::size_t stride_quantum = 32;  // elements: 64 bytes of 16-bit ones

    HalfTensor() = default;
    // Zero-filled, of type f16, bf16 or q8_0; bad_alloc / InputError on overflow.
    explicit HalfTensor(const Shape& shape, ElementType type = ElementType::f16);
    // Adopts a file mapping's data as dense C-order 16-bit elements (f16 or bf16): the last
    // dimension must need no padding (padded_row_length(cols, stride_quantum) == cols) and the
    // data be 64-byte aligned.
    HalfTensor(const Shape& shape, const FileMapping& dense, ElementType type = ElementType::f16) noexcept;

    ElementType type() const noexcept { return type_; }
    const Shape& shape() const noexcept { return shape_; }
    std::size_t rank() const noexcept { return shape_.rank(); }
    std::size_t rows() const noexcept { return shape_.back(2); }
    std::size_t cols() const noexcept { return shape_.back(1); }
    std::size_t row_stride() const noexcept { return stride_; }  // elements between row starts
    std::size_t slices() const;
    // The storage: 16-bit elements (f16, bf16); for q8_0 its blocks' bytes, as uint16_t.
    std::uint16_t* data() noexcept { return data_.get(); }
    const std::uint16_t* data() const noexcept { return data_.get(); }
    // Slice s's first element (16-bit types only).
    std::uint16_t* slice_data(std::size_t s) noexcept { return data_.get() + s * rows() * stride_; }
    const std::uint16_t* slice_data(std::size_t s) const noexcept { return data_.get() + s * rows() * stride_; }

    KVView view() const noexcept;

private:
    using Free = StorageFree<std::uint16_t>;
    ElementType type_ = ElementType::f16;
    Shape shape_;
    std::size_t stride_ = 0;
    std::unique_ptr<std::uint16_t[], Free> data_;
};

// A float32 view stored as `type` (f16, bf16: each element rounded, float_to_half /
// float_to_bfloat16; q8_0: each row quantised, quantize_q8_0). InputError when a finite value
// does not fit (beyond ±65504 in float16, beyond bfloat16's range, or a q8_0 block whose
// scale amax/127 is beyond float16's).
HalfTensor to_kv(const TensorView& v, ElementType type);
HalfTensor to_half(const TensorView& v);  // to_kv(v, f16)
// The n floats of one row at x replaced by their values stored as `type` (f32: unchanged; f16,
// bf16: each rounded; q8_0: the row quantised and dequantised), as to_kv then to_float give
// them; the same InputError as to_kv beyond the type's range.
void round_as(float* x, std::size_t n, ElementType type);
// Every element of a K/V view as float32 (exact for every type: q8_0 dequantised), an owning tensor.
Tensor to_float(const KVView& v);

}  // namespace attn
