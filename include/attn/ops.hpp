// The narrow compute interface: every numeric kernel the attention pipeline uses goes
// through these functions. Each has a scalar reference (tests/oracle/reference.hpp) that stays the
// oracle; the SIMD implementations behind this interface are selected at run time.
#pragma once
#include <cstddef>
#include <cstdint>

#include "attn/masking.hpp"
#include "attn/matrix.hpp"
#include "attn/runtime.hpp"
#include "attn/tensor.hpp"

namespace attn {

// The execution settings (arch, threads) are in attn/runtime.hpp.
// The masking vocabulary (Causal, MaskedRowPolicy, Normalization, causal_visible) is in
// attn/masking.hpp.

// ---- kernels ---------------------------------------------------------------------------
// C = A·B with B k×n, or C = A·Bᵀ with B n×k when transpose_b. C is resized/overwritten.
void matmul(const Matrix& A, const Matrix& B, Matrix& C, bool transpose_b = false);
Matrix matmul(const Matrix& A, const Matrix& B, bool transpose_b = false);
// The same over views: C (A.rows × n, row stride ldc) = A·B or A·Bᵀ. Same bits as matmul.
void matmul_into(const MatrixView& A, const MatrixView& B, bool transpose_b, float* C, std::size_t ldc);
// B of 16-bit floats (IEEE float16, or bfloat16 when bf16), as a model's weights lie in their
// file: widened exactly to float32 as the GEMM packs its panels (never a whole float32 copy);
// the result is A·B (or A·Bᵀ) over the widened values.
struct HalfMatrixView {
    const std::uint16_t* data = nullptr;
    std::size_t rows = 0, cols = 0, stride = 0;  // stride in elements
    bool bf16 = false;
};
void matmul_into(const MatrixView& A, const HalfMatrixView& B, bool transpose_b, float* C, std::size_t ldc);

// Row-wise normalisation in place. Entries equal to -inf are masked and get weight exactly
// 0. softmax is max-subtracted (stable); sum divides by the row sum of unmasked entries and
// throws RuntimeFailure on a zero sum. A fully masked row gets: zero → all 0, nan → all NaN,
// uniform → 1/cols. Returns the number of fully masked rows.
std::size_t normalize_rows(Matrix& S, Normalization how, MaskedRowPolicy policy);
// The same over rows×cols floats with row stride lds.
std::size_t normalize_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols, Normalization how,
                           MaskedRowPolicy policy);


// The scale-and-mask step for query rows [row_begin, row_end) of a Tq×Tk problem:
// out[i] = scale·scores[i] + bias[i], -inf where the causal rule, the key limit or the mask
// forbid (attn/masking.hpp). scores and out point at row row_begin; mask and bias are
// indexed by the global row (ldm / ldb may be 0: one row for every query). The mask is
// packed (attn/mask_bits.hpp): row i is the words at mask + i·ldm.
struct ScoreRows {
    std::size_t Tq = 0, Tk = 0, row_begin = 0, row_end = 0;
    float scale = 1.0f;
    Causal causal = Causal::none;
    std::size_t key_limit = no_key_limit;
    const std::uint64_t* mask = nullptr;
    std::size_t ldm = 0;  // words
    const float* bias = nullptr;
    std::size_t ldb = 0;
};
void scale_and_mask_rows(const float* scores, std::size_t ld_scores, float* out, std::size_t ld_out,
                         const ScoreRows& rows);
// scaled = scale·scores + bias, -inf where masked (a new matrix).
Matrix scaled_scores(const Matrix& scores, const ScoreMask& sm);


}  // namespace attn
