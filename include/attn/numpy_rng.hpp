// NumPy's legacy generator, bit for bit: np.random.seed(S) followed by np.random.randn /
// np.random.rand / np.random.normal(loc, scale) / np.random.uniform(low, high), the RandomState
// calls the tutorials make. MT19937 seeded by init_genrand (std::mt19937 is the same engine
// with the same seeding); a double is (a >> 5)·2^26 + (b >> 6) over 2^53 from two 32-bit draws;
// a Gaussian comes from the polar Box–Muller method, which makes two and keeps the second for
// the next call. NumPy returns float64: the values here are those doubles.
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>

namespace attn {

class NumpyGenerator {
public:
    // np.random.seed(seed): NumPy takes an integer seed in [0, 2^32 - 1] only.
    explicit NumpyGenerator(std::uint32_t seed);

    // One value of np.random.random_sample() (= rand): [0, 1), 53 random bits.
    double random_sample() noexcept;
    // One value of np.random.standard_normal() (= randn).
    double gauss() noexcept;
    // np.random.normal(loc, scale, n) / np.random.uniform(low, high, n), each value as NumPy
    // computes it in double (loc + scale·g; low + (high − low)·u).
    void normal_fill(double* out, std::size_t n, double loc = 0.0, double scale = 1.0) noexcept;
    void uniform_fill(double* out, std::size_t n, double low = 0.0, double high = 1.0) noexcept;

private:
    std::mt19937 engine_;
    bool has_gauss_ = false;
    double gauss_ = 0.0;
};

}  // namespace attn
