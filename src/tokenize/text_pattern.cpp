// String patterns match literally; Regex patterns go to the regex engine with Unicode \s.
#include "tokenize/text_pattern.hpp"

#include "attn/error.hpp"
#include "tokenize/unicode.hpp"

namespace attn::tokenize {

TextPattern TextPattern::from_json(const json::Value& pattern) {
    TextPattern p;
    if (const json::Value* s = pattern.find("String")) {
        p.literal_ = unicode::decode_utf8(s->as_string());
        if (p.literal_.empty()) throw InputError("tokenizer.json: an empty String pattern");
    } else if (const json::Value* r = pattern.find("Regex")) {
        p.regex_.emplace(unicode::decode_utf8(r->as_string()), Regex::Spaces::unicode);
    } else {
        throw InputError("tokenizer.json: a pattern needs a \"String\" or a \"Regex\"");
    }
    return p;
}

TextPattern TextPattern::literal(std::u32string text) {
    TextPattern p;
    p.literal_ = std::move(text);
    return p;
}

TextPattern TextPattern::regex(std::u32string_view pattern) {
    TextPattern p;
    p.regex_.emplace(pattern, Regex::Spaces::unicode);
    return p;
}

std::vector<std::pair<std::size_t, std::size_t>> TextPattern::find_all(const std::u32string& text) const {
    if (regex_) return regex_->find_all(text);
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t at = text.find(literal_); at != std::u32string::npos; at = text.find(literal_, at + literal_.size()))
        out.emplace_back(at, at + literal_.size());
    return out;
}

std::u32string TextPattern::replace_all(const std::u32string& text, const std::u32string& content, std::size_t limit,
                                        const std::string& what) const {
    const auto matches = find_all(text);
    std::size_t length = text.size();  // measured first: no allocation past the limit
    for (auto [b, e] : matches) {
        length -= e - b;
        if (content.size() > limit || length > limit - content.size())
            throw InputError("tokenizer.json: " + what + " makes the text longer than " + std::to_string(limit) +
                             " characters");
        length += content.size();
    }
    std::u32string out;
    out.reserve(length);
    std::size_t prev = 0;
    for (auto [b, e] : matches) {
        out.append(text, prev, b - prev);
        out += content;
        prev = e;
    }
    out.append(text, prev, std::u32string::npos);
    return out;
}

}  // namespace attn::tokenize
