// WordPiece: the longest vocabulary prefix first, then "##"-prefixed continuations; a word
// with an untokenizable rest, or longer than max_input_chars_per_word, is the unknown token.
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
        max_chars_ = static_cast<std::size_t>(c.int_or("max_input_chars_per_word", 100));
    }

    void tokenize(const std::u32string& word, std::vector<std::string>& out) const override {
        if (word.size() > max_chars_) {
            out.push_back(*unk_token);
            return;
        }
        std::vector<std::string> pieces;
        std::size_t start = 0;
        while (start < word.size()) {
            std::size_t end = word.size();
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
};

}  // namespace

std::unique_ptr<Model> make_wordpiece(const json::Value& c) { return std::make_unique<WordPiece>(c); }

}  // namespace attn::tokenize
