// Positions added to embeddings before attention, which by itself is permutation-equivariant:
// Vaswani et al.'s sinusoidal table.
#pragma once
#include <cstddef>

#include "attn/matrix.hpp"

namespace attn {

// The T×D table of "Attention Is All You Need" §3.5: row p (position first + p), column 2i is
// sin(p / base^(2i/D)) and column 2i+1 is cos of the same angle (an odd D ends with a sine).
// Computed in double and rounded once to float32; implementations that compute the angle in
// float32 (d2l, the Annotated Transformer) differ from it by about 1e-7 times the position.
// InputError when base is not finite and > 1.
inline constexpr double sinusoidal_base = 10000.0;  // the paper's
Matrix sinusoidal_positions(std::size_t T, std::size_t D, double base = sinusoidal_base, std::size_t first = 0);

}  // namespace attn
