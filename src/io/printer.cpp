// Printers: pretty (aligned, for people), csv/tsv (for pipes; readable back by attn), json,
// and npy; write_output delivers everything or nothing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "io/output_file.hpp"

namespace attn::io {

namespace {

// Integral values in records (counts, d_k) print without decimals.
bool is_integral(double v) { return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.0e15; }

std::string non_finite_text(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

// std::to_chars with a precision prints exactly what printf's %.*f / %.*g print, only faster
// (it matters for million-entry matrices).
std::string fixed(double v, int decimals) {
    if (!std::isfinite(v)) return non_finite_text(v);
    char buf[400];  // %.17f of DBL_MAX needs 327
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
    return std::string(buf, res.ptr);
}

std::string significant(double v, int digits) {
    if (!std::isfinite(v)) return non_finite_text(v);
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, std::max(digits, 1));
    return std::string(buf, res.ptr);
}

std::string record_value(double v, const std::string& general) {
    if (is_integral(v)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    return general;
}

// Terminal columns a UTF-8 string takes (labels are tokens such as "café" or "日本"): one per
// code point, none for combining marks, two for East Asian wide and emoji code points.
// Bytes that are not valid UTF-8 count one column each.
std::size_t code_point_width(char32_t cp) {
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE00 && cp <= 0xFE0F))
        return 0;
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
                      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
    return wide ? 2 : 1;
}

std::size_t display_width(const std::string& s) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        bool valid = len > 0 && i + len <= s.size();
        char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        for (std::size_t k = 1; valid && k < len; ++k) {
            const auto cont = static_cast<unsigned char>(s[i + k]);
            valid = (cont >> 6) == 0x2;
            cp = (cp << 6) | (cont & 0x3F);
        }
        width += valid ? code_point_width(cp) : 1;
        i += valid ? len : 1;
    }
    return width;
}

std::string pad_left(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

std::string shape(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }

// ---- pretty ----
void pretty_matrix(std::string& out, const Item& item, int decimals) {
    const Matrix& m = *item.matrix;
    out += item.name + " (" + shape(m) + "):\n";
    // Labels are used only when they match the shape exactly.
    const bool row_labels = item.row_labels.size() == m.rows();
    const bool col_labels = item.col_labels.size() == m.cols();
    std::vector<std::string> cells(m.size());
    std::vector<std::size_t> width(m.cols(), 0);
    for (std::size_t r = 0; r < m.rows(); ++r)
        for (std::size_t c = 0; c < m.cols(); ++c) {
            cells[r * m.cols() + c] = fixed(m(r, c), decimals);
            width[c] = std::max(width[c], cells[r * m.cols() + c].size());
        }
    if (col_labels)
        for (std::size_t c = 0; c < m.cols(); ++c) width[c] = std::max(width[c], display_width(item.col_labels[c]));
    std::size_t label_width = 0;
    if (row_labels)
        for (const auto& l : item.row_labels) label_width = std::max(label_width, display_width(l));
    const std::string indent = "  ";
    if (col_labels) {
        std::string line = indent + (row_labels ? std::string(label_width, ' ') + "  " : "");
        for (std::size_t c = 0; c < m.cols(); ++c) line += (c ? "  " : "") + pad_left(item.col_labels[c], width[c]);
        out += line + "\n";
    }
    for (std::size_t r = 0; r < m.rows(); ++r) {
        std::string line = indent + (row_labels ? pad_right(item.row_labels[r], label_width) + "  " : "");
        for (std::size_t c = 0; c < m.cols(); ++c) line += (c ? "  " : "") + pad_left(cells[r * m.cols() + c], width[c]);
        out += line + "\n";
    }
}

void pretty_record(std::string& out, const Item& item, int decimals) {
    out += item.name + ":\n";
    std::size_t key_width = 0;
    for (const auto& f : item.fields) key_width = std::max(key_width, f.first.size());
    for (const auto& [key, value] : item.fields)
        out += "  " + pad_right(key, key_width) + "  " + record_value(value, fixed(value, decimals)) + "\n";
}

// ---- csv / tsv ----
void delimited_matrix(std::string& out, const Matrix& m, char sep, int digits) {
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            if (c) out += sep;
            out += significant(m(r, c), digits);
        }
        out += '\n';
    }
}

void delimited_record(std::string& out, const Item& item, char sep, int digits) {
    out += "# " + item.name + "\n";
    for (const auto& [key, value] : item.fields)
        out += key + sep + record_value(value, significant(value, digits)) + "\n";
}

// ---- json ----
std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

std::string json_number(double v, int digits) {
    if (!std::isfinite(v)) return "null";
    return record_value(v, significant(v, digits));
}

void json_item(std::string& out, const Item& item, int digits) {
    out += "  " + json_string(item.name) + ": ";
    if (item.matrix) {
        const Matrix& m = *item.matrix;
        out += "[\n";
        for (std::size_t r = 0; r < m.rows(); ++r) {
            out += "    [";
            for (std::size_t c = 0; c < m.cols(); ++c) {
                if (c) out += ", ";
                out += std::isfinite(m(r, c)) ? significant(m(r, c), digits) : "null";
            }
            out += r + 1 < m.rows() ? "],\n" : "]\n";
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

}  // namespace

Format parse_format(std::string_view name) {
    if (name == "pretty") return Format::pretty;
    if (name == "csv") return Format::csv;
    if (name == "tsv") return Format::tsv;
    if (name == "json") return Format::json;
    if (name == "npy") return Format::npy;
    throw UsageError("invalid --format '" + std::string(name) + "': expected pretty, csv, tsv, json or npy");
}

std::string render(const std::vector<Item>& items, const OutputOptions& opt) {
    std::string out;
    switch (opt.format) {
        case Format::pretty: {
            const int decimals = opt.digits >= 0 ? opt.digits : 4;
            for (std::size_t k = 0; k < items.size(); ++k) {
                if (k) out += '\n';
                if (items[k].matrix) pretty_matrix(out, items[k], decimals);
                else pretty_record(out, items[k], decimals);
            }
            break;
        }
        case Format::csv:
        case Format::tsv: {
            const char sep = opt.format == Format::csv ? ',' : '\t';
            const int digits = opt.digits >= 0 ? opt.digits : 9;
            // A single matrix prints bare so that it pipes straight into another attn.
            const bool blocks = items.size() > 1;
            for (const auto& item : items) {
                if (item.matrix) {
                    if (blocks) out += "# " + item.name + " " + shape(*item.matrix) + "\n";
                    delimited_matrix(out, *item.matrix, sep, digits);
                } else {
                    delimited_record(out, item, sep, digits);
                }
                if (blocks) out += '\n';
            }
            break;
        }
        case Format::json: {
            const int digits = opt.digits >= 0 ? opt.digits : 9;
            out += "{\n";
            for (std::size_t k = 0; k < items.size(); ++k) {
                json_item(out, items[k], digits);
                out += k + 1 < items.size() ? ",\n" : "\n";
            }
            out += "}\n";
            break;
        }
        case Format::npy:
            throw UsageError("npy is a binary format: it cannot be rendered as text");
    }
    return out;
}

std::vector<detail::PendingFile> detail::output_files(const std::vector<Item>& items, const OutputOptions& opt) {
    const std::string path = opt.path == "-" ? "" : opt.path;  // "-o -" is standard output too
    if (opt.format != Format::npy) return {{path, render(items, opt)}};
    for (const auto& item : items)
        if (!item.matrix)
            throw UsageError("'" + item.name + "' is a record, not a matrix: npy cannot hold it (use --format json, csv or pretty)");
    if (items.empty()) throw UsageError("nothing to write");

    struct stat st {};
    const bool is_dir = !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    if (items.size() == 1 && !is_dir) {
        if (path.empty() && ::isatty(STDOUT_FILENO) == 1)
            throw UsageError("npy is binary: refusing to write it to a terminal (use -o FILE or a pipe)");
        return {{path, npy_bytes(*items[0].matrix)}};
    }
    if (path.empty())
        throw UsageError("npy output of " + std::to_string(items.size()) +
                         " matrices needs -o DIR (one DIR/NAME.npy each)");
    if (!is_dir && ::lstat(path.c_str(), &st) == 0)
        throw UsageError("-o " + path + ": not a directory (npy output of several matrices needs a directory)");
    std::vector<detail::PendingFile> files;
    for (const auto& item : items) files.push_back({path + "/" + item.name + ".npy", npy_bytes(*item.matrix), !is_dir});
    return files;
}

void write_output(const std::vector<Item>& items, const OutputOptions& opt) {
    detail::write_files(detail::output_files(items, opt));
}

}  // namespace attn::io
