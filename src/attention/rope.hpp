// RoPE (Su et al., RoFormer; HF Llama's apply_rotary_pos_emb), the engine's pre-pass: Q and K of a
// resolved problem rotated per head before any kernel runs (attn/problem.hpp's Rope).
// Its cost, T=4096 d=64, 1 head (a small program timing with_rope, 1 thread): fresh pages for
// the rotated Q and K (480 faults, 6-15 ms a call on this virtualised machine), glibc's sincosf
// (0.85 ms), the rotation (0.31 ms). The storage and the angles are kept by the calling thread
// for its next call (RopeStore, rope.cpp's KeptAngles): 0.33 ms a call. build/attn bench --op
// attention --sizes 4096 --d 64 --threads 2 --rope 10000 --repeat 21, ratio to plain attention,
// load 5-10: main 1.26-1.48 (median 1.35, 22 runs), now 0.96-1.11 (median 1.04, 20 runs).
#pragma once
#include <cstddef>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/problem.hpp"
#include "attn/tensor.hpp"

namespace attn::engine {

// inv_freq[k] = 1/theta^(2k/N), k < N/2, in float32 as HF computes it:
// 1.0 / (base ** (torch.arange(0, N, 2).float() / N)).
// With scaling (attn/problem.hpp's RopeScaling), the frequencies rescaled as HF's
// _compute_linear_scaling_rope_parameters / _compute_llama3_parameters /
// _compute_yarn_parameters / _compute_longrope_parameters do (in float32); dynamic must go
// through rope_at_length first.
std::vector<float> rope_inv_freq(float theta, std::size_t n, const RopeScaling& scaling = {});

// The RoPE of a sequence of `positions` positions: dynamic NTK scaling (HF's
// _compute_dynamic_ntk_parameters, at seq_len = max(positions, original_max_positions), as its
// dynamic_rope_update computes it for a forward pass over positions 0 … positions − 1) as plain
// RoPE with a larger theta; longrope with long_factor in use past original_max_positions
// (longrope_frequency_update); any other rope as it is.
Rope rope_at_length(Rope rope, std::size_t positions);

// cos and sin of the angles float32(pos)·inv_freq[k] (a float32 product, as HF's), each then
// multiplied by scale (yarn's attention_factor), for the positions [first, first + count), N/2
// of each per position.
struct RopeTable {
    long long first = 0;
    std::size_t half = 0;  // N/2
    float scale = 1.0f;
    std::vector<float> cos, sin;
    const float* cos_at(long long pos) const { return cos.data() + std::size_t(pos - first) * half; }
    const float* sin_at(long long pos) const { return sin.data() + std::size_t(pos - first) * half; }
};
RopeTable rope_table(const std::vector<float>& inv_freq, long long first, std::size_t count, float scale = 1.0f);
// The rows of t for the positions [p0, p1) (within t's).
void fill_rope_table(RopeTable& t, const std::vector<float>& inv_freq, long long p0, long long p1);

// One row of d floats rotated into out (x == out allowed), with its position's c = cos and
// s = sin (RopeTable): the pair (x1, x2) becomes (x1·c − x2·s, x2·c + x1·s), each product
// rounded, as HF's q·cos + rotate_half(q)·sin. The pairs are (k, k + N/2) for half, (2k, 2k + 1)
// for interleaved; dims past N are copied.
void rope_row(const Rope& rope, const float* c, const float* s, const float* x, float* out, std::size_t d);

// The problem with Q and K rotated: query row i of batch item b at p.position(b, i), key j at j;
// a cache's keys (j < p.past) are rotated already and copied as they are.
// The rotated Q (every batch item: positions may differ by item) and K (float32, even for
// float16 K) are stored in q and k, which the returned problem points into; its rope is none.
// One pass over Q and K, split over threads by blocks of positions: the angles of each position
// are computed once for every head and batch item (or kept from the calling thread's last call
// with the same frequencies: rope.cpp's KeptAngles).
AttentionProblem with_rope(const AttentionProblem& p, Tensor& q, Tensor& k);

// Storage for the rotated Q and K of one call that the calling thread keeps for its next call
// (up to 64 MiB): fresh storage would be fresh pages on every call, and their first touch cost
// more than the rotation itself. Measured, T=4096 d=64, 1 head, 1 thread: 480 page faults and
// 6-15 ms per call on this (virtualised, shared) machine, against 1.1 ms with the pages kept.
// A store takes the thread's storage for its life and gives it back when destroyed, so a
// nested call (none today) would get storage of its own.
class RopeStore {
public:
    RopeStore();
    ~RopeStore();
    RopeStore(const RopeStore&) = delete;
    RopeStore& operator=(const RopeStore&) = delete;
    float* get(std::size_t floats);  // at least floats, 64-byte aligned; invalidates the last

private:
    AlignedBuffer data_;
    std::size_t capacity_ = 0;
};

// The same into the store's storage, which the returned problem points into (while the store lives).
AttentionProblem with_rope(const AttentionProblem& p, RopeStore& store);

}  // namespace attn::engine
