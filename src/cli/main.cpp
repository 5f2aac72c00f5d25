// attn: entry point. Dispatches to one subcommand and turns errors into GNU-style messages
// on stderr and the documented exit codes.
#include <poll.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "attn/version.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/help/help.hpp"
#include "write/temp_files.hpp"
#include "runtime/utf8.hpp"
#include "runtime/did_you_mean.hpp"

namespace {

// Whether standard output is a pipe (or socket) whose reader has gone: poll reports an error
// on its write end. An iostream that failed on EPIPE earlier keeps no errno to tell.
bool stdout_reader_gone() {
    pollfd p{STDOUT_FILENO, POLLOUT, 0};
    return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

// Everything printed through stdio or iostreams must have reached standard output: a full
// disk or a closed descriptor is a runtime failure; a reader that went away (EPIPE) ends the
// program quietly, as coreutils do.
int finish_stdout(int code) {
    std::cout.flush();
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) return code;
    if (errno == EPIPE || stdout_reader_gone()) {
        std::signal(SIGPIPE, SIG_DFL);
        std::raise(SIGPIPE);
    }
    if (code != attn::exit_ok) return code;  // the command has already said what went wrong
    std::fprintf(stderr, "attn: standard output: write error%s%s\n", errno ? ": " : "", errno ? std::strerror(errno) : "");
    return attn::exit_runtime;
}

int run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) { return finish_stdout(run(argc, argv)); }

namespace {

int run(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is handled as EPIPE by the writers
    attn::io::detail::install_signal_cleanup();  // Ctrl-C leaves no temporary file behind
    if (argc < 2) {
        std::fputs(attn::cli::top_level_help(attn::cli::terminal_columns()).c_str(), stderr);
        return attn::exit_usage;
    }
    const std::string first = argv[1];
    try {
        const bool help = first == "-h" || first == "--help";
        if (help && argc > 2) return attn::cli::find_command("help")->run(argc - 1, argv + 1);  // = attn help ARGS
        if ((first == "--version" || first == "-V") && argc > 2)
            throw attn::UsageError("unexpected argument '" + std::string(argv[2]) + "' after " + first);
        if (help) {
            std::fputs(attn::cli::top_level_help(attn::cli::terminal_columns()).c_str(), stdout);
            return attn::exit_ok;
        }
        if (first == "--version" || first == "-V") {
            // The kernel set in use: $ATTN_ARCH when set (an unsupported one is an error), else the best.
            attn::cli::apply_arch_environment();
            std::printf("attn %s (commit %s; kernels: %s; threads: %u)\n", ATTN_VERSION, attn::build_commit,
                        attn::arch_name(attn::current_arch()), attn::online_cores());
            return attn::exit_ok;
        }
        if (const auto* c = attn::cli::find_command(first)) return c->run(argc - 1, argv + 1);
        throw attn::UsageError("unknown command '" + first + "'" + attn::did_you_mean(first, attn::cli::command_names()) +
                               " (see attn --help)");
    } catch (const attn::SettingError& e) {
        // The library names the setting; the user typed a flag.
        std::fprintf(stderr, "attn: %s\n", attn::io::printable_utf8(e.message_with(attn::cli::flag_of_setting(e.setting()))).c_str());
        return e.exit_code();
    } catch (const attn::Error& e) {
        // Messages quote file names and option values as given: their control bytes (an escape
        // sequence in a file name) must not reach the terminal.
        std::fprintf(stderr, "attn: %s\n", attn::io::printable_utf8(e.what()).c_str());
        return e.exit_code();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "attn: out of memory\n");
        return attn::exit_runtime;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attn: %s\n", attn::io::printable_utf8(e.what()).c_str());
        return attn::exit_runtime;
    }
}

}  // namespace
