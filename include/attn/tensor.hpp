// Tensors of up to max_rank dimensions and non-owning views into them. attn computes on
// (batch, head, rows, columns) tensors; a Matrix is the 2-D case with the same layout, and
// moves into and out of a Tensor without copying.
//
// Layout of an owning Tensor: C order, the last dimension padded to Matrix::padded_stride,
// so every 2-D slice is laid out exactly like a Matrix (rows of 16 floats or more start on a
// 64-byte line; narrower rows are unpadded) and a kernel reads it through (pointer, row
// stride). Padding floats are zero.
//
// A view is (data, shape, strides in elements). Strides may be anything, including 0 (a
// broadcast dimension) or a row stride larger than the row (head h of a T×(H·d) projection
// is the view data + h·d, shape T×d, row stride H·d): taking a head, a batch item or a row
// range never copies.
#pragma once
#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "attn/matrix.hpp"

namespace attn {

// NumPy's limit on dimensions; every reader and writer refuses more.
inline constexpr std::size_t max_rank = 32;

// The extents of a tensor, outermost first.
class Shape {
public:
    Shape() = default;
    Shape(std::initializer_list<std::size_t> dims);
    explicit Shape(const std::vector<std::size_t>& dims);  // throws InputError beyond max_rank

    std::size_t rank() const noexcept { return rank_; }
    std::size_t operator[](std::size_t i) const noexcept { return dims_[i]; }
    std::size_t& operator[](std::size_t i) noexcept { return dims_[i]; }
    // Dimension counted from the end (back(1) = last); 1 when the tensor has fewer dims.
    std::size_t back(std::size_t from_end) const noexcept {
        return from_end <= rank_ ? dims_[rank_ - from_end] : 1;
    }
    // Product of all extents; throws InputError when it overflows size_t.
    std::size_t numel() const;
    std::vector<std::size_t> to_vector() const { return {dims_.begin(), dims_.begin() + rank_}; }
    bool operator==(const Shape& o) const noexcept;

    // "(2, 3, 4)" as NumPy prints a shape; "2x3x4" for messages about sizes.
    std::string text() const;
    std::string dims_text() const;

private:
    std::array<std::size_t, max_rank> dims_{};
    std::size_t rank_ = 0;
};

// A rows×cols window of floats with a row stride (floats between row starts).
struct MatrixView {
    const float* data = nullptr;
    std::size_t rows = 0, cols = 0, stride = 0;
    float operator()(std::size_t r, std::size_t c) const noexcept { return data[r * stride + c]; }
    const float* row(std::size_t r) const noexcept { return data + r * stride; }
};

// A view of an N-D tensor. The last dimension is contiguous (stride 1) in every view attn
// makes, so each 2-D slice is a MatrixView.
struct TensorView {
    const float* data = nullptr;
    Shape shape;
    std::array<std::size_t, max_rank> strides{};  // elements; 0 = broadcast

    std::size_t rank() const noexcept { return shape.rank(); }
    std::size_t rows() const noexcept { return shape.back(2); }
    std::size_t cols() const noexcept { return shape.back(1); }
    std::size_t row_stride() const noexcept { return rank() >= 2 ? strides[rank() - 2] : cols(); }
    // Number of 2-D slices (product of the leading dimensions).
    std::size_t slices() const;
    // Slice s of the leading dimensions in C order (s < slices()).
    MatrixView slice(std::size_t s) const noexcept;
    // The element at a full index (index.size() == rank()).
    float at(const std::size_t* index) const noexcept;
};

// An owning tensor. A default-constructed Tensor has rank 0 and no storage.
class Tensor {
public:
    Tensor() = default;
    explicit Tensor(const Shape& shape);  // zero-filled; bad_alloc / InputError on overflow
    // Elements left unset (only the row padding is zeroed): for results whose every element
    // the caller writes, so that a big result costs no zero-fill pass before it.
    struct Uninitialized {};
    Tensor(const Shape& shape, Uninitialized);
    explicit Tensor(Matrix&& m);          // rank 2, shares m's storage
    // Adopts dense C-order storage (e.g. a mapped .npy file's data): the last dimension must
    // need no padding (Matrix::padded_stride(cols) == cols) and the data be 64-byte aligned.
    Tensor(const Shape& shape, AlignedBuffer dense) noexcept;
    Tensor(const Tensor& other);
    Tensor& operator=(const Tensor& other);
    Tensor(Tensor&&) noexcept = default;
    Tensor& operator=(Tensor&&) noexcept = default;

    const Shape& shape() const noexcept { return shape_; }
    std::size_t rank() const noexcept { return shape_.rank(); }
    std::size_t rows() const noexcept { return shape_.back(2); }
    std::size_t cols() const noexcept { return shape_.back(1); }
    std::size_t row_stride() const noexcept { return stride_; }  // floats between row starts
    std::size_t slices() const;
    float* data() noexcept { return data_.get(); }
    const float* data() const noexcept { return data_.get(); }
    float* slice_data(std::size_t s) noexcept { return data_.get() + s * rows() * stride_; }
    const float* slice_data(std::size_t s) const noexcept { return data_.get() + s * rows() * stride_; }

    TensorView view() const noexcept;
    MatrixView slice(std::size_t s) const noexcept { return {slice_data(s), rows(), cols(), stride_}; }

    // The same storage as a Matrix (rank ≤ 2; a rank-1 tensor is one row). Leaves *this empty.
    Matrix to_matrix() &&;
    // A copy of slice s as a Matrix.
    Matrix slice_matrix(std::size_t s) const;

private:
    Shape shape_;
    std::size_t stride_ = 0;
    AlignedBuffer data_;
};

// A rank-2 view of a matrix's storage.
TensorView view_of(const Matrix& m) noexcept;
// A view of dense C-order data (no row padding), e.g. a generator's output.
TensorView contiguous_view(const float* data, const Shape& shape) noexcept;
// A copy of any view (broadcast dimensions materialised) as an owning tensor.
Tensor to_tensor(const TensorView& v);
// Same shape and the same bits in every element (row padding ignored).
bool same_bits(const Tensor& a, const Tensor& b) noexcept;

}  // namespace attn
