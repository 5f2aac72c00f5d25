// Max-pooling for pictures of large matrices (draw/max_pool.hpp).
#include "draw/max_pool.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::viz::detail {

namespace {

std::string index_range(std::size_t first, std::size_t last) {
    return first == last ? std::to_string(first) : std::to_string(first) + "–" + std::to_string(last);
}

std::vector<std::string> ranges(std::size_t n, std::size_t block, std::size_t blocks) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < blocks; ++i) out.push_back(index_range(i * block, std::min(n, (i + 1) * block) - 1));
    return out;
}

}  // namespace

std::vector<std::string> Pooling::row_labels() const { return ranges(rows, block_rows, pooled_rows); }
std::vector<std::string> Pooling::col_labels() const { return ranges(cols, block_cols, pooled_cols); }

std::string Pooling::note() const {
    return "max-pooled from " + std::to_string(rows) + "×" + std::to_string(cols) + ", blocks of " +
           std::to_string(block_rows) + "×" + std::to_string(block_cols);
}

Pooling plan_pooling(std::size_t rows, std::size_t cols, std::size_t max_rows, std::size_t max_cols) {
    Pooling p;
    p.rows = rows, p.cols = cols;
    p.block_rows = std::max<std::size_t>(1, (rows + max_rows - 1) / max_rows);
    p.block_cols = std::max<std::size_t>(1, (cols + max_cols - 1) / max_cols);
    p.pooled_rows = (rows + p.block_rows - 1) / p.block_rows;
    p.pooled_cols = (cols + p.block_cols - 1) / p.block_cols;
    return p;
}

void max_pool(const MatrixView& m, const std::function<bool(std::size_t, std::size_t)>& masked, const Pooling& p,
              float* out, std::size_t out_stride) {
    for (std::size_t i = 0; i < p.pooled_rows; ++i)
        std::fill(out + i * out_stride, out + i * out_stride + p.pooled_cols, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t i = 0; i < m.rows; ++i)
        for (std::size_t j = 0; j < m.cols; ++j) {
            const float v = m(i, j);
            if ((masked && masked(i, j)) || !std::isfinite(v)) continue;
            float& b = out[(i / p.block_rows) * out_stride + j / p.block_cols];
            if (std::isnan(b) || v > b) b = v;
        }
}

}  // namespace attn::viz::detail
