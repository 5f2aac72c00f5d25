// attn: entry point. Dispatches to one subcommand and turns errors into GNU-style messages
// on stderr and the documented exit codes.
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
#include "io/temp_files.hpp"

namespace {

struct Command {
    const char* name;
    int (*run)(int, char**);
    const char* summary;
};

constexpr Command commands[] = {
    {"attend", attn::cli::cmd_attend, "scaled dot-product attention: scores, weights, context, diagnostics"},
    {"softmax", attn::cli::cmd_softmax, "row-wise numerically stable softmax of a matrix"},
    {"matmul", attn::cli::cmd_matmul, "matrix product A·B or A·Bᵀ"},
    {"example", attn::cli::cmd_example, "the tutorials' worked examples: list, show, --check"},
    {"random", attn::cli::cmd_random, "PyTorch-identical random matrices (torch.manual_seed + randn/rand)"},
    {"variance", attn::cli::cmd_variance, "the dot-product variance experiment: why scores are scaled"},
    {"bench", attn::cli::cmd_bench, "time the kernels in-process: GFLOP/s, speed-up, FMA peak"},
    {"ls", attn::cli::cmd_ls, "list the tensors of a model file (.npz, .safetensors): name, dtype, shape"},
    {"concat", attn::cli::cmd_concat, "join tensors (npy or text shards) along an axis"},
};

void print_usage(std::FILE* out) {
    std::fprintf(out,
                 "attn %s — scaled dot-product attention from the shell\n\n"
                 "Usage: attn COMMAND [OPTIONS]\n"
                 "       attn COMMAND --help     options of one command\n"
                 "       attn --version          version and the kernel set in use\n\n"
                 "Commands:\n",
                 ATTN_VERSION);
    for (const auto& c : commands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
    std::fprintf(out,
                 "\nInputs are text (rows of numbers; also pasted tensor([[...]]) / array([[...]])) or\n"
                 ".npy, recognised by content; '-' reads standard input. A tensor of a model file is\n"
                 "FILE.npz:NAME or FILE.safetensors:NAME (see attn ls).\n"
                 "Exit status: 0 ok, 1 runtime failure, 2 usage error, 3 bad input.\n"
                 "Limits: an input file or stream of at most 2 GiB; matrices of at most 2 dimensions in,\n"
                 "32 dimensions (NumPy's limit) and 2^28 elements per tensor in `random`; bench cases\n"
                 "within half the memory and 10^13 flop per run. Beyond\n"
                 "them: exit 2 or 3 with a message, before any output.\n");
}

// Everything printed through stdio or iostreams must have reached standard output: a full
// disk or a closed descriptor is a runtime failure; a reader that went away (EPIPE) ends the
// program quietly, as coreutils do.
int finish_stdout(int code) {
    std::cout.flush();
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) return code;
    if (errno == EPIPE) {
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
    attn::io::detail::remove_temps_on_fatal_signals();  // Ctrl-C leaves no temporary file behind
    if (argc < 2) {
        print_usage(stderr);
        return attn::exit_usage;
    }
    const std::string first = argv[1];
    if (first == "-h" || first == "--help" || first == "help") {
        print_usage(stdout);
        return attn::exit_ok;
    }
    try {
        if (first == "--version" || first == "-V") {
            // The kernel set in use: $ATTN_ARCH when set (an unsupported one is an error), else the best.
            if (const char* env = std::getenv("ATTN_ARCH"); env && *env) attn::set_arch(attn::cli::parse_arch_from(env, "ATTN_ARCH"));
            std::printf("attn %s (kernels: %s; threads: %u)\n", ATTN_VERSION, attn::arch_name(attn::current_arch()),
                        attn::online_cores());
            return attn::exit_ok;
        }
        for (const auto& c : commands)
            if (first == c.name) return c.run(argc - 1, argv + 1);
        throw attn::UsageError("unknown command '" + first + "' (see attn --help)");
    } catch (const attn::Error& e) {
        std::fprintf(stderr, "attn: %s\n", e.what());
        return e.exit_code();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "attn: out of memory\n");
        return attn::exit_runtime;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attn: %s\n", e.what());
        return attn::exit_runtime;
    }
}

}  // namespace
