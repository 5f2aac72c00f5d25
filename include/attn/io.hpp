// Reading tensors and matrices (text or .npy, recognised by content) and writing results in
// every output format. Pure I/O: no attention math here.
//
// N-D text: the nested bracket form ([[[...]]], tensor(...), array(...), attn's json), or
// blocks of rows each headed by an index comment "# [b, h]" / "# NAME [b, h] RxC" (what attn's
// csv/tsv print) or a pretty title "NAME [b, h] (RxC):". Blocks of one tensor come in C order
// (last index fastest) and all have the same shape; two blocks without index comments are an
// error, never glued into one matrix.
#pragma once
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/half.hpp"
#include "attn/mask_bits.hpp"
#include "attn/matrix.hpp"
#include "attn/tensor.hpp"

namespace attn::io {

// The first six bytes of every .npy file (read/npy.cpp checks them, write/npy_write.cpp writes them).
inline constexpr std::string_view npy_magic = "\x93NUMPY";

// Which non-finite values an input may hold: none (inputs of a computation); -inf only (an
// additive bias); any (data passed through unchanged, as `attn concat` joins results that may
// hold NaN rows or -inf scores). A forbidden value is an InputError naming the file and position.
// json has no NaN or infinity and attn's json writes them as null, which `any` refuses as
// ambiguous; any_null_neg_inf and any_null_nan are `any` with null read as -inf or NaN, where the
// reader knows which one the writer meant (attn merge: the lse of a row with every key masked, and
// the context of such a row under --masked-rows nan).
enum class Finite { required, allow_neg_inf, any, any_null_neg_inf, any_null_nan };

// Whether `finite` lets an input hold v.
inline bool finite_allows(Finite finite, float v) {
    return std::isfinite(v) || finite >= Finite::any || (finite == Finite::allow_neg_inf && std::isinf(v) && v < 0);
}

// Reads a whole file ("-" = standard input) and parses it as .npy (magic "\x93NUMPY") or
// text, into a tensor of 1 to max_dims dimensions (at most attn::max_rank = 32, NumPy's
// limit). A 1-D .npy (n,) or a bracketed [a, b, ...] gives rank 1; rows of numbers give
// rank 2 (a single line is 1×n). More dimensions than max_dims, an empty or a 0-d array are
// InputError naming the shape. Errors are "FILE:LINE:COL: ..." (text) or "FILE: ..." (npy).
// One result of several that attn wrote to a file is "FILE.json:NAME", "FILE.csv:NAME" or
// "FILE.tsv:NAME" (the file's json member NAME, or its blocks headed "# NAME ..."), as
// "FILE.npz:NAME" is one array of an archive (attn/model_file.hpp); a path that names an
// existing file is that file, ':' or not.
// On standard input ("-"), whose bytes alone tell the format, an .npz or a torch.save file is
// read too: its only tensor, or "-:NAME" one of them, as "-:NAME" is one result of text.
Tensor read_tensor(const std::string& path, Finite finite = Finite::required, std::size_t max_dims = 4);
// read_tensor, but a file (or stream) that holds a sequence of tensors saved whole, such as
// torch.save(outputs.attentions), is read as torch.stack of them, a new first dimension:
// torch.save of a tuple or list of tensors only (named 0, 1, ...: one or more), numpy.savez(*arrays)
// (arr_0, arr_1, ...: two or more; arr_0 alone is an array). The tensors must have one shape
// (InputError naming two otherwise; their size stacked is checked against the memory left
// before any is read). *stacked tells which.
Tensor read_stacked(const std::string& path, Finite finite, std::size_t max_dims, bool* stacked);
// Whether an input path reads standard input: "-", or "-:NAME" (one of its results; a file of
// that name is ./-:NAME, as a file named - is ./-).
bool reads_standard_input(const std::string& path);

// The same on bytes already in memory; `source` names them in messages.
Tensor parse_tensor(std::string_view bytes, const std::string& source, Finite finite = Finite::required,
                    std::size_t max_dims = 4);
Tensor parse_text_tensor(std::string_view text, const std::string& source, Finite finite = Finite::required,
                         std::size_t max_dims = 4);
// The shape of an .npy file of total_size bytes, its header and size validated as
// parse_npy_tensor does, its values not read: `head` is the file's first bytes, its whole
// header at least (npy_header_size) or all of the file.
Shape npy_shape(std::string_view head, std::size_t total_size, const std::string& source,
                std::size_t max_dims = max_rank);
// How many bytes an .npy's header takes (magic, version, length and the dict), as its first
// 12 bytes tell; 0 when `head` is too short to tell or already no .npy attn reads.
std::size_t npy_header_size(std::string_view head) noexcept;
// The shape an .npy header declares, nothing else checked (0-d and empty shapes too), or
// nothing when the header does not parse: what `attn ls` shows of a file it cannot read.
std::optional<Shape> npy_declared_shape(std::string_view bytes) noexcept;
Tensor parse_npy_tensor(std::string_view bytes, const std::string& source, Finite finite = Finite::required,
                        std::size_t max_dims = 4);

// How read_mask makes bits of a mask's values.
struct MaskRules {
    // PyTorch's polarity (attn_mask, key_padding_mask: True = not allowed): zero allows.
    // Otherwise SDPA's: nonzero allows.
    bool zero_allows = false;
    // A float mask is added to the scores (a float attn_mask): -inf is allowed, and the mask
    // becomes bits only when each value is 0 or -inf (the same attention: -inf drops the key),
    // its float32 values otherwise. Boolean inputs (MaskInput::boolean) are bits.
    bool additive = false;
    // Text of only 0 and 1 is boolean too (a key padding mask written by hand: 1 = padding),
    // not an additive mask of 0 and 1.
    bool zero_one_text_boolean = false;
};

// An attention mask as read, into bits with no float copy of its Tq×Tk entries when it can be:
// an .npy of any number type in C order (one-byte types as booleans), or text of rows of
// plain numbers or True/False, packed on all threads (a mapped file's pages dropped as they
// are packed). Anything else, a value the rules refuse (the general readers then say which,
// with their messages) or an additive mask of other values than 0 and -inf: float32 values
// (-inf kept for an additive mask, every other non-finite refused). `boolean`: the input was
// boolean: an .npy or a model file's tensor of booleans or integers, text written with
// True/False (as PyTorch prints a bool tensor), a PyTorch or NumPy print of an integer type
// (tensor(...), array(...)), or, with zero_one_text_boolean, text of only 0 and 1; an additive
// mask that is not boolean is added even when it comes as bits (of 0 and -inf).
struct MaskInput {
    MaskBits bits;   // set when packed straight from the file
    Tensor values;   // set otherwise
    bool boolean = false;
    bool negative = false;  // when packed: some entry is negative (it allows: nonzero)
};
MaskInput read_mask(const std::string& path, const MaskRules& rules, std::size_t max_dims = 4);
// read_mask's .npy path: the bits of the .npy in `bytes` (validated as parse_npy_tensor
// validates), or nothing when they must come from its values (see read_mask). `boolean`:
// whether its type is bool or an integer (set whether or not bits are returned). `negative`:
// whether some entry is negative (when packed).
// `mapped`: the bytes are a read-only file mapping, whose pages are dropped as they are packed.
std::optional<MaskBits> parse_npy_mask(std::string_view bytes, const std::string& source, std::size_t max_dims,
                                       const MaskRules& rules, bool* negative = nullptr, bool* boolean = nullptr,
                                       bool mapped = false);

// Keys and values for attention: a little-endian float16 .npy ('<f2') and an F16 or BF16
// safetensors tensor stay 16-bit in memory (a HalfTensor, which batched_attention reads as it
// is; `f16` holds any type but float32); every other input is read as
// read_tensor does (finite values required) and given as `f32`. Exactly one of the two is set.
struct KVInput {
    Tensor f32;
    HalfTensor f16;
    bool half() const noexcept { return f16.rank() > 0; }
    const Shape& shape() const noexcept { return half() ? f16.shape() : f32.shape(); }
    std::size_t rank() const noexcept { return shape().rank(); }
    std::size_t rows() const noexcept { return shape().back(2); }
    std::size_t cols() const noexcept { return shape().back(1); }
    KVView view() const noexcept { return half() ? f16.view() : KVView(f32.view()); }
};
KVInput read_kv_tensor(const std::string& path, std::size_t max_dims = 4);
KVInput parse_kv_tensor(std::string_view bytes, const std::string& source, std::size_t max_dims = 4);

// For 2-D-only callers: as read_tensor, a rank-1 input is one row, and more than two
// dimensions are an InputError naming the shape ("FILE: expected a matrix, got shape (2, 3, 4)").
Matrix read_matrix(const std::string& path, Finite finite = Finite::required);
Matrix parse_matrix(std::string_view bytes, const std::string& source, Finite finite = Finite::required);
Matrix parse_text(std::string_view text, const std::string& source, Finite finite = Finite::required);
Matrix parse_npy(std::string_view bytes, const std::string& source, Finite finite = Finite::required);

// What a file read whole may hold: text or an .npy (a tensor input), or text only (a JSON
// file such as config.json, whose NUL byte is then named as no text, not as no .npy either).
enum class Content { text_or_npy, text };
// Whole file or standard input as bytes; InputError when unreadable.
std::string read_file(const std::string& path, Content content = Content::text_or_npy);
// read_file of a text that is not a tensor (labels, ids, lengths, a json of texts), without a
// leading UTF-8 byte-order mark, as the tensor readers skip it.
std::string read_text_file(const std::string& path);

// One token per line (trailing \r stripped; trailing blank lines dropped).
std::vector<std::string> read_labels(const std::string& path);

// .npy version 1.0, '<f4', C order, the view's full shape, header padded so the data starts
// at a 64-byte offset. A Matrix is the 2-D case.
std::string npy_bytes(const TensorView& t);
std::string npy_bytes(const Matrix& m);
// The same as '<f2' (IEEE half precision), each value rounded to nearest even (float_to_half).
std::string npy_half_bytes(const TensorView& t);

// ---- output ----------------------------------------------------------------------------
// npz: every result NAME as NAME.npy (as npy writes it) in one NumPy archive, stored
// uncompressed, as numpy.savez writes it.
enum class Format { pretty, csv, tsv, json, npy, npz };

// Numbers: pretty prints `digits` decimals (torch's precision), in fixed notation, or in
// scientific notation ("2.0611e-09") for a whole tensor (a record: a field) whose finite nonzero
// magnitudes span more than 10^3 (max/min), or reach below 10^-4 or above 10^8, as PyTorch
// prints. csv, tsv and json print `digits` significant digits (%g).
struct OutputOptions {
    Format format = Format::csv;
    int digits = -1;       // -1: format default (pretty: 4 decimals; csv/tsv/json: 9 significant)
    std::string path;      // "" = standard output; a directory for npy with several items
    // pretty: a table wider than this many terminal columns prints in column blocks headed
    // "columns A–B:"; 0 = never wrap. csv, tsv and json never wrap.
    std::size_t line_width = 0;
    // json: the token labels of the queries and of the keys, written as "labels" and
    // "key_labels" after the items when not empty.
    std::vector<std::string> labels, key_labels;
};

// One thing to print: a tensor of any rank >= 1 (2-D: a matrix; with optional row/column
// labels applied to every 2-D slice) or a record of named scalars (e.g. the variance
// diagnostics; integers print without decimals).
//
// Labels are used where their count matches the rows (columns) of a slice. pretty aligns them;
// csv and tsv give each slice a header row of column labels (its first cell empty when there
// are row labels too) and each row its label as a first field. csv quotes a label holding a
// comma, a double quote or a line break ("" for a quote, RFC 4180); tsv writes a tab, a line
// break and a backslash in a label as \t, \n, \r and \\. parse_text_tensor reads labelled
// csv/tsv back as the numbers they label.
//
// Set either `matrix` (2-D shorthand) or `tensor` (a view of any rank: each 2-D slice prints
// under an index title "NAME [b, h]"); with neither, the item is the record in `fields`.
// The storage viewed must outlive the call to render/write_output.
struct Item {
    std::string name;
    const Matrix* matrix = nullptr;
    std::vector<std::string> row_labels, col_labels;  // empty = none
    std::vector<std::pair<std::string, double>> fields;  // when neither matrix nor tensor is set
    TensorView tensor;                                   // used when matrix == nullptr and rank() > 0
    // A table of records with the same keys (e.g. the variance diagnostics per batch item and
    // head), used instead of `fields` when not empty: pretty prints one row per record under
    // a header of keys, csv/tsv a header line and one line per record, json an array of objects.
    std::vector<std::vector<std::pair<std::string, double>>> records;

    bool is_record() const noexcept { return matrix == nullptr && tensor.rank() == 0; }
    // The values to print: view_of(*matrix), or tensor.
    TensorView values() const noexcept;
};

// An item printing a tensor view (any rank).
Item tensor_item(std::string name, const TensorView& view);

// Renders every item into one string in the chosen format (not npy).
std::string render(const std::vector<Item>& items, const OutputOptions& opt);

// Renders and writes everything, or nothing: output is built in memory first; files are
// written to a temporary name and renamed. npy: one item → stdout or opt.path; several →
// opt.path must be a directory (created if missing) receiving NAME.npy each, and may not
// end in ".npy" unless such a directory exists. npz: every item in one archive.
// Throws UsageError for impossible combinations (npy or npz of a record, several npy to
// stdout or to "x.npy", an npz beyond 4 GiB) and RuntimeFailure for write errors. A closed
// pipe on stdout exits the process quietly.
void write_output(const std::vector<Item>& items, const OutputOptions& opt);
// The usage error write_output gives for `results` results in npy format to standard output or
// to a FILE.npy (one array), for commands to give before computing them: nothing otherwise.
void check_npy_output(const OutputOptions& opt, std::size_t results);

// Receives streamed text, a piece at a time (pieces of about 64 KiB or more).
using TextSink = std::function<void(std::string_view)>;

// Streams one tensor item as render() prints it among several items, for writers of long
// sequences of tensors that must not hold all their text in memory. csv/tsv: every 2-D slice
// headed "# NAME [b, h] RxC" ("# NAME RxC" for a matrix) and followed by a blank line;
// pretty: every slice under its title "NAME [b, h] (RxC):", slices separated by a blank line.
// whole_output: the item is all the command prints, so csv/tsv of a single matrix are bare
// rows, as write_output prints one matrix. UsageError for json and npy.
void stream_blocks(const Item& item, const OutputOptions& opt, const TextSink& sink, bool whole_output = false);

// Streams nested JSON arrays of the view's full shape, innermost rows on one line, each
// level indented two more spaces than `indent` (the layout of render()'s json).
void stream_json_array(const TensorView& t, int digits, std::size_t indent, const TextSink& sink);

// Writes bytes as they are: to standard output when path is "" or "-", else to the file via
// a temporary name and a rename (all or nothing). Errors as for write_output.
void write_text(const std::string& path, std::string_view bytes);

// A JSON string literal of text, as the json output writes names, labels and tokens: quotes
// and backslashes escaped, control characters (C0, DEL, C1) as \uXXXX, bytes that are not
// UTF-8 as '?'.
std::string json_quote(const std::string& text);

// Parses one of format_names(); UsageError otherwise.
Format parse_format(std::string_view name);
// The names of the formats, in Format's order: pretty, csv, tsv, json, npy, npz.
const std::vector<std::string>& format_names();

}  // namespace attn::io
