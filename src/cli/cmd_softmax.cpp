// Placeholder until written.
#include "attn/error.hpp"
#include "cli/commands.hpp"

int attn::cli::cmd_softmax(int, char**) { throw attn::RuntimeFailure("'attn softmax' is not implemented yet"); }
