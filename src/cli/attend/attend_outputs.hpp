// What `attn attend` prints: the --show items (tensors with their labels, the variance
// diagnostics per batch item and head) and the pictures (terminal heatmaps, SVG).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/io.hpp"
#include "attn/multihead.hpp"
#include "cli/attend/attend_inputs.hpp"
#include "cli/attend/attend_options.hpp"

namespace attn::cli {

// What `attn attend` computed, as the engine shaped it (attn/problem.hpp's rank rule), and
// the views --show prints (rank 0 when not computed): queries/keys/values per head when
// there is a head dimension, narrowed to the rows and batch items computed.
struct AttendResults {
    AttentionProblem problem;  // the resolved problem: slices, allowed cells, ranks
    TensorView queries, keys, values, scores, scaled, capped, weights, weights_mean, context, output;
    TensorView lse;  // each row's log-sum-exp ([B',] [H,] rows), when shown
    std::size_t masked_rows = 0;
    std::size_t batch = 1, heads = 1, kv_heads = 1;  // of the computed results
    bool head_dim = false;                         // the results carry a head dimension
    Range rows, items;                             // global query rows and batch items computed

    // Storage the views point into.
    Multihead multihead;
    BatchedAttention attention;
    OutputProjection projected;   // -q/-k/-v: the heads side by side, times W_O
    Tensor keys_f32, values_f32;  // float16 keys/values widened, when shown
    Tensor queries_rotated, keys_rotated;  // with --rope, Q and K as they enter the scores, when shown
    // --show kv-error: the weights of the stored K/V (--kv-dtype), and the weights and context
    // of the float32 K/V as read (every path materialised, for the weights).
    BatchedAttention stored, reference;

    // Whether key j is allowed for computed query row i of (b, h) (indices into the results).
    bool allowed(std::size_t b, std::size_t h, std::size_t i, std::size_t j) const noexcept {
        return problem.allowed(items.begin + b, h, rows.begin + i, j);
    }
};

// The 2-D slice for batch item b and head h (indices into the computed results) of a view
// shaped by the rank rule or broadcast like an input: a missing or size-1 batch/head
// dimension is shared; a view with G < H heads gives query head h its group's head.
MatrixView slice_at(const TensorView& v, std::size_t b, std::size_t h, std::size_t heads);

// The variance diagnostics of every computed (batch item, head): one record each, keys
// "batch" and "head" first when there is more than one slice (or a batch/head dimension).
struct VarianceTable {
    std::vector<std::vector<std::pair<std::string, double>>> records;
};
VarianceTable variance_table(const AttendInputs& in, const AttendSettings& s, const AttendResults& res);
// --show kv-error: per computed (batch item, head), how far storing K and V as --kv-dtype moved
// the results from those of the float32 values as read: the largest |difference| of the
// weights and of the context, and the context's relative RMS difference (‖Δ‖/‖float32‖); the
// records as variance_table's.
VarianceTable kv_error_table(const AttendInputs& in, const AttendResults& res);

// Checks that every shown result is finite (NaN allowed in rows fully masked under
// --masked-rows nan, -inf in the scaled scores); RuntimeFailure naming the result otherwise.
void check_results(const Show& show, const AttendInputs& in, const AttendResults& res, const AttendSettings& s);

// A row the engine reports as fully masked although the mask, causal rule, lengths and bias
// allow some key: its scores overflowed float32 (toward −inf, or to +inf or NaN, which leave
// the fused kernel's sum NaN). That is a numeric failure (RuntimeFailure), not a masked row.
void check_masked_rows(const AttendInputs& in, const AttendResults& res);

// The --show items in the user's order. The views point into res and the table.
// json writes the token labels once for the whole output: the queries' (of the rows
// computed) and the keys'.
void add_json_labels(io::OutputOptions& out, const AttendInputs& in, const AttendResults& res);

std::vector<io::Item> show_items(const Show& show, const AttendInputs& in, const AttendResults& res,
                                 const VarianceTable& variance,
                                 const VarianceTable& kv_error);

// Pictures of the weights (or of --svg-of): the (batch, head) slices to draw, selected by
// --batch / --head (-1: all).
struct PictureOptions {
    std::string of = "weights";  // scores | scaled | weights
    long batch = -1, head = -1;
    std::string scale_text, masking_text;
    std::size_t line_width = 0;  // --heatmap wraps wider grids in column blocks (0 = never)
};
// One terminal heatmap per selected slice, each under a title when there are several.
std::string heatmap_pictures(const AttendInputs& in, const AttendResults& res,
                             const PictureOptions& p, bool color);
// One SVG heatmap, or a grid of heads with one colour scale when several slices are selected.
std::string svg_picture(const AttendInputs& in, const AttendResults& res,
                        const PictureOptions& p);
// The interactive HTML view (src/draw/html.cpp) of the selected weight slices: every head
// in the page's head selector, masks per slice.
std::string html_picture(const AttendInputs& in, const AttendResults& res,
                         const PictureOptions& p);
// Cells an SVG of the selection would draw (for the size limit), before computing.
std::size_t picture_cells(const AttendInputs& in, const AttendSettings& s, const PictureOptions& p);

}  // namespace attn::cli
