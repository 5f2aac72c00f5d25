// The fake arch (tests/fake_arch/fake.cpp, one row of src/arch/arches.def under
// ATTN_FAKE_ARCH), built only into the ASan build (`make test-sanitize`, `make test-fake-arch`):
// dispatch lists it from the table alone, and its kernels agree with the scalar ones. The
// other unit tests of this build run every kernel test on it too (they iterate the
// supported arches).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arch_kernels.hpp"
#include "attn/ops.hpp"
#include "arch/kernel_table.hpp"

TEST_CASE("fake arch: dispatch lists it, after scalar, by its name") {
    const auto arches = attn::all_arches();
    REQUIRE(arches.size() >= 2);
    CHECK(std::string(attn::arch_name(arches[1])) == "fake");
    CHECK(attn::arch_choices(", ").rfind("auto, scalar, fake, ", 0) == 0);
    REQUIRE(attn::arch_supported(arches[1]));  // its CPU predicate is an AVX2 CPU's (this machine)
    CHECK(attn::parse_arch("fake") == arches[1]);
    CHECK(attn::best_arch() != arches[1]);  // rows go from the plainest to the widest
    bool listed = false;
    for (const auto& k : attn::test::supported_arch_kernels())
        if (std::string(k.name) == "fake") listed = k.lanes == 4 && k.fma_peak && k.read_sum;
    CHECK(listed);
}

TEST_CASE("fake arch: its GEMM and softmax agree with scalar") {
    const auto& fake = attn::kernels::table_of(attn::parse_arch("fake"));
    const auto& scalar = attn::kernels::table_of(attn::Arch::scalar);
    REQUIRE(fake.arch != scalar.arch);
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const std::size_t m = 13, n = 29, k = 17;
    std::vector<float> A(m * k), B(k * n), C1(m * n), C2(m * n);
    for (float& x : A) x = dist(gen);
    for (float& x : B) x = dist(gen);
    fake.gemm({A.data(), k, B.data(), n, false, C1.data(), n, m, n, k});
    scalar.gemm({A.data(), k, B.data(), n, false, C2.data(), n, m, n, k});
    for (std::size_t i = 0; i < m * n; ++i) CHECK(C1[i] == doctest::Approx(C2[i]).epsilon(1e-5));
    std::vector<float> S1(C1), S2(C2);
    S1[3] = S2[3] = -INFINITY;
    CHECK(fake.softmax_rows(S1.data(), n, m, n, attn::kernels::MaskedRowPolicy::zero) ==
          scalar.softmax_rows(S2.data(), n, m, n, attn::kernels::MaskedRowPolicy::zero));
    for (std::size_t i = 0; i < m * n; ++i) CHECK(S1[i] == doctest::Approx(S2[i]).epsilon(1e-5));
}
