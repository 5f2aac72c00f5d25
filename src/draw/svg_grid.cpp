// The grid of heads: per-head heatmaps side by side with one colour scale.
#include "attn/viz_grid.hpp"

#include <algorithm>
#include <cmath>

#include "attn/error.hpp"
#include "draw/max_pool.hpp"
#include "draw/svg_util.hpp"
#include "draw/text_util.hpp"

namespace attn::viz {

using detail::fmt;
using detail::px;
using detail::rgb_hex;
using detail::svg_open;
using detail::text_at;

namespace {

// One <rect> per cell: beyond these the panels are max-pooled, as one heatmap is beyond 128 a
// side (16 heads of 128×128 were 262,144 cells, a 24 MB file).
constexpr std::size_t max_panel_side = 128;
constexpr std::size_t max_cells = std::size_t(1) << 15;

// The pooling that keeps every panel within max_panel_side and all of them within max_cells: the
// largest side limit that fits (at least 1 cell a panel).
detail::Pooling grid_pooling(std::size_t R, std::size_t C, std::size_t n) {
    std::size_t lo = 1, hi = std::min(std::max(R, C), max_panel_side);
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        const detail::Pooling p = detail::plan_pooling(R, C, mid, mid);
        if (n * p.pooled_rows * p.pooled_cols <= max_cells) lo = mid;
        else hi = mid - 1;
    }
    return detail::plan_pooling(R, C, lo, lo);
}

}  // namespace

std::string svg_grid(const std::vector<GridPanel>& panels, const SvgGridOptions& opt) {
    if (panels.empty()) throw UsageError("the grid has no panels");
    const std::size_t R = panels[0].values.rows(), C = panels[0].values.cols(), n = panels.size();
    for (const GridPanel& p : panels)
        if (p.values.rows() != R || p.values.cols() != C) throw InputError("the grid's panels differ in shape");
    const detail::Pooling pool = grid_pooling(R, C, n);
    if (pool.block_rows > 1 || pool.block_cols > 1) {
        // Each block's largest shown value (a block with none is masked), labels index ranges.
        std::vector<GridPanel> pooled;
        for (const GridPanel& p : panels) {
            GridPanel q{p.title, Matrix(pool.pooled_rows, pool.pooled_cols), {}};
            detail::max_pool(view_of(p.values).slice(0), p.masked, pool, q.values.data(), q.values.stride());
            pooled.push_back(std::move(q));
        }
        SvgGridOptions po = opt;
        po.what = opt.what + " (" + pool.note() + ")";
        po.row_labels = pool.row_labels(), po.col_labels = pool.col_labels();
        return svg_grid(pooled, po);
    }

    // One colour scale over every panel's unmasked, finite cells.
    bool any_value = false, any_masked = false;
    double lo = 0, hi = 0;
    for (const GridPanel& p : panels) {
        auto is_masked = [&](std::size_t i, std::size_t j) {
            return (p.masked && p.masked(i, j)) || !std::isfinite(p.values(i, j));
        };
        const detail::ValueRange r = detail::value_range(p.values, is_masked);
        any_masked = any_masked || r.any_masked;
        if (!r.any_value) continue;
        lo = any_value ? std::min(lo, r.lo) : r.lo;
        hi = any_value ? std::max(hi, r.hi) : r.hi;
        any_value = true;
    }
    const detail::ColourScale scale = detail::colour_scale({lo, hi, any_value, any_masked});
    lo = scale.lo, hi = scale.hi;
    auto position = [&](double v) { return scale.position(v); };

    const std::size_t columns = opt.columns ? opt.columns : std::size_t(std::ceil(std::sqrt(double(n))));
    const std::size_t grid_rows = (n + columns - 1) / columns;
    const double cell = std::clamp(220.0 / double(std::max<std::size_t>({R, C, 1})), 2.0, 24.0);
    const double font = std::clamp(cell * 0.6, 7.0, 11.0), char_w = font * 0.62;
    const std::size_t step = std::max<std::size_t>(1, std::size_t(std::ceil(font * 1.1 / cell)));
    auto label = [](const std::vector<std::string>& labels, std::size_t i, std::size_t count) {
        return labels.size() == count ? detail::truncate(labels[i], 12) : std::to_string(i);
    };
    std::size_t row_chars = 1, col_chars = 1;
    for (std::size_t i = 0; i < R; ++i) row_chars = std::max(row_chars, detail::display_width(label(opt.row_labels, i, R)));
    for (std::size_t j = 0; j < C; ++j) col_chars = std::max(col_chars, detail::display_width(label(opt.col_labels, j, C)));
    const double label_w = char_w * double(row_chars) + 8, label_h = char_w * double(col_chars) * 0.75 + 12;
    const double panel_w = label_w + cell * double(C) + 16, panel_h = 22 + cell * double(R) + label_h;
    const double left = 16, top = 58;
    const double bar_x = left + panel_w * double(columns) + 8;
    std::string title = opt.what + " · " + std::to_string(n) + " panel" + (n == 1 ? "" : "s") + " of " +
                        std::to_string(R) + "×" + std::to_string(C);
    if (!opt.scale_text.empty()) title += " · " + opt.scale_text;
    title += " · " + (opt.masking_text.empty() ? std::string("no mask") : opt.masking_text);
    const std::string subtitle = "rows: query · columns: key" +
                                 (any_value ? " · one colour scale, range " + fmt("%.4g", lo) + " … " + fmt("%.4g", hi) : "");
    // Wide enough for the panels, the bar and both lines of text above them (a title was cut off).
    const double width = std::max({bar_x + 90, 420.0, left + detail::text_width(title, 15, true) + 16,
                                   left + detail::text_width(subtitle, 12) + 16});
    const double height = top + panel_h * double(grid_rows) + 16;

    std::string s = svg_open(width, height);
    s += detail::heatmap_defs(4, 1.5);
    s += text_at(left, 24, title, "font-size=\"15\" font-weight=\"bold\"");
    s += text_at(left, 44, subtitle, "font-size=\"12\" fill=\"#444444\"");

    const bool tooltips = n * R * C <= 16384;
    for (std::size_t p = 0; p < n; ++p) {
        const GridPanel& panel = panels[p];
        const double x0 = left + panel_w * double(p % columns), y0 = top + panel_h * double(p / columns);
        const double gx = x0 + label_w, gy = y0 + 22;
        s += "<g class=\"panel\">\n";
        s += text_at(gx, y0 + 14, panel.title, "class=\"panel-title\" font-size=\"12\" font-weight=\"bold\"");
        for (std::size_t i = 0; i < R; ++i)
            for (std::size_t j = 0; j < C; ++j) {
                const double v = panel.values(i, j);
                const bool masked = (panel.masked && panel.masked(i, j)) || !std::isfinite(v);
                s += "<rect class=\"cell" + std::string(masked ? " masked" : "") + "\" x=\"" + px(gx + cell * double(j)) +
                     "\" y=\"" + px(gy + cell * double(i)) + "\" width=\"" + px(cell) + "\" height=\"" + px(cell) +
                     "\" fill=\"" + (masked ? std::string("url(#masked)") : rgb_hex(detail::viridis(position(v)))) + "\">";
                if (tooltips)
                    s += "<title>" + xml_escape(panel.title + ": " + label(opt.row_labels, i, R) + " → " +
                                                label(opt.col_labels, j, C) + ": " +
                                                (masked ? std::string("masked") : fmt("%.6g", v))) +
                         "</title>";
                s += "</rect>\n";
            }
        s += "<rect x=\"" + px(gx) + "\" y=\"" + px(gy) + "\" width=\"" + px(cell * double(C)) + "\" height=\"" +
             px(cell * double(R)) + "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
        for (std::size_t i = 0; i < R; i += step)
            s += text_at(gx - 4, gy + cell * (double(i) + 0.5) + font * 0.35, label(opt.row_labels, i, R),
                         "class=\"row-label\" font-size=\"" + px(font) + "\" text-anchor=\"end\"");
        for (std::size_t j = 0; j < C; j += step) {
            const double x = gx + cell * (double(j) + 0.5) + font * 0.3, y = gy + cell * double(R) + 6;
            s += "<text class=\"col-label\" font-size=\"" + px(font) + "\" text-anchor=\"end\" transform=\"translate(" +
                 px(x) + "," + px(y) + ") rotate(-45)\">" + xml_escape(label(opt.col_labels, j, C)) + "</text>\n";
        }
        s += "</g>\n";
    }

    // The one colour bar.
    const double bar_h = std::max(std::min(panel_h * double(grid_rows) - 40, 360.0), 100.0);
    s += "<rect class=\"colorbar\" x=\"" + px(bar_x) + "\" y=\"" + px(top + 22) + "\" width=\"14\" height=\"" +
         px(bar_h) + "\" fill=\"url(#bar)\" stroke=\"#333333\"/>\n";
    for (int k = 0; k <= 4; ++k) {
        const double y = top + 22 + bar_h * (1 - k / 4.0);
        s += "<line x1=\"" + px(bar_x + 14) + "\" y1=\"" + px(y) + "\" x2=\"" + px(bar_x + 18) + "\" y2=\"" + px(y) +
             "\" stroke=\"#333333\"/>\n";
        s += text_at(bar_x + 21, y + 4, fmt("%.3g", lo + (hi - lo) * k / 4.0), "font-size=\"11\"");
    }
    if (any_masked) {
        const double y = top + 22 + bar_h + 12;
        s += "<rect x=\"" + px(bar_x) + "\" y=\"" + px(y) + "\" width=\"14\" height=\"14\" fill=\"url(#masked)\" "
             "stroke=\"#333333\"/>\n";
        s += text_at(bar_x + 20, y + 11, "masked", "font-size=\"11\"");
    }
    s += "</svg>\n";
    return s;
}

}  // namespace attn::viz
