// Placeholder until its issue lands: says so plainly and fails.
#include "attn/error.hpp"
#include "cli/commands.hpp"

int attn::cli::cmd_random(int, char**) { throw attn::RuntimeFailure("'attn random' is not implemented yet"); }
