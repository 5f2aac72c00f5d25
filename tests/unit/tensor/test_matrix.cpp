#include <doctest/doctest.h>

#include <cstdint>
#include <utility>

#include "attn/matrix.hpp"

TEST_CASE("matrix: zero-filled; rows of a 64-byte line or more padded to whole lines, narrower rows not") {
    // cols → stride: 16 floats are one line; below that no padding (an N×1 tensor would take
    // 16 times its data), so the storage is less than twice the data for every width.
    const std::pair<std::size_t, std::size_t> strides[] = {{1, 1}, {2, 2}, {15, 15}, {16, 16}, {17, 32}, {33, 48}};
    for (const auto& cols_stride : strides) {
        const std::size_t cols = cols_stride.first, stride = cols_stride.second;
        INFO(cols);
        attn::Matrix m(3, cols);
        CHECK(m.stride() == stride);
        CHECK(attn::Matrix::padded_stride(cols) == stride);
        CHECK(m.stride() < 2 * cols);
        CHECK(reinterpret_cast<std::uintptr_t>(m.data()) % 64 == 0);
        for (std::size_t r = 0; r < 3; ++r) {
            if (cols >= 16) CHECK(reinterpret_cast<std::uintptr_t>(m.row(r)) % 64 == 0);
            for (std::size_t c = 0; c < m.stride(); ++c) CHECK(m.row(r)[c] == 0.0f);
        }
    }
    CHECK(attn::padded_row_length(31, 32) == 31);  // float16 rows: 32 halves a line
    CHECK(attn::padded_row_length(33, 32) == 64);
}

TEST_CASE("matrix: copies are deep") {
    attn::Matrix a(2, 3, 1.5f);
    attn::Matrix b = a;
    b(1, 2) = 7.0f;
    CHECK(a(1, 2) == 1.5f);
    CHECK(b(1, 2) == 7.0f);
    CHECK(b.rows() == 2);
    CHECK(b.cols() == 3);
}
