// attn variance: the dot-product variance experiment of the tutorial, with PyTorch's draws.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/variance_experiment.hpp"
#include "attn/viz.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/help/help.hpp"
#include "cli/option_values.hpp"
#include "write/output_file.hpp"

namespace attn::cli {
namespace {

constexpr std::size_t max_dk = std::size_t(1) << 20;
constexpr std::size_t max_tensor = std::size_t(1) << 27;  // elements of Q (and of K)

// "512", "64,128,256", or "1,2,4,...,1024": "..." continues the two values before it
// geometrically when the ratio is a whole number >= 2 and reaches the next value exactly,
// arithmetically otherwise (which must reach it exactly too).
std::vector<std::size_t> parse_dk_list(const std::string& text) {
    std::vector<std::string> parts;
    for (std::size_t pos = 0;;) {
        const std::size_t comma = text.find(',', pos);
        parts.push_back(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    std::vector<std::size_t> out;
    const std::string bad = "invalid --dk '" + text + "': expected d_k values like 64 or 1,2,4,...,1024";
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (parts[i] != "...") {
            out.push_back(std::size_t(parse_integer(parts[i], "--dk", 1, max_dk)));
            continue;
        }
        if (out.size() < 2 || i + 1 >= parts.size() || parts[i + 1] == "...") throw UsageError(bad);
        const std::size_t a = out[out.size() - 2], b = out.back();
        const std::size_t last = std::size_t(parse_integer(parts[i + 1], "--dk", 1, max_dk));
        if (b <= a || last <= b) throw UsageError(bad);
        bool geometric = b % a == 0 && b / a >= 2;
        if (geometric) {
            std::size_t x = b;
            while (x < last) x *= b / a;
            geometric = x == last;
        }
        // A third value before "..." must fit the progression too: 1,2,4,...,1000 is not
        // geometric (1000 is no power of 2) and not arithmetic either, so it is refused.
        if (out.size() >= 3) {
            const std::size_t z = out[out.size() - 3];
            const bool fits = geometric ? a % z == 0 && a / z == b / a : a > z && a - z == b - a;
            if (!fits) throw UsageError(bad + " (the values before ... are not one progression reaching " +
                                        parts[i + 1] + ")");
        }
        // Arithmetic too must land on the last value: 1,3,...,8 would end 7, 8 (a step of 1).
        if (!geometric && (last - b) % (b - a) != 0) {
            const std::size_t below = last - (last - b) % (b - a);
            throw UsageError(bad + " (+" + std::to_string(b - a) + " from " + std::to_string(b) + " does not land on " +
                             parts[i + 1] + ": end at " + std::to_string(below) + " or " +
                             std::to_string(below + (b - a)) + ")");
        }
        for (std::size_t x = b;;) {
            x = geometric ? x * (b / a) : x + (b - a);
            if (x >= last) break;
            out.push_back(x);
            if (out.size() > 4096) throw UsageError(bad + " (more than 4096 values)");
        }
    }
    return out;
}

std::string num(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

const char* const stat_names[] = {"max_weight_mean", "entropy_mean", "saturated_fraction", "tiny_fraction",
                                  "jacobian_norm_mean"};
std::vector<double> stat_values(const SoftmaxStats& s) {
    return {s.max_weight_mean, s.entropy_mean, s.saturated_fraction, s.tiny_fraction, s.jacobian_norm_mean};
}

std::string render_json(const std::vector<VarianceResult>& results, int digits) {
    std::string out = "[\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
        const VarianceResult& r = results[i];
        out += "  {\"d_k\": " + std::to_string(r.d_k) + ", \"unscaled_var\": " + num(r.unscaled_var, digits) +
               ", \"scaled_var\": " + num(r.scaled_var, digits) + ", \"theory_unscaled_var\": " +
               num(r.theory_unscaled_var, digits) + ", \"theory_scaled_var\": " + num(r.theory_scaled_var, digits);
        for (const char* which : {"unscaled", "scaled"}) {
            const std::vector<double> v = stat_values(which[0] == 'u' ? r.unscaled : r.scaled);
            out += ",\n   \"" + std::string(which) + "\": {";
            for (std::size_t k = 0; k < v.size(); ++k)
                out += std::string(k ? ", " : "") + "\"" + stat_names[k] + "\": " + num(v[k], digits);
            out += "}";
        }
        out += i + 1 < results.size() ? "},\n" : "}\n";
    }
    return out + "]\n";
}

std::string render_table(const std::vector<VarianceResult>& results, char sep, int digits) {
    std::string out = "d_k";
    for (const char* h : {"unscaled_var", "scaled_var", "theory_unscaled_var", "theory_scaled_var"})
        out += sep + std::string(h);
    for (const char* which : {"unscaled_", "scaled_"})
        for (const char* name : stat_names) out += sep + std::string(which) + name;
    out += "\n";
    for (const VarianceResult& r : results) {
        out += std::to_string(r.d_k);
        for (double v : {r.unscaled_var, r.scaled_var, r.theory_unscaled_var, r.theory_scaled_var})
            out += sep + num(v, digits);
        for (const SoftmaxStats* s : {&r.unscaled, &r.scaled})
            for (double v : stat_values(*s)) out += sep + num(v, digits);
        out += "\n";
    }
    return out;
}

// Right-aligns to `width` terminal columns (one per UTF-8 code point).
std::string pad(const std::string& s, std::size_t width) {
    const std::size_t cols = display_width(s);
    return cols >= width ? s : std::string(width - cols, ' ') + s;
}

// decimals: digits after the point of the softmax statistics (--digits; 4 by default).
std::string render_pretty(const std::vector<VarianceResult>& results, const VarianceExperiment& e, int decimals) {
    char buf[512];
    std::string out;
    std::snprintf(buf, sizeof buf,
                  "Q, K: torch.manual_seed(%llu); torch.randn(%zu, %zu, d_k) * %g, twice (torch kernel %s)\n"
                  "scores: Q_b·K_bᵀ per batch (%zu×%zu), population variance over all %zu scores\n\n",
                  (unsigned long long)e.seed, e.batch, e.rows, e.sigma, torch_kernel_name(e.kernel), e.rows, e.rows,
                  e.batch * e.rows * e.rows);
    out += buf;
    out += pad("d_k", 7) + pad("var(q·k)", 14) + pad("d_k·σ⁴", 14) + pad("var(q·k/√d_k)", 16) + pad("σ⁴", 11) + "\n";
    for (const VarianceResult& r : results)
        out += pad(std::to_string(r.d_k), 7) + pad(num(r.unscaled_var, 7), 14) + pad(num(r.theory_unscaled_var, 7), 14) +
               pad(num(r.scaled_var, 7), 16) + pad(num(r.theory_scaled_var, 7), 11) + "\n";
    std::snprintf(buf, sizeof buf,
                  "\nsoftmax over each row of %zu scores, unscaled | scaled (uniform: max weight %.4f, entropy ln %zu = %.4f)\n",
                  e.rows, 1.0 / double(e.rows), e.rows, std::log(double(e.rows)));
    out += buf;
    // Each column holds "u | s", both with `decimals` digits after the point (values below 10).
    const std::size_t w = std::max<std::size_t>(21, 2 * std::size_t(decimals + 2) + 5);
    out += pad("d_k", 7) + pad("max weight", w) + pad("entropy", w) + pad("max >= 0.99", w) +
           pad("weights < 1e-6", w) + pad("‖diag(p)−ppᵀ‖_F", w) + "\n";
    for (const VarianceResult& r : results) {
        out += pad(std::to_string(r.d_k), 7);
        const std::vector<double> u = stat_values(r.unscaled), s = stat_values(r.scaled);
        for (std::size_t k = 0; k < u.size(); ++k) {
            std::snprintf(buf, sizeof buf, "%.*f | %.*f", decimals, u[k], decimals, s[k]);
            out += pad(buf, w);
        }
        out += "\n";
    }
    return out;
}


}  // namespace

int cmd_variance(int argc, char** argv) {
    cxxopts::Options options("attn variance",
                             "Why scores are scaled by 1/sqrt(d_k): draws Q and K as PyTorch does\n"
                             "(torch.manual_seed(S); torch.randn(batch, rows, d_k)·σ, twice) and compares the\n"
                             "variance of Q·Kᵀ and of Q·Kᵀ/sqrt(d_k) with d_k·σ⁴ and σ⁴, and what softmax does\n"
                             "to each row with and without the scaling. --digits: significant digits in\n"
                             "csv/tsv/json; in pretty, the decimals of the softmax statistics (the variances\n"
                             "keep 7 significant digits).");
    options.add_options()
        ("dk", "d_k values: 512, a list 64,128,256, or a series A,B,...,Z such as 1,2,4,...,1024: each value "
               "B/A times the one before when that ratio is a whole number landing on Z, else B-A more, which "
               "must land on Z (1,3,...,9 is 1, 3, 9; 2,4,...,20 is 2, 4, 6, ..., 20) (default 512)",
         cxxopts::value<std::string>(), "LIST")
        ("rows", "Queries = keys per batch, L (default 32)", cxxopts::value<std::string>(), "L")
        ("batch", "Independent batches (default 32 = B·H = 4·8)", cxxopts::value<std::string>(), "N")
        ("sigma", "Standard deviation of the entries of Q and K, from 1.0843e-19 (below, their products are subnormal "
                  "float32) to 1e6 (default 1)",
         cxxopts::value<std::string>(), "S")
        ("seed", "torch.manual_seed value, reused for every d_k (default 92)", cxxopts::value<std::string>(), "S")
        ("torch-kernel", "avx2 (x86 torch, the default) or scalar (ARM torch)", cxxopts::value<std::string>(),
         "avx2|scalar")
        ("svg", "Also write the plot (variance and softmax against d_k) to FILE", cxxopts::value<std::string>(),
         "FILE");
    add_output_options(options, /*with_npy=*/false);
    add_exec_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    auto opt = [&](const char* name, const char* fallback) {
        return r.count(name) ? r[name].as<std::string>() : std::string(fallback);
    };
    VarianceExperiment e;
    e.d_ks = parse_dk_list(opt("dk", "512"));
    e.rows = std::size_t(integer_option(r, "rows", 1, 1 << 16, 32));
    e.batch = std::size_t(integer_option(r, "batch", 1, 1 << 20, 32));
    e.sigma = parse_number(opt("sigma", "1"), "sigma");
    if (!(e.sigma > 0) || e.sigma > 1e6) throw UsageError("invalid --sigma: expected a number from 1.0843e-19 to 1e6");
    // Below, the products of Q's and K's entries (about σ²) are subnormal float32: the scores
    // keep few digits, and at 1e-25 their measured variance was 0 against d_k·σ⁴.
    if (e.sigma * e.sigma < double(std::numeric_limits<float>::min()))
        throw UsageError("invalid --sigma: below 1.0843e-19 the products of Q's and K's entries (sigma^2) are "
                         "subnormal float32, and the measured variances lose their digits");
    e.seed = parse_seed(opt("seed", "92"));
    e.kernel = parse_torch_kernel(opt("torch-kernel", "avx2"));
    for (std::size_t d_k : e.d_ks)
        if (e.batch * e.rows > max_tensor / d_k || e.batch * e.rows > max_tensor / e.rows)
            throw UsageError("--batch × --rows × --dk (or × --rows) exceeds 2^27 elements");
    const io::OutputOptions out = output_options(r);
    require_text_format(out.format, "variance");

    const std::string svg_file = r.count("svg") ? svg_path(r["svg"].as<std::string>(), out.path.empty(), "the table",
                                                           "send the table to a file with -o FILE")
                                                 : "";
    const std::vector<VarianceResult> results = run_variance_experiment(e);
    for (const VarianceResult& v : results)
        if (!std::isfinite(v.unscaled_var) || !std::isfinite(v.scaled_var))
            throw RuntimeFailure("scores overflow float32 at d_k " + std::to_string(v.d_k) + ": use a smaller --sigma");

    const int digits = out.digits >= 0 ? out.digits : 9;
    std::string text;
    switch (out.format) {
        case io::Format::json: text = render_json(results, digits); break;
        case io::Format::csv: text = render_table(results, ',', digits); break;
        case io::Format::tsv: text = render_table(results, '\t', digits); break;
        default: text = render_pretty(results, e, out.digits >= 0 ? out.digits : 4); break;
    }
    // The plot and the table go out together through the shared writer: all or nothing.
    std::vector<io::detail::PendingFile> files;
    if (r.count("svg")) files.push_back({svg_file, viz::svg_variance_plot(results, e)});
    files.push_back({out.path, std::move(text)});
    io::detail::write_files(files);
    return exit_ok;
}

}  // namespace attn::cli
