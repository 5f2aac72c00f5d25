// Reading matrices (text or .npy, recognised by content) and writing results in every
// output format. Pure I/O: no attention math here.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/tensor.hpp"

namespace attn::io {

// Which non-finite values an input may hold. NaN and +inf are never allowed; -inf only in
// an additive bias. A forbidden value is an InputError naming the file and position.
enum class Finite { required, allow_neg_inf };

// Reads a whole file ("-" = standard input) and parses it as .npy (magic "\x93NUMPY") or
// text. Errors are InputError with messages "FILE:LINE:COL: ..." (text) or "FILE: ..." (npy).
Matrix read_matrix(const std::string& path, Finite finite = Finite::required);

// The same on bytes already in memory; `source` names them in messages.
Matrix parse_matrix(std::string_view bytes, const std::string& source, Finite finite = Finite::required);
Matrix parse_text(std::string_view text, const std::string& source, Finite finite = Finite::required);
Matrix parse_npy(std::string_view bytes, const std::string& source, Finite finite = Finite::required);

// Whole file or standard input as bytes; InputError when unreadable.
std::string read_file(const std::string& path);

// One token per line (trailing \r stripped; trailing blank lines dropped).
std::vector<std::string> read_labels(const std::string& path);

// .npy version 1.0, '<f4', C order, header padded so the data starts at a 64-byte offset.
std::string npy_bytes(const Matrix& m);

// ---- output ----------------------------------------------------------------------------
enum class Format { pretty, csv, tsv, json, npy };

struct OutputOptions {
    Format format = Format::csv;
    int digits = -1;       // -1: format default (pretty: 4 decimals; csv/tsv/json: 9 significant)
    std::string path;      // "" = standard output; a directory for npy with several items
};

// One thing to print: either a matrix (with optional row/column labels) or a record of named
// scalars (e.g. the variance diagnostics; integers print without decimals).
struct Item {
    std::string name;
    const Matrix* matrix = nullptr;
    std::vector<std::string> row_labels, col_labels;  // pretty only; empty = none
    std::vector<std::pair<std::string, double>> fields;  // when matrix == nullptr
};

// Renders every item into one string in the chosen format (not npy).
std::string render(const std::vector<Item>& items, const OutputOptions& opt);

// Renders and writes everything, or nothing: output is built in memory first; files are
// written to a temporary name and renamed. npy: one item → stdout or opt.path; several →
// opt.path must be a directory (created if missing) receiving NAME.npy each.
// Throws UsageError for impossible combinations (npy of a record, several npy to stdout)
// and RuntimeFailure for write errors. A closed pipe on stdout exits the process quietly.
void write_output(const std::vector<Item>& items, const OutputOptions& opt);

// Writes bytes as they are: to standard output when path is "" or "-", else to the file via
// a temporary name and a rename (all or nothing). Errors as for write_output.
void write_text(const std::string& path, std::string_view bytes);

// Parses "pretty", "csv", ... ; UsageError otherwise.
Format parse_format(std::string_view name);

}  // namespace attn::io
