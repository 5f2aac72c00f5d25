// Number text at speed: the exact-integer %.*g writer against glibc's printf (an independent
// implementation), print -> parse round trips bit for bit, the one-pass parser against
// strtod, csv bands formatted by several threads, and mapped inputs against read ones.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/ops.hpp"
#include "read/input_bytes.hpp"
#include "read/npy_in_place.hpp"
#include "write/number_format.hpp"
#include "read/number_parse.hpp"
#include "write/output_file.hpp"

namespace {

std::string printf_g(double v, int digits) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*g", digits < 1 ? 1 : digits, v);
    return buf;
}

// A rows×cols matrix of standard normal draws (std::mt19937 seeded with `seed`).
attn::Matrix normal_matrix(std::size_t rows, std::size_t cols, unsigned seed) {
    attn::Matrix m(rows, cols);
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) m(r, c) = normal(gen);
    return m;
}

// m's rows as printf's %.9g, fields joined by `sep`, each row ending in '\n': the expected
// csv/tsv text, computed without attn's formatter.
std::string printf_rows(const attn::Matrix& m, const char* sep) {
    std::string out;
    for (std::size_t r = 0; r < m.rows(); ++r)
        for (std::size_t c = 0; c < m.cols(); ++c) out += printf_g(m(r, c), 9) + (c + 1 < m.cols() ? sep : "\n");
    return out;
}

std::string fast_g(double v, int digits) {
    std::string s;
    attn::io::detail::append_significant(s, v, digits);
    return s;
}

// Awkward floats: ±0, the smallest and largest subnormals and normals, powers of ten and
// two, ties at every digit count (k + 0.5 and k·2^-n are exact in binary).
std::vector<double> awkward_values() {
    std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 9.5, 0.95, 99.5, 0.125, 1e-5, 9.99999975e-6, 1e-4,
                             123456789.5, 1e8, 1e9, 1e16, 1e17, 1e-45, 5e-324};
    const float specials[] = {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                              std::nextafter(std::numeric_limits<float>::min(), 0.0f),
                              std::numeric_limits<float>::max(), std::numeric_limits<float>::epsilon()};
    for (float f : specials) v.push_back(f), v.push_back(-f);
    for (int e = -45; e <= 38; ++e) v.push_back(double(float(std::pow(10.0, e))));
    for (int e = -149; e <= 127; e += 3) v.push_back(std::ldexp(1.0, e));
    for (int k = -300; k <= 300; ++k) v.push_back(k * 0.5), v.push_back(k * 0.125), v.push_back(k * 1e7 + 0.5);
    v.push_back(std::numeric_limits<double>::max());
    v.push_back(std::numeric_limits<double>::denorm_min());
    return v;
}

struct TempFile {
    std::string path;
    explicit TempFile(const std::string& bytes) {
        char tmpl[] = "/tmp/attn-number-text-XXXXXX";
        const int fd = ::mkstemp(tmpl);
        REQUIRE(fd >= 0);
        ::close(fd);
        path = tmpl;
        std::ofstream(path, std::ios::binary) << bytes;
    }
    ~TempFile() { std::remove(path.c_str()); }
};

std::string error_of(const std::string& path) {
    try {
        attn::io::read_tensor(path);
    } catch (const attn::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// The message parse_text gives for text s named t.txt, or "(no error)".
std::string err(const std::string& s) {
    try {
        attn::io::parse_text(s, "t.txt");
    } catch (const attn::InputError& e) {
        return std::string(e.what());
    }
    return std::string("(no error)");
}

// Reads `text` with 1, 2, 3 and 7 threads: rows x cols values, each bit for bit want(r, c).
template <class Want>
void check_read_by_threads(const std::string& text, std::size_t rows, std::size_t cols, Want want) {
    const unsigned before = attn::current_threads();
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
        INFO("threads " << threads);
        attn::set_threads(threads);
        const attn::Matrix m = attn::io::parse_text(text, "m.csv");
        REQUIRE(m.rows() == rows);
        REQUIRE(m.cols() == cols);
        std::size_t wrong = 0;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c)
                wrong += std::bit_cast<std::uint32_t>(m(r, c)) != std::bit_cast<std::uint32_t>(float(want(r, c)));
        CHECK(wrong == 0);
    }
    attn::set_threads(before);
}

}  // namespace

TEST_CASE("number text: %.*g written by integer arithmetic equals printf for awkward values and digits 0..17") {
    for (double v : awkward_values())
        for (int digits = 0; digits <= 17; ++digits) {
            INFO("v = " << printf_g(v, 17) << ", digits = " << digits);
            const std::string want = printf_g(v, digits), got = fast_g(v, digits);
            if (std::isfinite(v) && std::fabs(v) <= std::numeric_limits<float>::max() &&
                std::isinf(std::strtof(want.c_str(), nullptr))) {
                // printf's text reads back beyond float32 (FLT_MAX at 4 digits: 3.403e+38): cut toward zero
                CHECK(std::isfinite(std::strtof(got.c_str(), nullptr)));
                CHECK(got.size() == want.size());
                CHECK(std::fabs(std::strtod(got.c_str(), nullptr)) < std::fabs(std::strtod(want.c_str(), nullptr)));
            } else {
                CHECK(got == want);
            }
            CHECK(printf_g(v, digits).size() <= std::size_t(std::max(digits, 1)) + 8);  // the buffer bound
        }
    for (double v : {-1e-300, -1.17549435e-38, -123456789.123, -0.000123456789})
        for (int digits : {25, 30, 31, 40}) {
            INFO("v = " << printf_g(v, 17) << ", digits = " << digits);
            CHECK(fast_g(v, digits) == printf_g(v, digits));
            CHECK(printf_g(v, digits).size() <= std::size_t(digits) + 8);
        }
    CHECK(fast_g(std::nan(""), 9) == "nan");
    CHECK(fast_g(-std::numeric_limits<double>::infinity(), 9) == "-inf");
}

TEST_CASE("number text: random float bit patterns print as printf does (every exponent, every digit count)") {
    std::mt19937 gen(20261123);
    std::size_t checked = 0;
    for (int n = 0; n < 200000; ++n) {
        const float f = std::bit_cast<float>(std::uint32_t(gen()));
        if (!std::isfinite(f)) continue;
        const int digits = int(gen() % 18);
        const std::string got = fast_g(f, digits), want = printf_g(f, digits);
        if (got != want) {
            INFO("bits " << std::bit_cast<std::uint32_t>(f) << ", digits " << digits);
            CHECK(got == want);
        }
        ++checked;
    }
    CHECK(checked > 190000);
    // Doubles too (records print doubles): most take the to_chars path, some the integer one.
    std::mt19937_64 gen64(7);
    for (int n = 0; n < 20000; ++n) {
        const double d = std::bit_cast<double>(std::uint64_t(gen64()));
        if (!std::isfinite(d)) continue;
        const int digits = int(gen64() % 18);
        if (fast_g(d, digits) != printf_g(d, digits)) CHECK(fast_g(d, digits) == printf_g(d, digits));
    }
}

TEST_CASE("number text: float values with up to 9 digits print as printf and to_chars do (ties, subnormals, every binade)") {
    // The 64-bit path for floats: random bit patterns, normal-distributed values (what csv
    // of a tensor holds), and exact ties at the last digit (m·2^-n with few bits after the point).
    std::mt19937 gen(424242);
    std::normal_distribution<float> normal;
    std::vector<float> values;
    for (int n = 0; n < 300000; ++n) {
        float f;
        do f = std::bit_cast<float>(std::uint32_t(gen()));
        while (!std::isfinite(f));
        values.push_back(f);
        values.push_back(normal(gen) * std::ldexp(1.0f, int(gen() % 40) - 20));
    }
    for (int shift = 1; shift <= 30; ++shift)
        for (std::uint32_t m = 1; m < 3000; m += 7) values.push_back(std::ldexp(float(m), -shift)), values.push_back(-std::ldexp(float(m) + 0.5f, shift % 12));
    for (float f : {0.0f, -0.0f, 1.0f, 1e9f, 999999999.0f, 999999995.0f, 9.9999999e-10f, 1e-10f, 1.001953125f,
                    std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()})
        values.push_back(f);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const float f = values[i];
        const int digits = 1 + int(i % 9);
        const std::string got = fast_g(f, digits);
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, double(f), std::chars_format::general, digits);
        if (got != printf_g(f, digits) || got != std::string(buf, res.ptr)) {
            if (++wrong <= 5) CHECK_MESSAGE(got == printf_g(f, digits), "bits " << std::bit_cast<std::uint32_t>(f) << ", digits " << digits);
        }
    }
    CHECK(wrong == 0);
    CHECK(values.size() > 600000);
}

TEST_CASE("number text: the decimal fast path reads as std::from_chars does (value and end), and reads %.9g text") {
    using attn::io::detail::parse_decimal_fast;
    std::mt19937 gen(99);
    // Whatever it accepts, from_chars reads to the same double and stops at the same byte;
    // and it reads the same with readable bytes after the text (digits, '.', 'e': never taken).
    const auto same_as_from_chars = [&gen](const std::string& s) {
        double fast = 0, padded_fast = 0, want = 0;
        const char* end = parse_decimal_fast(s.data(), s.data() + s.size(), s.data() + s.size(), &fast);
        std::string padded = s;
        for (int k = 0; k < 12; ++k) padded += "0123456789.e"[gen() % 12];
        const char* padded_end = parse_decimal_fast(padded.data(), padded.data() + s.size(),
                                                    padded.data() + padded.size(), &padded_fast);
        if ((end == nullptr) != (padded_end == nullptr)) return false;
        if (!end) return true;
        const auto res = std::from_chars(s.data(), s.data() + s.size(), want);
        return res.ec == std::errc() && res.ptr == end && padded_end - padded.data() == end - s.data() &&
               std::bit_cast<std::uint64_t>(fast) == std::bit_cast<std::uint64_t>(want) &&
               std::bit_cast<std::uint64_t>(padded_fast) == std::bit_cast<std::uint64_t>(want);
    };
    const std::string alphabet = "01234567890123456789012345678901234567890123456789.-+eE x,";
    std::size_t accepted = 0, wrong = 0;
    for (int n = 0; n < 400000; ++n) {
        std::string s;
        const int len = 1 + int(gen() % 26);
        for (int k = 0; k < len; ++k) s += alphabet[gen() % alphabet.size()];
        double d;
        accepted += parse_decimal_fast(s.data(), s.data() + s.size(), s.data() + s.size(), &d) != nullptr;
        if (!same_as_from_chars(s) && ++wrong <= 5) CHECK_MESSAGE(same_as_from_chars(s), "text '" << s << "'");
    }
    CHECK(wrong == 0);
    CHECK(accepted > 100000);
    // The edges of the exact range (2^53, 10^±22, 19 digits), signs, exponents, stops.
    const char* edges[] = {"0", "-0", "-0.0e5", "9007199254740992", "9007199254740993", "9007199254740991.5",
                           "1e22", "1e23", "1e-22", "4.5e-23", "1234567890123456789", "12345678901234567890",
                           "0.0000000000000000001", "1.5e+3", "1.5E-3", "2e", "2e+", "2e-x", "1.", ".5", "-.5",
                           "1.5.2", "1e5e5", "00012", "7e00001", "3.4028235e38", "1e-45", "-1.06739473",
                           "0.619125605", "-0.0677454099", "123456789,1", "5 6"};
    for (const char* e : edges) {
        INFO("text '" << e << "'");
        CHECK(same_as_from_chars(e));
    }
    // Every count of integer and fraction digits around the word boundaries, each exponent form.
    for (int int_digits = 0; int_digits <= 10; ++int_digits)
        for (int fraction = -1; fraction <= 18; ++fraction)  // -1: no point
            for (const char* exponent : {"", "e5", "e-3", "E+22", "e-22", "e23", "e"})
                for (const char* sign : {"", "-"}) {
                    std::string s = sign;
                    for (int k = 0; k < int_digits; ++k) s += char('0' + gen() % 10);
                    if (fraction >= 0) s += '.';
                    for (int k = 0; k < fraction; ++k) s += char('0' + gen() % 10);
                    s += exponent;
                    for (const std::string& text : {s, s + ",1", s + " "}) {
                        INFO("text '" << text << "'");
                        CHECK(same_as_from_chars(text));
                    }
                }
    double d;
    const auto fast = [&](const std::string& s) {
        return parse_decimal_fast(s.data(), s.data() + s.size(), s.data() + s.size(), &d) != nullptr;
    };
    CHECK(fast("9007199254740992"));
    CHECK_FALSE(fast("9007199254740993"));  // above 2^53: from_chars' job
    CHECK(fast("1e22"));
    CHECK_FALSE(fast("1e23"));
    CHECK_FALSE(fast("12345678901234567890"));
    CHECK_FALSE(fast("+1"));
    CHECK_FALSE(fast("inf"));
    CHECK(fast("-0"));
    CHECK(std::signbit(d));
    // What attn (and printf) write with %.9g is read by the fast path, every value of it.
    std::normal_distribution<float> normal;
    std::size_t taken = 0;
    const int count = 100000;
    for (int n = 0; n < count; ++n) {
        const float f = normal(gen) * std::ldexp(1.0f, int(gen() % 30) - 15);
        const std::string text = printf_g(f, 9);
        if (fast(text)) ++taken;
        if (!same_as_from_chars(text)) CHECK(same_as_from_chars(text));
    }
    CHECK(taken == std::size_t(count));
}

TEST_CASE("number text: csv with 9 digits reads back bit for bit, subnormals and ±0 included") {
    std::mt19937 gen(11);
    const std::size_t rows = 300, cols = 7;
    attn::Matrix m(rows, cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) {
            float f;
            do f = std::bit_cast<float>(std::uint32_t(gen()));
            while (!std::isfinite(f));
            m(r, c) = f;
        }
    m(0, 0) = 0.0f, m(0, 1) = -0.0f, m(0, 2) = std::numeric_limits<float>::denorm_min();
    m(0, 3) = -std::numeric_limits<float>::max();
    attn::io::OutputOptions opt;
    opt.format = attn::io::Format::csv;
    const std::string csv = attn::io::render({attn::io::tensor_item("m", attn::view_of(m))}, opt);
    const attn::Matrix back = attn::io::parse_text(csv, "m.csv");
    REQUIRE(back.rows() == rows);
    REQUIRE(back.cols() == cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            if (std::bit_cast<std::uint32_t>(back(r, c)) != std::bit_cast<std::uint32_t>(m(r, c)))
                CHECK(std::bit_cast<std::uint32_t>(back(r, c)) == std::bit_cast<std::uint32_t>(m(r, c)));
}

TEST_CASE("number text: the parser's fast path reads every spelling as strtod then float does") {
    // Each token alone, as a row and inside brackets; expected: strtod (glibc), rounded to float.
    const char* tokens[] = {"1",      "+1",       ".5",        "1.",         "1e5",         "-0",
                            "-.25",   "1E-3",     "0.1",       "3.4028235e38", "1e-45",     "7e-46",
                            "1e-40",  "-1.17549435e-38", "0.30000000000000004", "123456789012345678901234567890",
                            "0000.000100", "2.5e+01", "-9.999999e-39", "1.00000005960464477539062500001"};
    for (const char* tok : tokens) {
        INFO("token " << tok);
        const float want = float(std::strtod(tok, nullptr));
        const std::string forms[] = {std::string(tok) + "\n", std::string(tok) + ", 2\n", "[" + std::string(tok) + ", 2]",
                                     "[[" + std::string(tok) + "]]"};
        for (const std::string& form : forms) {
            const attn::Matrix m = attn::io::parse_text(form, "t.txt");
            CHECK(std::bit_cast<std::uint32_t>(m(0, 0)) == std::bit_cast<std::uint32_t>(want));
        }
    }
    // What the fast path hands on still gets its message.
    CHECK(err("1 2\n3 1e39\n") == "t.txt:2:3: value '1e39' is out of float32 range");
    CHECK(err("1 -inf\n") == "t.txt:1:3: non-finite value '-inf' is not allowed here");
    CHECK(err("1 2.5x\n") == "t.txt:1:3: expected a number, found '2.5x'");
    CHECK(err("[1, 2...]").find("summarised print") != std::string::npos);
    CHECK(err("[1, 2,") == "t.txt:1:7: expected a number, found end of input");
}

TEST_CASE("number text: csv formatted in row bands is the same for threads 1, 2, 3 and 7") {
    // 70 000 rows of 2: many bands, the last one short.
    const attn::Matrix m = normal_matrix(70001, 2, 3);
    attn::io::OutputOptions opt;
    opt.format = attn::io::Format::csv;
    const unsigned before = attn::current_threads();
    const std::string serial = printf_rows(m, ",");
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
        attn::set_threads(threads);
        CHECK(attn::io::render({attn::io::tensor_item("m", attn::view_of(m))}, opt) == serial);
    }
    attn::set_threads(before);
}

TEST_CASE("number text: csv/tsv streamed band by band reach the sink in row order for threads 1, 2, 3 and 7") {
    // Streaming, the bands are handed to the sink by whichever thread finishes one, in row
    // order: the bytes (and the pieces' order) must not depend on the thread count. 90 001
    // rows of 3: several bands, the last one short.
    const attn::Matrix m = normal_matrix(90001, 3, 17);
    const std::string want = printf_rows(m, "\t");
    const unsigned before = attn::current_threads();
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
        INFO("threads " << threads);
        attn::set_threads(threads);
        attn::io::OutputOptions opt;
        opt.format = attn::io::Format::tsv;
        std::string got;
        std::size_t pieces = 0;
        attn::io::stream_blocks(attn::io::tensor_item("m", attn::view_of(m)), opt, [&](std::string_view piece) {
            got += piece;
            ++pieces;
        }, true);
        CHECK(got == want);
        CHECK(pieces > 3);
        // Through the file writer: the same bytes as render().
        opt.format = attn::io::Format::csv;
        char tmpl[] = "/tmp/attn-stream-XXXXXX";
        const int fd = ::mkstemp(tmpl);
        REQUIRE(fd >= 0);
        ::close(fd);
        opt.path = tmpl;
        attn::io::write_output({attn::io::tensor_item("m", attn::view_of(m))}, opt);
        std::ifstream in(tmpl, std::ios::binary);
        const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::remove(tmpl);
        opt.path.clear();
        CHECK(written == attn::io::render({attn::io::tensor_item("m", attn::view_of(m))}, opt));
        std::string csv_want = want;
        std::replace(csv_want.begin(), csv_want.end(), '\t', ',');
        CHECK(written == csv_want);
    }
    attn::set_threads(before);
}

TEST_CASE("inputs: a text input's NUL and lone-CR checks, done in 1 MiB slices by all threads, as one serial pass") {
    using attn::io::detail::scan_text_bytes;
    constexpr std::size_t MiB = std::size_t(1) << 20;
    const auto check = [](const std::string& text) {
        const attn::io::detail::TextBytes got = scan_text_bytes(text);
        CHECK(got.first_nul == text.find('\0'));
        CHECK(got.lone_cr == attn::io::detail::has_lone_cr(text));
    };
    const std::size_t before = attn::current_threads();
    for (std::size_t threads : {1, 2, 3}) {
        attn::set_threads(threads);
        std::string text(3 * MiB + 17, 'a');
        check(text);
        text[MiB - 1] = '\r', text[MiB] = '\n';  // a CRLF across a slice boundary is not lone
        check(text);
        CHECK_FALSE(scan_text_bytes(text).lone_cr);
        text[2 * MiB + 5] = '\r';  // in the third slice only
        check(text);
        CHECK(scan_text_bytes(text).lone_cr);
        text[2 * MiB + 5] = 'a';
        text.back() = '\r';  // the last byte
        check(text);
        text[3 * MiB + 2] = '\0', text[2 * MiB + MiB / 2] = '\0';  // the first of two, in later slices
        check(text);
        CHECK(scan_text_bytes(text).first_nul == 2 * MiB + MiB / 2);
        check("");
        check("\r");
    }
    attn::set_threads(before);
    // Through the reader: a big file whose lone CR lies past the first MiB reads as LF there.
    std::string lf, cr;
    for (int r = 0; lf.size() < 3 * MiB; ++r) {
        const std::string row = std::to_string(r) + ".5 " + std::to_string(-r) + "\n";
        lf += row;
        cr += row;
    }
    cr[cr.find('\n', 2 * MiB)] = '\r';
    const TempFile lf_file(lf), cr_file(cr), nul_file(lf.substr(0, 2 * MiB) + std::string(1, '\0') + "1 2\n");
    const attn::Tensor want = attn::io::read_tensor(lf_file.path), got = attn::io::read_tensor(cr_file.path);
    REQUIRE(got.shape() == want.shape());
    CHECK(std::equal(got.data(), got.data() + got.slices() * got.rows() * got.row_stride(), want.data()));
    CHECK_THROWS_WITH_AS(attn::io::read_tensor(nul_file.path), doctest::Contains("a NUL byte"), attn::InputError);
}

TEST_CASE("inputs: a mapped file reads as the same file read whole, values and errors alike") {
    const std::string csv = "# m 2x3\n1, 2.5, -3e-3\n4, 5, 6\n";
    attn::Matrix m(2, 3);
    m(0, 0) = 1, m(0, 1) = 2.5f, m(0, 2) = -3e-3f, m(1, 0) = 4, m(1, 1) = 5, m(1, 2) = 6;
    const std::string npy = attn::io::npy_bytes(m);
    const TempFile text_file(csv), npy_file(npy), nul_file(std::string("1 2\n3 \0 4\n", 10)),
        long_npy(npy + "xyz"), short_npy(npy.substr(0, npy.size() - 5)), empty("");
    std::vector<std::string> errors[2];
    for (bool mapping : {true, false}) {
        INFO("mapping " << mapping);
        attn::io::detail::InputBytes::allow_mapping(mapping);
        {
            const attn::io::detail::InputBytes bytes(text_file.path);
            CHECK(bytes.mapped() == mapping);
            CHECK(bytes.view() == csv);
        }
        for (const std::string* path : {&text_file.path, &npy_file.path}) {
            const attn::Tensor t = attn::io::read_tensor(*path);
            REQUIRE(t.rows() == 2);
            REQUIRE(t.cols() == 3);
            for (std::size_t r = 0; r < 2; ++r)
                for (std::size_t c = 0; c < 3; ++c) CHECK(t.slice(0)(r, c) == m(r, c));
        }
        for (const TempFile* f : {&nul_file, &long_npy, &short_npy, &empty}) errors[mapping].push_back(error_of(f->path));
    }
    attn::io::detail::InputBytes::allow_mapping(true);
    CHECK(errors[0] == errors[1]);
    CHECK(errors[1][0] == nul_file.path + ":2:3: a NUL byte: binary data is neither text nor .npy");
    CHECK(errors[1][1] == long_npy.path + ": 3 unexpected bytes after the array data");
    CHECK(errors[1][2].find("truncated data") != std::string::npos);
    CHECK(errors[1][3] == empty.path + ": no numbers found (empty matrix)");
}

// A tensor of this shape holding 0.25·i - 3 at flat index i (exact in float32, and in float16
// for i < 2048), and its .npy.
attn::Tensor counting_tensor(const attn::Shape& shape) {
    attn::Tensor t(shape);
    for (std::size_t s = 0; s < t.slices(); ++s)
        for (std::size_t r = 0; r < t.rows(); ++r)
            for (std::size_t c = 0; c < t.cols(); ++c)
                t.slice_data(s)[r * t.row_stride() + c] = 0.25f * float((s * t.rows() + r) * t.cols() + c) - 3.0f;
    return t;
}
std::string counting_npy(const attn::Shape& shape) { return attn::io::npy_bytes(counting_tensor(shape).view()); }

TEST_CASE("inputs: a mapped float32 .npy with unpadded rows is used where it lies, copy-on-write") {
    namespace d = attn::io::detail;
    const auto check_counting = [](const attn::Tensor& t) {
        for (std::size_t s = 0; s < t.slices(); ++s)
            for (std::size_t r = 0; r < t.rows(); ++r)
                for (std::size_t c = 0; c < t.cols(); ++c)
                    REQUIRE(t.slice(s)(r, c) == 0.25f * float((s * t.rows() + r) * t.cols() + c) - 3.0f);
    };
    // Eligible: whole 64-byte rows, or rows narrower than one (not padded: an N×1 tensor
    // stays where it lies). A 4 KiB-aligned copy stands for the mapping.
    const auto probe = [](const std::string& bytes) {
        void* buf = attn::aligned_alloc_bytes(bytes.size() + 4096);
        char* at = static_cast<char*>(buf) + (4096 - reinterpret_cast<std::uintptr_t>(buf) % 4096) % 4096;
        std::memcpy(at, bytes.data(), bytes.size());
        const auto r = d::npy_in_place(std::string_view(at, bytes.size()), "m.npy", attn::max_rank);
        attn::aligned_free_bytes(buf);
        return r;
    };
    for (const attn::Shape& shape : {attn::Shape{3, 16}, attn::Shape{16}, attn::Shape{2, 3, 32}, attn::Shape{1, 48},
                                     attn::Shape{7, 1}, attn::Shape{2, 3, 5}}) {
        INFO(shape.text());
        const std::string bytes = counting_npy(shape);
        const auto in_place = probe(bytes);
        REQUIRE(in_place);
        CHECK(in_place->shape == shape);
        CHECK(in_place->data_offset == bytes.size() - shape.numel() * 4);
        const TempFile file(bytes);
        attn::Tensor t = attn::io::read_tensor(file.path);
        CHECK(t.shape() == shape);
        CHECK(reinterpret_cast<std::uintptr_t>(t.data()) % 4096 == in_place->data_offset % 4096);
        check_counting(t);
        // Writing to the tensor changes neither the file nor another reading of it.
        const attn::Tensor copy = t, again = attn::io::read_tensor(file.path);
        t.data()[0] = 1e6f;
        CHECK(attn::io::read_file(file.path) == bytes);
        check_counting(copy);
        check_counting(again);
        const attn::io::KVInput kv = attn::io::read_kv_tensor(file.path);
        check_counting(kv.f32);
    }
    // Copied instead: padded rows, another dtype or order, a non-finite value, data off a
    // 64-byte boundary. Read all the same (-inf where allowed), errors as before.
    std::string nan_npy = counting_npy(attn::Shape{2, 16}), neg_inf_npy = nan_npy;
    const float nan = std::numeric_limits<float>::quiet_NaN(), neg_inf = -std::numeric_limits<float>::infinity();
    std::memcpy(nan_npy.data() + nan_npy.size() - 4, &nan, 4);
    std::memcpy(neg_inf_npy.data() + neg_inf_npy.size() - 8, &neg_inf, 4);
    std::string off_boundary = counting_npy(attn::Shape{2, 16});
    off_boundary.insert(off_boundary.size() - 129, 16, ' ');  // 16 more header bytes: data at offset 144
    off_boundary[8] = char(off_boundary[8] + 16);
    std::string doubles = counting_npy(attn::Shape{2, 16}), fortran = doubles, big_endian = doubles;
    doubles.replace(doubles.find("<f4"), 3, "<f8");  // the same bytes as 16 doubles
    doubles.replace(doubles.find("(2, 16)"), 7, "(1, 16)");
    fortran.replace(fortran.find("False"), 5, "True ");
    big_endian.replace(big_endian.find("<f4"), 3, ">f4");
    for (const std::string* bytes : {&nan_npy, &neg_inf_npy, &off_boundary, &doubles, &fortran, &big_endian})
        CHECK_FALSE(probe(*bytes));
    CHECK_FALSE(probe(counting_npy(attn::Shape{3, 17})));
    // Beyond 256 KiB the scan for non-finite values is cut into slices for the threads: a NaN
    // in the last element, or the first of a later slice, is still found.
    for (std::size_t at : {std::size_t(1) << 16, std::size_t(1) << 18, (std::size_t(3) << 18) - 1}) {
        attn::Tensor big(attn::Shape{768, 1024});  // 3 MiB of zeros
        big.data()[at] = nan;
        CHECK_FALSE(probe(attn::io::npy_bytes(big.view())));
        big.data()[at] = 0.0f;
        CHECK(probe(attn::io::npy_bytes(big.view())));
    }
    const TempFile odd(counting_npy(attn::Shape{3, 17})), nan_file(nan_npy), inf_file(neg_inf_npy), off_file(off_boundary);
    check_counting(attn::io::read_tensor(odd.path));
    check_counting(attn::io::read_tensor(off_file.path));
    CHECK(error_of(nan_file.path) == nan_file.path + ": row 1, column 15 (0-based): non-finite value 'nan' is not allowed here");
    const attn::Tensor with_inf = attn::io::read_tensor(inf_file.path, attn::io::Finite::allow_neg_inf);
    CHECK(with_inf.slice(0)(1, 14) == neg_inf);
    CHECK(with_inf.slice(0)(1, 15) == 0.25f * 31 - 3.0f);
}

TEST_CASE("inputs: a mapped float16 .npy K/V with unpadded rows stays float16 where it lies") {
    namespace d = attn::io::detail;
    const auto half_npy = [](const attn::Shape& shape) { return attn::io::npy_half_bytes(counting_tensor(shape).view()); };
    const auto check_counting = [](const attn::HalfTensor& h) {
        const attn::Tensor want = counting_tensor(h.shape());
        for (std::size_t s = 0; s < h.slices(); ++s)
            for (std::size_t r = 0; r < h.rows(); ++r)
                for (std::size_t c = 0; c < h.cols(); ++c)
                    REQUIRE(attn::half_to_float(h.slice_data(s)[r * h.row_stride() + c]) == want.slice(s)(r, c));
    };
    for (const attn::Shape& shape : {attn::Shape{3, 32}, attn::Shape{2, 3, 64}, attn::Shape{5, 16}, attn::Shape{4, 7}, attn::Shape{2, 40}}) {
        INFO(shape.text());
        const std::string bytes = half_npy(shape);
        // rows of whole 64-byte lines, or narrower than one line: no padding to add
        const bool whole_lines = shape.back(1) % 32 == 0 || shape.back(1) < 32;
        const TempFile file(bytes);
        {
            const d::InputBytes mapped(file.path);
            CHECK(d::npy_in_place(mapped.view(), "k.npy", attn::max_rank, attn::ElementType::f16).has_value() == whole_lines);
            CHECK_FALSE(d::npy_in_place(mapped.view(), "k.npy", attn::max_rank, attn::ElementType::f32));
        }
        attn::io::KVInput kv = attn::io::read_kv_tensor(file.path);
        REQUIRE(kv.f16.rank() == shape.rank());
        CHECK(kv.f32.rank() == 0);
        CHECK(kv.f16.shape() == shape);
        CHECK((kv.f16.row_stride() == shape.back(1)) == whole_lines);  // in place: no padding
        check_counting(kv.f16);
        kv.f16.data()[0] = attn::float_to_half(100.0f);  // copy-on-write: the file stays as it was
        CHECK(attn::io::read_file(file.path) == bytes);
        check_counting(attn::io::read_kv_tensor(file.path).f16);
    }
    // A float32 .npy is not adopted as halves, nor a float16 one with an infinity (read as float32, rejected).
    CHECK_FALSE(d::npy_in_place(counting_npy(attn::Shape{2, 32}), "k.npy", attn::max_rank, attn::ElementType::f16));
    for (bool inf : {false, true}) {  // 3 MiB of halves, an infinity at the start of the third slice
        attn::Tensor big(attn::Shape{1536, 1024});
        if (inf) big.data()[std::size_t(1) << 20] = std::numeric_limits<float>::infinity();
        const TempFile file(attn::io::npy_half_bytes(big.view()));
        const d::InputBytes mapped(file.path);
        CHECK(d::npy_in_place(mapped.view(), "k.npy", attn::max_rank, attn::ElementType::f16).has_value() == !inf);
    }
    std::string with_inf = half_npy(attn::Shape{2, 32});
    with_inf[with_inf.size() - 1] = char(0x7c), with_inf[with_inf.size() - 2] = 0;  // +inf
    const TempFile inf_file(with_inf);
    CHECK(error_of(inf_file.path).find("non-finite value 'inf'") != std::string::npos);
}


TEST_CASE("number text: csv of a 3-D tensor over 1 MiB reads back, its block headers read by the bands") {
    // Blocks of 1200 rows x 80 (over 1 MiB in all: read by all threads in bands) under
    // "# m [b] 1200x80" headers, which the bands read and count in order; a blank line and a
    // comment line inside a block, and a '+1' (full rules: its band read again serially) in
    // the last block.
    const std::size_t blocks = 5, rows = 1200, cols = 80;
    attn::Tensor t(attn::Shape{blocks, rows, cols});
    std::mt19937 gen(23);
    std::normal_distribution<float> normal;
    for (std::size_t b = 0; b < blocks; ++b)
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) t.slice_data(b)[r * t.row_stride() + c] = normal(gen);
    t.slice_data(blocks - 1)[7 * t.row_stride()] = 1.0f;
    attn::io::OutputOptions opt;
    opt.format = attn::io::Format::csv;
    std::string csv = attn::io::render({attn::io::tensor_item("m", t.view())}, opt);
    REQUIRE(csv.size() > (std::size_t(1) << 20));
    REQUIRE(csv.find("# m [3] 1200x80\n") != std::string::npos);
    const std::size_t block2 = csv.find("# m [2] 1200x80\n");
    const std::size_t inside = csv.find('\n', csv.find('\n', block2 + 20) + 1) + 1;
    csv.insert(inside, "\n   # a note, not a header\n");
    const std::size_t last = csv.find("# m [4] 1200x80\n");
    std::size_t row7 = last;
    for (int k = 0; k < 8; ++k) row7 = csv.find('\n', row7) + 1;
    REQUIRE(csv.compare(row7, 2, "1,") == 0);
    csv.insert(row7, "+");
    const unsigned before = attn::current_threads();
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
        INFO("threads " << threads);
        attn::set_threads(threads);
        const attn::Tensor back = attn::io::parse_text_tensor(csv, "t.csv");
        REQUIRE(back.shape() == t.shape());
        std::size_t wrong = 0;
        for (std::size_t b = 0; b < blocks; ++b)
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < cols; ++c)
                    wrong += std::bit_cast<std::uint32_t>(back.slice_data(b)[r * back.row_stride() + c]) !=
                             std::bit_cast<std::uint32_t>(t.slice_data(b)[r * t.row_stride() + c]);
        CHECK(wrong == 0);
        // A block short of one row is reported at its header, as in a short file.
        std::string short_block = csv;
        const std::size_t header3 = short_block.find("# m [3] 1200x80\n");
        const std::size_t first_row = header3 + std::string("# m [3] 1200x80\n").size();
        short_block.erase(first_row, short_block.find('\n', first_row) + 1 - first_row);
        const std::size_t header_line = 1 + std::size_t(std::count(short_block.begin(), short_block.begin() + std::ptrdiff_t(header3), '\n'));
        CHECK(err(short_block) == "t.txt:" + std::to_string(header_line) + ":1: the header says 1200x80 but the block is 1199x80");
    }
    attn::set_threads(before);
}

TEST_CASE("number text: long runs of rows read by several threads equal the serial reading, errors included") {
    // Over 1 MiB of rows (the size from which bands of rows go to all threads), after a
    // block header, with CRLF line ends, blank lines, trailing comments and ';' separators.
    std::mt19937 gen(5);
    std::normal_distribution<float> normal;
    const std::size_t rows = 9000, cols = 13;
    std::vector<float> want;
    std::string text = "# m 9000x13\r\n";
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            const float v = normal(gen) * 1e3f;
            const std::string tok = printf_g(v, 9);
            want.push_back(float(std::strtod(tok.c_str(), nullptr)));
            text += (c ? (r % 3 ? "," : "; ") : "") + tok;
        }
        text += r % 100 == 7 ? "  # note\r\n\r\n" : "\r\n";
    }
    REQUIRE(text.size() > (std::size_t(1) << 20));
    check_read_by_threads(text, rows, cols, [&](std::size_t r, std::size_t c) { return want[r * cols + c]; });
    // A short row deep in the run, and a token only the full rules read, as in a short text.
    std::string short_row = text;
    const std::size_t line_8000 = [&] {
        std::size_t at = 0;
        for (int k = 0; k < 8000; ++k) at = short_row.find('\n', at) + 1;
        return at;
    }();
    short_row.insert(line_8000, "1, 2\n");
    const std::size_t line_number = 1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(line_8000), '\n'));
    CHECK(err(short_row) == "t.txt:" + std::to_string(line_number) + ": row has 2 values, expected 13");
    // A leading '+' takes the full rules: the run is read serially, to the same values.
    std::string plus = text;
    std::string plus_row = "+1";
    for (std::size_t c = 1; c < cols; ++c) plus_row += ",0";
    plus.insert(line_8000, plus_row + "\n");
    plus.replace(0, std::string("# m 9000x13").size(), "# one row more");  // a comment, not a header
    const attn::Matrix m = attn::io::parse_text(plus, "t.txt");
    REQUIRE(m.rows() == rows + 1);
    std::size_t at = rows;
    for (std::size_t r = 0; r <= rows && at == rows; ++r)
        if (m(r, 0) == 1.0f && m(r, 1) == 0.0f && m(r, cols - 1) == 0.0f) at = r;
    REQUIRE(at < rows);
    CHECK(m(at + 1, 0) == want[at * cols]);
    CHECK(m(at - 1, cols - 1) == want[(at - 1) * cols + cols - 1]);
}

TEST_CASE("number text: a long run of one-digit values (more than the bands' first estimate) reads back whole") {
    // 2 bytes a value ("7,"): each band holds four times the values its first buffer was sized
    // for (one per 8 bytes of text), so the buffers grow while the values are stored.
    const std::size_t rows = 4096, cols = 160;
    std::string text;
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) text += char('0' + (r * 7 + c * 3) % 10), text += c + 1 < cols ? ',' : '\n';
    }
    REQUIRE(text.size() > (std::size_t(1) << 20));
    check_read_by_threads(text, rows, cols, [](std::size_t r, std::size_t c) { return float((r * 7 + c * 3) % 10); });
}
