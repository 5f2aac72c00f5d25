// Internal to src/tokenize: tokenizer.json's models, which turn one pre-tokenized piece into
// vocabulary tokens: WordPiece (greedy longest match) and BPE (merges by rank, with
// byte_fallback).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "read/json.hpp"

namespace attn::tokenize {

class Model {
public:
    virtual ~Model() = default;
    // Appends the tokens of one piece (code points) to `out`, as vocabulary strings (the unknown
    // token's string for what the vocabulary lacks, or nothing when the model has none).
    virtual void tokenize(const std::u32string& piece, std::vector<std::string>& out) const = 0;

    std::unordered_map<std::string, std::int64_t> vocab;
    std::optional<std::string> unk_token;
    bool fuse_unk = false;
};

// The model a tokenizer.json "model" member describes.
std::unique_ptr<Model> make_model(const json::Value& config);
std::unique_ptr<Model> make_wordpiece(const json::Value& config);
std::unique_ptr<Model> make_bpe(const json::Value& config);

// The vocabulary of a "vocab" object: token → id.
std::unordered_map<std::string, std::int64_t> read_vocab(const json::Value& vocab);
// A token id of tokenizer.json (the vocabulary's, an added token's): a whole number in [0, 2^32),
// Hugging Face's u32; InputError naming the token otherwise.
std::int64_t token_id(const json::Value& id, const std::string& token);

}  // namespace attn::tokenize
