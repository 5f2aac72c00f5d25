#include "cli/common.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>

#include "attn/error.hpp"
#include "attn/ops.hpp"

namespace attn::cli {

std::optional<cxxopts::ParseResult> parse_or_help(cxxopts::Options& options, int argc, char** argv) {
    options.add_options()("h,help", "Show this help and exit");
    try {
        auto result = options.parse(argc, argv);
        if (result.count("help")) {
            std::cout << options.help() << std::flush;
            return std::nullopt;
        }
        if (!result.unmatched().empty())
            throw UsageError("unexpected argument '" + result.unmatched().front() + "' (see --help)");
        // A value option given twice would silently keep the last one.
        for (const auto& kv : result.arguments())
            if (result.count(kv.key()) > 1 && kv.value() != "true")
                throw UsageError((kv.key().size() == 1 ? "-" : "--") + kv.key() + " given more than once");
        return result;
    } catch (const cxxopts::exceptions::exception& e) {
        std::string msg = e.what();
        // cxxopts quotes with ‘ ’; attn's messages use plain quotes.
        for (const char* curly : {"\u2018", "\u2019"})
            for (std::size_t at; (at = msg.find(curly)) != std::string::npos;) msg.replace(at, std::strlen(curly), "'");
        if (!msg.empty()) msg[0] = char(std::tolower((unsigned char)msg[0]));
        throw UsageError(msg + " (see --help)");
    }
}

const char* const digits_help =
    "pretty: digits after the decimal point (default 4, as torch's precision), in scientific notation "
    "(2.0611e-09) for a matrix whose nonzero magnitudes span more than 1e3 or reach below 1e-4 or above "
    "1e8, as PyTorch prints. "
    "csv/tsv/json: significant digits (default 9)";

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
        ("format", std::string("Output format: pretty, csv, tsv, json") + (with_npy ? ", npy" : "") +
                   " (default: pretty on a terminal, csv otherwise). pretty tables wider than $COLUMNS (else the "
                   "terminal, else 80) print in column blocks", cxxopts::value<std::string>(), "FMT")
        ("digits", digits_help, cxxopts::value<int>(), "N")
        ("o,output", "Write to PATH instead of standard output (a directory for several npy matrices)",
         cxxopts::value<std::string>(), "PATH");
}

io::OutputOptions output_options(const cxxopts::ParseResult& r) {
    io::OutputOptions out;
    out.format = r.count("format") ? io::parse_format(r["format"].as<std::string>())
                                   : (stdout_is_terminal() && !r.count("output") ? io::Format::pretty : io::Format::csv);
    if (r.count("digits")) {
        out.digits = r["digits"].as<int>();
        if (out.digits < 0 || out.digits > 17)
            throw UsageError("invalid --digits " + std::to_string(out.digits) + ": expected 0 to 17");
    }
    out.line_width = terminal_columns();
    if (r.count("output")) {
        out.path = r["output"].as<std::string>();
        if (out.path.empty()) throw UsageError("-o needs a path ('-' for standard output)");
    }
    return out;
}

void add_exec_options(cxxopts::Options& options) {
    options.add_options("Execution")
        ("arch", "Kernel set: auto, scalar, avx2, avx512, neon (default auto, or $ATTN_ARCH)",
         cxxopts::value<std::string>(), "ARCH")
        ("threads", "Worker threads (default: all online cores); results are identical for any count",
         cxxopts::value<int>(), "N");
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

void apply_exec_options(const cxxopts::ParseResult& r) {
    if (r.count("arch")) {
        set_arch(parse_arch_from(r["arch"].as<std::string>(), "--arch"));
    } else if (const char* env = std::getenv("ATTN_ARCH"); env && *env) {
        set_arch(parse_arch_from(env, "ATTN_ARCH"));
    }
    if (r.count("threads")) {
        const int n = r["threads"].as<int>();
        if (n < 1 || n > 1024) throw UsageError("invalid --threads " + std::to_string(n) + ": expected 1 to 1024");
        set_threads(unsigned(n));
    }
}

double parse_number(const std::string& text, const std::string& option) {
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
    if (path == "-") {
        if (!stdin_owner_.empty())
            throw UsageError("both " + stdin_owner_ + " and " + option + " read standard input: at most one input may be '-'");
        stdin_owner_ = option;
    }
    return path;
}

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

}  // namespace attn::cli
