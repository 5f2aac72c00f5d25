// WordPiece: the longest vocabulary prefix first, then "##"-prefixed continuations; a word
// with an untokenizable rest, or longer than max_input_chars_per_word, is the unknown token.
#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "tokenize/models.hpp"
#include "tokenize/unicode.hpp"

namespace attn::tokenize {

namespace {

class WordPiece : public Model {
public:
    explicit WordPiece(const json::Value& c) {
        vocab = read_vocab(c.at("vocab"));
        unk_token = c.string_or("unk_token", "[UNK]");
        prefix_ = c.string_or("continuing_subword_prefix", "##");
        const std::int64_t most = c.int_or("max_input_chars_per_word", 100);
        if (most < 0)  // (Hugging Face's is a usize: a negative one does not load)
            throw InputError("tokenizer.json: WordPiece's max_input_chars_per_word is " + std::to_string(most) +
                             ": expected a whole number >= 0");
        max_chars_ = static_cast<std::size_t>(most);
        for (const auto& [token, id] : vocab) {
            std::size_t chars = 0;
            for (unsigned char b : token) chars += (b & 0xC0) != 0x80;
            longest_ = std::max(longest_, chars);
        }
    }

    void tokenize(const std::u32string& word, std::vector<std::string>& out) const override {
        if (word.size() > max_chars_) {
            out.push_back(*unk_token);
            return;
        }
        std::vector<std::string> pieces;
        std::size_t start = 0;
        while (start < word.size()) {
            // No piece is longer than the longest token: its longer prefixes are not looked up (a word
            // of 4,000 letters under a max_input_chars_per_word of 10^9 took 9 s, cubic in its length)
            std::size_t end = std::min(word.size(), start + longest_);
            std::string found;
            bool ok = false;
            while (start < end) {
                std::string sub = unicode::encode_utf8(std::u32string_view(word).substr(start, end - start));
                if (start > 0) sub = prefix_ + sub;
                if (vocab.count(sub)) {
                    found = std::move(sub);
                    ok = true;
                    break;
                }
                --end;
            }
            if (!ok) {
                out.push_back(*unk_token);
                return;
            }
            pieces.push_back(std::move(found));
            start = end;
        }
        for (auto& p : pieces) out.push_back(std::move(p));
    }

private:
    std::string prefix_;
    std::size_t max_chars_;
    std::size_t longest_ = 0;  // code points of the vocabulary's longest token
};

}  // namespace

std::unique_ptr<Model> make_wordpiece(const json::Value& c) { return std::make_unique<WordPiece>(c); }

}  // namespace attn::tokenize
