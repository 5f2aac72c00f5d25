// Internal to src/tokenize: tokenizer.json's {"String": "..."} or {"Regex": "..."} pattern
// (of Split and Replace): every match in a text, and replacing them.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "read/json.hpp"
#include "tokenize/regex.hpp"

namespace attn::tokenize {

class TextPattern {
public:
    static TextPattern from_json(const json::Value& pattern);
    static TextPattern literal(std::u32string text);
    static TextPattern regex(std::u32string_view pattern);  // Unicode \s

    // Every non-overlapping match, left to right, as [begin, end).
    std::vector<std::pair<std::size_t, std::size_t>> find_all(const std::u32string& text) const;
    // How long a Replace (normalizer or pre-tokenizer), or a Sequence of them, may make a text
    // of `input` code points: replacements can grow it exponentially down a Sequence.
    static std::size_t max_grown_length(std::size_t input) { return 64 * input + (std::size_t(1) << 20); }
    // Throws an InputError naming `what` when the result would pass `limit` code points.
    std::u32string replace_all(const std::u32string& text, const std::u32string& content,
                               std::size_t limit = std::u32string::npos, const std::string& what = "Replace") const;

private:
    std::u32string literal_;
    std::optional<Regex> regex_;
};

}  // namespace attn::tokenize
