// The choice of model and the vocabulary reader shared by WordPiece and BPE.
#include "tokenize/models.hpp"

#include "attn/error.hpp"
#include "runtime/utf8.hpp"

namespace attn::tokenize {

std::int64_t token_id(const json::Value& id, const std::string& token) {
    const std::int64_t v = id.as_int();
    if (v < 0 || v >= (std::int64_t(1) << 32))
        throw InputError("tokenizer.json: \"" + io::printable_utf8(token, 80) + "\" has the id " + std::to_string(v) +
                         ": ids are whole numbers from 0 to 2^32 - 1");
    return v;
}

std::unordered_map<std::string, std::int64_t> read_vocab(const json::Value& vocab) {
    std::unordered_map<std::string, std::int64_t> out;
    const auto& keys = vocab.keys();
    const auto& values = vocab.values();
    out.reserve(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        out[keys[i]] = token_id(values[i], keys[i]);  // a repeated key keeps its last id, as JSON.parse does
    }
    return out;
}

std::unique_ptr<Model> make_model(const json::Value& c) {
    std::string type = c.string_or("type", "");
    if (type.empty() && c.is_object()) {  // older files leave the type to the members, as serde's untagged enum
        if (c.contains("merges")) type = "BPE";
        else if (c.contains("vocab") && c.contains("max_input_chars_per_word")) type = "WordPiece";
    }
    if (type == "WordPiece") return make_wordpiece(c);
    if (type == "BPE") return make_bpe(c);
    throw InputError("tokenizer.json: unsupported model \"" + type + "\" (known: WordPiece, BPE)");
}

}  // namespace attn::tokenize
