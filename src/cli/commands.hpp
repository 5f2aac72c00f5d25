// The subcommands: one function per subcommand, each in its own file src/cli/cmd_NAME.cpp
// (src/cli/NAME/cmd_NAME.cpp for attend, bench and example; help and completions in
// src/cli/help/) (argv[0] is the subcommand name; each returns the process exit code or throws
// attn::Error), and the table that lists them with what their help pages, the man page and
// the shell completions add to the options each command declares with cxxopts.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::cli {

int cmd_attend(int argc, char** argv);
int cmd_softmax(int argc, char** argv);
int cmd_view(int argc, char** argv);
int cmd_matmul(int argc, char** argv);
int cmd_example(int argc, char** argv);
int cmd_random(int argc, char** argv);
int cmd_variance(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_ls(int argc, char** argv);
int cmd_concat(int argc, char** argv);
int cmd_merge(int argc, char** argv);
int cmd_positions(int argc, char** argv);
int cmd_tokenize(int argc, char** argv);
int cmd_model(int argc, char** argv);
int cmd_help(int argc, char** argv);         // cli/help/help.cpp
int cmd_completions(int argc, char** argv);  // cli/help/help_completions.cpp

// The values an option takes, for the shell completions. Options that take a value and have no entry here complete file names when
// their argument name says FILE, PATH or DIR, and nothing otherwise.
struct ValueChoices {
    std::string option;              // long name without dashes
    std::vector<std::string> values;
    bool comma_list = false;         // a comma-separated list of them (--show weights,context)
};

struct Command {
    const char* name;
    int (*run)(int, char**);
    const char* summary;                 // one line: the top-level help, NAME, completions
    std::vector<std::string> usage;      // what follows "attn NAME " on each USAGE line
    // Option groups (the cxxopts group name up to " (", "" = ungrouped) in the order a user
    // needs them; groups not listed follow in cxxopts' order, so none is lost.
    std::vector<std::string> group_order;
    std::vector<std::string> positionals;  // options bound to positional arguments: in USAGE only
    std::vector<ValueChoices> choices;
    // EXAMPLES: "# what the next lines do" or a command that runs as shown, in order, in an
    // empty folder (files it reads are written by an earlier line; tests/e2e/test_help.sh).
    std::vector<std::string> examples;
    bool declares_options = true;  // false: help and completions have no cxxopts table
    // The values of the positional arguments, for the completions (files when null). A
    // function: the example catalogue is only built when a completion script is.
    std::vector<std::string> (*positional_values)() = nullptr;
    // Without a cxxopts table: its flags (a long name without the dashes, what it does), for the
    // help page, the man page and the completions; -h/--help is added to them.
    std::vector<std::pair<std::string, std::string>> flags = {};
};

const std::vector<Command>& command_table();
const Command* find_command(std::string_view name);
// The commands' names, in the table's order (for "did you mean").
std::vector<std::string> command_names();

}  // namespace attn::cli
