// Max-pooling of large pictures (the SVG heatmap and the HTML view share it), on a matrix
// worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/tensor.hpp"
#include "draw/max_pool.hpp"

TEST_CASE("max_pool: blocks, ragged edges, masked and non-finite cells left out") {
    // 5×3, at most 2×2 blocks → blocks of 3×2 cells: rows {0,1,2} {3,4}, columns {0,1} {2}.
    attn::Matrix m(5, 3);
    const float v[5][3] = {{1, 9, 2}, {3, 4, 5}, {-1, 0, 8}, {7, NAN, 6}, {2, 2, INFINITY}};
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 3; ++j) m(i, j) = v[i][j];
    const auto p = attn::viz::detail::plan_pooling(5, 3, 2, 2);
    CHECK(p.block_rows == 3);
    CHECK(p.block_cols == 2);
    CHECK(p.pooled_rows == 2);
    CHECK(p.pooled_cols == 2);
    CHECK(p.row_labels() == std::vector<std::string>{"0–2", "3–4"});
    CHECK(p.col_labels() == std::vector<std::string>{"0–1", "2"});
    CHECK(p.note() == "max-pooled from 5×3, blocks of 3×2");
    // (0,1) = 9 is masked: the block's max is 4; row 4 column 2 (inf) and (3,1) NaN are not values.
    attn::Matrix out(2, 2);
    attn::viz::detail::max_pool(attn::view_of(m).slice(0), [](std::size_t i, std::size_t j) { return i == 0 && j == 1; },
                                p, out.data(), out.stride());
    CHECK(out(0, 0) == 4.0f);
    CHECK(out(0, 1) == 8.0f);
    CHECK(out(1, 0) == 7.0f);
    CHECK(out(1, 1) == 6.0f);
    // A block with nothing shown is NaN.
    attn::viz::detail::max_pool(attn::view_of(m).slice(0), [](std::size_t i, std::size_t j) { return i >= 3 && j == 2; },
                                p, out.data(), out.stride());
    CHECK(std::isnan(out(1, 1)));
    // Small enough: blocks of one cell.
    const auto same = attn::viz::detail::plan_pooling(5, 3, 128, 128);
    CHECK(same.block_rows == 1);
    CHECK(same.pooled_rows == 5);
    CHECK(same.pooled_cols == 3);
}
