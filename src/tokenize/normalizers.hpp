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
    virtual std::u32string apply(std::u32string text) const = 0;
};

// The normalizer a tokenizer.json "normalizer" member describes; nullptr for null.
// Throws InputError for an unknown or unsupported type.
std::unique_ptr<Normalizer> make_normalizer(const json::Value& config);

}  // namespace attn::tokenize
