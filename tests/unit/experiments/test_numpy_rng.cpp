// NumPy's legacy generator against NumPy itself: data/rng/numpy_legacy.inc holds the float64
// bit patterns np.random returned (seed, then randn/rand/normal/uniform calls in order; see
// data/rng/make_numpy_reference.py), compared bit for bit.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attn/numpy_rng.hpp"

namespace {

struct Call {
    char kind;  // 'n': randn / normal(a, b); 'u': rand / uniform(a, b)
    std::size_t n;
    double a, b;
    std::vector<std::uint64_t> bits;
};
struct Sequence {
    std::string name;
    std::uint32_t seed;
    std::vector<Call> calls;
};

const std::vector<Sequence> numpy_sequences = {
#include "../../../data/rng/numpy_legacy.inc"
};

std::uint64_t bits_of(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

}  // namespace

TEST_CASE("numpy generator: np.random.seed, randn/rand/normal/uniform bit for bit") {
    REQUIRE(numpy_sequences.size() >= 10);
    std::size_t values = 0;
    for (const Sequence& s : numpy_sequences) {
        attn::NumpyGenerator gen(s.seed);
        for (std::size_t c = 0; c < s.calls.size(); ++c) {
            const Call& call = s.calls[c];
            REQUIRE(call.bits.size() == call.n);
            std::vector<double> v(call.n);
            if (call.kind == 'n') gen.normal_fill(v.data(), v.size(), call.a, call.b);
            else gen.uniform_fill(v.data(), v.size(), call.a, call.b);
            for (std::size_t i = 0; i < v.size(); ++i) {
                INFO(s.name << " call " << c << " value " << i);
                CHECK(bits_of(v[i]) == call.bits[i]);
            }
            values += v.size();
        }
    }
    CHECK(values > 200);
}

TEST_CASE("numpy generator: the second Gaussian of a pair is kept for the next call") {
    // randn(1) twice gives the pair randn(2) gives at once: the cache crosses calls.
    attn::NumpyGenerator one(5), two(5);
    double a[2], b[1], c[1];
    two.normal_fill(a, 2);
    one.normal_fill(b, 1);
    one.normal_fill(c, 1);
    CHECK(bits_of(a[0]) == bits_of(b[0]));
    CHECK(bits_of(a[1]) == bits_of(c[0]));
}
