// Text tensors in the nested bracket form [[[...]]] as printed by PyTorch and NumPy, optionally
// wrapped as tensor(...) / array(...) with trailing keyword arguments; and attn's own json of
// one tensor. Part of the TextReader of text_reader.hpp; and whether such a print is of an
// integer type (integer_print).
#include <string>
#include <string_view>

#include "attn/error.hpp"
#include "read/text_reader.hpp"

namespace attn::io::detail {

std::size_t TextReader::read_bracketed(std::size_t i) {
    const bool wrapped = s_[i] != '[';
    if (wrapped) {
        const std::size_t name = i;
        while (is_ident(s_[i])) ++i;
        // print(x.shape) of a tensor: its dimensions, not its values
        const std::string_view ident = s_.substr(name, i - name);
        if (ident == "Size" || ident.ends_with(".Size"))
            fail_at(name, std::string(ident) + "(...) is a tensor's shape, not its values: print the tensor itself");
        i = skip_space_and_comments(i);
        ++i;  // '('
        i = skip_space_and_comments(i);
        if (i >= s_.size() || s_[i] != '[') fail_expected(i, "'['");
    }
    i = read_list(i, 0);
    dims_.assign(list_length_.begin(), list_length_.begin() + std::ptrdiff_t(*leaf_depth_));
    dims_.push_back(cols_);
    i = skip_space_and_comments(i);
    if (wrapped) i = skip_keyword_arguments(i);
    return skip_space_and_comments(i);
}

std::size_t TextReader::read_list(std::size_t open, std::size_t depth) {
    if (depth == max_rank) fail_at(open, "more than " + std::to_string(max_rank) + " levels of brackets");
    std::size_t i = skip_space_and_comments(open + 1);
    const bool of_lists = i < s_.size() && s_[i] == '[';
    if (!of_lists || (leaf_depth_ && depth >= *leaf_depth_)) {
        if (leaf_depth_ && depth != *leaf_depth_) fail_expected(i, "'['");
        leaf_depth_ = depth;
        return read_row(open);
    }
    std::size_t count = 0;
    for (;;) {
        if (i >= s_.size() || s_[i] != '[') fail_expected(i, "'['");
        i = read_list(i, depth + 1);
        ++count;
        i = skip_space_and_comments(i);
        if (i < s_.size() && s_[i] == ',') i = skip_space_and_comments(i + 1);
        if (i < s_.size() && s_[i] == ']') break;
        if (i >= s_.size()) fail_expected(i, "']'");
    }
    if (list_length_[depth] == 0) list_length_[depth] = count;
    else if (list_length_[depth] != count)
        fail_at(open, "this list has " + std::to_string(count) + (count == 1 ? " entry" : " entries") +
                          ", expected " + std::to_string(list_length_[depth]) + " as the first one at this depth");
    return i + 1;
}

void TextReader::expect_end(std::size_t i) const {
    if (i < s_.size()) {
        if (s_[i] == '[' || s_[i] == '{' || starts_wrapper(i))
            fail_at(i, "a second matrix starts here; attn reads one matrix per input");
        fail_expected(i, "end of input after the matrix");
    }
}

std::size_t TextReader::read_json_object(std::size_t i) {
    i = skip_space_and_comments(i + 1);
    if (i >= s_.size() || s_[i] != '"') fail_expected(i, "a quoted name");
    const std::size_t end = json_string_end(s_, i);
    if (end == std::string_view::npos) fail_expected(s_.size(), "'\"'");
    const std::string name = json_key(s_.substr(i, end - i));
    i = skip_space_and_comments(end);
    if (i >= s_.size() || s_[i] != ':') fail_expected(i, "':'");
    i = skip_space_and_comments(i + 1);
    if (i >= s_.size() || s_[i] != '[')  // a json of other members first (attn random's "seed")
        fail_at(i, "\"" + name + "\" is not a tensor (a nested list of numbers)" + name_one_hint("NAME"));
    i = read_bracketed(i);
    // attn's labelled json ends with "labels" / "key_labels": token lists, not numbers.
    while (i < s_.size() && s_[i] == ',') {
        const std::size_t key = skip_space_and_comments(i + 1);
        const std::string_view rest = s_.substr(key);
        const std::size_t skip = rest.starts_with("\"labels\"")       ? 8
                                 : rest.starts_with("\"key_labels\"") ? 12
                                                                      : 0;
        if (skip == 0) fail_at(key, "a second matrix starts here; attn reads one matrix per input" + name_one_hint(name));
        i = skip_space_and_comments(key + skip);
        if (i >= s_.size() || s_[i] != ':') fail_expected(i, "':'");
        i = skip_string_list(skip_space_and_comments(i + 1));
    }
    if (i >= s_.size() || s_[i] != '}') fail_expected(i, "'}'");
    return skip_space_and_comments(i + 1);
}

std::size_t TextReader::skip_string_list(std::size_t i) {
    if (i >= s_.size() || s_[i] != '[') fail_expected(i, "'['");
    i = skip_space_and_comments(i + 1);
    while (i < s_.size() && s_[i] != ']') {
        if (s_[i] != '"') fail_expected(i, "a quoted label");
        ++i;
        while (i < s_.size() && s_[i] != '"') i += s_[i] == '\\' ? 2 : 1;
        if (i >= s_.size()) fail_expected(s_.size(), "'\"'");
        i = skip_space_and_comments(i + 1);
        if (i < s_.size() && s_[i] == ',') i = skip_space_and_comments(i + 1);
        else if (i < s_.size() && s_[i] != ']') fail_expected(i, "',' or ']'");
    }
    if (i >= s_.size()) fail_expected(i, "']'");
    return skip_space_and_comments(i + 1);
}

std::size_t TextReader::read_row(std::size_t open) {
    std::size_t count = 0;
    std::size_t i = skip_space_and_comments(open + 1);
    for (;;) {
        if (i >= s_.size()) fail_expected(i, "']'");
        if (s_[i] == ']') break;
        if (count > 0 && s_[i] == ',') {
            i = skip_space_and_comments(i + 1);
            if (i < s_.size() && s_[i] == ']') break;  // trailing comma
        }
        std::size_t end = push_plain_number(i, s_.size(), [](char ch) {
            return is_space(ch) || ch == ',' || ch == '[' || ch == ']' || ch == '#';
        });
        if (end == std::string_view::npos) {
            end = i;
            while (end < s_.size() && !is_space(s_[end]) && s_[end] != ',' && s_[end] != '[' && s_[end] != ']' &&
                   s_[end] != '#')
                ++end;
            if (end == i) fail_expected(i, "a number");
            push_number(i, end);
        }
        ++count;
        i = skip_space_and_comments(end);
    }
    if (count == 0) throw InputError(where(open) + ": '[]' holds no numbers (an empty tensor or row)");
    end_row(open, count);
    return i + 1;
}

std::size_t TextReader::skip_keyword_arguments(std::size_t i) {
    if (i < s_.size() && s_[i] == ')') return i + 1;
    if (i >= s_.size() || s_[i] != ',') fail_expected(i, "')' or ','");
    int depth = 0;
    for (++i; i < s_.size(); ++i) {
        const char c = s_[i];
        if (c == '\'' || c == '"') {
            const std::size_t close = s_.find(c, i + 1);
            if (close == std::string_view::npos) break;
            i = close;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0) {
                if (c != ')') fail_expected(i, "')'");
                return i + 1;
            }
            --depth;
        }
    }
    fail_expected(s_.size(), "')'");
}

bool integer_print(std::string_view text) {
    std::size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // a UTF-8 byte-order mark
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && is_ident(text[j])) ++j;
    const std::string_view ident = text.substr(i, j - i);
    if (!(ident == "tensor" || ident.ends_with(".tensor") || ident == "array" || ident.ends_with(".array")))
        return false;
    const std::size_t open = text.find('[', j), close = text.rfind(']');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
    const std::string_view keywords = text.substr(close);
    if (const std::size_t k = keywords.find("dtype="); k != std::string_view::npos) {
        std::size_t b = k + 6;
        if (b < keywords.size() && (keywords[b] == '\'' || keywords[b] == '"')) ++b;  // dtype='int32'
        std::size_t e = b;
        while (e < keywords.size() && is_ident(keywords[e])) ++e;
        std::string_view type = keywords.substr(b, e - b);
        if (const std::size_t dot = type.rfind('.'); dot != std::string_view::npos) type.remove_prefix(dot + 1);
        for (std::string_view integer : {"bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
                                         "uint64", "short", "int", "long"})
            if (type == integer) return true;
        return false;
    }
    for (const char c : text.substr(open, close - open))
        if (!(is_digit(c) || is_space(c) || c == '-' || c == '+' || c == ',' || c == '[' || c == ']')) return false;
    return true;
}

}  // namespace attn::io::detail
