// Placeholder until written.
#include "attn/error.hpp"
#include "cli/commands.hpp"

int attn::cli::cmd_example(int, char**) { throw attn::RuntimeFailure("'attn example' is not implemented yet"); }
