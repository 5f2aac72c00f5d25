#include "attn/numpy_rng.hpp"

#include <cmath>

namespace attn {

NumpyGenerator::NumpyGenerator(std::uint32_t seed) : engine_(seed) {}

double NumpyGenerator::random_sample() noexcept {
    const std::uint32_t a = std::uint32_t(engine_()) >> 5, b = std::uint32_t(engine_()) >> 6;
    return (double(a) * 67108864.0 + double(b)) / 9007199254740992.0;
}

double NumpyGenerator::gauss() noexcept {
    if (has_gauss_) {
        has_gauss_ = false;
        return gauss_;
    }
    // A point uniform in the unit disc (not its centre), then both coordinates scaled: the
    // second is returned now, the first kept for the next call (legacy_gauss in NumPy).
    double x1, x2, r2;
    do {
        x1 = 2.0 * random_sample() - 1.0;
        x2 = 2.0 * random_sample() - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss_ = f * x1;
    has_gauss_ = true;
    return f * x2;
}

void NumpyGenerator::normal_fill(double* out, std::size_t n, double loc, double scale) noexcept {
    for (std::size_t i = 0; i < n; ++i) out[i] = loc + scale * gauss();
}

void NumpyGenerator::uniform_fill(double* out, std::size_t n, double low, double high) noexcept {
    const double range = high - low;
    for (std::size_t i = 0; i < n; ++i) out[i] = low + range * random_sample();
}

}  // namespace attn
