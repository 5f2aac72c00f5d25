// The resolved problem of one batched_attention call (attn/multihead.hpp): every input as
// (B, H, T, d) with broadcast strides, the K/V head of each query head, the ranges, the scale
// and the result's rank, worked out once by resolve() and read by every schedule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "attn/multihead.hpp"

namespace attn::engine {

// A view of rank 2..4 read as (B, H, T, d); a size-1 dimension gets stride 0 (broadcast).
// K and V may hold float16 elements (type); every other input is float32.
struct View4 {
    const float* data = nullptr;
    ElementType type = ElementType::f32;
    std::size_t B = 1, H = 1, T = 0, d = 0;
    std::size_t sB = 0, sH = 0, sT = 0;
    Shape shape;  // as given, for messages

    const float* at(std::size_t b, std::size_t h) const noexcept { return data + b * sB + h * sH; }
    // (b, h) of a view of any element type.
    const void* element_at(std::size_t b, std::size_t h) const noexcept {
        return reinterpret_cast<const char*>(data) + (b * sB + h * sH) * element_size(type);
    }
};

// The mask's bits as (B, H, T) rows of words, broadcast dimensions with stride 0.
struct MaskWords {
    const std::uint64_t* data = nullptr;
    std::size_t sB = 0, sH = 0, sT = 0;
    const std::uint64_t* at(std::size_t b, std::size_t h) const noexcept { return data + b * sB + h * sH; }
};

// The resolved problem: every input as (B, H, T, d) with broadcast strides, and the ranges.
struct Problem {
    View4 q, k, v, mask, bias;  // mask: its shape only (the kernels read mask_words)
    MaskWords mask_words;
    std::shared_ptr<const MaskBits> packed_mask;  // when the caller gave only the float mask
    std::size_t mask_rank = 0;
    bool has_mask = false, has_bias = false;
    std::size_t B = 1, H = 1, G = 1, Tq = 0, Tk = 0, dk = 0, dv = 0;
    std::size_t b0 = 0, b1 = 1, r0 = 0, r1 = 0;
    float scale = 1.0f;
    bool batch_dim = false, head_dim = false;

    std::size_t group() const noexcept { return H / G; }
    std::size_t kv_head(std::size_t h) const noexcept { return h / group(); }
    std::size_t key_limit(const AttentionSpec& s, std::size_t b) const noexcept {
        return s.lengths.empty() ? no_key_limit : s.lengths[b];
    }
    // Shape ([B',] [H,] rows, cols) of a result.
    Shape result_shape(bool with_heads, std::size_t rows, std::size_t cols) const {
        std::vector<std::size_t> dims;
        if (batch_dim) dims.push_back(b1 - b0);
        if (with_heads && head_dim) dims.push_back(H);
        dims.push_back(rows);
        dims.push_back(cols);
        return Shape(dims);
    }
};

Problem resolve(const TensorView& Q, const KVView& K, const KVView& V, const AttentionSpec& spec);

// Output slice of (batch item b, head h) in a ([B',] [H,] rows, cols) result.
float* slice_of(Tensor& t, const Problem& p, std::size_t b, std::size_t h);

}  // namespace attn::engine
