#include "tokenize/added_tokens.hpp"

#include <unordered_map>

#include "tokenize/regex.hpp"
#include "tokenize/unicode.hpp"

namespace attn::tokenize {

std::vector<Section> split_added(const std::u32string& text, const std::vector<AddedToken>& tokens,
                                 const std::vector<int>& which) {
    std::vector<Section> out;
    // The tokens by their first character, in `which`'s order: each position looks at those that
    // may start there (20,000 added tokens over 20 KB of text took 8.4 s looking at every one).
    std::unordered_map<char32_t, std::vector<int>> by_first;
    for (int k : which)
        if (!tokens[std::size_t(k)].content.empty()) by_first[tokens[std::size_t(k)].content[0]].push_back(k);
    std::size_t start = 0, i = 0;
    while (i < text.size()) {
        int best = -1;
        std::size_t best_len = 0;
        if (const auto bucket = by_first.find(text[i]); bucket != by_first.end())
            for (int k : bucket->second) {
                const std::u32string& c = tokens[std::size_t(k)].content;
                if (c.size() > best_len && text.compare(i, c.size(), c) == 0) best = k, best_len = c.size();
            }
        if (best < 0) {
            ++i;
            continue;
        }
        const bool inside_word = (i > 0 && rust_word_character(text[i - 1])) ||
                                 (i + best_len < text.size() && rust_word_character(text[i + best_len]));
        if (tokens[std::size_t(best)].single_word && inside_word) {
            i += best_len;
            continue;
        }
        if (i > start) out.push_back({text.substr(start, i - start), -1});
        out.push_back({tokens[std::size_t(best)].content, best});
        i += best_len;
        start = i;
    }
    if (start < text.size()) out.push_back({text.substr(start), -1});
    for (std::size_t s = 0; s < out.size(); ++s) {
        if (out[s].token < 0) continue;
        const AddedToken& t = tokens[std::size_t(out[s].token)];
        if (t.lstrip && s > 0 && out[s - 1].token < 0) {
            std::u32string& p = out[s - 1].text;
            while (!p.empty() && unicode::is_js_space(p.back())) p.pop_back();
        }
        if (t.rstrip && s + 1 < out.size() && out[s + 1].token < 0) {
            std::u32string& n = out[s + 1].text;
            std::size_t b = 0;
            while (b < n.size() && unicode::is_js_space(n[b])) ++b;
            n.erase(0, b);
        }
    }
    return out;
}

}  // namespace attn::tokenize
