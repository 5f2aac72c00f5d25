// Run-time arch selection over the arch table (runtime/arch.cpp, arch/arches.def) and the
// threaded dispatch in attention/ops.cpp.
#include <doctest/doctest.h>

#include "attn/multihead.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"
#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "oracle/reference.hpp"
#include "arch/arch_table.hpp"
#include "arch_kernels.hpp"
#include "kernels/kernel_api.hpp"
#include "runtime/cpu_features.hpp"
#include "runtime/parallel.hpp"

namespace {

attn::Matrix random_matrix(std::size_t rows, std::size_t cols, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    attn::Matrix M(rows, cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) M(r, c) = dist(gen);
    return M;
}

bool bitwise_equal(const attn::Matrix& a, const attn::Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (std::size_t r = 0; r < a.rows(); ++r)
        if (std::memcmp(a.row(r), b.row(r), a.cols() * sizeof(float)) != 0) return false;
    return true;
}

// Restores the process-wide settings a test changes.
struct SettingsGuard {
    attn::Arch arch = attn::current_arch();
    ~SettingsGuard() {
        attn::set_arch(arch);
        attn::set_threads(0);
    }
};

}  // namespace

TEST_CASE("dispatch: scalar is always available, best_arch is supported, names round-trip") {
    CHECK(attn::arch_supported(attn::Arch::scalar));
    CHECK(attn::arch_supported(attn::best_arch()));
    CHECK(attn::parse_arch("auto") == attn::best_arch());
    for (attn::Arch a : attn::all_arches()) {
        if (attn::arch_supported(a)) {
            CHECK(attn::parse_arch(attn::arch_name(a)) == a);
        } else {
            CHECK_THROWS_AS(attn::parse_arch(attn::arch_name(a)), attn::UsageError);
            CHECK_THROWS_AS(attn::set_arch(a), attn::UsageError);
        }
    }
    CHECK_THROWS_AS(attn::parse_arch("sse9"), attn::UsageError);
}

TEST_CASE("dispatch: the arch API iterates the table, row by row") {
    const auto arches = attn::all_arches();
    REQUIRE(arches.size() == attn::arch_table::row_count);
    std::string choices = "auto";
    std::size_t i = 0;
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags)                                              \
    CHECK(arches[i] == attn::arch_table::arch_of(attn::arch_table::row::name));                 \
    CHECK(std::string(attn::arch_name(arches[i])) == #name);                                    \
    CHECK(attn::arch_supported(arches[i]) == (attn::arch_table::compiled[i] && attn::cpu_features().cpu)); \
    choices += (i + 1 < arches.size() ? ", " : " or ") + std::string(#name);                      \
    ++i;
#include "arch/arches.def"
#undef ATTN_ARCH
    CHECK(attn::arch_choices(" or ") == choices);
    // The best arch is the last row this CPU runs.
    attn::Arch best = attn::Arch::scalar;
    for (attn::Arch a : arches)
        if (attn::arch_supported(a)) best = a;
    CHECK(attn::best_arch() == best);
}

TEST_CASE("dispatch: the CPU detection agrees with the compiler's view of this CPU") {
    // attn's own CPUID and XCR0 reading against libgcc's (which also checks the OS state),
    // feature by feature; the table's cpu_predicate column names these members.
    const attn::CpuFeatures& cpu = attn::cpu_features();
    CHECK(cpu.always);
#if defined(__x86_64__)
    const bool avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    CHECK(cpu.avx2_fma_f16c == avx2_fma);
    CHECK(cpu.avx512_f_dq_vl_bw == (avx2_fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                                    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")));
    CHECK_FALSE(cpu.aarch64_asimd);
#elif defined(__aarch64__)
    CHECK(cpu.aarch64_asimd);
    CHECK_FALSE(cpu.avx2_fma_f16c);
    CHECK_FALSE(cpu.avx512_f_dq_vl_bw);
#endif
}

TEST_CASE("dispatch: set_arch and set_threads change what runs") {
    SettingsGuard guard;
    attn::set_arch(attn::Arch::scalar);
    CHECK(attn::current_arch() == attn::Arch::scalar);
    attn::set_threads(3);
    CHECK(attn::current_threads() == 3);
    attn::set_threads(0);
    CHECK(attn::current_threads() == attn::online_cores());
}

TEST_CASE("dispatch: matmul rejects mismatched inner dimensions") {
    attn::Matrix A(2, 3), B(4, 5);
    CHECK_THROWS_AS(attn::matmul(A, B), attn::InputError);
    CHECK_THROWS_AS(attn::matmul(A, B, /*transpose_b=*/true), attn::InputError);
    attn::Matrix Z = attn::matmul(attn::Matrix(3, 0), attn::Matrix(0, 2));
    CHECK(Z.rows() == 3);
    CHECK(Z.cols() == 2);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 2; ++c) CHECK(Z(r, c) == 0.0f);
}

TEST_CASE("dispatch: every arch, threads 1/2/3 give bitwise-identical matmul, softmax and attention") {
    SettingsGuard guard;
    // 203 rows: split by rows; 5 rows × 700 columns: split by columns.
    const attn::Matrix A = random_matrix(203, 77, 1), B = random_matrix(77, 150, 2), Bt = random_matrix(150, 77, 3);
    const attn::Matrix Aw = random_matrix(5, 977, 7), Bw = random_matrix(977, 700, 8), Bwt = random_matrix(700, 977, 9);
    const attn::Matrix Q = random_matrix(150, 33, 4), K = random_matrix(141, 33, 5), V = random_matrix(141, 19, 6);
    for (const auto& kernel_set : attn::test::supported_arch_kernels()) {
        const attn::Arch arch = kernel_set.arch;
        attn::set_arch(arch);
        INFO("arch " << std::string(attn::arch_name(arch)));
        attn::Matrix ab1, abt1, sm1, ctx1, wide1, widet1;
        for (unsigned threads : test_util::thread_counts({1u, 2u, 3u})) {
            CAPTURE(threads);
            attn::set_threads(threads);
            attn::Matrix ab = attn::matmul(A, B), abt = attn::matmul(A, Bt, true);
            attn::Matrix wide = attn::matmul(Aw, Bw), widet = attn::matmul(Aw, Bwt, true);
            attn::Matrix sm = ab;
            attn::normalize_rows(sm, attn::Normalization::softmax, attn::MaskedRowPolicy::zero);
            attn::AttentionSpec spec;
            spec.scale = 0.17f;
            spec.causal = attn::Causal::bottom_right;
            attn::Matrix ctx =
                attn::batched_attention(attn::view_of(Q), attn::view_of(K), attn::view_of(V), spec).context.to_matrix();
            if (threads == 1) {
                ab1 = ab, abt1 = abt, sm1 = sm, ctx1 = ctx, wide1 = wide, widet1 = widet;
            } else {
                CHECK(bitwise_equal(ab, ab1));
                CHECK(bitwise_equal(abt, abt1));
                CHECK(bitwise_equal(sm, sm1));
                CHECK(bitwise_equal(ctx, ctx1));
                CHECK(bitwise_equal(wide, wide1));
                CHECK(bitwise_equal(widet, widet1));
            }
        }
    }
}

TEST_CASE("parallel_for: every block exactly once, any thread count; nesting; exceptions") {
    SettingsGuard guard;
    for (unsigned threads : test_util::thread_counts({1u, 2u, 3u, 5u})) {
        attn::set_threads(threads);
        for (std::size_t count : {0u, 1u, 2u, 7u, 100u}) {
            std::vector<std::atomic<int>> hits(count);
            attn::parallel_for(count, [&](std::size_t b) {
                hits[b].fetch_add(1);
                std::atomic<int> inner{0};  // a nested call runs (serially) and completes
                attn::parallel_for(3, [&](std::size_t) { inner.fetch_add(1); });
                CHECK(inner.load() == 3);
            });
            for (std::size_t b = 0; b < count; ++b) CHECK(hits[b].load() == 1);
        }
        CHECK_THROWS_AS(attn::parallel_for(10, [](std::size_t b) {
                            if (b == 6) throw attn::RuntimeFailure("block 6");
                        }),
                        attn::RuntimeFailure);
        // The pool is still usable after an exception.
        std::atomic<std::size_t> sum{0};
        attn::parallel_for(10, [&](std::size_t b) { sum.fetch_add(b); });
        CHECK(sum.load() == 45);
    }
}

// The pool's threads wait for a job by spinning for a while, then on a condition variable
// (no spinning with more threads than cores). Jobs that follow each other at once and of
// varying width (threads a job does not want skip it), and jobs after an idle pause longer
// than the spin (every thread asleep), each run every block exactly once.
TEST_CASE("parallel_for: back-to-back jobs of varying width, and jobs after the threads slept") {
    SettingsGuard guard;
    for (unsigned threads : test_util::thread_counts({2u, 3u, 5u})) {
        attn::set_threads(threads);
        for (int round = 0; round < 200; ++round) {
            const std::size_t count = round % 3 == 0 ? 2 : round % 3 == 1 ? 1 + round % 7 : 64;
            std::vector<std::atomic<int>> hits(count);
            attn::parallel_for(count, [&](std::size_t b) { hits[b].fetch_add(1); });
            int wrong = 0;
            for (std::size_t b = 0; b < count; ++b) wrong += hits[b].load() != 1;
            REQUIRE(wrong == 0);
            if (round % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(3));
        }
    }
}

TEST_CASE("dispatch: set_arch(X) really runs X's kernel") {
    // attn::matmul under set_arch(X) must reproduce X's own gemm bit for bit. Scalar
    // (sequential float sums) and the SIMD kernels (FMA, blocked order) round differently on
    // random data, so the check can tell the kernels apart.
    SettingsGuard guard;
    const std::size_t m = 19, n = 37, k = 301;
    const attn::Matrix A = random_matrix(m, k, 11), B = random_matrix(k, n, 12);
    const std::vector<attn::test::ArchKernels> kernels = attn::test::supported_arch_kernels();
    std::vector<attn::Matrix> direct_results;
    for (const auto& d : kernels) {
        INFO("arch " << std::string(attn::arch_name(d.arch)));
        attn::Matrix direct(m, n);
        d.gemm({A.data(), A.stride(), B.data(), B.stride(), false, direct.data(), direct.stride(), m, n, k});
        attn::set_arch(d.arch);
        for (unsigned threads : {1u, 2u}) {
            attn::set_threads(threads);
            CHECK(bitwise_equal(attn::matmul(A, B), direct));
        }
        direct_results.push_back(std::move(direct));
    }
    // The check discriminates: the scalar result differs from each SIMD one.
    for (std::size_t i = 1; i < direct_results.size(); ++i) CHECK_FALSE(bitwise_equal(direct_results[0], direct_results[i]));
}

TEST_CASE("dispatch: the arch table holds every arch this CPU runs, scalar first, each once") {
    const auto table = attn::kernels::compiled_kernel_sets();
    REQUIRE(!table.empty());
    CHECK(table[0].arch == attn::Arch::scalar);
    for (attn::Arch a : attn::all_arches()) {
        std::size_t entries = 0;
        for (const auto& k : table) entries += k.arch == a;
        CHECK(entries <= 1);
        CHECK(entries == std::size_t(attn::arch_table::compiled[attn::arch_table::index_of(a)]));
        if (attn::arch_supported(a)) {
            CHECK(entries == 1);
            CHECK(attn::kernels::table_of(a).arch == a);
        }
    }
    // Each compiled set has its row's lanes.
#define ATTN_ARCH(name, row_lanes, tag, host, cpu, flags)                                  \
    if (attn::arch_table::compiled[std::size_t(attn::arch_table::row::name)])            \
        CHECK(attn::kernels::table_of(attn::arch_table::arch_of(attn::arch_table::row::name)).lanes == row_lanes);
#include "arch/arches.def"
#undef ATTN_ARCH
}
