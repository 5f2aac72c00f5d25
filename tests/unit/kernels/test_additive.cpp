// The additive score kernel (kernels/additive.hpp, kernel_api.hpp's additive_scores) on every
// arch this machine runs against a float64 sum written from the definition
// s = Σ_c v_a[c]·tanh(q'[c] + k'[c]) on awkward shapes: h = 1, a lane either side of a vector,
// keys 1, lanes ± 1, 4·lanes + 3, odd strides and a strided v_a; and the same bits for any
// split of rows or keys (each cell computed alike, the property the threads rely on).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arch_kernels.hpp"

namespace {

struct Data {
    std::size_t m, n, h, ldq, ldkt, va_stride;
    std::vector<float> q, kt, va;
};

Data make(std::size_t m, std::size_t n, std::size_t h, unsigned seed) {
    Data d{m, n, h, h + 3, n + 5, 2, {}, {}, {}};
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    d.q.resize(m * d.ldq), d.kt.resize(h * d.ldkt), d.va.resize(h * d.va_stride);
    for (float& x : d.q) x = dist(rng);
    for (float& x : d.kt) x = dist(rng);
    for (float& x : d.va) x = dist(rng);
    return d;
}

attn::kernels::AdditiveArgs args(const Data& d, float* s, std::size_t lds) {
    attn::kernels::AdditiveArgs a{};
    a.Qp = d.q.data(), a.ldq = d.ldq, a.KpT = d.kt.data(), a.ldkt = d.ldkt;
    a.va = d.va.data(), a.va_stride = d.va_stride, a.h = d.h;
    a.S = s, a.lds = lds, a.m = d.m, a.n = d.n;
    return a;
}

}  // namespace

TEST_CASE("additive scores: every arch against the float64 definition on awkward shapes") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        const std::size_t W = k.lanes;
        unsigned seed = 1;
        for (std::size_t h : {std::size_t(1), W > 1 ? W - 1 : 2, W, W + 1, std::size_t(33)})
            for (std::size_t n : {std::size_t(1), W > 1 ? W - 1 : 2, W + 1, 4 * W, 4 * W + 3, std::size_t(70)})
                for (std::size_t m : {std::size_t(1), std::size_t(3)}) {
                    INFO("arch " << std::string(k.name) << " m " << m << " n " << n << " h " << h);
                    const Data d = make(m, n, h, seed++);
                    const std::size_t lds = n + 1;
                    std::vector<float> s(m * lds, NAN);
                    k.additive_scores(args(d, s.data(), lds));
                    std::size_t bad = 0;
                    double worst = 0;
                    for (std::size_t i = 0; i < m; ++i)
                        for (std::size_t j = 0; j < n; ++j) {
                            double want = 0, mass = 0;
                            for (std::size_t c = 0; c < h; ++c) {
                                const double v = d.va[c * d.va_stride];
                                want += v * std::tanh(double(d.q[i * d.ldq + c]) + double(d.kt[c * d.ldkt + j]));
                                mass += std::fabs(v);
                            }
                            // tanh ≤ 7 ULP (kernels/tanh.hpp) and one rounding per step of the sum.
                            const double err = std::fabs(double(s[i * lds + j]) - want);
                            worst = std::max(worst, err / mass);
                            bad += !(err <= (8.5e-7 + double(h) * 1.2e-7) * mass);
                        }
                    INFO("worst error / Σ|v_a| " << worst);
                    CHECK(bad == 0);
                    for (std::size_t i = 0; i < m; ++i) CHECK(s[i * lds + n] != s[i * lds + n]);  // past n: untouched
                }
    }
}

TEST_CASE("additive scores: the same bits for any split of rows and keys") {
    for (const auto& k : attn::test::supported_arch_kernels()) {
        const std::size_t W = k.lanes, n = 4 * W + 3 + W, m = 5;
        const Data d = make(m, n, 13, 99);
        std::vector<float> whole(m * n);
        k.additive_scores(args(d, whole.data(), n));
        for (std::size_t i0 : {std::size_t(0), std::size_t(2), std::size_t(4)})
            for (std::size_t j0 : {std::size_t(0), std::size_t(1), W + 1, 4 * W})
                for (std::size_t j1 : {j0 + 1, n}) {
                    INFO("arch " << std::string(k.name) << " rows " << i0 << ": keys " << j0 << ":" << j1);
                    std::vector<float> part((m - i0) * n);
                    attn::kernels::AdditiveArgs a = args(d, part.data(), n);
                    a.Qp += i0 * d.ldq, a.m = m - i0;
                    a.KpT += j0, a.n = j1 - j0;
                    k.additive_scores(a);
                    bool same = true;
                    for (std::size_t i = i0; i < m; ++i)
                        same = same && std::memcmp(&part[(i - i0) * n], &whole[i * n + j0], (j1 - j0) * sizeof(float)) == 0;
                    CHECK(same);
                }
    }
}
