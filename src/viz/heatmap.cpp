// Terminal heatmap of a weight matrix (include/attn/viz.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "attn/viz.hpp"
#include "viz/text_util.hpp"

namespace attn::viz {

using detail::code_points;
using detail::display_width;

CellMask cell_mask(const ScoreMask& sm, std::size_t Tq, std::size_t Tk) {
    if (sm.causal == Causal::none && !sm.mask && !sm.bias) return {};
    return [sm, Tq, Tk](std::size_t i, std::size_t j) { return !is_allowed(sm, i, j, Tq, Tk); };
}

bool want_color(bool stdout_is_terminal) {
    const char* no_color = std::getenv("NO_COLOR");
    return stdout_is_terminal && (no_color == nullptr || *no_color == '\0');
}

namespace {

// xterm 256-colour index nearest to an RGB colour in the 6×6×6 cube.
int xterm_index(detail::Rgb c) {
    auto level = [](int v) {
        static constexpr int steps[] = {0, 95, 135, 175, 215, 255};
        int best = 0;
        for (int k = 1; k < 6; ++k)
            if (std::abs(steps[k] - v) < std::abs(steps[best] - v)) best = k;
        return best;
    };
    return 16 + 36 * level(c.r) + 6 * level(c.g) + level(c.b);
}

std::string background(double t) { return "\x1b[48;5;" + std::to_string(xterm_index(detail::viridis(t))) + "m  \x1b[0m"; }

const char* const shades[] = {"  ", "░░", "▒▒", "▓▓", "██"};
std::string shade(double t) { return shades[std::min(4, int(t * 5))]; }

const char* const masked_cell = "××";

std::vector<std::string> labels_or_indices(const std::vector<std::string>& labels, std::size_t n) {
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = labels.size() == n ? detail::printable(labels[i]) : std::to_string(i);
    return out;
}

}  // namespace

std::string heatmap_text(const Matrix& w, const std::vector<std::string>& row_labels,
                         const std::vector<std::string>& col_labels, bool color, const CellMask& masked) {
    const std::size_t R = w.rows(), C = w.cols();
    auto is_masked = [&](std::size_t i, std::size_t j) { return (masked && masked(i, j)) || !std::isfinite(w(i, j)); };

    // Colour range over the cells that are shown as values, always including 0.
    const detail::ValueRange range = detail::value_range(w, is_masked);
    const bool any_masked = range.any_masked;
    const double lo = std::min(0.0, range.lo), hi = std::max(0.0, range.hi);
    auto position = [&](double v) { return hi > lo ? (v - lo) / (hi - lo) : 0.0; };

    const std::vector<std::string> rows = labels_or_indices(row_labels, R);
    const std::vector<std::string> cols = labels_or_indices(col_labels, C);
    constexpr std::size_t max_label = 12;
    std::size_t row_width = 0;
    for (const std::string& s : rows) row_width = std::max(row_width, display_width(detail::truncate(s, max_label)));
    std::size_t col_height = 0;
    for (const std::string& s : cols) col_height = std::max(col_height, display_width(detail::truncate(s, max_label)));

    std::string out;
    // Column labels, written downwards, one character per cell.
    for (std::size_t k = 0; k < col_height; ++k) {
        std::string line(row_width + 1, ' ');
        for (std::size_t j = 0; j < C; ++j) {
            const std::vector<std::string> cps = code_points(detail::truncate(cols[j], max_label));
            line += (k < cps.size() ? cps[k] : " ") + " ";
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    for (std::size_t i = 0; i < R; ++i) {
        const std::string label = detail::truncate(rows[i], max_label);
        out += label + std::string(row_width - display_width(label) + 1, ' ');
        for (std::size_t j = 0; j < C; ++j) {
            if (is_masked(i, j)) out += color ? std::string("\x1b[38;5;244m") + masked_cell + "\x1b[0m" : masked_cell;
            else out += color ? background(position(w(i, j))) : shade(position(w(i, j)));
        }
        out += "\n";
    }
    // Legend: the ramp from low to high with its range, and the masked symbol.
    out += "\nlegend: ";
    if (color) {
        for (int k = 0; k < 8; ++k) out += background(k / 7.0);
    } else {
        out += "[";
        for (const char* s : shades) out += s;
        out += "]";
    }
    out += " " + detail::fmt("%.4g", lo) + " … " + detail::fmt("%.4g", hi) + " (linear)";
    if (any_masked) out += std::string("   ") + masked_cell + " masked";
    out += "\n        rows: queries, columns: keys\n";
    return out;
}

}  // namespace attn::viz
