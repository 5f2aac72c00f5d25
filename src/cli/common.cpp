#include "cli/common.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <set>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "cli/commands.hpp"
#include "cli/help/help.hpp"
#include "cli/option_values.hpp"
#include "runtime/did_you_mean.hpp"
#include "write/output_file.hpp"

namespace attn::cli {

std::optional<cxxopts::Options>* options_capture = nullptr;

namespace {

// cxxopts says "Argument 'abc' failed to parse" without naming the option: find the
// option in argv that was given that value (--opt VALUE, --opt=VALUE, -o VALUE, -oVALUE).
std::string bad_value_message(const cxxopts::Options& options, const std::string& value, int argc, char** argv) {
    std::string option;
    for (int i = 1; i < argc && option.empty(); ++i) {
        const std::string a = argv[i];
        if (a == "--") break;
        if (a.rfind("--", 0) == 0) {
            const auto eq = a.find('=');
            if (eq != std::string::npos && a.substr(eq + 1) == value) option = a.substr(2, eq - 2);
            else if (eq == std::string::npos && i + 1 < argc && argv[i + 1] == value) option = a.substr(2);
        } else if (a.size() >= 2 && a[0] == '-' && a[1] != '-') {
            if (a.size() == 2 && i + 1 < argc && argv[i + 1] == value) option = a.substr(1);
            else if (a.size() > 2 && a.substr(2) == value) option = a.substr(1, 1);
        }
    }
    if (option.empty()) return "invalid value '" + value + "'";
    bool flag = false;
    for (const auto& g : options.groups())
        for (const auto& d : options.group_help(g).options)
            if (d.s == option || (!d.l.empty() && d.l.front() == option)) {
                flag = d.is_boolean;
                if (option.size() == 1 && !d.l.empty()) option = d.l.front();
            }
    const std::string name = (option.size() == 1 ? "-" : "--") + option;
    // Only a flag's value fails cxxopts' own parsing: every other value is text, which the
    // commands read by the rules of cli/option_values.hpp.
    if (flag) return "invalid " + name + "='" + value + "': " + name + " takes no value";
    return "invalid " + name + " '" + value + "'";
}

// cxxopts quotes with ‘ ’; attn's messages use plain quotes.
std::string quoted_plainly(std::string msg) {
    for (const char* curly : {"\u2018", "\u2019"})
        for (std::size_t at; (at = msg.find(curly)) != std::string::npos;) msg.replace(at, std::strlen(curly), "'");
    return msg;
}

// The command's options by kind, from its table, by every name (short and long): flags, those
// whose value is optional (--causal[=ALIGN], given only after '='), those that take their value
// in the next word, and lists (positional NAME...).
struct OptionKinds {
    std::set<std::string> flags, optional_value, next_word, lists;
};
OptionKinds option_kinds(const cxxopts::Options& options) {
    OptionKinds k;
    for (const auto& g : options.groups())
        for (const auto& d : options.group_help(g).options) {
            std::vector<std::string> names(d.l.begin(), d.l.end());
            if (!d.s.empty()) names.push_back(d.s);
            for (const auto& n : names) {
                (d.is_boolean ? k.flags : d.has_implicit ? k.optional_value : k.next_word).insert(n);
                if (d.is_container) k.lists.insert(n);
            }
        }
    return k;
}

// argv with a short option's attached value split off, GNU style: -oout.csv is -o out.csv
// (cxxopts takes an attached value only when it is letters and digits). A word that is the
// value of the option before it (--title -x.y) is left alone, as are words after "--".
std::vector<std::string> split_attached_values(const OptionKinds& kinds, int argc, char** argv) {
    std::vector<std::string> out(argv, argv + argc);
    for (std::size_t i = 1; i < out.size(); ++i) {
        const std::string arg = out[i];
        if (arg == "--") break;
        if (arg.rfind("--", 0) == 0) {
            if (arg.find('=') == std::string::npos && kinds.next_word.count(arg.substr(2))) ++i;
        } else if (arg.size() >= 2 && arg[0] == '-' && kinds.next_word.count(arg.substr(1, 1))) {
            if (arg.size() == 2) {
                ++i;
            } else if (!std::all_of(arg.begin() + 2, arg.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) {
                out[i] = arg.substr(0, 2);
                out.insert(out.begin() + std::ptrdiff_t(i) + 1, arg.substr(2));
                ++i;
            }
        }
    }
    return out;
}

// "option 'NAME' does not exist", with the closest option's name, for NAME as typed without its
// dashes.
UsageError unknown_option_error(const cxxopts::Options& options, const std::string& typed) {
    std::vector<std::string> known;
    bool short_name = false;  // --q typed for -q
    for (const auto& g : options.groups())
        for (const auto& d : options.group_help(g).options) {
            for (const auto& l : d.l) known.push_back(l);
            short_name = short_name || (typed.size() == 1 && d.s == typed);
        }
    const std::string hint = short_name ? "; did you mean '-" + typed + "'?" : did_you_mean(typed, known, "--");
    return UsageError("option '" + typed + "' does not exist" + hint + " (see --help)");
}

// Whether cxxopts reads a word as an option (its option_matcher): --NAME of two characters or
// more ([-_.] after the first, "=VALUE" after), or -X... (a short option and what follows).
bool option_syntax(const std::string& w) {
    const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    if (w.starts_with("--")) {
        const std::size_t end = std::min(w.find('='), w.size());
        if (end < 4 || !alnum(w[2])) return false;
        return std::all_of(w.begin() + 3, w.begin() + std::ptrdiff_t(end),
                           [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
    }
    return w.size() >= 2 && w[0] == '-' && alnum(w[1]);
}

// A word that starts with '-' but is no option's syntax: a one-letter long option (--d, which
// cxxopts cannot name) is an option that does not exist, as --dd would be; anything else is
// malformed.
UsageError malformed_option_error(const cxxopts::Options& options, const std::string& arg) {
    if (arg.size() >= 3 && arg.starts_with("--") && std::isalnum(static_cast<unsigned char>(arg[2])) &&
        (arg.size() == 3 || arg[3] == '='))
        return unknown_option_error(options, arg.substr(2, 1));
    return UsageError("argument '" + arg + "' starts with a - but has incorrect syntax (see --help)");
}

}  // namespace

std::optional<cxxopts::ParseResult> parse_or_help(cxxopts::Options& options, int given_argc, char** given_argv) {
    options.add_options()("h,help", "Show this help and exit");
    if (options_capture) {
        *options_capture = options;
        return std::nullopt;
    }
    const OptionKinds kinds = option_kinds(options);
    std::vector<std::string> words = split_attached_values(kinds, given_argc, given_argv);
    // The options positional arguments are bound to are not options: --input FILE is refused.
    const std::string program = options.program();
    if (const Command* c = find_command(program.substr(program.find(' ') + 1)))
        for (std::size_t i = 1; i < words.size() && words[i] != "--"; ++i)
            for (const std::string& p : c->positionals)
                if (words[i] == "--" + p || words[i].rfind("--" + p + "=", 0) == 0)
                    throw UsageError("option '" + p + "' does not exist: it is an argument, without a name (attn " +
                                     c->name + (c->usage.empty() ? "" : " " + c->usage.front()) + ")");
    // A positional -:NAME (a result of standard input, or a file of that name) is not an option:
    // cxxopts is told to let such words through. It then lets malformed words through too, as
    // inputs: they are refused here (the values of options skipped), unknown options below.
    if (std::any_of(words.begin() + 1, std::find(words.begin(), words.end(), "--"),
                    [](const std::string& w) { return w.starts_with("-:"); })) {
        options.allow_unrecognised_options();
        for (std::size_t i = 1; i < words.size() && words[i] != "--"; ++i) {
            const std::string& w = words[i];
            if (w.starts_with("--") && w.find('=') == std::string::npos && kinds.next_word.count(w.substr(2))) ++i;
            else if (w.size() == 2 && w[0] == '-' && kinds.next_word.count(w.substr(1))) ++i;
            else if (w.size() > 1 && w[0] == '-' && !w.starts_with("-:") && !option_syntax(w))
                throw malformed_option_error(options, w);
        }
    }
    std::vector<char*> pointers;
    for (std::string& w : words) pointers.push_back(w.data());
    const int argc = int(pointers.size());
    char** const argv = pointers.data();
    try {
        auto result = options.parse(argc, argv);
        if (result.count("help")) {
            std::cout << help_page_for(options) << std::flush;
            return std::nullopt;
        }
        if (!result.unmatched().empty()) {
            for (const std::string& w : result.unmatched())  // an unknown option first (with -:NAME, see above)
                if (w.size() > 1 && w[0] == '-' && !w.starts_with("-:")) {
                    const std::size_t dashes = w.starts_with("--") ? 2 : 1;
                    throw unknown_option_error(options, w.substr(dashes, w.find('=') - dashes));
                }
            const std::string& stray = result.unmatched().front();
            // "--causal bottom-right": an option whose value is optional takes it only after '='.
            std::string hint = " (see --help)";
            for (int i = 2; i < argc; ++i)
                if (argv[i] == stray) {
                    const std::string prev = argv[i - 1];
                    if (prev.size() > 2 && prev.rfind("--", 0) == 0 && kinds.optional_value.count(prev.substr(2)))
                        hint = ": " + prev + " takes a value only after '=', as " + prev + "=" + stray;
                    break;
                }
            throw UsageError("unexpected argument '" + stray + "'" + hint);
        }
        // A value option given twice would silently keep the last one. A flag given twice is that
        // flag, and so is one with an optional value (--causal) given twice alike. Options that
        // collect a list (positional NAME...) are the command's to check.
        std::map<std::string, std::string> first_value;
        for (const auto& kv : result.arguments()) {
            if (result.count(kv.key()) < 2 || kinds.flags.count(kv.key()) || kinds.lists.count(kv.key())) continue;
            const auto [first, inserted] = first_value.emplace(kv.key(), kv.value());
            if (!inserted && (!kinds.optional_value.count(kv.key()) || first->second != kv.value()))
                throw UsageError((kv.key().size() == 1 ? "-" : "--") + kv.key() + " given more than once");
        }
        setup_runtime(result);
        return result;
    } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
        std::string value = e.what();  // "Argument ‘VALUE’ failed to parse"
        const std::string before = "Argument ", after = " failed to parse";
        if (value.rfind(before, 0) == 0 && value.size() >= before.size() + after.size())
            value = value.substr(before.size(), value.size() - before.size() - after.size());
        for (const char* q : {"\u2018", "'"})
            if (value.rfind(q, 0) == 0) value.erase(0, std::strlen(q));
        for (const char* q : {"\u2019", "'"})
            if (value.size() >= std::strlen(q) && value.compare(value.size() - std::strlen(q), std::string::npos, q) == 0)
                value.erase(value.size() - std::strlen(q));
        throw UsageError(bad_value_message(options, value, argc, argv) + " (see --help)");
    } catch (const cxxopts::exceptions::no_such_option& e) {
        // "Option ‘NAME’ does not exist": NAME as typed, without its dashes.
        const std::string msg = quoted_plainly(e.what());
        const std::size_t open = msg.find('\''), close = msg.rfind('\'');
        throw unknown_option_error(options, open < close ? msg.substr(open + 1, close - open - 1) : std::string());
    } catch (const cxxopts::exceptions::invalid_option_syntax& e) {
        // "Argument ‘ARG’ starts with a - but has incorrect syntax"
        const std::string msg = quoted_plainly(e.what());
        const std::size_t open = msg.find('\''), close = msg.find('\'', open + 1);
        throw malformed_option_error(options, open < close ? msg.substr(open + 1, close - open - 1) : std::string());
    } catch (const cxxopts::exceptions::exception& e) {
        std::string msg = quoted_plainly(e.what());
        if (!msg.empty()) msg[0] = char(std::tolower((unsigned char)msg[0]));
        throw UsageError(msg + " (see --help)");
    }
}

const char* const digits_help =
    "pretty: digits after the decimal point (default 4, as torch's precision), in scientific notation "
    "(2.0611e-09) for a matrix whose nonzero magnitudes span more than 1e3 or reach below 1e-4 or above "
    "1e8, as PyTorch prints. "
    "csv/tsv/json: significant digits (default 9; 0 prints 1, as printf's %g)";

int digits_option(const cxxopts::ParseResult& r) {
    return int(integer_option(r, "digits", 0, 17, -1));
}

std::size_t terminal_columns() {
    if (const char* env = std::getenv("COLUMNS"); env && *env) {
        char* end = nullptr;
        errno = 0;
        const long n = std::strtol(env, &end, 10);
        if (*end == '\0' && errno == 0 && n > 0 && n <= 100000) return std::size_t(n);
    }
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

void add_output_options(cxxopts::Options& options, bool with_npy) {
    options.add_options("Output")
        ("format", std::string("Output format: pretty, csv, tsv, json") + (with_npy ? ", npy, npz" : "") +
                   " (default: that of -o's extension, " + (with_npy ? ".npy, .npz, " : "") +
                   ".json or .tsv; else pretty on a terminal, csv otherwise). pretty matrices wider than $COLUMNS "
                   "(else the terminal, else 80) print in column blocks" +
                   (with_npy ? ". npz: every result as NAME.npy in one NumPy archive (numpy.load; FILE.npz:NAME). "
                               "Everything but pretty reads back into attn, labels and all (json: but NaN and inf, "
                               "written as null); one result of several as FILE:NAME (FILE.json:NAME, FILE.csv:NAME, any text file)"
                             : ""), cxxopts::value<std::string>(), "FMT")
        ("digits", digits_help, cxxopts::value<std::string>(), "N")
        ("o,output", std::string("Write to PATH instead of standard output") +
                         (with_npy ? " (DIR/ or an existing folder: one NAME.npy a result, the folder made when "
                                     "missing, as for a name that does not end in a file's extension (.npy, .npz, .csv, ...) given "
                                     "several results in npy; "
                                     "x.npz: one archive)" : ""),
         cxxopts::value<std::string>(), "PATH");
}

namespace {

// -o DIR/ (made when missing) or an existing folder: where npy output writes one NAME.npy a
// result, and so the format it implies.
bool names_folder(const std::string& path) {
    struct stat st {};
    return !path.empty() && (path.back() == '/' || (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)));
}

}  // namespace

io::OutputOptions output_options(const cxxopts::ParseResult& r) {
    io::OutputOptions out;
    // Without --format: the format -o's extension names (x.npy is npy), else pretty on a
    // terminal and csv otherwise.
    const std::string path = r.count("output") ? r["output"].as<std::string>() : "";
    const auto ends = [&](const char* ext) {
        const std::size_t n = std::strlen(ext);
        if (path.size() <= n) return false;
        for (std::size_t i = 0; i < n; ++i)
            if (std::tolower(static_cast<unsigned char>(path[path.size() - n + i])) != ext[i]) return false;
        return true;
    };
    if (r.count("format")) out.format = io::parse_format(r["format"].as<std::string>());
    else if (ends(".npy")) out.format = io::Format::npy;
    else if (ends(".npz")) out.format = io::Format::npz;
    else if (ends(".json")) out.format = io::Format::json;
    else if (ends(".tsv")) out.format = io::Format::tsv;
    else if (names_folder(path)) out.format = io::Format::npy;  // one NAME.npy each
    else if (ends(".safetensors"))  // a model file: csv under its name would replace it
        throw UsageError("-o " + path + ": attn does not write safetensors files: choose another name (.npz for a "
                         "NumPy archive), or give --format to use this one anyway");
    else out.format = io::detail::output_is_terminal(path) ? io::Format::pretty : io::Format::csv;
    out.digits = digits_option(r);
    out.line_width = terminal_columns();
    if (r.count("output")) {
        if (path.empty()) throw UsageError("-o needs a path ('-' for standard output)");
        // Read back, -:NAME is a result of standard input (a file so named is ./-:NAME).
        if (path.starts_with("-:"))
            throw UsageError("-o " + path + ": read back, -:NAME is a result of standard input: write the file as ./" +
                             path);
        out.path = output_path(path);  // '-' is "", as without -o (one rule for every check)
    }
    return out;
}

void add_exec_options(cxxopts::Options& options) {
    options.add_options("Execution")
        ("arch", "Kernel set: " + arch_choices(", ") + " (default auto, or $ATTN_ARCH)",
         cxxopts::value<std::string>(), "ARCH")
        ("threads", "Worker threads (default: all online cores); results are identical for any count",
         cxxopts::value<std::string>(), "N");
}

Arch parse_arch_from(const std::string& text, const char* source) {
    try {
        return parse_arch(text);
    } catch (const UsageError& e) {
        std::string msg = e.what();  // the library says "arch"; name where the value came from
        if (const auto at = msg.find("arch"); at != std::string::npos) msg.replace(at, 4, source);
        throw UsageError(msg);
    }
}

void apply_arch_environment() {
    if (const char* env = std::getenv("ATTN_ARCH"); env && *env) set_arch(parse_arch_from(env, "ATTN_ARCH"));
}

void setup_runtime(const cxxopts::ParseResult& r) {
    // count() is 0 for an option the command does not declare.
    if (r.count("arch")) set_arch(parse_arch_from(r["arch"].as<std::string>(), "--arch"));
    else apply_arch_environment();
    if (const auto n = integer_option(r, "threads", 1, 1024)) set_threads(unsigned(*n));
    start_threads();
}

std::string flag_of_setting(const std::string& setting) { return setting == "output" ? "-o" : "--" + setting; }

double parse_number(const std::string& text, const std::string& option) {
    // Decimal only, as numbers in input files: strtod alone would also take leading spaces
    // and hexadecimal floats (0x10 = 16).
    const bool space = !text.empty() && std::isspace(static_cast<unsigned char>(text[0]));
    if (space || text.find_first_of("xX") != std::string::npos)
        throw UsageError("invalid --" + option + " '" + text + "': expected a finite decimal number");
    const char* s = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s, &end);
    if (!text.empty() && end == s + text.size() && errno == ERANGE && std::fabs(v) < 1)
        throw UsageError("invalid --" + option + " '" + text + "': underflows float32 (nonzero magnitudes start at 1.4e-45)");
    if (text.empty() || end != s + text.size() || errno == ERANGE || !std::isfinite(v))
        throw UsageError("invalid --" + option + " '" + text + "': expected a finite number");
    return v;
}

float parse_float32(const std::string& text, const std::string& option) {
    const double v = parse_number(text, option);
    if (std::fabs(v) > double(std::numeric_limits<float>::max()))
        throw UsageError("invalid --" + option + " '" + text + "': out of float range");
    if (v != 0 && float(v) == 0)
        throw UsageError("invalid --" + option + " '" + text + "': underflows float32 (nonzero magnitudes start at 1.4e-45)");
    return float(v);
}

const std::string& InputNames::claim(const std::string& path, const std::string& option) {
    if (!io::reads_standard_input(path)) return path;
    if (reserved_.erase(option)) return path;  // reserved up front, now read (once)
    for (const auto& [other, other_path] : stdin_readers_)
        if (path == "-" || other_path == "-")
            throw UsageError(
                (other != option       ? "both " + other + " and " + option + " read standard input"
                 : path == other_path ? "'-' is given twice (" + option + ")"
                                      : "'-' and " + (path == "-" ? other_path : path) + " are given (" + option + ")") +
                ": at most one input may be '-' (several may name results of it, as -:NAME)");
    stdin_readers_.emplace_back(option, path);
    return path;
}

void InputNames::reserve_stdin(const std::string& option, const std::string& path) {
    claim(path, option);
    reserved_.insert(option);
}

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

std::vector<char*> split_files(int argc, char** argv, std::initializer_list<const char*> with_value,
                               std::vector<std::string>& files) {
    std::vector<char*> rest{argv[0]};
    bool only_files = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (only_files || a == "-" || a.starts_with("-:") || a.empty() || a[0] != '-') {
            files.push_back(a);
        } else if (a == "--") {
            only_files = true;
        } else {
            rest.push_back(argv[i]);
            for (const char* o : with_value)
                if (a == o && i + 1 < argc) rest.push_back(argv[++i]);
        }
    }
    return rest;
}

}  // namespace attn::cli
