// Pictures of matrices and of the variance experiment: a terminal heatmap (256-colour ANSI or
// shade characters) and SVG documents written by hand (no dependency). Pure functions that
// return the text; the caller decides where it goes.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/ops.hpp"
#include "attn/variance_experiment.hpp"

namespace attn::viz {

// Which cells a mask forbade (true = masked). Masked cells are drawn distinctly and left out
// of the colour range, so a masked 0 never looks like a tiny weight. Empty = nothing masked.
using CellMask = std::function<bool(std::size_t row, std::size_t col)>;

// The cells the attention pipeline masks for these options: keys beyond the causal limit,
// zeros of sm.mask, and -inf entries of sm.bias. Keeps pointers to sm's matrices: they must
// outlive the returned function.
CellMask cell_mask(const ScoreMask& sm, std::size_t Tq, std::size_t Tk);

// Terminal heatmap: rows = queries (labelled on the left), columns = keys (labels written
// vertically above the grid), two characters per cell, then a legend with the value range.
// color: ANSI backgrounds along viridis: 24-bit when COLORTERM is truecolor or 24bit, else
// 20 distinct 256-colour levels; otherwise shade characters " ░▒▓█".
// Masked cells are "××" in both modes. Labels default to indices when empty; a label list of
// the wrong length is ignored (indices are used). A grid wider than line_width terminal
// columns (0 = never wrap) prints in column blocks under "columns A–B:", as the pretty tables
// do (attn/column_blocks.hpp); the legend follows the last block. Beyond 4 such blocks the
// matrix is max-pooled to fit line_width instead (blocks of k keys, and of at most k queries:
// fewer when the rows fit in as many lines as there are columns), under a note saying so.
std::string heatmap_text(const Matrix& weights, const std::vector<std::string>& row_labels,
                         const std::vector<std::string>& col_labels, bool color, const CellMask& masked = {},
                         std::size_t line_width = 0);

// Whether a terminal heatmap should use colour: stdout is a terminal and NO_COLOR is unset
// or empty (https://no-color.org).
bool want_color(bool stdout_is_terminal);

struct SvgHeatmapOptions {
    std::string what = "weights";          // first part of the title
    std::string scale_text;                // e.g. "scale 1/√2 = 0.7071" ("" = not shown)
    std::string masking_text;              // e.g. "causal mask" ("" = "no mask")
    std::vector<std::string> row_labels;   // token labels for queries (rows); "" = indices
    std::vector<std::string> col_labels;   // token labels for keys (columns)
    std::string row_axis = "query", col_axis = "key";
    CellMask masked;                       // masked cells: hatched grey, outside the colour range
    std::size_t max_value_cells = 16;      // values in cells only when rows, cols <= this (and they fit)
};

// An SVG heatmap: title "WHAT · R×C · SCALE · MASKING", labelled axes, one <rect class="cell">
// per cell, a colour bar with its range (lowest/highest unmasked value), the value in each
// cell when it fits (and rows, cols <= max_value_cells). Labels are XML-escaped, and thinned
// so that they never overlap. Non-finite entries are drawn as masked. More than 128 rows or
// columns are max-pooled into blocks (title and index-range labels say so).
std::string svg_heatmap(const Matrix& m, const SvgHeatmapOptions& options);

// The experiment as one picture. Left panel: variance of raw and scaled scores against d_k on
// log–log axes with both theory lines (d_k·σ⁴, σ⁴). Right panel: mean max weight (left axis)
// and mean entropy (right axis, 0…ln L) against d_k, unscaled versus scaled. Each measured
// value is one <circle class="pt ...">.
std::string svg_variance_plot(const std::vector<VarianceResult>& results, const VarianceExperiment& experiment);

// Escapes & < > " ' for XML text and attribute values.
std::string xml_escape(const std::string& text);

}  // namespace attn::viz
