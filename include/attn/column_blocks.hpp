// How a table wider than the terminal wraps: in blocks of whole columns, each under a title
// ("columns 8–15:"), as NumPy's linewidth wraps an array. One rule for the pretty tables and
// the terminal heatmap.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// Column blocks [first, last) such that prefix + the widths of a block's columns + gap between
// neighbours fits in line_width; every block holds at least one column. One block when
// line_width is 0 or everything fits.
std::vector<std::pair<std::size_t, std::size_t>> column_blocks(const std::vector<std::size_t>& width,
                                                               std::size_t prefix, std::size_t line_width,
                                                               std::size_t gap = 2);

// The title of block [first, last), 0-based and inclusive: "column 7" or "columns 8–15".
std::string column_block_title(std::size_t first, std::size_t last);

}  // namespace attn
