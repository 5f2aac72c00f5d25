// Downsampling a matrix too large to draw cell by cell: max-pooling over the cells shown
// (internal to src/draw; the SVG heatmap and the HTML view use it).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::viz::detail {

// The pooling of a rows×cols matrix into blocks of block_rows×block_cols cells, chosen as
// the smallest blocks that leave at most max_rows×max_cols of them.
struct Pooling {
    std::size_t rows = 0, cols = 0;                // of the matrix
    std::size_t block_rows = 1, block_cols = 1;    // cells per block
    std::size_t pooled_rows = 0, pooled_cols = 0;  // blocks
    // Index ranges of the blocks, e.g. "0–3" ("7" for a block of one), for labels.
    std::vector<std::string> row_labels() const;
    std::vector<std::string> col_labels() const;
    // "max-pooled from 512×512, blocks of 4×4"
    std::string note() const;
};
Pooling plan_pooling(std::size_t rows, std::size_t cols, std::size_t max_rows, std::size_t max_cols);

// Each block's largest value over the cells that are not masked and finite; NaN for a block
// with none (to be drawn as masked). out: pooled_rows×pooled_cols, row stride out_stride.
void max_pool(const MatrixView& m, const std::function<bool(std::size_t, std::size_t)>& masked, const Pooling& p,
              float* out, std::size_t out_stride);

}  // namespace attn::viz::detail
