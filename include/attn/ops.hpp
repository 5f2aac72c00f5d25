// The narrow compute interface: every numeric kernel the attention pipeline uses goes
// through these functions. Each has a scalar reference (tests/oracle/reference.hpp) that stays the
// oracle; the SIMD implementations behind this interface are selected at run time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/masking.hpp"
#include "attn/matrix.hpp"
#include "attn/tensor.hpp"

namespace attn {

// ---- execution settings --------------------------------------------------------------
enum class Arch { scalar, avx2, avx512, neon };
// Every arch attn knows (compiled in or not), for names and messages.
inline constexpr Arch all_arches[] = {Arch::scalar, Arch::avx2, Arch::avx512, Arch::neon};

const char* arch_name(Arch arch) noexcept;
bool arch_supported(Arch arch) noexcept;  // CPU and OS can run it, and it is compiled in
Arch best_arch() noexcept;
// "auto" → best_arch(); otherwise a name from arch_name. Throws UsageError when unknown or
// when the CPU lacks it.
Arch parse_arch(std::string_view name);

// Process-wide settings, set by the CLI before any computation (not thread-safe to change
// while kernels run). threads == 0 means all online cores.
void set_arch(Arch arch);  // throws UsageError if unsupported
Arch current_arch() noexcept;
void set_threads(unsigned threads) noexcept;
unsigned current_threads() noexcept;
unsigned online_cores() noexcept;
// Starts the pool's threads for current_threads() now, idle, so that by the first
// parallel kernel the scheduler has settled them on cores of their own. Started at the first
// parallel kernel instead, a worker began on its caller's core and the first kernel waited
// for the scheduler to move it (a whole `attend` at T=4096 about 3% slower, 2 threads).
void start_threads();

// The masking vocabulary (Causal, MaskedRowPolicy, Normalization, causal_visible) is in
// attn/masking.hpp.

// ---- kernels ---------------------------------------------------------------------------
// C = A·B with B k×n, or C = A·Bᵀ with B n×k when transpose_b. C is resized/overwritten.
void matmul(const Matrix& A, const Matrix& B, Matrix& C, bool transpose_b = false);
Matrix matmul(const Matrix& A, const Matrix& B, bool transpose_b = false);
// The same over views: C (A.rows × n, row stride ldc) = A·B or A·Bᵀ. Same bits as matmul.
void matmul_into(const MatrixView& A, const MatrixView& B, bool transpose_b, float* C, std::size_t ldc);

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

// Context = softmax(scale·Q·Kᵀ + bias, masked) · V without materialising Tq×Tk (online
// softmax over key tiles). Fully masked rows follow `policy` (uniform = mean of V).
// Returns the context (Tq×d_v); *masked_rows receives the count of fully masked rows.
Matrix fused_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const ScoreMask& sm,
                       MaskedRowPolicy policy, std::size_t* masked_rows);

}  // namespace attn
