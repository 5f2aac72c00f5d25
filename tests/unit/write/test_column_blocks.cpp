// The wrapping rule shared by the pretty tables and the terminal heatmap, on widths worked
// out by hand.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "attn/column_blocks.hpp"

using Blocks = std::vector<std::pair<std::size_t, std::size_t>>;

TEST_CASE("column_blocks: whole columns per block, prefix and gaps counted") {
    // prefix 2 + 3 + gap 2 + 3 = 10 fits a line of 10; the third column starts a new block.
    CHECK(attn::column_blocks({3, 3, 3, 3}, 2, 10) == Blocks{{0, 2}, {2, 4}});
    CHECK(attn::column_blocks({3, 3, 3, 3}, 2, 9) == Blocks{{0, 1}, {1, 2}, {2, 3}, {3, 4}});
    // 0 = never wrap; a line wide enough = one block.
    CHECK(attn::column_blocks({3, 3, 3, 3}, 2, 0) == Blocks{{0, 4}});
    CHECK(attn::column_blocks({3, 3, 3, 3}, 2, 20) == Blocks{{0, 4}});
    // A column wider than the line still gets a block of its own.
    CHECK(attn::column_blocks({1, 50, 1}, 2, 10) == Blocks{{0, 1}, {1, 2}, {2, 3}});
    // No gap (heatmap cells): 1 + 2·4 = 9.
    CHECK(attn::column_blocks({2, 2, 2, 2, 2}, 1, 9, 0) == Blocks{{0, 4}, {4, 5}});
    CHECK(attn::column_blocks({}, 2, 10) == Blocks{{0, 0}});
}

TEST_CASE("column_block_title: 0-based, inclusive, an en dash") {
    CHECK(attn::column_block_title(8, 16) == "columns 8\u201315");
    CHECK(attn::column_block_title(7, 8) == "column 7");
}
