// attn ls: the tensors of a model file (.npz or .safetensors) with dtype and shape.
#include <algorithm>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model_file.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/help/help.hpp"
#include "runtime/utf8.hpp"

namespace attn::cli {

int cmd_ls(int argc, char** argv) {
    cxxopts::Options options("attn ls", "List the tensors of a model file (.npz, .safetensors, or a torch.save "
                                        "checkpoint .bin/.pt/.pth): name, dtype, shape.\n"
                                        "Read one of them anywhere a FILE is expected as FILE.npz:NAME, "
                                        "FILE.safetensors:NAME or FILE.pt:NAME.\n"
                                        "torch.save files (the zip format of torch >= 1.6, or the legacy one before "
                                        "it) are read by a restricted "
                                        "unpickler that knows only what a state_dict of tensors uses and refuses any "
                                        "other pickle opcode or global by name: nothing in the file is ever run. A "
                                        "nested dict's tensors are named OUTER.INNER, a tuple's or list's by index "
                                        "(torch.save(outputs.attentions): 0, 1, ...), a tensor saved alone 'tensor'; "
                                        "any strides and storage offset are read as torch reads them.");
    options.custom_help("FILE");
    options.positional_help("");
    options.add_options()("file", "Model file", cxxopts::value<std::string>(), "FILE");
    options.parse_positional({"file"});
    auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    if (!r.count("file")) throw UsageError("ls: no file given (attn ls FILE.npz or FILE.safetensors)");
    if (io::reads_standard_input(r["file"].as<std::string>()))  // a listing reads headers where they lie in a file
        throw UsageError("ls lists a file's tensors: it does not read standard input (save it to a file first)");
    std::vector<io::TensorInfo> tensors = io::list_model_tensors(r["file"].as<std::string>());
    for (auto& t : tensors)  // a name or dtype (a header's string) cannot drive the terminal
        t.name = io::printable_utf8(t.name), t.dtype = io::printable_utf8(t.dtype);
    // A tensor attn cannot read (a dtype it does not convert, 0-d, empty) is listed too, with
    // the reason in a NOTE column that appears only then.
    bool notes = false;
    std::size_t name_w = 4, dtype_w = 5, shape_w = 5;
    std::vector<std::string> shapes;
    for (const auto& t : tensors) {
        shapes.push_back(t.shape_known ? t.shape.text() : "-");
        name_w = std::max(name_w, display_width(t.name)), dtype_w = std::max(dtype_w, display_width(t.dtype));
        shape_w = std::max(shape_w, shapes.back().size());
        notes |= !t.note.empty();
    }
    std::string out;
    auto row = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
        out += a + std::string(name_w - display_width(a) + 2, ' ');
        out += b + std::string(dtype_w - display_width(b) + 2, ' ') + c;
        if (notes && !d.empty()) out += std::string(shape_w - c.size() + 2, ' ') + d;
        out += "\n";
    };
    row("NAME", "DTYPE", "SHAPE", "NOTE");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const std::string& note = tensors[i].note;
        row(tensors[i].name, tensors[i].dtype, shapes[i], note.empty() ? "" : "not readable: " + note);
    }
    io::write_text("", out);
    return exit_ok;
}

}  // namespace attn::cli
