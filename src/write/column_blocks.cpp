// Wrapping wide tables in column blocks (include/attn/column_blocks.hpp).
#include "attn/column_blocks.hpp"

namespace attn {

std::vector<std::pair<std::size_t, std::size_t>> column_blocks(const std::vector<std::size_t>& width,
                                                               std::size_t prefix, std::size_t line_width,
                                                               std::size_t gap) {
    std::vector<std::pair<std::size_t, std::size_t>> blocks;
    std::size_t first = 0, used = prefix;
    for (std::size_t c = 0; c < width.size(); ++c) {
        const std::size_t need = (c > first ? gap : 0) + width[c];
        if (line_width > 0 && c > first && used + need > line_width) {
            blocks.emplace_back(first, c);
            first = c;
            used = prefix + width[c];
        } else {
            used += need;
        }
    }
    blocks.emplace_back(first, width.size());
    return blocks;
}

std::string column_block_title(std::size_t first, std::size_t last) {
    return last - first == 1 ? "column " + std::to_string(first)
                             : "columns " + std::to_string(first) + "\u2013" + std::to_string(last - 1);
}

}  // namespace attn
