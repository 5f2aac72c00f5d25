// Tokenizers without dependencies: a Hugging Face model folder's tokenizer.json (the
// `tokenizers` library's format), or its legacy files (BERT's vocab.txt, GPT-2's vocab.json
// + merges.txt), turned into token ids the way the model's own tokenizer does.
//
// Supported in tokenizer.json:
//   normalizers      BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Replace,
//                    Prepend, Strip, Sequence
//   pre-tokenizers   BertPreTokenizer, ByteLevel (GPT-2's regex), Metaspace, Split (string or
//                    regex patterns), Digits, WhitespaceSplit, Whitespace, Punctuation,
//                    CharDelimiterSplit, FixedLength, Replace, Sequence
//   models           WordPiece, BPE (byte_fallback, fuse_unk, ignore_merges)
//   post-processors  TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence
//   added tokens     special or not, lstrip/rstrip, normalized (single_word is not applied)
// Anything else is refused with an InputError naming the component, never guessed. The
// tests hold it to @huggingface/tokenizers (the JavaScript port; data/tokenize/PROVENANCE.md).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// One encoded text (or text pair), one entry per token in every vector.
struct Encoding {
    std::vector<std::int64_t> ids;
    std::vector<std::string> tokens;    // the vocabulary's strings ("##ing", "Ġthe", "▁the")
    std::vector<std::int64_t> type_ids; // token type ids (BERT's segment ids)
    // Which input a token came from: 0 the text, 1 the pair, -1 a token the post-processor
    // added ([CLS], [SEP], <s>).
    std::vector<int> sequence;
    std::vector<bool> special;          // a special token (added or matched as special)
};

class Tokenizer {
public:
    // PATH is a model folder (tokenizer.json, else vocab.txt, else vocab.json + merges.txt)
    // or a tokenizer.json file. Throws InputError for unreadable or unsupported files.
    static Tokenizer load(const std::string& path);
    // From the text of a tokenizer.json.
    static Tokenizer from_json(std::string_view json_text);
    // Legacy files: BERT's vocab.txt (BertWordPiece: lower-casing `lowercase`), GPT-2's
    // vocab.json + merges.txt (byte-level BPE, no special tokens added).
    static Tokenizer from_bert_vocab(const std::string& vocab_txt_path, bool lowercase = true);
    static Tokenizer from_gpt2_files(const std::string& vocab_json_path, const std::string& merges_path);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    // Encodes `text` (and `pair`), adding the post-processor's special tokens when asked,
    // as `tokenizer.encode(text, pair, add_special_tokens)` in `tokenizers`.
    Encoding encode(std::string_view text, std::optional<std::string_view> pair = std::nullopt,
                    bool add_special_tokens = true) const;

    std::size_t vocab_size() const;  // the model's vocabulary and the added tokens
    std::optional<std::int64_t> token_to_id(std::string_view token) const;
    std::optional<std::string> id_to_token(std::int64_t id) const;

    struct Impl;

private:
    explicit Tokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace attn
