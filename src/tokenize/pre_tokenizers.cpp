// The pre-tokenizers: BertPreTokenizer, ByteLevel (GPT-2's regex), Metaspace, Split, Digits,
// WhitespaceSplit, Whitespace, Punctuation, CharDelimiterSplit, FixedLength, Replace, Sequence.
#include "tokenize/pre_tokenizers.hpp"

#include "attn/error.hpp"
#include "tokenize/byte_level.hpp"
#include "tokenize/regex.hpp"
#include "tokenize/text_pattern.hpp"
#include "tokenize/unicode.hpp"

namespace attn::tokenize {

namespace {

namespace u = attn::unicode;

void push_matches(const Regex& re, const std::u32string& s, std::vector<std::u32string>& out) {
    for (auto [b, e] : re.find_all(s))
        if (e > b) out.push_back(s.substr(b, e - b));
}

// Punctuation as BERT counts it: category P and every ASCII symbol and punctuation mark.
const char32_t* const punctuation = U"\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";

class Bert : public PreTokenizer {
public:
    Bert() : re_(std::u32string(U"[^\\s") + punctuation + U"]+|[" + punctuation + U"]", Regex::Spaces::javascript) {}
    void split(const std::u32string& s, std::size_t, std::vector<std::u32string>& out) const override {
        std::size_t b = 0, e = s.size();
        while (b < e && u::is_js_space(s[b])) ++b;
        while (e > b && u::is_js_space(s[e - 1])) --e;
        push_matches(re_, s.substr(b, e - b), out);
    }

private:
    Regex re_;
};

// GPT-2's pattern, read with JavaScript's \s as the oracle's literal is.
const char32_t* const gpt2_pattern =
    U"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

class ByteLevel : public PreTokenizer {
public:
    explicit ByteLevel(const json::Value& c)
        : prefix_space_(c.bool_or("add_prefix_space", false)), use_regex_(c.bool_or("use_regex", true)),
          re_(gpt2_pattern, Regex::Spaces::javascript) {}
    void split(const std::u32string& piece, std::size_t, std::vector<std::u32string>& out) const override {
        std::u32string s = piece;
        if (prefix_space_ && (s.empty() || s[0] != ' ')) s.insert(s.begin(), ' ');
        std::vector<std::u32string> parts;
        if (use_regex_) push_matches(re_, s, parts);
        else parts.push_back(s);
        for (const auto& p : parts) out.push_back(to_byte_level(p));
    }

private:
    bool prefix_space_, use_regex_;
    Regex re_;
};

class Metaspace : public PreTokenizer {
public:
    explicit Metaspace(const json::Value& c) {
        const std::u32string r = u::decode_utf8(c.string_or("replacement", "\xE2\x96\x81"));  // ▁
        if (r.size() != 1) throw InputError("tokenizer.json: Metaspace's replacement must be one character");
        replacement_ = r[0];
        if (const json::Value* p = c.find("prepend_scheme"); p && !p->is_null()) {
            scheme_ = p->as_string();
            if (scheme_ != "always" && scheme_ != "first" && scheme_ != "never")
                throw InputError("tokenizer.json: Metaspace prepend_scheme \"" + scheme_ +
                                 "\" (known: always, first, never)");
        } else {
            scheme_ = c.bool_or("add_prefix_space", true) ? "always" : "never";  // the older field
        }
        split_ = c.bool_or("split", true);
    }
    void split(const std::u32string& piece, std::size_t section, std::vector<std::u32string>& out) const override {
        std::u32string s = piece;
        for (char32_t& ch : s)
            if (ch == ' ') ch = replacement_;
        if ((s.empty() || s[0] != replacement_) && (scheme_ == "always" || (scheme_ == "first" && section == 0)))
            s.insert(s.begin(), replacement_);
        if (!split_) {
            out.push_back(std::move(s));
            return;
        }
        // Split before every replacement character, which starts its piece (MergedWithNext).
        std::size_t start = 0;
        for (std::size_t i = 1; i <= s.size(); ++i)
            if (i == s.size() || s[i] == replacement_) {
                if (i > start) out.push_back(s.substr(start, i - start));
                start = i;
            }
    }

private:
    char32_t replacement_;
    std::string scheme_;
    bool split_;
};

class Split : public PreTokenizer {
public:
    explicit Split(const json::Value& c)
        : Split(TextPattern::from_json(c.at("pattern")), c.string_or("behavior", "Isolated"), c.bool_or("invert", false)) {}
    Split(TextPattern pattern, std::string behavior, bool invert)
        : pattern_(std::move(pattern)), behavior_(std::move(behavior)), invert_(invert) {
        if (behavior_ != "Isolated" && behavior_ != "Removed" && behavior_ != "MergedWithPrevious" &&
            behavior_ != "MergedWithNext" && behavior_ != "Contiguous")
            throw InputError("tokenizer.json: split behavior \"" + behavior_ +
                             "\" (known: Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous)");
    }
    void split(const std::u32string& s, std::size_t, std::vector<std::u32string>& out) const override {
        // The text as alternating runs, each flagged as a delimiter (a match, or with
        // invert a non-match) or not.
        struct Run { std::size_t b, e; bool delim; };
        std::vector<Run> runs;
        std::size_t prev = 0;
        for (auto [b, e] : pattern_.find_all(s)) {
            if (b > prev) runs.push_back({prev, b, invert_});
            if (e > b) runs.push_back({b, e, !invert_});
            prev = e;
        }
        if (prev < s.size()) runs.push_back({prev, s.size(), invert_});
        std::vector<std::pair<std::size_t, std::size_t>> pieces;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const Run& r = runs[i];
            // Contiguous: neighbours alike are one piece (delimiters side by side; with invert,
            // the matches around an empty stretch too), as Rust's fold over the flags joins them.
            if (behavior_ == "Contiguous") {
                if (i > 0 && runs[i - 1].delim == r.delim) pieces.back().second = r.e;
                else pieces.emplace_back(r.b, r.e);
                continue;
            }
            if (!r.delim) { pieces.emplace_back(r.b, r.e); continue; }
            if (behavior_ == "Removed") continue;
            if (behavior_ == "Isolated") pieces.emplace_back(r.b, r.e);
            else if (behavior_ == "MergedWithPrevious" && i > 0 && !runs[i - 1].delim)
                pieces.back().second = r.e;
            else if (behavior_ == "MergedWithNext" && i + 1 < runs.size() && !runs[i + 1].delim)
                runs[i + 1].b = r.b;
            else pieces.emplace_back(r.b, r.e);
        }
        for (auto [b, e] : pieces)
            if (e > b) out.push_back(s.substr(b, e - b));
    }

private:
    TextPattern pattern_;
    std::string behavior_;
    bool invert_;
};

// Runs of ASCII digits apart from the rest (JavaScript's \d, the oracle's), or each digit
// alone with individual_digits.
class Digits : public PreTokenizer {
public:
    explicit Digits(const json::Value& c) : individual_(c.bool_or("individual_digits", false)) {}
    void split(const std::u32string& s, std::size_t, std::vector<std::u32string>& out) const override {
        auto digit = [](char32_t c) { return c >= '0' && c <= '9'; };
        std::size_t i = 0;
        while (i < s.size()) {
            std::size_t j = i + 1;
            if (digit(s[i])) {
                if (!individual_) while (j < s.size() && digit(s[j])) ++j;
            } else {
                while (j < s.size() && !digit(s[j])) ++j;
            }
            out.push_back(s.substr(i, j - i));
            i = j;
        }
    }

private:
    bool individual_;
};

class WhitespaceSplit : public PreTokenizer {
public:
    void split(const std::u32string& s, std::size_t, std::vector<std::u32string>& out) const override {
        std::size_t i = 0;
        while (i < s.size()) {
            while (i < s.size() && u::is_js_space(s[i])) ++i;
            std::size_t j = i;
            while (j < s.size() && !u::is_js_space(s[j])) ++j;
            if (j > i) out.push_back(s.substr(i, j - i));
            i = j;
        }
    }
};

// Whitespace: runs of word characters, and runs of what is neither word nor space, with
// Unicode's \w and \s as the Rust `tokenizers` has them (the oracle's are ASCII).
class Whitespace : public PreTokenizer {
public:
    Whitespace() : re_(U"\\w+|[^\\w\\s]+", Regex::Spaces::rust) {}
    void split(const std::u32string& s, std::size_t, std::vector<std::u32string>& out) const override {
        push_matches(re_, s, out);
    }

private:
    Regex re_;
};

// FixedLength: pieces of `length` characters (the last one shorter).
class FixedLength : public PreTokenizer {
public:
    explicit FixedLength(const json::Value& c) : length_(std::size_t(c.int_or("length", 5))) {
        if (length_ == 0) throw InputError("tokenizer.json: FixedLength's length must be at least 1");
    }
    void split(const std::u32string& s, std::size_t, std::vector<std::u32string>& out) const override {
        for (std::size_t i = 0; i < s.size(); i += length_) out.push_back(s.substr(i, length_));
    }

private:
    std::size_t length_;
};

// Replace as a pre-tokenizer: each piece with the pattern's matches replaced.
class ReplacePieces : public PreTokenizer {
public:
    explicit ReplacePieces(const json::Value& c)
        : pattern_(TextPattern::from_json(c.at("pattern"))), content_(u::decode_utf8(c.string_or("content", ""))) {}
    void split(const std::u32string& s, std::size_t, std::vector<std::u32string>& out) const override {
        out.push_back(pattern_.replace_all(s, content_, TextPattern::max_grown_length(s.size()),
                                           "the pre-tokenizer Replace"));
    }

private:
    TextPattern pattern_;
    std::u32string content_;
};

class PreTokenizerSequence : public PreTokenizer {
public:
    explicit PreTokenizerSequence(const json::Value& c) {
        for (const json::Value& p : c.at("pretokenizers").as_array())
            if (auto q = make_pre_tokenizer(p)) steps_.push_back(std::move(q));
    }
    void split(const std::u32string& s, std::size_t section, std::vector<std::u32string>& out) const override {
        std::vector<std::u32string> pieces{s};
        const std::size_t limit = TextPattern::max_grown_length(s.size());
        for (const auto& p : steps_) {
            pieces = p->apply(pieces, section);
            std::size_t length = 0;
            for (const auto& piece : pieces) length += piece.size();
            if (length > limit)
                throw InputError("tokenizer.json: the pre-tokenizer Sequence makes the text longer than " +
                                 std::to_string(limit) + " characters");
        }
        for (auto& p : pieces) out.push_back(std::move(p));
    }

private:
    std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const json::Value& c) {
    if (c.is_null()) return nullptr;
    const std::string type = c.string_or("type", "");
    if (type == "BertPreTokenizer") return std::make_unique<Bert>();
    if (type == "ByteLevel") return std::make_unique<ByteLevel>(c);
    if (type == "Metaspace") return std::make_unique<Metaspace>(c);
    if (type == "Split") return std::make_unique<Split>(c);
    if (type == "Digits") return std::make_unique<Digits>(c);
    if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
    if (type == "Sequence") return std::make_unique<PreTokenizerSequence>(c);
    if (type == "Whitespace") return std::make_unique<Whitespace>();
    if (type == "Punctuation")  // BERT's punctuation, each character its own piece by default
        return std::make_unique<Split>(TextPattern::regex(std::u32string(U"[") + punctuation + U"]"),
                                       c.string_or("behavior", "Isolated"), false);
    if (type == "CharDelimiterSplit") {
        const std::u32string d = u::decode_utf8(c.at("delimiter").as_string());
        if (d.size() != 1) throw InputError("tokenizer.json: CharDelimiterSplit's delimiter must be one character");
        return std::make_unique<Split>(TextPattern::literal(d), "Removed", false);
    }
    if (type == "FixedLength") return std::make_unique<FixedLength>(c);
    if (type == "Replace") return std::make_unique<ReplacePieces>(c);
    throw InputError("tokenizer.json: unsupported pre-tokenizer \"" + type +
                     "\" (known: BertPreTokenizer, ByteLevel, Metaspace, Split, Digits, WhitespaceSplit, Whitespace, "
                     "Punctuation, CharDelimiterSplit, FixedLength, Replace, Sequence)");
}

}  // namespace attn::tokenize
