// An interactive, self-contained HTML page of attention weights, in the manner of bertviz's
// head view: one file, no network access (a Content-Security-Policy forbids it), no external
// scripts or styles.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "attn/viz.hpp"

namespace attn::viz {

struct HtmlViewOptions {
    std::string title = "attention weights";
    std::vector<std::string> query_labels, key_labels;  // empty = indices
    std::string scale_text;    // e.g. "scale 1/√2 = 0.7071"
    std::string masking_text;  // e.g. "causal (top-left)"; "" = no mask
    // Cells the mask forbade in 2-D slice `slice` (C order over the leading dimensions);
    // empty = none.
    std::function<bool(std::size_t slice, std::size_t q, std::size_t k)> masked;
    // A name per 2-D slice for the head selector; empty = "head h" / "batch b, head h".
    std::vector<std::string> slice_names;
    // Set by html_view when it max-pools (what the page says about it).
    std::string pooled_text;
};

// weights: (Tq, Tk), (H, Tq, Tk) or (B, H, Tq, Tk). The page holds
//  - a head view: query tokens on the left, key tokens on the right, one line per pair with
//    opacity = weight (<line class="attn-line" data-q data-k data-w>); hovering a token shows
//    only its lines; a selector picks the head;
//  - a matrix view (one <rect class="cell"> per pair, viridis, the value on hover);
//  - the shape, scale and masking.
// Opening the page with "#selftest" writes every drawn line (head, query, key, opacity) into
// <pre id="selftest">, for checks from the DOM. UsageError beyond 4 dims.
// The page holds at most 2^22 weights: beyond, every head is max-pooled into blocks of
// queries × keys (the largest unmasked weight of each block, as the SVG heatmap pools; a
// block with none is drawn as masked), tokens become index ranges, and the page says so.
std::string html_view(const TensorView& weights, const HtmlViewOptions& options);

}  // namespace attn::viz
