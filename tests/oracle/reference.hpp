// Scalar reference kernels: straightforward loops with double accumulators. They define
// what the fast kernels must compute and stay forever as the oracle in tests: linked into
// attn_tests only (tests/oracle/), never into the library or the program.
#pragma once
#include <cstddef>

#include "attn/matrix.hpp"
#include "attn/ops.hpp"

namespace attn::reference {

void matmul(const Matrix& A, const Matrix& B, Matrix& C, bool transpose_b);
std::size_t normalize_rows(Matrix& S, Normalization how, MaskedRowPolicy policy);
// scaled = scale·scores + bias, with -inf wherever the mask, causal rule or bias forbid.
Matrix scaled_scores(const Matrix& scores, const ScoreMask& sm);
// Materialised attention: softmax(scaled)·V with the fully-masked-row policy.
Matrix attention(const Matrix& Q, const Matrix& K, const Matrix& V, const ScoreMask& sm,
                 MaskedRowPolicy policy, std::size_t* masked_rows);

}  // namespace attn::reference
