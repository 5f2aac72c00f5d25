// Masks read straight into bits (io::read_mask, parse_npy_mask, detail::parse_text_mask):
// every .npy number type and text of rows against a direct loop over the values (float32 of
// each, nonzero allows; the other polarity flipped) and against the route they replace (the
// float tensor reader, then MaskBits); refusals give the tensor reader's messages; additive
// masks of 0 and -inf as bits, others as values; large masks the same for any thread count,
// mapped (pages dropped), read in blocks (one-byte entries) or read whole. And biases: a float32 .npy with -inf used where it
// lies, bit for bit the copied one; float64 and float16 converted on all threads as serially.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/io.hpp"
#include "attn/mask_bits.hpp"
#include "attn/multihead.hpp"
#include "attn/runtime.hpp"
#include "read/input_bytes.hpp"
#include "read/text_mask.hpp"
#include "read/text_reader.hpp"
#include "tensor_test_util.hpp"
#include "test_util.hpp"

namespace {

using attn::MaskBits;
using attn::Shape;
using attn::io::MaskRules;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();

// A .npy of `descr` ('<f4', '>f8', '|b1', ...) holding `values` in C order, written here byte
// by byte (each value as that type: floats rounded from double, integers as they are).
std::string npy_of(const std::string& descr, const Shape& shape, const std::vector<double>& values) {
    std::string dims;
    for (std::size_t d = 0; d < shape.rank(); ++d) dims += std::to_string(shape[d]) + (shape.rank() == 1 || d + 1 < shape.rank() ? ", " : "");
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY";
    out += char(1), out += char(0), out += char(header.size() & 0xff), out += char(header.size() >> 8);
    out += header;
    const char kind = descr[1];
    const std::size_t size = std::size_t(descr[2] - '0');
    const bool big = descr[0] == '>';
    for (double v : values) {
        std::uint64_t bits = 0;
        if (kind == 'f' && size == 8) bits = std::bit_cast<std::uint64_t>(v);
        else if (kind == 'f' && size == 4) bits = std::bit_cast<std::uint32_t>(float(v));
        else if (kind == 'f' && size == 2) bits = attn::float_to_half(float(v));
        else if (kind == 'b') bits = v != 0;
        else bits = std::uint64_t(std::int64_t(v));
        for (std::size_t k = 0; k < size; ++k) out += char(bits >> (8 * (big ? size - 1 - k : k)));
    }
    return out;
}

// The bits a direct loop gives: float32 of each value nonzero (or zero, zero_allows).
std::vector<bool> expected_bits(const std::vector<double>& values, bool zero_allows) {
    std::vector<bool> out;
    for (double v : values) out.push_back((float(v) != 0.0f) != zero_allows);
    return out;
}

// Whether bits hold exactly `want` (C order over rows of Tk keys), and nothing past Tk.
bool holds(const MaskBits& bits, const Shape& shape, const std::vector<bool>& want) {
    if (!(bits.shape() == shape)) return false;
    const std::size_t Tk = shape.back(1), rows = shape.numel() / Tk;
    if (bits.rows() != rows) return false;
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < bits.row_words() * 64; ++j) {
            const bool bit = (bits.row(r)[j / 64] >> (j % 64)) & 1u;
            if (bit != (j < Tk && want[r * Tk + j])) return false;
        }
    return true;
}

bool same_words(const MaskBits& a, const MaskBits& b) {
    return a.shape() == b.shape() && a.rows() == b.rows() &&
           std::equal(a.data(), a.data() + a.rows() * a.row_words(), b.data());
}

// The message reading `path` gives, or "(no error)".
template <class Read>
std::string error_of(Read read) {
    try {
        read();
    } catch (const attn::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

struct Guard {
    ~Guard() {
        attn::set_threads(0);
        attn::io::detail::InputBytes::allow_mapping(true);
    }
};

}  // namespace

TEST_CASE("mask .npy of every number type: the bits of its float32 values, both polarities, as the float route") {
    std::mt19937 rng(11);
    // Values each type holds exactly, with the awkward ones: -0, the smallest float32 and
    // float16 subnormals, a float64 that is 0 in float32 (1e-50: masked), large magnitudes.
    const std::vector<double> float_values = {0.0, -0.0, 1.0, -2.5, 1.0, 0.0, 65504.0, std::ldexp(1.0, -24)};
    const std::vector<double> f4_extra = {std::ldexp(1.0, -149), 3e38};
    const std::vector<double> f8_extra = {1e-50, -1e-300, 3e38};
    const std::vector<double> int_values = {0, 1, -3, 7, 0, 1};
    for (const std::string descr : {"<f2", "<f4", "<f8", ">f4", ">f8", ">f2", "<i2", "<i4", "<i8", "<u2", "<u4", "<u8",
                                    "|b1", "|u1", "|i1"}) {
        std::vector<double> pool = descr[1] == 'f' ? float_values : int_values;
        if (descr[1] == 'f' && descr[2] == '4') pool.insert(pool.end(), f4_extra.begin(), f4_extra.end());
        if (descr[1] == 'f' && descr[2] == '8') pool.insert(pool.end(), f8_extra.begin(), f8_extra.end());
        if (descr[1] == 'u' || descr == "|b1") pool = {0, 1, 5, 0};
        std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
        for (std::size_t Tk : {1, 63, 64, 65, 130})
            for (const Shape& shape : {Shape{Tk}, Shape{3, Tk}, Shape{2, 3, Tk}, Shape{2, 1, 2, Tk}}) {
                std::vector<double> values(shape.numel());
                for (double& v : values) v = pool[pick(rng)];
                const std::string bytes = npy_of(descr, shape, values);
                bool any_negative = false;
                for (double v : values) any_negative |= float(v) < 0.0f;
                for (bool zero_allows : {false, true}) {
                    INFO(descr << " " << shape.text() << " zero_allows " << zero_allows);
                    bool negative = false, boolean = true;
                    const auto bits = attn::io::parse_npy_mask(bytes, "m.npy", 4, MaskRules{zero_allows, false},
                                                               &negative, &boolean);
                    REQUIRE(bits);
                    CHECK(holds(*bits, shape, expected_bits(values, zero_allows)));
                    CHECK(boolean == (descr[1] != 'f'));  // booleans and integers of any size
                    if (descr != "|u1" && descr != "|b1") CHECK(negative == any_negative);
                    // The route they replace: the float32 tensor, packed (and flipped).
                    const attn::Tensor t = attn::io::parse_npy_tensor(bytes, "m.npy");
                    const MaskBits floats(t.view());
                    CHECK(same_words(*bits, zero_allows ? floats.inverted() : floats));
                }
            }
    }
}

TEST_CASE("mask .npy: a float64 mask gives the bits of the float32 one, and a float16 one too") {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> coin(0, 3);
    const Shape shape{37, 300};
    std::vector<double> values(shape.numel());
    for (double& v : values) v = coin(rng) == 0 ? 0.0 : coin(rng) == 1 ? -1.0 : 0.5;
    for (bool zero_allows : {false, true}) {
        const MaskRules rules{zero_allows, false};
        const auto f4 = attn::io::parse_npy_mask(npy_of("<f4", shape, values), "m.npy", 4, rules);
        const auto f8 = attn::io::parse_npy_mask(npy_of("<f8", shape, values), "m.npy", 4, rules);
        const auto f2 = attn::io::parse_npy_mask(npy_of("<f2", shape, values), "m.npy", 4, rules);
        REQUIRE((f4 && f8 && f2));
        CHECK(same_words(*f4, *f8));
        CHECK(same_words(*f4, *f2));
        CHECK(holds(*f4, shape, expected_bits(values, zero_allows)));
    }
}

TEST_CASE("mask .npy: a value the rules refuse is the tensor reader's error, with its position") {
    Guard guard;
    test_util::TempDir dir;
    struct Case {
        std::string descr;
        double bad;
        bool additive;
        const char* message;
    };
    const std::vector<Case> cases = {
        {"<f4", nan_d, false, "non-finite value 'nan'"},   {"<f8", inf, false, "non-finite value 'inf'"},
        {"<f2", -inf, false, "non-finite value '-inf'"}, {"<f8", 1e300, false, "out of float32 range"},
        {"<f4", nan_d, true, "non-finite value 'nan'"},    {"<f8", inf, true, "non-finite value 'inf'"},
        {"<f8", -1e300, true, "out of float32 range"},
    };
    for (const Case& c : cases)
        for (std::size_t at : {std::size_t(0), std::size_t(5 * 130 + 77), std::size_t(40 * 130 - 1)}) {
            INFO(c.descr << " " << c.bad << " at " << at << " additive " << c.additive);
            std::vector<double> values(40 * 130, 1.0);
            values[at] = c.bad;
            const std::string bytes = npy_of(c.descr, Shape{40, 130}, values);
            CHECK_FALSE(attn::io::parse_npy_mask(bytes, "m.npy", 4, MaskRules{false, c.additive}));
            test_util::write_file(dir / "m.npy", bytes);
            const attn::io::Finite finite = c.additive ? attn::io::Finite::allow_neg_inf : attn::io::Finite::required;
            const std::string want = error_of([&] { attn::io::read_tensor(dir / "m.npy", finite); });
            CHECK(want.find(c.message) != std::string::npos);
            CHECK(want.find("row " + std::to_string(at / 130) + ", column " + std::to_string(at % 130) + " (0-based)") !=
                  std::string::npos);
            for (bool mapping : {true, false}) {
                attn::io::detail::InputBytes::allow_mapping(mapping);
                CHECK(error_of([&] { attn::io::read_mask(dir / "m.npy", MaskRules{true, c.additive}); }) == want);
            }
        }
}

TEST_CASE("mask .npy: an additive mask of 0 and -inf comes as bits; of other values, as its values") {
    Guard guard;
    test_util::TempDir dir;
    std::mt19937 rng(8);
    std::uniform_int_distribution<int> coin(0, 2);
    const Shape shape{9, 80};  // rows of whole 64-byte lines: float32 values can stay in the file
    std::vector<double> values(shape.numel());
    for (double& v : values) v = coin(rng) == 0 ? -inf : 0.0;
    std::vector<bool> allowed;
    for (double v : values) allowed.push_back(v == 0.0);
    for (const std::string descr : {"<f4", "<f8", "<f2"}) {
        INFO(descr);
        const auto bits = attn::io::parse_npy_mask(npy_of(descr, shape, values), "m.npy", 4, MaskRules{true, true});
        REQUIRE(bits);
        CHECK(holds(*bits, shape, allowed));
        // Not additive (a key padding mask), -inf is refused.
        CHECK_FALSE(attn::io::parse_npy_mask(npy_of(descr, shape, values), "m.npy", 4, MaskRules{true, false}));
    }
    // -1.5 (or -1e9, HF's way) is a bias: the values, float32 used where it lies.
    std::vector<double> biased = values;
    biased[100] = -1.5, biased[200] = -1e9;
    for (const std::string descr : {"<f4", "<f8"}) {
        INFO(descr);
        const std::string bytes = npy_of(descr, shape, biased);
        CHECK_FALSE(attn::io::parse_npy_mask(bytes, "m.npy", 4, MaskRules{true, true}));
        test_util::write_file(dir / "m.npy", bytes);
        const attn::io::MaskInput m = attn::io::read_mask(dir / "m.npy", MaskRules{true, true});
        CHECK(m.bits.rank() == 0);
        CHECK_FALSE(m.boolean);
        REQUIRE(m.values.shape() == shape);
        for (std::size_t i = 0; i < values.size(); ++i)
            REQUIRE(m.values.slice(0)(i / 80, i % 80) == float(biased[i]));
        if (descr == "<f4")  // in place: at the file's data offset within its page
            CHECK(reinterpret_cast<std::uintptr_t>(m.values.data()) % 4096 == bytes.size() - shape.numel() * 4);
    }
    // A one-byte mask is boolean, never added: 1 is True (not allowed), 0 allowed.
    std::vector<double> ones(shape.numel());
    for (std::size_t i = 0; i < ones.size(); ++i) ones[i] = allowed[i] ? 0 : 1;
    bool boolean = false;
    // Integers of any size too: never added (PyTorch refuses integer masks), bits as booleans.
    for (const char* descr : {"<i2", "<i8", "<u4"}) {
        bool int_boolean = false;
        const auto ints = attn::io::parse_npy_mask(npy_of(descr, Shape{3}, {0, 1, 1}), "m.npy", 4, MaskRules{true, true},
                                                   nullptr, &int_boolean);
        REQUIRE(ints);
        CHECK(int_boolean);
        CHECK(holds(*ints, Shape{3}, {true, false, false}));
    }
    const auto b = attn::io::parse_npy_mask(npy_of("|u1", shape, ones), "m.npy", 4, MaskRules{true, true}, nullptr, &boolean);
    REQUIRE(b);
    CHECK(boolean);
    CHECK(holds(*b, shape, allowed));
}

TEST_CASE("mask .npy: large masks packed on 1, 2, 3 and 7 threads, mapped or read whole, give the same bits") {
    Guard guard;
    test_util::TempDir dir;
    std::mt19937 rng(21);
    std::uniform_int_distribution<int> coin(0, 1);
    const Shape shape{2, 700, 1100};  // 6 MiB of float32, 12 of float64: many blocks of rows
    std::vector<double> values(shape.numel());
    for (double& v : values) v = coin(rng) ? 1.0 : 0.0;
    for (const std::string descr : {"<f4", "<f8", "|b1"}) {
        INFO(descr);
        test_util::write_file(dir / "m.npy", npy_of(descr, shape, values));
        const std::vector<bool> want = expected_bits(values, true);
        std::optional<MaskBits> first;
        for (bool mapping : {true, false})
            for (unsigned threads : {1u, 2u, 3u, 7u}) {
                INFO("mapping " << mapping << " threads " << threads);
                attn::io::detail::InputBytes::allow_mapping(mapping);
                attn::set_threads(threads);
                const attn::io::MaskInput m = attn::io::read_mask(dir / "m.npy", MaskRules{true, false});
                REQUIRE(m.bits.rank() == 3);
                CHECK(holds(m.bits, shape, want));
                if (!first) first = m.bits;
                else CHECK(same_words(*first, m.bits));
            }
    }
}

TEST_CASE("mask .npy files of bool, uint8 and int8: read in blocks, the bits and flags of their bytes, any threads") {
    // Files PositionalFile opens are read block by block into buffers (detail::read_npy_byte_mask);
    // with mapping disallowed they are read whole: both as parse_npy_mask of the same bytes.
    Guard guard;
    test_util::TempDir dir;
    std::mt19937 rng(31);
    // Several blocks of 2 MiB with a short last one; one row longer than a block (mapped, as
    // before); small ones.
    const Shape shapes[] = {Shape{3, 1500, 1500}, Shape{2100000}, Shape{7, 65}, Shape{1}, Shape{2, 3, 64}};
    for (const std::string descr : {"|b1", "|u1", "|i1"}) {
        const std::vector<double> pool = descr == "|i1" ? std::vector<double>{0, 1, -3, 7} : std::vector<double>{0, 1, 5};
        std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
        for (const Shape& shape : shapes) {
            std::vector<double> values(shape.numel());
            for (double& v : values) v = pool[pick(rng)];
            if (descr == "|i1" && shape.numel() > 1000) std::fill(values.begin(), values.end() - 1, 1.0);  // a lone negative, last
            const std::string bytes = npy_of(descr, shape, values);
            test_util::write_file(dir / "m.npy", bytes);
            for (bool zero_allows : {false, true}) {
                bool negative = false, boolean = false;
                const auto want = attn::io::parse_npy_mask(bytes, "m.npy", 4, MaskRules{zero_allows, false}, &negative, &boolean);
                REQUIRE(want);
                for (bool mapping : {true, false})
                    for (unsigned threads : {1u, 2u, 7u}) {
                        INFO(descr << " " << shape.text() << " zero_allows " << zero_allows << " mapping " << mapping
                                   << " threads " << threads);
                        attn::io::detail::InputBytes::allow_mapping(mapping);
                        attn::set_threads(threads);
                        const attn::io::MaskInput m = attn::io::read_mask(dir / "m.npy", MaskRules{zero_allows, false});
                        CHECK(same_words(m.bits, *want));
                        CHECK(m.boolean == boolean);
                        if (descr == "|i1") CHECK(m.negative == negative);
                    }
            }
        }
    }
}

TEST_CASE("mask .npy files of one-byte entries: cut short, a long header, Fortran order, as when read whole") {
    Guard guard;
    test_util::TempDir dir;
    const Shape shape{40, 3000};
    std::vector<double> values(shape.numel());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = double(i * 2654435761u >> 7 & 1);
    const std::string bytes = npy_of("|b1", shape, values);
    const auto read = [&](const std::string& file_bytes, bool mapping) {
        test_util::write_file(dir / "m.npy", file_bytes);
        attn::io::detail::InputBytes::allow_mapping(mapping);
        std::string error = "(no error)";
        attn::io::MaskInput m;
        try {
            m = attn::io::read_mask(dir / "m.npy", MaskRules{false, false});
        } catch (const attn::InputError& e) {
            error = e.what();
        }
        return std::make_pair(error, m);
    };
    // Cut in the data and in the header: the same message either way.
    for (std::size_t cut : {bytes.size() - 1, bytes.size() - 3000, std::size_t(40), std::size_t(9)}) {
        INFO("cut to " << cut);
        const std::string message = read(bytes.substr(0, cut), false).first;
        CHECK(message.find("truncated") != std::string::npos);
        CHECK(read(bytes.substr(0, cut), true).first == message);
    }
    // A header longer than the first read (5000 bytes of padding), and the same data.
    std::string padded = bytes;
    const std::size_t header_len = std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8;
    const std::size_t extra = 5056;  // keeps the data on a 64-byte boundary
    padded.insert(10 + header_len - 1, std::string(extra, ' '));
    padded[8] = char((header_len + extra) & 0xff), padded[9] = char((header_len + extra) >> 8);
    const auto [padded_error, padded_mask] = read(padded, true);
    CHECK(padded_error == "(no error)");
    CHECK(holds(padded_mask.bits, shape, expected_bits(values, false)));
    // Fortran order: not read in blocks; the same bits as read whole.
    std::string fortran = bytes;
    fortran.replace(fortran.find("False"), 5, "True ");
    const auto [fortran_error, fortran_mask] = read(fortran, true);
    const auto [whole_error, whole_mask] = read(fortran, false);
    CHECK(fortran_error == whole_error);
    CHECK(same_words(fortran_mask.bits, whole_mask.bits));
    CHECK(fortran_mask.values.rank() == whole_mask.values.rank());
}

// A bool or integer .npy in Fortran order (np.save of a transposed array) is read from its values,
// not packed, and is boolean as in C order: PyTorch's polarity never adds it to the scores (it
// once came back as not boolean, so --attn-mask added its 0s and 1s).
TEST_CASE("mask .npy of bool and integer types in Fortran order: boolean, the same mask as in C order") {
    test_util::TempDir dir;
    const std::size_t rows = 3, cols = 5;
    std::vector<double> values(rows * cols), transposed(rows * cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) values[i * cols + j] = transposed[j * rows + i] = double((i + 2 * j) % 3 == 0);
    for (const char* descr : {"|b1", "|u1", "|i1", "<i2", "<i4", "<i8", ">i4", "<u8"}) {
        INFO("dtype " << descr);
        std::string fortran = npy_of(descr, Shape{rows, cols}, transposed);  // column by column
        fortran.replace(fortran.find("False"), 5, "True ");
        test_util::write_file(dir / "c.npy", npy_of(descr, Shape{rows, cols}, values));
        test_util::write_file(dir / "f.npy", fortran);
        const MaskRules torch{true, true};  // --attn-mask: True = not allowed
        const attn::io::MaskInput c = attn::io::read_mask(dir / "c.npy", torch);
        const attn::io::MaskInput f = attn::io::read_mask(dir / "f.npy", torch);
        CHECK(c.boolean);
        CHECK(f.boolean);
        // C order comes as bits of the allowed keys; Fortran order as its values (1 = not allowed).
        REQUIRE(c.bits.rank() == 2);
        REQUIRE(f.values.rank() == 2);
        REQUIRE(f.values.rows() == rows);
        REQUIRE(f.values.cols() == cols);
        const MaskBits allowed = MaskBits(f.values.view()).inverted();
        CHECK(same_words(allowed, c.bits));
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) CHECK(c.bits.allowed(i, j) == (values[i * cols + j] == 0));
    }
}

TEST_CASE("text mask: rows of numbers or True/False into bits, as the text reader's tensor packs") {
    namespace d = attn::io::detail;
    const std::vector<std::string> texts = {
        "1 0 1\n0 0 1\n",
        "1,0,1\n0,0,1",                          // csv, no final line end
        "1, 0 ; 1,\r\n0\t0 1\r\n\r\n",            // separators after values, CRLF, a blank line
        "  1 0 1\n\n\n0 0 1\n   \n",              // leading blanks, blank lines
        "0.0 1.5 -2\n1e-50 0 3e2\n",              // decimals; 1e-50 is 0 in float32: masked
        "-0 00 0.000\n7 8 9\n",                   // zeros in every spelling
        "True False True\nFalse False True\n",    // PyTorch's bool text
        "1 0 True\n",                             // mixed
        "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 "
        "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0\n",  // 70 keys: two words
    };
    for (const std::string& text : texts)
        for (bool zero_allows : {false, true}) {
            INFO(text << " zero_allows " << zero_allows);
            bool negative = false, boolean = false;
            const auto bits = d::parse_text_mask(text, MaskRules{zero_allows, false}, &negative, &boolean, false);
            REQUIRE(bits);
            const attn::Tensor t = attn::io::parse_text_tensor(text, "m.txt");
            const MaskBits floats(t.view());
            CHECK(same_words(*bits, zero_allows ? floats.inverted() : floats));
            CHECK(boolean == (text.find("True") != std::string::npos));
            bool any_negative = false;
            for (std::size_t r = 0; r < t.rows(); ++r)
                for (std::size_t c = 0; c < t.cols(); ++c) any_negative |= t.slice(0)(r, c) < 0.0f;
            CHECK(negative == any_negative);
        }
    // Anything else is the text reader's: comments and headers, brackets, rows of other
    // lengths, a second separator, non-finite values (-inf only in an additive mask).
    for (const std::string text : {"# m 2x2\n1 0\n0 1\n", "1 0 # note\n0 1\n", "[[1, 0], [0, 1]]\n", "1 0\n1\n",
                                   "1,,0\n", ",1 0\n", "1 nan\n", "1 -inf\n", "1 inf\n", "1 +1\n", "1 x\n", "", "\n\n",
                                   "1e39 0\n", "\xEF\xBB\xBF" "1 0\n"}) {
        INFO(text);
        CHECK_FALSE(d::parse_text_mask(text, MaskRules{false, false}, nullptr, nullptr, false));
    }
    // Additive: 0 and -inf as bits (zero allows); another value, or not additive, is not.
    const auto additive = d::parse_text_mask("0 -inf\n-inf 0\n", MaskRules{true, true}, nullptr, nullptr, false);
    REQUIRE(additive);
    CHECK(holds(*additive, Shape{2, 2}, {true, false, false, true}));
    CHECK_FALSE(d::parse_text_mask("0 -inf\n-1e9 0\n", MaskRules{true, true}, nullptr, nullptr, false));
    CHECK_FALSE(d::parse_text_mask("0 1\n1 0\n", MaskRules{true, true}, nullptr, nullptr, false));
    // ... unless it is boolean: True/False text is never added.
    bool boolean = false;
    const auto torch_bool = d::parse_text_mask("True 0\n1 False\n", MaskRules{true, true}, nullptr, &boolean, false);
    REQUIRE(torch_bool);
    CHECK(boolean);
    CHECK(holds(*torch_bool, Shape{2, 2}, {false, true, false, true}));
    // A key padding mask's rules: text of only 0 and 1 is boolean too, other values are added.
    const MaskRules padding{true, true, true};
    boolean = false;
    const auto zero_one = d::parse_text_mask("0 1 1\n1 0 0\n", padding, nullptr, &boolean, false);
    REQUIRE(zero_one);
    CHECK(boolean);
    CHECK(holds(*zero_one, Shape{2, 2 + 1}, {true, false, false, false, true, true}));
    CHECK_FALSE(d::parse_text_mask("0 1 2\n1 0 0\n", padding, nullptr, nullptr, false));
    CHECK_FALSE(d::parse_text_mask("0 1 0.5\n1 0 0\n", padding, nullptr, nullptr, false));
}

TEST_CASE("text mask: a key padding mask of only 0 and 1 that the fast path leaves to the text reader is boolean") {
    // A '#' comment line sends the text to the tensor reader: the same rule holds there.
    test_util::TempDir dir;
    test_util::write_file(dir / "zero_one.txt", "# padding\n0 0 1\n");
    test_util::write_file(dir / "float.txt", "# padding\n0 0 -0.5\n");
    const MaskRules padding{true, true, true};
    const attn::io::MaskInput zero_one = attn::io::read_mask(dir / "zero_one.txt", padding);
    CHECK(zero_one.boolean);
    CHECK(zero_one.values.rank() == 2);
    const attn::io::MaskInput as_float = attn::io::read_mask(dir / "float.txt", padding);
    CHECK_FALSE(as_float.boolean);
    const attn::io::MaskInput added = attn::io::read_mask(dir / "zero_one.txt", MaskRules{true, true});
    CHECK_FALSE(added.boolean);
}

TEST_CASE("text mask: a PyTorch or NumPy print of an integer type is boolean, as its .npy is; of a float type, added") {
    // Prints of torch 1.13 and NumPy 1.24 (str() of torch.tensor(m, dtype=...), repr() of np.array(m, dtype=...)).
    test_util::TempDir dir;
    const MaskRules attn_mask{true, true};
    struct Print {
        const char* text;
        bool boolean;
    };
    for (const Print p : {Print{"tensor([[0, 1, 0],\n        [1, 0, 0]], dtype=torch.uint8)", true},
                          Print{"tensor([[0, 1, 0],\n        [1, 0, 0]])", true},  // int64: no dtype
                          Print{"tensor([[0, 1, 0],\n        [1, 0, 0]], dtype=torch.int32)", true},
                          Print{"array([[0, 1, 0],\n       [1, 0, 0]], dtype=uint8)", true},
                          Print{"array([[0, 1, 0],\n       [1, 0, 0]])", true},
                          Print{"np.array([[0, -1, 0], [1, 0, 0]], dtype='int8')", true},
                          Print{"tensor([[0., 1., 0.],\n        [1., 0., 0.]])", false},
                          Print{"tensor([[0, 1, 0],\n        [1, 0, 0]], dtype=torch.float16)", false},
                          Print{"array([[0.e+00, 1.e+00, 0.e+00],\n       [1.e+00, 0.e+00, 0.e+00]])", false},
                          Print{"[[0, 1, 0], [1, 0, 0]]", false},  // a list, of no type: added, as documented
                          Print{"0 1 0\n1 0 0\n", false}}) {
        INFO(p.text);
        CHECK(attn::io::detail::integer_print(p.text) == p.boolean);
        test_util::write_file(dir / "m.txt", p.text);
        const attn::io::MaskInput m = attn::io::read_mask(dir / "m.txt", attn_mask);
        CHECK(m.boolean == p.boolean);
    }
}

TEST_CASE("text mask: a long text in bands on 1, 2, 3 and 7 threads, mapped or read whole, is one mask") {
    Guard guard;
    test_util::TempDir dir;
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> coin(0, 1);
    const std::size_t rows = 1500, cols = 900;  // 2.7 MB: several bands
    std::string text;
    std::vector<double> values;
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            values.push_back(coin(rng));
            text += (values.back() != 0.0 ? "1" : "0");
            text += c + 1 < cols ? (r % 3 == 0 ? ", " : " ") : "\n";
        }
        if (r % 100 == 7) text += "\n";  // blank lines here and there
    }
    test_util::write_file(dir / "m.txt", text);
    const std::vector<bool> want = expected_bits(values, false);
    for (bool mapping : {true, false})
        for (unsigned threads : {1u, 2u, 3u, 7u}) {
            INFO("mapping " << mapping << " threads " << threads);
            attn::io::detail::InputBytes::allow_mapping(mapping);
            attn::set_threads(threads);
            const attn::io::MaskInput m = attn::io::read_mask(dir / "m.txt", MaskRules{});
            REQUIRE(m.bits.rank() == 2);
            CHECK(holds(m.bits, Shape{rows, cols}, want));
        }
    // One row too short near the end: the text reader's message, the same as read_tensor's.
    const std::size_t cut = text.rfind(" 1", text.size() - 200);
    const std::string broken = text.substr(0, cut) + text.substr(cut + 2);
    test_util::write_file(dir / "bad.txt", broken);
    const std::string want_error = error_of([&] { attn::io::read_tensor(dir / "bad.txt"); });
    CHECK(want_error.find("bad.txt:") != std::string::npos);
    CHECK(error_of([&] { attn::io::read_mask(dir / "bad.txt", MaskRules{}); }) == want_error);
}

TEST_CASE("bias .npy: float32 with -inf is used where it lies, bit for bit the copied one; the attention too") {
    Guard guard;
    test_util::TempDir dir;
    std::mt19937 rng(4);
    std::normal_distribution<float> normal;
    const Shape shape{33, 160};
    std::vector<double> values(shape.numel());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = i % 7 == 3 ? -inf : double(normal(rng));
    const std::string bytes = npy_of("<f4", shape, values);
    test_util::write_file(dir / "b.npy", bytes);
    const attn::Tensor mapped = attn::io::read_tensor(dir / "b.npy", attn::io::Finite::allow_neg_inf);
    const attn::Tensor copied = attn::io::parse_npy_tensor(bytes, "b.npy", attn::io::Finite::allow_neg_inf);
    CHECK(reinterpret_cast<std::uintptr_t>(mapped.data()) % 4096 == bytes.size() - shape.numel() * 4);
    REQUIRE(test_util::same_bits(mapped, copied));
    // A NaN is still refused, with the copying reader's message.
    std::vector<double> with_nan = values;
    with_nan[40] = nan_d;
    test_util::write_file(dir / "nan.npy", npy_of("<f4", shape, with_nan));
    CHECK(error_of([&] { attn::io::read_tensor(dir / "nan.npy", attn::io::Finite::allow_neg_inf); })
              .find("row 0, column 40 (0-based): non-finite value 'nan'") != std::string::npos);
    // The attention with either bias: the same bits.
    const attn::Tensor Q = test_util::random_tensor(Shape{33, 16}, rng), K = test_util::random_tensor(Shape{160, 16}, rng),
                       V = test_util::random_tensor(Shape{160, 8}, rng);
    attn::AttentionSpec spec;
    const attn::TensorView mv = mapped.view(), cv = copied.view();
    spec.bias = &mv;
    const attn::BatchedAttention a = attn::batched_attention(Q.view(), K.view(), V.view(), spec, {});
    spec.bias = &cv;
    const attn::BatchedAttention b = attn::batched_attention(Q.view(), K.view(), V.view(), spec, {});
    CHECK(test_util::same_bits(a.context, b.context));
}

TEST_CASE("bias .npy: float64 and float16 converted on 1, 3 and 7 threads as one element at a time") {
    Guard guard;
    std::mt19937 rng(6);
    std::normal_distribution<double> normal;
    const Shape shape{3, 400, 700};  // several blocks of rows
    std::vector<double> values(shape.numel());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = i % 11 == 5 ? -inf : normal(rng) * (i % 5 ? 1.0 : 1e-6);
    for (const std::string descr : {"<f8", "<f2", ">f8", "<i4"}) {
        INFO(descr);
        std::vector<double> v = values;
        if (descr == "<i4")
            for (double& x : v) x = std::isinf(x) ? -7 : std::round(x * 100) + 0.0;  // no -0: an integer has none
        const std::string bytes = npy_of(descr, shape, v);
        for (unsigned threads : {1u, 3u, 7u}) {
            attn::set_threads(threads);
            const attn::Tensor t = attn::io::parse_npy_tensor(bytes, "b.npy", attn::io::Finite::allow_neg_inf);
            REQUIRE(t.shape() == shape);
            bool same = true;
            for (std::size_t i = 0; i < v.size() && same; ++i) {
                const float want = descr[2] == '2' ? attn::half_to_float(attn::float_to_half(float(v[i]))) : float(v[i]);
                const float got = t.slice(i / (400 * 700))((i / 700) % 400, i % 700);
                same = std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(want);
            }
            CHECK(same);
        }
        // From a file: mapped (its pages dropped as they are converted) or read whole, the
        // same bits; a NaN in the last row, met after the pages before it were dropped, the
        // same message.
        test_util::TempDir dir;
        test_util::write_file(dir / "b.npy", bytes);
        const attn::Tensor whole = attn::io::parse_npy_tensor(bytes, dir / "b.npy", attn::io::Finite::allow_neg_inf);
        std::vector<double> late_nan = v;
        late_nan[v.size() - 3] = descr == "<i4" ? 0 : nan_d;
        test_util::write_file(dir / "nan.npy", npy_of(descr, shape, late_nan));
        std::vector<std::string> messages;
        for (bool mapping : {true, false}) {
            attn::io::detail::InputBytes::allow_mapping(mapping);
            CHECK(test_util::same_bits(attn::io::read_tensor(dir / "b.npy", attn::io::Finite::allow_neg_inf), whole));
            messages.push_back(error_of([&] { attn::io::read_tensor(dir / "nan.npy", attn::io::Finite::allow_neg_inf); }));
        }
        attn::io::detail::InputBytes::allow_mapping(true);
        CHECK(messages[0] == messages[1]);
        INFO(messages[0]);
        if (descr != "<i4") CHECK(messages[0].find("index [2, 399, 697] (0-based): non-finite value 'nan'") != std::string::npos);
    }
}
