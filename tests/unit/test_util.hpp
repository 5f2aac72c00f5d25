// Small helpers shared by the unit tests.
#pragma once
#include <doctest/doctest.h>

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

// A fresh folder under /tmp, removed with everything in it at the end of the scope.
struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/attn-test-XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        path = tmpl;
    }
    ~TempDir() { [[maybe_unused]] int rc = std::system(("rm -rf '" + path + "'").c_str()); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string operator/(const std::string& name) const { return path + "/" + name; }
    // Every name in it, hidden ones too, sorted, one a line; and how many there are.
    std::string listing() const {
        std::string names;
        if (FILE* p = ::popen(("ls -A '" + path + "' | LC_ALL=C sort").c_str(), "r")) {
            char line[4096];
            while (std::fgets(line, sizeof line, p)) names += line;
            ::pclose(p);
        }
        return names;
    }
    std::size_t entries() const {
        const std::string names = listing();
        return std::size_t(std::count(names.begin(), names.end(), '\n'));
    }
};

// The float with these bits.
inline float float_from_bits(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Distance from y to an exact value, in units of the float spacing at the exact value
// (subnormal spacing 2^-149 at the bottom).
inline double ulp_error(float y, double exact) {
    int e;
    std::frexp(std::fabs(exact), &e);  // |exact| = f·2^e, f in [0.5, 1)
    const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
    return std::fabs(double(y) - exact) / ulp;
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

// Thread counts a threaded test runs: `defaults`, or 1 and the counts listed in
// $ATTN_TEST_THREADS ("2,3,7") when that is set (make test-tsan runs the threaded tests with
// ATTN_TEST_THREADS=2,3,7: threads 1, 2, 3 and 7 in one run; make test-sanitize with 7 alone,
// the most partitions of the rows, as ASan looks for memory errors, not for different bits).
inline std::vector<unsigned> thread_counts(std::vector<unsigned> defaults) {
    const char* env = std::getenv("ATTN_TEST_THREADS");
    if (!env || !*env) return defaults;
    std::vector<unsigned> counts{1u};
    for (const char* p = env; *p;) {
        char* end = nullptr;
        const unsigned t = unsigned(std::strtoul(p, &end, 10));
        if (end == p) break;  // not a number: the rest is ignored
        if (t > 1 && std::find(counts.begin(), counts.end(), t) == counts.end()) counts.push_back(t);
        p = *end == ',' ? end + 1 : end;
    }
    return counts;
}

// Stride of the sweeps over every float bit pattern: `fallback` (make test: the full sweep), or
// the odd number in $ATTN_TEST_SWEEP_STRIDE (make test-sanitize shortens the sweep with it).
inline unsigned long long sweep_stride(unsigned long long fallback) {
    const char* env = std::getenv("ATTN_TEST_SWEEP_STRIDE");
    const unsigned long long s = env && *env ? std::strtoull(env, nullptr, 10) : 0;
    return s > 0 && s % 2 == 1 ? s : fallback;
}

}  // namespace test_util
