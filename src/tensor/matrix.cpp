#include "attn/matrix.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "kernels/aligned_memory.hpp"
#include "runtime/system_memory.hpp"

namespace attn {

static_assert(Matrix::alignment == kernels::memory_alignment, "one alignment for tensors and scratch");

void* aligned_alloc_bytes(std::size_t bytes) {
    check_available(bytes);  // runtime/system_memory.hpp: refused rather than OOM-killed
    return kernels::alloc_aligned(bytes);
}

void aligned_free_bytes(void* p) noexcept { kernels::free_aligned(p); }

float* aligned_alloc_floats(std::size_t count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(float)) throw std::bad_alloc();
    return static_cast<float*>(aligned_alloc_bytes(count * sizeof(float)));
}

void aligned_free_floats(float* p) noexcept { aligned_free_bytes(p); }

void release_storage(void* p, std::size_t mapping_offset, std::size_t mapping_bytes) noexcept {
    if (mapping_bytes) ::munmap(static_cast<char*>(p) - mapping_offset, mapping_bytes);
    else aligned_free_bytes(p);
}

AlignedBuffer adopt_mapping(const FileMapping& m) noexcept {
    return AlignedBuffer(reinterpret_cast<float*>(static_cast<char*>(m.start) + m.data_offset),
                         AlignedFree{m.data_offset, m.bytes});
}

std::size_t Matrix::padded_stride(std::size_t cols) noexcept {
    return padded_row_length(cols, stride_quantum);
}

Matrix::Matrix(std::size_t rows, std::size_t cols) : Matrix(rows, cols, 0.0f) {}

Matrix::Matrix(std::size_t rows, std::size_t cols, AlignedBuffer storage) noexcept
    : rows_(rows), cols_(cols), stride_(padded_stride(cols)), data_(std::move(storage)) {}

AlignedBuffer Matrix::release() noexcept {
    rows_ = cols_ = stride_ = 0;
    return std::move(data_);
}

Matrix::Matrix(std::size_t rows, std::size_t cols, float fill)
    : rows_(rows), cols_(cols), stride_(padded_stride(cols)) {
    if (stride_ != 0 && rows > std::numeric_limits<std::size_t>::max() / stride_) throw std::bad_alloc();
    const std::size_t total = rows * stride_;
    data_.reset(aligned_alloc_floats(total));
    std::memset(data_.get(), 0, std::max<std::size_t>(total, 1) * sizeof(float));
    if (fill != 0.0f)
        for (std::size_t r = 0; r < rows; ++r) std::fill(row(r), row(r) + cols, fill);
}

Matrix::Matrix(const Matrix& other) : rows_(other.rows_), cols_(other.cols_), stride_(other.stride_) {
    const std::size_t total = rows_ * stride_;
    data_.reset(aligned_alloc_floats(total));
    if (other.data_) std::memcpy(data_.get(), other.data_.get(), total * sizeof(float));
    else std::memset(data_.get(), 0, sizeof(float));
}

Matrix& Matrix::operator=(const Matrix& other) {
    if (this != &other) *this = Matrix(other);
    return *this;
}

}  // namespace attn
