#include "tokenize/post_processors.hpp"

#include "attn/error.hpp"

namespace attn::tokenize {

namespace {

void append(std::vector<Token>& out, std::vector<Token>& part, std::int64_t type_id) {
    for (Token& t : part) {
        t.type_id = type_id;
        out.push_back(std::move(t));
    }
}

Token special(std::string text, std::optional<std::int64_t> id, std::int64_t type_id) {
    Token t;
    t.text = std::move(text);
    t.id = id;
    t.type_id = type_id;
    t.sequence = -1;
    t.special = true;
    return t;
}

// Joins without special tokens: also ByteLevel's post-processor (it only trims offsets).
class Join : public PostProcessor {
public:
    std::vector<Token> process(std::vector<Token> a, std::optional<std::vector<Token>> b, bool) const override {
        std::vector<Token> out;
        append(out, a, 0);
        if (b) append(out, *b, 1);
        return out;
    }
};

// BertProcessing: [CLS] A [SEP] (type 0) B [SEP] (type 1). RobertaProcessing: <s> A </s>
// (type 0) </s> B </s> (type 1, as the oracle gives).
class ClsSep : public PostProcessor {
public:
    ClsSep(const json::Value& c, bool roberta) : roberta_(roberta) {
        auto pair = [](const json::Value& v) {
            if (v.size() != 2) throw InputError("tokenizer.json: cls/sep must be [token, id]");
            return std::pair<std::string, std::int64_t>{v.at(0).as_string(), v.at(1).as_int()};
        };
        cls_ = pair(c.at("cls"));
        sep_ = pair(c.at("sep"));
    }
    std::vector<Token> process(std::vector<Token> a, std::optional<std::vector<Token>> b, bool add) const override {
        std::vector<Token> out;
        if (add) out.push_back(special(cls_.first, cls_.second, 0));
        append(out, a, 0);
        if (add) out.push_back(special(sep_.first, sep_.second, 0));
        if (b) {
            if (add && roberta_) out.push_back(special(sep_.first, sep_.second, 1));
            append(out, *b, 1);
            if (add) out.push_back(special(sep_.first, sep_.second, 1));
        }
        return out;
    }

private:
    bool roberta_;
    std::pair<std::string, std::int64_t> cls_, sep_;
};

class Template : public PostProcessor {
public:
    explicit Template(const json::Value& c) {
        single_ = read(c.at("single"));
        pair_ = read(c.at("pair"));
        if (const json::Value* s = c.find("special_tokens"); s && !s->is_null()) {
            for (std::size_t i = 0; i < s->size(); ++i) {
                const json::Value& t = s->values()[i];
                std::vector<std::pair<std::string, std::int64_t>> toks;
                const json::Value& ids = t.at("ids");
                const json::Value& names = t.at("tokens");
                if (ids.size() != names.size())
                    throw InputError("tokenizer.json: special token \"" + s->keys()[i] + "\" has unequal ids and tokens");
                for (std::size_t k = 0; k < ids.size(); ++k) toks.emplace_back(names.at(k).as_string(), ids.at(k).as_int());
                specials_.emplace_back(s->keys()[i], std::move(toks));
            }
        }
        // Hugging Face refuses a template whose special token has no entry in special_tokens
        // ("Missing SpecialToken(s) with id(s)") rather than guess its id.
        for (const auto* items : {&single_, &pair_})
            for (const Item& it : *items)
                if (!it.sequence && !find(it.special))
                    throw InputError("tokenizer.json: the template's special token \"" + it.special +
                                     "\" has no entry in \"special_tokens\" (its ids)");
    }
    std::vector<Token> process(std::vector<Token> a, std::optional<std::vector<Token>> b, bool add) const override {
        std::vector<Token> out;
        for (const Item& it : b ? pair_ : single_) {
            if (it.sequence == 'A') append(out, a, it.type_id);
            else if (it.sequence == 'B') { if (b) append(out, *b, it.type_id); }
            else if (add) {
                for (const auto& [name, id] : *find(it.special)) out.push_back(special(name, id, it.type_id));
            }
        }
        return out;
    }

private:
    struct Item { char sequence = 0; std::string special; std::int64_t type_id = 0; };

    static std::vector<Item> read(const json::Value& list) {
        std::vector<Item> items;
        for (const json::Value& v : list.as_array()) {
            Item it;
            if (const json::Value* s = v.find("SpecialToken")) {
                it.special = s->at("id").as_string();
                it.type_id = s->int_or("type_id", 0);
            } else if (const json::Value* q = v.find("Sequence")) {
                const std::string id = q->at("id").as_string();
                if (id != "A" && id != "B") throw InputError("tokenizer.json: template sequence \"" + id + "\" (known: A, B)");
                it.sequence = id[0];
                it.type_id = q->int_or("type_id", 0);
            } else {
                throw InputError("tokenizer.json: a template item is neither SpecialToken nor Sequence");
            }
            items.push_back(std::move(it));
        }
        return items;
    }

    const std::vector<std::pair<std::string, std::int64_t>>* find(const std::string& name) const {
        for (const auto& [key, toks] : specials_)
            if (key == name) return &toks;
        return nullptr;
    }

    std::vector<Item> single_, pair_;
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::int64_t>>>> specials_;
};

}  // namespace

std::unique_ptr<PostProcessor> make_post_processor(const json::Value& c) {
    if (c.is_null()) return std::make_unique<Join>();
    const std::string type = c.string_or("type", "");
    if (type == "TemplateProcessing") return std::make_unique<Template>(c);
    if (type == "BertProcessing") return std::make_unique<ClsSep>(c, false);
    if (type == "RobertaProcessing") return std::make_unique<ClsSep>(c, true);
    if (type == "ByteLevel") return std::make_unique<Join>();
    if (type == "Sequence") {
        // ByteLevel steps only trim offsets: the one other step decides the tokens.
        std::unique_ptr<PostProcessor> chosen;
        for (const json::Value& p : c.at("processors").as_array()) {
            if (p.string_or("type", "") == "ByteLevel") continue;
            if (chosen) throw InputError("tokenizer.json: a post-processor Sequence with two steps that add tokens");
            chosen = make_post_processor(p);
        }
        return chosen ? std::move(chosen) : std::make_unique<Join>();
    }
    throw InputError("tokenizer.json: unsupported post-processor \"" + type +
                     "\" (known: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence)");
}

}  // namespace attn::tokenize
