// attn random: what torch.manual_seed(S) followed by torch.randn/rand calls (several shapes, or
// one repeated --count times) and nn.Linear constructors gives on a CPU, bit for bit; or NumPy's legacy np.random.
#include <sys/stat.h>

#include <algorithm>
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
#include "attn/numpy_rng.hpp"
#include "attn/torch_rng.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"
#include "write/npz_write.hpp"
#include "write/output_file.hpp"
#include "write/staged_folder.hpp"
#include "runtime/did_you_mean.hpp"

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
            throw UsageError("invalid --shape '" + text + "': expected dimensions like 3,2 (positive integers)");
        const std::optional<long long> d = decimal_integer(part, false);
        if (!d || *d > (1ll << 31))
            throw UsageError("invalid --shape '" + text + "': dimension " + part + " is too large (at most 2^31, and "
                             "2^28 elements in all)");
        // torch.randn(3, 0) is an empty tensor, which attn's readers refuse: what random writes reads back.
        if (*d == 0)
            throw UsageError("invalid --shape '" + text + "': a dimension of 0 makes an empty tensor, which attn's "
                             "commands do not read");
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
// one line per array below the outermost one (json). Shapes of many tiny matrices such as
// 268435456,1,1 would otherwise print billions of lines about little.
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

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string text;
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text;
}

std::string shape_json(const std::vector<std::size_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
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

// --dtype f16 / bf16: each value rounded to nearest even float16 (as torch's .half()) or
// bfloat16 (.bfloat16()), in place.
void round_to_half(std::vector<float>& v, bool bf16) {
    for (float& x : v) {
        x = bf16 ? bfloat16_to_float(float_to_bfloat16(x)) : half_to_float(float_to_half(x));
        if (!std::isfinite(x))
            throw UsageError(bf16 ? "--mean/--std or --low/--high make values overflow bfloat16"
                                  : "--mean/--std or --low/--high make values overflow float16 (65504)");
    }
}

// One tensor of the output: its shape and distribution (normal(a, b) or uniform(a, b)).
struct DrawSpec {
    std::vector<std::size_t> shape;
    bool uniform = false;
    double a = 0.0, b = 1.0;
};

// "IN,OUT" of --linear: two positive integers.
std::pair<std::size_t, std::size_t> parse_linear(const std::string& option, const std::string& text) {
    const std::size_t comma = text.find(',');
    const auto positive = [&](const std::string& part) -> std::size_t {
        if (!integer_syntax(part, false)) return 0;
        const std::optional<long long> v = decimal_integer(part, false);
        return v && *v >= 1 && *v <= (1ll << 24) ? std::size_t(*v) : 0;
    };
    const std::size_t in = comma == std::string::npos ? 0 : positive(text.substr(0, comma));
    const std::size_t out = comma == std::string::npos ? 0 : positive(text.substr(comma + 1));
    if (!in || !out || in * out > max_numel)
        throw UsageError("invalid --" + option + " '" + text + "': expected IN,OUT as nn.Linear(IN, OUT) takes them "
                         "(whole numbers from 1 to 2^24, at most 2^28 weights)");
    return {in, out};
}

// nn.Linear(IN, OUT).reset_parameters() in PyTorch 1.13: the weight (OUT×IN) by
// kaiming_uniform_(a=√5), i.e. uniform_(−bound, bound) with bound = √3·gain/√IN and
// gain = √(2/(1 + a²)), computed in double as torch's Python does; then the bias (OUT) by
// uniform_(−1/√IN, 1/√IN).
void add_linear(std::vector<DrawSpec>& plan, std::size_t in, std::size_t out, bool bias) {
    const double a = std::sqrt(5.0), gain = std::sqrt(2.0 / (1 + a * a));
    const double bound = std::sqrt(3.0) * (gain / std::sqrt(double(in)));
    plan.push_back({{out, in}, true, -bound, bound});
    if (bias) plan.push_back({{out}, true, -1 / std::sqrt(double(in)), 1 / std::sqrt(double(in))});
}

}  // namespace

int cmd_random(int argc, char** argv) {
    cxxopts::Options options("attn random",
                             "PyTorch-identical random tensors: torch.manual_seed(S), then --count calls of\n"
                             "torch.randn(shape) (or torch.rand with --uniform), bit for bit as on a CPU.\n"
                             "Each draw is a tensor named 'draw N'. csv/tsv print one matrix (one draw of\n"
                             "2 dimensions) as bare rows, a vector under '# draw N (LEN,)' (so that it reads\n"
                             "back as one), otherwise every 2-D slice as a block headed\n"
                             "'# draw N [i, j] RxC', with 9 significant digits; pretty prints them\n"
                             "under titles 'draw N [i, j] (RxC):' with 4 digits after the point, as torch\n"
                             "prints (--digits sets either). Without --format: the format of -o's extension\n"
                             "(.npy, .npz, .json, .tsv), else pretty on a terminal and csv otherwise. Each\n"
                             "draw reads back into attn (pretty when not wrapped): one of several as\n"
                             "FILE.csv:'draw N', json's draws as FILE.json:draws (one tensor; draws of\n"
                             "several shapes as FILE.json:'draw N'). npy keeps the full shape (-o DIR/, or\n"
                             "an existing folder, gets one drawN.npy a draw; -o x.npy of several draws is\n"
                             "refused); npz writes them all\n"
                             "as drawN.npy in one archive. FILE:drawN and FILE:'draw N' both select a draw\n"
                             "where it has a name of its own (not json's stacked draws). --dtype f16 rounds each value to\n"
                             "float16 (torch's .half()); npy and npz then write '<f2'.\n"
                             "--generator numpy draws as NumPy's legacy np.random.seed(S) then\n"
                             "np.random.randn / rand / normal / uniform do, each float64 value rounded to\n"
                             "float32 (as .astype(np.float32)).");
    options.add_options()
        ("shape", "Tensor shape, e.g. 3,2 or 4,8,32 (at most 32 dimensions and 2^28 elements; text formats at "
                  "most 2^28 lines per draw). Repeat it for consecutive draws of several shapes from one "
                  "stream, as consecutive torch calls draw", cxxopts::value<std::vector<std::string>>(), "DIMS")
        ("linear", "Draw nn.Linear(IN, OUT)'s initial weight (OUT×IN) and bias (OUT) as PyTorch does: "
                   "kaiming_uniform_(a=√5), bound 1/√IN; in order with the --shape draws",
         cxxopts::value<std::vector<std::string>>(), "IN,OUT")
        ("linear-no-bias", "The same for nn.Linear(IN, OUT, bias=False): the weight only",
         cxxopts::value<std::vector<std::string>>(), "IN,OUT")
        ("normal", "torch.randn for the --shape just before (the default)")
        ("seed", "torch.manual_seed value, -2^63 to 2^64-1 (default: from the system's entropy, printed on "
                 "stderr)", cxxopts::value<std::string>(), "S")
        ("count", "Consecutive draws of the one --shape; the generator state carries over as in torch (default 1)",
         cxxopts::value<std::string>(), "N")
        ("uniform", "torch.rand / uniform_(low, high) instead of torch.randn: for the --shape just before, or "
                    "given before any --shape, for every --shape without --normal")
        ("mean", "Gaussian mean, as normal_(mean, std) (default 0)", cxxopts::value<std::string>(), "M")
        ("std", "Gaussian standard deviation >= 0 (default 1); |mean| + 9·std at most float32's largest value "
                "(3.4e38), so that every value is finite", cxxopts::value<std::string>(), "S")
        ("low", "Uniform lower bound, as uniform_(low, high) (default 0)", cxxopts::value<std::string>(), "L")
        ("high", "Uniform upper bound (default 1)", cxxopts::value<std::string>(), "H")
        ("generator", "torch (default): torch.manual_seed and torch.randn/rand; numpy: NumPy's legacy "
                      "np.random.seed (S in 0..2^32-1) and np.random.randn/rand (normal/uniform with "
                      "--mean/--std, --low/--high), float64 draws rounded to float32",
         cxxopts::value<std::string>(), "torch|numpy")
        ("torch-kernel", "Which torch build to match: avx2 (x86, the default) or scalar (ARM builds, "
                         "ATEN_CPU_CAPABILITY=default)", cxxopts::value<std::string>(), "avx2|scalar")
        ("dtype", "f32 (default), f16 or bf16: the float32 draw rounded to nearest-even float16 or bfloat16, "
                  "as torch's randn(...).half() / .bfloat16(); --format npy writes f16 as '<f2' (half the bytes; "
                  "NumPy has no bfloat16, so bf16 is text only), text prints the rounded values",
         cxxopts::value<std::string>(), "f32|f16|bf16");
    add_output_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    // The draws in the order given: each --shape (its distribution from the --uniform/--normal
    // after it, or one given before any --shape), each --linear's weight and bias.
    std::vector<DrawSpec> plan;
    std::vector<int> chosen;  // per --shape draw: -1 none, 0 normal, 1 uniform
    int default_uniform = -1;
    std::vector<std::size_t> shape_draws;  // indices in plan of the --shape draws
    for (const auto& kv : r.arguments()) {
        const std::string& key = kv.key();
        if (key == "shape") {
            plan.push_back({parse_shape(kv.value())});
            shape_draws.push_back(plan.size() - 1);
            chosen.push_back(-1);
        } else if (key == "linear" || key == "linear-no-bias") {
            const auto [in, out] = parse_linear(key, kv.value());
            add_linear(plan, in, out, key == "linear");
        } else if (key == "uniform" || key == "normal") {
            const int u = key == "uniform";
            int& slot = chosen.empty() ? default_uniform : chosen.back();
            if (slot != -1 && slot != u) throw UsageError("--uniform and --normal both given for one --shape");
            slot = u;
        }
    }
    if (plan.empty()) throw UsageError("missing --shape (e.g. --shape 3,2), or --linear IN,OUT");
    if (shape_draws.empty() && default_uniform != -1)
        throw UsageError(std::string("--") + (default_uniform ? "uniform" : "normal") +
                         " chooses the distribution of --shape draws: --linear draws nn.Linear's own");
    bool any_uniform = false, any_normal = false;
    for (std::size_t i = 0; i < shape_draws.size(); ++i) {
        plan[shape_draws[i]].uniform = (chosen[i] != -1 ? chosen[i] : default_uniform) == 1;
        (plan[shape_draws[i]].uniform ? any_uniform : any_normal) = true;
    }
    const long long count = integer_option(r, "count", 1, max_count, 1);
    if (r.count("count") && plan.size() > 1)
        throw UsageError("--count repeats one --shape: with several draws, give each --shape");
    if ((r.count("mean") || r.count("std")) && !any_normal)
        throw UsageError(any_uniform ? "--mean/--std apply to the Gaussian; with --uniform use --low/--high"
                                     : "--mean/--std apply to --shape draws (--linear has its own bounds)");
    if ((r.count("low") || r.count("high")) && !any_uniform) throw UsageError("--low/--high need --uniform");
    auto number = [&](const char* name, double fallback) {
        return r.count(name) ? parse_number(r[name].as<std::string>(), name) : fallback;
    };
    const double mean = number("mean", 0.0), sd = number("std", 1.0), lo = number("low", 0.0), hi = number("high", 1.0);
    constexpr double float_max = std::numeric_limits<float>::max();
    if (std::fabs(lo) > float_max || std::fabs(hi) > float_max) throw UsageError("--low/--high out of float32 range");
    if (std::fabs(mean) > float_max || std::fabs(sd) > float_max) throw UsageError("--mean/--std out of float32 range");
    if (sd < 0) throw UsageError("invalid --std: expected >= 0 (as torch's normal_)");
    // |N(0,1)| < 8.6 on both of torch's paths, so this keeps every value finite.
    if (any_normal && std::fabs(mean) + 9.0 * sd > float_max)
        throw UsageError("--mean/--std make values overflow float32");
    if (any_uniform && (lo > hi || double(float(hi) - float(lo)) > float_max))
        throw UsageError("invalid --low/--high: expected low <= high and a range within float32");
    for (std::size_t i : shape_draws) {
        plan[i].a = plan[i].uniform ? lo : mean;
        plan[i].b = plan[i].uniform ? hi : sd;
    }
    for (long long d = 1; d < count; ++d) plan.push_back(plan.front());
    const std::size_t draws = plan.size();

    const std::string generator = r.count("generator") ? r["generator"].as<std::string>() : "torch";
    if (!option_names::one_of(option_names::generator, generator))
        throw UsageError("invalid --generator '" + generator + "': expected torch or numpy" +
                         did_you_mean(generator, option_names::generator));
    const bool numpy = generator == "numpy";
    if (numpy && r.count("torch-kernel")) throw UsageError("--torch-kernel chooses a torch build: drop it, or --generator numpy");
    const TorchKernel kernel =
        r.count("torch-kernel") ? parse_torch_kernel(r["torch-kernel"].as<std::string>()) : TorchKernel::avx2;
    const io::OutputOptions out = output_options(r);
    const std::string dtype = r.count("dtype") ? r["dtype"].as<std::string>() : "f32";
    if (!option_names::one_of(option_names::random_dtype, dtype))
        throw UsageError("invalid --dtype '" + dtype + "': expected f32, f16 or bf16" +
                         did_you_mean(dtype, option_names::random_dtype));
    const bool half = dtype == "f16", bf16 = dtype == "bf16", rounded = half || bf16;
    if (numpy && (r.count("linear") || r.count("linear-no-bias")))
        throw UsageError("--linear draws as PyTorch initialises nn.Linear: it does not go with --generator numpy");
    // NumPy's doubles would be rounded twice on the way to float16 (through float32).
    if (rounded && numpy)
        throw UsageError("--dtype " + dtype + " rounds torch's float32 draws: it does not go with --generator numpy");
    const int digits = out.digits >= 0 ? out.digits : 9;  // json

    const bool npy = out.format == io::Format::npy, npz = out.format == io::Format::npz;
    if (bf16 && (npy || npz))
        throw UsageError("--dtype bf16 has no .npy form: NumPy has no bfloat16 dtype (a safetensors BF16 tensor holds "
                         "one, which attn reads but does not write); write text (--format csv, tsv, json or pretty) of "
                         "the rounded values, or --dtype f16 for '<f2'");
    for (const DrawSpec& spec : plan)
        if (!npy && !npz && text_lines(spec.shape, out.format == io::Format::json) > max_lines)
            throw UsageError("invalid --shape '" + shape_text(spec.shape) +
                             "': its text output has more than 2^28 lines per draw (--format npy has no such limit)");
    if (npy && draws > 1 && out.path.empty())
        throw UsageError("npy of several draws needs -o DIR/ (one file per draw), or use npz (one archive)");
    // npy into a folder: several draws, or -o DIR/ or an existing folder (one drawN.npy each)
    struct stat st {};
    const bool is_dir = !out.path.empty() && ::stat(out.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    const bool to_folder = npy && (draws > 1 || is_dir || (!out.path.empty() && out.path.back() == '/'));
    if (npy && draws > 1 && !is_dir && out.path.back() != '/')
        io::detail::refuse_npy_name_for_several(out.path, draws);  // as every command's -o x.npy

    std::uint64_t seed;
    if (r.count("seed")) {
        seed = parse_seed(r["seed"].as<std::string>());
        if (numpy && seed > 0xFFFFFFFFu)  // a negative seed is 2^64 minus it
            throw UsageError("invalid --seed '" + r["seed"].as<std::string>() + "': NumPy's np.random.seed takes 0 to 2^32-1");
    } else {
        seed = std::random_device{}();
        std::fprintf(stderr, "attn: random seed %" PRIu64 " (repeat with --seed %" PRIu64 ")\n", seed, seed);
    }

    TorchGenerator torch_gen(seed, kernel);
    NumpyGenerator numpy_gen(std::uint32_t(seed & 0xFFFFFFFFu));
    // One draw from the chosen generator, as float32.
    const auto draw = [&](const DrawSpec& spec) {
        if (!numpy) return spec.uniform ? torch_gen.rand(spec.shape, spec.a, spec.b) : torch_gen.randn(spec.shape, spec.a, spec.b);
        std::vector<double> d(shape_numel(spec.shape));
        if (spec.uniform) numpy_gen.uniform_fill(d.data(), d.size(), spec.a, spec.b);
        else numpy_gen.normal_fill(d.data(), d.size(), spec.a, spec.b);
        return std::vector<float>(d.begin(), d.end());
    };
    const int name_width = int(std::to_string(draws - 1).size());
    const auto draw_name = [&](std::size_t d) {
        char name[48];
        std::snprintf(name, sizeof name, "draw%0*zu", name_width, d);
        return std::string(name);
    };
    if (npz) {  // every draw as drawN.npy in one archive, each written as soon as it is drawn
        std::vector<io::detail::NpzMember> members;
        for (std::size_t d = 0; d < draws; ++d) {
            const Shape shape(plan[d].shape);
            // '<f2' and '<f4' headers have one length: that of the shape's header.
            members.push_back({draw_name(d), io::detail::npy_header(contiguous_view(nullptr, shape)).size() +
                                                 shape.numel() * (half ? 2 : 4)});
        }
        io::detail::npz_size(members);
        io::detail::refuse_binary_on_terminal(out.path, "npz");
        io::detail::OutputFile sink(out.path);
        io::detail::NpzWriter archive([&](std::string_view bytes) { sink.write(bytes); });
        for (std::size_t d = 0; d < draws; ++d) {
            std::vector<float> v = draw(plan[d]);
            check_finite(v);
            if (rounded) round_to_half(v, bf16);
            const TensorView tensor = contiguous_view(v.data(), Shape(plan[d].shape));
            archive.add(draw_name(d), half ? io::npy_half_bytes(tensor) : io::npy_bytes(tensor));
        }
        archive.finish();
        sink.commit();
        return exit_ok;
    }
    if (npy) {
        // -o DIR for several draws: they appear in DIR together, once every one is written.
        io::detail::refuse_binary_on_terminal(out.path, "npy");
        std::optional<io::detail::StagedFolder> folder;
        if (to_folder) folder.emplace(out.path);
        for (std::size_t d = 0; d < draws; ++d) {
            std::vector<float> v = draw(plan[d]);
            check_finite(v);
            if (rounded) round_to_half(v, bf16);
            std::string path = out.path;
            if (folder) path = folder->path_of(draw_name(d) + ".npy");
            io::detail::OutputFile sink(path);
            const TensorView tensor = contiguous_view(v.data(), Shape(plan[d].shape));
            sink.write(half ? io::npy_half_bytes(tensor) : io::npy_bytes(tensor));
            sink.commit();
        }
        if (folder) folder->publish();
        return exit_ok;
    }

    // Text is streamed into the shared writer: a temporary file renamed at the end, or
    // standard output, which only gets output the checks above prove can be produced whole.
    io::detail::OutputFile sink(out.path);
    // json: draws of one shape stacked into one tensor "draws" (torch.stack); of several, which
    // do not stack, each its own "draw N", as csv and tsv name them.
    const bool stacked = std::all_of(plan.begin(), plan.end(), [&](const DrawSpec& s) { return s.shape == plan[0].shape; });
    if (out.format == io::Format::json) {
        std::string head = "{\n  \"seed\": " + std::to_string(seed) +
                           (numpy ? std::string(",\n  \"generator\": \"numpy")
                                  : std::string(",\n  \"torch_kernel\": \"") + torch_kernel_name(kernel)) + "\",\n";
        const auto distribution = [](const DrawSpec& spec, const char* between) {
            return std::string("\"distribution\": \"") + (spec.uniform ? "uniform" : "normal") + "\"," + between +
                   "\"" + (spec.uniform ? "low" : "mean") + "\": " + format_number(float(spec.a), 9) + "," + between +
                   "\"" + (spec.uniform ? "high" : "std") + "\": " + format_number(float(spec.b), 9);
        };
        const auto alike = [&](const DrawSpec& s) {
            return s.shape == plan[0].shape && s.uniform == plan[0].uniform && s.a == plan[0].a && s.b == plan[0].b;
        };
        if (std::all_of(plan.begin(), plan.end(), alike)) {  // one shape and distribution for all
            head += "  " + distribution(plan[0], "\n  ") + ",\n  \"shape\": " + shape_json(plan[0].shape) + ",\n";
        } else {  // each draw's own
            head += "  \"shapes\": [";
            for (std::size_t d = 0; d < draws; ++d) head += (d ? ", " : "") + shape_json(plan[d].shape);
            head += "],\n  \"distributions\": [";
            for (std::size_t d = 0; d < draws; ++d) head += (d ? ",\n    {" : "\n    {") + distribution(plan[d], " ") + "}";
            head += "\n  ],\n";
        }
        sink.write(head + (stacked ? "  \"draws\": [\n" : ""));
    }
    const io::TextSink to_sink = [&](std::string_view piece) { sink.write(piece); };
    for (std::size_t d = 0; d < draws; ++d) {
        std::vector<float> v = draw(plan[d]);
        check_finite(v);
        if (rounded) round_to_half(v, bf16);
        const TensorView tensor = contiguous_view(v.data(), Shape(plan[d].shape));
        if (out.format == io::Format::json) {
            if (stacked) sink.write(d ? ",\n    " : "    ");
            else sink.write((d ? ",\n  " : "  ") + io::json_quote("draw " + std::to_string(d)) + ": ");
            io::stream_json_array(tensor, digits, stacked ? 4 : 2, to_sink);
        } else {
            // Each draw is its own tensor "draw N": its blocks read back, two draws never glue.
            if (d && out.format == io::Format::pretty) sink.write("\n");
            io::stream_blocks(io::tensor_item("draw " + std::to_string(d), tensor), out, to_sink, draws == 1);
        }
    }
    if (out.format == io::Format::json) sink.write(stacked ? "\n  ]\n}\n" : "\n}\n");
    sink.commit();
    return exit_ok;
}

}  // namespace attn::cli
