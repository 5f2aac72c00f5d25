#include "tokenize/legacy_files.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "read/json.hpp"

namespace attn::tokenize {

namespace {

bool is_dir(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
// Whether p exists (links followed), as a regular file: anything else there (a folder, a FIFO,
// a link to /dev/zero) is an InputError, not a file left out.
bool found_file(const std::string& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return false;
    if (!S_ISREG(st.st_mode)) throw InputError(p + ": not a regular file (a tokenizer's files are read whole)");
    return true;
}
std::string base_name(const std::string& p) {
    const std::size_t slash = p.find_last_of('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += char(c); }
        else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else out += char(c);
    }
    return out + "\"";
}

std::string added_token_json(const std::string& content, std::int64_t id) {
    return "{\"id\":" + std::to_string(id) + ",\"content\":" + quote(content) +
           ",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,\"normalized\":false,\"special\":true}";
}

}  // namespace

std::string read_whole_file(const std::string& path) { return io::read_file(path, io::Content::text); }

TokenizerFiles find_tokenizer_files(const std::string& path) {
    TokenizerFiles f;
    if (!is_dir(path) && found_file(path)) {
        const std::string name = base_name(path);
        if (name.size() >= 4 && name.substr(name.size() - 4) == ".txt") f.vocab_txt = path;
        else f.tokenizer_json = path;
        return f;
    }
    if (!is_dir(path)) throw InputError(path + ": no such file or folder");
    const std::string dir = path.back() == '/' ? path : path + "/";
    if (found_file(dir + "tokenizer.json")) {
        f.tokenizer_json = dir + "tokenizer.json";
    } else if (found_file(dir + "vocab.txt")) {
        f.vocab_txt = dir + "vocab.txt";
        if (const std::string config = dir + "tokenizer_config.json"; found_file(config)) {
            const std::string text = read_whole_file(config);  // its errors name the file
            try {
                f.lowercase = json::parse_json(text).bool_or("do_lower_case", true);
            } catch (const InputError& e) {
                throw InputError(config + ": " + e.what());
            }
        }
    } else if (found_file(dir + "vocab.json") && found_file(dir + "merges.txt")) {
        f.vocab_json = dir + "vocab.json";
        f.merges_txt = dir + "merges.txt";
    } else {
        throw InputError(path + ": no tokenizer.json, vocab.txt, or vocab.json and merges.txt in the folder");
    }
    return f;
}

std::string bert_vocab_json(const std::string& path, bool lowercase) {
    const std::vector<std::string> lines = io::read_labels(path);
    std::string vocab;
    std::string added;
    std::int64_t cls = -1, sep = -1;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& t = lines[i];
        if (!vocab.empty()) vocab += ',';
        vocab += quote(t) + ":" + std::to_string(i);
        if (t == "[PAD]" || t == "[UNK]" || t == "[CLS]" || t == "[SEP]" || t == "[MASK]") {
            if (!added.empty()) added += ',';
            added += added_token_json(t, std::int64_t(i));
        }
        if (t == "[CLS]") cls = std::int64_t(i);
        if (t == "[SEP]") sep = std::int64_t(i);
    }
    if (cls < 0 || sep < 0) throw InputError(path + ": a BERT vocabulary needs [CLS] and [SEP]");
    const std::string lc = lowercase ? "true" : "false";
    return "{\"added_tokens\":[" + added +
           "],\"normalizer\":{\"type\":\"BertNormalizer\",\"clean_text\":true,\"handle_chinese_chars\":true,"
           "\"strip_accents\":null,\"lowercase\":" + lc +
           "},\"pre_tokenizer\":{\"type\":\"BertPreTokenizer\"},"
           "\"post_processor\":{\"type\":\"BertProcessing\",\"sep\":[\"[SEP]\"," + std::to_string(sep) +
           "],\"cls\":[\"[CLS]\"," + std::to_string(cls) +
           "]},\"model\":{\"type\":\"WordPiece\",\"unk_token\":\"[UNK]\",\"continuing_subword_prefix\":\"##\","
           "\"max_input_chars_per_word\":100,\"vocab\":{" + vocab + "}}}";
}

std::string gpt2_files_json(const std::string& vocab_path, const std::string& merges_path) {
    const std::string vocab = read_whole_file(vocab_path);
    const json::Value v = json::parse_json(vocab);  // checked here, to name the file in errors
    if (!v.is_object()) throw InputError(vocab_path + ": expected a JSON object of token ids");
    std::string merges;
    const std::string text = read_whole_file(merges_path);
    std::size_t at = 0;
    while (at < text.size()) {  // every line a merge (the BPE skips "#version" ones)
        std::size_t nl = text.find('\n', at);
        if (nl == std::string::npos) nl = text.size();
        std::string line = text.substr(at, nl - at);
        at = nl + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (!merges.empty()) merges += ',';
        merges += quote(line);
    }
    std::string added;
    if (const json::Value* eot = v.find("<|endoftext|>")) added = added_token_json("<|endoftext|>", eot->as_int());
    return "{\"added_tokens\":[" + added +
           "],\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
           "\"trim_offsets\":true,\"use_regex\":true},\"post_processor\":{\"type\":\"ByteLevel\",\"add_prefix_space\":"
           "true,\"trim_offsets\":false,\"use_regex\":true},\"model\":{\"type\":\"BPE\",\"dropout\":null,"
           "\"unk_token\":null,\"continuing_subword_prefix\":\"\",\"end_of_word_suffix\":\"\",\"fuse_unk\":false,"
           "\"byte_fallback\":false,\"vocab\":" + vocab + ",\"merges\":[" + merges + "]}}";
}

}  // namespace attn::tokenize
