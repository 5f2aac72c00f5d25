// Terminal heatmap of a weight matrix (include/attn/viz.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "attn/column_blocks.hpp"
#include "attn/viz.hpp"
#include "draw/max_pool.hpp"
#include "draw/text_util.hpp"

namespace attn::viz {

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

// The 256-colour ramp: 20 colours of the xterm 6×6×6 cube following viridis, chosen (by a
// shortest-path search in CIELAB) as close to viridis(k/19) as the cube allows while every
// step is lighter than the one before and at least ΔE 12 from it — clearly distinct where the
// nearest cube colour alone collapses viridis into a handful of levels.
constexpr int ramp_256[] = {17, 53, 54, 90, 24, 25, 60, 30, 31, 66, 102, 36, 72, 107, 41, 77, 112, 148, 184, 220};
constexpr int ramp_levels = sizeof ramp_256 / sizeof ramp_256[0];

int level(double t) { return std::clamp(int(t * ramp_levels), 0, ramp_levels - 1); }

// 24-bit colour when the terminal says it has it (COLORTERM=truecolor or 24bit).
bool truecolor() {
    const char* c = std::getenv("COLORTERM");
    return c && (std::string_view(c) == "truecolor" || std::string_view(c) == "24bit");
}

std::string background(double t, bool rgb) {
    if (!rgb) return "\x1b[48;5;" + std::to_string(ramp_256[level(t)]) + "m  \x1b[0m";
    const detail::Rgb c = detail::viridis(t);
    return "\x1b[48;2;" + std::to_string(c.r) + ";" + std::to_string(c.g) + ";" + std::to_string(c.b) + "m  \x1b[0m";
}

const char* const shades[] = {"  ", "░░", "▒▒", "▓▓", "██"};
std::string shade(double t) { return shades[std::min(4, int(t * 5))]; }

const char* const masked_cell = "××";

std::vector<std::string> labels_or_indices(const std::vector<std::string>& labels, std::size_t n) {
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = labels.size() == n ? detail::printable(labels[i]) : std::to_string(i);
    return out;
}

// Beyond this many column blocks the picture is max-pooled to one block's width instead: 512
// keys at 80 columns would be 13 blocks of 512 lines each, not a picture any more.
constexpr std::size_t max_column_blocks = 4;

// Words of `text` in lines of at most `width` display columns (a longer word alone on its line).
std::string wrap_words(const std::string& text, std::size_t width) {
    std::string out, line;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!line.empty() && display_width(line) + 1 + display_width(word) > width) out += line + "\n", line.clear();
        line += (line.empty() ? "" : " ") + word;
        start = end + 1;
    }
    return out + line + "\n";
}

}  // namespace

std::string heatmap_text(const Matrix& w, const std::vector<std::string>& row_labels,
                         const std::vector<std::string>& col_labels, bool color, const CellMask& masked,
                         std::size_t line_width) {
    const std::size_t R = w.rows(), C = w.cols();
    const bool rgb = color && truecolor();
    auto is_masked = [&](std::size_t i, std::size_t j) { return (masked && masked(i, j)) || !std::isfinite(w(i, j)); };

    // Colour range over the cells that are shown as values, always including 0.
    const detail::ValueRange range = detail::value_range(w, is_masked);
    const bool any_masked = range.any_masked;
    const detail::ColourScale scale = detail::colour_scale(range);
    const double lo = scale.lo, hi = scale.hi;
    auto position = [&](double v) { return scale.position(v); };

    const std::vector<std::string> rows = labels_or_indices(row_labels, R);
    const std::vector<std::string> cols = labels_or_indices(col_labels, C);
    constexpr std::size_t max_label = 12;
    std::size_t row_width = 0;
    for (const std::string& s : rows) row_width = std::max(row_width, display_width(detail::truncate(s, max_label)));

    // Wider than line_width: blocks of whole columns (two characters each), as the tables wrap.
    const auto blocks = column_blocks(std::vector<std::size_t>(C, 2), row_width + 1, line_width, 0);
    if (blocks.size() > max_column_blocks) {
        // Max-pooled into blocks of k columns, k the least that fits the width beside the widest
        // pooled row label ("first–last"), and of at most k rows: fewer when the rows fit in as
        // many lines as there are columns (10 queries over 9000 keys keep their 10 rows; square
        // blocks made them one).
        const std::size_t label_width = std::min(max_label, 2 * std::to_string(R - 1).size() + 1);
        const std::size_t fit = line_width > label_width + 3 ? (line_width - label_width - 1) / 2 : 1;
        const std::size_t k = (C + fit - 1) / fit;
        detail::Pooling p = detail::plan_pooling(R, C, R, C);
        p.block_cols = k, p.block_rows = std::clamp<std::size_t>((R + fit - 1) / fit, 1, k);
        p.pooled_rows = (R + p.block_rows - 1) / p.block_rows, p.pooled_cols = (C + k - 1) / k;
        Matrix pooled(p.pooled_rows, p.pooled_cols);
        detail::max_pool({w.data(), R, C, w.stride()}, is_masked, p, pooled.data(), pooled.stride());
        // Columns are labelled by their block's first key (written downwards, a range would be
        // as tall as two numbers); rows by their range. Token labels need the cells unpooled.
        std::vector<std::string> first_keys;
        for (std::size_t b = 0; b < p.pooled_cols; ++b) first_keys.push_back(std::to_string(b * p.block_cols));
        std::string note = p.note() + " for " + std::to_string(line_width) +
                           " columns: each cell is its block's largest weight; rows are labelled by their range of "
                           "queries, columns by their first key.";
        if (row_labels.size() == R || col_labels.size() == C)
            note += " The token labels need COLUMNS=" + std::to_string(row_width + 1 + 2 * ((C + max_column_blocks - 1) / max_column_blocks)) + " or more.";
        return wrap_words(note, std::max<std::size_t>(line_width, 20)) +
               heatmap_text(pooled, p.row_labels(), first_keys, color, {}, line_width);
    }
    std::string out;
    for (const auto& [first, last] : blocks) {
        if (blocks.size() > 1) out += (first ? "\n" : "") + column_block_title(first, last) + ":\n";
        // Column labels, written downwards, one character per cell (of two columns: a wide
        // character fills it).
        std::size_t col_height = 0;
        for (std::size_t j = first; j < last; ++j)
            col_height = std::max(col_height, detail::glyphs(detail::truncate(cols[j], max_label)).size());
        for (std::size_t k = 0; k < col_height; ++k) {
            std::string line(row_width + 1, ' ');
            for (std::size_t j = first; j < last; ++j) {
                const std::vector<std::string> gs = detail::glyphs(detail::truncate(cols[j], max_label));
                const std::string g = k < gs.size() ? gs[k] : " ";
                line += g + (display_width(g) >= 2 ? "" : " ");
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += line + "\n";
        }
        for (std::size_t i = 0; i < R; ++i) {
            const std::string label = detail::truncate(rows[i], max_label);
            out += label + std::string(row_width - display_width(label) + 1, ' ');
            for (std::size_t j = first; j < last; ++j) {
                if (is_masked(i, j)) out += color ? std::string("\x1b[38;5;244m") + masked_cell + "\x1b[0m" : masked_cell;
                else out += color ? background(position(w(i, j)), rgb) : shade(position(w(i, j)));
            }
            out += "\n";
        }
    }
    // Legend: the ramp from low to high with its range, and the masked symbol.
    out += "\nlegend: ";
    if (color) {
        for (int k = 0; k < ramp_levels; ++k) out += background((k + 0.5) / ramp_levels, rgb);  // each level once
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
