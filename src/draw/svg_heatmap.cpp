// The SVG heatmap of one matrix (attn/viz.hpp): labelled axes, a colour bar, masked cells
// hatched, large matrices max-pooled. Every label goes through xml_escape.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "attn/viz.hpp"
#include "draw/max_pool.hpp"
#include "draw/svg_util.hpp"
#include "draw/text_util.hpp"

namespace attn::viz {

using detail::fmt;
using detail::line_at;
using detail::px;
using detail::rgb_hex;
using detail::svg_open;
using detail::text_at;

// ---- heatmap -----------------------------------------------------------------------------

namespace {

// Beyond this many cells on a side a cell is under 4 px: the matrix is max-pooled instead.
constexpr std::size_t max_cells_per_side = 128;

}  // namespace

std::string svg_heatmap(const Matrix& m, const SvgHeatmapOptions& opt) {
    const std::size_t R = m.rows(), C = m.cols();
    if (R > max_cells_per_side || C > max_cells_per_side) {
        // Max-pool blocks of cells, over the cells that are not masked (a block with none is
        // masked): a peak in a large matrix stays visible. Labels become index ranges.
        const detail::Pooling p = detail::plan_pooling(R, C, max_cells_per_side, max_cells_per_side);
        Matrix pooled(p.pooled_rows, p.pooled_cols);
        detail::max_pool(view_of(m).slice(0), opt.masked, p, pooled.data(), pooled.stride());
        SvgHeatmapOptions po = opt;
        po.masked = {};  // NaN marks the blocks with nothing shown
        po.what = opt.what + " (" + p.note() + ")";
        po.row_labels = p.row_labels(), po.col_labels = p.col_labels();
        return svg_heatmap(pooled, po);
    }
    auto is_masked = [&](std::size_t i, std::size_t j) { return (opt.masked && opt.masked(i, j)) || !std::isfinite(m(i, j)); };
    const detail::ValueRange range = detail::value_range(m, is_masked);
    const bool any_value = range.any_value, any_masked = range.any_masked;
    const detail::ColourScale scale = detail::colour_scale(range);
    const double lo = scale.lo, hi = scale.hi;
    auto position = [&](double v) { return scale.position(v); };

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
    std::string title = opt.what + " · " + std::to_string(R) + "×" + std::to_string(C);
    if (!opt.scale_text.empty()) title += " · " + opt.scale_text;
    title += " · " + (opt.masking_text.empty() ? std::string("no mask") : opt.masking_text);
    const std::string subtitle = "rows: " + opt.row_axis + " · columns: " + opt.col_axis +
                                 (any_value ? " · range " + fmt("%.4g", lo) + " … " + fmt("%.4g", hi) : "");
    // Wide enough for the grid, the bar and both lines of text above them.
    const double width = std::max({bar_x + 100, 420.0, left + detail::text_width(title, 16, true) + 16,
                                   left + detail::text_width(subtitle, 12) + 16});
    const double height = top + grid_h + col_label_h + 40;

    std::string s = svg_open(width, height);
    s += detail::heatmap_defs(6, 2);
    s += text_at(left, 28, title, "font-size=\"16\" font-weight=\"bold\"");
    s += text_at(left, 48, subtitle, "font-size=\"12\" fill=\"#444444\"");

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

}  // namespace attn::viz
