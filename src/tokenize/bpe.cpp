// BPE: a word starts as its characters; the adjacent pair of lowest merge rank (the leftmost
// of equals) is merged until no pair has a rank. Tokens the vocabulary lacks become their
// UTF-8 bytes as <0xXX> tokens with byte_fallback, else the unknown token, else nothing.
#include <cstdio>
#include <queue>

#include "attn/error.hpp"
#include "runtime/utf8.hpp"
#include "tokenize/models.hpp"
#include "tokenize/unicode.hpp"

namespace attn::tokenize {

namespace {

std::string pair_key(const std::string& a, const std::string& b) {
    return std::to_string(a.size()) + ':' + a + b;
}

class Bpe : public Model {
public:
    explicit Bpe(const json::Value& c) {
        vocab = read_vocab(c.at("vocab"));
        if (const json::Value* u = c.find("unk_token"); u && !u->is_null()) unk_token = u->as_string();
        fuse_unk = c.bool_or("fuse_unk", false);
        byte_fallback_ = c.bool_or("byte_fallback", false);
        ignore_merges_ = c.bool_or("ignore_merges", false);
        suffix_ = c.string_or("end_of_word_suffix", "");
        continuing_suffix_ = c.string_or("continuing_subword_suffix", "");
        if (c.contains("continuing_subword_prefix") && !c.at("continuing_subword_prefix").is_null() &&
            !c.at("continuing_subword_prefix").as_string().empty())
            throw InputError("tokenizer.json: BPE's continuing_subword_prefix is not supported");
        // As Hugging Face's tokenizers reads them: "#version" lines skipped (merges.txt's header),
        // a line two tokens between one space, both parts and what they make in the vocabulary
        // (a merge that made an unknown token would drop the text it covers).
        const json::Value& merges = c.at("merges");
        std::size_t rank = 0;
        for (std::size_t i = 0; i < merges.size(); ++i) {
            const json::Value& m = merges.at(i);
            const std::string where = "tokenizer.json: merge " + std::to_string(i);
            std::string a, b;
            if (m.is_array()) {  // ["a", "b"]
                if (m.size() != 2) throw InputError(where + " is not a pair");
                a = m.at(0).as_string();
                b = m.at(1).as_string();
            } else {  // "a b"
                const std::string& s = m.as_string();
                if (s.starts_with("#version")) continue;
                const std::size_t sp = s.find(' ');
                if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
                    throw InputError(where + " \"" + io::printable_utf8(s, 80) + "\" is not two tokens between one space");
                a = s.substr(0, sp);
                b = s.substr(sp + 1);
            }
            for (const std::string& token : {a, b, a + b})
                if (!vocab.count(token))
                    throw InputError(where + " (\"" + io::printable_utf8(a, 80) + "\" + \"" + io::printable_utf8(b, 80) +
                                     "\"): \"" + io::printable_utf8(token, 80) + "\" is not in the vocabulary");
            ranks_.emplace(pair_key(a, b), rank++);  // the first rank of a repeated merge
        }
    }

    void tokenize(const std::u32string& piece, std::vector<std::string>& out) const override {
        if (piece.empty()) return;
        const std::string whole = unicode::encode_utf8(piece);
        if (ignore_merges_ && vocab.count(whole)) {
            out.push_back(whole);
            return;
        }
        std::vector<std::string> word;
        for (char32_t ch : piece) {
            std::string s;
            unicode::append_utf8(s, ch);
            word.push_back(std::move(s));
        }
        if (!suffix_.empty()) word.back() += suffix_;
        merge(word);
        if (!continuing_suffix_.empty())
            for (std::size_t i = 0; i + 1 < word.size(); ++i) word[i] += continuing_suffix_;
        for (std::string& t : word) {
            if (vocab.count(t)) {
                out.push_back(std::move(t));
                continue;
            }
            if (byte_fallback_) {
                std::vector<std::string> bytes;
                bool all = true;
                for (unsigned char b : t) {
                    char name[8];
                    std::snprintf(name, sizeof name, "<0x%02X>", b);
                    if (!vocab.count(name)) { all = false; break; }
                    bytes.emplace_back(name);
                }
                if (all) {
                    for (auto& b : bytes) out.push_back(std::move(b));
                    continue;
                }
            }
            if (unk_token) out.push_back(*unk_token);
        }
    }

private:
    // Merges the pair of lowest rank, the leftmost of equals, until none has a rank: with a
    // priority queue of candidate pairs checked when popped, O(n log n) in the word's length.
    void merge(std::vector<std::string>& word) const {
        const std::size_t n = word.size();
        if (n < 2) return;
        std::vector<std::size_t> next(n), prev(n), version(n, 0);
        std::vector<bool> alive(n, true);
        for (std::size_t i = 0; i < n; ++i) next[i] = i + 1, prev[i] = i - 1;  // prev[0] wraps: unused
        struct Candidate { std::size_t rank, left, right, lv, rv; };
        auto later = [](const Candidate& a, const Candidate& b) {
            return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
        };
        std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> queue(later);
        auto offer = [&](std::size_t l, std::size_t r) {
            auto it = ranks_.find(pair_key(word[l], word[r]));
            if (it != ranks_.end()) queue.push({it->second, l, r, version[l], version[r]});
        };
        for (std::size_t i = 0; i + 1 < n; ++i) offer(i, i + 1);
        while (!queue.empty()) {
            const Candidate c = queue.top();
            queue.pop();
            if (!alive[c.left] || !alive[c.right] || next[c.left] != c.right || version[c.left] != c.lv ||
                version[c.right] != c.rv)
                continue;  // stale: one side has merged since
            word[c.left] += word[c.right];
            alive[c.right] = false;
            ++version[c.left];
            next[c.left] = next[c.right];
            if (next[c.left] < n) prev[next[c.left]] = c.left;
            if (c.left > 0) offer(prev[c.left], c.left);
            if (next[c.left] < n) offer(c.left, next[c.left]);
        }
        std::vector<std::string> out;
        for (std::size_t i = 0; i < n; i = next[i]) out.push_back(std::move(word[i]));
        word = std::move(out);
    }

    std::unordered_map<std::string, std::size_t> ranks_;
    bool byte_fallback_ = false, ignore_merges_ = false;
    std::string suffix_, continuing_suffix_;
};

}  // namespace

std::unique_ptr<Model> make_bpe(const json::Value& c) { return std::make_unique<Bpe>(c); }

}  // namespace attn::tokenize
