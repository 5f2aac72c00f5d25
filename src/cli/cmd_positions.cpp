// attn positions --shape T,D [--base N]: Vaswani's sinusoidal position table, the one
// `attend --pos sinusoidal` adds to -x.
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/positions.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"

namespace attn::cli {

int cmd_positions(int argc, char** argv) {
    cxxopts::Options options("attn positions",
                             "The sinusoidal position table of \"Attention Is All You Need\" (section 3.5): row p,\n"
                             "column 2i is sin(p / base^(2i/D)) and column 2i+1 its cosine. attend --pos\n"
                             "sinusoidal adds it to -x before the projections; without positions attention\n"
                             "is permutation-equivariant (permuting the tokens permutes the results).\n"
                             "Computed in double, rounded to float32.\n");
    options.add_options()
        ("shape", "T,D: positions and embedding size, e.g. 8,16 (each 1 to 2^24, T·D at most 2^28)",
         cxxopts::value<std::string>(), "T,D")
        ("base", "The wavelength base (default 10000, as the paper)", cxxopts::value<std::string>(), "N");
    add_output_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    if (!r.count("shape")) throw UsageError("missing --shape T,D (e.g. --shape 8,16)");
    const std::string text = r["shape"].as<std::string>();
    const std::size_t comma = text.find(',');
    const auto part = [&](std::string_view p) {
        const std::optional<long long> v = integer_syntax(p, false) ? decimal_integer(p, false) : std::nullopt;
        return v && *v >= 1 && *v <= (1ll << 24) ? std::size_t(*v) : std::size_t(0);
    };
    const std::size_t T = comma == std::string::npos ? 0 : part(std::string_view(text).substr(0, comma));
    const std::size_t D = comma == std::string::npos ? 0 : part(std::string_view(text).substr(comma + 1));
    if (!T || !D || T * D > (std::size_t(1) << 28))
        throw UsageError("invalid --shape '" + text + "': expected T,D, two whole numbers from 1 to 2^24 (T·D at most 2^28)");
    const double base = r.count("base") ? parse_number(r["base"].as<std::string>(), "base") : sinusoidal_base;
    if (!(base > 1.0)) throw UsageError("invalid --base '" + r["base"].as<std::string>() + "': expected a number above 1");
    const io::OutputOptions out = output_options(r);
    const Matrix table = sinusoidal_positions(T, D, base);
    io::write_output({io::Item{"positions", &table, {}, {}, {}, {}, {}}}, out);
    return exit_ok;
}

}  // namespace attn::cli
