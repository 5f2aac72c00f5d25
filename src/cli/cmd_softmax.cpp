// attn softmax [FILE|-]: row-wise normalisation of one matrix of logits.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/ops.hpp"
#include "cli/attend/attend_options.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace attn::cli {

namespace {

// Multiplies the logits by `scale` and applies the causal rule; -inf entries stay masked
// whatever the scale (masked means masked, even for a scale of 0 or below).
void prepare_logits(Matrix& m, float scale, bool causal) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    for (std::size_t r = 0; r < m.rows(); ++r) {
        const std::size_t visible = causal ? causal_visible(Causal::top_left, r, m.rows(), m.cols()) : m.cols();
        for (std::size_t c = 0; c < m.cols(); ++c) {
            float& v = m(r, c);
            if (c >= visible || v == neg_inf) {
                v = neg_inf;
                continue;
            }
            v *= scale;
            if (!std::isfinite(v))
                throw RuntimeFailure("row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
                                     ": the scaled logit overflows float32");
        }
    }
}

// Rows whose every entry is -inf (after the scale and the causal rule): the masked rows.
std::vector<bool> fully_masked_rows(const Matrix& m) {
    std::vector<bool> masked(m.rows(), true);
    for (std::size_t r = 0; r < m.rows(); ++r)
        for (std::size_t c = 0; c < m.cols() && masked[r]; ++c)
            if (m(r, c) != -std::numeric_limits<float>::infinity()) masked[r] = false;
    return masked;
}

// --normalize sum can overflow float32 (a row whose entries nearly cancel has a tiny sum):
// a numeric failure, never an 'inf' printed as a weight. NaN in a fully masked row is what
// --masked-rows nan asked for.
void require_finite(const Matrix& m, const std::vector<bool>& masked) {
    for (std::size_t r = 0; r < m.rows(); ++r) {
        if (masked[r]) continue;
        for (std::size_t c = 0; c < m.cols(); ++c)
            if (!std::isfinite(m(r, c)))
                throw RuntimeFailure("row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
                                     ": the sum-normalized weight overflows float32");
    }
}

}  // namespace

int cmd_softmax(int argc, char** argv) {
    cxxopts::Options options(
        "attn softmax",
        "Row-wise numerically stable softmax of one matrix (a single line is a 1xn row).\n"
        "Entries equal to -inf are masked: they get weight exactly 0. FILE is text or .npy;\n"
        "'-' (or no FILE when standard input is not a terminal) reads standard input.\n");
    options.positional_help("[FILE|-]");
    options.add_options()
        ("input", "Matrix of logits", cxxopts::value<std::string>())
        ("scale", "Multiply the logits by NUMBER before normalising (default 1)", cxxopts::value<std::string>(),
         "NUMBER")
        ("causal", "Causal mask: row i sees only columns j <= i (the others get weight 0)")
        ("normalize", "softmax (default), or sum: divide each row by the sum of its entries "
                      "(a zero row sum is an error)", cxxopts::value<std::string>(), "softmax|sum")
        ("masked-rows", "What a row whose entries are all -inf (or, with --causal, all it sees) gets: zero "
                        "(default), nan, or uniform (1/columns over every column, those --causal hides "
                        "included, as JAX); their count is reported on stderr", cxxopts::value<std::string>(),
                        "zero|nan|uniform");
    options.parse_positional({"input"});
    add_output_options(options);
    add_exec_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    const float scale = r.count("scale") ? parse_float32(r["scale"].as<std::string>(), "scale") : 1.0f;
    const Normalization how = r.count("normalize") ? parse_normalize(r["normalize"].as<std::string>())
                                                   : Normalization::softmax;
    const MaskedRowPolicy policy = r.count("masked-rows") ? parse_masked_rows(r["masked-rows"].as<std::string>())
                                                          : MaskedRowPolicy::zero;
    const io::OutputOptions out = output_options(r);

    std::string input;
    if (r.count("input")) input = r["input"].as<std::string>();
    else if (::isatty(STDIN_FILENO) != 1) input = "-";
    else throw UsageError("missing input: give FILE, or '-' for standard input (see --help)");

    Matrix m = io::read_matrix(input, io::Finite::allow_neg_inf);
    prepare_logits(m, scale, r["causal"].as<bool>());  // --causal=false is false
    const std::vector<bool> masked_rows = fully_masked_rows(m);
    const std::size_t masked = normalize_rows(m, how, policy);
    require_finite(m, masked_rows);
    if (masked > 0) {
        const char* got = policy == MaskedRowPolicy::zero ? "zero weights"
                          : policy == MaskedRowPolicy::nan ? "NaN weights"
                                                           : "uniform weights";
        std::fprintf(stderr, "attn: note: %zu fully masked %s (every entry -inf) got %s (--masked-rows)\n", masked,
                     masked == 1 ? "row" : "rows", got);
    }
    io::write_output({io::Item{"softmax", &m, {}, {}, {}, {}, {}}}, out);
    return exit_ok;
}

}  // namespace attn::cli
