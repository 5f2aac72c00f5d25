// The tokenizer's pieces: normalization forms against a sample of Unicode's own
// NormalizationTest.txt (data/unicode/), lower-casing and categories on known characters,
// the regex engine on GPT-2's and Llama 3's patterns (splits worked out by hand), BPE merge
// order, byte fallback and WordPiece on tiny vocabularies written here.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/tokenizer.hpp"
#include "tokenize/byte_level.hpp"
#include "tokenize/regex.hpp"
#include "tokenize/unicode.hpp"

using attn::InputError;
using attn::Tokenizer;
namespace u = attn::unicode;
using attn::tokenize::Regex;

namespace {

std::u32string hex_points(const std::string& field) {
    std::u32string out;
    std::istringstream in(field);
    std::string h;
    while (in >> h) out += char32_t(std::stoul(h, nullptr, 16));
    return out;
}

std::vector<std::string> split_text(const Regex& re, const std::u32string& text) {
    std::vector<std::string> out;
    for (auto [b, e] : re.find_all(text)) out.push_back(u::encode_utf8(text.substr(b, e - b)));
    return out;
}

std::vector<std::string> tokens(const Tokenizer& t, const std::string& text) {
    return t.encode(text, std::nullopt, false).tokens;
}

}  // namespace

TEST_CASE("tokenize: NFC, NFD, NFKC, NFKD equal NormalizationTest.txt's columns") {
    std::ifstream f("data/unicode/NormalizationTest-sample.txt");
    REQUIRE(f.good());
    std::string line;
    std::size_t checked = 0;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::u32string> c;
        std::istringstream in(line);
        std::string field;
        while (std::getline(in, field, ';')) c.push_back(hex_points(field));
        REQUIRE(c.size() >= 5);
        // The conformance rules of NormalizationTest.txt, for each source column.
        for (int s = 0; s < 5; ++s) {
            const std::u32string& src = c[std::size_t(s)];
            const bool compat_source = s >= 3;
            if (!compat_source) {
                CHECK(u::normalize(src, u::Form::nfc) == (c[1]));
                CHECK(u::normalize(src, u::Form::nfd) == (c[2]));
            }
            CHECK(u::normalize(src, u::Form::nfkc) == (c[3]));
            CHECK(u::normalize(src, u::Form::nfkd) == (c[4]));
        }
        ++checked;
    }
    CHECK(checked > 1000);
    CHECK(std::string(u::version()) == "15.0.0");
}

TEST_CASE("tokenize: lower-casing as JavaScript's toLowerCase, and categories") {
    CHECK(u::encode_utf8(u::to_lower(u::decode_utf8("ΟΔΟΣ ΟΔΟΣ. ΣΑ"))) == "οδος οδος. σα");  // final sigma
    CHECK(u::encode_utf8(u::to_lower(u::decode_utf8("İ"))) == "i\xCC\x87");  // SpecialCasing: i + U+0307
    CHECK(u::encode_utf8(u::to_lower(u::decode_utf8("ÀÉÎ ǅ Ⅻ"))) == "àéî ǆ ⅻ");
    CHECK(u::category(U'a') == u::Category::Ll);
    CHECK(u::category(U'中') == u::Category::Lo);
    CHECK(u::category(U'!') == u::Category::Po);
    CHECK(u::category(0x0301) == u::Category::Mn);
    CHECK(u::category(0x10FFFF) == u::Category::Cn);
    CHECK(u::is_white_space(0x85));
    CHECK_FALSE(u::is_js_space(0x85));
    CHECK(u::is_js_space(0xFEFF));
    CHECK_THROWS_WITH_AS(u::decode_utf8("ab\xC3"), "truncated UTF-8 at byte 2", InputError);
    CHECK_THROWS_WITH_AS(u::decode_utf8("a\xED\xA0\x80"), "invalid UTF-8 at byte 1", InputError);  // a surrogate
    CHECK(attn::tokenize::to_byte_level(U" ") == U"Ġ");
    CHECK(attn::tokenize::byte_to_char(0) == char32_t(0x100));
}

TEST_CASE("tokenize: the regex engine splits as GPT-2's and Llama 3's patterns do") {
    const Regex gpt2(U"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
                     Regex::Spaces::javascript);
    // "  end": \s+(?!\S) gives back one space so that " end" keeps its space.
    CHECK(split_text(gpt2, U"Hello world's  end!! 2024\n") ==
          std::vector<std::string>{"Hello", " world", "'s", " ", " end", "!!", " 2024", "\n"});
    const Regex llama3(U"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
                       Regex::Spaces::unicode);
    CHECK(split_text(llama3, U"IT'S 1234567 ok\n\n") ==
          std::vector<std::string>{"IT", "'S", " ", "123", "456", "7", " ok", "\n\n"});
    CHECK(split_text(Regex(U"a+?b", Regex::Spaces::unicode), U"aaab") == std::vector<std::string>{"aaab"});
    CHECK(split_text(Regex(U"a*+a", Regex::Spaces::unicode), U"aaa").empty());  // possessive gives nothing back
    CHECK(split_text(Regex(U"[\\u0041-\\u0043]+", Regex::Spaces::unicode), U"xABCDx") == std::vector<std::string>{"ABC"});
    CHECK_THROWS_AS(Regex(U"(?<=a)b", Regex::Spaces::unicode), InputError);
    CHECK_THROWS_AS(Regex(U"\\p{Greek}", Regex::Spaces::unicode), InputError);
    CHECK_THROWS_AS(Regex(U"(ab", Regex::Spaces::unicode), InputError);
}

TEST_CASE("tokenize: \\w is Oniguruma's Word in tokenizer.json patterns, Rust's in the Whitespace pre-tokenizer") {
    // Oniguruma's Word (its make_unicode_property_data.py): Alphabetic, marks, Nd, Pc; so the
    // circled letters (So, Other_Alphabetic) are word characters. Outside a class, below U+0100,
    // its ISO-8859-1 ctype table also takes the superscripts and fractions. (The oracle,
    // @huggingface/tokenizers, agreed on 61,928 texts of these; an audit found attn apart.)
    const Regex words(U"\\w+|[^\\w\\s]+", Regex::Spaces::unicode);
    CHECK(split_text(words, U"$\u24B6") == std::vector<std::string>{"$", "\u24B6"});
    CHECK(split_text(words, U"a\u00B2") == std::vector<std::string>{"a\u00B2"});
    const Regex in_class(U"[\\w]+|[^\\w\\s]+", Regex::Spaces::unicode);
    CHECK(split_text(in_class, U"a\u00B2") == std::vector<std::string>{"a", "\u00B2"});
    CHECK(split_text(in_class, U"$\u24B6") == std::vector<std::string>{"$", "\u24B6"});
    // ZWJ (Join_Control) is a word character to the Rust regex crate (UTS #18), not to Oniguruma.
    const Regex rust(U"\\w+|[^\\w\\s]+", Regex::Spaces::rust);
    CHECK(split_text(rust, U"a\u200Db") == std::vector<std::string>{"a\u200Db"});
    CHECK(split_text(words, U"a\u200Db") == std::vector<std::string>{"a", "\u200D", "b"});
    // Oniguruma's \\h and \\H: hexadecimal digits
    CHECK(split_text(Regex(U"\\h+", Regex::Spaces::unicode), U"x1aFgz09") == std::vector<std::string>{"1aF", "09"});
    CHECK(split_text(Regex(U"\\H+", Regex::Spaces::unicode), U"x1aFgz09") == std::vector<std::string>{"x", "gz"});
    CHECK_THROWS_AS(Regex(U"[\\h]", Regex::Spaces::javascript), InputError);  // not ECMAScript's
}

TEST_CASE("tokenize: BPE merges by rank, not by position") {
    const char* base = R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5},
                                     "merges": MERGES}})";
    auto with = [&](const std::string& merges) {
        std::string s = base;
        s.replace(s.find("MERGES"), 6, merges);
        return Tokenizer::from_json(s);
    };
    // (b, c) has the better rank: a + bc, then (a, bc) → abc.
    CHECK(tokens(with(R"(["b c", "a b", "a bc"])"), "abc") == std::vector<std::string>{"abc"});
    // Without a merge of (a, bc) the word stays a + bc.
    CHECK(tokens(with(R"(["b c", "a b"])"), "abc") == std::vector<std::string>{"a", "bc"});
    // (a, b) first: ab + c, and no merge (ab, c).
    CHECK(tokens(with(R"([["a", "b"], ["b", "c"]])"), "abc") == std::vector<std::string>{"ab", "c"});
    // Equal pairs merge leftmost first: "aaa" → aa + a.
    const Tokenizer t = Tokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": 0, "aa": 1}, "merges": ["a a"]}})");
    CHECK(tokens(t, "aaa") == std::vector<std::string>{"aa", "a"});
    // Without a vocabulary entry or unk_token a character is dropped.
    CHECK(tokens(t, "aza") == std::vector<std::string>{"a", "a"});
}

TEST_CASE("tokenize: byte fallback, and unknown tokens fused") {
    const Tokenizer t = Tokenizer::from_json(R"({"model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true,
        "byte_fallback": true, "vocab": {"<unk>": 0, "<0xC3>": 1, "<0xA9>": 2, "a": 3}, "merges": []}})");
    const attn::Encoding e = t.encode("aéa", std::nullopt, false);
    CHECK(e.tokens == std::vector<std::string>{"a", "<0xC3>", "<0xA9>", "a"});
    CHECK(e.ids == std::vector<std::int64_t>{3, 1, 2, 3});
    // 'z' has no byte token: unknown; two unknowns in a row are one with fuse_unk.
    CHECK(tokens(t, "azza") == std::vector<std::string>{"a", "<unk>", "a"});
}

TEST_CASE("tokenize: WordPiece, greedy longest match first") {
    const Tokenizer t = Tokenizer::from_json(R"({
        "normalizer": {"type": "BertNormalizer", "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
        "added_tokens": [{"id": 2, "content": "[CLS]", "special": true}, {"id": 3, "content": "[SEP]", "special": true}],
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "un": 1, "[CLS]": 2, "[SEP]": 3,
                  "##aff": 4, "##able": 5, "!": 6, "##a": 7, "cafe": 8}}})");
    const attn::Encoding e = t.encode("UNAFFABLE! Café unx", std::string_view("[SEP]"));
    CHECK(e.tokens == std::vector<std::string>{"[CLS]", "un", "##aff", "##able", "!", "cafe", "[UNK]", "[SEP]", "[SEP]", "[SEP]"});
    CHECK(e.type_ids == std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1});
    CHECK(e.sequence == std::vector<int>{-1, 0, 0, 0, 0, 0, 0, -1, 1, -1});
    // the pair's [SEP] is typed in the text: 0 in special_tokens_mask, as Hugging Face's Encoding
    CHECK(e.special == std::vector<bool>{true, false, false, false, false, false, false, true, false, true});
    CHECK(t.token_to_id("##able") == 5);
    CHECK(t.id_to_token(4) == "##aff");
    CHECK_FALSE(t.id_to_token(99).has_value());
}

TEST_CASE("tokenize: unsupported components are refused by name") {
    CHECK_THROWS_WITH_AS(Tokenizer::from_json(R"({"model": {"type": "Unigram"}})"),
                         "tokenizer.json: unsupported model \"Unigram\" (known: WordPiece, BPE)", InputError);
    CHECK_THROWS_AS(Tokenizer::from_json(R"({"pre_tokenizer": {"type": "UnicodeScripts"}, "model": {"type": "BPE", "vocab": {}, "merges": []}})"),
                    InputError);
    CHECK_THROWS_AS(Tokenizer::from_json("[1, 2]"), InputError);
}


TEST_CASE("tokenize: pre-tokenizers beyond the oracle's, as the Rust tokenizers documents them") {
    // Each case's BPE knows exactly the expected pieces, merged from their characters: the
    // tokens are the pieces the pre-tokenizer cut (a wrong cut gives other tokens,
    // or <unk> for a character no piece has).
    auto run = [](const std::string& pre, const std::vector<std::string>& want, const std::string& text) {
        std::string merges;
        std::string vocab_init = "\"<unk>\": 0";
        int id = 1;
        auto add = [&](const std::string& tok) {
            if (vocab_init.find("\"" + tok + "\":") != std::string::npos) return;
            vocab_init += ", \"" + tok + "\": " + std::to_string(id++);
        };
        for (const std::string& w : want) {
            const std::u32string cps = u::decode_utf8(w);
            std::string acc;
            for (std::size_t i = 0; i < cps.size(); ++i) {
                std::string c;
                u::append_utf8(c, cps[i]);
                add(c);
                if (i > 0) {
                    merges += (merges.empty() ? "" : ", ") + std::string("[\"") + acc + "\", \"" + c + "\"]";
                    add(acc + c);
                }
                acc += c;
            }
        }
        const Tokenizer t = Tokenizer::from_json(R"({"pre_tokenizer": )" + pre + R"(, "model": {"type": "BPE", "unk_token": "<unk>", "vocab": {)" +
                                                 vocab_init + R"(}, "merges": [)" + merges + "]}}");
        CHECK(tokens(t, text) == want);
    };
    run(R"({"type": "Whitespace"})", {"Hey", "friend", "!", "How", "are", "you", "?!?", "café"},
        "Hey friend!  How are you?!? café");
    run(R"({"type": "Punctuation"})", {"Hey friend", "!", "!", " How", "?"}, "Hey friend!! How?");
    run(R"({"type": "Punctuation", "behavior": "Contiguous"})", {"Hey friend", "!!", " How", "?"}, "Hey friend!! How?");
    run(R"({"type": "CharDelimiterSplit", "delimiter": "-"})", {"a", "b", "c"}, "a-b--c");
    run(R"({"type": "FixedLength", "length": 2})", {"ab", "cd", "e"}, "abcde");
    run(R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true})",
        {"▁Hey", "▁friend"}, "Hey friend");
    // Split's behaviors on "the-final--countdown", the Rust documentation's example.
    const std::string split = R"({"type": "Split", "pattern": {"String": "-"}, "behavior": ")";
    run(split + R"(Isolated"})", {"the", "-", "final", "-", "-", "countdown"}, "the-final--countdown");
    run(split + R"(Removed"})", {"the", "final", "countdown"}, "the-final--countdown");
    run(split + R"(MergedWithPrevious"})", {"the-", "final-", "-", "countdown"}, "the-final--countdown");
    run(split + R"(MergedWithNext"})", {"the", "-final", "-", "-countdown"}, "the-final--countdown");
    run(split + R"(Contiguous"})", {"the", "-", "final", "--", "countdown"}, "the-final--countdown");
    // Inverted, the matches are the text between the dashes, and Contiguous joins neighbours
    // alike after the inversion (Rust's fold compares each piece's flag with the last one's):
    // the two dashes, now two non-matches side by side, are one piece.
    run(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true})",
        {"the", "-", "final", "--", "countdown"}, "the-final--countdown");
    run(R"({"type": "Split", "pattern": {"Regex": "[a-z]"}, "behavior": "Contiguous", "invert": true})",
        {"ab", "--", "c"}, "ab--c");
}

TEST_CASE("tokenize: hostile patterns and normalizers are InputErrors, not crashes, hangs or blow-ups") {
    auto repeated = [](std::u32string_view s, int n) {
        std::u32string out;
        for (int i = 0; i < n; ++i) out += s;
        return out;
    };
    // Nesting: the limit itself parses and matches; one more group is refused at once.
    const int most = Regex::max_nesting;
    const Regex deep(repeated(U"(", most) + U"a" + repeated(U")", most), Regex::Spaces::unicode);
    CHECK(split_text(deep, U"bab") == std::vector<std::string>{"a"});
    CHECK_THROWS_WITH_AS(Regex(repeated(U"(?=", 20000) + U"a" + repeated(U")", 20000), Regex::Spaces::unicode),
                         doctest::Contains("groups nested more than 256 deep"), InputError);
    // A long flat pattern nests as deeply in the matcher: bounded by the stack it uses.
    const Regex flat(repeated(U"a*", 30000), Regex::Spaces::unicode);
    CHECK_THROWS_WITH_AS(flat.find_all(U"hello"), doctest::Contains("nests too deeply to match"), InputError);
    // Catastrophic backtracking gives up after max_steps (a fraction of a second), as Oniguruma does.
    const std::u32string text = U"hello " + repeated(U"a", 35) + U"c world";
    for (const char32_t* p : {U"(a+)+$", U"(a*)*b", U".*.*.*.*.*.*.*.*x", U"(a|aa)+b"})
        CHECK_THROWS_WITH_AS(Regex(p, Regex::Spaces::unicode).find_all(text),
                             doctest::Contains("backtracking steps in one match"), InputError);
    // The budget is per match attempt: a long text of cheap attempts is fine.
    CHECK(Regex(U"(a|aa)+b", Regex::Spaces::unicode).find_all(repeated(U"aab ", 20000)).size() == 20000);
    // A counted repeat of one class measures its run at every start: the characters compared
    // have a budget over the text as the steps do (10^7 + 1000 per character: 3·10^7 here,
    // against ~1.5·10^8).
    CHECK_THROWS_WITH_AS(Regex(U"a{10000}b", Regex::Spaces::unicode).find_all(repeated(U"a", 20000)),
                         doctest::Contains("gives up after comparing 30000000 characters in repeats over a text of 20000"),
                         InputError);
    CHECK(Regex(U"\\p{L}+", Regex::Spaces::unicode).find_all(repeated(U"a", 12'000'000)).size() == 1);  // one long word
    // Oniguruma's limit on counts: at most 100000. {n,m} with n > m is its possessive interval:
    // m to n times, giving nothing back (so a{3,2}a never matches, a{2,3}a matches "aaa").
    CHECK_THROWS_WITH_AS(Regex(U"a{100001}", Regex::Spaces::unicode), doctest::Contains("a repeat count above 100000"),
                         InputError);
    CHECK_THROWS_WITH_AS(Regex(U"a{99999999999}", Regex::Spaces::unicode), doctest::Contains("above 100000"), InputError);
    CHECK(split_text(Regex(U"a{3,2}", Regex::Spaces::unicode), U"baaaab") == std::vector<std::string>{"aaa"});
    CHECK(split_text(Regex(U"a{3,2}a", Regex::Spaces::unicode), U"baaab").empty());
    CHECK(split_text(Regex(U"a{2,3}a", Regex::Spaces::unicode), U"baaab") == std::vector<std::string>{"aaa"});
    CHECK(split_text(Regex(U"a{2,100000}", Regex::Spaces::unicode), U"baaab") == std::vector<std::string>{"aaa"});
    // Eight Replaces of "a" by sixteen a's would grow the text 16^8-fold.
    std::string seq;
    for (int i = 0; i < 8; ++i)
        seq += std::string(i ? ", " : "") + R"({"type": "Replace", "pattern": {"String": "a"}, "content": "aaaaaaaaaaaaaaaa"})";
    const Tokenizer grows = Tokenizer::from_json(R"({"normalizer": {"type": "Sequence", "normalizers": [)" + seq +
                                                 R"(]}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})");
    CHECK_THROWS_WITH_AS(tokens(grows, "hello aaaa"),
                         "tokenizer.json: the normalizer Replace makes the text longer than 1049216 characters",
                         InputError);
    CHECK_NOTHROW(tokens(grows, "b"));  // nothing to grow
}

// Hugging Face's AddedVocabulary::find_matches: a single_word token's match with a word
// character (the Rust regex crate's \w) on either side is skipped, and the search goes on
// after it. "pets carpet pet": the first two are inside words, only the last is the token.
TEST_CASE("tokenize: an added token's single_word matches whole words only") {
    const std::string model = R"("model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "pe": 1,
        "##t": 2, "##ts": 3, "car": 4, "##pet": 5}}, "pre_tokenizer": {"type": "WhitespaceSplit"})";
    const auto with = [&](const char* single) {
        return Tokenizer::from_json(std::string(R"({"added_tokens": [{"id": 9, "content": "pet", "single_word": )") +
                                    single + R"(, "normalized": true, "special": false}], )" + model + "}");
    };
    CHECK(with("true").encode("pets carpet pet", std::nullopt, false).ids == std::vector<std::int64_t>{1, 3, 4, 5, 9});
    CHECK(with("false").encode("pets carpet pet", std::nullopt, false).ids == std::vector<std::int64_t>{9, 0, 4, 9, 9});
    // punctuation and the text's ends are no word characters; ZWJ (Join_Control) is one
    CHECK(with("true").encode("pet,pet", std::nullopt, false).ids == std::vector<std::int64_t>{9, 0, 9});
    CHECK(with("true").encode("pet\u200D", std::nullopt, false).ids == std::vector<std::int64_t>{0});
    CHECK(with("false").encode("pet\u200D", std::nullopt, false).ids == std::vector<std::int64_t>{9, 0});
}
