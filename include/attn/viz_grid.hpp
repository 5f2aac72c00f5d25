// A grid of heatmaps, one panel per attention head (and batch item): bertviz's overview of a
// layer. Every panel shares one colour scale, so heads compare at a glance.
#pragma once
#include <string>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/viz.hpp"

namespace attn::viz {

struct GridPanel {
    std::string title;  // e.g. "head 3" or "batch 1 · head 3"
    Matrix values;      // rows = queries, columns = keys
    CellMask masked;    // masked cells: hatched, outside the colour range
};

struct SvgGridOptions {
    std::string what = "weights";         // first part of the title
    std::string scale_text, masking_text;  // as for svg_heatmap
    std::vector<std::string> row_labels;   // token labels for queries; "" = indices
    std::vector<std::string> col_labels;   // token labels for keys
    std::size_t columns = 0;               // panels per row; 0 = about square
};

// An SVG document: title "WHAT · N panels of R×C · SCALE · MASKING", the panels in rows of
// `columns`, each with its title and labelled axes (queries left, keys below), one <rect
// class="cell"> per cell, and one colour bar for all panels. Panels must share a shape.
// Labels are XML-escaped; non-finite entries are drawn as masked.
std::string svg_grid(const std::vector<GridPanel>& panels, const SvgGridOptions& options);

}  // namespace attn::viz
