// Internal to src/tokenize: tokenizer.json's post-processors, which join the tokens of a
// text (and of its pair) and add the model's special tokens: TemplateProcessing,
// BertProcessing, RobertaProcessing, ByteLevel (joins only), Sequence.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "read/json.hpp"

namespace attn::tokenize {

// A token on its way out: its id is looked up from the string unless a post-processor's
// special_tokens table gave it.
struct Token {
    std::string text;
    std::optional<std::int64_t> id;
    std::int64_t type_id = 0;
    int sequence = 0;  // 0 the text, 1 the pair, -1 added by the post-processor
    bool special = false;
};

class PostProcessor {
public:
    virtual ~PostProcessor() = default;
    virtual std::vector<Token> process(std::vector<Token> a, std::optional<std::vector<Token>> b,
                                       bool add_special) const = 0;
};

// The post-processor a tokenizer.json "post_processor" member describes. A null member
// gives the default: the text's tokens (type 0) and the pair's (type 1), as `tokenizers`.
std::unique_ptr<PostProcessor> make_post_processor(const json::Value& config);

}  // namespace attn::tokenize
