// softmax_rows of every supported arch against the double-accumulator reference
// (attn::reference::normalize_rows), on awkward widths and strides, with masks and policies.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "arch_kernels.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "attn/matrix.hpp"
#include "attn/tensor.hpp"
#include "oracle/reference.hpp"

namespace {

constexpr float ninf = -std::numeric_limits<float>::infinity();
constexpr float sentinel = 12345.0f;  // fills the gap between rows: must survive

// Rows as the kernel reads them: an attn::MatrixView with row stride ld ≥ cols into flat
// tensor storage whose gaps hold `sentinel`. Copies get their own storage and view.
struct Rows {
    attn::Tensor storage;
    attn::MatrixView view;
    Rows(std::size_t r, std::size_t c, std::size_t ld)
        : storage(attn::Shape{std::max<std::size_t>(1, r * ld)}), view{nullptr, r, c, ld} {
        std::fill(storage.data(), storage.data() + std::max<std::size_t>(1, r * ld), sentinel);
        view.data = storage.data();
    }
    Rows(const Rows& o) : storage(o.storage), view(o.view) { view.data = storage.data(); }
    float& at(std::size_t i, std::size_t j) { return storage.data()[i * view.stride + j]; }
    std::size_t softmax(const attn::test::ArchKernels& k, attn::MaskedRowPolicy policy) {
        return k.softmax_rows(storage.data(), view.stride, view.rows, view.cols, attn::to_kernel(policy));
    }
};

attn::Matrix to_matrix(const attn::MatrixView& v) {
    attn::Matrix m(v.rows, v.cols);
    for (std::size_t i = 0; i < v.rows; ++i)
        for (std::size_t j = 0; j < v.cols; ++j) m(i, j) = v(i, j);
    return m;
}

// Runs the kernel and the reference on the same data; checks agreement within a relative
// 1e-5 (plus 1e-7 absolute for tiny weights), exact zeros where the input is −inf, NaN
// where the reference has NaN, row sums of 1, untouched gaps and the masked-row count.
void check_against_reference(const attn::test::ArchKernels& k, Rows s, attn::MaskedRowPolicy policy) {
    attn::Matrix ref = to_matrix(s.view);
    const std::size_t ref_masked = attn::reference::normalize_rows(ref, attn::Normalization::softmax, policy);
    Rows in = s;
    const std::size_t masked = s.softmax(k, policy);
    CHECK(masked == ref_masked);
    const std::size_t rows = s.view.rows, cols = s.view.cols;
    for (std::size_t i = 0; i < rows; ++i) {
        double sum = 0.0;
        bool row_masked = true;
        for (std::size_t j = 0; j < cols; ++j)
            if (in.at(i, j) != ninf) row_masked = false;
        for (std::size_t j = 0; j < cols; ++j) {
            const float got = s.at(i, j), want = ref(i, j);
            if (std::isnan(want)) {
                CHECK(std::isnan(got));
                continue;
            }
            if (in.at(i, j) == ninf && !row_masked) CHECK(got == 0.0f);
            CHECK(std::fabs(got - want) <= 1e-5f * std::fabs(want) + 1e-7f);
            sum += got;
        }
        const bool nan_row = cols && std::isnan(ref(i, 0));  // a NaN entry: every weight NaN
        if (!nan_row && (!row_masked || policy == attn::MaskedRowPolicy::uniform))
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
        for (std::size_t j = cols; j < s.view.stride; ++j) CHECK(s.at(i, j) == sentinel);
    }
}

}  // namespace

TEST_CASE("softmax_rows: random rows of awkward widths and strides match the reference, per arch") {
    std::mt19937 gen(7);
    std::normal_distribution<float> dist(0.0f, 3.0f);
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        const std::size_t W = k.lanes;
        for (std::size_t cols : {std::size_t(1), W - 1, W, W + 1, 2 * W + 5, 4 * W + 3, std::size_t(100), std::size_t(1001)}) {
            if (cols == 0) continue;
            for (std::size_t pad : {0, 1, 3}) {
                INFO("cols " << cols << " ld " << cols + pad);
                Rows s(5, cols, cols + pad);
                for (std::size_t i = 0; i < 5; ++i)
                    for (std::size_t j = 0; j < cols; ++j) s.at(i, j) = dist(gen);
                // Row 1: every third entry masked; row 3: only the last entry visible.
                for (std::size_t j = 0; j < cols; j += 3) s.at(1, j) = ninf;
                if (cols > 1) s.at(1, 1) = 0.5f;
                for (std::size_t j = 0; j + 1 < cols; ++j) s.at(3, j) = ninf;
                check_against_reference(k, s, attn::MaskedRowPolicy::zero);
            }
        }
    }
}

TEST_CASE("softmax_rows: fully masked rows follow each policy and are counted, per arch") {
    using attn::MaskedRowPolicy;
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        for (std::size_t cols : {std::size_t(1), k.lanes + 1, 4 * k.lanes + 3}) {
            for (MaskedRowPolicy policy : {MaskedRowPolicy::zero, MaskedRowPolicy::nan, MaskedRowPolicy::uniform}) {
                Rows s(4, cols, cols + 1);
                for (std::size_t i = 0; i < 4; ++i)
                    for (std::size_t j = 0; j < cols; ++j) s.at(i, j) = (i % 2) ? ninf : float(j) * 0.25f;
                check_against_reference(k, s, policy);
                Rows t = s;
                CHECK(t.softmax(k, policy) == 2);
                for (std::size_t j = 0; j < cols; ++j) {
                    const float got = t.at(1, j);
                    if (policy == MaskedRowPolicy::zero) CHECK(got == 0.0f);
                    if (policy == MaskedRowPolicy::nan) CHECK(std::isnan(got));
                    if (policy == MaskedRowPolicy::uniform) CHECK(got == 1.0f / float(cols));
                }
            }
        }
    }
}

TEST_CASE("softmax_rows: a NaN makes every weight of its row NaN and is not a masked row, per arch") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        for (std::size_t cols : {std::size_t(1), k.lanes - 1 ? k.lanes - 1 : 2, k.lanes + 1, 4 * k.lanes + 3}) {
            INFO("cols " << cols);
            // Row 0: all NaN; row 1: one NaN among −inf; row 2: one NaN among numbers; row 3: all −inf.
            Rows s(4, cols, cols + 2);
            for (std::size_t j = 0; j < cols; ++j) {
                s.at(0, j) = nan;
                s.at(1, j) = ninf;
                s.at(2, j) = float(j) * 0.5f;
                s.at(3, j) = ninf;
            }
            s.at(1, cols - 1) = nan;
            s.at(2, cols / 2) = nan;
            check_against_reference(k, s, attn::MaskedRowPolicy::zero);
            Rows t = s;
            CHECK(t.softmax(k, attn::MaskedRowPolicy::zero) == 1);
            for (std::size_t i = 0; i < 3; ++i)
                for (std::size_t j = 0; j < cols; ++j) CHECK(std::isnan(t.at(i, j)));
            for (std::size_t j = 0; j < cols; ++j) CHECK(t.at(3, j) == 0.0f);
        }
    }
}

TEST_CASE("softmax_rows: known values and shift invariance, per arch") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        // [1000, 1001] → [1/(1+e), e/(1+e)]; [−1000, −1000] → [½, ½] (no overflow, no 0/0).
        float a[2] = {1000.0f, 1001.0f}, b[2] = {-1000.0f, -1000.0f};
        CHECK(k.softmax_rows(a, 2, 1, 2, attn::kernels::MaskedRowPolicy::zero) == 0);
        CHECK(k.softmax_rows(b, 2, 1, 2, attn::kernels::MaskedRowPolicy::zero) == 0);
        const double e = std::exp(1.0);
        CHECK(a[0] == doctest::Approx(1.0 / (1.0 + e)).epsilon(1e-6));
        CHECK(a[1] == doctest::Approx(e / (1.0 + e)).epsilon(1e-6));
        CHECK(b[0] == 0.5f);
        CHECK(b[1] == 0.5f);
        // Adding a constant to a row leaves its softmax unchanged (up to rounding of x − c).
        const std::size_t n = 4 * k.lanes + 3;
        std::vector<float> x(n), y(n);
        for (std::size_t j = 0; j < n; ++j) x[j] = std::sin(float(j)) * 4.0f;
        for (std::size_t j = 0; j < n; ++j) y[j] = x[j] + 37.5f;
        y[5] = x[5] = ninf;
        k.softmax_rows(x.data(), n, 1, n, attn::kernels::MaskedRowPolicy::zero);
        k.softmax_rows(y.data(), n, 1, n, attn::kernels::MaskedRowPolicy::zero);
        for (std::size_t j = 0; j < n; ++j) CHECK(y[j] == doctest::Approx(x[j]).epsilon(2e-5));
        CHECK(x[5] == 0.0f);
        CHECK(y[5] == 0.0f);
    }
}

TEST_CASE("softmax_rows: a long row's sum keeps its small terms, per arch") {
    // 100,003 entries: one 17, the rest 0, so every weight but the first is e^−17 of it, each below
    // half a unit of a running sum near 1: a single chain of adds (the scalar kernel's) lost all of
    // them (the first weight came out 1, not 0.99587717); four vector chains lost 6e−5 to 1.3e−4 of
    // the sum. The expected weights in double.
    const std::size_t n = 100003;
    const double big = 1.0 / (1.0 + double(n - 1) * std::exp(-17.0)), small = std::exp(-17.0) * big;
    for (const auto& k : attn::test::supported_arch_kernels()) {
        INFO("arch " << std::string(k.name));
        std::vector<float> x(n, 0.0f);
        x[0] = 17.0f;
        k.softmax_rows(x.data(), n, 1, n, attn::kernels::MaskedRowPolicy::zero);
        CHECK(x[0] == doctest::Approx(big).epsilon(1e-5));
        CHECK(x[n - 1] == doctest::Approx(small).epsilon(1e-5));
    }
}
