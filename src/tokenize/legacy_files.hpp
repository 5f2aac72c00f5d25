// Internal to src/tokenize: where a model folder's tokenizer files are, and the legacy files
// (BERT's vocab.txt, GPT-2's vocab.json + merges.txt) written out as the tokenizer.json that
// `tokenizers` converts them to, so that one pipeline reads them all.
#pragma once
#include <string>

namespace attn::tokenize {

struct TokenizerFiles {
    std::string tokenizer_json;           // set, or
    std::string vocab_txt;                // set (BERT), or
    std::string vocab_json, merges_txt;   // both set (GPT-2)
    bool lowercase = true;                // tokenizer_config.json's do_lower_case (BERT)
};

// PATH is a tokenizer.json, a vocab.txt, or a folder holding tokenizer.json, vocab.txt, or
// vocab.json + merges.txt (first found wins). InputError naming what was looked for otherwise.
TokenizerFiles find_tokenizer_files(const std::string& path);

std::string read_whole_file(const std::string& path);

// BertWordPiece: BertNormalizer (lowercase), BertPreTokenizer, WordPiece ("##", [UNK], 100
// characters), BertProcessing with [CLS] and [SEP]; the special tokens the vocabulary holds.
std::string bert_vocab_json(const std::string& vocab_txt_path, bool lowercase);
// GPT-2: ByteLevel pre-tokenizer (no prefix space), BPE, ByteLevel post-processor;
// <|endoftext|> as a special token when the vocabulary holds it.
std::string gpt2_files_json(const std::string& vocab_json_path, const std::string& merges_path);

}  // namespace attn::tokenize
