// Matrix: row-major float32 storage, 64-byte aligned. Rows of 16 floats or more are padded to
// a stride that is a multiple of 16 floats, so that every row starts on a cache line; narrower
// rows are not padded (see padded_row_length). Padding is kept at zero.
#pragma once
#include <cstddef>
#include <memory>

namespace attn {

// A file mapping (mmap of `bytes` at `start`) whose data, from data_offset on, a tensor uses
// where it lies (a .npy input); the tensor unmaps it when it goes.
struct FileMapping {
    void* start = nullptr;
    std::size_t bytes = 0, data_offset = 0;
};

// The stride, in elements, of rows of `count` elements: a multiple of `quantum` (the elements
// of one 64-byte line) for rows of a line or more, so that each row starts on a line; `count`
// itself for narrower rows. The kernels read rows with unaligned loads, so nothing needs the
// padding; but padding narrow rows would make memory unbounded by the input (an N×1 tensor
// would take 16 times its data). This way a tensor takes less than twice its data.
constexpr std::size_t padded_row_length(std::size_t count, std::size_t quantum) noexcept {
    return count < quantum ? count : (count + quantum - 1) / quantum * quantum;
}

// Frees tensor storage at p: aligned_alloc_bytes storage, or (mapping_bytes != 0) the file
// mapping that starts mapping_offset bytes before p.
void release_storage(void* p, std::size_t mapping_offset, std::size_t mapping_bytes) noexcept;

// Frees storage of T from aligned_alloc_bytes, or a FileMapping's (mapping_bytes != 0).
template <class T>
struct StorageFree {
    std::size_t mapping_offset = 0, mapping_bytes = 0;
    void operator()(T* p) const noexcept { release_storage(p, mapping_offset, mapping_bytes); }
};
using AlignedFree = StorageFree<float>;
using AlignedBuffer = std::unique_ptr<float[], AlignedFree>;

// The data of a FileMapping as float storage.
AlignedBuffer adopt_mapping(const FileMapping& m) noexcept;

class Matrix {
public:
    static constexpr std::size_t alignment = 64;                          // bytes
    static constexpr std::size_t stride_quantum = alignment / sizeof(float);  // floats

    Matrix() = default;
    Matrix(std::size_t rows, std::size_t cols);  // zero-filled
    Matrix(std::size_t rows, std::size_t cols, float fill);
    // Adopts storage laid out as a Matrix of this shape (stride padded_stride(cols)).
    Matrix(std::size_t rows, std::size_t cols, AlignedBuffer storage) noexcept;

    Matrix(const Matrix& other);
    Matrix& operator=(const Matrix& other);
    Matrix(Matrix&&) noexcept = default;
    Matrix& operator=(Matrix&&) noexcept = default;

    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    std::size_t stride() const noexcept { return stride_; }  // floats between row starts
    std::size_t size() const noexcept { return rows_ * cols_; }
    bool empty() const noexcept { return rows_ == 0 || cols_ == 0; }

    float* data() noexcept { return data_.get(); }
    const float* data() const noexcept { return data_.get(); }
    float* row(std::size_t r) noexcept { return data_.get() + r * stride_; }
    const float* row(std::size_t r) const noexcept { return data_.get() + r * stride_; }
    float& operator()(std::size_t r, std::size_t c) noexcept { return data_[r * stride_ + c]; }
    float operator()(std::size_t r, std::size_t c) const noexcept { return data_[r * stride_ + c]; }

    // padded_row_length(cols, stride_quantum).
    static std::size_t padded_stride(std::size_t cols) noexcept;

    // Gives up the storage (the matrix becomes empty).
    AlignedBuffer release() noexcept;

private:
    std::size_t rows_ = 0, cols_ = 0, stride_ = 0;
    AlignedBuffer data_;
};

// Allocates `bytes` aligned to Matrix::alignment (large buffers: to 2 MiB, in transparent
// huge pages where the system allows); throws std::bad_alloc. Freed by aligned_free_bytes.
void* aligned_alloc_bytes(std::size_t bytes);
void aligned_free_bytes(void* p) noexcept;
// The same for `count` floats.
float* aligned_alloc_floats(std::size_t count);
void aligned_free_floats(float* p) noexcept;

}  // namespace attn
