// attn random's draws are named "draw 0", "draw 1", ... in its text (csv, tsv, json, pretty) and
// draw0, draw1, ... where a name is a file's or an npz member's (no space): a result selected as
// FILE:NAME is found under either spelling.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>

namespace attn::io::detail {

// "draw 0" for draw0 and draw0 for "draw 0"; "" for any other name.
inline std::string draw_spelling(std::string_view name) {
    if (!name.starts_with("draw")) return "";
    const bool spaced = name.size() > 5 && name[4] == ' ';
    const std::string_view digits = name.substr(spaced ? 5 : 4);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return "";
    return std::string(spaced ? "draw" : "draw ") + std::string(digits);
}

}  // namespace attn::io::detail
