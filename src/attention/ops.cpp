// Public compute entry points: the dispatch from the public ops to the current arch's
// kernels (arch/kernel_table.hpp), split over threads. The arch and thread settings are
// runtime/arch.cpp and runtime/threads.cpp. This file is compiled for the baseline ISA; only
// the kernels behind the table use SIMD flags.
#include "attn/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/mask_bits.hpp"
#include "attn/tensor.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "kernels/kernel_api.hpp"
#include "arch/kernel_table.hpp"
#include "runtime/parallel.hpp"

namespace attn {

namespace {

const kernels::KernelSet& active() noexcept { return kernels::table_of(current_arch()); }

// How C is split over threads. The kernel packs all of B once per call, so calls are few
// and large: one block of rows per thread, or of columns when C has too few rows (one
// query row...). Each C element is computed by exactly one call with the same order of
// operations wherever the split falls (the kernels' edge tiles compute like full ones), so
// results are bitwise identical for any thread count.
struct GemmSplit {
    std::size_t blocks = 1;
    bool by_columns = false;
};

GemmSplit gemm_split(std::size_t m, std::size_t n, std::size_t k) {
    const double flops = 2.0 * double(m) * double(n) * double(k);
    const std::size_t threads = current_threads();
    if (flops < 4e6 || threads <= 1) return {};  // below ~50 µs of work a second thread does not pay
    if (m >= 32 * threads) return {threads, false};
    const std::size_t by_rows = std::max<std::size_t>(1, m / 16), by_cols = std::max<std::size_t>(1, n / 96);
    if (by_cols > by_rows) return {std::min(threads, by_cols), true};
    return {std::min(threads, by_rows), false};
}

// [begin, end) of block b of `blocks` over `size`; column blocks are multiples of 96
// (a multiple of every arch's NR) so that only the last one has an edge tile.
std::pair<std::size_t, std::size_t> block_range(std::size_t size, std::size_t blocks, std::size_t b, std::size_t quantum) {
    std::size_t chunk = (size + blocks - 1) / blocks;
    chunk = (chunk + quantum - 1) / quantum * quantum;
    const std::size_t begin = std::min(size, b * chunk), end = std::min(size, begin + chunk);
    return {begin, end};
}

}  // namespace

namespace {

// matmul_into on B of any element type (GemmArgs::b_type): B is rows×cols with row stride ldb
// elements.
void gemm_into(const MatrixView& A, const void* B, std::size_t rows, std::size_t cols, std::size_t ldb,
               kernels::GemmB type, bool transpose_b, float* C, std::size_t ldc) {
    const std::size_t m = A.rows, k = A.cols;
    const std::size_t kb = transpose_b ? cols : rows;
    const std::size_t n = transpose_b ? rows : cols;
    if (kb != k)
        throw InputError("matmul: inner dimensions differ: " + std::to_string(A.rows) + "x" + std::to_string(A.cols) +
                         " times " + std::to_string(rows) + "x" + std::to_string(cols) +
                         (transpose_b ? " transposed" : ""));
    if (!m || !n) return;  // k == 0: the kernels write zeros
    const std::size_t esize = type == kernels::GemmB::f32 ? 4 : 2;
    const auto* b_bytes = static_cast<const char*>(B);
    const kernels::GemmArgs whole{A.data, A.stride, static_cast<const float*>(B), ldb, transpose_b, C, ldc, m, n, k,
                                  type};
    const auto gemm = active().gemm;
    const GemmSplit split = gemm_split(m, n, k);
    parallel_for(split.blocks, [&](std::size_t b) {
        kernels::GemmArgs part = whole;
        if (split.by_columns) {
            const auto [c0, c1] = block_range(n, split.blocks, b, 96);
            part.B = reinterpret_cast<const float*>(b_bytes + (transpose_b ? c0 * ldb : c0) * esize);
            part.C = C + c0;
            part.n = c1 - c0;
        } else {
            const auto [r0, r1] = block_range(m, split.blocks, b, 1);
            part.A = A.data + r0 * A.stride;
            part.C = C + r0 * ldc;
            part.m = r1 - r0;
        }
        if (part.m && part.n) gemm(part);
    });
}

}  // namespace

void matmul_into(const MatrixView& A, const MatrixView& B, bool transpose_b, float* C, std::size_t ldc) {
    gemm_into(A, B.data, B.rows, B.cols, B.stride, kernels::GemmB::f32, transpose_b, C, ldc);
}

void matmul_into(const MatrixView& A, const HalfMatrixView& B, bool transpose_b, float* C, std::size_t ldc) {
    gemm_into(A, B.data, B.rows, B.cols, B.stride, B.bf16 ? kernels::GemmB::bf16 : kernels::GemmB::f16, transpose_b,
              C, ldc);
}

void matmul(const Matrix& A, const Matrix& B, Matrix& C, bool transpose_b) {
    const std::size_t m = A.rows(), k = A.cols();
    const std::size_t kb = transpose_b ? B.cols() : B.rows();
    const std::size_t n = transpose_b ? B.rows() : B.cols();
    if (kb != k)
        throw InputError("matmul: inner dimensions differ: " + Shape{A.rows(), A.cols()}.dims_text() + " times " +
                         Shape{B.rows(), B.cols()}.dims_text() +
                         (transpose_b ? " transposed" : ""));
    // Reuse C's storage when it has the shape and is neither input (no allocation, no page
    // faults on repeated calls); otherwise a new zero-filled matrix.
    const bool reuse = C.rows() == m && C.cols() == n && C.data() && C.data() != A.data() && C.data() != B.data();
    Matrix out = reuse ? std::move(C) : Matrix(m, n);
    matmul_into({A.data(), m, k, A.stride()}, {B.data(), B.rows(), B.cols(), B.stride()}, transpose_b, out.data(),
                out.stride());
    C = std::move(out);
}

Matrix matmul(const Matrix& A, const Matrix& B, bool transpose_b) {
    Matrix C;
    matmul(A, B, C, transpose_b);
    return C;
}

namespace {

enum class RowSum { ok, masked, zero };

// Sum normalisation of one row (double accumulator, as the reference defines it).
RowSum normalize_row_by_sum(float* row, std::size_t n, MaskedRowPolicy policy) {
    constexpr float ninf = -std::numeric_limits<float>::infinity();
    float mx = ninf;
    for (std::size_t j = 0; j < n; ++j) mx = std::fmax(mx, row[j]);
    if (mx == ninf) {  // every key masked (or no keys at all)
        std::fill(row, row + n, masked_row_weight(policy, n));
        return RowSum::masked;
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) sum += row[j] == ninf ? 0.0 : double(row[j]);
    if (sum == 0.0) return RowSum::zero;
    for (std::size_t j = 0; j < n; ++j) row[j] = row[j] == ninf ? 0.0f : float(double(row[j]) / sum);
    return RowSum::ok;
}

}  // namespace

std::size_t normalize_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols, Normalization how,
                           MaskedRowPolicy policy) {
    constexpr std::size_t rows_per_block = 32;
    const std::size_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    std::vector<std::size_t> masked(blocks, 0);
    // First row of each block whose sum is zero (rows = none): the error names the first
    // such row whatever the thread count.
    std::vector<std::size_t> zero_row(blocks, rows);
    const auto softmax_rows = active().softmax_rows;
    parallel_for(blocks, [&](std::size_t b) {
        const std::size_t r0 = b * rows_per_block, r1 = std::min(rows, r0 + rows_per_block);
        if (how == Normalization::softmax) {
            masked[b] = softmax_rows(S + r0 * lds, lds, r1 - r0, cols, to_kernel(policy));
            return;
        }
        for (std::size_t r = r0; r < r1; ++r) {
            const RowSum result = normalize_row_by_sum(S + r * lds, cols, policy);
            if (result == RowSum::masked) ++masked[b];
            if (result == RowSum::zero && zero_row[b] == rows) zero_row[b] = r;
        }
    });
    for (std::size_t z : zero_row)
        if (z != rows)
            throw RuntimeFailure("row " + std::to_string(z) + " (0-based) sums to zero: cannot normalize by its sum");
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

std::size_t normalize_rows(Matrix& S, Normalization how, MaskedRowPolicy policy) {
    return normalize_rows(S.data(), S.stride(), S.rows(), S.cols(), how, policy);
}

void scale_and_mask_rows(const float* scores, std::size_t ld_scores, float* out, std::size_t ld_out,
                         const ScoreRows& r) {
    constexpr std::size_t rows_per_block = 32;
    const std::size_t rows = r.row_end - r.row_begin;
    const std::size_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    const auto epilogue = active().score_epilogue;  // without the softmax: the scaled, masked scores
    parallel_for(blocks, [&](std::size_t b) {
        const std::size_t r0 = b * rows_per_block, r1 = std::min(rows, r0 + rows_per_block);
        kernels::ScoreEpilogueArgs a{};
        a.S = scores + r0 * ld_scores, a.lds = ld_scores;
        a.P = out + r0 * ld_out, a.ldp = ld_out;
        a.Tq = r.Tq, a.Tk = r.Tk, a.row_begin = r.row_begin + r0, a.row_end = r.row_begin + r1;
        a.scale = r.scale, a.causal = to_kernel(r.causal), a.key_limit = r.key_limit;
        a.offset = kernels::causal_offset(a.causal, r.Tq, r.Tk);
        a.mask = r.mask, a.ldm = r.ldm, a.bias = r.bias, a.ldb = r.ldb;
        a.softmax = false;
        epilogue(a);
    });
}

Matrix scaled_scores(const Matrix& scores, const ScoreMask& sm) {
    const std::size_t Tq = scores.rows(), Tk = scores.cols();
    Matrix out(Tq, Tk);
    ScoreRows r;
    r.Tq = Tq;
    r.Tk = Tk;
    r.row_begin = 0;
    r.row_end = Tq;
    r.scale = sm.scale;
    r.causal = sm.causal;
    const MaskBits bits = sm.mask ? MaskBits(view_of(*sm.mask)) : MaskBits();
    if (sm.mask) r.mask = bits.data(), r.ldm = bits.row_words();
    if (sm.bias) r.bias = sm.bias->data(), r.ldb = sm.bias->stride();
    scale_and_mask_rows(scores.data(), scores.stride(), out.data(), out.stride(), r);
    return out;
}


}  // namespace attn
