// Internal to src/tokenize: tokenizer.json's pre-tokenizers, which cut a normalized text
// into the pieces the model tokenizes one by one. Each maps every piece of a list to its
// own pieces, in order, as @huggingface/tokenizers does.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "read/json.hpp"

namespace attn::tokenize {

class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    // Splits one piece, appending its pieces to `out`. `section` is the index of the text
    // section (between added tokens) the piece is from: Metaspace's prepend_scheme "first".
    virtual void split(const std::u32string& piece, std::size_t section, std::vector<std::u32string>& out) const = 0;

    std::vector<std::u32string> apply(const std::vector<std::u32string>& pieces, std::size_t section) const {
        std::vector<std::u32string> out;
        for (const auto& p : pieces) split(p, section, out);
        return out;
    }
};

// The pre-tokenizer a tokenizer.json "pre_tokenizer" member describes; nullptr for null.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const json::Value& config);

}  // namespace attn::tokenize
