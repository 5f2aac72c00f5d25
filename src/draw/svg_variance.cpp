// The variance experiment as one SVG (attn/viz.hpp): variance against d_k, and the softmax
// saturation it causes, unscaled versus scaled.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "attn/viz.hpp"
#include "draw/svg_util.hpp"
#include "draw/text_util.hpp"

namespace attn::viz {

using detail::fmt;
using detail::line_at;
using detail::px;
using detail::rgb_hex;
using detail::svg_open;
using detail::text_at;

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
