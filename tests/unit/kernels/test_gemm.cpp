// The GEMM kernels of every arch this machine supports against the float64 reference
// (attn::reference::matmul), on awkward shapes and raw buffers with odd leading dimensions.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "attn/half.hpp"
#include "attn/ops.hpp"
#include "oracle/reference.hpp"
#include "arch_kernels.hpp"
#include "kernels/kernel_api.hpp"

namespace {

using GemmFn = void (*)(const attn::kernels::GemmArgs&);

struct ArchGemm {
    attn::Arch arch;
    GemmFn gemm;
    std::size_t lanes;  // float lanes of the arch's vectors (1 for scalar)
};

// The kernels this build has and this CPU can run (the arch table).
std::vector<ArchGemm> runnable_gemms() {
    std::vector<ArchGemm> out;
    for (const auto& k : attn::test::supported_arch_kernels()) out.push_back({k.arch, k.gemm, k.lanes});
    return out;
}

std::vector<float> random_buffer(std::size_t count, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = dist(gen);
    return v;
}

attn::Matrix to_matrix(const float* p, std::size_t rows, std::size_t cols, std::size_t ld) {
    attn::Matrix M(rows, cols);
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(M.row(r), p + r * ld, cols * sizeof(float));
    return M;
}

// Runs `gemm` on raw buffers with leading dimensions k+pad_a, n+pad_b (or k+pad_b when
// transposed), n+pad_c, C prefilled with NaN (β = 0 must never read it), and checks every
// element against the float64 reference within 1e-6·Σ|a||b| (+ a tiny absolute floor),
// and that nothing outside the m×n window was written.
void check_gemm(GemmFn gemm, std::size_t m, std::size_t n, std::size_t k, bool transposed, std::size_t pad,
                unsigned seed) {
    const std::size_t lda = k + pad, ldb = (transposed ? k : n) + pad + 2, ldc = n + pad + 1;
    const std::size_t b_rows = transposed ? n : k, b_cols = transposed ? k : n;
    std::vector<float> A = random_buffer(m * lda + 1, seed), B = random_buffer(b_rows * ldb + 1, seed + 1);
    const float sentinel = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> C(m * ldc + 3, sentinel);
    gemm({A.data(), lda, B.data(), ldb, transposed, C.data(), ldc, m, n, k});

    attn::Matrix Am = to_matrix(A.data(), m, k, lda), Bm = to_matrix(B.data(), b_rows, b_cols, ldb), Ref;
    attn::reference::matmul(Am, Bm, Ref, transposed);
    std::size_t bad = 0, outside_written = 0;
    double worst = 0.0;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            double magnitude = 0.0;  // Σ_p |a_ip·b_pj|: the scale of the rounding error
            for (std::size_t p = 0; p < k; ++p)
                magnitude += std::fabs(double(Am(i, p)) * double(transposed ? Bm(j, p) : Bm(p, j)));
            const double err = std::fabs(double(C[i * ldc + j]) - double(Ref(i, j)));
            const double tol = 1e-6 * magnitude + 1e-30;
            if (!(err <= tol)) ++bad;  // NaN (C read or not written) counts as bad
            if (magnitude > 0) worst = std::max(worst, err / magnitude);
        }
        for (std::size_t j = n; j < ldc && i * ldc + j < C.size(); ++j)
            if (!std::isnan(C[i * ldc + j])) ++outside_written;
    }
    for (std::size_t t = m * ldc; t < C.size(); ++t)
        if (!std::isnan(C[t])) ++outside_written;
    INFO("m=" << m << " n=" << n << " k=" << k << (transposed ? " A·Bᵀ" : " A·B") << " pad=" << pad
              << " worst err/Σ|ab| = " << worst);
    CHECK(bad == 0);
    CHECK(outside_written == 0);
}

}  // namespace

TEST_CASE("gemm: every arch matches the float64 reference on awkward shapes") {
    for (const ArchGemm& g : runnable_gemms()) {
        const std::size_t L = g.lanes;
        INFO("arch " << std::string(attn::arch_name(g.arch)));
        MESSAGE("gemm kernel tested on arch " << std::string(attn::arch_name(g.arch)));
        // 1, lanes−1, lanes, lanes+1, 4·lanes+3 for each dimension (combined sparsely).
        std::vector<std::size_t> sizes{1, L > 1 ? L - 1 : 2, L, L + 1, 4 * L + 3};
        unsigned seed = 10;
        for (bool transposed : {false, true})
            for (std::size_t m : sizes)
                for (std::size_t n : sizes)
                    for (std::size_t k : {std::size_t(1), std::size_t(7), L + 1, 4 * L + 3})
                        check_gemm(g.gemm, m, n, k, transposed, (m + n + k) % 3, seed++);
        // Shapes that cross every blocking boundary: m not a multiple of MR (6, 8, 12),
        // n not a multiple of NR (16, 12, 32), k > KC (256) and odd, n > NC (1024).
        for (bool transposed : {false, true}) {
            check_gemm(g.gemm, 29, 77, 301, transposed, 1, seed++);
            check_gemm(g.gemm, 13, 1061, 263, transposed, 3, seed++);
            check_gemm(g.gemm, 50, 33, 520, transposed, 0, seed++);
        }
    }
}

TEST_CASE("gemm: k = 0 writes zeros; m or n = 0 writes nothing") {
    for (const ArchGemm& g : runnable_gemms()) {
        INFO("arch " << std::string(attn::arch_name(g.arch)));
        std::vector<float> A(8, 1.0f), B(8, 1.0f), C(12, std::numeric_limits<float>::quiet_NaN());
        g.gemm({A.data(), 1, B.data(), 4, false, C.data(), 4, 3, 4, 0});
        for (float c : C) CHECK(c == 0.0f);
        std::vector<float> D(4, 5.0f);
        g.gemm({A.data(), 2, B.data(), 2, false, D.data(), 2, 0, 2, 2});
        g.gemm({A.data(), 2, B.data(), 2, true, D.data(), 2, 2, 0, 2});
        for (float d : D) CHECK(d == 5.0f);
    }
}

TEST_CASE("gemm: splitting the rows of C does not change any bit") {
    // The dispatcher hands each thread a block of rows: a row's result must not depend on
    // where the block starts (edge tiles, packing) for the thread count not to matter.
    const std::size_t m = 37, n = 45, k = 290;
    std::vector<float> A = random_buffer(m * k, 1), B = random_buffer(k * n, 2);
    for (const ArchGemm& g : runnable_gemms())
        for (bool transposed : {false, true}) {
            INFO("arch " << std::string(attn::arch_name(g.arch)));
            CAPTURE(transposed);
            const std::size_t ldb = transposed ? k : n;
            std::vector<float> whole(m * n), parts(m * n);
            g.gemm({A.data(), k, B.data(), ldb, transposed, whole.data(), n, m, n, k});
            for (std::size_t r0 = 0; r0 < m;) {
                const std::size_t r1 = std::min(m, r0 + 5 + r0 % 7);  // odd, uneven blocks
                g.gemm({A.data() + r0 * k, k, B.data(), ldb, transposed, parts.data() + r0 * n, n, r1 - r0, n, k});
                r0 = r1;
            }
            CHECK(std::memcmp(whole.data(), parts.data(), whole.size() * sizeof(float)) == 0);
        }
}

TEST_CASE("gemm: attn::matmul on every arch and thread count matches the reference") {
    const attn::Arch saved = attn::current_arch();
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    auto random = [&](std::size_t rows, std::size_t cols) {
        attn::Matrix M(rows, cols);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) M(r, c) = dist(gen);
        return M;
    };
    // 131 rows (threads split the rows) and 4 rows × 900 columns (threads split the columns).
    for (std::size_t m : {131u, 4u}) {
        const std::size_t n = m == 4 ? 900 : 70, k = 300;
        const attn::Matrix A = random(m, k), B = random(k, n), Bt = random(n, k);
        attn::Matrix ref_ab, ref_abt;
        attn::reference::matmul(A, B, ref_ab, false);
        attn::reference::matmul(A, Bt, ref_abt, true);
        for (const auto& kernel_set : attn::test::supported_arch_kernels()) {
            const attn::Arch arch = kernel_set.arch;
            attn::set_arch(arch);
            INFO("arch " << std::string(attn::arch_name(arch)) << ", " << m << "x" << n << "x" << k);
            for (unsigned threads : test_util::thread_counts({1u, 2u, 3u})) {
                CAPTURE(threads);
                attn::set_threads(threads);
                for (bool transposed : {false, true}) {
                    attn::Matrix C = attn::matmul(A, transposed ? Bt : B, transposed);
                    const attn::Matrix& ref = transposed ? ref_abt : ref_ab;
                    REQUIRE(C.rows() == ref.rows());
                    REQUIRE(C.cols() == ref.cols());
                    double worst = 0.0;
                    for (std::size_t i = 0; i < C.rows(); ++i)
                        for (std::size_t j = 0; j < C.cols(); ++j)
                            worst = std::max(worst, double(std::fabs(C(i, j) - ref(i, j))));
                    // entries are sums of 300 products of magnitude ≤ 4 (typically Σ|ab| ≈ 300):
                    // 1e-6 relative is ≈ 3e-4.
                    CHECK(worst < 4e-4);
                }
            }
        }
    }
    attn::set_arch(saved);
    attn::set_threads(0);
}

// 16-bit B (GemmB::f16 / bf16, a model's weights as they lie in their file): every arch's GEMM
// equals, bit for bit, its own float32 GEMM on B widened beforehand (the widening is exact and
// the products are the same), on shapes with edge tiles, both layouts and odd strides.
TEST_CASE("gemm: float16 and bfloat16 B widened while packing equal the float32 GEMM of the widened B, every arch") {
    using attn::kernels::GemmB;
    const std::size_t shapes[][3] = {{1, 1, 1}, {7, 33, 17}, {13, 100, 300}, {40, 257, 129}};
    for (const ArchGemm& g : runnable_gemms())
        for (const auto& s : shapes)
            for (bool transposed : {false, true})
                for (GemmB type : {GemmB::f16, GemmB::bf16}) {
                    const std::size_t m = s[0], n = s[1], k = s[2];
                    const std::size_t lda = k + 1, ldb = (transposed ? k : n) + 3, ldc = n + 2;
                    const std::size_t b_rows = transposed ? n : k;
                    const std::vector<float> A = random_buffer(m * lda, 7), Bf = random_buffer(b_rows * ldb, 8);
                    std::vector<std::uint16_t> B16(Bf.size());
                    std::vector<float> wide(Bf.size());
                    for (std::size_t i = 0; i < Bf.size(); ++i) {
                        std::uint32_t bits;
                        std::memcpy(&bits, &Bf[i], 4);
                        B16[i] = type == GemmB::f16 ? attn::float_to_half(Bf[i]) : std::uint16_t(bits >> 16);
                        const std::uint32_t back = std::uint32_t(B16[i]) << 16;
                        float bf;
                        std::memcpy(&bf, &back, 4);
                        wide[i] = type == GemmB::f16 ? attn::half_to_float(B16[i]) : bf;
                    }
                    std::vector<float> C16(m * ldc, -1.0f), C32(m * ldc, -1.0f);
                    attn::kernels::GemmArgs a{A.data(), lda, reinterpret_cast<const float*>(B16.data()), ldb, transposed,
                                              C16.data(), ldc, m, n, k, type};
                    g.gemm(a);
                    g.gemm({A.data(), lda, wide.data(), ldb, transposed, C32.data(), ldc, m, n, k});
                    INFO(std::string(attn::arch_name(g.arch)), " ", m, "x", n, "x", k, transposed ? " transposed" : "",
                         type == GemmB::f16 ? " f16" : " bf16");
                    CHECK(std::memcmp(C16.data(), C32.data(), C16.size() * sizeof(float)) == 0);
                    // and the widened B really is 16-bit data: not the float32 bits misread
                    CHECK(std::abs(C32[0]) < 1e30f);
                }
}

TEST_CASE("gemm: matmul_into with a HalfMatrixView (threads split columns or rows) equals the float32 product") {
    const std::size_t m = 5, n = 700, k = 64;  // wide: the dispatcher splits by columns
    const std::vector<float> A = random_buffer(m * k, 3), Bf = random_buffer(n * k, 4);
    std::vector<std::uint16_t> B16(Bf.size());
    std::vector<float> wide(Bf.size());
    for (std::size_t i = 0; i < Bf.size(); ++i) B16[i] = attn::float_to_half(Bf[i]), wide[i] = attn::half_to_float(B16[i]);
    for (bool transposed : {false, true}) {
        const std::size_t rows = transposed ? n : k, cols = transposed ? k : n;
        std::vector<float> C16(m * n), C32(m * n);
        attn::matmul_into({A.data(), m, k, k}, attn::HalfMatrixView{B16.data(), rows, cols, cols, false}, transposed,
                          C16.data(), n);
        attn::matmul_into({A.data(), m, k, k}, attn::MatrixView{wide.data(), rows, cols, cols}, transposed, C32.data(), n);
        CHECK(std::memcmp(C16.data(), C32.data(), C16.size() * sizeof(float)) == 0);
    }
}
