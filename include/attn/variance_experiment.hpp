// The tutorial's experiment: why attention scores are divided by sqrt(d_k). Q and K are drawn
// exactly as PyTorch draws them (torch.manual_seed(seed); Q = torch.randn(batch, rows, d_k)·σ;
// K = the next torch.randn(batch, rows, d_k)·σ); the scores are Q_b·K_bᵀ per batch. Reported:
// the population variance of raw and scaled scores next to the theory (d_k·σ⁴, σ⁴), and what
// softmax does to each row of L = rows scores with and without the scaling.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/torch_rng.hpp"

namespace attn {

// Softmax over each row of scores, summarised (all in double from float32 scores).
struct SoftmaxStats {
    double max_weight_mean = 0;     // mean over rows of the largest weight
    double entropy_mean = 0;        // mean over rows of −Σ p ln p (nats); ln L is uniform
    double saturated_fraction = 0;  // rows whose largest weight is >= 0.99
    double tiny_fraction = 0;       // weights below 1e-6, over all weights
    double jacobian_norm_mean = 0;  // mean over rows of ‖diag(p) − p·pᵀ‖_F
};

struct VarianceResult {
    std::size_t d_k = 0;
    double unscaled_var = 0, scaled_var = 0;                // population variance over all scores
    double theory_unscaled_var = 0, theory_scaled_var = 0;  // d_k·σ⁴ and σ⁴
    SoftmaxStats unscaled, scaled;
};

struct VarianceExperiment {
    std::vector<std::size_t> d_ks{512};
    std::size_t rows = 32;   // L: queries and keys per batch
    std::size_t batch = 32;  // B·H of the tutorial (4·8)
    double sigma = 1.0;
    std::uint64_t seed = 92;
    TorchKernel kernel = TorchKernel::avx2;
};

// One result per d_k; the generator is reseeded for every d_k, so each row is what
// torch.manual_seed(seed) followed by the two draws gives for that d_k alone.
std::vector<VarianceResult> run_variance_experiment(const VarianceExperiment& experiment);

// The statistics for given Q and K (each batch×rows×d_k, row-major float32): scores in float32
// through attn::matmul, scaled scores = scores / sqrt(d_k) in float32 as torch computes them.
VarianceResult variance_of_scores(const std::vector<float>& Q, const std::vector<float>& K, std::size_t batch,
                                  std::size_t rows, std::size_t d_k, double sigma);

// Softmax statistics of `count` rows of `len` scores each (row-major, contiguous).
SoftmaxStats softmax_stats(const float* scores, std::size_t count, std::size_t len);

// ‖diag(p) − p·pᵀ‖_F for one probability vector, from Σp², Σp³ in closed form.
double softmax_jacobian_norm(const double* p, std::size_t len);

}  // namespace attn
