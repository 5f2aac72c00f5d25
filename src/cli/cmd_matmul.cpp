// attn matmul A B [--transpose-b]: the matrix product A·B or A·Bᵀ, batched over leading
// dimensions that broadcast as torch.matmul's do.
#include <cmath>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/ops.hpp"
#include "attn/tensor.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "read/input_bytes.hpp"
#include "write/output_file.hpp"

namespace attn::cli {

namespace {

std::string shape_of(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }
using io::detail::display_name;

// Finite inputs can still overflow float32 in the sums: that is a numeric failure, never an
// 'inf' printed as if it were the product.
void require_finite(const Matrix& C) {
    for (std::size_t r = 0; r < C.rows(); ++r)
        for (std::size_t c = 0; c < C.cols(); ++c)
            if (!std::isfinite(C(r, c)))
                throw RuntimeFailure("product row " + std::to_string(r) + ", column " + std::to_string(c) +
                                     " (0-based) is " + (std::isnan(C(r, c)) ? "NaN" : "infinite") +
                                     ": the inputs overflow float32 (scale them down)");
}

// The batched product of tensors of rank 3 or 4 (a vector is one row, a matrix one slice): the
// leading dimensions broadcast as torch.matmul's (equal, or 1 on one side), the last two multiply.
Tensor batched_product(const Tensor& A, const Tensor& B, bool transpose_b, const std::string& a_path,
                       const std::string& b_path) {
    const std::size_t rank = std::max<std::size_t>({A.rank(), B.rank(), 2});
    const std::size_t batch_rank = rank - 2;
    std::vector<std::size_t> a_batch(batch_rank, 1), b_batch(batch_rank, 1), c_dims(batch_rank);
    for (std::size_t d = 0; d + 2 < A.rank(); ++d) a_batch[batch_rank - (A.rank() - 2) + d] = A.shape()[d];
    for (std::size_t d = 0; d + 2 < B.rank(); ++d) b_batch[batch_rank - (B.rank() - 2) + d] = B.shape()[d];
    const std::string both = display_name(a_path) + " " + A.shape().text() + " and " + display_name(b_path) + " " + B.shape().text();
    for (std::size_t d = 0; d < batch_rank; ++d) {
        if (a_batch[d] != b_batch[d] && a_batch[d] != 1 && b_batch[d] != 1)
            throw InputError("cannot broadcast the batch dimensions of " + both + ": " + std::to_string(a_batch[d]) +
                             " against " + std::to_string(b_batch[d]) + " (as torch.matmul, each must match or be 1)");
        c_dims[d] = std::max(a_batch[d], b_batch[d]);
    }
    const std::size_t inner = transpose_b ? B.cols() : B.rows();
    if (A.cols() != inner)
        throw InputError("cannot multiply " + both + (transpose_b ? " transposed" : "") + ": A has " +
                         std::to_string(A.cols()) + (A.cols() == 1 ? " column, " : " columns, ") +
                         (transpose_b ? "Bᵀ" : "B") + " has " + std::to_string(inner) + (inner == 1 ? " row" : " rows"));
    std::vector<std::size_t> dims = c_dims;
    dims.push_back(A.rows());
    dims.push_back(transpose_b ? B.rows() : B.cols());
    Tensor C{Shape(dims)};
    const TensorView a = A.view(), b = B.view();
    std::vector<std::size_t> index(batch_rank);
    for (std::size_t s = 0; s < C.slices(); ++s) {
        // The slice's batch index, and the slices of A and B it reads (index 0 where they broadcast).
        for (std::size_t d = batch_rank, rest = s; d-- > 0;) index[d] = rest % c_dims[d], rest /= c_dims[d];
        std::size_t sa = 0, sb = 0;
        for (std::size_t d = 0; d < batch_rank; ++d) {
            sa = sa * a_batch[d] + (a_batch[d] == 1 ? 0 : index[d]);
            sb = sb * b_batch[d] + (b_batch[d] == 1 ? 0 : index[d]);
        }
        matmul_into(a.slice(sa), b.slice(sb), transpose_b, C.slice_data(s), C.row_stride());
    }
    return C;
}

// torch.matmul's vectors: a 1-D A (k,) multiplies as the row (1, k) and a 1-D B (k,) as the
// column (k, 1) (with --transpose-b as the row (1, k), the same column once transposed); the
// product then loses that dimension. Two vectors give their dot product, shape (1,) (torch: 0-d).
Tensor as_column(const Tensor& v) {
    Tensor c{Shape{v.cols(), 1}};
    for (std::size_t k = 0; k < v.cols(); ++k) c.slice_data(0)[k * c.row_stride()] = v.data()[k];
    return c;
}
Tensor without_vector_dims(const Tensor& C, bool a_vector, bool b_vector) {
    std::vector<std::size_t> dims = C.shape().to_vector();
    if (b_vector) dims.erase(dims.end() - 1);
    if (a_vector) dims.erase(dims.end() - 1 - (b_vector ? 0 : 1));
    if (dims.empty()) dims.push_back(1);
    Tensor out{Shape(dims)};
    // A dimension of size 1 removed: the elements keep their order.
    const std::size_t oc = out.cols(), orows = out.rows();
    for (std::size_t s = 0, k = 0; s < C.slices(); ++s)
        for (std::size_t r = 0; r < C.rows(); ++r)
            for (std::size_t c = 0; c < C.cols(); ++c, ++k)
                out.slice_data(k / (orows * oc))[(k / oc % orows) * out.row_stride() + k % oc] =
                    C.slice_data(s)[r * C.row_stride() + c];
    return out;
}

}  // namespace

int cmd_matmul(int argc, char** argv) {
    cxxopts::Options options("attn matmul",
                             "The matrix product A·B (A rows x k, B k x cols), or A·Bᵀ with --transpose-b\n"
                             "(B cols x k). A and B are text or .npy; at most one of them may be '-' (both may\n"
                             "select results of standard input: -:NAME).\n"
                             "With a 3-D or 4-D operand each 2-D slice is multiplied, the leading dimensions\n"
                             "broadcast as torch.matmul's (equal, or 1 on one side): nanoGPT's wei @ x is\n"
                             "(T, T)·(B, T, C). A 1-D A (k,) is a row and a 1-D B (k,) a column, and the\n"
                             "product drops that dimension, as torch.matmul: (k,)·(k, n) is (n,), (m, k)·(k,)\n"
                             "is (m,), two vectors give their dot product as shape (1,) (torch: 0-d). A text\n"
                             "line is a matrix (1, n), not a vector: a vector is a 1-D .npy or [a, b, ...].\n");
    options.positional_help("A B");
    options.add_options()
        ("left", "Left operand A: a matrix, or a 3-D/4-D tensor", cxxopts::value<std::string>())
        ("right", "Right operand B: a matrix, or a 3-D/4-D tensor", cxxopts::value<std::string>())
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
    Tensor At = io::read_tensor(a_path);
    Tensor Bt = io::read_tensor(b_path);
    const bool a_vector = At.rank() == 1, b_vector = Bt.rank() == 1;
    if (b_vector && At.cols() != Bt.cols())
        throw InputError("cannot multiply " + display_name(a_path) + " " + At.shape().text() + " by the vector " + display_name(b_path) +
                         " " + Bt.shape().text() + ": A has " + std::to_string(At.cols()) +
                         (At.cols() == 1 ? " column, " : " columns, ") + "B has " + std::to_string(Bt.cols()) +
                         (Bt.cols() == 1 ? " entry" : " entries"));
    if (b_vector && !transpose_b) Bt = as_column(Bt);
    if (At.rank() > 2 || Bt.rank() > 2 || a_vector || b_vector) {
        Tensor C = batched_product(At, Bt, transpose_b, a_path, b_path);
        for (std::size_t s = 0; s < C.slices(); ++s) require_finite(C.slice_matrix(s));
        if (a_vector || b_vector) C = without_vector_dims(C, a_vector, b_vector);
        io::write_output({io::tensor_item("product", C.view())}, out);
        return exit_ok;
    }
    const Matrix A = std::move(At).to_matrix();
    const Matrix B = std::move(Bt).to_matrix();
    const std::size_t inner = transpose_b ? B.cols() : B.rows();
    if (A.cols() != inner)
        throw InputError("cannot multiply " + display_name(a_path) + " (" + shape_of(A) + ") by " +
                         (transpose_b ? "the transpose of " : "") + display_name(b_path) + " (" + shape_of(B) +
                         "): A has " + std::to_string(A.cols()) + (A.cols() == 1 ? " column, " : " columns, ") +
                         (transpose_b ? "Bᵀ" : "B") + " has " + std::to_string(inner) + (inner == 1 ? " row" : " rows"));
    const Matrix C = matmul(A, B, transpose_b);
    require_finite(C);
    io::write_output({io::Item{"product", &C, {}, {}, {}, {}, {}}}, out);
    return exit_ok;
}

}  // namespace attn::cli
