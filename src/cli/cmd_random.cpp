// attn random: what torch.manual_seed(S) followed by --count calls of torch.randn(shape) (or
// torch.rand, normal_(mean, std), uniform_(low, high)) gives on a CPU, bit for bit.
#include <bit>
#include <cerrno>
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/torch_rng.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "io/output_file.hpp"

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
        char* end = nullptr;
        errno = 0;
        const unsigned long long d = std::strtoull(part.c_str(), &end, 10);
        if (part.empty() || part[0] == '-' || part[0] == '+' || *end != '\0' || errno == ERANGE || d > (1ull << 31))
            throw UsageError("invalid --shape '" + text + "': expected dimensions like 3,2 (non-negative integers)");
        shape.push_back(std::size_t(d));
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

// Lines of text one draw prints: an index comment per matrix plus its rows (text formats), or
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
    return saturating_mul(matrices, rows == std::numeric_limits<std::size_t>::max() ? rows : rows + 1);
}

// A Python int in [-2^63, 2^64), as torch.manual_seed accepts it; negatives wrap mod 2^64.
std::uint64_t parse_seed(const std::string& text) {
    char* end = nullptr;
    errno = 0;
    std::uint64_t seed = 0;
    if (!text.empty() && text[0] == '-') {
        const long long v = std::strtoll(text.c_str(), &end, 10);
        seed = std::uint64_t(v);
    } else if (!text.empty() && std::isdigit((unsigned char)text[0])) {
        seed = std::strtoull(text.c_str(), &end, 10);
    }
    if (text.empty() || end == nullptr || *end != '\0' || errno == ERANGE)
        throw UsageError("invalid --seed '" + text + "': expected an integer in [-2^63, 2^64)");
    return seed;
}

std::string format_number(float v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, double(v));
    return buf;
}

std::string index_comment(std::size_t draw, const std::vector<std::size_t>& index) {
    std::string s = "# draw " + std::to_string(draw);
    if (!index.empty()) {
        s += " [";
        for (std::size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
        s += "]";
    }
    return s + "\n";
}

// The last two dimensions as rows × cols (a 1-d tensor is one row); the rest index matrices.
struct MatrixView {
    std::size_t rows, cols, count;
};
MatrixView matrix_view(const std::vector<std::size_t>& shape) {
    if (shape.size() == 1) return {1, shape[0], 1};
    const std::size_t rows = shape[shape.size() - 2], cols = shape.back();
    std::size_t count = 1;
    for (std::size_t i = 0; i + 2 < shape.size(); ++i) count *= shape[i];
    return {rows, cols, count};
}

// Leading indices of matrix number k (row-major over all but the last two dimensions).
std::vector<std::size_t> leading_index(const std::vector<std::size_t>& shape, std::size_t k) {
    if (shape.size() <= 2) return {};
    std::vector<std::size_t> idx(shape.size() - 2);
    for (std::size_t i = idx.size(); i-- > 0;) {
        idx[i] = k % shape[i];
        k /= shape[i];
    }
    return idx;
}

// Text is streamed into `sink` row by row: memory stays at one row plus the writer's buffer.
void text_draw(io::detail::OutputFile& sink, const std::vector<float>& v, const std::vector<std::size_t>& shape,
               std::size_t draw, io::Format format, int digits) {
    const MatrixView mv = matrix_view(shape);
    const char* sep = format == io::Format::tsv ? "\t" : format == io::Format::csv ? "," : " ";
    std::string out;
    char buf[64];
    for (std::size_t k = 0; k < mv.count; ++k) {
        if (draw > 0 || k > 0) out += "\n";
        out += index_comment(draw, leading_index(shape, k));
        const float* m = v.data() + k * mv.rows * mv.cols;
        std::size_t width = 0;  // pretty: right-aligned columns (a first pass for the widest cell)
        if (format == io::Format::pretty)
            for (std::size_t i = 0; i < mv.rows * mv.cols; ++i)
                width = std::max(width, std::size_t(std::snprintf(buf, sizeof buf, "%.*g", digits, double(m[i]))));
        for (std::size_t r = 0; r < (mv.cols ? mv.rows : 0); ++r) {  // no empty lines for 0 columns
            for (std::size_t c = 0; c < mv.cols; ++c) {
                const std::size_t len = std::size_t(std::snprintf(buf, sizeof buf, "%.*g", digits, double(m[r * mv.cols + c])));
                if (c) out += sep;
                if (format == io::Format::pretty) out.append(width - len + (c ? 1 : 0), ' ');
                out.append(buf, len);
            }
            out += "\n";
            if (out.size() >= (1u << 16)) sink.write(out), out.clear();
        }
        if (out.size() >= (1u << 16)) sink.write(out), out.clear();
    }
    sink.write(out);
}

// Nested JSON arrays following the full shape: innermost rows on one line, the rest indented.
// At most 32 levels deep (max_dims); streamed into `sink` as it goes.
void json_tensor(io::detail::OutputFile& sink, std::string& out, const float*& p, const std::vector<std::size_t>& shape,
                 std::size_t dim, std::size_t indent, int digits) {
    if (dim + 1 == shape.size()) {
        out += "[";
        for (std::size_t i = 0; i < shape[dim]; ++i) out += (i ? ", " : "") + format_number(*p++, digits);
        out += "]";
        if (out.size() >= (1u << 16)) sink.write(out), out.clear();
        return;
    }
    if (shape[dim] == 0) {
        out += "[]";
        return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < shape[dim]; ++i) {
        out += std::string(indent + 2, ' ');
        json_tensor(sink, out, p, shape, dim + 1, indent + 2, digits);
        out += i + 1 < shape[dim] ? ",\n" : "\n";
    }
    out += std::string(indent, ' ') + "]";
}

// .npy version 1.0, '<f4', C order, any number of dimensions; data at a 64-byte offset.
// Streamed into `sink` (no second copy of the data in memory).
void npy_nd(io::detail::OutputFile& sink, const std::vector<float>& v, const std::vector<std::size_t>& shape) {
    std::string dims;
    for (std::size_t d : shape) dims += std::to_string(d) + ", ";
    if (shape.size() > 1) dims.resize(dims.size() - 2);
    else if (shape.size() == 1) dims.resize(dims.size() - 1);  // "(5,)"
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    const std::size_t total = 10 + header.size() + 1;
    header += std::string((64 - total % 64) % 64, ' ') + "\n";
    std::string out = "\x93NUMPY";
    out += char(1);
    out += char(0);
    out += char(header.size() & 0xFF);
    out += char(header.size() >> 8);
    out += header;
    for (float f : v) {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
        for (int i = 0; i < 4; ++i) out += char((u >> (8 * i)) & 0xFF);
        if (out.size() >= (1u << 16)) sink.write(out), out.clear();
    }
    sink.write(out);
}

void check_finite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) throw UsageError("--mean/--std or --low/--high make values overflow float32");
}

}  // namespace

int cmd_random(int argc, char** argv) {
    cxxopts::Options options("attn random",
                             "PyTorch-identical random tensors: torch.manual_seed(S), then --count calls of\n"
                             "torch.randn(shape) (or torch.rand with --uniform), bit for bit as on a CPU.\n"
                             "Text formats print the last two dimensions as matrices, each after a comment\n"
                             "naming its index (# draw 0 [1, 3]), with 9 significant digits (--digits);\n"
                             "npy keeps the full shape (-o DIR gets drawN.npy files when --count > 1).");
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
                         "ATEN_CPU_CAPABILITY=default)", cxxopts::value<std::string>(), "avx2|scalar");
    add_output_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    if (!r.count("shape")) throw UsageError("missing --shape (e.g. --shape 3,2)");
    const std::vector<std::size_t> shape = parse_shape(r["shape"].as<std::string>());
    long long count = 1;
    if (r.count("count")) {
        const std::string text = r["count"].as<std::string>();
        char* end = nullptr;
        errno = 0;
        count = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE || count < 1 || count > max_count)
            throw UsageError("invalid --count '" + text + "': expected an integer from 1 to 1000000");
    }
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
    io::OutputOptions out = output_options(r);
    const int digits = out.digits >= 0 ? out.digits : 9;

    const bool npy = out.format == io::Format::npy;
    if (!npy && text_lines(shape, out.format == io::Format::json) > max_lines)
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

    if (npy && !out.path.empty() && count > 1) {
        std::error_code ec;
        std::filesystem::create_directories(out.path, ec);
        if (!std::filesystem::is_directory(out.path))
            throw RuntimeFailure(out.path + ": cannot create directory");
    }

    TorchGenerator gen(seed, kernel);
    const int name_width = int(std::to_string(count - 1).size());
    if (npy) {
        for (long long d = 0; d < count; ++d) {
            const std::vector<float> v = uniform ? gen.rand(shape, a, b) : gen.randn(shape, a, b);
            check_finite(v);
            std::string path = out.path;
            if (count > 1) {
                char name[48];
                std::snprintf(name, sizeof name, "draw%0*lld.npy", name_width, d);
                path = (std::filesystem::path(out.path) / name).string();
            }
            io::detail::OutputFile sink(path);
            npy_nd(sink, v, shape);
            sink.commit();
        }
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
    for (long long d = 0; d < count; ++d) {
        const std::vector<float> v = uniform ? gen.rand(shape, a, b) : gen.randn(shape, a, b);
        check_finite(v);
        if (out.format == io::Format::json) {
            const float* p = v.data();
            std::string text = d ? ",\n    " : "    ";
            json_tensor(sink, text, p, shape, 0, 4, digits);
            sink.write(text);
        } else {
            text_draw(sink, v, shape, std::size_t(d), out.format, digits);
        }
    }
    if (out.format == io::Format::json) sink.write("\n  ]\n}\n");
    sink.commit();
    return exit_ok;
}

}  // namespace attn::cli
