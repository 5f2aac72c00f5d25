// Internal to src/read: the reader of text tensors behind parse_text_tensor (attn/io.hpp),
// one class in three files by what it reads:
//   text_reader.cpp    the entry, positions and messages, and number tokens;
//   text_lines.cpp     rows one per line, in blocks under headers, long texts read in bands
//                      by all threads;
//   text_literals.cpp  the nested bracket form pasted from PyTorch and NumPy
//                      (tensor(...), array(...)) and attn's own json of one tensor.
#pragma once
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/io.hpp"
#include "attn/tensor.hpp"
#include "read/number_parse.hpp"
#include "runtime/system_memory.hpp"

namespace attn::io::detail {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool is_space(char c) { return is_blank(c) || c == '\n'; }
inline bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The files whose results FILE.EXT:NAME selects one of (read/reader.cpp): attn's json, csv, tsv.
inline constexpr std::array<std::string_view, 3> result_file_extensions = {".json", ".csv", ".tsv"};

// Whether `text` is a PyTorch or NumPy print of an integer or bool tensor: tensor(...) or
// array(...) whose dtype= names such a type or, with no dtype= (int64, the default, prints
// none), whose values are all integer literals (floats print with a '.' or an exponent). A
// mask printed so is boolean, as an .npy of that type is (text_literals.cpp).
bool integer_print(std::string_view text);

// Quotes a piece of input for a message: printable ASCII and valid UTF-8 (runtime/utf8.hpp)
// as is, other bytes and control characters as \xNN, long pieces cut.
std::string quoted(std::string_view s);

class TextReader {
public:
    TextReader(std::string_view text, const std::string& source, Finite finite)
        : s_(text), source_(source), finite_(finite) {}

    // The tensor read, of at most max_dims dimensions.
    Tensor read(std::size_t max_dims);

    // ---- attn's own output read back (text_sections.cpp); the copies returned have the
    // length and line breaks of the text, spaces where bytes are dropped ----
    // Labelled csv/tsv (write/printer.cpp with labels): every result, or every slice under a
    // "# NAME ..." heading, either a header row of column labels and rows of numbers, or rows
    // each led by a label field, or both (the header's first field then empty); fields split
    // by ',' (labels quoted as RFC 4180) or by tabs, no spaces. The text with the header rows
    // and label fields blanked, or nullopt when it is not that shape or holds no labels. A
    // section is taken for labelled only when a label on its first two lines is not a number.
    static std::optional<std::string> without_labels(std::string_view text);

    // The result `name` alone: of attn's json, the member "name" (a nested list of numbers);
    // of its csv/tsv, the lines under the headings "# name ..." (name as heading_name gives
    // it). InputError naming the results there when there is no such result.
    std::string only_result(const std::string& name) const;
    // attn's json of records alone at s_[first], as only_result reads a named one: an object whose
    // one member holds records ({"variance": {...}}: attend --show variance), or a list of
    // records ([{...}, ...]: attn variance); nullopt for any other text.
    std::optional<std::string> bare_records(std::size_t first) const;

    // The offset after the json string whose '"' is at s[i] (escapes skipped); npos when it does
    // not end. json_key: a quoted json name (with its quotes) decoded as JSON (\uXXXX too:
    // json_quote writes controls so); a name that is not valid JSON, its bytes with \" and \\ undone.
    static std::size_t json_string_end(std::string_view s, std::size_t i);
    static std::string json_key(std::string_view quoted);

private:
    std::string_view s_;
    const std::string& source_;
    Finite finite_;
    std::size_t pos_ = 0;
    std::vector<float> values_;       // C order: the values read since the last piece
    std::vector<std::vector<float>> read_pieces_;  // then these, in order, each of whole rows
    std::vector<std::size_t> dims_;   // the shape read
    std::size_t rows_ = 0, cols_ = 0;  // rows read; columns of every row

    // ---- positions and errors (text_reader.cpp, as the numbers below) ----
    std::size_t line_of(std::size_t offset) const;
    std::string where(std::size_t offset) const;
    [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const;
    [[noreturn]] void fail_expected(std::size_t offset, const std::string& what) const;

    // ---- lexing ----
    std::size_t skip_space_and_comments(std::size_t i) const;
    // An identifier (tensor, array, np.array, ...) followed by '(' opens a wrapped matrix.
    bool starts_wrapper(std::size_t i) const;

    // Parses one number token s_[begin, end) and appends it to values_.
    void push_number(std::size_t begin, std::size_t end);

    // Parses `body` (the token `tok` at `begin`, with any Unicode minus made ASCII) and
    // appends it to values_.
    void push_parsed(std::size_t begin, std::string_view tok, std::string_view body);

    // detail::parse_plain_number at s_[i, limit): the offset after the number, npos when the
    // token needs push_number's full rules.
    template <class Ends>
    std::size_t parse_plain_number(std::size_t i, std::size_t limit, Ends ends, float* out) const {
        const char* stop =
            detail::parse_plain_number(s_.data() + i, s_.data() + limit, s_.data() + s_.size(), ends, out);
        return stop ? std::size_t(stop - s_.data()) : std::string_view::npos;
    }
    template <class Ends>
    std::size_t push_plain_number(std::size_t i, std::size_t limit, Ends ends) {
        float f;
        const std::size_t end = parse_plain_number(i, limit, ends, &f);
        if (end != std::string_view::npos) push_value(f);
        return end;
    }
    // Appends to values_, the memory check first whenever it must grow.
    void push_value(float f) {
        if (values_.size() == values_.capacity()) grow_checked(values_, 1);
        values_.push_back(f);
    }
    static bool ends_in_line(char ch) { return is_blank(ch) || ch == ',' || ch == ';' || ch == '#'; }

    void end_row(std::size_t row_start, std::size_t count);

    // ---- blocks of rows (text_lines.cpp) ----
    // A block's header: "# [b, h]", "# NAME [b, h] RxC", "# NAME RxC", "# NAME (N,)" (attn's
    // csv/tsv; (N,) a vector, NumPy's notation), "# draw N" / "# draw N [b, h]" (attn random's
    // older output), "NAME [b, h] (RxC):", "NAME (RxC):" and "NAME (N,):" (attn's pretty). Any
    // other comment is only a comment.
    struct Dims {
        std::size_t rows = 0, cols = 0;
        bool vector = false;  // "(N,)": one row of N that is read as the vector (N,)
        std::string text() const {
            return vector ? "(" + std::to_string(cols) + ",)" : std::to_string(rows) + "x" + std::to_string(cols);
        }
    };
    struct Header {
        std::size_t pos = std::string_view::npos;  // offset of the header; npos: none
        std::string name;
        std::vector<std::size_t> index;
        bool has_index = false;
        std::optional<Dims> dims;
    };

    static std::string_view trim(std::string_view v);
    // "RxC" or "(N,)" in full. A number too large for size_t sets too_large (the
    // text is then a header that cannot be read, not a comment).
    static std::optional<Dims> parse_dims(std::string_view v, bool& too_large);
    // Takes a trailing "[i, j, ...]" (integers) off v; too_large as for parse_dims.
    static std::optional<std::vector<std::size_t>> take_index(std::string_view& v, bool& too_large);
    static bool is_draw_name(std::string_view name);
    static bool is_one_token(std::string_view name) { return std::none_of(name.begin(), name.end(), is_blank); }

    // A header with an index or size too large for size_t is an error, not a comment to skip
    // (its rows would silently join the block before).
    Header checked(Header h, bool too_large) const;

    // The comment s_[i, eol) (s_[i] == '#') as a block header, when it is one.
    std::optional<Header> comment_header(std::size_t i, std::size_t eol) const;

    // The line s_[i, eol) as a pretty title "NAME (RxC):" / "NAME [b, h] (RxC):", when it is one.
    std::optional<Header> pretty_title(std::size_t i, std::size_t eol) const;

    static std::string index_text(const std::vector<std::size_t>& index);

    // The name of a heading "# NAME [b, h] RxC" (or "# NAME RxC", "# NAME"): NAME.
    static std::string heading_name(std::string_view line);
    // The NAME of a pretty title "NAME (RxC):" / "NAME [b, h] (RxC):" / "NAME (N,):", when the
    // line is one (as pretty_title reads it), or of a record's "NAME:": pretty output's results,
    // selected as FILE:NAME.
    static std::optional<std::string> pretty_title_name(std::string_view line);
    // "; name one, as FILE:NAME" for a second result after the one named `name` in a file ("" on
    // standard input, without a name, or for a file not named as result_file_extensions).
    std::string name_one_hint(const std::string& name) const;

    std::vector<Header> headers_;          // one per block
    std::vector<std::size_t> block_rows_;  // rows of each block

    // Checks the last block, now complete.
    void finish_block();

    void start_block(Header h);

    void read_lines();

    // The line whose first non-blank byte is at `first` (eol: its end) as a block header:
    // a comment header or a pretty title, as comment_header / pretty_title tell.
    std::optional<Header> line_header(std::size_t first, std::size_t eol) const;

    // Reads the lines starting in [from, to) one by one, with every rule and message.
    void read_serially(std::size_t from, std::size_t to);

    // ---- long texts on all threads (text_lines.cpp) ----
    // What one band of lines holds when every number took parse_plain_number's path and every
    // row has the same count: its values and rows, and its headers, each after the number of
    // the band's rows before it.
    struct Band {
        std::vector<float> values;
        std::size_t rows = 0, cols = 0;
        std::vector<std::pair<std::size_t, Header>> headers;
        bool plain = true;  // false: read it again with read_serially
    };

    // The text from pos_ on, cut into bands at line starts once (never per line, whatever
    // the pattern of comments and headers) and read by all threads with read_band; then, in
    // order, each band's rows and headers counted as the serial loop would, or the band read
    // again by read_serially (its messages) when it is not plain or its rows have another count.
    void read_bands();

    // The lines starting in [from, to), with read_line's rules and parse_plain_number's path
    // only; headers as line_header tells.
    Band read_band(std::size_t from, std::size_t to) const;

    void read_line(std::size_t begin, std::size_t eol);

    // ---- [[...], [...]], nested to any depth (text_literals.cpp) ----
    // Returns the offset after the tensor (and its wrapper's keyword arguments) and any space.
    std::size_t read_bracketed(std::size_t i);

    std::optional<std::size_t> leaf_depth_;         // the depth of the lists that hold numbers
    std::array<std::size_t, max_rank> list_length_{};  // entries of every list at each depth

    // Reads the list whose '[' is at `open`, `depth` levels deep; returns the offset after ']'.
    // All lists at one depth have the same length, and numbers sit at one depth only.
    std::size_t read_list(std::size_t open, std::size_t depth);

    // Nothing but comments may follow a bracketed matrix.
    void expect_end(std::size_t i) const;

    // ---- attn's own --format json of one matrix: {"NAME": [[...], ...]} ----
    std::size_t read_json_object(std::size_t i);

    // Skips a json list of strings ["a", "b\"c"] starting at its '['; returns the offset after
    // it (and the space that follows).
    std::size_t skip_string_list(std::size_t i);

    // Reads "[v, v, ...]" starting at its '['; returns the offset after ']'.
    std::size_t read_row(std::size_t open);

    // After the matrix in tensor(...)/array(...): ", dtype=float32, requires_grad=True)" etc.
    // Skipped up to the closing parenthesis, quotes and nested brackets respected.
    std::size_t skip_keyword_arguments(std::size_t i);
};

}  // namespace attn::io::detail
