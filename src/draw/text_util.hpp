// Small text helpers shared by the heatmap and SVG writers (internal).
#pragma once
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <string>

#include "attn/matrix.hpp"
#include "runtime/utf8.hpp"
#include <vector>

namespace attn::viz::detail {

// The bytes of the UTF-8 code point at s[i] (an invalid byte stands alone).
inline std::size_t code_point_size(const std::string& s, std::size_t i) {
    std::size_t n = 1;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0) n = 4;
    else if (c >= 0xE0) n = 3;
    else if (c >= 0xC0) n = 2;
    if (i + n > s.size()) n = 1;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) n = 1;
    return n;
}

// Splits UTF-8 text into code points (each as its bytes); invalid bytes stand alone.
inline std::vector<std::string> code_points(const std::string& s) {
    std::vector<std::string> out;
    for (std::size_t i = 0, n; i < s.size(); i += n) out.push_back(s.substr(i, n = code_point_size(s, i)));
    return out;
}

// Terminal columns taken by the text: wide (CJK, emoji) code points count two, combining marks
// none (the one rule of runtime/utf8.hpp).
inline std::size_t display_width(const std::string& s) { return io::display_width(s); }

// The text's characters as drawn: code points, each combining mark kept with the one before.
inline std::vector<std::string> glyphs(const std::string& s) {
    std::vector<std::string> out;
    for (const std::string& cp : code_points(s))
        if (!out.empty() && io::display_width(cp) == 0) out.back() += cp;
        else out.push_back(cp);
    return out;
}

// The first `max` code points, with "…" when cut. Reads only as far as it keeps (a label may
// be megabytes long).
inline std::string truncate(const std::string& s, std::size_t max) {
    std::size_t end = 0;  // the bytes of the first max − 1 code points
    for (std::size_t i = 0, count = 0; i < s.size(); i += code_point_size(s, i), ++count) {
        if (count == max) return s.substr(0, end) + "…";
        if (count + 1 < max) end = i + code_point_size(s, i);
    }
    return s;
}

// Replaces control characters (they would break a terminal or XML) with '?'.
inline std::string printable(const std::string& s) {
    std::string out = s;
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    return out;
}

// Short form of a value for a cell or an axis: 0, 0.24, 12.50, 1.2e-05.
inline std::string short_number(double v) {
    char buf[32];
    const double a = std::fabs(v);
    if (v == 0) return "0";
    if (a >= 0.005 && a < 1000) std::snprintf(buf, sizeof buf, "%.2f", v);
    else std::snprintf(buf, sizeof buf, "%.1e", v);
    return buf;
}

inline std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// A viridis-like colour map, t in [0, 1] → RGB 0..255.
// The range of the values a picture colours: every cell that is not masked and is finite.
struct ValueRange {
    double lo = 0, hi = 0;
    bool any_value = false, any_masked = false;
};
template <class IsMasked>
ValueRange value_range(const Matrix& m, const IsMasked& is_masked) {
    ValueRange r;
    for (std::size_t i = 0; i < m.rows(); ++i)
        for (std::size_t j = 0; j < m.cols(); ++j) {
            if (is_masked(i, j)) {
                r.any_masked = true;
                continue;
            }
            const double v = m(i, j);
            r.lo = r.any_value ? std::min(r.lo, v) : v;
            r.hi = r.any_value ? std::max(r.hi, v) : v;
            r.any_value = true;
        }
    return r;
}

// The colour scale of a picture (terminal, SVG, HTML alike): the values' range widened to
// include 0, so weights are drawn from 0 whatever their smallest; 0 … 1 when every value is 0
// (or none is shown), so that a constant is drawn at its place on the bar, not at its middle.
struct ColourScale {
    double lo = 0, hi = 1;
    double position(double v) const { return (v - lo) / (hi - lo); }  // 0 … 1 (viridis clamps)
};
inline ColourScale colour_scale(const ValueRange& r) {
    ColourScale s{std::min(0.0, r.lo), std::max(0.0, r.hi)};
    if (!(s.hi > s.lo)) s.hi = s.lo + 1;
    return s;
}

struct Rgb {
    int r, g, b;
};
inline Rgb viridis(double t) {
    static constexpr Rgb stops[] = {{68, 1, 84},    {72, 36, 117},  {59, 82, 139},  {44, 114, 142}, {33, 145, 140},
                                    {39, 173, 129}, {94, 201, 98},  {173, 220, 48}, {253, 231, 37}};
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    const double x = t * 8;
    const int i = x >= 8 ? 7 : int(x);
    const double f = x - i;
    auto mix = [f](int a, int b) { return int(std::lround(a + (b - a) * f)); };
    return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}

}  // namespace attn::viz::detail
