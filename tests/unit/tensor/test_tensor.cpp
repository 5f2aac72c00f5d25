// Tensor, TensorView and Shape: layout (padded rows like Matrix), views without copies (a
// head of a T×(H·d) projection, broadcast strides), moves to and from Matrix. Expected values
// are the index formulas written into the data.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/matrix.hpp"
#include "attn/tensor.hpp"

using attn::Matrix;
using attn::MatrixView;
using attn::Shape;
using attn::Tensor;
using attn::TensorView;

namespace {

// value(b, r, c) = 100 b + 10 r + c
Tensor numbered(std::size_t B, std::size_t R, std::size_t C) {
    Tensor t(Shape{B, R, C});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t c = 0; c < C; ++c) t.slice_data(b)[r * t.row_stride() + c] = float(100 * b + 10 * r + c);
    return t;
}

}  // namespace

TEST_CASE("Shape: rank, extents, text, element count and its limits") {
    const Shape s{2, 3, 4};
    CHECK(s.rank() == 3);
    CHECK(s[1] == 3);
    CHECK(s.back(1) == 4);
    CHECK(s.back(3) == 2);
    CHECK(s.back(4) == 1);  // missing leading dimensions count as 1
    CHECK(s.numel() == 24);
    CHECK(s.text() == "(2, 3, 4)");
    CHECK(Shape{5}.text() == "(5,)");
    CHECK(s.dims_text() == "2x3x4");
    CHECK(s.to_vector() == std::vector<std::size_t>{2, 3, 4});
    CHECK(s == Shape(std::vector<std::size_t>{2, 3, 4}));
    CHECK_FALSE(s == Shape{2, 3});
    CHECK(Shape(std::vector<std::size_t>(32, 1)).rank() == 32);
    CHECK_THROWS_AS(Shape(std::vector<std::size_t>(33, 1)), attn::InputError);
    const std::size_t big = std::size_t(1) << 40;
    CHECK_THROWS_AS(Shape({big, big}).numel(), attn::InputError);
}

TEST_CASE("Tensor: every 2-D slice is laid out like a Matrix (aligned, padded rows, zero padding)") {
    const Tensor wide = numbered(2, 3, 20);  // 20 floats: padded to 32, every row on a 64-byte line
    CHECK(wide.row_stride() == 32);
    for (std::size_t s = 0; s < 2; ++s)
        for (std::size_t r = 0; r < 3; ++r) {
            CHECK(reinterpret_cast<std::uintptr_t>(wide.slice_data(s) + r * 32) % Matrix::alignment == 0);
            for (std::size_t c = 20; c < 32; ++c) CHECK(wide.slice_data(s)[r * 32 + c] == 0.0f);
        }
    const Tensor t = numbered(2, 3, 5);  // narrower than a line: not padded
    CHECK(t.rank() == 3);
    CHECK(t.rows() == 3);
    CHECK(t.cols() == 5);
    CHECK(t.slices() == 2);
    CHECK(t.row_stride() == 5);
    CHECK(t.row_stride() == Matrix::padded_stride(5));
    CHECK(reinterpret_cast<std::uintptr_t>(t.data()) % Matrix::alignment == 0);
    const MatrixView m = t.slice(1);
    CHECK(m(2, 4) == 124.0f);
    // the view agrees with the slices, element by element
    const TensorView v = t.view();
    const std::size_t index[3] = {1, 2, 3};
    CHECK(v.at(index) == 123.0f);
    CHECK(v.strides[2] == 1);
    CHECK(v.strides[1] == t.row_stride());
    CHECK(v.strides[0] == 3 * t.row_stride());
    // a copy is deep
    Tensor copy = t;
    copy.slice_data(0)[0] = -1;
    CHECK(t.slice_data(0)[0] == 0.0f);
    CHECK(copy.slice(1)(2, 4) == 124.0f);
}

TEST_CASE("TensorView: a head of a T×(H·d) projection is a strided view, no copy") {
    // T = 3 rows, H = 2 heads of d = 4 columns: head h is columns h·d .. h·d+3
    Matrix proj(3, 8);
    for (std::size_t t = 0; t < 3; ++t)
        for (std::size_t c = 0; c < 8; ++c) proj(t, c) = float(10 * t + c);
    TensorView head;
    head.data = proj.data() + 1 * 4;
    head.shape = Shape{3, 4};
    head.strides[0] = proj.stride();
    head.strides[1] = 1;
    const MatrixView m = head.slice(0);
    CHECK(m.data == proj.data() + 4);  // the same storage
    CHECK(m(2, 3) == 27.0f);
    CHECK(m(0, 0) == 4.0f);
    // materialised, it is a packed 3x4 tensor with the same values
    const Tensor packed = attn::to_tensor(head);
    CHECK(packed.shape() == Shape{3, 4});
    CHECK(packed.slice(0)(2, 3) == 27.0f);
}

TEST_CASE("TensorView: stride 0 broadcasts a dimension") {
    const Tensor one = numbered(1, 2, 3);
    TensorView b = one.view();
    b.shape = Shape{4, 2, 3};  // the single batch item seen four times
    b.strides[0] = 0;
    CHECK(b.slices() == 4);
    for (std::size_t s = 0; s < 4; ++s) CHECK(b.slice(s).data == one.data());
    const Tensor full = attn::to_tensor(b);
    CHECK(full.shape() == Shape{4, 2, 3});
    CHECK(full.slice(3)(1, 2) == 12.0f);
    // 4-D slices go in C order: slice s of (2, 3, R, C) is [s / 3, s % 3]
    Tensor four(Shape{2, 3, 1, 1});
    for (std::size_t s = 0; s < 6; ++s) four.slice_data(s)[0] = float(s);
    const TensorView v = four.view();
    const std::size_t index[4] = {1, 2, 0, 0};
    CHECK(v.at(index) == 5.0f);
    CHECK(v.slice(4)(0, 0) == 4.0f);
}

TEST_CASE("Tensor and Matrix move into each other without copying") {
    Matrix m(2, 3);
    m(1, 2) = 7;
    const float* storage = m.data();
    Tensor t(std::move(m));
    CHECK(t.shape() == Shape{2, 3});
    CHECK(t.data() == storage);
    CHECK(t.slice(0)(1, 2) == 7.0f);
    Matrix back = std::move(t).to_matrix();
    CHECK(back.data() == storage);
    CHECK(back.rows() == 2);
    CHECK(back.cols() == 3);
    CHECK(back(1, 2) == 7.0f);
    CHECK(t.rank() == 0);
    // rank 1 is one row; rank 3 is not a matrix
    Tensor row(Shape{4});
    CHECK(std::move(row).to_matrix().rows() == 1);
    Tensor cube(Shape{2, 2, 2});
    CHECK_THROWS_WITH_AS(std::move(cube).to_matrix(), "a tensor of shape (2, 2, 2) is not a matrix", attn::InputError);
    // slice_matrix copies one slice out
    const Tensor n = numbered(2, 2, 2);
    const Matrix s1 = n.slice_matrix(1);
    CHECK(s1(1, 1) == 111.0f);
    CHECK(s1.data() != n.slice_data(1));
    // view_of and contiguous_view
    const TensorView mv = attn::view_of(s1);
    CHECK(mv.shape == Shape{2, 2});
    CHECK(mv.slice(0)(1, 0) == 110.0f);
    const float dense[6] = {0, 1, 2, 3, 4, 5};
    const TensorView d = attn::contiguous_view(dense, Shape{3, 1, 2});
    CHECK(d.slice(2)(0, 1) == 5.0f);
    CHECK(d.row_stride() == 2);
}
