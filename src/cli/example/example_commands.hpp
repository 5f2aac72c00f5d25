// The command line equivalent to a worked example's case (experiments/worked_examples.hpp),
// as `attn example` prints it.
#pragma once
#include <optional>
#include <string>

#include "attn/io.hpp"
#include "experiments/worked_examples.hpp"

namespace attn::cli {

using namespace worked_examples;

// How the printed commands print: --format (absent = not given) and --digits (-1 = not given).
struct CommandOutput {
    std::optional<io::Format> format;
    int digits = -1;
};

// The equivalent command line, with the example's files named as `attn example NAME --export
// DIR` writes them (so it runs as shown inside DIR), printing as `out` says. A heatmap is
// drawn only in pretty output: its command says --format pretty, so that it also runs as shown
// when standard output is not a terminal.
std::string case_command(const ExampleCase& c, const std::string& example, const CommandOutput& out = {});

}  // namespace attn::cli
