#include "attn/positions.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn {

Matrix sinusoidal_positions(std::size_t T, std::size_t D, double base, std::size_t first) {
    if (!(std::isfinite(base) && base > 1.0))
        throw InputError("the base of sinusoidal positions must be a finite number above 1, not " + std::to_string(base));
    Matrix table(T, D);
    for (std::size_t c = 0; c < D; c += 2) {
        const double frequency = std::pow(base, -double(c) / double(D));  // 1 / base^(2i/D), c = 2i
        for (std::size_t p = 0; p < T; ++p) {
            const double angle = double(first + p) * frequency;
            table(p, c) = float(std::sin(angle));
            if (c + 1 < D) table(p, c + 1) = float(std::cos(angle));
        }
    }
    return table;
}

}  // namespace attn
