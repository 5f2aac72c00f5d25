// What `attn attend` prints: the --show items (tensors with their labels, the variance
// diagnostics per batch item and head) and the pictures (terminal heatmaps, SVG).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/io.hpp"
#include "cli/attend/attend_compute.hpp"
#include "cli/attend/attend_inputs.hpp"
#include "cli/attend/attend_options.hpp"

namespace attn::cli {

// The variance diagnostics of every computed (batch item, head): one record each, keys
// "batch" and "head" first when there is more than one slice (or a batch/head dimension).
struct VarianceTable {
    std::vector<std::vector<std::pair<std::string, double>>> records;
};
VarianceTable variance_table(const AttendInputs& in, const AttendSettings& s, const AttendResults& res);

// Checks that every shown result is finite (NaN allowed in rows fully masked under
// --masked-rows nan, -inf in the scaled scores); RuntimeFailure naming the result otherwise.
void check_results(const Show& show, const AttendInputs& in, const AttendResults& res, const AttendSettings& s);

// A row the engine reports as fully masked although the mask, causal rule, lengths and bias
// allow some key: its finite scores overflowed float32 toward -inf. That is a numeric
// failure (RuntimeFailure), as an overflow toward +inf is, not a masked row.
void check_masked_rows(const AttendInputs& in, const AttendSettings& s, const AttendResults& res);

// The --show items in the user's order. The views point into res and the table.
// json writes the token labels once for the whole output: the queries' (of the rows
// computed) and the keys'.
void add_json_labels(io::OutputOptions& out, const AttendInputs& in, const AttendResults& res);

std::vector<io::Item> show_items(const Show& show, const AttendInputs& in, const AttendResults& res,
                                 const VarianceTable& variance);

// Pictures of the weights (or of --svg-of): the (batch, head) slices to draw, selected by
// --batch / --head (-1: all).
struct PictureOptions {
    std::string of = "weights";  // scores | scaled | weights
    long batch = -1, head = -1;
    std::string scale_text, masking_text;
    std::size_t line_width = 0;  // --heatmap wraps wider grids in column blocks (0 = never)
};
// One terminal heatmap per selected slice, each under a title when there are several.
std::string heatmap_pictures(const AttendInputs& in, const AttendSettings& s, const AttendResults& res,
                             const PictureOptions& p, bool color);
// One SVG heatmap, or a grid of heads with one colour scale when several slices are selected.
std::string svg_picture(const AttendInputs& in, const AttendSettings& s, const AttendResults& res,
                        const PictureOptions& p);
// The interactive HTML view (src/viz/html.cpp) of the selected weight slices: every head
// in the page's head selector, masks per slice.
std::string html_picture(const AttendInputs& in, const AttendSettings& s, const AttendResults& res,
                         const PictureOptions& p);
// Cells an SVG of the selection would draw (for the size limit), before computing.
std::size_t picture_cells(const AttendInputs& in, const AttendSettings& s, const PictureOptions& p);

}  // namespace attn::cli
