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

std::string pad_left(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
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
        for (std::size_t c = 0; c < m.cols(); ++c) width[c] = std::max(width[c], item.col_labels[c].size());
    std::size_t label_width = 0;
    if (row_labels)
        for (const auto& l : item.row_labels) label_width = std::max(label_width, l.size());
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

void write_output(const std::vector<Item>& items, const OutputOptions& opt) {
    const std::string path = opt.path == "-" ? "" : opt.path;  // "-o -" is standard output too
    if (opt.format != Format::npy) {
        std::string text = render(items, opt);
        if (path.empty()) detail::write_stdout(text);
        else detail::write_files({{path, std::move(text)}});
        return;
    }
    for (const auto& item : items)
        if (!item.matrix)
            throw UsageError("'" + item.name + "' is a record, not a matrix: npy cannot hold it (use --format json, csv or pretty)");
    if (items.empty()) throw UsageError("nothing to write");

    struct stat st {};
    const bool is_dir = !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    if (items.size() == 1 && !is_dir) {
        std::string bytes = npy_bytes(*items[0].matrix);
        if (path.empty()) {
            if (::isatty(STDOUT_FILENO) == 1)
                throw UsageError("npy is binary: refusing to write it to a terminal (use -o FILE or a pipe)");
            detail::write_stdout(bytes);
        } else {
            detail::write_files({{path, std::move(bytes)}});
        }
        return;
    }
    if (path.empty())
        throw UsageError("npy output of " + std::to_string(items.size()) +
                         " matrices needs -o DIR (one DIR/NAME.npy each)");
    if (!is_dir) {
        if (::stat(path.c_str(), &st) == 0)
            throw UsageError("-o " + path + ": not a directory (npy output of several matrices needs a directory)");
        if (::mkdir(path.c_str(), 0777) != 0)
            throw RuntimeFailure("cannot create directory " + path + ": " + std::strerror(errno));
    }
    std::vector<detail::PendingFile> files;
    for (const auto& item : items) files.push_back({path + "/" + item.name + ".npy", npy_bytes(*item.matrix)});
    detail::write_files(files);
}

}  // namespace attn::io
