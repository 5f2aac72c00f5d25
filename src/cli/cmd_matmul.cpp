// attn matmul A B [--transpose-b]: the matrix product A·B or A·Bᵀ.
#include <cmath>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/ops.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "read/input_bytes.hpp"
#include "write/output_file.hpp"

namespace attn::cli {

namespace {

std::string shape_of(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }
std::string shown(const std::string& path) { return io::detail::display_name(path); }

// Finite inputs can still overflow float32 in the sums: that is a numeric failure, never an
// 'inf' printed as if it were the product.
void require_finite(const Matrix& C) {
    for (std::size_t r = 0; r < C.rows(); ++r)
        for (std::size_t c = 0; c < C.cols(); ++c)
            if (!std::isfinite(C(r, c)))
                throw RuntimeFailure("product row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
                                     " is " + (std::isnan(C(r, c)) ? "NaN" : "infinite") +
                                     ": the inputs overflow float32 (scale them down)");
}

}  // namespace

int cmd_matmul(int argc, char** argv) {
    cxxopts::Options options("attn matmul",
                             "The matrix product A·B (A rows x k, B k x cols), or A·Bᵀ with --transpose-b\n"
                             "(B cols x k). A and B are text or .npy; at most one of them may be '-'.\n");
    options.positional_help("A B");
    options.add_options()
        ("left", "Left matrix A", cxxopts::value<std::string>())
        ("right", "Right matrix B", cxxopts::value<std::string>())
        ("transpose-b", "Multiply by the transpose of B (as in Q·Kᵀ)");
    options.parse_positional({"left", "right"});
    add_output_options(options);
    add_exec_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    if (!r.count("left") || !r.count("right")) throw UsageError("missing input: attn matmul needs two matrices A B (see --help)");
    const io::OutputOptions out = output_options(r);

    InputNames names;
    const std::string a_path = names.claim(r["left"].as<std::string>(), "A");
    const std::string b_path = names.claim(r["right"].as<std::string>(), "B");
    const bool transpose_b = r["transpose-b"].as<bool>();  // --transpose-b=false is false
    const Matrix A = io::read_matrix(a_path);
    const Matrix B = io::read_matrix(b_path);
    const std::size_t inner = transpose_b ? B.cols() : B.rows();
    if (A.cols() != inner)
        throw InputError("cannot multiply " + shown(a_path) + " (" + shape_of(A) + ") by " +
                         (transpose_b ? "the transpose of " : "") + shown(b_path) + " (" + shape_of(B) +
                         "): A has " + std::to_string(A.cols()) + (A.cols() == 1 ? " column, " : " columns, ") +
                         (transpose_b ? "Bᵀ" : "B") + " has " + std::to_string(inner) + (inner == 1 ? " row" : " rows"));
    const Matrix C = matmul(A, B, transpose_b);
    require_finite(C);
    io::write_output({io::Item{"product", &C, {}, {}, {}, {}, {}}}, out);
    return exit_ok;
}

}  // namespace attn::cli
