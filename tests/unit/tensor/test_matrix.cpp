#include <doctest/doctest.h>

#include <cstdint>

#include "attn/matrix.hpp"

TEST_CASE("matrix: zero-filled, aligned rows, padded stride") {
    for (std::size_t cols : {1u, 15u, 16u, 17u, 33u}) {
        attn::Matrix m(3, cols);
        CHECK(m.stride() % 16 == 0);
        CHECK(m.stride() >= cols);
        for (std::size_t r = 0; r < 3; ++r) {
            CHECK(reinterpret_cast<std::uintptr_t>(m.row(r)) % 64 == 0);
            for (std::size_t c = 0; c < m.stride(); ++c) CHECK(m.row(r)[c] == 0.0f);
        }
    }
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
