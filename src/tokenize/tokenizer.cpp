// The tokenizer pipeline (attn/tokenizer.hpp): added tokens, normalizer, pre-tokenizer,
// model, post-processor, in the order and with the rules of @huggingface/tokenizers.
#include "attn/tokenizer.hpp"

#include <unordered_map>

#include "attn/error.hpp"
#include "read/json.hpp"
#include "tokenize/added_tokens.hpp"
#include "tokenize/legacy_files.hpp"
#include "tokenize/models.hpp"
#include "tokenize/normalizers.hpp"
#include "tokenize/post_processors.hpp"
#include "tokenize/pre_tokenizers.hpp"
#include "tokenize/regex.hpp"
#include "tokenize/unicode.hpp"

namespace attn {

using namespace attn::tokenize;

struct Tokenizer::Impl {
    std::unique_ptr<Normalizer> normalizer;
    std::unique_ptr<PreTokenizer> pre_tokenizer;
    std::unique_ptr<Model> model;
    std::unique_ptr<PostProcessor> post_processor;
    std::vector<AddedToken> added;
    std::vector<int> unnormalized, normalized;          // indexes into `added` per splitter
    std::unordered_map<std::string, int> added_by_text;  // content, and normalized content
    std::unordered_map<std::int64_t, std::string> by_id;

    std::optional<std::int64_t> id_of(const std::string& token) const {
        if (auto it = added_by_text.find(token); it != added_by_text.end()) return added[std::size_t(it->second)].id;
        if (auto it = model->vocab.find(token); it != model->vocab.end()) return it->second;
        return std::nullopt;
    }

    // The model's tokens of one text section, fused unknowns as fuse_unk asks.
    void model_tokens(const std::u32string& text, std::size_t section, int seq, std::vector<Token>& out) const {
        std::vector<std::u32string> pieces{text};
        if (pre_tokenizer) pieces = pre_tokenizer->apply(pieces, section);
        std::vector<std::string> toks;
        for (const auto& p : pieces) model->tokenize(p, toks);
        const bool fuse = model->fuse_unk && model->unk_token;
        bool last_unk = false;
        for (auto& t : toks) {
            const bool unk = fuse && (!id_of(t) || t == *model->unk_token);
            if (unk && last_unk) continue;
            last_unk = unk;
            Token tok;
            tok.text = std::move(t);
            tok.sequence = seq;
            out.push_back(std::move(tok));
        }
    }

    void added_token(int index, int seq, std::vector<Token>& out) const {
        const AddedToken& a = added[std::size_t(index)];
        Token t;
        t.text = unicode::encode_utf8(a.content);
        t.id = a.id;
        t.sequence = seq;
        // special_tokens_mask marks the tokens the post-processor adds: a special token found in
        // the text is 0, as Hugging Face's Encoding has it (tokenizers#722).
        t.special = false;
        out.push_back(std::move(t));
    }

    std::vector<Token> encode_text(std::string_view text, int seq) const {
        std::vector<Token> out;
        const std::vector<Section> sections = split_added(unicode::decode_utf8(text), added, unnormalized);
        for (std::size_t s = 0; s < sections.size(); ++s) {
            const Section& sec = sections[s];
            if (sec.text.empty()) continue;
            if (sec.token >= 0) { added_token(sec.token, seq, out); continue; }
            if (auto it = added_by_text.find(unicode::encode_utf8(sec.text)); it != added_by_text.end()) {
                added_token(it->second, seq, out);
                continue;
            }
            const std::u32string norm = normalizer ? normalizer->apply(sec.text) : sec.text;
            for (const Section& sub : split_added(norm, added, normalized)) {
                if (sub.text.empty()) continue;
                if (sub.token >= 0) { added_token(sub.token, seq, out); continue; }
                if (auto it = added_by_text.find(unicode::encode_utf8(sub.text)); it != added_by_text.end()) {
                    added_token(it->second, seq, out);
                    continue;
                }
                model_tokens(sub.text, s, seq, out);
            }
        }
        return out;
    }
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_json(std::string_view text) {
    const json::Value doc = json::parse_json(text);
    if (!doc.is_object()) throw InputError("tokenizer.json: the document is not an object");
    auto impl = std::make_unique<Impl>();
    const json::Value null;
    auto member = [&](const char* key) -> const json::Value& {
        const json::Value* v = doc.find(key);
        return v ? *v : null;
    };
    impl->normalizer = make_normalizer(member("normalizer"));
    impl->pre_tokenizer = make_pre_tokenizer(member("pre_tokenizer"));
    impl->model = make_model(doc.at("model"));
    impl->post_processor = make_post_processor(member("post_processor"));
    for (const auto& [token, id] : impl->model->vocab) impl->by_id.emplace(id, token);
    if (const json::Value& list = member("added_tokens"); !list.is_null()) {
        for (const json::Value& v : list.as_array()) {
            AddedToken a;
            a.content = unicode::decode_utf8(v.at("content").as_string());
            if (a.content.empty()) throw InputError("tokenizer.json: an added token with empty content");
            a.id = token_id(v.at("id"), v.at("content").as_string());
            a.special = v.bool_or("special", false);
            a.lstrip = v.bool_or("lstrip", false);
            a.rstrip = v.bool_or("rstrip", false);
            a.single_word = v.bool_or("single_word", false);
            a.normalized = v.bool_or("normalized", !a.special);
            const int index = int(impl->added.size());
            const std::string content = unicode::encode_utf8(a.content);
            impl->added_by_text[content] = index;
            impl->by_id[a.id] = content;
            // Not into the model's vocabulary: Hugging Face's AddedVocabulary lies beside the
            // model, whose pieces never include an added token (a single_word one left inside
            // a word is tokenized by the model's own vocabulary).
            if (a.normalized && impl->normalizer) {
                AddedToken n = a;
                n.content = impl->normalizer->apply(a.content);
                impl->added_by_text[unicode::encode_utf8(n.content)] = index;
                impl->added.push_back(a);
                // The normalized splitter matches the normalized content but emits the token.
                impl->normalized.push_back(int(impl->added.size()));
                impl->added.push_back(n);
                impl->added_by_text[unicode::encode_utf8(n.content)] = int(impl->added.size()) - 1;
            } else {
                impl->unnormalized.push_back(index);
                impl->added.push_back(a);
            }
        }
    }
    return Tokenizer(std::move(impl));
}

Encoding Tokenizer::encode(std::string_view text, std::optional<std::string_view> pair, bool add_special_tokens) const {
    // Every regex of the normalizers and pre-tokenizers, on every piece, shares one step budget
    // sized by the characters given (regex.hpp's max_text_steps).
    const auto chars = [](std::string_view s) {
        std::size_t n = 0;
        for (unsigned char b : s) n += (b & 0xC0) != 0x80;
        return n;
    };
    // As transformers' tokenizer(text, text_pair): an empty text_pair is none ("if text_pair").
    if (pair && pair->empty()) pair.reset();
    const Regex::TextBudget budget(chars(text) + (pair ? chars(*pair) : 0));
    std::vector<Token> a = impl_->encode_text(text, 0);
    std::optional<std::vector<Token>> b;
    if (pair) b = impl_->encode_text(*pair, 1);
    const std::vector<Token> all = impl_->post_processor->process(std::move(a), std::move(b), add_special_tokens);
    Encoding e;
    for (const Token& t : all) {
        std::optional<std::int64_t> id = t.id ? t.id : impl_->id_of(t.text);
        if (!id && impl_->model->unk_token) id = impl_->id_of(*impl_->model->unk_token);
        if (!id) throw InputError("tokenizer: token \"" + t.text + "\" has no id and the model has no unknown token");
        e.ids.push_back(*id);
        e.tokens.push_back(t.text);
        e.type_ids.push_back(t.type_id);
        e.sequence.push_back(t.sequence);
        e.special.push_back(t.special);
    }
    return e;
}

std::size_t Tokenizer::vocab_size() const { return impl_->by_id.size(); }

std::optional<std::int64_t> Tokenizer::token_to_id(std::string_view token) const {
    return impl_->id_of(std::string(token));
}

std::optional<std::string> Tokenizer::id_to_token(std::int64_t id) const {
    auto it = impl_->by_id.find(id);
    if (it == impl_->by_id.end()) return std::nullopt;
    return it->second;
}

Tokenizer Tokenizer::from_bert_vocab(const std::string& path, bool lowercase) {
    return from_json(bert_vocab_json(path, lowercase));
}

Tokenizer Tokenizer::from_gpt2_files(const std::string& vocab, const std::string& merges) {
    return from_json(gpt2_files_json(vocab, merges));
}

Tokenizer Tokenizer::load(const std::string& path) {
    const TokenizerFiles f = find_tokenizer_files(path);
    if (!f.vocab_txt.empty() && f.tokenizer_json.empty()) return from_bert_vocab(f.vocab_txt, f.lowercase);
    // The messages of from_json name "tokenizer.json" (or the json reader, "json: ..."); they
    // are given the files' own paths here (a vocab.json + merges.txt pair is read as one json).
    const std::string files = !f.tokenizer_json.empty() ? f.tokenizer_json : f.vocab_json + " and " + f.merges_txt;
    try {
        if (!f.tokenizer_json.empty()) return from_json(read_whole_file(f.tokenizer_json));
        return from_gpt2_files(f.vocab_json, f.merges_txt);
    } catch (const InputError& e) {
        std::string_view m = e.what();
        for (std::string_view own : {"tokenizer.json: ", "json: "})
            if (m.starts_with(own)) m.remove_prefix(own.size());
        if (m.starts_with(files)) throw;  // named already
        throw InputError(files + ": " + std::string(m));
    }
}

}  // namespace attn
