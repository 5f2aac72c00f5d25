// attn random: what torch.manual_seed(S) followed by --count calls of torch.randn(shape) (or
// torch.rand, normal_(mean, std), uniform_(low, high)) gives on a CPU, bit for bit.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/io.hpp"
#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"
#include "write/npz_write.hpp"
#include "write/output_file.hpp"
#include "write/staged_folder.hpp"

namespace attn::cli {
namespace {

constexpr std::size_t max_numel = std::size_t(1) << 28;  // 1 GiB of float32 per draw
constexpr long long max_count = 1000000;
constexpr std::size_t max_dims = 32;                    // NumPy's limit
constexpr std::size_t max_lines = std::size_t(1) << 28;  // lines of text per draw

std::vector<std::size_t> parse_shape(const std::string& text) {
    std::vector<std::size_t> shape;
    std::size_t pos = 0;
    while (true) {
        if (shape.size() == max_dims)
            throw UsageError("invalid --shape: more than " + std::to_string(max_dims) + " dimensions (NumPy's limit)");
        const std::size_t comma = text.find(',', pos);
        const std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (!integer_syntax(part, false))
            throw UsageError("invalid --shape '" + text + "': expected dimensions like 3,2 (non-negative integers)");
        const std::optional<long long> d = decimal_integer(part, false);
        if (!d || *d > (1ll << 31))
            throw UsageError("invalid --shape '" + text + "': dimension " + part + " is too large (at most 2^31, and "
                             "2^28 elements in all)");
        shape.push_back(std::size_t(*d));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    if (shape_numel(shape) > max_numel)
        throw UsageError("invalid --shape '" + text + "': more than 2^28 elements");
    return shape;
}

std::size_t saturating_mul(std::size_t a, std::size_t b) {
    std::size_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::size_t>::max() : r;
}

// Lines of text one draw prints: a header, the rows and a blank line per matrix (text formats), or
// one line per array below the outermost one (json). Zero-element shapes such as
// 2147483648,0,1 would otherwise print billions of lines about nothing.
std::size_t text_lines(const std::vector<std::size_t>& shape, bool json) {
    std::size_t lines = 0, prefix = 1;
    if (json) {
        for (std::size_t d = 0; d + 1 < shape.size(); ++d) {
            prefix = saturating_mul(prefix, shape[d]);
            lines = lines > std::numeric_limits<std::size_t>::max() - prefix ? std::numeric_limits<std::size_t>::max() : lines + prefix;
        }
        return lines;
    }
    std::size_t matrices = 1;
    for (std::size_t i = 0; i + 2 < shape.size(); ++i) matrices = saturating_mul(matrices, shape[i]);
    const std::size_t rows = shape.size() >= 2 && shape.back() != 0 ? shape[shape.size() - 2] : 1;
    return saturating_mul(matrices, rows >= std::numeric_limits<std::size_t>::max() - 1 ? rows : rows + 2);
}

std::string format_number(float v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, double(v));
    return buf;
}

void check_finite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) throw UsageError("--mean/--std or --low/--high make values overflow float32");
}

// --dtype f16: each value rounded to the nearest float16 (as torch's .half()), in place.
void round_to_half(std::vector<float>& v) {
    for (float& x : v) {
        x = half_to_float(float_to_half(x));
        if (!std::isfinite(x)) throw UsageError("--mean/--std or --low/--high make values overflow float16 (65504)");
    }
}

}  // namespace

int cmd_random(int argc, char** argv) {
    cxxopts::Options options("attn random",
                             "PyTorch-identical random tensors: torch.manual_seed(S), then --count calls of\n"
                             "torch.randn(shape) (or torch.rand with --uniform), bit for bit as on a CPU.\n"
                             "Each draw is a tensor named 'draw N'. csv/tsv print one matrix (one draw of\n"
                             "1 or 2 dimensions) as bare rows, otherwise every 2-D slice as a block headed\n"
                             "'# draw N [i, j] RxC', with 9 significant digits; pretty prints them\n"
                             "under titles 'draw N [i, j] (RxC):' with 4 digits after the point, as torch\n"
                             "prints (--digits sets either). Without --format: the format of -o's extension\n"
                             "(.npy, .npz, .json, .tsv), else pretty on a terminal and csv otherwise. Each\n"
                             "draw reads back into attn (pretty when not wrapped): one of several as\n"
                             "FILE.csv:'draw N', json's draws as FILE.json:draws (one tensor). npy keeps\n"
                             "the full shape (-o DIR gets drawN.npy files when --count > 1); npz writes\n"
                             "them all as drawN.npy in one archive. --dtype f16 rounds each value to\n"
                             "float16 (torch's .half()); npy and npz then write '<f2'.");
    options.add_options()
        ("shape", "Tensor shape, e.g. 3,2 or 4,8,32 (required; at most 32 dimensions and 2^28 elements; "
                  "text formats at most 2^28 lines per draw)", cxxopts::value<std::string>(), "DIMS")
        ("seed", "torch.manual_seed value, -2^63 to 2^64-1 (default: from the system's entropy, printed on "
                 "stderr)", cxxopts::value<std::string>(), "S")
        ("count", "Consecutive draws; the generator state carries over as in torch (default 1)",
         cxxopts::value<std::string>(), "N")
        ("uniform", "torch.rand / uniform_(low, high) instead of torch.randn")
        ("mean", "Gaussian mean, as normal_(mean, std) (default 0)", cxxopts::value<std::string>(), "M")
        ("std", "Gaussian standard deviation >= 0 (default 1)", cxxopts::value<std::string>(), "S")
        ("low", "Uniform lower bound, as uniform_(low, high) (default 0)", cxxopts::value<std::string>(), "L")
        ("high", "Uniform upper bound (default 1)", cxxopts::value<std::string>(), "H")
        ("torch-kernel", "Which torch build to match: avx2 (x86, the default) or scalar (ARM builds, "
                         "ATEN_CPU_CAPABILITY=default)", cxxopts::value<std::string>(), "avx2|scalar")
        ("dtype", "f32 (default) or f16: the float32 draw rounded to nearest-even float16, as torch's "
                  "randn(...).half(); --format npy writes '<f2' (half the bytes), text prints the rounded values",
         cxxopts::value<std::string>(), "f32|f16");
    add_output_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    if (!r.count("shape")) throw UsageError("missing --shape (e.g. --shape 3,2)");
    const std::vector<std::size_t> shape = parse_shape(r["shape"].as<std::string>());
    const long long count = integer_option(r, "count", 1, max_count, 1);
    const bool uniform = r["uniform"].as<bool>();
    if (uniform && (r.count("mean") || r.count("std")))
        throw UsageError("--mean/--std apply to the Gaussian; with --uniform use --low/--high");
    if (!uniform && (r.count("low") || r.count("high")))
        throw UsageError("--low/--high need --uniform");
    auto number = [&](const char* name, double fallback) {
        return r.count(name) ? parse_number(r[name].as<std::string>(), name) : fallback;
    };
    const double a = uniform ? number("low", 0.0) : number("mean", 0.0);
    const double b = uniform ? number("high", 1.0) : number("std", 1.0);
    constexpr double float_max = std::numeric_limits<float>::max();
    if (std::fabs(a) > float_max || std::fabs(b) > float_max)
        throw UsageError(std::string(uniform ? "--low/--high" : "--mean/--std") + " out of float32 range");
    if (!uniform && b < 0) throw UsageError("invalid --std: expected >= 0 (as torch's normal_)");
    // |N(0,1)| < 8.6 on both of torch's paths, so this keeps every value finite.
    if (!uniform && std::fabs(a) + 9.0 * b > float_max)
        throw UsageError("--mean/--std make values overflow float32");
    if (uniform && (a > b || double(float(b) - float(a)) > float_max))
        throw UsageError("invalid --low/--high: expected low <= high and a range within float32");

    const TorchKernel kernel =
        r.count("torch-kernel") ? parse_torch_kernel(r["torch-kernel"].as<std::string>()) : TorchKernel::avx2;
    const io::OutputOptions out = output_options(r);
    const std::string dtype = r.count("dtype") ? r["dtype"].as<std::string>() : "f32";
    if (dtype != "f32" && dtype != "f16") throw UsageError("invalid --dtype '" + dtype + "': expected f32 or f16");
    const bool half = dtype == "f16";
    const int digits = out.digits >= 0 ? out.digits : 9;  // json
    const Shape tensor_shape(shape);

    const bool npy = out.format == io::Format::npy, npz = out.format == io::Format::npz;
    if (!npy && !npz && text_lines(shape, out.format == io::Format::json) > max_lines)
        throw UsageError("invalid --shape '" + r["shape"].as<std::string>() +
                         "': its text output has more than 2^28 lines per draw (--format npy has no such limit)");
    if (npy && count > 1 && out.path.empty())
        throw UsageError("npy with --count > 1 needs -o DIR (one file per draw)");

    std::uint64_t seed;
    if (r.count("seed")) {
        seed = parse_seed(r["seed"].as<std::string>());
    } else {
        seed = std::random_device{}();
        std::fprintf(stderr, "attn: random seed %" PRIu64 " (repeat with --seed %" PRIu64 ")\n", seed, seed);
    }

    TorchGenerator gen(seed, kernel);
    const int name_width = int(std::to_string(count - 1).size());
    const auto draw_name = [&](long long d) {
        char name[48];
        std::snprintf(name, sizeof name, "draw%0*lld", name_width, d);
        return std::string(name);
    };
    if (npz) {  // every draw as drawN.npy in one archive, each written as soon as it is drawn
        std::vector<io::detail::NpzMember> members;
        // '<f2' and '<f4' headers have one length: that of the shape's header.
        const std::size_t npy_size = io::detail::npy_header(contiguous_view(nullptr, tensor_shape)).size() +
                                     tensor_shape.numel() * (half ? 2 : 4);
        for (long long d = 0; d < count; ++d) members.push_back({draw_name(d), npy_size});
        io::detail::npz_size(members);
        io::detail::refuse_binary_on_terminal(out.path);
        io::detail::OutputFile sink(out.path);
        io::detail::NpzWriter archive([&](std::string_view bytes) { sink.write(bytes); });
        for (long long d = 0; d < count; ++d) {
            std::vector<float> v = uniform ? gen.rand(shape, a, b) : gen.randn(shape, a, b);
            check_finite(v);
            if (half) round_to_half(v);
            const TensorView draw = contiguous_view(v.data(), tensor_shape);
            archive.add(draw_name(d), half ? io::npy_half_bytes(draw) : io::npy_bytes(draw));
        }
        archive.finish();
        sink.commit();
        return exit_ok;
    }
    if (npy) {
        // -o DIR for several draws: they appear in DIR together, once every one is written.
        io::detail::refuse_binary_on_terminal(out.path);
        std::optional<io::detail::StagedFolder> folder;
        if (count > 1) folder.emplace(out.path);
        for (long long d = 0; d < count; ++d) {
            std::vector<float> v = uniform ? gen.rand(shape, a, b) : gen.randn(shape, a, b);
            check_finite(v);
            if (half) round_to_half(v);
            std::string path = out.path;
            if (count > 1) path = folder->path_of(draw_name(d) + ".npy");
            io::detail::OutputFile sink(path);
            const TensorView draw = contiguous_view(v.data(), tensor_shape);
            sink.write(half ? io::npy_half_bytes(draw) : io::npy_bytes(draw));
            sink.commit();
        }
        if (folder) folder->publish();
        return exit_ok;
    }

    // Text is streamed into the shared writer: a temporary file renamed at the end, or
    // standard output, which only gets output the checks above prove can be produced whole.
    io::detail::OutputFile sink(out.path);
    if (out.format == io::Format::json) {
        std::string head = "{\n  \"seed\": " + std::to_string(seed) + ",\n  \"torch_kernel\": \"" +
                           torch_kernel_name(kernel) + "\",\n  \"distribution\": \"" +
                           (uniform ? "uniform" : "normal") + "\",\n  \"" + (uniform ? "low" : "mean") +
                           "\": " + format_number(float(a), 9) + ",\n  \"" + (uniform ? "high" : "std") +
                           "\": " + format_number(float(b), 9) + ",\n  \"shape\": [";
        for (std::size_t i = 0; i < shape.size(); ++i) head += (i ? ", " : "") + std::to_string(shape[i]);
        sink.write(head + "],\n  \"draws\": [\n");
    }
    const io::TextSink to_sink = [&](std::string_view piece) { sink.write(piece); };
    for (long long d = 0; d < count; ++d) {
        std::vector<float> v = uniform ? gen.rand(shape, a, b) : gen.randn(shape, a, b);
        check_finite(v);
        if (half) round_to_half(v);
        const TensorView draw = contiguous_view(v.data(), tensor_shape);
        if (out.format == io::Format::json) {
            sink.write(d ? ",\n    " : "    ");
            io::stream_json_array(draw, digits, 4, to_sink);
        } else {
            // Each draw is its own tensor "draw N": its blocks read back, two draws never glue.
            if (d && out.format == io::Format::pretty) sink.write("\n");
            io::stream_blocks(io::tensor_item("draw " + std::to_string(d), draw), out, to_sink, count == 1);
        }
    }
    if (out.format == io::Format::json) sink.write("\n  ]\n}\n");
    sink.commit();
    return exit_ok;
}

}  // namespace attn::cli
