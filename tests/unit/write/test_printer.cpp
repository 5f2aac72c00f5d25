// Printers: each format against text written by hand from the format's rules (the numbers
// chosen so that their printf forms are known), round trips through the text reader, and
// write_output's files and refusals.
#include <doctest/doctest.h>

#include "test_util.hpp"
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "attn/error.hpp"
#include "attn/io.hpp"

using attn::Matrix;
using attn::io::Format;
using attn::io::Item;
using attn::io::OutputOptions;

namespace {


OutputOptions opts(Format f, int digits = -1, std::string path = "") {
    OutputOptions o;
    o.format = f;
    o.digits = digits;
    o.path = std::move(path);
    return o;
}

Item matrix_item(const std::string& name, const Matrix& m) { return Item{name, &m, {}, {}, {}, {}, {}}; }

constexpr float inf = std::numeric_limits<float>::infinity();

const Matrix M = test_util::matrix_of({{1.5f, -2.25f, 0.125f}, {30.0f, 4.5f, -0.5f}});

Item variance_record() {
    Item it;
    it.name = "variance";
    it.fields = {{"d_k", 512.0}, {"scale", 1.0 / std::sqrt(512.0)}, {"masked_rows", 0.0}};
    return it;
}

using test_util::TempDir;

}  // namespace

TEST_CASE("printer: pretty aligns columns with 4 decimals by default") {
    CHECK(attn::io::render({matrix_item("M", M)}, opts(Format::pretty)) ==
          "M (2x3):\n"
          "   1.5000  -2.2500   0.1250\n"
          "  30.0000   4.5000  -0.5000\n");
    CHECK(attn::io::render({matrix_item("M", M)}, opts(Format::pretty, 1)) ==
          "M (2x3):\n"
          "   1.5  -2.2   0.1\n"  // printf rounds half to even on exact binary halves
          "  30.0   4.5  -0.5\n");
}

TEST_CASE("printer: pretty with labels, several items, records, non-finite values") {
    Item it = matrix_item("weights", M);
    it.row_labels = {"a", "bb"};
    it.col_labels = {"x", "y", "zzzzzzzzz"};
    const Matrix one = test_util::matrix_of({{-inf, std::nanf(""), inf}});
    CHECK(attn::io::render({it, matrix_item("s", one), variance_record()}, opts(Format::pretty)) ==
          "weights (2x3):\n"
          "            x        y  zzzzzzzzz\n"
          "  a    1.5000  -2.2500     0.1250\n"
          "  bb  30.0000   4.5000    -0.5000\n"
          "\n"
          "s (1x3):\n"
          "  -inf  nan  inf\n"
          "\n"
          "variance:\n"
          "  d_k          512\n"
          "  scale        0.0442\n"
          "  masked_rows  0\n");
    // labels that do not match the shape are left out rather than misaligned
    Item bad = matrix_item("M", M);
    bad.row_labels = {"only-one"};
    CHECK(attn::io::render({bad}, opts(Format::pretty)) == attn::io::render({matrix_item("M", M)}, opts(Format::pretty)));
}

TEST_CASE("printer: pretty aligns labels by display width, not bytes (UTF-8)") {
    // "café" is 4 columns in 5 bytes, "日本" 4 columns (two wide characters) in 6 bytes,
    // "e\u0301" 1 column (e + combining acute) in 3 bytes: columns line up as with ASCII.
    Item it = matrix_item("weights", M);
    it.row_labels = {"café", "日本"};
    it.col_labels = {"e\u0301", "ab", "xyz"};
    CHECK(attn::io::render({it}, opts(Format::pretty)) ==
          "weights (2x3):\n"
          "              e\u0301       ab      xyz\n"
          "  café   1.5000  -2.2500   0.1250\n"
          "  日本  30.0000   4.5000  -0.5000\n");
}

TEST_CASE("printer: csv and tsv, 9 significant digits, bare when alone") {
    const Matrix tenth = test_util::matrix_of({{0.1f, 1.0f / 3.0f}, {1e-10f, -7e20f}});
    // '%.9g' of the float32 nearest 0.1, 1/3, 1e-10 and -7e20 (checked with Python's numpy)
    CHECK(attn::io::render({matrix_item("p", tenth)}, opts(Format::csv)) ==
          "0.100000001,0.333333343\n"
          "1.00000001e-10,-6.99999979e+20\n");
    CHECK(attn::io::render({matrix_item("p", tenth)}, opts(Format::tsv, 3)) == "0.1\t0.333\n1e-10\t-7e+20\n");
    CHECK(attn::io::render({matrix_item("M", M)}, opts(Format::csv)) == "1.5,-2.25,0.125\n30,4.5,-0.5\n");
    CHECK(attn::io::render({matrix_item("s", test_util::matrix_of({{-inf, std::nanf(""), inf}}))}, opts(Format::csv)) ==
          "-inf,nan,inf\n");
}

TEST_CASE("printer: csv with several items: '# NAME RxC' blocks and records") {
    const Matrix one = test_util::matrix_of({{7.0f}});
    CHECK(attn::io::render({matrix_item("scores", M), matrix_item("context", one), variance_record()}, opts(Format::csv)) ==
          "# scores 2x3\n1.5,-2.25,0.125\n30,4.5,-0.5\n\n"
          "# context 1x1\n7\n\n"
          "# variance\nd_k,512\nscale,0.0441941738\nmasked_rows,0\n\n");
    CHECK(attn::io::render({variance_record()}, opts(Format::tsv)) ==
          "# variance\nd_k\t512\nscale\t0.0441941738\nmasked_rows\t0\n");
}

TEST_CASE("printer: json object keyed by name, null for non-finite") {
    const Matrix odd = test_util::matrix_of({{0.5f, -inf}, {std::nanf(""), 2.0f}});
    CHECK(attn::io::render({matrix_item("weights", odd), variance_record()}, opts(Format::json)) ==
          "{\n"
          "  \"weights\": [\n"
          "    [0.5, null],\n"
          "    [null, 2]\n"
          "  ],\n"
          "  \"variance\": {\n"
          "    \"d_k\": 512,\n"
          "    \"scale\": 0.0441941738,\n"
          "    \"masked_rows\": 0\n"
          "  }\n"
          "}\n");
    CHECK(attn::io::render({matrix_item("a\"b\\c\n", test_util::matrix_of({{1.0f}}))}, opts(Format::json)) ==
          "{\n  \"a\\\"b\\\\c\\u000a\": [\n    [1]\n  ]\n}\n");
}

TEST_CASE("printer: csv output reads back bit-exactly (float32 round trip)") {
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
    std::uniform_int_distribution<int> expo(-40, 38);
    Matrix m(9, 13);
    for (std::size_t r = 0; r < m.rows(); ++r)
        for (std::size_t c = 0; c < m.cols(); ++c) m(r, c) = std::ldexp(mant(gen), expo(gen) * 3 / 4);
    m(0, 0) = std::numeric_limits<float>::max();
    m(0, 1) = std::numeric_limits<float>::denorm_min();
    m(0, 2) = -inf;
    for (Format f : {Format::csv, Format::tsv}) {
        const Matrix back = attn::io::parse_text(attn::io::render({matrix_item("m", m)}, opts(f)), "rt",
                                                 attn::io::Finite::allow_neg_inf);
        REQUIRE(back.rows() == m.rows());
        REQUIRE(back.cols() == m.cols());
        for (std::size_t r = 0; r < m.rows(); ++r)
            for (std::size_t c = 0; c < m.cols(); ++c) CHECK(std::memcmp(back.row(r) + c, m.row(r) + c, 4) == 0);
    }
}

// "SETTING: MESSAGE" of the SettingError that `call` throws, with `flag` where the setting is
// named, as the CLI prints it.
template <class F>
std::string setting_error(F&& call, const char* flag) {
    try {
        call();
    } catch (const attn::SettingError& e) {
        return e.setting() + ": " + e.message_with(flag);
    }
    return "no SettingError";
}

TEST_CASE("printer: parse_format") {
    CHECK(attn::io::parse_format("pretty") == Format::pretty);
    CHECK(attn::io::parse_format("csv") == Format::csv);
    CHECK(attn::io::parse_format("tsv") == Format::tsv);
    CHECK(attn::io::parse_format("json") == Format::json);
    CHECK(attn::io::parse_format("npy") == Format::npy);
    // The library names the setting, not the flag; the CLI puts its flag in.
    CHECK_THROWS_WITH_AS(attn::io::parse_format("xml"), "invalid format 'xml': expected pretty, csv, tsv, json, npy or npz",
                         attn::UsageError);
    CHECK(setting_error([] { attn::io::parse_format("xml"); }, "--format") ==
          "format: invalid --format 'xml': expected pretty, csv, tsv, json, npy or npz");
}

TEST_CASE("write_output: files, npy directories, and refusals") {
    TempDir dir;
    // a text file, replaced atomically, no temporary left behind
    const std::string file = dir.path + "/out.csv";
    attn::io::write_output({matrix_item("M", M)}, opts(Format::csv, -1, file));
    CHECK(attn::io::read_file(file) == "1.5,-2.25,0.125\n30,4.5,-0.5\n");
    attn::io::write_output({matrix_item("M", test_util::matrix_of({{1.0f}}))}, opts(Format::csv, -1, file));
    CHECK(attn::io::read_file(file) == "1\n");

    // one npy → a file; several → a directory created on demand
    attn::io::write_output({matrix_item("M", M)}, opts(Format::npy, -1, dir.path + "/m.npy"));
    CHECK(attn::io::read_file(dir.path + "/m.npy") == attn::io::npy_bytes(M));
    const Matrix one = test_util::matrix_of({{7.0f, 8.0f}});
    attn::io::write_output({matrix_item("scores", M), matrix_item("context", one)},
                           opts(Format::npy, -1, dir.path + "/npys"));
    const Matrix s = attn::io::read_matrix(dir.path + "/npys/scores.npy");
    const Matrix c = attn::io::read_matrix(dir.path + "/npys/context.npy");
    CHECK(s.rows() == 2);
    CHECK(s(1, 0) == 30.0f);
    CHECK(c.cols() == 2);
    CHECK(c(0, 1) == 8.0f);
    const std::string listing = [&] {
        std::string out;
        FILE* p = ::popen(("ls -A '" + dir.path + "'").c_str(), "r");
        char buf[256];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        ::pclose(p);
        return out;
    }();
    CHECK(listing == "m.npy\nnpys\nout.csv\n");

    CHECK(setting_error([&] { attn::io::write_output({variance_record()}, opts(Format::npy, -1, dir.path + "/v.npy")); },
                        "--format") ==
          "format: 'variance' is a record, not a matrix: npy cannot hold it (use --format json, csv, tsv or pretty)");
    CHECK(setting_error([&] { attn::io::write_output({matrix_item("a", M), matrix_item("b", M)}, opts(Format::npy)); },
                        "-o") == "output: npy output of 2 matrices needs -o DIR/ (one DIR/NAME.npy each), or use npz (one archive)");
    const std::string not_dir = "output: -o " + file + ": not a directory (npy output to a folder: one NAME.npy a result)";
    CHECK(setting_error([&] { attn::io::write_output({matrix_item("a", M), matrix_item("b", M)}, opts(Format::npy, -1, file)); },
                        "-o") == not_dir);
    CHECK_THROWS_AS(attn::io::write_output({matrix_item("M", M)}, opts(Format::csv, -1, dir.path + "/no/such/dir/x.csv")),
                    attn::RuntimeFailure);
    CHECK_THROWS_AS(attn::io::render({matrix_item("M", M)}, opts(Format::npy)), attn::UsageError);
}

TEST_CASE("json strings: controls and bidirectional overrides are escaped, other characters kept") {
    // Nothing reaches a terminal raw that could drive it or reorder what it shows; the text
    // itself is kept (a token's json is its text).
    CHECK(attn::io::json_quote("a\tb") == "\"a\\u0009b\"");
    CHECK(attn::io::json_quote("x\xC2\x85y") == "\"x\\u0085y\"");                  // C1 NEL
    CHECK(attn::io::json_quote("a\xE2\x80\xAE" "b") == "\"a\\u202eb\"");          // RIGHT-TO-LEFT OVERRIDE
    CHECK(attn::io::json_quote("\xE2\x81\xA6" "c") == "\"\\u2066c\"");             // LEFT-TO-RIGHT ISOLATE
    CHECK(attn::io::json_quote("\xE2\x80\x8F\xE2\x82\xAC") == "\"\xE2\x80\x8F\xE2\x82\xAC\"");  // RLM and € kept
    CHECK(attn::io::json_quote("q\"\\") == "\"q\\\"\\\\\"");
    CHECK(attn::io::json_quote("a\xE2\x80") == "\"a??\"");  // a sequence cut short: not UTF-8
}
