// attn ls: the tensors of a model file (.npz or .safetensors) with dtype and shape.
#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model_file.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "io/utf8.hpp"

namespace attn::cli {

int cmd_ls(int argc, char** argv) {
    cxxopts::Options options("attn ls", "List the tensors of a model file (.npz or .safetensors): name, dtype, shape.\n"
                                        "Read one of them anywhere a FILE is expected as FILE.npz:NAME or "
                                        "FILE.safetensors:NAME.");
    options.custom_help("FILE");
    options.positional_help("");
    options.add_options()("file", "Model file", cxxopts::value<std::string>(), "FILE");
    options.parse_positional({"file"});
    auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    if (!r.count("file")) throw UsageError("ls: no file given (attn ls FILE.npz or FILE.safetensors)");
    std::vector<io::TensorInfo> tensors = io::list_model_tensors(r["file"].as<std::string>());
    for (auto& t : tensors) t.name = io::printable_utf8(t.name);  // a name cannot drive the terminal
    std::size_t name_w = 4, dtype_w = 5;
    for (const auto& t : tensors) name_w = std::max(name_w, t.name.size()), dtype_w = std::max(dtype_w, t.dtype.size());
    std::string out;
    auto row = [&](const std::string& a, const std::string& b, const std::string& c) {
        out += a + std::string(name_w - a.size() + 2, ' ') + b + std::string(dtype_w - b.size() + 2, ' ') + c + "\n";
    };
    row("NAME", "DTYPE", "SHAPE");
    for (const auto& t : tensors) row(t.name, t.dtype, t.shape.text());
    io::write_text("", out);
    return exit_ok;
}

}  // namespace attn::cli
