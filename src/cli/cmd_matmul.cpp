// Placeholder until written.
#include "attn/error.hpp"
#include "cli/commands.hpp"

int attn::cli::cmd_matmul(int, char**) { throw attn::RuntimeFailure("'attn matmul' is not implemented yet"); }
