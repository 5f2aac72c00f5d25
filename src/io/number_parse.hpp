// Internal to src/io: the common spelling of a number read without std::from_chars, as text
// readers meet it millions of times (csv written by printf, NumPy, attn).
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>

namespace attn::io::detail {

// Reads [-]DIGITS[.DIGITS][(e|E)[+|-]DIGITS] at [p, end), at most 19 digits before the
// exponent, and stores the double nearest to it in *out; returns the end of what it read
// (the first byte that is not part of the number). Only when the result is exact by
// Clinger's fast path: the digits as an integer w <= 2^53 and the power of ten q in
// [-22, 22], so that w·10^q (or w/10^-q) is one correctly rounded IEEE operation on exact
// operands, the value std::from_chars gives. Returns nullptr for everything else (more
// digits, a larger exponent, '+', '.5', '1.', inf, nan, not a number): the caller then uses
// std::from_chars, which reads those bytes the same way.
inline const char* parse_decimal_fast(const char* p, const char* end, double* out) {
    static constexpr double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    // Eight ASCII digits at once (little-endian load): the test and the value.
    static_assert(std::endian::native == std::endian::little, "eight digits are loaded little-endian");
    const auto eight_digits = [](const char* s, std::uint64_t* value) {
        std::uint64_t v;
        std::memcpy(&v, s, 8);
        if ((((v + 0x4646464646464646u) | (v - 0x3030303030303030u)) & 0x8080808080808080u) != 0) return false;
        v -= 0x3030303030303030u;
        v = (v * 10) + (v >> 8);
        v = (((v & 0x000000FF000000FFu) * 0x000F424000000064u) +
             (((v >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u)) >> 32;
        *value = v;
        return true;
    };
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
        if (end - p >= 8 && eight_digits(p, &eight)) {  // %.9g's fractions: eight digits and one
            w = w * 100000000 + eight;
            p += 8;
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
    const int power = exponent - fraction;
    double d;
    if (w == 0) d = 0.0;
    else if (w > (std::uint64_t(1) << 53) || power < -22 || power > 22) return nullptr;
    else d = power < 0 ? double(w) / powers[-power] : double(w) * powers[power];
    *out = negative ? -d : d;
    return p;
}

}  // namespace attn::io::detail
