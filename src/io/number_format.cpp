// Number text for the printers. std::to_chars with a precision prints exactly what printf's
// %.*f / %.*e / %.*g print, only faster (it matters for million-entry matrices).
#include "io/number_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace attn::io::detail {

namespace {

std::string non_finite_text(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

std::string chars(double v, std::chars_format how, int precision) {
    if (!std::isfinite(v)) return non_finite_text(v);
    char buf[400];  // %.17f of DBL_MAX needs 327
    const auto res = std::to_chars(buf, buf + sizeof buf, v, how, precision);
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

}  // namespace attn::io::detail
