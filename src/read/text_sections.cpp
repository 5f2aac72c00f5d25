// attn's own text output read back whole: the labels of labelled csv/tsv (a header row of
// column labels and a first field of row labels, as write/printer.cpp writes them with
// --labels) blanked out so that the rows read as numbers; and one named result of a file that
// holds several (FILE.csv:NAME, FILE.json:NAME). Each rewrites the text into a copy of the
// same length with spaces where it drops bytes, so the reader's messages still point at the
// line and column of the file as it is. Part of the TextReader of text_reader.hpp.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <charconv>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "attn/error.hpp"
#include "tensor/label_numbers.hpp"
#include "read/input_bytes.hpp"
#include "read/json.hpp"
#include "read/draw_names.hpp"
#include "read/text_reader.hpp"

#include <sys/stat.h>
#include "runtime/utf8.hpp"

namespace attn::io::detail {

namespace {

constexpr std::string_view bom = "\xEF\xBB\xBF";

struct Line {
    std::size_t begin, end;  // end: before "\r\n" or "\n"
};

// The lines of a text from `start` on, one at a time (a text may hold a billion of them),
// each without its line end.
class Lines {
public:
    Lines(std::string_view text, std::size_t start) : s_(text), next_(start) {}
    bool next(Line& l) {
        if (next_ > s_.size()) return false;
        std::size_t eol = s_.find('\n', next_);
        if (eol == std::string_view::npos) eol = s_.size();
        l = {next_, eol > next_ && s_[eol - 1] == '\r' ? eol - 1 : eol};
        next_ = eol + 1;
        return true;
    }
    std::string_view text(const Line& l) const { return s_.substr(l.begin, l.end - l.begin); }

private:
    std::string_view s_;
    std::size_t next_;
};

// attn's records in json (variance, kv-error), read back as their csv is: one record {"f": x, ...}
// as a column of its numbers, a list of records as one row each (the same fields in the same
// order). `where` (FILE:NAME) heads the errors.
std::string json_records(std::string_view text, const std::string& where) {
    json::Value v;
    try {
        v = json::parse_json(text);
    } catch (const InputError& e) {
        throw InputError(where + ": its value: " + e.what());  // (the json parser counts bytes from the value)
    }
    // A record's numbers in order, a nested record's in its place (attn variance's "scaled": {...},
    // which its csv writes as scaled_* columns); fields named as outer.inner.
    struct Flat {
        std::vector<std::string> fields, numbers;
    };
    const auto flatten = [&](const json::Value& record, const std::string& outer, Flat& flat, auto& self) -> void {
        for (std::size_t k = 0; k < record.size(); ++k) {
            const json::Value& x = record.values()[k];
            const std::string name = outer + record.keys()[k];
            const std::string field = "\"" + printable_utf8(name) + "\"";
            if (std::find(record.keys().begin(), record.keys().begin() + std::ptrdiff_t(k), record.keys()[k]) !=
                record.keys().begin() + std::ptrdiff_t(k))
                throw InputError(where + ": " + field + " twice in a record");
            if (x.is_object() && x.size() > 0) {
                self(x, name + ".", flat, self);
                continue;
            }
            if (!x.is_number())
                throw InputError(where + ": " + field + " is " + (x.is_null() ? "null (json's NaN or inf)" : "not a number"));
            char buf[32];
            const auto r = std::to_chars(buf, buf + sizeof buf, x.as_number());  // shortest: the same double
            flat.fields.push_back(name);
            flat.numbers.emplace_back(buf, r.ptr);
            if (std::isinf(float(x.as_number())))
                throw InputError(where + ": " + field + " is " + flat.numbers.back() + ": out of float32 range");
        }
    };
    const auto numbers = [&](const json::Value& record) {
        if (!record.is_object() || record.size() == 0)
            throw InputError(where + ": not a tensor (a nested list of numbers) nor records");
        Flat flat;
        flatten(record, "", flat, flatten);
        return flat;
    };
    std::string out = "[";
    if (v.is_object()) {
        for (const std::string& x : numbers(v).numbers) out += (out.size() > 1 ? ", [" : "[") + x + "]";
        return out + "]";
    }
    const std::vector<json::Value>& records = v.as_array();
    std::vector<std::string> first_fields;
    for (const json::Value& record : records) {
        const Flat row = numbers(record);
        if (&record == &records.front()) first_fields = row.fields;
        else if (row.fields != first_fields) throw InputError(where + ": records with other fields than the first's");
        out += out.size() > 1 ? ", [" : "[";
        for (std::size_t k = 0; k < row.numbers.size(); ++k) out += (k ? ", " : "") + row.numbers[k];
        out += "]";
    }
    return out + "]";
}

bool is_blank_line(std::string_view line) {
    for (char c : line)
        if (!is_blank(c)) return false;
    return true;
}

// What attn writes before each result or slice of several: "# NAME ..." at the start of a line.
bool is_heading(std::string_view line) { return line.starts_with("# "); }

void blank_out(std::string& out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
}

// The bytes of attn's numbers as write_significant prints them: digits, letters (e, inf, nan),
// signs and points; nothing the plain reader would let pass around a number (a space, quote,
// ';' or '#').
constexpr std::array<bool, 256> numeric_bytes = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-' ||
               c == '.';
    return t;
}();

// Whether a field of numeric_bytes can start a number: a digit, sign or point first, or nan, inf.
bool starts_numeric(std::string_view f) {
    if (f.empty()) return false;
    const char c = f[0];
    return is_digit(c) || c == '-' || c == '+' || c == '.' || f.starts_with("nan") || f.starts_with("inf");
}

// The number of fields in `rest` when each is a number as attn writes it, between single
// `sep`s; 0 otherwise. One pass over the bytes.
std::size_t numeric_fields(std::string_view rest, char sep) {
    std::size_t fields = 0;
    for (std::size_t i = 0;;) {
        const std::size_t start = i;
        while (i < rest.size() && rest[i] != sep) {
            if (!numeric_bytes[static_cast<unsigned char>(rest[i])]) return 0;
            ++i;
        }
        if (!starts_numeric(rest.substr(start, i - start))) return 0;
        ++fields;
        if (i == rest.size()) return fields;
        ++i;
    }
}

// The end of the field of `line` that starts at i: at the next `sep` or the line's end. attn's
// csv (sep ',') quotes a field holding commas in double quotes, "" being a quote (RFC 4180);
// its tsv (sep '\t') does not quote (labels escape their tabs). npos for a quote left open
// or text after a closing quote.
std::size_t field_end(std::string_view line, std::size_t i, char sep) {
    if (sep != ',' || i >= line.size() || line[i] != '"') {
        const std::size_t at = line.find(sep, i);
        return at == std::string_view::npos ? line.size() : at;
    }
    for (std::size_t end = i + 1; end < line.size(); ++end) {
        if (line[end] != '"') continue;
        if (end + 1 < line.size() && line[end + 1] == '"') {
            ++end;
            continue;
        }
        return end + 1 == line.size() || line[end + 1] == sep ? end + 1 : std::string_view::npos;
    }
    return std::string_view::npos;
}

// The fields of a line, into `fields`; false when field_end finds a bad quote.
bool split_fields(std::string_view line, char sep, std::vector<std::string_view>& fields) {
    fields.clear();
    for (std::size_t i = 0;;) {
        const std::size_t end = field_end(line, i, sep);
        if (end == std::string_view::npos) return false;
        fields.push_back(line.substr(i, end - i));
        if (end == line.size()) return true;
        i = end + 1;
    }
}

// A label that holds a number (not only blanks, which attn writes for a blank token as it is).
bool is_number_label(std::string_view f) {
    return f.find_first_not_of(" \t\r\v\f") != std::string_view::npos && label_reads_as_numbers(f);
}

// How one result's rows are labelled. attn writes a header row of column labels (its first
// field empty when there are row labels too) and each row's label as its first field.
struct Layout {
    char sep = ',';
    bool row_labels = false, col_labels = false;
    bool operator==(const Layout&) const = default;
};

// Whether the lines of the section text[begin, end) that are not blank (the first max_lines of
// them) have layout `l`: the same number of fields on every line, the header row's first field
// empty when there are row labels too, numbers everywhere but the labels; a label on the first
// two of those lines that neither is nor begins as a number (without one, the section is not
// taken for labelled, so that plain numbers with a mistake are never read as labels: the plain
// reader's message stands); and, but for both labels (the header's empty corner marks them:
// pandas' to_csv writes its integer index so), no label that is a number (attn quotes or escapes
// such a label: label_field in write/printer.cpp; "4,5,6" over "abc,1,2" lost its first column).
// With `out`, the labels (the header row; each row's label and its separator) are blanked in it
// as they are found, up to *blanked (a section that turns out not to fit is then restored from
// the text). Not `judge`: only the labels blanked, whatever the numbers around them, but for a
// row "label" that may not be a number and is one (a section whose first lines are labelled and
// a later one is not right: the plain reader then names the mistake where it is, not the header
// row); true.
bool fits(std::string_view text, std::size_t begin, std::size_t end, const Layout& l, std::size_t max_lines,
          std::string* out = nullptr, std::size_t* blanked = nullptr, bool judge = true) {
    Lines lines(text.substr(0, end), begin);
    std::vector<std::string_view> fields;
    std::size_t r = 0, count = 0;
    bool evidence = false;
    const bool numbers_may_label = l.row_labels && l.col_labels;
    const auto blank = [&](std::size_t from, std::size_t to) {
        if (!out) return;
        blank_out(*out, from, to);
        *blanked = to;
    };
    for (Line line; r < max_lines && lines.next(line);) {
        const std::string_view v = lines.text(line);
        if (is_blank_line(v)) continue;
        if (r == 0 && l.col_labels) {  // the header row
            if (judge) {
                if (!split_fields(v, l.sep, fields) || fields.size() < (l.row_labels ? 2u : 1u)) return false;
                if (l.row_labels && !fields[0].empty()) return false;
                for (std::size_t k = l.row_labels ? 1 : 0; k < fields.size(); ++k) {
                    if (!numbers_may_label && is_number_label(fields[k])) return false;
                    evidence |= !label_reads_as_numbers(fields[k]) && !label_begins_as_number(fields[k]);
                }
                count = fields.size();
            }
            blank(line.begin, line.end);
        } else {
            std::size_t numbers = 0;  // where the numbers start
            if (l.row_labels) {
                const std::size_t label_end = field_end(v, 0, l.sep);
                if (label_end == std::string_view::npos || label_end == v.size()) {
                    if (judge) return false;
                    ++r;
                    continue;
                }
                const std::string_view label = v.substr(0, label_end);
                if (!numbers_may_label && is_number_label(label)) {
                    if (judge) return false;
                    ++r;
                    continue;
                }
                if (r < 2) evidence |= !label_reads_as_numbers(label) && !label_begins_as_number(label);
                numbers = label_end + 1;
            }
            if (judge) {
                const std::size_t n = numeric_fields(v.substr(numbers), l.sep);
                if (n == 0 || (r > 0 && n + (l.row_labels ? 1 : 0) != count)) return false;
                count = n + (l.row_labels ? 1 : 0);
            }
            blank(line.begin, line.begin + numbers);
        }
        if (++r == 2 && judge && !evidence) return false;
    }
    return !judge || (evidence && r >= (l.col_labels ? 2u : 1u));
}

}  // namespace

std::string TextReader::heading_name(std::string_view line) {
    std::string_view v = trim(line.substr(1));
    bool too_large = false;
    const std::size_t sp = v.find_last_of(" \t");
    if (sp != std::string_view::npos && parse_dims(v.substr(sp + 1), too_large)) v = trim(v.substr(0, sp));
    take_index(v, too_large);
    return std::string(v);
}

std::string TextReader::name_one_hint(const std::string& name) const {
    // A regular file's results can be named, and standard input's (not those of a pipe or a FIFO
    // given by name).
    if (name.empty()) return "";
    if (source_ == display_name("-")) return "; name one, as -:" + printable_utf8(name);
    struct stat st {};
    if (::stat(source_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    return "; name one, as " + source_ + ":" + printable_utf8(name);
}

std::optional<std::string> TextReader::without_labels(std::string_view text) {
    std::string out;
    std::map<std::string, std::optional<Layout>> layouts;  // per result: every slice is labelled alike
    bool ok = true, labelled = false;
    // One section: the lines after a heading (or before the first) up to the next heading.
    const auto section = [&](const std::string& name, std::size_t begin, std::size_t end) {
        bool content = false;
        Lines lines(text.substr(0, end), begin);
        for (Line line; !content && lines.next(line);) content = !is_blank_line(lines.text(line));
        if (!content) return;
        // The first layout that fits, both labels first (their header row is the one whose
        // first field is empty); none: the section is left to the plain reader as it is.
        // The first two lines tell the layouts that may fit (at no cost for plain numbers); the
        // whole section is then checked and blanked in one pass.
        std::optional<Layout> found, first_lines;  // first_lines: the first layout of the first two lines
        for (const Layout l : {Layout{',', true, true}, Layout{'\t', true, true}, Layout{',', true, false},
                               Layout{'\t', true, false}, Layout{',', false, true}, Layout{'\t', false, true}}) {
            if (!fits(text, begin, end, l, 2)) continue;
            if (!first_lines) first_lines = l;
            if (out.empty()) out = std::string(text);
            std::size_t blanked = begin;
            if (fits(text, begin, end, l, std::string_view::npos, &out, &blanked)) {
                found = l, labelled = true;
                break;
            }
            out.replace(begin, blanked - begin, text.substr(begin, blanked - begin));
        }
        if (!found && first_lines) {  // labelled, with a mistake past its first lines
            std::size_t blanked = begin;
            fits(text, begin, end, *first_lines, std::string_view::npos, &out, &blanked, false);
            found = first_lines, labelled = true;
        }
        if (const auto [it, fresh] = layouts.emplace(name, found); !fresh && it->second != found) ok = false;
    };
    std::string name;
    std::size_t begin = text.starts_with(bom) ? bom.size() : 0;
    Lines lines(text, begin);
    for (Line line; ok && lines.next(line);) {
        const std::string_view v = lines.text(line);
        if (!is_heading(v)) continue;
        section(name, begin, line.begin);
        name = heading_name(v);
        begin = std::min(text.size(), line.end + 1);
    }
    if (ok) section(name, begin, text.size());
    if (!ok || !labelled) return std::nullopt;
    return out;
}

namespace {

constexpr std::size_t npos = std::string_view::npos;

// The offset after the json value at i: a string, a list or object (nested), or a scalar.
std::size_t skip_json_value(std::string_view s, std::size_t i) {
    if (i >= s.size()) return npos;
    if (s[i] == '"') return TextReader::json_string_end(s, i);
    if (s[i] != '[' && s[i] != '{') {
        while (i < s.size() && !is_space(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
        return i;
    }
    std::size_t depth = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '"') {
            if ((i = TextReader::json_string_end(s, i)) == npos) return npos;
            continue;
        }
        if (c == '[' || c == '{') ++depth;
        else if ((c == ']' || c == '}') && --depth == 0) return i + 1;
        ++i;
    }
    return npos;
}

}  // namespace

std::size_t TextReader::json_string_end(std::string_view s, std::size_t i) {
    for (++i; i < s.size(); ++i) {
        if (s[i] == '\\') ++i;
        else if (s[i] == '"') return i + 1;
    }
    return npos;
}

std::string TextReader::json_key(std::string_view quoted) {
    try {
        return json::parse_json(quoted).as_string();
    } catch (const InputError&) {  // not valid JSON (a raw tab, a bad escape): its bytes, \" and \\ undone
        std::string out;
        const std::string_view body = quoted.substr(1, quoted.size() - 2);
        for (std::size_t i = 0; i < body.size(); ++i) out += body[i] == '\\' && i + 1 < body.size() ? body[++i] : body[i];
        return out;
    }
}

std::optional<std::string> TextReader::bare_records(std::size_t first) const {
    const auto holds_records = [&](std::size_t j) {  // a value at s_[j]: an object, or a list of them
        const std::size_t inner = j < s_.size() ? skip_space_and_comments(j + 1) : npos;
        return j < s_.size() && (s_[j] == '{' || (s_[j] == '[' && inner < s_.size() && s_[inner] == '{'));
    };
    if (first < s_.size() && s_[first] == '[') {
        if (!holds_records(first)) return std::nullopt;
        const std::size_t end = skip_json_value(s_, first);
        if (end == npos || skip_space_and_comments(end) < s_.size()) return std::nullopt;
        return json_records(s_.substr(first, end - first), source_);
    }
    if (first >= s_.size() || s_[first] != '{') return std::nullopt;
    const std::size_t i = skip_space_and_comments(first + 1);
    if (i >= s_.size() || s_[i] != '"') return std::nullopt;
    const std::size_t key_end = TextReader::json_string_end(s_, i);
    if (key_end == npos) return std::nullopt;
    std::size_t j = skip_space_and_comments(key_end);
    if (j >= s_.size() || s_[j] != ':') return std::nullopt;
    j = skip_space_and_comments(j + 1);
    if (!holds_records(j)) return std::nullopt;
    const std::size_t end = skip_json_value(s_, j);
    if (end == npos) return std::nullopt;
    const std::size_t close = skip_space_and_comments(end);
    if (close >= s_.size() || s_[close] != '}' || skip_space_and_comments(close + 1) < s_.size()) return std::nullopt;
    return only_result(json_key(s_.substr(i, key_end - i)));
}

std::string TextReader::only_result(const std::string& name) const {
    std::size_t first = skip_space_and_comments(s_.starts_with(bom) ? bom.size() : 0);
    if (first >= s_.size()) throw InputError(source_ + ": empty: it holds no result '" + printable_utf8(name) + "'");
    std::vector<std::string> names;  // the results the file holds, in order
    const auto missing = [&] {
        return InputError(source_ + ": no result '" + printable_utf8(name) + "' (" +
                          (names.empty() ? "it holds one result without a name: read it as " +
                                               (source_ == display_name("-") ? std::string("-") : source_)
                                         : "it holds: " + printable_names(names)) + ")");
    };
    const std::string other = draw_spelling(name);
    const auto named = [&](const std::string& key) { return key == name || (!other.empty() && key == other); };
    std::string out(s_);
    if (first < s_.size() && s_[first] == '{') {  // attn's json: {"NAME": [...], ...}
        std::size_t i = skip_space_and_comments(first + 1), member = npos, member_end = npos, value = npos;
        while (i < s_.size() && s_[i] != '}') {
            if (s_[i] != '"') fail_expected(i, "a quoted name");
            const std::size_t key_end = TextReader::json_string_end(s_, i);
            if (key_end == npos) fail_expected(s_.size(), "'\"'");
            const std::string key = json_key(s_.substr(i, key_end - i));
            std::size_t j = skip_space_and_comments(key_end);
            if (j >= s_.size() || s_[j] != ':') fail_expected(j, "':'");
            j = skip_space_and_comments(j + 1);
            const std::size_t end = skip_json_value(s_, j);
            if (end == npos || end == j) fail_expected(j, "a value");
            if (named(key) && member != npos)  // Python's json keeps the last, a JSON library the first
                throw InputError(source_ + ": two results named '" + printable_utf8(name) + "': which one is meant is unclear");
            if (named(key)) member = i, value = j, member_end = end;
            if (key != "labels" && key != "key_labels") names.push_back(key);
            i = skip_space_and_comments(end);
            if (i < s_.size() && s_[i] == ',') i = skip_space_and_comments(i + 1);
            else if (i < s_.size() && s_[i] != '}') fail_expected(i, "',' or '}'");
        }
        if (i >= s_.size()) fail_expected(i, "'}'");
        if (member == npos) throw missing();
        const std::size_t inner = skip_space_and_comments(value + 1);
        if (s_[value] == '{' || (s_[value] == '[' && inner < s_.size() && s_[inner] == '{'))
            return json_records(s_.substr(value, member_end - value), source_ + ":" + name);
        if (s_[value] != '[' || (inner < s_.size() && s_[inner] == '"'))
            throw InputError(source_ + ":" + name + ": not a tensor (a nested list of numbers)");
        blank_out(out, first + 1, member);
        blank_out(out, member_end, i);
        return out;
    }
    // attn's csv, tsv: the lines under "# NAME ..." headings; pretty: under "NAME (RxC):" titles.
    bool keep = false, found = false;
    std::unordered_set<std::string> seen;  // names, once each (100,000 draws: a search of the list each was 18 s)
    Lines lines(s_, s_.starts_with(bom) ? bom.size() : 0);
    for (Line l; lines.next(l);) {
        const std::string_view line = lines.text(l);
        if (const std::optional<std::string> title = is_heading(line) ? heading_name(line) : pretty_title_name(line)) {
            const std::string& heading = *title;
            keep = named(heading);
            found = found || keep;
            if (seen.insert(heading).second) names.push_back(heading);
        }
        if (!keep) blank_out(out, l.begin, l.end);
    }
    if (!found) throw missing();
    return out;
}

}  // namespace attn::io::detail
