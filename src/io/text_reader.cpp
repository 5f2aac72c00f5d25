// Text matrices: one row per line (numbers separated by spaces, tabs, commas or semicolons,
// '#' comments), or the bracketed form [[...], [...]] as printed by PyTorch and NumPy,
// optionally wrapped as tensor(...) / array(...) with trailing keyword arguments, and
// optionally preceded by the 'Parameter containing:' line of a printed nn.Parameter; and
// attn's own json and pretty output of one matrix.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"

namespace attn::io {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_space(char c) { return is_blank(c) || c == '\n'; }
bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the valid UTF-8 sequence of 2 to 4 bytes starting s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t len = b >= 0xC2 && b <= 0xDF ? 2 : (b >> 4) == 0xE ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return 0;
    for (std::size_t k = 1; k < len; ++k)
        if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
    return len;
}

// Quotes a piece of input for a message: printable ASCII and valid UTF-8 as is, other bytes
// as \xNN, long pieces cut.
std::string quoted(std::string_view s) {
    constexpr std::size_t max_shown = 32;
    std::string out = "'";
    std::size_t i = 0;
    while (i < s.size() && i < max_shown) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += char(c);
            ++i;
        } else if (const std::size_t len = c >= 0x80 ? utf8_length(s, i) : 0; len > 0) {
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

class TextReader {
public:
    TextReader(std::string_view text, const std::string& source, Finite finite)
        : s_(text), source_(source), finite_(finite) {}

    Matrix read() {
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
        std::size_t first = skip_space_and_comments(pos_);
        // print() of an nn.Parameter (a layer's weight) puts this line before the tensor
        constexpr std::string_view parameter = "Parameter containing:";
        if (s_.substr(first, parameter.size()) == parameter) pos_ = first = skip_space_and_comments(first + parameter.size());
        if (first < s_.size() && s_[first] == '{') expect_end(read_json_object(first));
        else if (const auto dims = pretty_header(first)) read_pretty(first, *dims);
        else if (first < s_.size() && (s_[first] == '[' || starts_wrapper(first))) expect_end(read_bracketed(first));
        else read_lines();
        if (rows_ == 0 || cols_ == 0) throw InputError(source_ + ": no numbers found (empty matrix)");
        Matrix m(rows_, cols_);
        for (std::size_t r = 0; r < rows_; ++r)
            for (std::size_t c = 0; c < cols_; ++c) m(r, c) = values_[r * cols_ + c];
        return m;
    }

private:
    std::string_view s_;
    const std::string& source_;
    Finite finite_;
    std::size_t pos_ = 0;
    std::vector<float> values_;
    std::size_t rows_ = 0, cols_ = 0;

    // ---- positions and errors ----
    std::size_t line_of(std::size_t offset) const {
        std::size_t line = 1;
        for (std::size_t i = 0; i < offset && i < s_.size(); ++i) line += s_[i] == '\n';
        return line;
    }
    std::string where(std::size_t offset) const {
        const std::size_t line_start = offset == 0 ? 0 : s_.rfind('\n', offset - 1);
        const std::size_t col = line_start == std::string_view::npos || offset == 0 ? offset + 1 : offset - line_start;
        return source_ + ":" + std::to_string(line_of(offset)) + ":" + std::to_string(col);
    }
    [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
        throw InputError(where(offset) + ": " + message);
    }
    [[noreturn]] void fail_expected(std::size_t offset, const std::string& what) const {
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

    // ---- lexing ----
    std::size_t skip_space_and_comments(std::size_t i) const {
        for (;;) {
            while (i < s_.size() && is_space(s_[i])) ++i;
            if (i < s_.size() && s_[i] == '#') {
                while (i < s_.size() && s_[i] != '\n') ++i;
                continue;
            }
            return i;
        }
    }
    // An identifier (tensor, array, np.array, ...) followed by '(' opens a wrapped matrix.
    bool starts_wrapper(std::size_t i) const {
        const char c = s_[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return false;
        while (i < s_.size() && is_ident(s_[i])) ++i;
        while (i < s_.size() && is_space(s_[i])) ++i;
        return i < s_.size() && s_[i] == '(';
    }

    // Parses one number token s_[begin, end) and appends it to values_.
    void push_number(std::size_t begin, std::size_t end) {
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
        if (body.size() > 1 && body[0] == '+' && body[1] != '-' && body[1] != '+') body.remove_prefix(1);
        double d = 0.0;
        const auto res = std::from_chars(body.data(), body.data() + body.size(), d);
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
        if (!std::isfinite(f)) {
            const bool allowed = finite_ == Finite::allow_neg_inf && std::isinf(f) && f < 0;
            if (!allowed)
                fail_at(begin, "non-finite value " + quoted(tok) + " is not allowed here" +
                                   (finite_ == Finite::allow_neg_inf ? " (only -inf is)" : ""));
        }
        values_.push_back(f);
    }

    void end_row(std::size_t row_start, std::size_t count) {
        if (count == 0) return;
        if (cols_ == 0) cols_ = count;
        else if (count != cols_)
            throw InputError(source_ + ":" + std::to_string(line_of(row_start)) + ": row has " +
                             std::to_string(count) + (count == 1 ? " value" : " values") + ", expected " +
                             std::to_string(cols_));
        ++rows_;
    }

    // "# NAME RxC": the block header attn's csv/tsv output puts before each of several matrices.
    static bool is_block_header(std::string_view comment) {
        std::size_t i = 1;  // after '#'
        while (i < comment.size() && is_blank(comment[i])) ++i;
        const std::size_t name = i;
        while (i < comment.size() && !is_blank(comment[i])) ++i;
        if (i == name || i == comment.size()) return false;
        while (i < comment.size() && is_blank(comment[i])) ++i;
        const std::size_t r = i;
        while (i < comment.size() && is_digit(comment[i])) ++i;
        if (i == r || i == comment.size() || comment[i] != 'x') return false;
        const std::size_t c = ++i;
        while (i < comment.size() && is_digit(comment[i])) ++i;
        if (i == c) return false;
        while (i < comment.size() && is_blank(comment[i])) ++i;
        return i == comment.size();
    }

    // ---- one row per line ----
    void read_lines() {
        std::size_t i = pos_;
        while (i <= s_.size()) {
            std::size_t eol = s_.find('\n', i);
            if (eol == std::string_view::npos) eol = s_.size();
            read_line(i, eol);
            i = eol + 1;
        }
    }

    void read_line(std::size_t begin, std::size_t eol) {
        std::size_t count = 0;
        std::size_t i = begin;
        for (;;) {
            while (i < eol && is_blank(s_[i])) ++i;
            if (i < eol && (s_[i] == ',' || s_[i] == ';') && count > 0) {  // one separator after a value
                ++i;
                while (i < eol && is_blank(s_[i])) ++i;
            }
            if (i == eol) break;
            if (rows_ > 0 && count == 0 && pretty_header(i))
                fail_at(i, "a second matrix starts here; attn reads one matrix per input");
            if (s_[i] == '#') {
                if (rows_ > 0 && count == 0 && is_block_header(s_.substr(i, eol - i)))
                    fail_at(i, "a second matrix starts here; attn reads one matrix per input");
                break;
            }
            std::size_t end = i;
            while (end < eol && !is_blank(s_[end]) && s_[end] != ',' && s_[end] != ';' && s_[end] != '#') ++end;
            if (end == i) fail_expected(i, "a number");  // a separator with no value before it
            push_number(i, end);
            ++count;
            i = end;
        }
        end_row(begin, count);
    }

    // ---- [[...], [...]] ----
    // Returns the offset after the matrix (and its wrapper's keyword arguments) and any space.
    std::size_t read_bracketed(std::size_t i) {
        const bool wrapped = s_[i] != '[';
        if (wrapped) {
            while (is_ident(s_[i])) ++i;
            i = skip_space_and_comments(i);
            ++i;  // '('
            i = skip_space_and_comments(i);
            if (i >= s_.size() || s_[i] != '[') fail_expected(i, "'['");
        }
        const std::size_t open = i;
        i = skip_space_and_comments(i + 1);
        if (i < s_.size() && s_[i] == '[') {  // a matrix: a list of rows
            for (;;) {
                if (s_[i] != '[') fail_expected(i, "'['");
                i = read_row(i);
                i = skip_space_and_comments(i);
                if (i < s_.size() && s_[i] == ',') i = skip_space_and_comments(i + 1);
                if (i < s_.size() && s_[i] == ']') break;
                if (i >= s_.size()) fail_expected(i, "']'");
            }
            ++i;
        } else {  // a single row
            i = read_row(open);
        }
        i = skip_space_and_comments(i);
        if (wrapped) i = skip_keyword_arguments(i);
        return skip_space_and_comments(i);
    }

    // Nothing but comments may follow a bracketed matrix.
    void expect_end(std::size_t i) const {
        if (i < s_.size()) {
            if (s_[i] == '[' || s_[i] == '{' || starts_wrapper(i))
                fail_at(i, "a second matrix starts here; attn reads one matrix per input");
            fail_expected(i, "end of input after the matrix");
        }
    }

    // ---- attn's own --format json of one matrix: {"NAME": [[...], ...]} ----
    std::size_t read_json_object(std::size_t i) {
        i = skip_space_and_comments(i + 1);
        if (i >= s_.size() || s_[i] != '"') fail_expected(i, "a quoted name");
        const std::size_t close = s_.find('"', i + 1);
        if (close == std::string_view::npos) fail_expected(s_.size(), "'\"'");
        i = skip_space_and_comments(close + 1);
        if (i >= s_.size() || s_[i] != ':') fail_expected(i, "':'");
        i = skip_space_and_comments(i + 1);
        if (i >= s_.size() || s_[i] != '[') fail_expected(i, "'['");
        i = read_bracketed(i);
        if (i < s_.size() && s_[i] == ',')
            fail_at(skip_space_and_comments(i + 1), "a second matrix starts here; attn reads one matrix per input");
        if (i >= s_.size() || s_[i] != '}') fail_expected(i, "'}'");
        return skip_space_and_comments(i + 1);
    }

    // ---- attn's own --format pretty of one matrix: "NAME (RxC):" then unlabelled rows ----
    struct Dims {
        std::size_t rows, cols;
    };
    // The header line starting at `i`, when it is one.
    std::optional<Dims> pretty_header(std::size_t i) const {
        std::size_t eol = s_.find('\n', i);
        if (eol == std::string_view::npos) eol = s_.size();
        std::string_view line = s_.substr(i, eol - i);
        while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
        const std::size_t open = line.rfind(" (");
        if (open == std::string_view::npos || open == 0 || line.size() < open + 6 || line.substr(line.size() - 2) != "):")
            return std::nullopt;
        for (std::size_t k = 0; k < open; ++k)
            if (is_space(line[k])) return std::nullopt;
        const std::string_view shape = line.substr(open + 2, line.size() - open - 4);  // "RxC"
        Dims d{};
        const auto r = std::from_chars(shape.data(), shape.data() + shape.size(), d.rows);
        if (r.ec != std::errc() || r.ptr == shape.data() + shape.size() || *r.ptr != 'x') return std::nullopt;
        const auto c = std::from_chars(r.ptr + 1, shape.data() + shape.size(), d.cols);
        if (c.ec != std::errc() || c.ptr != shape.data() + shape.size() || c.ptr == r.ptr + 1) return std::nullopt;
        return d;
    }

    void read_pretty(std::size_t header, Dims dims) {
        const std::size_t eol = s_.find('\n', header);
        pos_ = eol == std::string_view::npos ? s_.size() : eol + 1;
        read_lines();
        if (rows_ != dims.rows || cols_ != dims.cols)
            fail_at(header, "the header says " + std::to_string(dims.rows) + "x" + std::to_string(dims.cols) +
                                " but the matrix is " + std::to_string(rows_) + "x" + std::to_string(cols_));
    }

    // Reads "[v, v, ...]" starting at its '['; returns the offset after ']'.
    std::size_t read_row(std::size_t open) {
        std::size_t count = 0;
        std::size_t i = skip_space_and_comments(open + 1);
        for (;;) {
            if (i >= s_.size()) fail_expected(i, "']'");
            if (s_[i] == ']') break;
            if (count > 0 && s_[i] == ',') {
                i = skip_space_and_comments(i + 1);
                if (i < s_.size() && s_[i] == ']') break;  // trailing comma
            }
            if (i < s_.size() && s_[i] == '[')
                fail_at(i, "batched input is not supported yet (more than two levels of brackets)");
            std::size_t end = i;
            while (end < s_.size() && !is_space(s_[end]) && s_[end] != ',' && s_[end] != '[' && s_[end] != ']' &&
                   s_[end] != '#')
                ++end;
            if (end == i) fail_expected(i, "a number");
            push_number(i, end);
            ++count;
            i = skip_space_and_comments(end);
        }
        if (count == 0) throw InputError(where(open) + ": empty row");
        end_row(open, count);
        return i + 1;
    }

    // After the matrix in tensor(...)/array(...): ", dtype=float32, requires_grad=True)" etc.
    // Skipped up to the closing parenthesis, quotes and nested brackets respected.
    std::size_t skip_keyword_arguments(std::size_t i) {
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
};

}  // namespace

Tensor parse_text_tensor(std::string_view text, const std::string& source, Finite finite, std::size_t /*max_dims*/) {
    return Tensor(TextReader(text, source, finite).read());
}

}  // namespace attn::io
