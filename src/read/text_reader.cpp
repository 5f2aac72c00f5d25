// Text tensors: one row per line (numbers separated by spaces, tabs, commas or semicolons,
// '#' comments), in blocks headed by an index comment ("# [b, h]", "# NAME [b, h] RxC") or a
// pretty title ("NAME [b, h] (RxC):") for more than two dimensions; or the nested bracket
// form [[[...]]] as printed by PyTorch and NumPy, optionally wrapped as tensor(...) /
// array(...) with trailing keyword arguments, and optionally preceded by the 'Parameter
// containing:' line of a printed nn.Parameter; and attn's own json of one tensor.
#include <algorithm>
#include <array>
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
#include "read/number_parse.hpp"
#include "runtime/utf8.hpp"
#include "runtime/parallel.hpp"

namespace attn::io {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_space(char c) { return is_blank(c) || c == '\n'; }
bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Quotes a piece of input for a message: printable ASCII and valid UTF-8 (io/utf8.hpp) as
// is, other bytes and control characters as \xNN, long pieces cut.
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

class TextReader {
public:
    TextReader(std::string_view text, const std::string& source, Finite finite)
        : s_(text), source_(source), finite_(finite) {}

    // The tensor read, of at most max_dims dimensions.
    Tensor read(std::size_t max_dims) {
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
        std::size_t first = skip_space_and_comments(pos_);
        // print() of an nn.Parameter (a layer's weight) puts this line before the tensor
        constexpr std::string_view parameter = "Parameter containing:";
        if (s_.substr(first, parameter.size()) == parameter) pos_ = first = skip_space_and_comments(first + parameter.size());
        const std::size_t first_eol = std::min(s_.find('\n', first), s_.size());
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

private:
    std::string_view s_;
    const std::string& source_;
    Finite finite_;
    std::size_t pos_ = 0;
    std::vector<float> values_;       // C order: the values read since the last piece
    std::vector<std::vector<float>> read_pieces_;  // then these, in order, each of whole rows
    std::vector<std::size_t> dims_;   // the shape read
    std::size_t rows_ = 0, cols_ = 0;  // rows read; columns of every row

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
        push_parsed(begin, tok, body);
    }

    // Parses `body` (the token `tok` at `begin`, with any Unicode minus made ASCII) and
    // appends it to values_.
    void push_parsed(std::size_t begin, std::string_view tok, std::string_view body) {
        // Python's booleans, as a pasted torch or NumPy bool tensor prints them (a mask).
        if (body == "True" || body == "False") {
            values_.push_back(body == "True" ? 1.0f : 0.0f);
            return;
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
        if (!finite_allows(finite_, f))
            fail_at(begin, "non-finite value " + quoted(tok) + " is not allowed here" +
                               (finite_ == Finite::allow_neg_inf ? " (only -inf is)" : ""));
        values_.push_back(f);
    }

    // The common case in one pass: a finite number starting with a digit, '-' or '.' that
    // parse_decimal_fast (most numbers) or std::from_chars reads up to a character ending a
    // token (`ends`) or `limit`. Stores it in *out and returns the offset after it; npos when
    // the token needs push_number's full rules (a sign '+', inf, nan, '...', a Unicode minus,
    // out of range, not a number), which then reads the same bytes the same way (from_chars
    // to double, then to float).
    template <class Ends>
    std::size_t parse_plain_number(std::size_t i, std::size_t limit, Ends ends, float* out) const {
        if (i >= limit) return std::string_view::npos;
        const char c = s_[i];
        if (!(is_digit(c) || c == '-' || c == '.')) return std::string_view::npos;
        double d = 0.0;
        const char* stop = detail::parse_decimal_fast(s_.data() + i, s_.data() + limit, s_.data() + s_.size(), &d);
        if (!stop) {
            const auto res = std::from_chars(s_.data() + i, s_.data() + limit, d);
            if (res.ec != std::errc()) return std::string_view::npos;
            stop = res.ptr;
        }
        const std::size_t end = std::size_t(stop - s_.data());
        if (end < limit && !ends(s_[end])) return std::string_view::npos;
        const float f = static_cast<float>(d);
        if (!std::isfinite(f)) return std::string_view::npos;
        *out = f;
        return end;
    }
    template <class Ends>
    std::size_t push_plain_number(std::size_t i, std::size_t limit, Ends ends) {
        float f;
        const std::size_t end = parse_plain_number(i, limit, ends, &f);
        if (end != std::string_view::npos) values_.push_back(f);
        return end;
    }
    static bool ends_in_line(char ch) { return is_blank(ch) || ch == ',' || ch == ';' || ch == '#'; }

    void end_row(std::size_t row_start, std::size_t count) {
        if (count == 0) return;
        if (cols_ == 0) cols_ = count;
        else if (count != cols_)
            throw InputError(source_ + ":" + std::to_string(line_of(row_start)) + ": row has " +
                             std::to_string(count) + (count == 1 ? " value" : " values") + ", expected " +
                             std::to_string(cols_));
        ++rows_;
    }

    // ---- blocks of rows ----
    // A block's header: "# [b, h]", "# NAME [b, h] RxC", "# NAME RxC" (attn's csv/tsv),
    // "# draw N" / "# draw N [b, h]" (attn random's older output), "NAME [b, h] (RxC):" and
    // "NAME (RxC):" (attn's pretty). Any other comment is only a comment.
    struct Header {
        std::size_t pos = std::string_view::npos;  // offset of the header; npos: none
        std::string name;
        std::vector<std::size_t> index;
        bool has_index = false;
        std::optional<std::pair<std::size_t, std::size_t>> dims;
    };

    static std::string_view trim(std::string_view v) {
        while (!v.empty() && is_blank(v.front())) v.remove_prefix(1);
        while (!v.empty() && is_blank(v.back())) v.remove_suffix(1);
        return v;
    }
    // "RxC" in full. A number too large for size_t sets too_large (the text is then a header
    // that cannot be read, not a comment).
    static std::optional<std::pair<std::size_t, std::size_t>> parse_dims(std::string_view v, bool& too_large) {
        std::size_t r = 0, c = 0;
        const char* end = v.data() + v.size();
        const auto a = std::from_chars(v.data(), end, r);
        const auto read = [](std::from_chars_result res) { return res.ec == std::errc() || res.ec == std::errc::result_out_of_range; };
        if (!read(a) || a.ptr == end || *a.ptr != 'x') return std::nullopt;
        const auto b = std::from_chars(a.ptr + 1, end, c);
        if (!read(b) || b.ptr != end || b.ptr == a.ptr + 1) return std::nullopt;
        if (a.ec != std::errc() || b.ec != std::errc()) too_large = true;
        return std::pair{r, c};
    }
    // Takes a trailing "[i, j, ...]" (integers) off v; too_large as for parse_dims.
    static std::optional<std::vector<std::size_t>> take_index(std::string_view& v, bool& too_large) {
        if (v.empty() || v.back() != ']') return std::nullopt;
        const std::size_t open = v.rfind('[');
        if (open == std::string_view::npos) return std::nullopt;
        std::vector<std::size_t> index;
        std::string_view body = trim(v.substr(open + 1, v.size() - open - 2));
        while (!body.empty()) {
            std::size_t k = 0;
            const auto res = std::from_chars(body.data(), body.data() + body.size(), k);
            if (res.ec == std::errc::result_out_of_range) too_large = true;
            else if (res.ec != std::errc() || res.ptr == body.data() || index.size() == max_rank) return std::nullopt;
            index.push_back(k);
            body = trim(body.substr(std::size_t(res.ptr - body.data())));
            if (body.empty()) break;
            if (body[0] != ',') return std::nullopt;
            body = trim(body.substr(1));
            if (body.empty()) return std::nullopt;
        }
        v = trim(v.substr(0, open));
        return index;
    }
    static bool is_draw_name(std::string_view name) {
        if (name.substr(0, 5) != "draw ") return false;
        name.remove_prefix(5);
        return !name.empty() && std::all_of(name.begin(), name.end(), is_digit);
    }
    static bool is_one_token(std::string_view name) { return std::none_of(name.begin(), name.end(), is_blank); }

    // A header with an index or size too large for size_t is an error, not a comment to skip
    // (its rows would silently join the block before).
    Header checked(Header h, bool too_large) const {
        if (too_large) fail_at(h.pos, "this block header's index or size is too large");
        return h;
    }

    // The comment s_[i, eol) (s_[i] == '#') as a block header, when it is one.
    std::optional<Header> comment_header(std::size_t i, std::size_t eol) const {
        std::string_view v = trim(s_.substr(i + 1, eol - i - 1));
        Header h;
        h.pos = i;
        bool too_large = false;
        const std::size_t sp = v.find_last_of(" \t");
        if (auto d = parse_dims(sp == std::string_view::npos ? v : v.substr(sp + 1), too_large)) {
            h.dims = d;
            v = sp == std::string_view::npos ? std::string_view() : trim(v.substr(0, sp));
        }
        if (auto index = take_index(v, too_large)) {
            h.index = std::move(*index);
            h.has_index = true;
        }
        const bool draw = is_draw_name(v);
        if (!v.empty() && !draw && !is_one_token(v)) return std::nullopt;
        h.name = std::string(v);
        if (h.has_index || (!v.empty() && h.dims) || draw) return checked(std::move(h), too_large);
        return std::nullopt;
    }

    // The line s_[i, eol) as a pretty title "NAME (RxC):" / "NAME [b, h] (RxC):", when it is one.
    std::optional<Header> pretty_title(std::size_t i, std::size_t eol) const {
        const std::string_view line = trim(s_.substr(i, eol - i));
        if (line.size() < 2 || line.substr(line.size() - 2) != "):") return std::nullopt;
        const std::size_t open = line.rfind(" (");
        if (open == std::string_view::npos || open == 0) return std::nullopt;
        Header h;
        h.pos = i;
        bool too_large = false;
        h.dims = parse_dims(line.substr(open + 2, line.size() - open - 4), too_large);
        if (!h.dims) return std::nullopt;
        std::string_view v = trim(line.substr(0, open));
        if (auto index = take_index(v, too_large)) {
            h.index = std::move(*index);
            h.has_index = true;
        }
        if (v.empty() || !(is_one_token(v) || is_draw_name(v))) return std::nullopt;
        h.name = std::string(v);
        return checked(std::move(h), too_large);
    }

    static std::string index_text(const std::vector<std::size_t>& index) {
        std::string s = "[";
        for (std::size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
        return s + "]";
    }

    std::vector<Header> headers_;          // one per block
    std::vector<std::size_t> block_rows_;  // rows of each block

    // Checks the last block, now complete.
    void finish_block() {
        const Header& h = headers_.back();
        const std::size_t rows = block_rows_.back();
        if (h.pos == std::string_view::npos) return;
        if (rows == 0) fail_at(h.pos, "this block has no rows");
        if (h.dims && (h.dims->first != rows || h.dims->second != cols_))
            fail_at(h.pos, "the header says " + std::to_string(h.dims->first) + "x" + std::to_string(h.dims->second) +
                               " but the " + (h.has_index ? "block" : "matrix") + " is " + std::to_string(rows) + "x" +
                               std::to_string(cols_));
        if (block_rows_.size() > 1 && rows != block_rows_[0])
            fail_at(h.pos, "block " + index_text(h.index) + " has " + std::to_string(rows) + " rows, expected " +
                               std::to_string(block_rows_[0]) + " as block " + index_text(headers_[0].index));
    }

    void start_block(Header h) {
        if (block_rows_.back() == 0 && headers_.back().pos == std::string_view::npos) {
            headers_.back() = std::move(h);  // nothing came before the first header
            return;
        }
        finish_block();
        const Header& first = headers_[0];
        // Blocks without an index, or of another name, are another tensor: never glued on.
        if (!first.has_index || !h.has_index || first.name != h.name)
            fail_at(h.pos, "a second matrix starts here; attn reads one matrix per input");
        if (h.index.size() != first.index.size())
            fail_at(h.pos, "index " + index_text(h.index) + " has " + std::to_string(h.index.size()) +
                               " dimensions, the first block's " + index_text(first.index) + " has " +
                               std::to_string(first.index.size()));
        headers_.push_back(std::move(h));
        block_rows_.push_back(0);
    }

    void read_lines() {
        headers_.assign(1, Header{});
        block_rows_.assign(1, 0);
        std::size_t i = pos_, plain_tried_until = 0;
        while (i <= s_.size()) {
            if (i >= plain_tried_until) {  // a long run of plain rows goes to all threads
                const auto [next, run_end] = read_plain_run(i);
                plain_tried_until = run_end;
                if (next != i) {
                    i = next;
                    continue;
                }
            }
            std::size_t eol = s_.find('\n', i);
            if (eol == std::string_view::npos) eol = s_.size();
            std::size_t first = i;
            while (first < eol && is_blank(s_[first])) ++first;
            std::optional<Header> h;
            if (first < eol) h = s_[first] == '#' ? comment_header(first, eol) : pretty_title(first, eol);
            if (h) {
                start_block(std::move(*h));
            } else {
                const std::size_t before = rows_;
                read_line(i, eol);
                block_rows_.back() += rows_ - before;
            }
            i = eol + 1;
        }
        finish_block();
        // The shape: the grid of block indices, which come in C order (last index fastest)
        // and fill it, then rows × columns.
        std::vector<std::size_t> extent(headers_[0].index.size(), 0);
        for (const Header& h : headers_)
            for (std::size_t k = 0; k < extent.size(); ++k) extent[k] = std::max(extent[k], h.index[k] + 1);
        std::vector<std::size_t> expected(extent.size(), 0);
        bool wrapped = false;  // the odometer went past the last index
        for (const Header& h : headers_) {
            if (wrapped || h.index != expected)
                fail_at(h.pos, "block " + index_text(h.index) + " is out of order: expected " +
                                   (wrapped ? std::string("no more blocks") : index_text(expected)) +
                                   " (blocks come in C order, last index fastest)");
            wrapped = true;
            for (std::size_t k = expected.size(); k-- > 0;) {
                if (++expected[k] < extent[k]) {
                    wrapped = false;
                    break;
                }
                expected[k] = 0;
            }
        }
        if (!extent.empty() && !wrapped)
            throw InputError(source_ + ": block " + index_text(expected) +
                             " is missing: the blocks do not fill the grid of their indices");
        if (rows_ == 0) return;
        dims_ = extent;
        dims_.push_back(block_rows_[0]);
        dims_.push_back(cols_);
    }

    // ---- many plain rows at once ----
    // The start of the first line from line start i on whose first non-blank byte is not a
    // digit, '-' or '.' (s_.size() + 1 when there is none): looked for by all threads in
    // windows of doubling size, so that at most about twice the run is scanned.
    std::size_t plain_run_end(std::size_t i) const {
        constexpr std::size_t npos = std::string_view::npos, pieces = 8;
        for (std::size_t from = i, window = std::size_t(1) << 18; from <= s_.size(); from += window, window *= 2) {
            const std::size_t to = std::min(s_.size() + 1, from + window);  // the lines starting in [from, to)
            std::array<std::size_t, pieces> found;
            found.fill(npos);
            parallel_for(pieces, [&](std::size_t k) {
                std::size_t line = from + (to - from) * k / pieces;
                const std::size_t until = from + (to - from) * (k + 1) / pieces;
                if (line > i) {  // the first line start at or after it
                    const std::size_t nl = s_.find('\n', line - 1);
                    line = nl == npos ? s_.size() + 1 : nl + 1;
                }
                while (line < until && line <= s_.size()) {
                    std::size_t eol = s_.find('\n', line);
                    if (eol == npos) eol = s_.size();
                    std::size_t first = line;
                    while (first < eol && is_blank(s_[first])) ++first;
                    if (first < eol && !(is_digit(s_[first]) || s_[first] == '-' || s_[first] == '.')) {
                        found[k] = line;
                        return;
                    }
                    line = eol + 1;
                }
            });
            for (const std::size_t at : found)
                if (at != npos) return at;
            if (to > s_.size()) break;
        }
        return s_.size() + 1;
    }


    // The run of lines from line start i up to the first whose first non-blank byte is not
    // a digit, '-' or '.' (a comment, header, title or anything unusual), cut into bands at
    // line ends and read by all threads with read_line's rules and parse_plain_number's path
    // only. Returns {offset after the run, same} when every number took that path and every
    // row has the same count, the rows then counted in order as read_line would; {i, end of
    // the run} otherwise, and the serial loop reads the run with all its rules and messages.
    std::pair<std::size_t, std::size_t> read_plain_run(std::size_t i) {
        constexpr std::size_t min_run_bytes = std::size_t(1) << 20, bands = 16;
        if (s_.size() - i < min_run_bytes) return {i, s_.size() + 1};
        const std::size_t run_end = plain_run_end(i);
        const std::size_t stop = std::min(run_end, s_.size());  // bytes [i, stop) hold the run
        if (stop - i < min_run_bytes) return {i, run_end};
        std::vector<std::size_t> cut(bands + 1, stop);  // band b: [cut[b], cut[b + 1])
        cut[0] = i;
        for (std::size_t b = 1; b < bands; ++b) {
            const std::size_t nl = s_.find('\n', std::max(cut[b - 1], i + (stop - i) / bands * b));
            cut[b] = nl == std::string_view::npos || nl >= stop ? stop : nl + 1;
        }
        struct Band {
            std::vector<float> values;
            std::size_t rows = 0, cols = 0;
            bool plain = true;
        };
        std::vector<Band> out(bands);
        parallel_for(bands, [&](std::size_t b) {
            Band& band = out[b];
            // Values are stored through a local cursor, not push_back: the vector's end pointer
            // was stored and loaded again for every number, a chain through memory (measured:
            // 12% of the CPU time of reading a 12.8 MB csv; the zero-fill of the estimate
            // costs far less).
            band.values.resize(std::max<std::size_t>(64, (cut[b + 1] - cut[b]) / 8));
            float* at = band.values.data();
            float* at_end = at + band.values.size();
            for (std::size_t line = cut[b]; line < cut[b + 1] && band.plain;) {
                std::size_t eol = s_.find('\n', line);
                if (eol == std::string_view::npos || eol > cut[b + 1]) eol = std::min(cut[b + 1], s_.size());
                std::size_t count = 0, j = line;
                for (;;) {  // read_line's tokens
                    while (j < eol && is_blank(s_[j])) ++j;
                    if (j < eol && (s_[j] == ',' || s_[j] == ';') && count > 0) {
                        ++j;
                        while (j < eol && is_blank(s_[j])) ++j;
                    }
                    if (j == eol || s_[j] == '#') break;
                    float f;
                    const std::size_t after = parse_plain_number(j, eol, ends_in_line, &f);
                    if (after == std::string_view::npos) {
                        band.plain = false;
                        break;
                    }
                    if (at == at_end) {
                        const std::size_t n = band.values.size();
                        band.values.resize(2 * n);
                        at = band.values.data() + n, at_end = band.values.data() + 2 * n;
                    }
                    *at++ = f;
                    ++count;
                    j = after;
                }
                if (count > 0) {
                    if (band.cols == 0) band.cols = count;
                    band.plain &= count == band.cols;
                    ++band.rows;
                }
                line = eol + 1;
            }
            band.values.resize(std::size_t(at - band.values.data()));
        });
        std::size_t cols = cols_, rows = 0;
        for (const Band& band : out) {
            if (!band.plain || (band.rows > 0 && cols != 0 && band.cols != cols)) return {i, run_end};
            if (band.rows > 0) cols = band.cols;
            rows += band.rows;
        }
        // Kept as they are (no copy until the tensor is filled), after what came before them.
        if (!values_.empty()) read_pieces_.push_back(std::move(values_));
        values_.clear();
        for (Band& band : out)
            if (!band.values.empty()) read_pieces_.push_back(std::move(band.values));
        cols_ = cols;
        rows_ += rows;
        block_rows_.back() += rows;
        return {run_end, run_end};
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
            if (i == eol || s_[i] == '#') break;
            if (const std::size_t after = push_plain_number(i, eol, ends_in_line); after != std::string_view::npos) {
                ++count;
                i = after;
                continue;
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

    // ---- [[...], [...]], nested to any depth ----
    // Returns the offset after the tensor (and its wrapper's keyword arguments) and any space.
    std::size_t read_bracketed(std::size_t i) {
        const bool wrapped = s_[i] != '[';
        if (wrapped) {
            while (is_ident(s_[i])) ++i;
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

    std::optional<std::size_t> leaf_depth_;         // the depth of the lists that hold numbers
    std::array<std::size_t, max_rank> list_length_{};  // entries of every list at each depth

    // Reads the list whose '[' is at `open`, `depth` levels deep; returns the offset after ']'.
    // All lists at one depth have the same length, and numbers sit at one depth only.
    std::size_t read_list(std::size_t open, std::size_t depth) {
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
        // attn's labelled json ends with "labels" / "key_labels": token lists, not numbers.
        while (i < s_.size() && s_[i] == ',') {
            const std::size_t key = skip_space_and_comments(i + 1);
            const std::string_view rest = s_.substr(key);
            const std::size_t skip = rest.starts_with("\"labels\"")       ? 8
                                     : rest.starts_with("\"key_labels\"") ? 12
                                                                          : 0;
            if (skip == 0) fail_at(key, "a second matrix starts here; attn reads one matrix per input");
            i = skip_space_and_comments(key + skip);
            if (i >= s_.size() || s_[i] != ':') fail_expected(i, "':'");
            i = skip_string_list(skip_space_and_comments(i + 1));
        }
        if (i >= s_.size() || s_[i] != '}') fail_expected(i, "'}'");
        return skip_space_and_comments(i + 1);
    }

    // Skips a json list of strings ["a", "b\"c"] starting at its '['; returns the offset after
    // it (and the space that follows).
    std::size_t skip_string_list(std::size_t i) {
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

Tensor parse_text_tensor(std::string_view text, const std::string& source, Finite finite, std::size_t max_dims) {
    return TextReader(text, source, finite).read(max_dims);
}

}  // namespace attn::io
