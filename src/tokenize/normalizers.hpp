// Internal to src/tokenize: tokenizer.json's normalizers, as code-point strings to
// code-point strings. Each follows @huggingface/tokenizers (the JavaScript port), which is
// the oracle of the tests: String.prototype.normalize and toLowerCase semantics.
#pragma once
#include <memory>
#include <string>

#include "read/json.hpp"
#include "tokenize/text_pattern.hpp"

namespace attn::tokenize {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    // Replace can grow a text exponentially down a Sequence: past TextPattern::max_grown_length
    // code points the normalizer throws an InputError instead.
    std::u32string apply(std::u32string text) const {
        const std::size_t limit = TextPattern::max_grown_length(text.size());
        return apply(std::move(text), limit);
    }
    virtual std::u32string apply(std::u32string text, std::size_t limit) const = 0;
};

// The normalizer a tokenizer.json "normalizer" member describes; nullptr for null.
// Throws InputError for an unknown or unsupported type.
std::unique_ptr<Normalizer> make_normalizer(const json::Value& config);

}  // namespace attn::tokenize
