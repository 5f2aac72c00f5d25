#include "attn/tensor.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "attn/error.hpp"

namespace attn {

// ---- Shape -------------------------------------------------------------------------------

Shape::Shape(std::initializer_list<std::size_t> dims) : Shape(std::vector<std::size_t>(dims)) {}

Shape::Shape(const std::vector<std::size_t>& dims) {
    if (dims.size() > max_rank)
        throw InputError(std::to_string(dims.size()) + " dimensions: at most " + std::to_string(max_rank) +
                         " are supported");
    rank_ = dims.size();
    std::copy(dims.begin(), dims.end(), dims_.begin());
}

std::size_t Shape::numel() const {
    std::size_t n = 1;
    for (std::size_t i = 0; i < rank_; ++i) {
        if (dims_[i] != 0 && n > std::numeric_limits<std::size_t>::max() / dims_[i])
            throw InputError("shape " + text() + " has more elements than memory can address");
        n *= dims_[i];
    }
    return n;
}

bool Shape::operator==(const Shape& o) const noexcept {
    return rank_ == o.rank_ && std::equal(dims_.begin(), dims_.begin() + rank_, o.dims_.begin());
}

std::string Shape::text() const {
    std::string s = "(";
    for (std::size_t i = 0; i < rank_; ++i) s += (i ? ", " : "") + std::to_string(dims_[i]);
    return s + (rank_ == 1 ? ",)" : ")");
}

std::string Shape::dims_text() const {
    std::string s;
    for (std::size_t i = 0; i < rank_; ++i) s += (i ? "x" : "") + std::to_string(dims_[i]);
    return s;
}

// ---- views -------------------------------------------------------------------------------

namespace {

// Product of the dimensions before the last two.
std::size_t leading_count(const Shape& s) {
    std::size_t n = 1;
    for (std::size_t i = 0; i + 2 < s.rank(); ++i) n *= s[i];
    return n;
}

}  // namespace

std::size_t TensorView::slices() const { return leading_count(shape); }

MatrixView TensorView::slice(std::size_t s) const noexcept {
    const float* p = data;
    // Decompose s over the leading dimensions, innermost fastest (C order).
    for (std::size_t i = rank() >= 2 ? rank() - 2 : 0; i-- > 0;) {
        p += (s % shape[i]) * strides[i];
        s /= shape[i];
    }
    return {p, rows(), cols(), row_stride()};
}

float TensorView::at(const std::size_t* index) const noexcept {
    const float* p = data;
    for (std::size_t i = 0; i < rank(); ++i) p += index[i] * strides[i];
    return *p;
}

// ---- Tensor ------------------------------------------------------------------------------

Tensor::Tensor(const Shape& shape) : Tensor(shape, Uninitialized{}) {
    const std::size_t total = slices() * rows() * stride_;
    std::memset(data_.get(), 0, std::max<std::size_t>(total, 1) * sizeof(float));
}

Tensor::Tensor(const Shape& shape, Uninitialized) : shape_(shape), stride_(Matrix::padded_stride(shape.back(1))) {
    // Rows of all slices together (the elements may be 0 while rows still need none).
    std::size_t rows_all = 1;
    for (std::size_t i = 0; i + 1 < shape.rank(); ++i) {
        if (shape[i] != 0 && rows_all > std::numeric_limits<std::size_t>::max() / shape[i]) throw std::bad_alloc();
        rows_all *= shape[i];
    }
    if (stride_ != 0 && rows_all > std::numeric_limits<std::size_t>::max() / stride_) throw std::bad_alloc();
    const std::size_t total = rows_all * stride_, cols = shape.back(1);
    data_.reset(aligned_alloc_floats(total));
    if (cols < stride_)
        for (std::size_t r = 0; r < rows_all; ++r) std::fill(data_.get() + r * stride_ + cols, data_.get() + (r + 1) * stride_, 0.0f);
}

Tensor::Tensor(const Shape& shape, AlignedBuffer dense) noexcept
    : shape_(shape), stride_(shape.back(1)), data_(std::move(dense)) {}

Tensor::Tensor(Matrix&& m) : shape_{m.rows(), m.cols()}, stride_(m.stride()) { data_ = m.release(); }

Tensor::Tensor(const Tensor& other) : shape_(other.shape_), stride_(other.stride_) {
    std::size_t rows_all = 1;
    for (std::size_t i = 0; i + 1 < shape_.rank(); ++i) rows_all *= shape_[i];
    const std::size_t total = rows_all * stride_;
    data_.reset(aligned_alloc_floats(total));
    if (other.data_) std::memcpy(data_.get(), other.data_.get(), total * sizeof(float));
    else std::memset(data_.get(), 0, sizeof(float));
}

Tensor& Tensor::operator=(const Tensor& other) {
    if (this != &other) *this = Tensor(other);
    return *this;
}

std::size_t Tensor::slices() const { return leading_count(shape_); }

TensorView Tensor::view() const noexcept {
    TensorView v;
    v.data = data_.get();
    v.shape = shape_;
    const std::size_t r = shape_.rank();
    if (r == 0) return v;
    v.strides[r - 1] = 1;
    if (r >= 2) v.strides[r - 2] = stride_;
    for (std::size_t i = r - 2; r >= 3 && i-- > 0;) v.strides[i] = v.strides[i + 1] * shape_[i + 1];
    return v;
}

Matrix Tensor::to_matrix() && {
    if (rank() > 2) throw InputError("a tensor of shape " + shape_.text() + " is not a matrix");
    const std::size_t rows = rank() == 2 ? shape_[0] : 1, cols = rank() >= 1 ? shape_.back(1) : 1;
    Matrix m(rows, cols, std::move(data_));
    shape_ = Shape();
    stride_ = 0;
    return m;
}

Matrix Tensor::slice_matrix(std::size_t s) const {
    Matrix m(rows(), cols());
    for (std::size_t r = 0; r < rows(); ++r) std::memcpy(m.row(r), slice_data(s) + r * stride_, cols() * sizeof(float));
    return m;
}

TensorView view_of(const Matrix& m) noexcept {
    TensorView v;
    v.data = m.data();
    v.shape = Shape{m.rows(), m.cols()};
    v.strides[0] = m.stride();
    v.strides[1] = 1;
    return v;
}

TensorView contiguous_view(const float* data, const Shape& shape) noexcept {
    TensorView v;
    v.data = data;
    v.shape = shape;
    std::size_t stride = 1;
    for (std::size_t i = shape.rank(); i-- > 0;) {
        v.strides[i] = stride;
        stride *= shape[i];
    }
    return v;
}

Tensor to_tensor(const TensorView& v) {
    Tensor t(v.shape);
    const std::size_t n = v.slices(), rows = v.rows(), cols = v.cols();
    for (std::size_t s = 0; s < n; ++s) {
        const MatrixView src = v.slice(s);
        float* dst = t.slice_data(s);
        for (std::size_t r = 0; r < rows; ++r) std::memcpy(dst + r * t.row_stride(), src.row(r), cols * sizeof(float));
    }
    return t;
}

bool same_bits(const Tensor& a, const Tensor& b) noexcept {
    if (!(a.shape() == b.shape())) return false;
    for (std::size_t s = 0; s < a.slices(); ++s)
        for (std::size_t r = 0; r < a.rows(); ++r)
            if (std::memcmp(a.slice_data(s) + r * a.row_stride(), b.slice_data(s) + r * b.row_stride(),
                            a.cols() * sizeof(float)) != 0)
                return false;
    return true;
}

}  // namespace attn
