// attn tokenize PATH --text "..." [--text-pair "..."]: a model folder's tokenizer (its
// tokenizer.json, or the legacy vocab.txt, vocab.json + merges.txt) applied to a text.
#include <cstdio>
#include <iostream>
#include <string>

#include "attn/error.hpp"
#include "attn/tokenizer.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "write/output_file.hpp"
#include "cli/option_values.hpp"
#include "read/json.hpp"
#include "tokenize/unicode.hpp"
#include "write/tsv_escape.hpp"
#include "runtime/did_you_mean.hpp"
#include "runtime/utf8.hpp"

namespace attn::cli {

namespace {

// A csv field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// A token as one csv or tsv field. Tab, line feed and carriage return are kept (tokens of
// their own in Llama's and GPT-2's vocabularies): csv quotes a field holding one, tsv writes
// them as \t, \n, \r (and a backslash as \\), as attn's labelled tsv does; every other control
// character is '?' (printable_utf8).
std::string token_field(const std::string& token, char sep) {
    std::string shown;
    std::size_t from = 0;
    for (std::size_t i = 0; i <= token.size(); ++i)
        if (i == token.size() || token[i] == '\t' || token[i] == '\n' || token[i] == '\r') {
            shown += io::printable_utf8(std::string_view(token).substr(from, i - from));
            if (i < token.size()) shown += token[i];
            from = i + 1;
        }
    if (sep == ',') return csv_field(shown);
    std::string out;
    for (char c : shown) io::append_tsv_escaped(out, c);
    return out;
}

std::string sequence_text(int s) { return s < 0 ? "-" : std::to_string(s); }

std::string render(const Encoding& e, const std::string& format, bool with_pair) {
    const std::size_t n = e.ids.size();
    std::string out;
    if (format == "ids") {
        for (std::size_t i = 0; i < n; ++i) out += (i ? "," : "") + std::to_string(e.ids[i]);
        if (with_pair) {
            out += '|';
            for (std::size_t i = 0; i < n; ++i) out += (i ? "," : "") + std::to_string(e.type_ids[i]);
        }
        out += '\n';
    } else if (format == "json") {
        auto list = [&](const char* name, auto item) {
            out += std::string("  ") + io::json_quote(name) + ": [";
            for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + item(i);
            out += "]";
        };
        out += "{\n";
        list("ids", [&](std::size_t i) { return std::to_string(e.ids[i]); });
        out += ",\n";
        list("tokens", [&](std::size_t i) { return io::json_quote(e.tokens[i]); });
        out += ",\n";
        list("type_ids", [&](std::size_t i) { return std::to_string(e.type_ids[i]); });
        out += ",\n";
        list("sequence_ids", [&](std::size_t i) { return e.sequence[i] < 0 ? std::string("null") : std::to_string(e.sequence[i]); });
        out += ",\n";
        list("special_tokens_mask", [&](std::size_t i) { return std::string(e.special[i] ? "1" : "0"); });
        out += "\n}\n";
    } else if (format == "csv" || format == "tsv") {
        const char sep = format == "csv" ? ',' : '\t';
        out += std::string("index") + sep + "id" + sep + "token" + sep + "type_id" + sep + "sequence" + sep + "special\n";
        for (std::size_t i = 0; i < n; ++i)
            out += std::to_string(i) + sep + std::to_string(e.ids[i]) + sep +
                   token_field(e.tokens[i], sep) + sep + std::to_string(e.type_ids[i]) + sep +
                   sequence_text(e.sequence[i]) + sep + (e.special[i] ? "1" : "0") + "\n";
    } else {  // pretty: aligned columns
        std::size_t id_w = 2, tok_w = 5;
        std::vector<std::string> shown;
        for (std::size_t i = 0; i < n; ++i) {
            shown.push_back(io::printable_utf8(e.tokens[i]));
            id_w = std::max(id_w, std::to_string(e.ids[i]).size());
            tok_w = std::max(tok_w, io::display_width(shown.back()));
        }
        auto pad = [](std::string s, std::size_t w, bool right) {
            const std::size_t d = io::display_width(s);
            const std::string fill(d < w ? w - d : 0, ' ');
            return right ? fill + s : s + fill;
        };
        const std::size_t idx_w = std::max<std::size_t>(1, std::to_string(n ? n - 1 : 0).size());
        out += pad("#", idx_w, true) + "  " + pad("id", id_w, true) + "  " + pad("token", tok_w, false) + "  type  seq\n";
        for (std::size_t i = 0; i < n; ++i)
            out += pad(std::to_string(i), idx_w, true) + "  " + pad(std::to_string(e.ids[i]), id_w, true) + "  " +
                   pad(shown[i], tok_w, false) + "  " + pad(std::to_string(e.type_ids[i]), 4, true) + "  " +
                   pad(sequence_text(e.sequence[i]), 3, true) + (e.special[i] ? "  special" : "") + "\n";
    }
    return out;
}

// Standard output as every command writes it (a closed pipe ends attn by SIGPIPE, quietly).
void print(const std::string& out) { io::detail::write_stdout(out); }

}  // namespace

int cmd_tokenize(int argc, char** argv) {
    cxxopts::Options options(
        "attn tokenize",
        "Token ids of a text as a Hugging Face model's own tokenizer gives them, without Python: PATH\n"
        "is a model folder (its tokenizer.json, else BERT's vocab.txt, else GPT-2's vocab.json +\n"
        "merges.txt) or a tokenizer.json. Supported: WordPiece and BPE (byte-level, byte fallback)\n"
        "models; the BertNormalizer, NFC/NFD/NFKC/NFKD, Lowercase, StripAccents, Replace, Prepend,\n"
        "Strip normalizers; the BertPreTokenizer, ByteLevel, Metaspace, Split, Digits, Whitespace,\n"
        "WhitespaceSplit, Punctuation, CharDelimiterSplit, FixedLength, Replace pre-tokenizers; the\n"
        "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel post-processors; added and\n"
        "special tokens. Anything else (Unigram, UnicodeScripts, Precompiled) is refused by name, and\n"
        "so is a hostile file: regex groups nested deeper than 256, a match attempt past 10,000,000\n"
        "steps (Oniguruma's limit, Hugging Face's regex engine) or 1 MiB of stack, the attempts over\n"
        "one text past 10,000,000 steps plus 1,000 per character (and as many characters compared\n"
        "by repeats such as a{100000}), repeat counts above 100000 (Oniguruma's), normalizers and\n"
        "pre-tokenizers that grow a text past 64 times its length plus 1 Mi characters.\n"
        "Characters are classed and normalized by the tables of Unicode " + std::string(unicode::version()) +
            " (Debian's\nunicode-data): one assigned in a later version is unassigned here (neither split\n"
            "off, normalized nor stripped of accents as newer tables would).\n");
    options.custom_help("PATH --text TEXT [--text-pair TEXT] [OPTIONS]");
    options.positional_help("");
    options.add_options()
        ("path", "Model folder or tokenizer.json", cxxopts::value<std::string>(), "PATH")
        ("text", "The text to tokenize (UTF-8)", cxxopts::value<std::string>(), "TEXT")
        ("text-pair", "A second text, as tokenizer(text, text_pair): token type 1, after the first",
         cxxopts::value<std::string>(), "TEXT")
        ("texts", "Many texts at once instead of --text: FILE is a JSON array whose items are texts or "
                  "[text, text_pair] pairs; each is printed in turn (with --format ids, one line each)",
         cxxopts::value<std::string>(), "FILE")
        ("no-special-tokens", "Add no special tokens ([CLS], [SEP], <s>): add_special_tokens=False")
        ("format", "pretty (default: index, id, token, type id, sequence), csv, tsv, json (ids, tokens, "
                   "type_ids, sequence_ids, special_tokens_mask), or ids (the ids comma-separated on one line; with "
                   "a pair, then '|' and the token type ids). A token's tab and line breaks: raw in csv (a line break quoted), "
                   "\\t \\n \\r in tsv, escaped in json; its other control characters '?' but in json",
         cxxopts::value<std::string>(), "FORMAT");
    options.parse_positional({"path"});
    auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    if (!r.count("path")) throw UsageError("tokenize: no PATH given (a model folder or a tokenizer.json)");
    if (r.count("text") && r.count("texts")) throw UsageError("tokenize: --text and --texts cannot be used together");
    if (r.count("text-pair") && r.count("texts"))
        throw UsageError("tokenize: --text-pair and --texts cannot be used together (pairs go in the --texts file)");
    if (!r.count("text") && !r.count("texts")) throw UsageError("tokenize: missing --text TEXT (or --texts FILE)");
    const std::string format = r.count("format") ? r["format"].as<std::string>() : "pretty";
    if (format != "pretty" && format != "csv" && format != "tsv" && format != "json" && format != "ids")
        throw UsageError("invalid --format '" + io::printable_utf8(format, 40) +
                         "': expected pretty, csv, tsv, json or ids" +
                         did_you_mean(format, {"pretty", "csv", "tsv", "json", "ids"}));
    const Tokenizer tok = Tokenizer::load(r["path"].as<std::string>());
    const bool add = !r.count("no-special-tokens");
    if (r.count("texts")) {
        const std::string path = r["texts"].as<std::string>();
        const std::string bytes = io::read_text_file(path);
        const json::Value doc = [&] {
            try {
                return json::parse_json(bytes);
            } catch (const InputError& e) {
                throw InputError(path + ": " + e.what());
            }
        }();
        if (!doc.is_array()) throw InputError(path + ": expected a JSON array of texts or [text, text_pair] pairs");
        std::string out;
        for (std::size_t i = 0; i < doc.size(); ++i) {
            const json::Value& item = doc.at(i);
            const std::string where = path + ": item " + std::to_string(i);
            if (item.is_string()) {
                out += render(tok.encode(item.as_string(), std::nullopt, add), format, false);
            } else if (item.is_array() && item.size() == 2 && item.at(0).is_string() && item.at(1).is_string()) {
                out += render(tok.encode(item.at(0).as_string(), std::string_view(item.at(1).as_string()), add), format, true);
            } else {
                throw InputError(where + ": expected a text or a [text, text_pair] pair");
            }
        }
        print(out);
        return exit_ok;
    }
    const std::string text = text_option(r["text"].as<std::string>(), "text");
    std::optional<std::string> pair;
    if (r.count("text-pair")) pair = text_option(r["text-pair"].as<std::string>(), "text-pair");
    const Encoding e = pair ? tok.encode(text, std::string_view(*pair), add) : tok.encode(text, std::nullopt, add);
    print(render(e, format, bool(pair)));
    return exit_ok;
}

}  // namespace attn::cli
