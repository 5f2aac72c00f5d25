// Small helpers shared by the unit tests.
#pragma once
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "attn/matrix.hpp"

namespace test_util {

// Every entry of m equals the expected value exactly (shape first).
inline void check_matrix(const attn::Matrix& m, const std::vector<std::vector<float>>& expected) {
    REQUIRE(m.rows() == expected.size());
    REQUIRE(m.cols() == expected[0].size());
    for (std::size_t r = 0; r < m.rows(); ++r)
        for (std::size_t c = 0; c < m.cols(); ++c) {
            INFO("row " << r << ", column " << c);
            CHECK(m(r, c) == expected[r][c]);
        }
}

// Non-overlapping occurrences of `what` in `text`.
inline std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
    return n;
}

}  // namespace test_util
