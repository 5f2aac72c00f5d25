// Option handling shared by the subcommands: parsing with cxxopts into attn's error model,
// --help, output options, execution options (--arch/--threads), standard-input bookkeeping.
#pragma once
#include <cxxopts.hpp>
#include <optional>
#include <string>

#include "attn/io.hpp"
#include "attn/ops.hpp"

namespace attn::cli {

// Parses argv; cxxopts errors become UsageError naming the option. Returns nullopt after
// printing --help (the page of cli/help.hpp).
std::optional<cxxopts::ParseResult> parse_or_help(cxxopts::Options& options, int argc, char** argv);

// When set, parse_or_help stores the command's declared options here and returns nullopt
// without parsing: the help pages, man page and completions read every command's options so.
extern std::optional<cxxopts::Options>* options_capture;

// What --digits means, the same in every command (pretty: decimals and the notation rule;
// csv/tsv/json: significant digits).
extern const char* const digits_help;
// --digits N as given (UsageError outside 0..17), or -1 when absent (the format's default).
int digits_option(const cxxopts::ParseResult& r);
// Width for pretty tables: $COLUMNS when a positive number, else the terminal's width on
// standard output, else 80.
std::size_t terminal_columns();

// --format, --digits, -o/--output.
void add_output_options(cxxopts::Options& options, bool with_npy = true);
// Default format: pretty when standard output is a terminal, csv otherwise.
io::OutputOptions output_options(const cxxopts::ParseResult& r);

// --arch and --threads; applying them honours $ATTN_ARCH when --arch is not given.
void add_exec_options(cxxopts::Options& options);
// parse_arch with errors naming where the value came from ("--arch", "ATTN_ARCH").
Arch parse_arch_from(const std::string& text, const char* source);
void apply_exec_options(const cxxopts::ParseResult& r);

// A number given to an option; UsageError "invalid --OPT 'TEXT': expected a number".
double parse_number(const std::string& text, const std::string& option);
// The same as a float32: beyond its range is "out of float range"; a nonzero value that rounds
// to zero "underflows float32".
float parse_float32(const std::string& text, const std::string& option);

// Counts standard-input uses: at most one input may be "-".
class InputNames {
public:
    // Records that `option` reads `path`; UsageError on a second "-".
    const std::string& claim(const std::string& path, const std::string& option);
    // Claims "-" for `option` before anything is read (a second "-" fails here, up front); the
    // option's own claim when it reads is then its first, not a second.
    void reserve_stdin(const std::string& option);

private:
    std::string stdin_owner_;
    bool reserved_ = false;
};

bool stdout_is_terminal();

}  // namespace attn::cli
