// attn softmax [FILE|-]: normalisation of logits along the last axis, for a matrix or each 2-D
// slice of a 3-D or 4-D tensor (as torch.softmax(x, dim=-1)).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/ops.hpp"
#include "attn/tensor.hpp"
#include "cli/attend/attend_options.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace attn::cli {

namespace {

// One matrix of logits: a 2-D input, or one 2-D slice of a 3-D/4-D one. `where` names the slice
// in messages ("" for a matrix, "[1, 0] " for a slice).
struct Logits {
    float* data;
    std::size_t rows, cols, stride;
    std::string where;
    float& at(std::size_t r, std::size_t c) const noexcept { return data[r * stride + c]; }
    std::string cell(std::size_t r, std::size_t c) const {
        return where + "row " + std::to_string(r) + ", column " + std::to_string(c) + " (0-based)";
    }
};

// Multiplies the logits by `scale` and applies the causal rule; -inf entries stay masked
// whatever the scale (masked means masked, even for a scale of 0 or below).
void prepare_logits(const Logits& m, float scale, bool causal) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    for (std::size_t r = 0; r < m.rows; ++r) {
        const std::size_t visible = causal ? causal_visible(Causal::top_left, r, m.rows, m.cols) : m.cols;
        for (std::size_t c = 0; c < m.cols; ++c) {
            float& v = m.at(r, c);
            if (c >= visible || v == neg_inf) {
                v = neg_inf;
                continue;
            }
            v *= scale;
            if (!std::isfinite(v)) throw RuntimeFailure(m.cell(r, c) + ": the scaled logit overflows float32");
        }
    }
}

// Rows whose every entry is -inf (after the scale and the causal rule): the masked rows.
std::vector<bool> fully_masked_rows(const Logits& m) {
    std::vector<bool> masked(m.rows, true);
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < m.cols && masked[r]; ++c)
            if (m.at(r, c) != -std::numeric_limits<float>::infinity()) masked[r] = false;
    return masked;
}

// --normalize sum can overflow float32 (a row whose entries nearly cancel has a tiny sum):
// a numeric failure, never an 'inf' printed as a weight. NaN in a fully masked row is what
// --masked-rows nan asked for.
void require_finite(const Logits& m, const std::vector<bool>& masked) {
    for (std::size_t r = 0; r < m.rows; ++r) {
        if (masked[r]) continue;
        for (std::size_t c = 0; c < m.cols; ++c)
            if (!std::isfinite(m.at(r, c)))
                throw RuntimeFailure(m.cell(r, c) + ": the sum-normalized weight overflows float32");
    }
}

// Normalises one matrix of logits in place; returns its count of fully masked rows.
std::size_t normalize(const Logits& m, float scale, bool causal, Normalization how, MaskedRowPolicy policy) {
    prepare_logits(m, scale, causal);
    const std::vector<bool> masked_rows = fully_masked_rows(m);
    std::size_t masked;
    try {
        masked = normalize_rows(m.data, m.stride, m.rows, m.cols, how, policy);
    } catch (const RuntimeFailure& e) {  // "row R sums to zero": name the slice too
        if (m.where.empty()) throw;
        throw RuntimeFailure(m.where + e.what());
    }
    require_finite(m, masked_rows);
    return masked;
}

// "[i, j] " for slice s of a tensor of this shape (its leading dimensions in C order).
std::string slice_name(const Shape& shape, std::size_t s) {
    std::vector<std::size_t> index(shape.rank() - 2);
    for (std::size_t d = index.size(); d-- > 0;) {
        index[d] = s % shape[d];
        s /= shape[d];
    }
    std::string text = "[";
    for (std::size_t d = 0; d < index.size(); ++d) text += (d ? ", " : "") + std::to_string(index[d]);
    return text + "] ";
}

}  // namespace

int cmd_softmax(int argc, char** argv) {
    cxxopts::Options options(
        "attn softmax",
        "Numerically stable softmax along the last axis, as torch.softmax(x, dim=-1): of a\n"
        "matrix (a single line is a 1xn row), or of each 2-D slice of a 3-D or 4-D tensor\n"
        "(attend --heads H --show scaled, say), whose shape the result keeps. Entries equal to\n"
        "-inf are masked: they get weight exactly 0. FILE is text or .npy; '-' (or no FILE\n"
        "when standard input is not a terminal) reads standard input.\n");
    options.positional_help("[FILE|-]");
    options.add_options()
        ("input", "Logits: a matrix, or a 3-D or 4-D tensor", cxxopts::value<std::string>())
        ("scale", "Multiply the logits by NUMBER before normalising (default 1)", cxxopts::value<std::string>(),
         "NUMBER")
        ("causal", "Causal mask: row i sees only columns j <= i (the others get weight 0), in every slice")
        ("normalize", "softmax (default), or sum: divide each row by the sum of its entries "
                      "(a zero row sum is an error; rows left with negative entries are counted on stderr)",
         cxxopts::value<std::string>(), "softmax|sum")
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

    Tensor t = io::read_tensor(input, io::Finite::allow_neg_inf);
    const bool vector = t.rank() == 1;  // (n,) stays (n,), as torch.softmax keeps the shape
    const bool causal = r["causal"].as<bool>();  // --causal=false is false
    std::size_t masked = 0;
    if (t.rank() <= 2) {  // a matrix (a vector is one row), printed as before
        Matrix m = std::move(t).to_matrix();
        masked = normalize({m.data(), m.rows(), m.cols(), m.stride(), ""}, scale, causal, how, policy);
        t = Tensor(std::move(m));
    } else {
        for (std::size_t s = 0; s < t.slices(); ++s)
            masked += normalize({t.slice_data(s), t.rows(), t.cols(), t.row_stride(), slice_name(t.shape(), s)}, scale,
                                causal, how, policy);
    }
    if (masked > 0) {
        const char* got = policy == MaskedRowPolicy::zero ? "zero weights"
                          : policy == MaskedRowPolicy::nan ? "NaN weights"
                                                           : "uniform weights";
        std::fprintf(stderr, "attn: note: %zu fully masked %s (every entry -inf) got %s (--masked-rows)\n", masked,
                     masked == 1 ? "row" : "rows", got);
    }
    if (how == Normalization::sum) report_negative_sum_rows(t.view());
    if (vector) {
        io::write_output({io::tensor_item("softmax", contiguous_view(t.data(), Shape{t.cols()}))}, out);
    } else if (t.rank() == 2) {
        const Matrix m = std::move(t).to_matrix();
        io::write_output({io::Item{"softmax", &m, {}, {}, {}, {}, {}}}, out);
    } else {
        io::write_output({io::tensor_item("softmax", t.view())}, out);
    }
    return exit_ok;
}

}  // namespace attn::cli
