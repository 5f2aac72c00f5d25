// Placeholder until written.
#include "attn/error.hpp"
#include "cli/commands.hpp"

int attn::cli::cmd_attend(int, char**) { throw attn::RuntimeFailure("'attn attend' is not implemented yet"); }
