// Placeholder until its issue lands: says so plainly and fails.
#include "attn/error.hpp"
#include "cli/commands.hpp"

int attn::cli::cmd_bench(int, char**) { throw attn::RuntimeFailure("'attn bench' is not implemented yet"); }
