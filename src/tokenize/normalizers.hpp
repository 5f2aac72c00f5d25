// Internal to src/tokenize: tokenizer.json's normalizers, as code-point strings to
// code-point strings. Each follows @huggingface/tokenizers (the JavaScript port), which is
// the oracle of the tests: String.prototype.normalize and toLowerCase semantics.
#pragma once
#include <memory>
#include <string>

#include "read/json.hpp"

namespace attn::tokenize {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    // Replace can grow a text exponentially down a Sequence: past max_length(text's length)
    // code points the normalizer throws an InputError instead.
    std::u32string apply(std::u32string text) const {
        const std::size_t limit = max_length(text.size());
        return apply(std::move(text), limit);
    }
    virtual std::u32string apply(std::u32string text, std::size_t limit) const = 0;
    static std::size_t max_length(std::size_t input) { return 64 * input + (std::size_t(1) << 20); }
};

// The normalizer a tokenizer.json "normalizer" member describes; nullptr for null.
// Throws InputError for an unknown or unsupported type.
std::unique_ptr<Normalizer> make_normalizer(const json::Value& config);

}  // namespace attn::tokenize
