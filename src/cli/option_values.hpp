// The one definition of the command line's value rules, which every command uses:
//  - integers: decimal digits, after a '-' only where the option takes negative values; no '+',
//    no spaces, no hexadecimal, no exponent or point; within the range the option states;
//  - --seed: a Python int in [-2^63, 2^64), as torch.manual_seed takes it;
//  - '-' as a file name: standard input for an input, standard output for an output;
//  - --svg FILE: a file name, or '-' only when nothing else goes to standard output;
//  - --format for commands that print text only: pretty, csv, tsv or json.
// The messages are "invalid --OPT 'TEXT': expected ...", the value quoted as given.
#pragma once
#include <algorithm>
#include <cxxopts.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attn/io.hpp"

namespace attn::cli {

// Whether `text` is an integer by the rule above: decimal digits, after a '-' when
// `negative_allowed` (std::from_chars alone would read "1e3" as 1 and stop).
bool integer_syntax(std::string_view text, bool negative_allowed);
// The integer `text` spells under the rule above (negative only when `negative_allowed`), or
// nullopt when it spells none or one beyond long long. For lists and files of integers, whose
// messages are their own.
std::optional<long long> decimal_integer(std::string_view text, bool negative_allowed);

// `text` as an integer in [min, max], or UsageError "invalid WHAT 'TEXT': expected an integer
// from MIN to MAX" ("expected an integer without '+'" for +N, "expected a decimal integer" for
// 0x..). WHAT is the option ("--rows") or the place in it ("--sizes entry").
long long parse_integer(const std::string& text, const std::string& what, long long min, long long max);

// Option `name` (its long name) read by parse_integer, or nullopt when it is not given.
std::optional<long long> integer_option(const cxxopts::ParseResult& r, const std::string& name, long long min,
                                        long long max);
// The same with the option's default.
long long integer_option(const cxxopts::ParseResult& r, const std::string& name, long long min, long long max,
                         long long fallback);

// The names options of a few fixed values take: one list each, for the option's parser (its
// "did you mean", and what it accepts where no enum's names decide that) and the completions
// (commands.cpp). tests/e2e/test_help.sh runs each parser on every value completed.
namespace option_names {
inline const std::vector<std::string> score{"dot", "general", "additive", "cosine"};
inline const std::vector<std::string> kv_dtype{"f32", "f16", "bf16", "q8_0"};  // ElementType's order
inline const std::vector<std::string> softmax_precision{"f32", "f64"};
inline const std::vector<std::string> rope_style{"half", "interleaved"};
inline const std::vector<std::string> pos{"sinusoidal"};
inline const std::vector<std::string> generator{"torch", "numpy"};
inline const std::vector<std::string> random_dtype{"f32", "f16", "bf16"};
inline const std::vector<std::string> bench_paths{"fused", "materialized"};
inline const std::vector<std::string> merge_show{"context", "lse"};
inline bool one_of(const std::vector<std::string>& names, const std::string& value) {
    return std::find(names.begin(), names.end(), value) != names.end();
}
}  // namespace option_names

// --seed S: a Python int in [-2^63, 2^64), as torch.manual_seed accepts it; negatives wrap
// mod 2^64 as torch's do. UsageError "invalid --seed 'S': expected an integer in [-2^63, 2^64)".
std::uint64_t parse_seed(const std::string& text);

// '-' names standard input (an input) or standard output (an output): the path the writers
// take for it ("" is standard output there).
bool is_standard_stream(const std::string& path);
std::string output_path(const std::string& path);

// --svg FILE (given): UsageError "--svg needs a file name" when empty, and, for '-', when
// `stdout_taken` (other output goes to standard output), "--svg - would mix the SVG with
// `other`: `remedy`". Returns the path for the writers (output_path).
std::string svg_path(const std::string& file, bool stdout_taken, const std::string& other,
                     const std::string& remedy);

// --text / --text-pair TEXT (option: its name without --): the text, or a UsageError for more
// than 16 MiB or bytes that are not UTF-8 ("--OPTION: invalid UTF-8 at byte N").
const std::string& text_option(const std::string& text, const char* option);

// --html FILE (given): UsageError "--html needs a file name" when empty or '-' (a page is a file
// that links nothing outside it; on standard output it would mix with the other outputs).
const std::string& html_path(const std::string& file);

// A command that prints text only (example, variance): UsageError "attn COMMAND prints text:
// --format pretty, csv, tsv or json" for npy (which parse_format accepts).
void require_text_format(io::Format format, const std::string& command);

// attend's and model's --heatmap: alone it draws only the picture (so --format and -o have
// nothing to act on); with --show the results join it in pretty, or go to -o.
void check_heatmap_output(bool heatmap, bool show_given, bool format_given, const io::OutputOptions& out);

}  // namespace attn::cli
