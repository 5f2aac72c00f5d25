// PyTorch's CPU random number generator, bit for bit: torch.manual_seed(S) followed by
// torch.randn(shape) / torch.rand(shape) / tensor.normal_(mean, std) / tensor.uniform_(a, b)
// on float32 tensors. The facts (MT19937, the double Box–Muller path with its carried cache
// for fewer than 16 elements, the 16-element blocks with the tail rule, the AVX2 kernel's
// float32 polynomials and fused multiply-adds) are written out where they are implemented, in src/experiments/torch_rng.cpp; the
// implementation (src/experiments/torch_rng.cpp) is compiled with -ffp-contract=off and writes every
// fused operation explicitly, so its bits do not depend on the compiler flags of the rest.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "attn/matrix.hpp"

namespace attn {

// Which of PyTorch's normal kernels to reproduce for tensors of 16 elements or more.
//  avx2:   x86 builds of torch (GCC), every AVX2 or AVX-512 CPU — the default;
//  scalar: torch's DEFAULT capability (ARM builds, or ATEN_CPU_CAPABILITY=default) using
//          this C library's logf/cosf/sinf (bit-exact only with the same libm as the torch).
enum class TorchKernel { avx2, scalar };

const char* torch_kernel_name(TorchKernel kernel) noexcept;
// "avx2" or "scalar"; UsageError otherwise.
TorchKernel parse_torch_kernel(std::string_view name);

// Number of elements of a tensor of this shape (1 for an empty shape, like a 0-d tensor);
// UsageError when the product overflows std::size_t.
std::size_t shape_numel(const std::vector<std::size_t>& shape);

class TorchGenerator {
public:
    // Same as torch.manual_seed(seed): a Python int in [-2^63, 2^64) reduced mod 2^64 (pass a
    // negative seed as its two's complement, e.g. std::uint64_t(-1)).
    explicit TorchGenerator(std::uint64_t seed, TorchKernel kernel = TorchKernel::avx2);

    // Reseeds: resets the MT19937 state and drops the cached Box–Muller sample.
    void manual_seed(std::uint64_t seed);
    TorchKernel kernel() const noexcept { return kernel_; }
    void set_kernel(TorchKernel kernel) noexcept { kernel_ = kernel; }

    // torch.randn(shape) then .mul(std).add(mean) as normal_(mean, std) does it: the values
    // of a contiguous float32 tensor in row-major order. The state carries across calls.
    std::vector<float> randn(const std::vector<std::size_t>& shape, double mean = 0.0, double std = 1.0);
    // torch.rand(shape) / uniform_(low, high): one 32-bit draw per element, row-major.
    std::vector<float> rand(const std::vector<std::size_t>& shape, double low = 0.0, double high = 1.0);

    // The same on n contiguous floats (a tensor of n elements, whatever its shape).
    void normal_fill(float* out, std::size_t n, double mean = 0.0, double std = 1.0);
    void uniform_fill(float* out, std::size_t n, double low = 0.0, double high = 1.0);

    // torch.randn(rows, cols) / torch.rand(rows, cols) as a Matrix.
    Matrix randn_matrix(std::size_t rows, std::size_t cols);
    Matrix rand_matrix(std::size_t rows, std::size_t cols);

    // The raw engine: generator.random() and random64() (first draw = high half).
    std::uint32_t random() noexcept;
    std::uint64_t random64() noexcept;
    // The sine half of the last serial Box–Muller pair, if not consumed yet.
    std::optional<double> cached_normal() const noexcept { return next_double_normal_; }

private:
    void twist() noexcept;
    float uniform_float() noexcept;  // k / 2^24 from the low 24 bits of one draw
    double uniform_double() noexcept;  // from the low 53 bits of random64()
    double serial_normal() noexcept;   // one double N(0,1) value, using/refilling the cache
    void block16(float* d, float mean, float std) const noexcept;

    std::array<std::uint32_t, 624> state_{};
    int left_ = 1, next_ = 0;
    std::optional<double> next_double_normal_;
    TorchKernel kernel_ = TorchKernel::avx2;
};

}  // namespace attn
