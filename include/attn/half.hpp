// Half-precision (IEEE float16) keys and values. A K/V cache kept in float16 halves the bytes
// a decoding step reads; attn keeps such inputs as halves in memory and the kernels widen
// them to float32 tile by tile (F16C / AVX-512 / NEON conversions), never as a whole copy.
//
// HalfTensor is laid out like Tensor (C order, the last dimension padded to
// padded_row_length(cols, stride_quantum): rows of 32 halves or more start on a 64-byte
// boundary; padding is zero). KVView is what batched_attention takes for
// K and V: any float32 TensorView converts to it implicitly, a HalfTensor gives one by view().
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "attn/matrix.hpp"
#include "attn/tensor.hpp"

namespace attn {

enum class ElementType : unsigned char { f32, f16 };
inline constexpr std::size_t element_size(ElementType t) noexcept { return t == ElementType::f16 ? 2 : 4; }

// float → float16, rounded to nearest (ties to even); beyond the float16 range gives ±inf,
// NaN stays NaN. float16 → float is exact.
std::uint16_t float_to_half(float x) noexcept;
float half_to_float(std::uint16_t h) noexcept;

// A K or V input: float32 or float16 elements, shape and strides in elements (0 = broadcast).
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
    static constexpr std::size_t stride_quantum = 32;  // halves: 64 bytes

    HalfTensor() = default;
    explicit HalfTensor(const Shape& shape);  // zero-filled; bad_alloc / InputError on overflow
    // Adopts a file mapping's data as dense C-order halves: the last dimension must need no
    // padding (padded_row_length(cols, stride_quantum) == cols) and the data be 64-byte aligned.
    HalfTensor(const Shape& shape, const FileMapping& dense) noexcept;

    const Shape& shape() const noexcept { return shape_; }
    std::size_t rank() const noexcept { return shape_.rank(); }
    std::size_t rows() const noexcept { return shape_.back(2); }
    std::size_t cols() const noexcept { return shape_.back(1); }
    std::size_t row_stride() const noexcept { return stride_; }  // halves between row starts
    std::size_t slices() const;
    std::uint16_t* data() noexcept { return data_.get(); }
    const std::uint16_t* data() const noexcept { return data_.get(); }
    std::uint16_t* slice_data(std::size_t s) noexcept { return data_.get() + s * rows() * stride_; }
    const std::uint16_t* slice_data(std::size_t s) const noexcept { return data_.get() + s * rows() * stride_; }

    KVView view() const noexcept;

private:
    using Free = StorageFree<std::uint16_t>;
    Shape shape_;
    std::size_t stride_ = 0;
    std::unique_ptr<std::uint16_t[], Free> data_;
};

// Every element of a float32 view rounded to float16 (float_to_half).
HalfTensor to_half(const TensorView& v);
// Every element of a K/V view as float32 (exact for float16), an owning tensor.
Tensor to_float(const KVView& v);

}  // namespace attn
