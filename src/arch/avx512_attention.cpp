// PLACEHOLDER: forwards to the scalar kernels until the avx512 versions are written.
#include "kernels/kernel_api.hpp"

namespace attn::kernels::avx512 {
void exp(const float* x, float* y, std::size_t n) { scalar::exp(x, y, n); }
std::size_t softmax_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols, MaskedRowPolicy policy) {
    return scalar::softmax_rows(S, lds, rows, cols, policy);
}
std::size_t flash(const FlashArgs& a) { return scalar::flash(a); }
}  // namespace attn::kernels::avx512
