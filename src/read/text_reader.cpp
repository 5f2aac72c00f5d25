// Text tensors: one row per line (numbers separated by spaces, tabs, commas or semicolons,
// '#' comments), in blocks headed by an index comment ("# [b, h]", "# NAME [b, h] RxC") or a
// pretty title ("NAME [b, h] (RxC):") for more than two dimensions; or the nested bracket
// form [[[...]]] as printed by PyTorch and NumPy, optionally wrapped as tensor(...) /
// array(...) with trailing keyword arguments, and optionally preceded by the 'Parameter
// containing:' line of a printed nn.Parameter; and attn's own json of one tensor.
// The entry, positions and messages, and number tokens; the class is in text_reader.hpp,
// lines and blocks in text_lines.cpp, bracketed literals and json in text_literals.cpp.
#include "read/text_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "runtime/parallel.hpp"
#include "runtime/utf8.hpp"

namespace attn::io::detail {

std::string quoted(std::string_view s) {
    constexpr std::size_t max_shown = 32;
    std::string out = "'";
    std::size_t i = 0;
    while (i < s.size() && i < max_shown) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += char(c);
            ++i;
        } else if (const std::size_t len = c >= 0x80 && !control_at(s, i) ? utf8_length(s, i) : 0; len > 0) {
            out += s.substr(i, len);
            i += len;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
            ++i;
        }
    }
    if (i < s.size()) out += "...";
    return out + "'";
}

Tensor TextReader::read(std::size_t max_dims) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
    std::size_t first = skip_space_and_comments(pos_);
    // print() of an nn.Parameter (a layer's weight) puts this line before the tensor
    constexpr std::string_view parameter = "Parameter containing:";
    if (s_.substr(first, parameter.size()) == parameter) pos_ = first = skip_space_and_comments(first + parameter.size());
    const std::size_t first_eol = std::min(s_.find('\n', first), s_.size());
    if (const std::optional<std::string> records = bare_records(first))  // as the records' csv reads
        return TextReader(*records, source_, finite_).read(max_dims);
    if (first < s_.size() && s_[first] == '{') expect_end(read_json_object(first));
    else if (first < s_.size() && (s_[first] == '[' || starts_wrapper(first)) && !pretty_title(first, first_eol))
        expect_end(read_bracketed(first));
    else read_lines();
    if (values_.empty() && read_pieces_.empty()) throw InputError(source_ + ": no numbers found (empty matrix)");
    if (dims_.size() > std::min(max_dims, max_rank)) {
        std::string text = "(";
        for (std::size_t k = 0; k < dims_.size(); ++k) text += (k ? ", " : "") + std::to_string(dims_[k]);
        throw InputError(source_ + ": shape " + text + ") has " + std::to_string(dims_.size()) +
                         " dimensions: at most " + std::to_string(std::min(max_dims, max_rank)) +
                         " are supported here");
    }
    const Shape shape(dims_);
    // Every element is copied in (no zero-fill first), each piece of whole rows by a thread.
    if (!values_.empty()) read_pieces_.push_back(std::move(values_));
    Tensor t(shape, Tensor::Uninitialized{});
    const std::size_t cols = shape.back(1);
    std::vector<std::size_t> first_row(read_pieces_.size() + 1, 0);
    for (std::size_t k = 0; k < read_pieces_.size(); ++k) first_row[k + 1] = first_row[k] + read_pieces_[k].size() / cols;
    parallel_for(read_pieces_.size(), [&](std::size_t k) {
        const std::vector<float>& piece = read_pieces_[k];
        for (std::size_t r = 0; r < piece.size() / cols; ++r)
            std::copy_n(piece.data() + r * cols, cols, t.data() + (first_row[k] + r) * t.row_stride());
        std::vector<float>().swap(read_pieces_[k]);  // freed as soon as copied
    });
    return t;
}

std::size_t TextReader::line_of(std::size_t offset) const {
    std::size_t line = 1;
    for (std::size_t i = 0; i < offset && i < s_.size(); ++i) line += s_[i] == '\n';
    return line;
}

std::string TextReader::where(std::size_t offset) const {
    const std::size_t line_start = offset == 0 ? 0 : s_.rfind('\n', offset - 1);
    const std::size_t col = line_start == std::string_view::npos || offset == 0 ? offset + 1 : offset - line_start;
    return source_ + ":" + std::to_string(line_of(offset)) + ":" + std::to_string(col);
}

void TextReader::fail_at(std::size_t offset, const std::string& message) const {
    throw InputError(where(offset) + ": " + message);
}

void TextReader::fail_expected(std::size_t offset, const std::string& what) const {
    if (offset >= s_.size()) fail_at(offset, "expected " + what + ", found end of input");
    auto stops = [](char c) {
        return is_space(c) || c == ',' || c == ';' || c == '#' || c == '[' || c == ']' || c == '(' || c == ')' ||
               c == '{' || c == '}';
    };
    std::size_t end = offset + 1;
    if (!stops(s_[offset]))
        while (end < s_.size() && !stops(s_[end])) ++end;
    fail_at(offset, "expected " + what + ", found " + quoted(s_.substr(offset, end - offset)));
}

std::size_t TextReader::skip_space_and_comments(std::size_t i) const {
    for (;;) {
        while (i < s_.size() && is_space(s_[i])) ++i;
        if (i < s_.size() && s_[i] == '#') {
            while (i < s_.size() && s_[i] != '\n') ++i;
            continue;
        }
        return i;
    }
}

bool TextReader::starts_wrapper(std::size_t i) const {
    const char c = s_[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return false;
    while (i < s_.size() && is_ident(s_[i])) ++i;
    while (i < s_.size() && is_space(s_[i])) ++i;
    return i < s_.size() && s_[i] == '(';
}

void TextReader::push_number(std::size_t begin, std::size_t end) {
    const std::string_view tok = s_.substr(begin, end - begin);
    if (tok.find("...") != std::string_view::npos || tok.find("\xE2\x80\xA6") != std::string_view::npos)
        fail_at(begin,
                "'...' marks a summarised print: the data is not there (print the whole tensor, e.g. "
                "torch.set_printoptions(profile=\"full\") or numpy.set_printoptions(threshold=sys.maxsize))");
    // U+2212 MINUS SIGN (typeset textbooks, PDFs) reads as '-'
    constexpr std::string_view unicode_minus = "\xE2\x88\x92";
    std::string ascii;
    std::string_view body = tok;
    if (body.find(unicode_minus) != std::string_view::npos) {
        for (std::size_t k = 0; k < body.size(); ++k) {
            if (body.substr(k, unicode_minus.size()) == unicode_minus) {
                ascii += '-';
                k += unicode_minus.size() - 1;
            } else {
                ascii += body[k];
            }
        }
        body = ascii;
    }
    push_parsed(begin, tok, body);
}

void TextReader::push_parsed(std::size_t begin, std::string_view tok, std::string_view body) {
    // Python's booleans, as a pasted torch or NumPy bool tensor prints them (a mask).
    if (body == "True" || body == "False") {
        push_value(body == "True" ? 1.0f : 0.0f);
        return;
    }
    if (body.size() > 1 && body[0] == '+' && body[1] != '-' && body[1] != '+') body.remove_prefix(1);
    double d = 0.0;
    const auto res = std::from_chars(body.data(), body.data() + body.size(), d);
    if (body == "null") {  // json has no NaN or infinity: attn's json writes them as null (io.hpp's Finite)
        if (finite_ == Finite::any_null_neg_inf || finite_ == Finite::any_null_nan) {
            push_value(finite_ == Finite::any_null_nan ? std::numeric_limits<float>::quiet_NaN()
                                                       : -std::numeric_limits<float>::infinity());
            return;
        }
        fail_at(begin, "found 'null', json's stand-in for NaN or infinity (read such values from csv, tsv or npy)");
    }
    if (body.empty() || res.ptr != body.data() + body.size() ||
        (res.ec != std::errc() && res.ec != std::errc::result_out_of_range))
        fail_at(begin, "expected a number, found " + quoted(tok));
    bool overflow = false;
    if (res.ec == std::errc::result_out_of_range) {
        // from_chars reports both overflow and underflow; strtod tells them apart.
        d = std::strtod(std::string(body).c_str(), nullptr);
        overflow = std::isinf(d);
    }
    const float f = static_cast<float>(d);
    if (overflow || (std::isfinite(d) && !std::isfinite(f)))
        fail_at(begin, "value " + quoted(tok) + " is out of float32 range");
    if (!finite_allows(finite_, f))
        fail_at(begin, "non-finite value " + quoted(tok) + " is not allowed here" +
                           (finite_ == Finite::allow_neg_inf ? " (only -inf is)" : ""));
    push_value(f);
}

void TextReader::end_row(std::size_t row_start, std::size_t count) {
    if (count == 0) return;
    if (cols_ == 0) cols_ = count;
    else if (count != cols_)
        throw InputError(source_ + ":" + std::to_string(line_of(row_start)) + ": row has " +
                         std::to_string(count) + (count == 1 ? " value" : " values") + ", expected " +
                         std::to_string(cols_));
    ++rows_;
}

}  // namespace attn::io::detail

namespace attn::io {

Tensor parse_text_tensor(std::string_view text, const std::string& source, Finite finite, std::size_t max_dims) {
    try {
        return detail::TextReader(text, source, finite).read(max_dims);
    } catch (const InputError&) {
        // Not plain numbers: attn's labelled csv/tsv reads as the numbers it labels (plain
        // text is read first, so whatever read before reads the same).
        const std::optional<std::string> unlabelled = detail::TextReader::without_labels(text);
        if (!unlabelled) throw;
        return detail::TextReader(*unlabelled, source, finite).read(max_dims);
    }
}

}  // namespace attn::io
