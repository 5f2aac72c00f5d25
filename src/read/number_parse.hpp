// Internal to src/read: the common spelling of a number read without std::from_chars, as text
// readers meet it millions of times (csv written by printf, NumPy, attn).
#pragma once
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <system_error>

namespace attn::io::detail {

// Whether the eight bytes at s are ASCII digits, and their value (s[0] the leading digit).
inline bool eight_digits(const char* s, std::uint64_t* value) {
    static_assert(std::endian::native == std::endian::little, "digits are loaded little-endian");
    std::uint64_t v;
    std::memcpy(&v, s, 8);
    if ((((v + 0x4646464646464646u) | (v - 0x3030303030303030u)) & 0x8080808080808080u) != 0) return false;
    v -= 0x3030303030303030u;
    v = (v * 10) + (v >> 8);  // then pairs of pairs, in two products
    *value = (((v & 0x000000FF000000FFu) * 0x000F424000000064u) +
              (((v >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u)) >> 32;
    return true;
}

// Reads [-]DIGITS[.DIGITS][(e|E)[+|-]DIGITS] at [p, end), at most 19 digits before the
// exponent, and stores the double nearest to it in *out; returns the end of what it read
// (the first byte that is not part of the number). Only when the result is exact by
// Clinger's fast path: the digits as an integer w <= 2^53 and the power of ten q in
// [-22, 22], so that w·10^q (or w/10^-q) is one correctly rounded IEEE operation on exact
// operands, the value std::from_chars gives. Returns nullptr for everything else (more
// digits, a larger exponent, '+', '.5', '1.', inf, nan, not a number): the caller then uses
// std::from_chars, which reads those bytes the same way.
//
// Bytes in [end, readable_end) may be read, never taken. %.9g text, the usual input, has a
// random sign and 7 to 10 fraction digits in no order: the sign is applied without a branch,
// and after eight fraction digits taken as one word, up to two more are taken without a
// branch, so that neither costs a mispredicted jump per number.
inline const char* parse_decimal_fast(const char* p, const char* end, const char* readable_end, double* out) {
    const auto digit = [](const char* s) { return unsigned(*s) - unsigned('0'); };  // >= 10: not a digit
    const bool negative = p != end && *p == '-';
    p += negative;
    const char* const first = p;
    std::uint64_t w = 0;
    while (p != end && digit(p) < 10) w = w * 10 + digit(p++);
    if (p == first) return nullptr;
    int digits = int(p - first), fraction = 0;
    if (p != end && *p == '.') {
        const char* const point = ++p;
        std::uint64_t eight;
        if (end - p >= 8 && eight_digits(p, &eight)) {
            w = w * 100000000 + eight;
            p += 8;
            if (readable_end - p >= 2) {
                const unsigned a = digit(p), b = digit(p + 1);
                const unsigned take_a = unsigned(end - p >= 1) & unsigned(a < 10);
                const unsigned take_b = take_a & unsigned(end - p >= 2) & unsigned(b < 10);
                static constexpr std::uint64_t scale[3] = {1, 10, 100};
                w = w * scale[take_a + take_b] + std::uint64_t(take_a * a * (1 + 9 * take_b) + take_b * b);
                p += take_a + take_b;
            }
        }
        while (p != end && digit(p) < 10) w = w * 10 + digit(p++);
        fraction = int(p - point);
        if (fraction == 0) return nullptr;  // "1.": from_chars' call
        digits += fraction;
    }
    if (digits > 19) return nullptr;  // w may have wrapped around: not used
    int exponent = 0;
    if (p != end && (*p == 'e' || *p == 'E')) {
        const char* q = p + 1;
        const bool minus = q != end && *q == '-';
        q += q != end && (*q == '-' || *q == '+');
        const char* const exponent_digits = q;
        while (q != end && digit(q) < 10 && q - exponent_digits < 5) exponent = exponent * 10 + int(digit(q++));
        if (q == exponent_digits || q - exponent_digits == 5) return nullptr;  // "1e", "1e+", long exponents
        if (minus) exponent = -exponent;
        p = q;
    }
    static constexpr double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const int power = exponent - fraction;
    double d;
    if (w == 0) d = 0.0;
    else if (w > (std::uint64_t(1) << 53) || power < -22 || power > 22) return nullptr;
    else d = power < 0 ? double(w) / powers[-power] : double(w) * powers[power];
    *out = std::bit_cast<double>(std::bit_cast<std::uint64_t>(d) ^ (std::uint64_t(negative) << 63));  // -0.0 too
    return p;
}

// The common case of a number token in one pass: a finite number starting with a digit, '-'
// or '.' that parse_decimal_fast (most numbers) or std::from_chars reads in [p, limit), up to
// a byte that `ends` a token or `limit`. Stores it in *out and returns the end of what it
// read; nullptr when the token needs a text reader's full rules (a sign '+', inf, nan, '...',
// a Unicode minus, out of range, not a number), which then read the same bytes the same way
// (from_chars to double, then to float). Bytes in [limit, readable_end) may be read, never taken.
template <class Ends>
const char* parse_plain_number(const char* p, const char* limit, const char* readable_end, Ends ends, float* out) {
    if (p >= limit) return nullptr;
    const char c = *p;
    if (!((c >= '0' && c <= '9') || c == '-' || c == '.')) return nullptr;
    double d = 0.0;
    const char* stop = parse_decimal_fast(p, limit, readable_end, &d);
    if (!stop) {
        const auto res = std::from_chars(p, limit, d);
        if (res.ec != std::errc()) return nullptr;
        stop = res.ptr;
    }
    if (stop < limit && !ends(*stop)) return nullptr;
    const float f = static_cast<float>(d);
    if (!std::isfinite(f)) return nullptr;
    *out = f;
    return stop;
}

}  // namespace attn::io::detail
