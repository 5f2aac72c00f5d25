// Internal to src/tokenize: the added tokens of tokenizer.json ("added_tokens"), matched in
// the text before anything else, longest first at each position.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attn::tokenize {

struct AddedToken {
    std::u32string content;
    std::int64_t id = 0;
    bool special = false, lstrip = false, rstrip = false, normalized = false;
    bool single_word = false;  // a match touching a word character (\w, the Rust regex crate's) is skipped
};

// A text cut at the added tokens it contains: sections alternate between plain text and
// matches (`token` >= 0, the index of the added token), in order.
struct Section {
    std::u32string text;
    int token = -1;
};

// Splits `text` at every occurrence of the tokens listed in `which` (indexes into `tokens`),
// taking the longest one at the leftmost position, and applies their lstrip/rstrip (which
// trim white space from the neighbouring sections). As Hugging Face's AddedVocabulary does, a
// single_word token's match inside a word stays plain text, and the search resumes after it.
std::vector<Section> split_added(const std::u32string& text, const std::vector<AddedToken>& tokens,
                                 const std::vector<int>& which);

}  // namespace attn::tokenize
