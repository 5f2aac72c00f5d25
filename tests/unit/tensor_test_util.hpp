// Tensor helpers shared by the unit tests of the batched / multi-head engine.
#pragma once
#include <cstddef>
#include <random>
#include <vector>

#include "attn/mask_bits.hpp"
#include "attn/ops.hpp"
#include "attn/tensor.hpp"
#include "arch/kernel_table.hpp"

namespace test_util {

// Normal(0, sd) values in every element (padding stays 0).
inline attn::Tensor random_tensor(const attn::Shape& shape, std::mt19937& rng, float sd = 1.0f) {
    attn::Tensor t(shape);
    std::normal_distribution<float> dist(0.0f, sd);
    for (std::size_t s = 0; s < t.slices(); ++s)
        for (std::size_t r = 0; r < t.rows(); ++r)
            for (std::size_t c = 0; c < t.cols(); ++c) t.slice_data(s)[r * t.row_stride() + c] = dist(rng);
    return t;
}

// The bits of a rows×cols float mask with row stride ld (what the kernels read).
inline attn::MaskBits pack_mask(const float* data, std::size_t rows, std::size_t cols, std::size_t ld) {
    attn::TensorView v;
    v.data = data;
    v.shape = attn::Shape{rows, cols};
    v.strides[0] = ld, v.strides[1] = 1;
    return attn::MaskBits(v);
}

// Every compiled kernel set this machine can run.
inline std::vector<attn::Arch> supported_arches() {
    std::vector<attn::Arch> out;
    for (const auto& k : attn::kernels::compiled_kernel_sets())
        if (attn::arch_supported(k.arch)) out.push_back(k.arch);
    return out;
}

// The (b, h) matrix of a (B, H, T, d) tensor, a batch or head dimension of 1 broadcast.
inline attn::Matrix slice_bh(const attn::Tensor& t, std::size_t b, std::size_t h) {
    const std::size_t B = t.shape().back(4), H = t.shape().back(3);
    return t.slice_matrix((B == 1 ? 0 : b) * H + (H == 1 ? 0 : h));
}

// Restores the best kernel set and the default thread count when a test ends, however it ends.
struct ArchGuard {
    ~ArchGuard() {
        attn::set_arch(attn::best_arch());
        attn::set_threads(0);
    }
};

// Same shape and the same bits in every element (padding ignored): attn/tensor.hpp's.
using attn::same_bits;

}  // namespace test_util
