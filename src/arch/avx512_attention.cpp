// The avx512 exp / softmax / fused attention: instances of the templates in
// kernels/attention_impl.hpp for xsimd::avx512f, compiled with that ISA's flags (Makefile).
// GCC 12's AVX-512 intrinsics initialise their "undefined" operand from itself
// (_mm512_undefined_ps), which -Wmaybe-uninitialized reports once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "kernels/attention_impl.hpp"

namespace attn::kernels::avx512 {

using Arch = xsimd::avx512f;

void exp(const float* x, float* y, std::size_t n) { attention_impl::exp_array<Arch>(x, y, n); }

std::size_t softmax_rows(float* S, std::size_t lds, std::size_t rows, std::size_t cols, MaskedRowPolicy policy) {
    return attention_impl::softmax_rows<Arch>(S, lds, rows, cols, policy);
}

std::size_t flash(const FlashArgs& a) { return attention_impl::flash<Arch>(a); }

std::size_t score_epilogue(const ScoreEpilogueArgs& a) { return attention_impl::score_epilogue<Arch>(a); }

void decode_chunk(const DecodeArgs& a) { attention_impl::decode_chunk<Arch>(a); }

}  // namespace attn::kernels::avx512
