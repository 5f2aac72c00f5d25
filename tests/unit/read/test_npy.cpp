// .npy reader and writer. Valid files come from numpy (data/fixtures, see its README);
// malformed ones are built byte by byte here.
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"

using attn::InputError;
using attn::Matrix;
using attn::io::Finite;

namespace {

const std::string fixtures = "data/fixtures/";

// The values make_fixtures.py saved.
const std::vector<std::vector<float>> floats = {{1.5f, -2.25f, 0.125f}, {3.0f, 4.5f, -0.5f}};
const std::vector<std::vector<float>> ints = {{1, -2, 3}, {40, 5, -6}};

using test_util::check_matrix;

// A .npy file from its parts: version, header dict text (padded with spaces and '\n' to a
// multiple of 64 bytes, unless raw), and data bytes.
std::string npy(const std::string& dict, const std::string& data, int major = 1, bool raw = false) {
    std::string header = dict;
    const std::size_t preamble = major == 1 ? 10 : 12;
    if (!raw) {
        while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
        header += '\n';
    }
    std::string out = "\x93NUMPY";
    out += char(major);
    out += char(0);
    const std::size_t n = header.size();
    out += char(n & 0xff);
    out += char((n >> 8) & 0xff);
    if (major != 1) {
        out += char((n >> 16) & 0xff);
        out += char((n >> 24) & 0xff);
    }
    return out + header + data;
}

std::string f4_data(const std::vector<float>& v) {
    std::string out(v.size() * 4, '\0');
    std::memcpy(out.data(), v.data(), out.size());  // little-endian host (x86-64, aarch64)
    return out;
}

const std::string good_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
const std::string good_data = f4_data({1.5f, -2.25f, 0.125f, 3.0f, 4.5f, -0.5f});

std::string error_of(const std::string& bytes, Finite f = Finite::required) {
    try {
        attn::io::parse_npy(bytes, "m.npy", f);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("npy: every float dtype in both byte orders and both memory orders") {
    for (const char* dtype : {"le_f4", "le_f8", "be_f4", "be_f8", "le_f2"})
        for (const char* order : {"c", "fortran"}) {
            const std::string name = fixtures + "floats_" + dtype + "_" + order + ".npy";
            INFO(name);
            check_matrix(attn::io::read_matrix(name), floats);
        }
}

TEST_CASE("npy: integer and boolean dtypes") {
    for (const char* dtype : {"le_i4", "le_i8"})
        for (const char* order : {"c", "fortran"}) {
            const std::string name = fixtures + "ints_" + dtype + "_" + order + ".npy";
            INFO(name);
            check_matrix(attn::io::read_matrix(name), ints);
        }
    check_matrix(attn::io::read_matrix(fixtures + "mask_b1.npy"), {{1, 0, 1}, {0, 1, 1}});
}

TEST_CASE("npy: versions 2.0 and 3.0, and a vector as a 1xn row") {
    check_matrix(attn::io::read_matrix(fixtures + "floats_v2.npy"), floats);
    check_matrix(attn::io::read_matrix(fixtures + "floats_v3.npy"), floats);
    check_matrix(attn::io::read_matrix(fixtures + "vector_f4.npy"), {{0.1f, -0.2f, 0.3f, -0.2f, 0.5f}});
}

TEST_CASE("npy: shapes and dtypes that are rejected (numpy-made files)") {
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "batched_f4.npy"),
                         "data/fixtures/batched_f4.npy: expected a matrix, got shape (2, 2, 3)", InputError);
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "scalar_f4.npy"),
                         "data/fixtures/scalar_f4.npy: 0-d array (a single number): expected at least one dimension",
                         InputError);
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "object.npy"),
                         "data/fixtures/object.npy: object arrays are not supported (dtype '|O')", InputError);
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "empty_f4.npy"),
                         "data/fixtures/empty_f4.npy: empty array: shape (0, 3)", InputError);
}

TEST_CASE("npy: non-finite and out-of-range values name their position") {
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "nan_f4.npy"),
                         "data/fixtures/nan_f4.npy: row 1, column 0 (0-based): non-finite value 'nan' is not allowed here",
                         InputError);
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "nan_f4.npy", Finite::allow_neg_inf),
                         "data/fixtures/nan_f4.npy: row 1, column 0 (0-based): non-finite value 'nan' is not allowed here (only -inf is)",
                         InputError);
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "neginf_f8.npy"),
                         "data/fixtures/neginf_f8.npy: row 0, column 2 (0-based): non-finite value '-inf' is not allowed here",
                         InputError);
    const Matrix m = attn::io::read_matrix(fixtures + "neginf_f8.npy", Finite::allow_neg_inf);
    check_matrix(m, {{1, 2, -std::numeric_limits<float>::infinity()}, {4, 5, 6}});
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "huge_f8.npy"),
                         "data/fixtures/huge_f8.npy: row 0, column 1 (0-based): value is out of float32 range", InputError);
}

TEST_CASE("npy: hand-built headers — accepted variations") {
    check_matrix(attn::io::parse_npy(npy(good_dict, good_data), "m.npy"), floats);
    // keys in any order, double quotes, no trailing comma, Python 2 long literals
    check_matrix(attn::io::parse_npy(npy("{\"shape\": (2L, 3L), \"fortran_order\": False, \"descr\": \"<f4\"}", good_data),
                                     "m.npy"),
                 floats);
    // version 2.0 with a 4-byte header length
    check_matrix(attn::io::parse_npy(npy(good_dict, good_data, 2), "m.npy"), floats);
    // a header that is not 64-byte aligned is still valid input
    check_matrix(attn::io::parse_npy(npy(good_dict + "\n", good_data, 1, true), "m.npy"), floats);
}

TEST_CASE("npy: malformed files are rejected before any allocation") {
    CHECK(error_of("\x93NUMPZ\x01\x00\x00\x00") == "m.npy: not a .npy file (bad magic)");
    CHECK(error_of("\x93NUM") == "m.npy: not a .npy file (bad magic)");
    std::string v4 = npy(good_dict, good_data);
    v4[6] = 4;
    CHECK(error_of(v4) == "m.npy: unsupported .npy version 4.0");
    std::string v11 = npy(good_dict, good_data);
    v11[7] = 1;
    CHECK(error_of(v11) == "m.npy: unsupported .npy version 1.1");
    CHECK(error_of(std::string("\x93NUMPY\x01\x00\x05", 9)) == "m.npy: truncated .npy header");
    CHECK(error_of(std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17)) == "m.npy: truncated .npy header");
    // huge header length (version 2.0: 4-byte length of 0x7fffffff)
    CHECK(error_of(std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12) + good_dict) ==
          "m.npy: header length 2147483647 exceeds the limit of 65536 bytes");
    // missing, extra and duplicate keys
    CHECK(error_of(npy("{'descr': '<f4', 'shape': (2, 3), }", good_data)) == "m.npy: header lacks the key 'fortran_order'");
    CHECK(error_of(npy("{'fortran_order': False, 'shape': (2, 3), }", good_data)) == "m.npy: header lacks the key 'descr'");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False}", good_data)) == "m.npy: header lacks the key 'shape'");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", good_data)) ==
          "m.npy: unexpected key 'extra' in header");
    CHECK(error_of(npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", good_data)) ==
          "m.npy: duplicate key 'descr' in header");
    // malformed syntax
    CHECK(error_of(npy("'descr': '<f4'", good_data)) == "m.npy: malformed header: expected '{'");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': false, 'shape': (2, 3)}", good_data)) ==
          "m.npy: malformed header: fortran_order must be True or False");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", good_data)) ==
          "m.npy: malformed header: expected '('");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", good_data)) ==
          "m.npy: malformed header: shape must be a tuple of integers");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x", good_data)) ==
          "m.npy: malformed header: unexpected text after '}'");
    // shape product overflow, and a dimension that overflows by itself
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", good_data)) ==
          "m.npy: shape (4294967296, 4294967296) is too large");
    CHECK(error_of(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952, 1)}", good_data)) ==
          "m.npy: shape (2305843009213693952, 1) is too large");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 1)}", good_data)) ==
          "m.npy: shape too large");
    // a shape that would need gigabytes, with 24 bytes present: refused, not allocated
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000)}", good_data)) ==
          "m.npy: truncated data: shape (100000, 100000) needs 40000000000 bytes, the file has 24");
    CHECK(error_of(npy(good_dict, good_data.substr(0, 20))) ==
          "m.npy: truncated data: shape (2, 3) needs 24 bytes, the file has 20");
    CHECK(error_of(npy(good_dict, good_data + "xy")) == "m.npy: 2 unexpected bytes after the array data");
    // dtypes
    CHECK(error_of(npy("{'descr': '|O', 'fortran_order': False, 'shape': (2, 3)}", good_data)) ==
          "m.npy: object arrays are not supported (dtype '|O')");
    CHECK(error_of(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3)}", good_data)) ==
          "m.npy: structured dtypes are not supported");
    CHECK(error_of(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3)}", good_data)) ==
          "m.npy: unsupported dtype '<c8'");
    CHECK(error_of(npy("{'descr': '<U1', 'fortran_order': False, 'shape': (2, 3)}", good_data)) ==
          "m.npy: unsupported dtype '<U1'");
    CHECK(error_of(npy("{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3)}", good_data)) ==
          "m.npy: unsupported dtype '|f4': '|' byte order needs a one-byte type");
    // 3-D and 0-d
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3)}", good_data)) ==
          "m.npy: expected a matrix, got shape (1, 2, 3)");
    CHECK(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", good_data.substr(0, 4))) ==
          "m.npy: 0-d array (a single number): expected at least one dimension");
}

TEST_CASE("npy: the writer produces exactly what numpy.save writes") {
    // floats_le_f4_c.npy was written by numpy 1.24's np.save: version 1.0, '<f4', C order,
    // the header padded to a 64-byte boundary.
    Matrix m(2, 3);
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t c = 0; c < 3; ++c) m(r, c) = floats[r][c];
    CHECK(attn::io::npy_bytes(m) == attn::io::read_file(fixtures + "floats_le_f4_c.npy"));
}

TEST_CASE("npy: write then read round-trips exactly, data 64-byte aligned") {
    std::mt19937 gen(12345);
    std::normal_distribution<float> dist(0.0f, 10.0f);
    for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 17}, {17, 1}, {3, 16}, {5, 33}, {64, 7}}) {
        Matrix m(rows, cols);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) m(r, c) = dist(gen);
        m(0, 0) = std::numeric_limits<float>::denorm_min();
        const std::string bytes = attn::io::npy_bytes(m);
        const std::size_t header_len = std::size_t((unsigned char)bytes[8]) | std::size_t((unsigned char)bytes[9]) << 8;
        CHECK((10 + header_len) % 64 == 0);
        CHECK(bytes.size() == 10 + header_len + rows * cols * 4);
        CHECK(bytes[10 + header_len - 1] == '\n');
        const Matrix back = attn::io::parse_npy(bytes, "rt.npy");
        REQUIRE(back.rows() == rows);
        REQUIRE(back.cols() == cols);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) CHECK(std::memcmp(back.row(r) + c, m.row(r) + c, 4) == 0);
    }
}

TEST_CASE("npy: rows adjacent in memory are written as one span, others row by row, the same bytes") {
    // Unpadded rows (16 columns) run on across slices; a broadcast slice (stride 0) repeats the
    // same rows; padded rows (17 columns) are separate spans.
    for (std::size_t cols : {16, 17}) {
        INFO("cols " << cols);
        attn::Tensor t(attn::Shape{2, 3, cols});
        for (std::size_t s = 0; s < 2; ++s)
            for (std::size_t r = 0; r < 3; ++r)
                for (std::size_t c = 0; c < cols; ++c) t.slice_data(s)[r * t.row_stride() + c] = float(100 * s + 10 * r) + 0.5f * float(c);
        attn::TensorView broadcast = t.view();
        broadcast.strides[0] = 0;  // slice 1 reads slice 0
        for (bool repeat : {false, true}) {
            const attn::TensorView v = repeat ? broadcast : t.view();
            const attn::Tensor back = attn::io::parse_npy_tensor(attn::io::npy_bytes(v), "t.npy");
            REQUIRE(back.shape() == t.shape());
            for (std::size_t s = 0; s < 2; ++s)
                for (std::size_t r = 0; r < 3; ++r)
                    for (std::size_t c = 0; c < cols; ++c)
                        CHECK(back.slice(s)(r, c) == float(100 * (repeat ? 0 : s) + 10 * r) + 0.5f * float(c));
        }
    }
}
