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
    // A name per 2-D slice (matrix view title, thumbnails); empty = "layer l, batch b, head h".
    std::vector<std::string> slice_names;
    // The leading dimensions' names, some of layer, batch, head in that order; empty = by
    // rank: (H, T, T), (B, H, T, T), (L, B, H, T, T). UsageError otherwise.
    std::vector<std::string> dim_names;
    // Per leading dimension, the index each of its positions stands for (--head 1 alone: {{1}};
    // --batch-items 1:3: {{1, 2}, ...}), as the page numbers heads, batch items and layers;
    // empty = 0, 1, … for every dimension.
    std::vector<std::vector<std::size_t>> dim_indices;
    // First token of sentence B (queries and keys) for the A/B filter; 0 = after the first
    // "[SEP]" or "</s>" that has tokens after it, when query and key labels are equal.
    std::size_t sentence_b = 0;
    // false: no A/B filter unless sentence_b is given (a caller that knows the real pair).
    bool sentence_b_from_labels = true;
    // Set by html_view when it max-pools (what the page says about it).
    std::string pooled_text;
};

// weights: (Tq, Tk) with up to three leading dimensions (layer, batch, head). One offline
// page (a Content-Security-Policy forbids every fetch) with
//  - a head view, as bertviz's: query tokens left, key tokens right, one line per pair on a
//    canvas, opacity = the weight in 8 bits (÷ the largest value when one is above 1), each
//    head in its own colour (15 fixed, then golden-angle hues: never two alike); a layer and a
//    batch selector, head toggles (buttons; click, Enter or Space: show or hide, the last one
//    shown stays; double-click or O: that head alone), hover a token (or focus the view and
//    use the arrow keys) for its lines and its largest weights (a readout floating in the half
//    of the window away from the pointer, taking no pointer events; tokens isolated, with
//    their positions), a sentence A→B filter when there is a pair, lines below a threshold (a
//    slider, default 1/255) not drawn; rows too thin for every label show every k-th one;
//  - a matrix view of the current head: viridis on one colour scale for the whole page
//    (0 … its largest weight) with a colour bar, the value on hover;
//  - a model view: an L×H grid of thumbnails (max-pooled to at most 64×64); a click opens
//    that head's head view.
// Canvases are drawn at devicePixelRatio; colours follow the light or dark scheme.
// The weights are stored as base64 8-bit codes of weight/max(1, largest), a bit mask of
// masked (or NaN) cells, and the exact float32 values when the page holds at most 2^20.
// "#selftest" in the address makes the page drive its own controls and write what it drew
// into <pre id="selftest"> ("SLICE QUERY KEY OPACITY" per line, "cells SLICE N", "focus",
// "toggles", "pair", "thumbs", "model", "colours", "thumb", "readout", "isolated", "matrix",
// "arrows", "key O", "buttons" and "resources" lines; tests/browser/run.sh). The
// time from navigation start to the end of the first frame goes into <span id="frame-ms">.
// The page holds at most 2^22 weights (8-bit: under 8 MB) and 8192 queries or keys (canvases a
// browser draws): beyond, every head is max-pooled
// into blocks of queries × keys (the largest unmasked weight of each block, as the SVG
// heatmap pools; a block with none is drawn as masked), tokens become index ranges, and the
// page says so. UsageError beyond 5 dims.
std::string html_view(const TensorView& weights, const HtmlViewOptions& options);

}  // namespace attn::viz
