// SVG writers (include/attn/viz.hpp): a matrix heatmap and the variance-experiment plot.
// Plain strings; every label goes through xml_escape.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "attn/viz.hpp"
#include "viz/text_util.hpp"

namespace attn::viz {

using detail::fmt;

namespace {

// Length of the well-formed UTF-8 sequence at s[i] that XML 1.0 allows (no surrogates, no
// U+FFFE/U+FFFF, nothing above U+10FFFF, no overlong forms), or 0 when there is none.
std::size_t xml_char_length(const std::string& s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = byte(0);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned cp = 0;
    if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1Fu;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0Fu;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07u;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (byte(k) & 0x3Fu);
    }
    const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF) return 0;
    return n;
}

}  // namespace

// Invalid UTF-8 and characters XML forbids become U+FFFD, so the file always parses.
std::string xml_escape(const std::string& text) {
    std::string valid;
    const std::string in = detail::printable(text);
    for (std::size_t i = 0; i < in.size();) {
        const std::size_t n = xml_char_length(in, i);
        valid += n ? in.substr(i, n) : "\xEF\xBF\xBD";
        i += n ? n : 1;
    }
    std::string out;
    for (char c : valid) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace {

std::string px(double v) { return fmt("%.2f", v); }

std::string rgb_hex(detail::Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

std::string svg_open(double width, double height) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
           px(width) + "\" height=\"" + px(height) + "\" viewBox=\"0 0 " + px(width) + " " + px(height) +
           "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n<rect width=\"100%\" height=\"100%\" "
           "fill=\"white\"/>\n";
}

std::string text_at(double x, double y, const std::string& content, const std::string& attrs = "") {
    return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"" + (attrs.empty() ? "" : " " + attrs) + ">" +
           xml_escape(content) + "</text>\n";
}

std::string line_at(double x1, double y1, double x2, double y2, const std::string& attrs) {
    return "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" + px(y2) + "\" " + attrs +
           "/>\n";
}

}  // namespace

// ---- heatmap -----------------------------------------------------------------------------

namespace {

// Beyond this many cells on a side a cell is under 4 px: the matrix is max-pooled instead.
constexpr std::size_t max_cells_per_side = 128;

std::string index_range(std::size_t first, std::size_t last) {
    return first == last ? std::to_string(first) : std::to_string(first) + "–" + std::to_string(last);
}

}  // namespace

std::string svg_heatmap(const Matrix& m, const SvgHeatmapOptions& opt) {
    const std::size_t R = m.rows(), C = m.cols();
    if (R > max_cells_per_side || C > max_cells_per_side) {
        // Max-pool blocks of br×bc cells, over the cells that are not masked (a block with none
        // is masked): a peak in a large matrix stays visible. Labels become index ranges.
        const std::size_t br = (R + max_cells_per_side - 1) / max_cells_per_side;
        const std::size_t bc = (C + max_cells_per_side - 1) / max_cells_per_side;
        const std::size_t pr = (R + br - 1) / br, pc = (C + bc - 1) / bc;
        Matrix pooled(pr, pc, std::numeric_limits<float>::quiet_NaN());
        for (std::size_t i = 0; i < R; ++i)
            for (std::size_t j = 0; j < C; ++j) {
                const float v = m(i, j);
                if ((opt.masked && opt.masked(i, j)) || !std::isfinite(v)) continue;
                float& p = pooled(i / br, j / bc);
                if (std::isnan(p) || v > p) p = v;
            }
        SvgHeatmapOptions po = opt;
        po.masked = {};  // NaN marks the blocks with nothing shown
        po.what = opt.what + " (max-pooled from " + std::to_string(R) + "×" + std::to_string(C) + ", blocks of " +
                  std::to_string(br) + "×" + std::to_string(bc) + ")";
        po.row_labels.clear(), po.col_labels.clear();
        for (std::size_t i = 0; i < pr; ++i) po.row_labels.push_back(index_range(i * br, std::min(R, (i + 1) * br) - 1));
        for (std::size_t j = 0; j < pc; ++j) po.col_labels.push_back(index_range(j * bc, std::min(C, (j + 1) * bc) - 1));
        return svg_heatmap(pooled, po);
    }
    auto is_masked = [&](std::size_t i, std::size_t j) { return (opt.masked && opt.masked(i, j)) || !std::isfinite(m(i, j)); };
    const detail::ValueRange range = detail::value_range(m, is_masked);
    const bool any_value = range.any_value, any_masked = range.any_masked;
    double lo = range.lo;
    const double hi = range.hi;
    if (lo > 0 && lo < hi && lo < 0.5 * hi) lo = 0;  // weights: let the bar start at 0
    auto position = [&](double v) { return hi > lo ? (v - lo) / (hi - lo) : 0.5; };

    const std::size_t n = std::max<std::size_t>({R, C, 1});
    const double cell = std::clamp(560.0 / double(n), 4.0, 56.0);
    auto label = [](const std::vector<std::string>& labels, std::size_t i, std::size_t count) {
        return labels.size() == count ? detail::truncate(labels[i], 16) : std::to_string(i);
    };
    std::size_t row_chars = 1, col_chars = 1;
    for (std::size_t i = 0; i < R; ++i) row_chars = std::max(row_chars, detail::display_width(label(opt.row_labels, i, R)));
    for (std::size_t j = 0; j < C; ++j) col_chars = std::max(col_chars, detail::display_width(label(opt.col_labels, j, C)));
    const double font = std::clamp(cell * 0.45, 9.0, 13.0);
    const double char_w = font * 0.62;
    // Label every k-th row/column when cells are too small for text.
    // Rows are font·1.1 apart at least; column labels, turned 45°, are cell·step·sin 45° apart.
    const std::size_t row_step = std::max<std::size_t>(1, std::size_t(std::ceil(font * 1.1 / cell)));
    const std::size_t col_step = std::max<std::size_t>(1, std::size_t(std::ceil(font * 1.1 / (cell * std::sqrt(0.5)))));

    const double left = 36 + char_w * double(row_chars) + 8;
    const double top = 64;
    const double grid_w = cell * double(C), grid_h = cell * double(R);
    const double col_label_h = char_w * double(col_chars) * 0.75 + 12;
    const double bar_x = left + grid_w + 24;
    const double width = std::max(bar_x + 100, 420.0);
    const double height = top + grid_h + col_label_h + 40;

    std::string title = opt.what + " · " + std::to_string(R) + "×" + std::to_string(C);
    if (!opt.scale_text.empty()) title += " · " + opt.scale_text;
    title += " · " + (opt.masking_text.empty() ? std::string("no mask") : opt.masking_text);

    std::string s = svg_open(width, height);
    s += "<defs>\n<pattern id=\"masked\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#aaaaaa\" stroke-width=\"2\"/></pattern>\n"
         "<linearGradient id=\"bar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
    for (int k = 0; k <= 8; ++k)
        s += "<stop offset=\"" + fmt("%.3f", k / 8.0) + "\" stop-color=\"" + rgb_hex(detail::viridis(k / 8.0)) + "\"/>\n";
    s += "</linearGradient>\n</defs>\n";
    s += text_at(left, 28, title, "font-size=\"16\" font-weight=\"bold\"");
    s += text_at(left, 48, "rows: " + opt.row_axis + " · columns: " + opt.col_axis +
                               (any_value ? " · range " + fmt("%.4g", lo) + " … " + fmt("%.4g", hi) : ""),
                 "font-size=\"12\" fill=\"#444444\"");

    // Values in the cells only when the widest one fits its cell at a readable size (7 px or
    // more, 0.6 em per character, 2 px margins): never spilling onto the neighbours.
    std::size_t value_chars = 1;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j)
            if (!is_masked(i, j)) value_chars = std::max(value_chars, detail::short_number(m(i, j)).size());
    const double value_font = std::min({12.0, cell * 0.4, (cell - 4) / (0.6 * double(value_chars))});
    const bool values = R <= opt.max_value_cells && C <= opt.max_value_cells && value_font >= 7.0;
    const bool tooltips = R * C <= 4096;
    s += "<g class=\"grid\">\n";
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) {
            const double x = left + cell * double(j), y = top + cell * double(i);
            const bool masked = is_masked(i, j);
            const double v = m(i, j);
            const detail::Rgb c = detail::viridis(position(v));
            s += "<rect class=\"cell" + std::string(masked ? " masked" : "") + "\" x=\"" + px(x) + "\" y=\"" + px(y) +
                 "\" width=\"" + px(cell) + "\" height=\"" + px(cell) + "\" fill=\"" +
                 (masked ? std::string("url(#masked)") : rgb_hex(c)) + "\">";
            if (tooltips)
                s += "<title>" + xml_escape(label(opt.row_labels, i, R) + " → " + label(opt.col_labels, j, C) + ": " +
                                            (masked ? std::string("masked") : fmt("%.6g", v))) + "</title>";
            s += "</rect>\n";
            if (values && !masked) {
                const double luminance = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
                s += text_at(x + cell / 2, y + cell / 2 + value_font * 0.35, detail::short_number(v),
                             "class=\"value\" font-size=\"" + px(value_font) + "\" text-anchor=\"middle\" fill=\"" +
                                 (luminance > 140 ? "#000000" : "#ffffff") + "\"");
            }
        }
    s += "</g>\n";
    s += "<rect x=\"" + px(left) + "\" y=\"" + px(top) + "\" width=\"" + px(grid_w) + "\" height=\"" + px(grid_h) +
         "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n";

    // Axis labels: rows on the left, columns below (rotated), then the axis names.
    for (std::size_t i = 0; i < R; i += row_step)
        s += text_at(left - 6, top + cell * (double(i) + 0.5) + font * 0.35, label(opt.row_labels, i, R),
                     "class=\"row-label\" font-size=\"" + px(font) + "\" text-anchor=\"end\"");
    for (std::size_t j = 0; j < C; j += col_step) {
        const double x = left + cell * (double(j) + 0.5) + font * 0.3, y = top + grid_h + 8;
        s += "<text class=\"col-label\" font-size=\"" + px(font) + "\" text-anchor=\"end\" transform=\"translate(" +
             px(x) + "," + px(y) + ") rotate(-45)\">" + xml_escape(label(opt.col_labels, j, C)) + "</text>\n";
    }
    s += text_at(left + grid_w / 2, top + grid_h + col_label_h + 24, opt.col_axis,
                 "font-size=\"13\" text-anchor=\"middle\" font-style=\"italic\"");
    s += "<text font-size=\"13\" text-anchor=\"middle\" font-style=\"italic\" transform=\"translate(16," +
         px(top + grid_h / 2) + ") rotate(-90)\">" + xml_escape(opt.row_axis) + "</text>\n";

    // Colour bar with its range.
    const double bar_h = std::max(grid_h, 120.0);
    s += "<rect class=\"colorbar\" x=\"" + px(bar_x) + "\" y=\"" + px(top) + "\" width=\"16\" height=\"" + px(bar_h) +
         "\" fill=\"url(#bar)\" stroke=\"#333333\"/>\n";
    for (int k = 0; k <= 4; ++k) {
        const double y = top + bar_h * (1 - k / 4.0);
        s += line_at(bar_x + 16, y, bar_x + 20, y, "stroke=\"#333333\"");
        s += text_at(bar_x + 23, y + 4, fmt("%.3g", lo + (hi - lo) * k / 4.0), "font-size=\"11\"");
    }
    if (any_masked) {
        const double y = top + bar_h + 14;
        s += "<rect x=\"" + px(bar_x) + "\" y=\"" + px(y) + "\" width=\"16\" height=\"16\" fill=\"url(#masked)\" "
             "stroke=\"#333333\"/>\n";
        s += text_at(bar_x + 22, y + 12, "masked", "font-size=\"11\"");
    }
    s += "</svg>\n";
    return s;
}

// ---- variance plot -------------------------------------------------------------------------

namespace {

struct Panel {
    double x0, y0, w, h;            // plot area
    double xlo, xhi;                // log2(d_k)
    double ylo, yhi;                // the y quantity (log10 for the variance panel)
    double sx(double lx) const { return x0 + (xhi > xlo ? (lx - xlo) / (xhi - xlo) : 0.5) * w; }
    double sy(double v) const { return y0 + h - (yhi > ylo ? (v - ylo) / (yhi - ylo) : 0.5) * h; }
};

const char* const blue = "#1f77b4";
const char* const orange = "#e6550d";

std::string polyline(const std::vector<std::pair<double, double>>& pts, const std::string& color, bool dashed) {
    std::string s = "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"" +
                    (dashed ? " stroke-dasharray=\"6,4\"" : "") + " points=\"";
    for (const auto& [x, y] : pts) s += px(x) + "," + px(y) + " ";
    return s + "\"/>\n";
}

std::string points(const std::vector<std::pair<double, double>>& pts, const std::string& cls, const std::string& color,
                   bool hollow) {
    std::string s;
    for (const auto& [x, y] : pts)
        s += "<circle class=\"pt " + cls + "\" cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"4\" fill=\"" +
             (hollow ? std::string("white") : color) + "\" stroke=\"" + color + "\" stroke-width=\"2\"/>\n";
    return s;
}

std::string frame_and_x_axis(const Panel& p, const std::vector<std::size_t>& d_ks) {
    std::string s = "<rect x=\"" + px(p.x0) + "\" y=\"" + px(p.y0) + "\" width=\"" + px(p.w) + "\" height=\"" +
                    px(p.h) + "\" fill=\"none\" stroke=\"#333333\"/>\n";
    // Ticks at powers of two, thinned so that labels do not collide.
    const int first = int(std::ceil(p.xlo - 1e-9)), last = int(std::floor(p.xhi + 1e-9));
    const int step = std::max(1, (last - first + 1 + 10) / 11);
    for (int e = first; e <= last; e += step) {
        const double x = p.sx(e);
        s += line_at(x, p.y0 + p.h, x, p.y0 + p.h + 5, "stroke=\"#333333\"");
        s += line_at(x, p.y0, x, p.y0 + p.h, "stroke=\"#e5e5e5\"");
        s += text_at(x, p.y0 + p.h + 18, std::to_string(1ull << e), "font-size=\"11\" text-anchor=\"middle\"");
    }
    (void)d_ks;
    s += text_at(p.x0 + p.w / 2, p.y0 + p.h + 36, "d_k (log scale)", "font-size=\"12\" text-anchor=\"middle\"");
    return s;
}

std::string legend(double x, double y, const std::vector<std::tuple<std::string, std::string, bool, bool>>& entries) {
    // entries: label, colour, dashed, hollow marker
    std::string s = "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"186\" height=\"" +
                    px(8 + 17.0 * double(entries.size())) + "\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#bbbbbb\"/>\n";
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& [text, color, dashed, hollow] = entries[i];
        const double yy = y + 14 + 17.0 * double(i);
        s += line_at(x + 8, yy - 4, x + 36, yy - 4,
                     "stroke=\"" + color + "\" stroke-width=\"2\"" + (dashed ? " stroke-dasharray=\"6,4\"" : ""));
        if (!text.empty() && text.find("theory") == std::string::npos)
            s += "<circle cx=\"" + px(x + 22) + "\" cy=\"" + px(yy - 4) + "\" r=\"3.5\" fill=\"" +
                 (hollow ? std::string("white") : color) + "\" stroke=\"" + color + "\" stroke-width=\"2\"/>\n";
        s += text_at(x + 42, yy, text, "font-size=\"11\"");
    }
    return s;
}

// Where a legend of `rows` entries covers no data point: the first free spot among the
// corners and edge middles of the panel (the top-left corner when none is free).
std::pair<double, double> free_corner(const Panel& p, std::size_t rows,
                                      const std::vector<std::vector<std::pair<double, double>>>& series) {
    const double w = 186, h = 8 + 17.0 * double(rows), m = 10;
    const double xs[] = {p.x0 + m, p.x0 + p.w - w - m}, ys[] = {p.y0 + m, p.y0 + p.h - h - m, p.y0 + (p.h - h) / 2};
    for (double y : ys)
        for (double x : xs) {
            bool free = true;
            for (const auto& pts : series)
                for (std::size_t i = 0; i < pts.size() && free; ++i) {
                    // the point itself, and the segment to the next point sampled along its length
                    const auto [ax, ay] = pts[i];
                    const auto [bx, by] = i + 1 < pts.size() ? pts[i + 1] : pts[i];
                    for (int k = 0; k <= 20 && free; ++k) {
                        const double px_ = ax + (bx - ax) * k / 20.0, py_ = ay + (by - ay) * k / 20.0;
                        free = !(px_ > x - 6 && px_ < x + w + 6 && py_ > y - 6 && py_ < y + h + 6);
                    }
                }
            if (free) return {x, y};
        }
    return {p.x0 + m, p.y0 + m};
}

}  // namespace

std::string svg_variance_plot(const std::vector<VarianceResult>& results, const VarianceExperiment& e) {
    const double width = 1040, height = 470;
    std::string s = svg_open(width, height);
    char buf[256];
    std::snprintf(buf, sizeof buf, "Why scores are divided by √d_k — seed %llu, %zu batches of %zu×%zu scores, σ = %g",
                  (unsigned long long)e.seed, e.batch, e.rows, e.rows, e.sigma);
    s += text_at(40, 30, buf, "font-size=\"17\" font-weight=\"bold\"");
    if (results.empty()) return s + "</svg>\n";

    double xlo = 1e300, xhi = -1e300;
    for (const VarianceResult& r : results) {
        xlo = std::min(xlo, std::log2(double(r.d_k)));
        xhi = std::max(xhi, std::log2(double(r.d_k)));
    }
    xlo -= 0.5;
    xhi += 0.5;

    // Left panel: log10 variance.
    double ylo = 1e300, yhi = -1e300;
    auto include = [&](double v) {
        if (v > 0) {
            ylo = std::min(ylo, std::log10(v));
            yhi = std::max(yhi, std::log10(v));
        }
    };
    const double s4 = e.sigma * e.sigma * e.sigma * e.sigma;
    for (const VarianceResult& r : results) {
        include(r.unscaled_var);
        include(r.scaled_var);
        include(r.theory_unscaled_var);
        include(r.theory_scaled_var);
    }
    include(std::exp2(xlo) * s4);
    include(std::exp2(xhi) * s4);
    if (!(ylo <= yhi)) ylo = yhi = 0;
    ylo = std::floor(ylo - 0.3);
    yhi = std::ceil(yhi + 0.3);
    const Panel left{80, 70, 390, 320, xlo, xhi, ylo, yhi};
    s += text_at(left.x0, left.y0 - 12, "variance of the scores (log–log)", "font-size=\"13\" font-weight=\"bold\"");
    s += frame_and_x_axis(left, e.d_ks);
    for (int k = int(ylo); k <= int(yhi); ++k) {
        const double y = left.sy(k);
        s += line_at(left.x0 - 5, y, left.x0, y, "stroke=\"#333333\"");
        if (k > int(ylo) && k < int(yhi)) s += line_at(left.x0, y, left.x0 + left.w, y, "stroke=\"#e5e5e5\"");
        s += text_at(left.x0 - 8, y + 4, std::abs(k) <= 4 ? fmt("%g", std::pow(10.0, k)) : "1e" + std::to_string(k),
                     "font-size=\"11\" text-anchor=\"end\"");
    }
    s += "<text font-size=\"12\" text-anchor=\"middle\" transform=\"translate(24," + px(left.y0 + left.h / 2) +
         ") rotate(-90)\">population variance</text>\n";
    // Theory lines across the whole x range: d_k·σ⁴ (slope 1) and σ⁴ (flat).
    s += polyline({{left.sx(xlo), left.sy(std::log10(std::exp2(xlo) * s4))},
                   {left.sx(xhi), left.sy(std::log10(std::exp2(xhi) * s4))}},
                  blue, true);
    s += polyline({{left.sx(xlo), left.sy(std::log10(s4))}, {left.sx(xhi), left.sy(std::log10(s4))}}, orange, true);
    std::vector<std::pair<double, double>> pu, ps;
    for (const VarianceResult& r : results) {
        const double x = left.sx(std::log2(double(r.d_k)));
        pu.emplace_back(x, left.sy(std::log10(std::max(r.unscaled_var, 1e-300))));
        ps.emplace_back(x, left.sy(std::log10(std::max(r.scaled_var, 1e-300))));
    }
    s += polyline(pu, blue, false) + points(pu, "var-unscaled", blue, false);
    s += polyline(ps, orange, false) + points(ps, "var-scaled", orange, false);
    const auto [lx, ly] = free_corner(left, 4, {pu, ps});
    s += legend(lx, ly,
                {{"var(q·k), unscaled", blue, false, false},
                 {"theory d_k·σ⁴", blue, true, false},
                 {"var(q·k/√d_k), scaled", orange, false, false},
                 {"theory σ⁴", orange, true, false}});

    // Right panel: mean max weight (0…1, left axis) and mean entropy (0…ln L, right axis).
    const double lnL = std::log(double(e.rows));
    const Panel right{600, 70, 360, 320, xlo, xhi, 0, 1};
    s += text_at(right.x0, right.y0 - 12, "softmax over each row of " + std::to_string(e.rows) + " scores",
                 "font-size=\"13\" font-weight=\"bold\"");
    s += frame_and_x_axis(right, e.d_ks);
    for (int k = 0; k <= 4; ++k) {
        const double y = right.sy(k / 4.0);
        s += line_at(right.x0 - 5, y, right.x0, y, "stroke=\"#333333\"");
        s += text_at(right.x0 - 8, y + 4, fmt("%.2f", k / 4.0), "font-size=\"11\" text-anchor=\"end\"");
        s += line_at(right.x0 + right.w, y, right.x0 + right.w + 5, y, "stroke=\"#333333\"");
        s += text_at(right.x0 + right.w + 8, y + 4, fmt("%.2f", lnL * k / 4.0), "font-size=\"11\"");
        if (k > 0 && k < 4) s += line_at(right.x0, y, right.x0 + right.w, y, "stroke=\"#e5e5e5\"");
    }
    s += "<text font-size=\"12\" text-anchor=\"middle\" transform=\"translate(" + px(right.x0 - 44) + "," +
         px(right.y0 + right.h / 2) + ") rotate(-90)\">mean max weight (solid)</text>\n";
    s += "<text font-size=\"12\" text-anchor=\"middle\" transform=\"translate(" + px(right.x0 + right.w + 50) + "," +
         px(right.y0 + right.h / 2) + ") rotate(90)\">mean entropy, nats (dashed; top = ln L)</text>\n";
    std::vector<std::pair<double, double>> mu, ms, eu, es;
    for (const VarianceResult& r : results) {
        const double x = right.sx(std::log2(double(r.d_k)));
        mu.emplace_back(x, right.sy(r.unscaled.max_weight_mean));
        ms.emplace_back(x, right.sy(r.scaled.max_weight_mean));
        eu.emplace_back(x, right.sy(lnL > 0 ? r.unscaled.entropy_mean / lnL : 0));
        es.emplace_back(x, right.sy(lnL > 0 ? r.scaled.entropy_mean / lnL : 0));
    }
    s += polyline(mu, blue, false) + points(mu, "maxw-unscaled", blue, false);
    s += polyline(ms, orange, false) + points(ms, "maxw-scaled", orange, false);
    s += polyline(eu, blue, true) + points(eu, "ent-unscaled", blue, true);
    s += polyline(es, orange, true) + points(es, "ent-scaled", orange, true);
    const auto [rx, ry] = free_corner(right, 4, {mu, ms, eu, es});
    s += legend(rx, ry,
                {{"max weight, unscaled", blue, false, false},
                 {"max weight, scaled", orange, false, false},
                 {"entropy, unscaled", blue, true, true},
                 {"entropy, scaled", orange, true, true}});

    std::snprintf(buf, sizeof buf,
                  "Raw scores grow like d_k·σ⁴ and softmax saturates (max weight → 1, entropy → 0); "
                  "dividing by √d_k keeps the variance at σ⁴.");
    s += text_at(40, height - 22, buf, "font-size=\"12\" fill=\"#444444\"");
    s += "</svg>\n";
    return s;
}

}  // namespace attn::viz
