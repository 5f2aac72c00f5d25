// Printers: pretty (aligned, for people), csv/tsv (for pipes; readable back by attn), json,
// and npy; write_output delivers everything or nothing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <mutex>
#include <string>

#include "attn/column_blocks.hpp"
#include "attn/error.hpp"
#include "attn/io.hpp"
#include "tensor/label_numbers.hpp"
#include "write/npz_write.hpp"
#include "write/number_format.hpp"
#include "write/output_file.hpp"
#include "write/tsv_escape.hpp"
#include "runtime/utf8.hpp"
#include "runtime/parallel.hpp"
#include "runtime/did_you_mean.hpp"
#include "runtime/system_memory.hpp"

namespace attn::io {

namespace {

using detail::fixed;
using detail::Notation;
using detail::significant;

// Integral values in records (counts, d_k) print without decimals.
bool is_integral(double v) { return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.0e15; }

std::string record_value(double v, const std::string& general) {
    if (is_integral(v)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    return general;
}

std::string pad_left(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

// "RxC" of a slice; "(N,)" for a vector (NumPy's notation: it reads back as a vector, not 1xN).
std::string shape(const TensorView& t, const MatrixView& m) {
    if (t.rank() == 1) return "(" + std::to_string(m.cols) + ",)";
    return std::to_string(m.rows) + "x" + std::to_string(m.cols);
}

// "[b, h]": the leading indices of slice s of t (C order); "" for a matrix.
std::string slice_index(const TensorView& t, std::size_t s) {
    if (t.rank() <= 2) return "";
    std::vector<std::size_t> index(t.rank() - 2);
    for (std::size_t i = index.size(); i-- > 0;) {
        index[i] = s % t.shape[i];
        s /= t.shape[i];
    }
    std::string out = "[";
    for (std::size_t i = 0; i < index.size(); ++i) out += (i ? ", " : "") + std::to_string(index[i]);
    return out + "]";
}

// "NAME [b, h]" or "NAME": the title of slice s.
std::string slice_title(const std::string& name, const TensorView& t, std::size_t s) {
    const std::string index = slice_index(t, s);
    return index.empty() ? name : name + " " + index;
}

// Hands `out` to the sink once it holds a chunk's worth (streaming); no sink: keeps it all.
constexpr std::size_t chunk_bytes = std::size_t(1) << 16;
void flush_chunk(std::string& out, const TextSink* sink) {
    if (sink && out.size() >= chunk_bytes) {
        (*sink)(out);
        out.clear();
    }
}

// ---- pretty ----
// Two passes over the numbers (widths, then lines) so that memory stays at one line, however
// large the slice: each line goes to the sink as soon as a chunk is full. A table wider than
// line_width prints in column blocks, each under "  columns A–B:" (0-based, inclusive) and
// with its row labels repeated.
void pretty_slice(std::string& out, const Item& item, const std::string& title, const TensorView& t, const MatrixView& m,
                  int decimals, Notation notation, std::size_t line_width, const TextSink* sink) {
    const std::string dims = shape(t, m);
    out += title + (dims.front() == '(' ? " " + dims : " (" + dims + ")") + ":\n";
    const auto cell = [&](std::size_t r, std::size_t c) { return detail::in_notation(m(r, c), notation, decimals); };
    // Labels are used only when they match the shape exactly.
    const bool row_labels = item.row_labels.size() == m.rows;
    const bool col_labels = item.col_labels.size() == m.cols;
    std::vector<std::size_t> width(m.cols, 0);
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < m.cols; ++c) width[c] = std::max(width[c], cell(r, c).size());
    if (col_labels)
        for (std::size_t c = 0; c < m.cols; ++c) width[c] = std::max(width[c], display_width(item.col_labels[c]));
    std::size_t label_width = 0;
    if (row_labels)
        for (const auto& l : item.row_labels) label_width = std::max(label_width, display_width(l));
    const std::string indent = "  ";
    const std::size_t prefix = indent.size() + (row_labels ? label_width + 2 : 0);
    const auto blocks = column_blocks(width, prefix, line_width);
    for (const auto& [first, last] : blocks) {
        if (blocks.size() > 1)
            out += indent + column_block_title(first, last) + ":\n";
        if (col_labels) {
            std::string line = indent + (row_labels ? std::string(label_width, ' ') + "  " : "");
            for (std::size_t c = first; c < last; ++c) line += (c > first ? "  " : "") + pad_left(item.col_labels[c], width[c]);
            out += line + "\n";
        }
        for (std::size_t r = 0; r < m.rows; ++r) {
            out += indent;
            if (row_labels) out += pad_right(item.row_labels[r], label_width) + "  ";
            for (std::size_t c = first; c < last; ++c) {
                const std::string text = cell(r, c);
                if (c > first) out += "  ";
                out.append(width[c] - text.size(), ' ');
                out += text;
            }
            out += '\n';
            flush_chunk(out, sink);
        }
    }
}

// Every 2-D slice under its title, a blank line between slices; one notation for the whole
// tensor, as torch prints a tensor.
void pretty_tensor(std::string& out, const Item& item, int decimals, std::size_t line_width,
                   const TextSink* sink = nullptr) {
    const TensorView t = item.values();
    const Notation notation = detail::tensor_notation(t);
    for (std::size_t s = 0; s < t.slices(); ++s) {
        if (s) out += '\n';
        pretty_slice(out, item, slice_title(item.name, t, s), t, t.slice(s), decimals, notation, line_width, sink);
    }
}

// A table of records (Item::records): one row per record, columns right-aligned under the keys.
void pretty_table(std::string& out, const Item& item, int decimals) {
    out += item.name + ":\n";
    const auto& keys = item.records.front();
    std::vector<std::vector<std::string>> cells(item.records.size());
    std::vector<std::size_t> width(keys.size());
    for (std::size_t c = 0; c < keys.size(); ++c) width[c] = keys[c].first.size();
    for (std::size_t r = 0; r < item.records.size(); ++r)
        for (std::size_t c = 0; c < keys.size(); ++c) {
            const double v = item.records[r][c].second;
            cells[r].push_back(record_value(v, fixed(v, decimals)));
            width[c] = std::max(width[c], cells[r][c].size());
        }
    std::string line = " ";
    for (std::size_t c = 0; c < keys.size(); ++c) line += " " + pad_left(keys[c].first, width[c]);
    out += line + "\n";
    for (const auto& row : cells) {
        line = " ";
        for (std::size_t c = 0; c < row.size(); ++c) line += " " + pad_left(row[c], width[c]);
        out += line + "\n";
    }
}

void pretty_record(std::string& out, const Item& item, int decimals) {
    if (!item.records.empty()) return pretty_table(out, item, decimals);
    out += item.name + ":\n";
    std::size_t key_width = 0;
    for (const auto& f : item.fields) key_width = std::max(key_width, f.first.size());
    for (const auto& [key, value] : item.fields) {
        // Each field is a scalar of its own: its notation by the same rule as a tensor's.
        detail::MagnitudeRange range;
        range.add(value);
        out += "  " + pad_right(key, key_width) + "  " +
               record_value(value, detail::in_notation(value, range.notation(), decimals)) + "\n";
    }
}

// ---- csv / tsv ----
// A label as one field: csv quotes it when it holds the separator, a quote or a line break
// (RFC 4180); tsv escapes tab, line breaks and backslash (\t, \n, \r, \\). A row label whose
// first non-blank character is '#' would start a comment line for a reader (attn's own among
// them, which would drop the row): csv quotes it, tsv escapes that '#' as \#. A label that
// reads as numbers (a token id: tensor/label_numbers.hpp) or begins as one ("2nd") would leave
// a file of such labels unread as labelled: csv quotes it too, tsv escapes its first character
// (\1), or its second when the first is an n (nan: \n is a line break; n\an).
std::string label_field(const std::string& label, char sep) {
    std::string out;
    const std::size_t first = label.find_first_not_of(" \t");
    const bool hash = first != std::string::npos && label[first] == '#';
    const bool number =
        first != std::string::npos && (detail::label_reads_as_numbers(label) || detail::label_begins_as_number(label));
    const std::size_t marked = hash ? first : !number ? std::string::npos
                               : label[first] == 'n' || label[first] == 'N' ? first + 1 : first;
    if (sep == ',') {
        if (!hash && !number && label.find_first_of(",\"\r\n") == std::string::npos) return label;
        out = "\"";
        for (char ch : label) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return out + "\"";
    }
    for (std::size_t k = 0; k < label.size(); ++k) {
        const char ch = label[k];
        if (k == marked) {
            out += '\\';
            out += ch;
            continue;
        }
        append_tsv_escaped(out, ch);
    }
    return out;
}

// One slice's rows; with labels (only when their count matches), a header row of column
// labels and each row's label as its first field.
void delimited_slice(std::string& out, const Item& item, const MatrixView& m, char sep, int digits,
                     const TextSink* sink) {
    const bool row_labels = !item.row_labels.empty() && item.row_labels.size() == m.rows;
    const bool col_labels = !item.col_labels.empty() && item.col_labels.size() == m.cols;
    if (col_labels) {
        if (row_labels) out += sep;
        for (std::size_t c = 0; c < m.cols; ++c) {
            if (c) out += sep;
            out += label_field(item.col_labels[c], sep);
        }
        out += '\n';
    }
    const auto row_text = [&](std::string& text, std::size_t r) {
        if (row_labels) text += label_field(item.row_labels[r], sep) + sep;
        const float* row = m.row(r);
        const std::size_t at = text.size();
        text.resize(at + m.cols * (detail::significant_max_chars(digits) + 1) + detail::significant_scratch_chars + 1);
        char* p = text.data() + at;
        for (std::size_t c = 0; c < m.cols; ++c) {
            if (c) *p++ = sep;
            p = detail::write_significant(p, row[c], digits);
        }
        *p++ = '\n';
        text.resize(std::size_t(p - text.data()));
    };
    const std::size_t rows = m.cols ? m.rows : 0;  // no empty lines for 0 columns
    // Large slices are formatted by all threads, a band of rows each, in bands of about
    // band_values numbers, and joined in row order: the bytes do not depend on the thread count.
    constexpr std::size_t band_values = std::size_t(1) << 15, bands_per_round = 16;
    const std::size_t band_rows = std::max<std::size_t>(1, band_values / std::max<std::size_t>(m.cols, 1));
    if (rows <= band_rows) {
        for (std::size_t r = 0; r < rows; ++r) {
            row_text(out, r);
            flush_chunk(out, sink);
        }
        return;
    }
    if (!sink) reserve_checked(out, out.size() + rows * m.cols * (std::size_t(digits) + 4));  // one allocation, as a rule
    if (sink && !out.empty()) {  // what came before, then the bands straight from where they were formatted
        (*sink)(out);
        out.clear();
    }
    std::vector<std::string> bands(bands_per_round);
    for (std::size_t first = 0; first < rows; first += band_rows * bands_per_round) {
        const std::size_t count = std::min(bands_per_round, (rows - first + band_rows - 1) / band_rows);
        // Streaming, the thread that finishes a band hands every band that is ready in row
        // order to the sink, one thread at a time, while the others go on formatting.
        std::mutex order;
        std::vector<char> ready(count, 0);
        std::size_t next = 0;  // the first band not yet handed on
        bool handing = false;  // a thread is handing bands on
        parallel_for(count, [&](std::size_t b) {
            std::string& text = bands[b];
            text.clear();
            text.reserve(band_rows * m.cols * (std::size_t(digits) + 8));
            const std::size_t begin = first + b * band_rows, end = std::min(rows, begin + band_rows);
            for (std::size_t r = begin; r < end; ++r) row_text(text, r);
            if (!sink) return;
            std::unique_lock lock(order);
            ready[b] = 1;
            if (handing) return;  // that thread will hand this band on too
            handing = true;
            while (next < count && ready[next]) {
                const std::string& done = bands[next];
                lock.unlock();
                (*sink)(done);
                lock.lock();
                ++next;
            }
            handing = false;
        });
        if (!sink)
            for (std::size_t b = 0; b < count; ++b) out += bands[b];
    }
}

// headed: each 2-D slice after "# NAME [b, h] RxC" and before a blank line; else bare rows.
void delimited_tensor(std::string& out, const Item& item, char sep, int digits, bool headed,
                      const TextSink* sink = nullptr) {
    const TensorView t = item.values();
    for (std::size_t s = 0; s < t.slices(); ++s) {
        const MatrixView m = t.slice(s);
        if (headed) out += "# " + slice_title(item.name, t, s) + " " + shape(t, m) + "\n";
        delimited_slice(out, item, m, sep, digits, sink);
        if (headed) out += '\n';
    }
}

void delimited_record(std::string& out, const Item& item, char sep, int digits) {
    out += "# " + item.name + "\n";
    if (!item.records.empty()) {  // a table: a header line of keys, then one line per record
        for (std::size_t c = 0; c < item.records.front().size(); ++c)
            out += (c ? std::string(1, sep) : "") + item.records.front()[c].first;
        out += "\n";
        for (const auto& record : item.records) {
            for (std::size_t c = 0; c < record.size(); ++c)
                out += (c ? std::string(1, sep) : "") + record_value(record[c].second, significant(record[c].second, digits));
            out += "\n";
        }
        return;
    }
    for (const auto& [key, value] : item.fields)
        out += key + sep + record_value(value, significant(value, digits)) + "\n";
}

// ---- json ----
// A JSON string that keeps every character: '"' and '\\' escaped, controls (control_at: C0,
// DEL, C1 and the bidirectional overrides) as \\uXXXX, so none reaches a terminal raw and a
// token such as a tab keeps its text; bytes that are not UTF-8 as '?' (json is UTF-8).
std::string json_string(const std::string& s) {
    std::string out = "\"";
    const auto escape = [&](unsigned c) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
    };
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80 ? 1 : utf8_length(s, i);
        if (n == 0) {
            out += '?';
            ++i;
            continue;
        }
        if (n > 1 && control_at(s, i)) {  // C1 (U+0080..U+009F), a bidirectional override
            escape(unsigned(code_point_at(s, i, n)));
        } else if (n > 1) {
            out.append(s, i, n);
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20 || c == 0x7F) {
            escape(c);
        } else {
            out += char(c);
        }
        i += n;
    }
    return out + "\"";
}

std::string json_number(double v, int digits) {
    if (!std::isfinite(v)) return "null";
    return record_value(v, significant(v, digits));
}

void json_values(std::string& out, const TensorView& t, std::size_t dim, const float* p, int digits, std::size_t indent,
                 const TextSink* sink) {
    if (dim + 1 >= t.rank()) {  // innermost: one line
        out += "[";
        for (std::size_t i = 0; i < t.cols(); ++i) {
            if (i) out += ", ";
            const float v = p[i * t.strides[dim]];
            // -0 as -0.0: a JSON reader takes "-0" for the integer 0 (Python's json), losing the sign
            if (v == 0.0f && std::signbit(v)) out += "-0.0";
            else if (std::isfinite(v)) detail::append_significant(out, v, digits);
            else out += "null";
        }
        out += "]";
        flush_chunk(out, sink);
        return;
    }
    if (t.shape[dim] == 0) {
        out += "[]";
        return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < t.shape[dim]; ++i) {
        out += std::string(indent + 2, ' ');
        json_values(out, t, dim + 1, p + i * t.strides[dim], digits, indent + 2, sink);
        out += i + 1 < t.shape[dim] ? ",\n" : "\n";
    }
    out += std::string(indent, ' ') + "]";
}

void json_item(std::string& out, const Item& item, int digits) {
    out += "  " + json_string(item.name) + ": ";
    if (!item.is_record()) {
        const TensorView t = item.values();
        json_values(out, t, 0, t.data, digits, 2, nullptr);
    } else if (!item.records.empty()) {  // an array of objects, one per line
        out += "[\n";
        for (std::size_t r = 0; r < item.records.size(); ++r) {
            out += "    {";
            for (std::size_t k = 0; k < item.records[r].size(); ++k)
                out += (k ? ", " : "") + json_string(item.records[r][k].first) + ": " +
                       json_number(item.records[r][k].second, digits);
            out += r + 1 < item.records.size() ? "},\n" : "}\n";
        }
        out += "  ]";
    } else {
        out += "{\n";
        for (std::size_t k = 0; k < item.fields.size(); ++k) {
            out += "    " + json_string(item.fields[k].first) + ": " + json_number(item.fields[k].second, digits);
            out += k + 1 < item.fields.size() ? ",\n" : "\n";
        }
        out += "  }";
    }
}

// Every item as one member NAME.npy of an .npz archive, streamed from the tensors' storage.
detail::PendingFile npz_file(const std::vector<Item>& items, const std::string& path) {
    std::vector<detail::NpzMember> members;
    for (const auto& item : items)
        members.push_back({item.name, detail::npy_header(item.values()).size() +
                                          item.values().shape.numel() * sizeof(float)});
    detail::npz_size(members);  // the limits, before anything is written
    detail::refuse_binary_on_terminal(path, "npz");
    return {path, "", false, {}, [&items](const TextSink& sink) {
                detail::NpzWriter npz(sink);
                for (const auto& item : items) npz.add(item.name, detail::npy_header(item.values()), item.values());
                npz.finish();
            }};
}

// Several matrices, a vector (so that it reads back as one) or any tensor of more than two
// dimensions print with block headers.
bool needs_headers(const std::vector<Item>& items) {
    if (items.size() > 1) return true;
    return items.size() == 1 && !items[0].is_record() && (items[0].values().rank() == 1 || items[0].values().rank() > 2);
}

}  // namespace

TensorView Item::values() const noexcept { return matrix ? view_of(*matrix) : tensor; }

Item tensor_item(std::string name, const TensorView& view) {
    Item item;
    item.name = std::move(name);
    item.tensor = view;
    return item;
}

void stream_json_array(const TensorView& t, int digits, std::size_t indent, const TextSink& sink) {
    std::string out;
    if (t.rank() > 0) json_values(out, t, 0, t.data, digits, indent, &sink);
    if (!out.empty()) sink(out);
}

void stream_blocks(const Item& item, const OutputOptions& opt, const TextSink& sink, bool whole_output) {
    std::string out;
    if (item.is_record()) throw UsageError("stream_blocks prints tensors, not records");
    switch (opt.format) {
        case Format::csv:
        case Format::tsv:
            delimited_tensor(out, item, opt.format == Format::csv ? ',' : '\t', opt.digits >= 0 ? opt.digits : 9,
                             !whole_output || needs_headers({item}), &sink);
            break;
        case Format::pretty: pretty_tensor(out, item, opt.digits >= 0 ? opt.digits : 4, opt.line_width, &sink); break;
        case Format::json:
        case Format::npy:
        case Format::npz: throw UsageError("stream_blocks prints csv, tsv or pretty");
    }
    if (!out.empty()) sink(out);
}

std::string json_quote(const std::string& text) { return json_string(text); }

const std::vector<std::string>& format_names() {
    static const std::vector<std::string> names{"pretty", "csv", "tsv", "json", "npy", "npz"};
    return names;
}

Format parse_format(std::string_view name) {
    constexpr Format formats[] = {Format::pretty, Format::csv, Format::tsv, Format::json, Format::npy, Format::npz};
    static_assert(std::size(formats) == 6);
    for (std::size_t i = 0; i < std::size(formats); ++i)
        if (name == format_names()[i]) return formats[i];
    std::string expected;
    for (std::size_t i = 0; i < format_names().size(); ++i)
        expected += (i == 0 ? "" : i + 1 == format_names().size() ? " or " : ", ") + format_names()[i];
    throw SettingError("format", "invalid ", " '" + std::string(name) + "': expected " + expected +
                                                did_you_mean(name, format_names()));
}

std::string render(const std::vector<Item>& items, const OutputOptions& opt) {
    std::string out;
    switch (opt.format) {
        case Format::pretty: {
            const int decimals = opt.digits >= 0 ? opt.digits : 4;
            for (std::size_t k = 0; k < items.size(); ++k) {
                if (k) out += '\n';
                if (!items[k].is_record()) pretty_tensor(out, items[k], decimals, opt.line_width);
                else pretty_record(out, items[k], decimals);
            }
            break;
        }
        case Format::csv:
        case Format::tsv: {
            const char sep = opt.format == Format::csv ? ',' : '\t';
            const int digits = opt.digits >= 0 ? opt.digits : 9;
            // A single matrix prints bare so that it pipes straight into another attn.
            const bool blocks = needs_headers(items);
            for (const auto& item : items) {
                if (!item.is_record()) {
                    delimited_tensor(out, item, sep, digits, blocks);
                } else {
                    delimited_record(out, item, sep, digits);
                    if (blocks) out += '\n';
                }
            }
            break;
        }
        case Format::json: {
            const int digits = opt.digits >= 0 ? opt.digits : 9;
            out += "{\n";
            std::vector<std::pair<std::string, const std::vector<std::string>*>> label_lists;
            if (!opt.labels.empty()) label_lists.emplace_back("labels", &opt.labels);
            if (!opt.key_labels.empty()) label_lists.emplace_back("key_labels", &opt.key_labels);
            for (std::size_t k = 0; k < items.size(); ++k) {
                json_item(out, items[k], digits);
                out += k + 1 < items.size() || !label_lists.empty() ? ",\n" : "\n";
            }
            for (std::size_t k = 0; k < label_lists.size(); ++k) {
                out += "  " + json_string(label_lists[k].first) + ": [";
                const auto& list = *label_lists[k].second;
                for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + json_string(list[i]);
                out += k + 1 < label_lists.size() ? "],\n" : "]\n";
            }
            out += "}\n";
            break;
        }
        case Format::npy:
        case Format::npz:
            throw UsageError(std::string(opt.format == Format::npy ? "npy" : "npz") +
                             " is a binary format: it cannot be rendered as text");
    }
    return out;
}

namespace {

// The folder of several npy results must not be a file (x.txt/ too) or a link to none.
void refuse_file_as_folder(const std::string& path) {
    std::string dir = path;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;
    if (::lstat(dir.c_str(), &st) == 0)
        throw SettingError("output", "", " " + path + ": not a directory (npy output to a folder: one NAME.npy a result)");
}

}  // namespace

void check_npy_output(const OutputOptions& opt, std::size_t results) {
    if (opt.format != Format::npy) return;
    const std::string path = opt.path == "-" ? "" : opt.path;
    if (results < 2) {  // -o DIR/ of one result (DIR/NAME.npy): the same refusal of a file as DIR
        if (!path.empty() && path.back() == '/') refuse_file_as_folder(path);
        return;
    }
    struct stat st {};
    const bool folder = !path.empty() && (path.back() == '/' || (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)));
    if (path.empty())
        throw SettingError("output", "npy output of " + std::to_string(results) + " matrices needs ",
                           " DIR/ (one DIR/NAME.npy each), or use npz (one archive)");
    if (!folder) detail::refuse_npy_name_for_several(path, results);
    refuse_file_as_folder(path);
}

std::vector<detail::PendingFile> detail::output_files(const std::vector<Item>& items, const OutputOptions& opt) {
    const std::string path = opt.path == "-" ? "" : opt.path;  // "-o -" is standard output too
    const bool all_tensors = std::none_of(items.begin(), items.end(), [](const Item& i) { return i.is_record(); });
    if ((opt.format == Format::csv || opt.format == Format::tsv) && all_tensors) {
        // Formatted chunk by chunk as it is written (render's bytes, no whole-output string).
        return {{path, "", false, {}, [&items, &opt](const TextSink& sink) {
                     const char sep = opt.format == Format::csv ? ',' : '\t';
                     const int digits = opt.digits >= 0 ? opt.digits : 9;
                     const bool blocks = needs_headers(items);
                     std::string out;
                     for (const auto& item : items) delimited_tensor(out, item, sep, digits, blocks, &sink);
                     if (!out.empty()) sink(out);
                 }}};
    }
    if (opt.format != Format::npy && opt.format != Format::npz) return {{path, render(items, opt)}};
    const char* const binary = opt.format == Format::npy ? "npy" : "npz";
    for (const auto& item : items)
        if (item.is_record())
            throw SettingError("format", "'" + item.name + "' is a record, not a matrix: " + binary + " cannot hold it (use ",
                               " json, csv, tsv or pretty)");
    if (items.empty()) throw UsageError("nothing to write");
    if (opt.format == Format::npz) return {npz_file(items, path)};

    struct stat st {};
    const bool is_dir = !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    const bool folder = is_dir || (!path.empty() && path.back() == '/');  // DIR/: made when missing
    if (items.size() == 1 && !folder) {
        detail::refuse_binary_on_terminal(path, "npy");
        return {{path, detail::npy_header(items[0].values()), false, items[0].values()}};
    }
    check_npy_output(opt, items.size());
    std::string dir = path;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    std::vector<detail::PendingFile> files;
    for (const auto& item : items)
        files.push_back({(dir == "/" ? "" : dir) + "/" + item.name + ".npy", detail::npy_header(item.values()), !is_dir,
                         item.values()});
    return files;
}

void write_output(const std::vector<Item>& items, const OutputOptions& opt) {
    detail::write_files(detail::output_files(items, opt));
}

}  // namespace attn::io
