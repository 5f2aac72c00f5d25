// NumPy archives written by attn: read back by the zip reader of read/model (which checks every
// header against the others and each member's CRC-32), values bitwise as given, the same bytes
// on every run, and the refusals (records, duplicate names, beyond zip's limits without zip64)
// before anything is written. numpy.load reads them too: tests/e2e/test_read_back.sh.
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <sys/stat.h>

#include <bit>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model_file.hpp"
#include "runtime/crc32.hpp"
#include "write/npz_write.hpp"

using attn::Matrix;
using attn::io::Format;
using attn::io::Item;

namespace {

using test_util::TempDir;

attn::io::OutputOptions npz_to(const std::string& path) {
    attn::io::OutputOptions o;
    o.format = Format::npz;
    o.path = path;
    return o;
}

std::string bytes_of(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string usage_error(auto&& call) {
    try {
        call();
    } catch (const attn::UsageError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("crc32: summed a piece at a time equals summed whole") {
    std::string bytes;
    for (int i = 0; i < 1000; ++i) bytes += char(i * 37 + 11);
    const std::uint32_t whole = attn::io::crc32(bytes);
    for (std::size_t cut : {0, 1, 7, 8, 9, 500, 999, 1000})
        CHECK(attn::io::crc32(std::string_view(bytes).substr(cut), attn::io::crc32(std::string_view(bytes).substr(0, cut))) ==
              whole);
    CHECK(attn::io::crc32("The quick brown fox jumps over the lazy dog") == 0x414fa339u);  // the common check value
}

TEST_CASE("npz: every result as NAME.npy, read back bitwise by the zip reader") {
    TempDir dir;
    const Matrix a = test_util::matrix_of({{1.5f, -2.25f, 0.125f}, {3e-30f, 4.5f, -0.0f}});
    const std::vector<float> cube = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const attn::TensorView t = attn::contiguous_view(cube.data(), attn::Shape({2, 3, 2}));
    const std::string file = dir.path + "/all.npz";
    attn::io::write_output({Item{"weights", &a, {}, {}, {}, {}, {}}, attn::io::tensor_item("weights-mean", t)}, npz_to(file));
    const std::string bytes = bytes_of(file);
    CHECK(bytes.substr(0, 4) == "PK\x03\x04");

    const auto listed = attn::io::npz_list(bytes, file);
    REQUIRE(listed.size() == 2);
    CHECK(listed[0].name == "weights");
    CHECK(listed[0].dtype == "float32");
    CHECK(listed[1].name == "weights-mean");
    CHECK(listed[1].shape.text() == "(2, 3, 2)");
    const attn::Tensor back = attn::io::read_tensor(file + ":weights", attn::io::Finite::any);
    REQUIRE(back.shape().text() == "(2, 3)");
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t c = 0; c < 3; ++c) CHECK(std::bit_cast<std::uint32_t>(back.view().slice(0)(r, c)) ==
                                                  std::bit_cast<std::uint32_t>(a(r, c)));
    // each member holds exactly what npy output writes
    CHECK(attn::io::npy_bytes(back.view()) == attn::io::npy_bytes(a));
    const attn::Tensor mean = attn::io::read_tensor(file + ":weights-mean");
    CHECK(attn::io::npy_bytes(mean.view()) == attn::io::npy_bytes(t));

    // the same results give the same bytes
    attn::io::write_output({Item{"weights", &a, {}, {}, {}, {}, {}}, attn::io::tensor_item("weights-mean", t)},
                           npz_to(dir.path + "/again.npz"));
    CHECK(bytes_of(dir.path + "/again.npz") == bytes);
}

TEST_CASE("npz: refusals before anything is written") {
    TempDir dir;
    const Matrix a = test_util::matrix_of({{1.0f}});
    Item record;
    record.name = "variance";
    record.fields = {{"d_k", 2.0}};
    CHECK(usage_error([&] { attn::io::write_output({record}, npz_to(dir.path + "/v.npz")); }) ==
          "'variance' is a record, not a matrix: npz cannot hold it (use format json, csv, tsv or pretty)");
    using attn::io::detail::npz_size;
    CHECK(usage_error([] { npz_size({{"a", 10}, {"a", 10}}); }) ==
          "npz output: two results named 'a' (an archive holds one array per name)");
    const std::string too_big = "npz output of more than 4 GiB: attn writes zip archives without zip64; write npy files "
                                "into a folder instead";
    CHECK(usage_error([] { npz_size({{"a", std::uint64_t(1) << 32}}); }) == too_big);
    CHECK(usage_error([] { npz_size({{"a", std::uint64_t(3) << 30}, {"b", std::uint64_t(1) << 30}}); }) == too_big);
    CHECK(usage_error([] { npz_size(std::vector<attn::io::detail::NpzMember>(70000)); }) ==
          "npz output of 70000 arrays: a zip without zip64 holds at most 65535");
    // local header 30 + name, central header 46 + name, end record 22
    CHECK(npz_size({{"w", 100}}) == 30 + 5 + 100 + 46 + 5 + 22);

    // several results to x.npy: an error naming the archive and the folder, and no folder made
    attn::io::OutputOptions npy;
    npy.format = Format::npy;
    npy.path = dir.path + "/both.npy";
    CHECK(usage_error([&] {
              attn::io::write_output({Item{"a", &a, {}, {}, {}, {}, {}}, Item{"b", &a, {}, {}, {}, {}, {}}}, npy);
          }) == "output " + dir.path + "/both.npy: 2 results do not fit one .npy file: write them to an archive (" +
                    dir.path + "/both.npz) or a folder (" + dir.path + "/both/, one NAME.npy each)");
    struct stat st {};
    CHECK(::stat((dir.path + "/both.npy").c_str(), &st) != 0);
}
