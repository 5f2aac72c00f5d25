// N-D input and output: every text form and .npy layout of tensors of 3 and 4 dimensions,
// the block rules (index order, equal shapes, no silent gluing), and round trips through
// every output format. Expected values come from the formulas stated in the inputs (and in
// data/fixtures/make_tensor_fixtures.py), never from attn's own output.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/tensor.hpp"

using attn::InputError;
using attn::Matrix;
using attn::Shape;
using attn::Tensor;
using attn::TensorView;
using attn::io::Finite;
using attn::io::Format;
using attn::io::OutputOptions;

namespace {

Tensor parse(std::string_view s, std::size_t max_dims = 4) {
    return attn::io::parse_tensor(s, "t.txt", Finite::required, max_dims);
}

std::string error_of(std::string_view s, std::size_t max_dims = 4) {
    try {
        parse(s, max_dims);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// Every element of t equals f(index) exactly; t has the given shape.
template <class F>
void check_all(const Tensor& t, const Shape& shape, F f) {
    REQUIRE(t.shape() == shape);
    const TensorView v = t.view();
    std::vector<std::size_t> index(shape.rank(), 0);
    for (std::size_t n = 0; n < shape.numel(); ++n) {
        std::size_t k = n;
        for (std::size_t i = shape.rank(); i-- > 0;) {
            index[i] = k % shape[i];
            k /= shape[i];
        }
        INFO("element " << n);
        CHECK(v.at(index.data()) == f(index));
    }
}

// T3 of make_tensor_fixtures.py: (12 i + 4 j + k) / 4 - 2.5, shape 2x3x4.
float t3(const std::vector<std::size_t>& x) { return float(12 * x[0] + 4 * x[1] + x[2]) / 4.0f - 2.5f; }

// Bitwise equality of two tensors (shape first).
void check_identical(const Tensor& a, const Tensor& b) {
    REQUIRE(a.shape() == b.shape());
    const TensorView va = a.view(), vb = b.view();
    for (std::size_t s = 0; s < va.slices(); ++s)
        for (std::size_t r = 0; r < va.rows(); ++r)
            for (std::size_t c = 0; c < va.cols(); ++c) {
                INFO("slice " << s << ", row " << r << ", column " << c);
                CHECK(std::bit_cast<std::uint32_t>(va.slice(s)(r, c)) == std::bit_cast<std::uint32_t>(vb.slice(s)(r, c)));
            }
}

std::string render(const attn::io::Item& item, Format f, int digits = -1) {
    OutputOptions o;
    o.format = f;
    o.digits = digits;
    return attn::io::render({item}, o);
}

const std::string fixtures = "data/fixtures/";

}  // namespace

TEST_CASE("tensor text: nested brackets of 3 and 4 dimensions") {
    check_all(parse("[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"), Shape{2, 2, 2},
              [](auto& x) { return float(4 * x[0] + 2 * x[1] + x[2] + 1); });
    // 4-D, a trailing comma and line breaks as NumPy and PyTorch print them
    check_all(parse("[[[[0, 1, 2]],\n  [[3, 4, 5]]]]"), Shape{1, 2, 1, 3},
              [](auto& x) { return float(3 * x[1] + x[3]); });
    // a single bracketed row is 1-D
    check_all(parse("[1.5, -2]"), Shape{2}, [](auto& x) { return x[0] == 0 ? 1.5f : -2.0f; });
    // rows of numbers are 2-D even when there is one row
    check_all(parse("1 2 3\n"), Shape{1, 3}, [](auto& x) { return float(x[1] + 1); });
    // attn's json of one tensor
    check_all(parse("{\n  \"context\": [\n    [\n      [1, 2]\n    ],\n    [\n      [3, 4]\n    ]\n  ]\n}\n"),
              Shape{2, 1, 2}, [](auto& x) { return float(2 * x[0] + x[2] + 1); });
}

TEST_CASE("tensor text: prints pasted from PyTorch and NumPy (fixtures)") {
    check_all(attn::io::read_tensor(fixtures + "pasted_torch_3d.txt"), Shape{2, 3, 4},
              [](auto& x) { return t3(x); });
    check_all(attn::io::read_tensor(fixtures + "pasted_numpy_3d.txt"), Shape{2, 3, 4},
              [](auto& x) { return t3(x); });
    // a 2-D-only caller names the shape it refuses
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(fixtures + "pasted_torch_3d.txt"),
                         "data/fixtures/pasted_torch_3d.txt: expected a matrix, got shape (2, 3, 4)", InputError);
}

TEST_CASE("tensor text: nested bracket errors") {
    CHECK(error_of("[[[1, 2], [3, 4]], [[5, 6]]]") ==
          "t.txt:1:20: this list has 1 entry, expected 2 as the first one at this depth");
    CHECK(error_of("[[[1, 2]], [[3, 4, 5]]]") == "t.txt:1: row has 3 values, expected 2");
    CHECK(error_of("[[[1, 2]], [3, 4]]") == "t.txt:1:13: expected '[', found '3'");
    CHECK(error_of("[[1, 2], [[3, 4]]]") == "t.txt:1:11: expected a number, found '['");
    CHECK(error_of("[[[[[1]]]]]") == "t.txt: shape (1, 1, 1, 1, 1) has 5 dimensions: at most 4 are supported here");
    CHECK(parse("[[[[[1]]]]]", 5).shape() == Shape{1, 1, 1, 1, 1});
    // 33 levels: refused while reading, before any deeper recursion
    CHECK(error_of(std::string(33, '[') + "1" + std::string(33, ']'), attn::max_rank) ==
          "t.txt:1:33: more than 32 levels of brackets");
}

TEST_CASE("tensor text: blocks with index comments, as attn prints csv and tsv") {
    // "# [b]" alone
    check_all(parse("# [0]\n1 2\n3 4\n# [1]\n5 6\n7 8\n"), Shape{2, 2, 2},
              [](auto& x) { return float(4 * x[0] + 2 * x[1] + x[2] + 1); });
    // "# NAME [b, h] RxC", blank lines and ordinary comments between blocks
    const std::string csv =
        "# weights [0, 0] 1x2\n1,2\n\n# weights [0, 1] 1x2\n3,4\n\n# a note\n# weights [1, 0] 1x2\n5,6\n\n"
        "# weights [1, 1] 1x2\n7,8\n\n";
    check_all(parse(csv), Shape{2, 2, 1, 2}, [](auto& x) { return float(4 * x[0] + 2 * x[1] + x[3] + 1); });
    // pretty titles
    check_all(parse("w [0] (1x2):\n  1.0000  2.0000\n\nw [1] (1x2):\n  3.0000  4.0000\n"), Shape{2, 1, 2},
              [](auto& x) { return float(2 * x[0] + x[2] + 1); });
    // attn random's older comments "# draw 0 [i, j]": one draw of a 3-D shape
    check_all(parse("# draw 0 [0]\n1\n# draw 0 [1]\n2\n"), Shape{2, 1, 1}, [](auto& x) { return float(x[0] + 1); });
    // one block with an index keeps its leading dimension
    CHECK(parse("# [0]\n1 2\n").shape() == Shape{1, 1, 2});
    // "# NAME RxC" of a single matrix is still a matrix
    CHECK(parse("# scores 2x2\n1,2\n3,4\n").shape() == Shape{2, 2});
}

TEST_CASE("tensor text: block errors name the place") {
    CHECK(error_of("# [0]\n1 2\n# [2]\n3 4\n") ==
          "t.txt:3:1: block [2] is out of order: expected [1] (blocks come in C order, last index fastest)");
    CHECK(error_of("# [0, 0]\n1\n# [1, 0]\n2\n# [0, 1]\n3\n# [1, 1]\n4\n") ==
          "t.txt:3:1: block [1, 0] is out of order: expected [0, 1] (blocks come in C order, last index fastest)");
    CHECK(error_of("# [0, 0]\n1\n# [0, 1]\n2\n# [1, 0]\n3\n") ==
          "t.txt: block [1, 1] is missing: the blocks do not fill the grid of their indices");
    CHECK(error_of("# [0]\n1 2\n3 4\n# [1]\n5 6\n") == "t.txt:4:1: block [1] has 1 rows, expected 2 as block [0]");
    CHECK(error_of("# [0]\n1 2\n# [1]\n5 6 7\n") == "t.txt:4: row has 3 values, expected 2");
    CHECK(error_of("# w [0] 2x2\n1 2\n") == "t.txt:1:1: the header says 2x2 but the block is 1x2");
    CHECK(error_of("# [0]\n# [1]\n1 2\n") == "t.txt:1:1: this block has no rows");
    CHECK(error_of("# [0]\n1\n# [0, 1]\n2\n") == "t.txt:3:1: index [0, 1] has 2 dimensions, the first block's [0] has 1");
    // two tensors (another name) are not one
    CHECK(error_of("# q [0] 1x1\n1\n\n# k [0] 1x1\n2\n") ==
          "t.txt:4:1: a second matrix starts here; attn reads one matrix per input");
    // blocks without index comments are never glued: attn random --count 2 (older and
    // current headers), attn's csv of two matrices, rows before an index comment
    CHECK(error_of("# draw 0\n1,2\n\n# draw 1\n3,4\n") ==
          "t.txt:4:1: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("# draw 0 1x2\n1,2\n\n# draw 1 1x2\n3,4\n\n") ==
          "t.txt:4:1: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("# draw 0 [0]\n1\n# draw 1 [0]\n2\n") ==
          "t.txt:3:1: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("1 2\n# [0]\n3 4\n") == "t.txt:2:1: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("# [0, 0, 0]\n1\n") == "t.txt: shape (1, 1, 1, 1, 1) has 5 dimensions: at most 4 are supported here");
    // 31 indices + rows × columns = 33 dimensions: beyond NumPy's limit whatever the caller allows
    std::string idx = "# [0";
    for (int k = 1; k < 31; ++k) idx += ", 0";
    CHECK(error_of(idx + "]\n1\n", 40).rfind("t.txt: shape (1, 1, ", 0) == 0);
    CHECK(error_of(idx + "]\n1\n", 40).find(") has 33 dimensions: at most 32 are supported here") != std::string::npos);
}

TEST_CASE("tensor text: json's null (attn's json for NaN and infinity) is refused, or read as the reader says") {
    const std::string json = "[[1, null], [null, 2]]";
    const auto read = [&](Finite f) { return attn::io::parse_tensor(json, "t.json", f, 2); };
    for (Finite f : {Finite::required, Finite::allow_neg_inf, Finite::any})
        CHECK_THROWS_WITH_AS(read(f), doctest::Contains("found 'null', json's stand-in for NaN or infinity"),
                             attn::InputError);
    const Tensor neg = read(Finite::any_null_neg_inf), nan = read(Finite::any_null_nan);
    REQUIRE(neg.shape() == Shape{2, 2});
    REQUIRE(nan.shape() == Shape{2, 2});
    CHECK(neg.data()[0] == 1.0f);
    CHECK(neg.data()[1] == -INFINITY);
    CHECK(neg.data()[neg.row_stride()] == -INFINITY);
    CHECK(std::isnan(nan.data()[1]));
    CHECK(std::isnan(nan.data()[nan.row_stride()]));
    CHECK(nan.data()[nan.row_stride() + 1] == 2.0f);
}

TEST_CASE("tensor npy: any shape, C and Fortran order, every dtype (numpy-made fixtures)") {
    check_all(attn::io::read_tensor(fixtures + "tensor3_le_f4_c.npy"), Shape{2, 3, 4}, [](auto& x) { return t3(x); });
    check_all(attn::io::read_tensor(fixtures + "tensor3_be_f8_fortran.npy"), Shape{2, 3, 4},
              [](auto& x) { return t3(x); });
    check_all(attn::io::read_tensor(fixtures + "tensor4_le_i4_fortran.npy"), Shape{2, 1, 3, 4},
              [](auto& x) { return float(12 * x[0] + 4 * x[2] + x[3]) - 7.0f; });
    CHECK(attn::io::read_tensor(fixtures + "vector_f4.npy").shape() == Shape{5});
    CHECK_THROWS_WITH_AS(attn::io::read_tensor(fixtures + "tensor5_f4.npy"),
                         "data/fixtures/tensor5_f4.npy: shape (1, 1, 1, 2, 2) has 5 dimensions: at most 4 are "
                         "supported here",
                         InputError);
    CHECK(attn::io::read_tensor(fixtures + "tensor5_f4.npy", Finite::required, 5).shape() == Shape{1, 1, 1, 2, 2});
    CHECK_THROWS_WITH_AS(attn::io::read_tensor(fixtures + "scalar_f4.npy"),
                         "data/fixtures/scalar_f4.npy: 0-d array (a single number): expected at least one dimension",
                         InputError);
}

TEST_CASE("tensor npy: a non-finite value of an N-D array is named by its index") {
    // <f4, shape (1, 2, 2), C order: NaN at [0, 1, 0]
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2), }";
    dict.append(128 - 10 - dict.size() - 1, ' ');
    dict += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(dict.size()) + char(0) + dict;
    const float values[4] = {1, 2, std::numeric_limits<float>::quiet_NaN(), 4};
    bytes.append(reinterpret_cast<const char*>(values), sizeof values);  // the build targets little-endian
    CHECK_THROWS_WITH_AS(attn::io::parse_tensor(bytes, "n.npy"),
                         "n.npy: index [0, 1, 0] (0-based): non-finite value 'nan' is not allowed here", InputError);
}

TEST_CASE("tensor output: csv, tsv, json, pretty and npy of a 3-D tensor, written out by hand") {
    Tensor t(Shape{2, 1, 2});
    t.slice_data(0)[0] = 1.5f, t.slice_data(0)[1] = -2;
    t.slice_data(1)[0] = 0.25f, t.slice_data(1)[1] = 3;
    const auto item = attn::io::tensor_item("w", t.view());
    CHECK(render(item, Format::csv) == "# w [0] 1x2\n1.5,-2\n\n# w [1] 1x2\n0.25,3\n\n");
    CHECK(render(item, Format::tsv) == "# w [0] 1x2\n1.5\t-2\n\n# w [1] 1x2\n0.25\t3\n\n");
    CHECK(render(item, Format::json) ==
          "{\n  \"w\": [\n    [\n      [1.5, -2]\n    ],\n    [\n      [0.25, 3]\n    ]\n  ]\n}\n");
    CHECK(render(item, Format::pretty) == "w [0] (1x2):\n  1.5000  -2.0000\n\nw [1] (1x2):\n  0.2500  3.0000\n");
    const std::string npy = attn::io::npy_bytes(t.view());
    REQUIRE(npy.size() == 128 + 16);  // the header padded to 128 bytes
    CHECK(npy.substr(10, 118).find("'shape': (2, 1, 2)") != std::string::npos);
    float back[4];
    std::memcpy(back, npy.data() + 128, 16);
    CHECK(back[0] == 1.5f);
    CHECK(back[1] == -2.0f);
    CHECK(back[2] == 0.25f);
    CHECK(back[3] == 3.0f);
    // stream_blocks: one item as a stream of blocks prints the same blocks
    for (Format f : {Format::csv, Format::tsv, Format::pretty}) {
        OutputOptions o;
        o.format = f;
        std::string streamed;
        attn::io::stream_blocks(item, o, [&](std::string_view piece) { streamed += piece; });
        CHECK(streamed == render(item, f));
    }
    std::string json;
    attn::io::stream_json_array(t.view(), 9, 2, [&](std::string_view piece) { json += piece; });
    CHECK("{\n  \"w\": " + json + "\n}\n" == render(item, Format::json));
    // 4-D headers carry two indices
    Tensor four(Shape{1, 2, 1, 1});
    CHECK(render(attn::io::tensor_item("x", four.view()), Format::csv) == "# x [0, 0] 1x1\n0\n\n# x [0, 1] 1x1\n0\n\n");
}

TEST_CASE("tensor output: a matrix prints byte for byte as before, whether given as Matrix or as a view") {
    Matrix m(2, 3);
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t c = 0; c < 3; ++c) m(r, c) = float(r) - 0.1f * float(c);
    attn::io::Item as_matrix;
    as_matrix.name = "m";
    as_matrix.matrix = &m;
    const auto as_view = attn::io::tensor_item("m", attn::view_of(m));
    for (Format f : {Format::csv, Format::tsv, Format::json, Format::pretty}) {
        INFO("format " << int(f));
        CHECK(render(as_matrix, f) == render(as_view, f));
    }
    CHECK(render(as_matrix, Format::csv) == "0,-0.100000001,-0.200000003\n1,0.899999976,0.800000012\n");
    CHECK(attn::io::npy_bytes(m) == attn::io::npy_bytes(attn::view_of(m)));
}

TEST_CASE("tensor round trip: every format reads back what it wrote, bit for bit where it can") {
    // Values that need all 9 significant digits, a tiny and a huge one, and -0.
    for (const Shape& shape : {Shape{2, 3, 5}, Shape{2, 3, 2, 5}, Shape{1, 1, 4, 1}, Shape{3, 7}}) {
        INFO("shape " << shape.text());
        Tensor t(shape);
        for (std::size_t s = 0; s < t.slices(); ++s)
            for (std::size_t r = 0; r < t.rows(); ++r)
                for (std::size_t c = 0; c < t.cols(); ++c) {
                    const std::size_t n = (s * t.rows() + r) * t.cols() + c;
                    float v = float(std::sin(double(n) * 1.7) / 3.0);
                    if (n == 1) v = 1.17549435e-38f * 3;
                    if (n == 2) v = -3.4e38f;
                    if (n == 3) v = -0.0f;
                    t.slice_data(s)[r * t.row_stride() + c] = v;
                }
        const auto item = attn::io::tensor_item("x", t.view());
        for (Format f : {Format::csv, Format::tsv, Format::json}) {
            INFO("format " << int(f));
            check_identical(parse(render(item, f)), t);
        }
        check_identical(attn::io::parse_tensor(attn::io::npy_bytes(t.view()), "x.npy"), t);
        // pretty prints fixed decimals: with 12 of them each value comes back within 5e-13
        const Tensor back = parse(render(item, Format::pretty, 12));
        REQUIRE(back.shape() == shape);
        for (std::size_t s = 0; s < t.slices(); ++s)
            for (std::size_t r = 0; r < t.rows(); ++r)
                for (std::size_t c = 0; c < t.cols(); ++c)
                    CHECK(std::fabs(back.slice(s)(r, c) - t.slice(s)(r, c)) <=
                          5e-13 + 1e-6 * std::fabs(t.slice(s)(r, c)));
    }
}

TEST_CASE("tensor output: several items print as blocks that name each one") {
    Tensor a(Shape{2, 1, 1});
    Matrix b(1, 1);
    OutputOptions o;
    o.format = Format::csv;
    attn::io::Item mb;
    mb.name = "b";
    mb.matrix = &b;
    CHECK(attn::io::render({attn::io::tensor_item("a", a.view()), mb}, o) ==
          "# a [0] 1x1\n0\n\n# a [1] 1x1\n0\n\n# b 1x1\n0\n\n");
}
