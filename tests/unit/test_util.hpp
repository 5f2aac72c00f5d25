// Small helpers shared by the unit tests.
#pragma once
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/matrix.hpp"

namespace test_util {

// The bytes of a file ("" when it cannot be read), and a file written with these bytes.
inline std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
inline void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// A matrix with these rows (all of the first row's length).
inline attn::Matrix matrix_of(const std::vector<std::vector<float>>& rows) {
    attn::Matrix m(rows.size(), rows[0].size());
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t c = 0; c < rows[r].size(); ++c) m(r, c) = rows[r][c];
    return m;
}

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

// Thread counts a threaded test runs: `defaults`, or 1 and $ATTN_TEST_THREADS when that is set
// (make test-tsan runs the threaded tests once each with 1, 2, 3 and 7 threads).
inline std::vector<unsigned> thread_counts(std::vector<unsigned> defaults) {
    const char* env = std::getenv("ATTN_TEST_THREADS");
    if (!env || !*env) return defaults;
    const unsigned t = unsigned(std::strtoul(env, nullptr, 10));
    if (t <= 1) return {1u};
    return {1u, t};
}

// Stride of the sweeps over every float bit pattern: `fallback` (make test: the full sweep), or
// the odd number in $ATTN_TEST_SWEEP_STRIDE (make test-sanitize shortens the sweep with it).
inline unsigned long long sweep_stride(unsigned long long fallback) {
    const char* env = std::getenv("ATTN_TEST_SWEEP_STRIDE");
    const unsigned long long s = env && *env ? std::strtoull(env, nullptr, 10) : 0;
    return s > 0 && s % 2 == 1 ? s : fallback;
}

}  // namespace test_util
