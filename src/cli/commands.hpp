// One function per subcommand, each in its own file src/cli/cmd_NAME.cpp. argv[0] is the
// subcommand name. Each returns the process exit code or throws attn::Error.
#pragma once

namespace attn::cli {

int cmd_attend(int argc, char** argv);
int cmd_softmax(int argc, char** argv);
int cmd_matmul(int argc, char** argv);
int cmd_example(int argc, char** argv);
int cmd_random(int argc, char** argv);
int cmd_variance(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_ls(int argc, char** argv);
int cmd_concat(int argc, char** argv);

}  // namespace attn::cli
