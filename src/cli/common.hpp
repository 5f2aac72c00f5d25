// Option handling shared by the subcommands: parsing with cxxopts into attn's error model,
// --help, output options, execution options (--arch/--threads), standard-input bookkeeping.
#pragma once
#include <cxxopts.hpp>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "attn/io.hpp"
#include "attn/ops.hpp"

namespace attn::cli {

// The larger of a running maximum m and a difference d, a NaN kept once met: max(m, d) in a
// loop of `if (!(d <= m)) m = d` lost a NaN to any number after it.
inline double max_keeping_nan(double m, double d) { return m != m || d <= m ? m : d; }

// Parses argv; cxxopts errors become UsageError naming the option. Returns nullopt after
// printing --help (the page of cli/help/help.hpp); otherwise sets the runtime up
// (setup_runtime below) before returning the options.
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

// --arch and --threads, for the commands that let a user choose them.
void add_exec_options(cxxopts::Options& options);
// parse_arch with errors naming where the value came from ("--arch", "ATTN_ARCH").
Arch parse_arch_from(const std::string& text, const char* source);
// Sets the arch from $ATTN_ARCH when it is set and not empty (UsageError for an unknown or
// unsupported one); otherwise leaves the arch as it is.
void apply_arch_environment();
// The runtime every command runs on, set up the same way for all of them once their options
// are parsed and before they read anything: the arch from --arch, else $ATTN_ARCH, else the
// best this CPU has; the threads from --threads, else every online core; then the worker pool.
// parse_or_help calls it, so no command reads (the readers scan floats with the arch's
// kernels) before $ATTN_ARCH is honoured. Commands without --arch/--threads get the rest.
void setup_runtime(const cxxopts::ParseResult& r);

// The flag that sets a setting the library names in a SettingError: "output" is -o, any
// other setting is --SETTING.
std::string flag_of_setting(const std::string& setting);

// A number given to an option; UsageError "invalid --OPT 'TEXT': expected a number".
double parse_number(const std::string& text, const std::string& option);
// The same as a float32: beyond its range is "out of float range"; a nonzero value that rounds
// to zero "underflows float32".
float parse_float32(const std::string& text, const std::string& option);

// Counts standard-input uses: an input "-" reads all of it and must be its only reader; any
// number of inputs may select results of it, "-:NAME" (io::reads_standard_input).
class InputNames {
public:
    // Records that `option` reads `path`; UsageError when standard input is read twice.
    const std::string& claim(const std::string& path, const std::string& option);
    // Claims standard input (`path`) for `option` before anything is read (a conflict fails
    // here, up front); the option's own claim when it reads is then its first, not a second.
    void reserve_stdin(const std::string& option, const std::string& path);

private:
    std::vector<std::pair<std::string, std::string>> stdin_readers_;  // option, its path on standard input
    std::set<std::string> reserved_;
};

bool stdout_is_terminal();

// Splits argv into options (argv[0] first) and input files, for the commands that take FILE...
// (concat, merge). The files are taken here rather than as a cxxopts positional list, which
// would count as one option given many times. "-" is a file (standard input; the command says
// whether it may read it); after "--" every argument is. with_value: the command's options that
// take a value, which is then not a file.
std::vector<char*> split_files(int argc, char** argv, std::initializer_list<const char*> with_value,
                               std::vector<std::string>& files);

}  // namespace attn::cli
