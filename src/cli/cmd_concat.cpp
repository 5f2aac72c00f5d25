// attn concat FILE... [--axis N]: joins tensors (npy or text shards) along one axis, as
// numpy.concatenate / torch.cat do.
#include <string>
#include <vector>

#include "attn/concat.hpp"
#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "attn/io.hpp"
#include "attn/tensor.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "read/input_bytes.hpp"
#include "cli/option_values.hpp"
#include "runtime/utf8.hpp"
#include "write/output_file.hpp"

namespace attn::cli {

namespace {

using io::detail::display_name;

}  // namespace

int cmd_concat(int argc, char** argv) {
    cxxopts::Options options("attn concat",
                             "Joins tensors along one axis, as numpy.concatenate and torch.cat: every input\n"
                             "(text or .npy, up to 32 dimensions) has the same number of dimensions and\n"
                             "the same extent in every dimension but the axis: shards of a run split by\n"
                             "batch items or query rows join back into the whole result. FILEs are joined in\n"
                             "the order given; at most one may be '-' (standard input; any number -:NAME, one\n"
                             "result or tensor of it each). Values pass through as float32, nan and inf\n"
                             "included (NaN rows of --masked-rows nan): float64 and integer .npy inputs are\n"
                             "rounded to float32 (integers beyond 2^24 lose digits).\n");
    options.custom_help("[OPTION...] FILE...");
    options.add_options()
        ("axis", "Axis to join along; negative counts from the end (default 0)", cxxopts::value<std::string>(), "N")
        ("name", "Name of the result in text output headers, e.g. '# NAME [b] RxC' (default concat)",
         cxxopts::value<std::string>(), "NAME");
    add_output_options(options);
    std::vector<std::string> files;
    std::vector<char*> rest =
        split_files(argc, argv, {"--axis", "--name", "--format", "--digits", "-o", "--output"}, files);
    const auto parsed = parse_or_help(options, int(rest.size()), rest.data());
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    const long long given_axis = integer_option(r, "axis", -(long long)max_rank, (long long)max_rank - 1, 0);
    if (files.empty()) throw UsageError("missing input: attn concat needs at least one FILE (see --help)");
    const io::OutputOptions out = output_options(r);
    const std::string name = r.count("name") ? r["name"].as<std::string>() : "concat";
    // Also a file name (-o DIR writes NAME.npy) and an npz member's: no folder in it.
    if (name.empty() || name.find_first_of(" \t\n#[]/\\") != std::string::npos)
        throw UsageError("invalid --name '" + name + "': expected one word without '#', '[', ']', '/' or '\\'");
    // Printed in every text format (json must be UTF-8; a terminal must not be driven).
    for (std::size_t i = 0; i < name.size();) {
        const std::size_t n = static_cast<unsigned char>(name[i]) < 0x80 ? 1 : io::utf8_length(name, i);
        if (n == 0 || io::control_at(name, i))
            throw UsageError("invalid --name: expected UTF-8 text without control characters");
        i += n;
    }

    InputNames names;
    std::vector<std::string> paths;
    for (const auto& p : files) paths.push_back(names.claim(p, "FILE"));
    std::vector<Tensor> parts;
    // Results joined as they are: NaN rows (--masked-rows nan) and -inf or inf values too.
    for (const auto& p : paths) parts.push_back(io::read_tensor(p, io::Finite::any, max_rank));

    std::size_t axis = 0;
    const std::size_t rank = parts[0].rank();
    if (!resolve_axis(given_axis, rank, axis))
        throw UsageError("invalid --axis " + std::to_string(given_axis) + ": the inputs have " + std::to_string(rank) +
                         (rank == 1 ? " dimension" : " dimensions") + " (axis -" + std::to_string(rank) + " to " +
                         std::to_string(rank - 1) + ")");
    if (parts.size() == 1) {  // a conversion: written from the tensor as read
        io::write_output({io::tensor_item(name, parts[0].view())}, out);
        return exit_ok;
    }
    std::vector<TensorView> views;
    for (const Tensor& t : parts) views.push_back(t.view());
    Tensor result;
    try {
        result = concatenate(views, axis);
    } catch (const JoinError& e) {  // the parts named by their files
        const std::string which = display_name(paths[e.part]) + " " + parts[e.part].shape().text();
        const std::string to = display_name(paths[0]) + " " + parts[0].shape().text();
        throw InputError("cannot join " + which + " to " + to +
                         (e.rank ? ": " + std::to_string(e.got) + " dimensions instead of " + std::to_string(e.wanted)
                                 : " along axis " + std::to_string(axis) + ": dimension " + std::to_string(e.dimension) +
                                       " is " + std::to_string(e.got) + ", not " + std::to_string(e.wanted)));
    }
    io::write_output({io::tensor_item(name, result.view())}, out);
    return exit_ok;
}

}  // namespace attn::cli
