// Model files: the zip reader and inflate (vectors from zlib, fixtures from numpy, see
// data/models/README.md), the safetensors reader (valid files from the fixture script,
// malformed headers built byte by byte here), and model paths.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/model_file.hpp"
#include "read/content_hint.hpp"
#include "read/model/zip.hpp"
#include "test_util.hpp"

using attn::InputError;
using attn::Tensor;
using attn::io::Finite;

namespace {

const std::string models = "data/models/";
// The literals of make_models.py.
const std::vector<std::vector<float>> floats = {{1.5f, -2.25f, 0.125f}, {3.0f, 4.5f, -0.5f}};

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    REQUIRE(f.good());
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string unhex(const std::string& hex) {
    std::string out;
    for (std::size_t k = 0; k + 1 < hex.size(); k += 2) out += char(std::stoi(hex.substr(k, 2), nullptr, 16));
    return out;
}

void check_tensor_2d(Tensor t, const std::vector<std::vector<float>>& expected) {
    REQUIRE(t.rank() <= 2);
    test_util::check_matrix(std::move(t).to_matrix(), expected);
}

std::string error_of(auto&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// A safetensors file: u64 little-endian header length, the header, the data.
std::string safetensors(const std::string& header, const std::string& data) {
    std::string out;
    for (int k = 0; k < 8; ++k) out += char((header.size() >> (8 * k)) & 0xff);
    return out + header + data;
}

std::string f32_bytes(std::initializer_list<float> values) {
    std::string out;
    for (float v : values) {
        std::uint32_t bits;
        std::memcpy(&bits, &v, 4);
        for (int k = 0; k < 4; ++k) out += char((bits >> (8 * k)) & 0xff);
    }
    return out;
}

}  // namespace

TEST_CASE("crc32: the standard check value") {
    CHECK(attn::io::crc32("123456789") == 0xcbf43926u);
    CHECK(attn::io::crc32("") == 0u);
}

TEST_CASE("inflate: stored, fixed and dynamic blocks made by zlib") {
    // zlib.compressobj(level, DEFLATED, -15): level 0 stores, Z_FIXED forces fixed codes.
    CHECK(attn::io::inflate(unhex("010900f6ff617474656e74696f6e"), 9, "t") == "attention");
    CHECK(attn::io::inflate(unhex("cb48cdc9c957c8402701"), 23, "t") == "hello hello hello hello");
    // Dynamic Huffman block with back-references: bytes 97 + (i*i*7 + i/3) % 13, i < 600.
    std::string expected;
    for (int i = 0; i < 600; ++i) expected += char(97 + (i * i * 7 + i / 3) % 13);
    const std::string dyn = unhex(
        "edcab90100200803c059790d12f66f9dc19eab4f60730114351984cb9062d9564ea49bc7693db26ddb4f7b");
    REQUIRE((static_cast<unsigned char>(dyn[0]) >> 1 & 3) == 2);  // really a dynamic block
    CHECK(attn::io::inflate(dyn, 600, "t") == expected);
}

TEST_CASE("inflate: damaged streams are input errors") {
    const std::string stored = unhex("010900f6ff617474656e74696f6e");
    CHECK(error_of([&] { attn::io::inflate(stored, 8, "t"); }).find("more than the 8 bytes") != std::string::npos);
    CHECK(error_of([&] { attn::io::inflate(stored, 10, "t"); }).find("inflates to 9 bytes") != std::string::npos);
    CHECK(error_of([&] { attn::io::inflate(stored + "x", 9, "t"); }).find("unexpected bytes") != std::string::npos);
    std::string bad_nlen = stored;
    bad_nlen[3] = 0;
    CHECK(error_of([&] { attn::io::inflate(bad_nlen, 9, "t"); }).find("complement") != std::string::npos);
    CHECK(error_of([&] { attn::io::inflate(unhex("07"), 1, "t"); }).find("invalid block type") != std::string::npos);
    // Every proper prefix of a valid stream is refused, never read past.
    const std::string dyn = unhex(
        "edcab90100200803c059790d12f66f9dc19eab4f60730114351984cb9062d9564ea49bc7693db26ddb4f7b");
    for (std::size_t n = 0; n < dyn.size(); ++n) {
        INFO("prefix " << n);
        CHECK_THROWS_AS(attn::io::inflate(dyn.substr(0, n), 600, "t"), InputError);
    }
}

TEST_CASE("inflate: a prefix stops decoding there, the rest of the stream unread") {
    std::string expected;
    for (int i = 0; i < 600; ++i) expected += char(97 + (i * i * 7 + i / 3) % 13);
    const std::string dyn = unhex(
        "edcab90100200803c059790d12f66f9dc19eab4f60730114351984cb9062d9564ea49bc7693db26ddb4f7b");
    CHECK(attn::io::inflate(dyn, 600, "t", 10) == expected.substr(0, 10));
    // The stream's end is never reached: a cut or damaged tail does not matter to a prefix.
    CHECK(attn::io::inflate(dyn.substr(0, dyn.size() - 8), 600, "t", 10) == expected.substr(0, 10));
    CHECK(attn::io::inflate(dyn + "xyz", 600, "t", 10) == expected.substr(0, 10));
    // A limit beyond the size is the whole stream, with all its checks.
    CHECK(attn::io::inflate(dyn, 600, "t", 1000) == expected);
    CHECK(error_of([&] { attn::io::inflate(dyn + "x", 600, "t", 1000); }).find("unexpected bytes") != std::string::npos);
    // A stream shorter than the prefix asked for is still refused.
    CHECK(error_of([&] { attn::io::inflate(unhex("010900f6ff617474656e74696f6e"), 20, "t", 12); })
              .find("inflates to 9 bytes, the archive says 20") != std::string::npos);
}

TEST_CASE("npz: savez and savez_compressed members read as numpy saved them") {
    for (const char* file : {"small.npz", "small_compressed.npz"}) {
        INFO(file);
        const std::string bytes = slurp(models + file);
        check_tensor_2d(attn::io::npz_tensor(bytes, "floats", file), floats);
        check_tensor_2d(attn::io::npz_tensor(bytes, "floats64", file), floats);
        check_tensor_2d(attn::io::npz_tensor(bytes, "ints", file), {{1, -2, 3}, {40, 5, -6}});
        check_tensor_2d(attn::io::npz_tensor(bytes, "wq.npy", file),
                        {{0, 0.25f, 0.5f, 0.75f}, {1, 1.25f, 1.5f, 1.75f}, {2, 2.25f, 2.5f, 2.75f}});
        Tensor heads = attn::io::npz_tensor(bytes, "heads", file);
        REQUIRE(heads.shape() == attn::Shape{2, 3, 4});
        for (std::size_t k = 0; k < 24; ++k) CHECK(heads.slice_data(k / 12)[(k / 4 % 3) * heads.row_stride() + k % 4] == float(k) - 12);
        CHECK(error_of([&] { attn::io::npz_tensor(bytes, "heads", "s.npz", Finite::required, 2); }) ==
              "s.npz:heads: shape (2, 3, 4) has 3 dimensions: at most 2 are supported here");
        const auto list = attn::io::npz_list(bytes, file);
        REQUIRE(list.size() == 5);
        CHECK(list[0].name == "floats");
        CHECK(list[0].dtype == "float32");
        CHECK(list[0].shape == attn::Shape{2, 3});
        CHECK(list[2].dtype == "float64");
        CHECK(list[4].dtype == "int64");
    }
    {  // members attn lists but cannot read: the reason, and the shape when the header has one
        const std::string bytes = slurp(models + "unreadable.npz");
        const auto list = attn::io::npz_list(bytes, "u.npz");
        REQUIRE(list.size() == 4);
        CHECK(list[0].note.empty());
        CHECK(list[1].name == "scalar");
        CHECK(list[1].shape_known);
        CHECK(list[1].shape.rank() == 0);
        CHECK(list[1].note == "0-d array (a single number): expected at least one dimension");
        CHECK(list[2].dtype == "<U2");
        CHECK_FALSE(list[2].shape_known);
        CHECK(list[2].note == "unsupported dtype '<U2'");
        CHECK(list[3].shape == attn::Shape{0, 3});
        CHECK(list[3].note == "empty array: shape (0, 3)");
        CHECK(error_of([&] { attn::io::npz_tensor(bytes, "scalar", "u.npz"); }) == "u.npz:scalar: " + list[1].note);
    }
    // (arange(3072) % 7) / 8 as 64x48: a multi-block deflate stream.
    Tensor big = attn::io::npz_tensor(slurp(models + "big_compressed.npz"), "", "big_compressed.npz");
    REQUIRE(big.shape() == attn::Shape{64, 48});
    for (std::size_t k = 0; k < 64 * 48; ++k) {
        INFO("element " << k);
        REQUIRE(big.slice_data(0)[k / 48 * big.row_stride() + k % 48] == float(k % 7) / 8);
    }
}

TEST_CASE("npz: names, several arrays, missing arrays") {
    const std::string bytes = slurp(models + "small.npz");
    CHECK(error_of([&] { attn::io::npz_tensor(bytes, "", "s.npz"); }) ==
          "s.npz: holds 5 arrays (floats, wq, floats64, heads, ints): name one as s.npz:NAME");
    CHECK(error_of([&] { attn::io::npz_tensor(bytes, "nope", "s.npz"); }) ==
          "s.npz: no array 'nope' (it holds: floats, wq, floats64, heads, ints)");
    check_tensor_2d(attn::io::npz_tensor(slurp(models + "single.npz"), "", "single.npz"), floats);
}

TEST_CASE("npz: every truncation and every single-byte change is caught or harmless") {
    const std::string bytes = slurp(models + "small_compressed.npz");
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        INFO("prefix " << n);
        CHECK_THROWS_AS(attn::io::npz_tensor(bytes.substr(0, n), "floats", "t.npz"), InputError);
    }
    // A change the format does not guard (a date, a version) may leave the array readable;
    // then it must read back unchanged. Anything else is an InputError, never a crash.
    for (std::size_t k = 0; k < bytes.size(); ++k) {
        std::string changed = bytes;
        changed[k] = char(changed[k] ^ 0x5a);
        try {
            Tensor t = attn::io::npz_tensor(changed, "floats", "t.npz");
            INFO("byte " << k << " changed, still read");
            check_tensor_2d(std::move(t), floats);
        } catch (const InputError&) {
        }
    }
}

TEST_CASE("npz: damaged data, unsupported methods and encryption are named") {
    std::string bytes = slurp(models + "small.npz");
    const std::size_t data = bytes.find("\x93NUMPY");
    REQUIRE(data != std::string::npos);
    std::string crc = bytes;
    crc[data + 130] = char(crc[data + 130] ^ 1);  // inside the first array's values
    CHECK(error_of([&] { attn::io::npz_tensor(crc, "floats", "t.npz"); }) == "t.npz:floats: CRC mismatch: the archive is damaged");
    // Central directory entry of the first member: method at +10, flags at +8.
    const std::size_t cd = bytes.find("PK\x01\x02");
    REQUIRE(cd != std::string::npos);
    std::string method = bytes;
    method[cd + 10] = 12;  // bzip2
    CHECK(error_of([&] { attn::io::npz_tensor(method, "floats", "t.npz"); })
              .find("uses compression method 12 (only stored and deflate are supported)") != std::string::npos);
    std::string encrypted = bytes;
    encrypted[cd + 8] = 1;
    CHECK(error_of([&] { attn::io::npz_tensor(encrypted, "floats", "t.npz"); }).find("is encrypted") != std::string::npos);
    CHECK(error_of([&] { attn::io::npz_tensor("not a zip at all, just text here", "x", "t.npz"); }) ==
          "t.npz: not a model file (no zip signature: an .npz or torch.save file is a zip archive)");
}

TEST_CASE("npz: listing reads each member's header alone; damage past it is found on reading") {
    for (const char* file : {"small.npz", "small_compressed.npz"}) {
        INFO(file);
        std::string bytes = slurp(models + file);
        // The first member's CRC-32 in the central directory (at +16) no longer matches its
        // data: only reading all of the data can tell.
        const std::size_t cd = bytes.find("PK\x01\x02");
        REQUIRE(cd != std::string::npos);
        bytes[cd + 16] = char(bytes[cd + 16] ^ 0x40);
        const auto list = attn::io::npz_list(bytes, "t.npz");
        REQUIRE(list.size() == 5);
        CHECK(list[0].name == "floats");
        CHECK(list[0].shape == attn::Shape{2, 3});
        CHECK(list[0].note.empty());
        CHECK(error_of([&] { attn::io::npz_tensor(bytes, "floats", "t.npz"); }) ==
              "t.npz:floats: CRC mismatch: the archive is damaged");
    }
}

TEST_CASE("npz: a member named NAME is preferred to NAME.npy, as numpy.load does") {
    // Members "a.npy" = [1, 2] and "a" = [[5, 6, 7]] (tests/bad/npz_name_collision.case says how
    // it was made); numpy.load(f)["a"] is the member "a", ["a.npy"] the member "a.npy".
    const std::string bytes = slurp("tests/bad/data/npz_name_collision.npz");
    check_tensor_2d(attn::io::npz_tensor(bytes, "a", "c.npz"), {{5, 6, 7}});
    check_tensor_2d(attn::io::npz_tensor(bytes, "a.npy", "c.npz"), {{1, 2}});
    const auto list = attn::io::npz_list(bytes, "c.npz");
    REQUIRE(list.size() == 2);
    CHECK(list[0].name == "a.npy");  // "a" would name the other member
    CHECK(list[1].name == "a");
    // fuzz_model's rule: every listed name reads a tensor of the listed shape.
    for (const auto& t : list) {
        INFO(t.name);
        CHECK(attn::io::npz_tensor(bytes, t.name, "c.npz").shape() == t.shape);
    }
    CHECK(error_of([&] { attn::io::npz_tensor(bytes, "b", "c.npz"); }) == "c.npz: no array 'b' (it holds: a.npy, a)");
}

TEST_CASE("safetensors: F32, F16 and BF16 tensors from the fixture script") {
    const std::string bytes = slurp(models + "small.safetensors");
    for (const char* name : {"floats_f32", "floats_f16", "floats_bf16"}) {
        INFO(name);
        check_tensor_2d(attn::io::safetensors_tensor(bytes, name, "s"), floats);
    }
    Tensor heads = attn::io::safetensors_tensor(bytes, "heads", "s");
    REQUIRE(heads.shape() == attn::Shape{2, 3, 4});
    for (std::size_t k = 0; k < 24; ++k) {
        INFO("element " << k);
        CHECK(heads.slice_data(k / 12)[(k / 4 % 3) * heads.row_stride() + k % 4] == float(k) - 12);
    }
    const auto list = attn::io::safetensors_list(bytes, "s");
    REQUIRE(list.size() == 5);  // __metadata__ is not a tensor
    CHECK(list[2].name == "floats_bf16");
    CHECK(list[2].dtype == "BF16");
    CHECK(list[4].shape == attn::Shape{2, 3, 4});
    CHECK(error_of([&] { attn::io::safetensors_tensor(slurp(models + "wrong_dtype.safetensors"), "ids", "w"); }) ==
          "w:ids: dtype I64 is not supported (attn reads F32, F16, BF16 and F64)");
}

TEST_CASE("safetensors: malformed headers are input errors naming the problem") {
    const std::string eight = f32_bytes({1.0f, 2.0f});
    auto err = [&](const std::string& header, const std::string& data = "") {
        return error_of([&] { attn::io::safetensors_tensor(safetensors(header, data), "a", "m"); });
    };
    const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    check_tensor_2d(attn::io::safetensors_tensor(safetensors(ok, eight), "a", "m"), {{1.0f, 2.0f}});
    CHECK(err(ok, eight.substr(0, 7)) == "m: truncated data: tensor 'a' ends at byte 8 of the data, which has 7");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight) ==
          "m: tensor 'a': shape (3,) of F32 needs 12 bytes but data_offsets span 8");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight) ==
          "m: tensor 'a': data_offsets end before they begin");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
              eight) == "m: tensors 'a' and 'b' overlap");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2]}})", eight) == "m: tensor 'a' lacks the key 'data_offsets'");
    // The data holds the tensors and nothing else (the format forbids holes).
    CHECK(err(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight) ==
          "m: bytes 0 to 4 of the data belong to no tensor (before 'a')");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
              eight + eight.substr(0, 4)) == "m: bytes 4 to 8 of the data belong to no tensor (between 'a' and 'b')");
    CHECK(err(ok, eight + "1234") == "m: 4 bytes after the last tensor's data belong to no tensor");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}})", eight) ==
          "m: 8 bytes after the last tensor's data belong to no tensor");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", eight) ==
          "m: tensor 'a': unexpected key 'x'");
    CHECK(err(R"({"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight) ==
          "m: tensor 'a': duplicate key 'dtype'");
    // A dtype the reader does not know (F4 is half a byte per value): that tensor is unreadable,
    // the file's other tensors are not.
    const std::string newer = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("q":{"dtype":"F4","shape":[4],"data_offsets":[8,10]}})";
    CHECK(err(newer, eight + "xy") == "(no error)");
    CHECK(err(R"({"a":{"dtype":"F8_E8M0","shape":[2],"data_offsets":[0,8]}})", eight) ==
          "m:a: dtype F8_E8M0 is not supported (attn reads F32, F16, BF16 and F64)");
    check_tensor_2d(attn::io::safetensors_tensor(safetensors(newer, eight + "xy"), "a", "m"), {{1.0f, 2.0f}});
    CHECK(error_of([&] { attn::io::safetensors_tensor(safetensors(newer, eight + "xy"), "q", "m"); }) ==
          "m:q: dtype F4 is not supported (attn reads F32, F16, BF16 and F64)");
    const std::vector<attn::io::TensorInfo> listed = attn::io::safetensors_list(safetensors(newer, eight + "xy"), "m");
    REQUIRE(listed.size() == 2);
    CHECK(listed[0].note.empty());
    CHECK(listed[1].note == "dtype F4 is not supported (attn reads F32, F16, BF16 and F64)");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight).find("non-negative integer") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[99999999999,99999999999,99999999999],"data_offsets":[0,8]}})", eight)
              .find("shape too large") != std::string::npos);
    CHECK(err(ok + "}", eight) == "m: malformed header: unexpected text after the JSON object");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})", eight).find("malformed header") != std::string::npos);
    CHECK(err("[1]") == "m: not a model file (no safetensors header: the header is not a JSON object)");
    CHECK(error_of([&] { attn::io::safetensors_tensor(std::string("\x01\x02", 2), "a", "m"); }) ==
          "m: not a model file (no safetensors header: shorter than its 8-byte header length)");
    std::string huge(8, '\0');
    huge[4] = 1;  // 2^32 bytes of header
    CHECK(error_of([&] { attn::io::safetensors_tensor(huge + "{}", "a", "m"); }).find("exceeds the limit") != std::string::npos);
    std::string cut = safetensors(ok, eight);
    cut.resize(20);
    CHECK(error_of([&] { attn::io::safetensors_tensor(cut, "a", "m"); }).find("truncated safetensors header") != std::string::npos);
    // As the reference reader (Rust's str::from_utf8, then serde_json): UTF-8 text, JSON
    // integers without a leading zero, no lone UTF-16 surrogate in a \u escape.
    CHECK(err(R"({"a":{"dtype":"F32","shape":[02],"data_offsets":[0,8]}})", eight) ==
          "m: malformed header: an integer with a leading zero at byte 37");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[00,8]}})", eight) ==
          "m: malformed header: an integer with a leading zero at byte 56");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,08]}})", eight) ==
          "m: malformed header: an integer with a leading zero at byte 58");
    CHECK(err("{\"\xff\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", eight) ==
          "m: malformed header: not valid UTF-8 at byte 10");
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{"k":")" "\xc0\xaf\"}}",
              eight) == "m: malformed header: not valid UTF-8 at byte 83");  // an overlong '/'
    CHECK(err(R"({"\ud800":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight) ==
          "m: malformed header: a lone surrogate in a \\u escape at byte 16");
    CHECK(err(R"({"\udc00x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight) ==
          "m: malformed header: a lone surrogate in a \\u escape at byte 16");
    // A pair is one code point (U+1F600 is F0 9F 98 80 in UTF-8), found by that name.
    const std::string pair = R"({"\ud83d\ude00":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    CHECK(attn::io::safetensors_list(safetensors(pair, eight), "m")[0].name == "\xf0\x9f\x98\x80");
    check_tensor_2d(attn::io::safetensors_tensor(safetensors(pair, eight), "\xf0\x9f\x98\x80", "m"), {{1.0f, 2.0f}});
    // A zero alone is an integer.
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[0],"data_offsets":[8,8]}})",
              eight) == "(no error)");
    // Every prefix of the fixture is refused.
    const std::string bytes = slurp(models + "small.safetensors");
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        INFO("prefix " << n);
        CHECK_THROWS_AS(attn::io::safetensors_tensor(bytes.substr(0, n), "heads", "t"), InputError);
    }
}

TEST_CASE("safetensors: non-finite values follow the Finite rule; names are found exactly") {
    const float inf = std::numeric_limits<float>::infinity();
    const std::string h = R"({"a":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},"__metadata__":{"k":"v\u00e9"}})";
    CHECK(error_of([&] { attn::io::safetensors_tensor(safetensors(h, f32_bytes({1.0f, NAN})), "a", "m"); }) ==
          "m:a: row 0, column 1 (0-based): non-finite value 'nan' is not allowed here");
    CHECK_THROWS_AS(attn::io::safetensors_tensor(safetensors(h, f32_bytes({-inf, 1.0f})), "a", "m"), InputError);
    Tensor t = attn::io::safetensors_tensor(safetensors(h, f32_bytes({-inf, 1.0f})), "a", "m", Finite::allow_neg_inf);
    CHECK(t.data()[0] == -inf);
    CHECK(error_of([&] { attn::io::safetensors_tensor(safetensors(h, f32_bytes({1, 2})), "b", "m"); }) ==
          "m: no tensor 'b' (it holds: a)");
}

TEST_CASE("model paths") {
    using attn::io::is_model_path;
    CHECK(is_model_path("m.npz:w"));
    CHECK(is_model_path("dir/m.safetensors:layers.0.attn.q_proj.weight"));
    CHECK(is_model_path("m.npz"));
    CHECK_FALSE(is_model_path("m.npz.txt"));
    CHECK_FALSE(is_model_path("weights.txt"));
    // A path that exists as a whole is that file: there is no escape for ':' in a model path.
    char dir[] = "/tmp/attn-model-path-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    const std::string file = std::string(dir) + "/a.npz:b.txt";
    std::ofstream(file) << "1 2\n";
    const bool split_existing = is_model_path(file), split_missing = is_model_path(std::string(dir) + "/a.npz:c.txt");
    const bool bare = is_model_path(std::string(dir) + "/a.npz");
    std::remove(file.c_str()), ::rmdir(dir);
    CHECK_FALSE(split_existing);
    CHECK(split_missing);
    CHECK(bare);
    check_tensor_2d(attn::io::read_model_tensor(models + "small.safetensors:floats_bf16"), floats);
    check_tensor_2d(attn::io::read_model_tensor(models + "small_compressed.npz:floats"), floats);
    CHECK_THROWS_AS(attn::io::read_model_tensor(models + "small.npz:"), attn::UsageError);
    CHECK_THROWS_AS(attn::io::read_model_tensor(models + "absent.npz:x"), InputError);
}

TEST_CASE("npy_shape: the header alone, as attn ls lists an npz member (NaN values too)") {
    attn::Tensor t(attn::Shape({2, 3}));
    t.data()[1] = std::numeric_limits<float>::quiet_NaN();
    const std::string npy = attn::io::npy_bytes(t.view());
    CHECK(attn::io::npy_shape(npy, npy.size(), "n.npy").text() == "(2, 3)");
    CHECK(error_of([&] { attn::io::parse_npy_tensor(npy, "n.npy"); }).find("non-finite value 'nan'") != std::string::npos);
    // The header and the size are still validated.
    CHECK(error_of([&] { attn::io::npy_shape(npy, npy.size() - 1, "n.npy"); }).find("truncated data") !=
          std::string::npos);
}

TEST_CASE("content_hint: what a misnamed file's first bytes are, never the failing reader's own format") {
    using attn::io::detail::content_hint;
    using attn::io::detail::Hint;
    const std::string zip("PK\x03\x04rest", 8), npy("\x93NUMPY\x01\x00", 8);
    const std::string st = std::string("\x07\x00\x00\x00\x00\x00\x00\x00", 8) + "{\"a\":1}";
    CHECK(content_hint(zip).find("a zip archive") != std::string::npos);
    CHECK(content_hint(npy) == " (its bytes are an .npy file)");
    CHECK(content_hint(st).find("a safetensors file") != std::string::npos);
    CHECK(content_hint(zip, Hint::not_zip).empty());
    CHECK(content_hint(st, Hint::not_safetensors).empty());
    CHECK(content_hint(npy, Hint::not_zip) == " (its bytes are an .npy file)");
    CHECK(content_hint("").empty());
    CHECK(content_hint("1 2 3\n4 5 6\n").empty());
    CHECK(content_hint(std::string("\x07\x00\x00", 3)).empty());  // short: nothing read past the end
    // "1 2" as Windows PowerShell 5's '>' writes it: UTF-16 little-endian with a byte-order mark
    CHECK(content_hint(std::string("\xFF\xFE" "1\x00 \x00" "2\x00", 8)).find("UTF-16 text") != std::string::npos);
    CHECK(content_hint(std::string("\xFE\xFF\x00" "1", 4)).find("UTF-16 text") != std::string::npos);
}
