// The normalizers: BertNormalizer, NFC/NFD/NFKC/NFKD, Lowercase, StripAccents, Replace
// (string patterns), Prepend, Strip, Sequence.
#include "tokenize/normalizers.hpp"

#include <vector>

#include "attn/error.hpp"
#include "tokenize/text_pattern.hpp"
#include "tokenize/unicode.hpp"

namespace attn::tokenize {

namespace {

namespace u = attn::unicode;

// BERT's CJK blocks. As in the oracle, which walks UTF-16 code units, only BMP characters
// are padded: the supplementary-plane blocks are listed by BERT but never match there.
bool is_chinese_char(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0xF900 && c <= 0xFAFF);
}

bool is_control(char32_t c) {
    if (c == '\t' || c == '\n' || c == '\r') return false;
    const u::Category k = u::category(c);
    return k == u::Category::Cc || k == u::Category::Cf || k == u::Category::Co || k == u::Category::Cs;
}

std::u32string remove_if_category(const std::u32string& s, bool (*drop)(char32_t)) {
    std::u32string out;
    out.reserve(s.size());
    for (char32_t c : s)
        if (!drop(c)) out += c;
    return out;
}

[[noreturn]] void too_long(const std::string& what, std::size_t limit) {
    throw InputError("tokenizer.json: " + what + " makes the text longer than " + std::to_string(limit) + " characters");
}

bool is_nonspacing_mark(char32_t c) { return u::category(c) == u::Category::Mn; }
bool is_any_mark(char32_t c) { return u::is_mark(c); }

class BertNormalizer : public Normalizer {
public:
    explicit BertNormalizer(const json::Value& c)
        : clean_text_(c.bool_or("clean_text", true)),
          chinese_(c.bool_or("handle_chinese_chars", true)),
          lowercase_(c.bool_or("lowercase", true)) {
        const json::Value* s = c.find("strip_accents");
        strip_accents_ = (s && !s->is_null()) ? s->as_bool() : lowercase_;  // null follows lowercase
    }
    std::u32string apply(std::u32string s, std::size_t) const override {
        if (clean_text_) {
            std::u32string out;
            for (char32_t c : s) {
                if (c == 0 || c == 0xFFFD || is_control(c)) continue;
                out += u::is_js_space(c) ? char32_t(' ') : c;
            }
            s = std::move(out);
        }
        if (chinese_) {
            std::u32string out;
            for (char32_t c : s) {
                if (is_chinese_char(c)) { out += ' '; out += c; out += ' '; }
                else out += c;
            }
            s = std::move(out);
        }
        if (lowercase_) s = u::to_lower(s);
        if (strip_accents_) s = remove_if_category(u::normalize(s, u::Form::nfd), is_nonspacing_mark);
        return s;
    }

private:
    bool clean_text_, chinese_, lowercase_, strip_accents_;
};

class Unicode : public Normalizer {
public:
    explicit Unicode(u::Form f) : form_(f) {}
    std::u32string apply(std::u32string s, std::size_t) const override { return u::normalize(s, form_); }

private:
    u::Form form_;
};

class Lowercase : public Normalizer {
public:
    std::u32string apply(std::u32string s, std::size_t) const override { return u::to_lower(s); }
};

// Removes every mark (category M) as the oracle does: no decomposition first, so it is
// usually paired with NFD in a Sequence.
class StripAccents : public Normalizer {
public:
    std::u32string apply(std::u32string s, std::size_t) const override { return remove_if_category(s, is_any_mark); }
};

class Replace : public Normalizer {
public:
    explicit Replace(const json::Value& c)
        : pattern_(TextPattern::from_json(c.at("pattern"))),
          content_(u::decode_utf8(c.string_or("content", ""))) {}
    std::u32string apply(std::u32string s, std::size_t limit) const override {
        return pattern_.replace_all(s, content_, limit, "the normalizer Replace");
    }

private:
    TextPattern pattern_;
    std::u32string content_;
};

class Prepend : public Normalizer {
public:
    explicit Prepend(const json::Value& c) : prefix_(u::decode_utf8(c.at("prepend").as_string())) {}
    std::u32string apply(std::u32string s, std::size_t limit) const override {
        if (prefix_.size() + s.size() > limit) too_long("the normalizer Prepend", limit);
        return prefix_ + s;
    }

private:
    std::u32string prefix_;
};

class Strip : public Normalizer {
public:
    explicit Strip(const json::Value& c) : left_(c.bool_or("strip_left", false)), right_(c.bool_or("strip_right", false)) {}
    std::u32string apply(std::u32string s, std::size_t) const override {
        std::size_t b = 0, e = s.size();
        if (left_) while (b < e && u::is_js_space(s[b])) ++b;
        if (right_) while (e > b && u::is_js_space(s[e - 1])) --e;
        return s.substr(b, e - b);
    }

private:
    bool left_, right_;
};

class NormalizerSequence : public Normalizer {
public:
    explicit NormalizerSequence(const json::Value& c) {
        for (const json::Value& n : c.at("normalizers").as_array())
            if (auto p = make_normalizer(n)) steps_.push_back(std::move(p));
    }
    std::u32string apply(std::u32string s, std::size_t limit) const override {
        for (const auto& n : steps_)
            if ((s = n->apply(std::move(s), limit)).size() > limit) too_long("the normalizer Sequence", limit);
        return s;
    }

private:
    std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const json::Value& c) {
    if (c.is_null()) return nullptr;
    const std::string type = c.string_or("type", "");
    if (type == "BertNormalizer") return std::make_unique<BertNormalizer>(c);
    if (type == "NFC") return std::make_unique<Unicode>(u::Form::nfc);
    if (type == "NFD") return std::make_unique<Unicode>(u::Form::nfd);
    if (type == "NFKC") return std::make_unique<Unicode>(u::Form::nfkc);
    if (type == "NFKD") return std::make_unique<Unicode>(u::Form::nfkd);
    if (type == "Lowercase") return std::make_unique<Lowercase>();
    if (type == "StripAccents") return std::make_unique<StripAccents>();
    if (type == "Replace") return std::make_unique<Replace>(c);
    if (type == "Prepend") return std::make_unique<Prepend>(c);
    if (type == "Strip") return std::make_unique<Strip>(c);
    if (type == "Sequence") return std::make_unique<NormalizerSequence>(c);
    throw InputError("tokenizer.json: unsupported normalizer \"" + type +
                     "\" (known: BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Replace, "
                     "Prepend, Strip, Sequence)");
}

}  // namespace attn::tokenize
