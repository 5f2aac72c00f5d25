// TEMPORARY minimal I/O so the skeleton links; replaced by the real readers and printers.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "attn/error.hpp"
#include "attn/io.hpp"

namespace attn::io {

std::string read_file(const std::string& path) {
    if (path == "-") { std::ostringstream s; s << std::cin.rdbuf(); return s.str(); }
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError(path + ": cannot open");
    std::ostringstream s; s << f.rdbuf(); return s.str();
}
Matrix parse_text(std::string_view text, const std::string&, Finite) {
    std::vector<std::vector<float>> rows;
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        for (char& c : line) if (c == ',' || c == ';' || c == '\t') c = ' ';
        std::istringstream ls(line); std::vector<float> r; float v;
        while (ls >> v) r.push_back(v);
        if (!r.empty()) rows.push_back(r);
    }
    if (rows.empty()) throw InputError("empty");
    Matrix m(rows.size(), rows[0].size());
    for (size_t i = 0; i < rows.size(); ++i) for (size_t j = 0; j < rows[0].size(); ++j) m(i, j) = rows[i][j];
    return m;
}
Matrix parse_npy(std::string_view, const std::string& s, Finite) { throw InputError(s + ": npy not supported yet"); }
Matrix parse_matrix(std::string_view b, const std::string& s, Finite f) { return parse_text(b, s, f); }
Matrix read_matrix(const std::string& path, Finite f) { return parse_matrix(read_file(path), path, f); }
std::vector<std::string> read_labels(const std::string& path) {
    std::vector<std::string> out; std::istringstream in(read_file(path)); std::string l;
    while (std::getline(in, l)) out.push_back(l);
    return out;
}
std::string npy_bytes(const Matrix&) { throw RuntimeFailure("npy not supported yet"); }
std::string render(const std::vector<Item>& items, const OutputOptions&) {
    std::ostringstream o; o.precision(9);
    for (auto& it : items) {
        if (!it.matrix) { for (auto& [k, v] : it.fields) o << k << "," << v << "\n"; continue; }
        if (items.size() > 1) o << "# " << it.name << " " << it.matrix->rows() << "x" << it.matrix->cols() << "\n";
        for (size_t i = 0; i < it.matrix->rows(); ++i) {
            for (size_t j = 0; j < it.matrix->cols(); ++j) o << (j ? "," : "") << (*it.matrix)(i, j);
            o << "\n";
        }
        if (items.size() > 1) o << "\n";
    }
    return o.str();
}
void write_output(const std::vector<Item>& items, const OutputOptions& opt) { std::cout << render(items, opt); }
Format parse_format(std::string_view n) {
    if (n == "pretty") return Format::pretty; if (n == "csv") return Format::csv; if (n == "tsv") return Format::tsv;
    if (n == "json") return Format::json; if (n == "npy") return Format::npy;
    throw UsageError("invalid --format '" + std::string(n) + "'");
}
}  // namespace attn::io
