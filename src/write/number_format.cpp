// Number text for the printers. std::to_chars with a precision prints exactly what printf's
// %.*f / %.*e / %.*g print, only faster (it matters for million-entry matrices).
#include "write/number_format.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <charconv>
#include <cmath>

namespace attn::io::detail {

namespace {

std::string non_finite_text(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

// The least double that float32 rounds to +inf (2^128 − 2^103): text at or beyond it does not read
// back as a float.
constexpr double float_overflow = 3.4028235677973366e38;

// Whether |v| is a float near enough FLT_MAX that its text may round up past float_overflow.
bool near_float_max(double v) { return std::fabs(v) > 3.4e38 && std::fabs(v) <= 3.4028234663852886e38; }

std::string chars(double v, std::chars_format how, int precision) {
    if (!std::isfinite(v)) return non_finite_text(v);
    char buf[400];  // %.17f of DBL_MAX needs 327
    auto res = std::to_chars(buf, buf + sizeof buf, v, how, precision);
    // A float near FLT_MAX at 4 significant digits is 3.403e+38, which reads back as inf: cut
    // toward zero at that precision instead (3.402e+38), so that what attn prints it reads.
    if (near_float_max(v) && std::fabs(std::strtod(std::string(buf, res.ptr).c_str(), nullptr)) >= float_overflow) {
        const double printed = std::fabs(std::strtod(std::string(buf, res.ptr).c_str(), nullptr));
        const int digits = how == std::chars_format::general ? std::max(precision, 1) : precision + 1;
        const double unit = std::pow(10.0, std::floor(std::log10(printed)) - (digits - 1));
        res = std::to_chars(buf, buf + sizeof buf, std::copysign(printed - unit, v), how, precision);
    }
    return std::string(buf, res.ptr);
}

}  // namespace

void MagnitudeRange::add(double v) {
    if (!std::isfinite(v) || v == 0) return;
    const double a = std::fabs(v);
    min = std::min(min, a);
    max = std::max(max, a);
}

Notation MagnitudeRange::notation() const {
    if (max == 0) return Notation::fixed;
    return max / min > 1e3 || max > 1e8 || min < 1e-4 ? Notation::scientific : Notation::fixed;
}

Notation tensor_notation(const TensorView& t) {
    MagnitudeRange range;
    for (std::size_t s = 0; s < t.slices(); ++s) {
        const MatrixView m = t.slice(s);
        for (std::size_t r = 0; r < m.rows; ++r)
            for (std::size_t c = 0; c < m.cols; ++c) range.add(m(r, c));
    }
    return range.notation();
}

std::string fixed(double v, int decimals) { return chars(v, std::chars_format::fixed, decimals); }
std::string scientific(double v, int decimals) { return chars(v, std::chars_format::scientific, decimals); }

std::string in_notation(double v, Notation n, int decimals) {
    return n == Notation::scientific ? scientific(v, decimals) : fixed(v, decimals);
}

std::string significant(double v, int digits) {
    return chars(v, std::chars_format::general, std::max(digits, 1));
}

namespace {

// %.*g by exact integer arithmetic, for the common case: v = m·2^e scaled by 10^k to a
// P-digit integer as the fraction num/den, both within 126 bits, rounded half to even as
// printf and to_chars round. Returns the end of the text written at `p`, or nullptr when the
// value is out of this path's range (to_chars then does it).
__extension__ typedef unsigned __int128 u128;  // GCC and Clang on 64-bit targets

template <int Base>
constexpr std::array<u128, 55> powers() {
    std::array<u128, 55> t{};
    u128 r = 1;
    for (std::size_t i = 0; i < t.size(); ++i, r *= Base) t[i] = Base == 10 && i > 38 ? 0 : r;
    return t;
}
constexpr std::array<u128, 55> pow5 = powers<5>(), pow10 = powers<10>();  // pow10 up to 10^38

// Writes the P digits of d (10^(P-1) <= d < 10^P; x = the decimal exponent of its first
// digit) in %g's layout: fixed when -4 <= x < P, else scientific; the trailing zeros of the
// fraction and a bare point dropped. Returns the end. Up to P <= 16 with fixed-size stores
// (no data-dependent loops: the lengths vary from number to number), which may write
// scratch bytes past the end (significant_scratch_chars).
char* layout_general(char* p, bool negative, u128 d, int P, int x) {
    static constexpr char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    static_assert(std::endian::native == std::endian::little, "the digit lanes are laid out little-endian");
    if (P <= 16) {
        // d as 16 digits with leading zeros at buf[8, 24); its P digits end there. Eight
        // digits at a time, in the lanes of a 64-bit integer: 4 + 4, then 2 + 2, then 1 + 1.
        const auto eight_ascii = [](std::uint64_t n) {  // n < 10^8 -> 8 ASCII digits, first digit first in memory
            std::uint64_t v = (n / 10000) | ((n % 10000) << 32);
            const std::uint64_t hundreds = ((v * 5243) >> 19) & 0x0000007F0000007Fu;  // x / 100 for x < 10^4
            v = hundreds | ((v - hundreds * 100) << 16);
            const std::uint64_t tens = ((v * 103) >> 10) & 0x000F000F000F000Fu;  // x / 10 for x < 100
            v = tens | ((v - tens * 10) << 8);
            return v + 0x3030303030303030u;
        };
        char buf[48] = {};
        const std::uint64_t d64 = std::uint64_t(d), high = eight_ascii(d64 / 100000000), low = eight_ascii(d64 % 100000000);
        std::memcpy(buf + 8, &high, 8);
        std::memcpy(buf + 16, &low, 8);
        char* const digits = buf + 24 - P;  // P digits, then room for 16-byte loads
        int used = P;  // digits up to the last nonzero one (digits[0] is nonzero: the count stops there)
        for (;;) {
            std::uint64_t w;
            std::memcpy(&w, digits + used - 8, 8);
            w ^= 0x3030303030303030u;  // zero bytes where the digit is '0'
            if (w != 0) {
                used -= __builtin_clzll(w) >> 3;
                break;
            }
            used -= 8;
        }
        *p = '-';
        p += negative;
        if (x >= 0 && x < P) {  // ddd or ddd.ddd
            std::memcpy(p, digits, 16);
            p += x + 1;
            if (used > x + 1) {
                *p = '.';
                std::memcpy(p + 1, digits + x + 1, 16);
                p += used - x;
            }
            return p;
        }
        if (x < 0 && x >= -4) {  // 0.000ddd
            std::memcpy(p, "0.000000", 8);
            p += 1 - x;
            std::memcpy(p, digits, 16);
            return p + used;
        }
        *p = digits[0];  // d.ddde±XX
        p[1] = '.';
        std::memcpy(p + 2, digits + 1, 16);
        p += used > 1 ? used + 1 : 1;
        p[0] = 'e';
        p[1] = x < 0 ? '-' : '+';
        const int ax = x < 0 ? -x : x;
        if (ax >= 100) {
            p[2] = char('0' + ax / 100);
            std::memcpy(p + 3, pairs + 2 * (ax % 100), 2);
            return p + 5;
        }
        std::memcpy(p + 2, pairs + 2 * ax, 2);
        return p + 4;
    }
    char digits[40];
    for (int i = P - 1; i >= 0; --i, d /= 10) digits[i] = char('0' + int(d % 10));
    int used = P;
    if (negative) *p++ = '-';
    if (x >= -4 && x < P) {
        if (x >= 0) {
            for (int i = 0; i <= x; ++i) *p++ = digits[i];
            while (used > x + 1 && digits[used - 1] == '0') --used;
            if (used > x + 1) {
                *p++ = '.';
                for (int i = x + 1; i < used; ++i) *p++ = digits[i];
            }
        } else {
            while (used > 0 && digits[used - 1] == '0') --used;
            *p++ = '0';
            *p++ = '.';
            for (int i = 0; i < -x - 1; ++i) *p++ = '0';
            for (int i = 0; i < used; ++i) *p++ = digits[i];
        }
        return p;
    }
    *p++ = digits[0];
    while (used > 1 && digits[used - 1] == '0') --used;
    if (used > 1) {
        *p++ = '.';
        for (int i = 1; i < used; ++i) *p++ = digits[i];
    }
    *p++ = 'e';
    *p++ = x < 0 ? '-' : '+';
    const int ax = x < 0 ? -x : x;
    if (ax >= 100) *p++ = char('0' + ax / 100);
    *p++ = char('0' + ax / 10 % 10);
    *p++ = char('0' + ax % 10);
    return p;
}

// The same for a value that is a float (every tensor element) and P <= 9, in 64-bit integers
// only: v = m·2^e with m < 2^24, so whenever k = P-1-x is in [0, 17] (|v| from about 1e-9 to
// 10^P), v·10^k = m·5^k·2^(e+k) has m·5^k < 2^64 and the scaling is one multiply and a
// shift. nullptr outside that range (exact_general then does it).
char* float_general(char* p, float f, int P) {
    static constexpr std::uint64_t pow5_64[18] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125,
                                                  9765625, 48828125, 244140625, 1220703125, 6103515625,
                                                  30517578125, 152587890625, 762939453125};
    static constexpr std::uint64_t pow10_64[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                                   100000000, 1000000000};
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
    const bool negative = bits >> 31;
    const int biased = int((bits >> 23) & 0xff);
    std::uint32_t m = bits & 0x7fffff;
    int e;
    if (biased == 0) {
        if (m == 0) {  // ±0
            if (negative) *p++ = '-';
            *p++ = '0';
            return p;
        }
        e = -149;
    } else {
        m |= std::uint32_t(1) << 23;
        e = biased - 150;
    }
    // floor(log10 2^n) for n = floor(log2 v) (exact for |n| < 2620): floor(log10 v) is x or x + 1.
    int x = ((e + 31 - __builtin_clz(m)) * 315653) >> 20;
    const std::uint64_t low = pow10_64[P - 1], high = pow10_64[P];
    for (int attempt = 0; attempt < 2; ++attempt) {
        const int k = P - 1 - x, twos = e + k;
        if (k < 0 || k > 17 || twos < -63) return nullptr;
        const std::uint64_t num = std::uint64_t(m) * pow5_64[k];
        std::uint64_t d, rem = 0, half = 0;  // v·10^k = d + rem / (2·half)
        if (twos >= 0) {
            d = num << twos;  // an integer below 10^(P+1): no overflow
        } else {
            d = num >> -twos;
            rem = num & ((std::uint64_t(1) << -twos) - 1);
            half = std::uint64_t(1) << (-twos - 1);
        }
        if (d < low) return nullptr;  // the estimate is never too large
        if (d >= high) {  // x was one too small
            ++x;
            continue;
        }
        if (rem > half || (rem == half && half != 0 && (d & 1))) ++d;  // half to even
        if (d == high) d = low, ++x;
        return layout_general(p, negative, d, P, x);
    }
    return nullptr;
}

char* exact_general(char* p, double v, int P) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
    const bool negative = bits >> 63;
    const int biased = int((bits >> 52) & 0x7ff);
    std::uint64_t m = bits & ((std::uint64_t(1) << 52) - 1);
    if (biased == 0x7ff) return nullptr;
    int e;
    if (biased == 0) {
        if (m == 0) {  // ±0
            if (negative) *p++ = '-';
            *p++ = '0';
            return p;
        }
        e = -1074;
    } else {
        m |= std::uint64_t(1) << 52;
        e = biased - 1075;
    }
    const int tz = __builtin_ctzll(m);  // fewer bits: wider range for the integer arithmetic
    m >>= tz;
    e += tz;
    const int mbits = 64 - __builtin_clzll(m);
    // floor(log10 v), possibly one too small: v lies in [2^(e+mbits-1), 2^(e+mbits)).
    int x = int(std::floor((e + mbits - 1) * 0.30102999566398120));
    const u128 low = pow10[std::size_t(P - 1)], high = pow10[std::size_t(P)];
    for (int attempt = 0; attempt < 2; ++attempt) {
        const int k = P - 1 - x;  // scale v by 10^k to P digits before the point
        if (k > 50 || k < -38) return nullptr;
        // v·10^k = m·5^k·2^(e+k) as num/den; den is a power of two when k >= 0.
        u128 d, rem, unit;  // v·10^k = d + rem/unit
        const int twos = e + k;
        if (k >= 0 && k <= 27 && twos < 0 && twos > -64 && mbits + int(k * 2.33) + 1 < 64) {
            // Most values of a matrix: everything fits 64 bits, the division is a shift.
            const std::uint64_t num64 = m * std::uint64_t(pow5[std::size_t(k)]), unit64 = std::uint64_t(1) << -twos;
            d = num64 >> -twos;
            rem = num64 & (unit64 - 1);
            unit = unit64;
        } else {
            u128 num = m, den = 1;
            int num_bits = mbits, den_bits = 1;
            if (k >= 0) num *= pow5[std::size_t(k)], num_bits += int(k * 2.33) + 1;
            else den *= pow5[std::size_t(-k)], den_bits += int(-k * 2.33) + 1;
            if (twos >= 0) num_bits += twos;
            else den_bits -= twos;
            if (num_bits > 125 || den_bits > 125) return nullptr;
            if (twos >= 0) num <<= twos;
            if (den == 1 && twos < 0) {  // a shift, no division
                unit = u128(1) << -twos;
                d = num >> -twos;
                rem = num & (unit - 1);
            } else {
                if (twos < 0) den <<= -twos;
                unit = den;
                d = num / den;
                rem = num - d * den;
            }
        }
        if (d < low) return nullptr;  // the estimate is never too large
        if (d >= high) {  // one too small: x was not floor(log10 v); try one higher
            if (attempt == 0) {
                ++x;
                continue;
            }
            return nullptr;
        }
        // Half to even: above half rounds up, exactly half to the even neighbour.
        if (rem * 2 > unit || (rem * 2 == unit && (d & 1))) ++d;
        if (d == high) d = low, ++x;  // 9.99..5 rounded up to 10.0..
        return layout_general(p, negative, d, P, x);
    }
    return nullptr;
}

}  // namespace

char* write_significant(char* p, double v, int digits) {
    if (!std::isfinite(v) || near_float_max(v)) {
        const std::string text = !std::isfinite(v) ? non_finite_text(v) : significant(v, digits);
        return std::copy(text.begin(), text.end(), p);
    }
    if (digits <= 9 && double(float(v)) == v)
        if (char* end = float_general(p, float(v), std::max(digits, 1))) return end;
    if (digits <= 30)
        if (char* end = exact_general(p, v, std::max(digits, 1))) return end;
    const std::string text = significant(v, digits);
    return std::copy(text.begin(), text.end(), p);
}

void append_significant(std::string& out, double v, int digits) {
    const std::size_t at = out.size();
    out.resize(at + significant_max_chars(digits) + significant_scratch_chars);
    out.resize(std::size_t(write_significant(out.data() + at, v, digits) - out.data()));
}

}  // namespace attn::io::detail
