// A text mask read straight into bits (read/text_mask.hpp): the lines a text tensor of rows
// would give, with the token rules of its fast path, each value taken as that float32.
#include "read/text_mask.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "read/input_bytes.hpp"
#include "read/number_parse.hpp"
#include "runtime/parallel.hpp"

namespace attn::io::detail {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool ends_token(char c) { return is_blank(c) || c == ',' || c == ';' || c == '#'; }

// The rows of one band of lines, each row's bits in words_per_row(cols) words.
struct Band {
    std::vector<std::uint64_t> words;
    std::size_t rows = 0, cols = 0;
    bool plain = true, negative = false, not_binary = false, not_zero_one = false, boolean = false;
};

// The lines starting in [from, to) of `text`.
Band read_band(std::string_view text, std::size_t from, std::size_t to, const MaskRules& rules) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    const char* const s = text.data();
    Band band;
    bool negative = false, not_binary = false, not_zero_one = false;
    for (std::size_t line = from; line < to && band.plain;) {
        std::size_t eol = text.find('\n', line);
        if (eol == std::string_view::npos) eol = text.size();
        std::size_t j = line, count = 0;
        std::uint64_t word = 0;  // the row's word being filled, bit count % 64 next
        const auto add = [&](bool allowed) {
            word |= std::uint64_t(allowed) << (count % MaskBits::word_bits);
            if (++count % MaskBits::word_bits == 0) band.words.push_back(std::exchange(word, 0));
        };
        for (;;) {  // the text reader's tokens of a row (TextReader::read_band)
            // The usual mask text first, a digit and one separator again and again ("1 0 1",
            // "1,0,1"): a token and its separator as the loop below takes them, in a few
            // operations (a third of the time of the loop below). A ',' or ';' only before a
            // digit: the loop below refuses a second one after it.
            while (j + 2 < eol) {
                const unsigned digit = unsigned(s[j]) - unsigned('0');
                const char sep = s[j + 1];
                if (digit >= 10 || !(sep == ' ' || sep == '\t' ||
                                     ((sep == ',' || sep == ';') && unsigned(s[j + 2]) - unsigned('0') < 10)))
                    break;
                add((digit != 0) != rules.zero_allows);
                not_binary |= digit != 0;
                not_zero_one |= digit > 1;
                j += 2;
            }
            while (j < eol && is_blank(s[j])) ++j;
            if (j < eol && (s[j] == ',' || s[j] == ';') && count > 0) {
                ++j;
                while (j < eol && is_blank(s[j])) ++j;
            }
            if (j == eol) break;
            float v = 0.0f;
            if (s[j] >= '0' && s[j] <= '9' && (j + 1 == eol || ends_token(s[j + 1]))) {  // 0 and 1, mostly
                v = float(s[j] - '0');
                ++j;
            } else if (const char* stop = parse_plain_number(s + j, s + eol, s + text.size(), ends_token, &v)) {
                j = std::size_t(stop - s);
            } else {
                std::size_t end = j;
                while (end < eol && !ends_token(s[end])) ++end;
                const std::string_view token = text.substr(j, end - j);
                if (token == "True" || token == "False") {
                    v = token == "True" ? 1.0f : 0.0f;
                    band.boolean = true;
                } else if (token == "-inf" && rules.additive) {
                    v = neg_inf;
                } else {
                    band.plain = false;  // '#', and anything else: the text reader's
                    break;
                }
                j = end;
            }
            add((v != 0.0f) != rules.zero_allows);
            negative |= v < 0.0f;
            not_binary |= !(v == 0.0f || v == neg_inf);
            not_zero_one |= !(v == 0.0f || v == 1.0f);
        }
        if (count % MaskBits::word_bits != 0) band.words.push_back(word);
        if (count > 0) {
            if (band.cols == 0) band.cols = count;
            band.plain &= count == band.cols;
            ++band.rows;
        }
        line = eol + 1;
    }
    band.negative = negative, band.not_binary = not_binary, band.not_zero_one = not_zero_one;
    return band;
}

}  // namespace

std::optional<MaskBits> parse_text_mask(std::string_view text, const MaskRules& rules, bool* negative, bool* boolean,
                                        bool mapped) {
    // Bands of about 1 MiB cut at line starts, so that a mapped text's pages are dropped soon
    // after they are read.
    constexpr std::size_t band_bytes = std::size_t(1) << 20;
    const std::size_t bands = std::clamp<std::size_t>(text.size() / band_bytes, 1, 4096);
    std::vector<std::size_t> cut(bands + 1, text.size());
    cut[0] = 0;
    for (std::size_t b = 1; b < bands; ++b) {
        const std::size_t nl = text.find('\n', std::max(cut[b - 1], text.size() / bands * b));
        cut[b] = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    std::vector<Band> out(bands);
    parallel_for(bands, [&](std::size_t b) {
        out[b] = read_band(text, cut[b], cut[b + 1], rules);
        if (mapped) drop_read_block(text.data(), text.size(), cut[b], cut[b + 1]);
    });
    std::size_t rows = 0, cols = 0, words = 0;
    bool any_negative = false, any_boolean = false, not_binary = false, not_zero_one = false;
    for (const Band& band : out) {
        if (!band.plain) return std::nullopt;
        any_boolean |= band.boolean;
        not_binary |= band.not_binary;
        not_zero_one |= band.not_zero_one;
        if (band.rows == 0) continue;
        if (cols != 0 && band.cols != cols) return std::nullopt;
        cols = band.cols;
        rows += band.rows;
        words += band.words.size();
        any_negative |= band.negative;
    }
    any_boolean |= rules.zero_one_text_boolean && !not_zero_one;
    if (rows == 0 || (rules.additive && !any_boolean && not_binary)) return std::nullopt;
    std::vector<std::uint64_t> all;
    all.reserve(words);
    for (Band& band : out) {
        all.insert(all.end(), band.words.begin(), band.words.end());
        std::vector<std::uint64_t>().swap(band.words);
    }
    if (negative) *negative = any_negative;
    if (boolean) *boolean = any_boolean;
    return MaskBits(Shape{rows, cols}, all);
}

}  // namespace attn::io::detail
