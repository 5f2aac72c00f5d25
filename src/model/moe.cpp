// The sparse mixture of experts of Mixtral, Qwen2-MoE and Qwen3-MoE (model/layers.hpp's
// mixture_of_experts), as transformers computes it (MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock,
// Qwen3MoeSparseMoeBlock): router logits = x·gateᵀ; routing weights = softmax(logits) in float32,
// the top k (the largest first; among exactly equal probabilities attn takes the lower index,
// where torch.topk's order is not defined: torch 1.13 on a CPU picks others), divided by their
// sum (Mixtral always, Qwen with norm_topk_prob); expert e takes the tokens that chose it, runs
// down(act(gate(x)) · up(x)) on them, multiplies each row by its routing weight and index_add_s it
// into a zero output, expert after expert, so a token's sum runs in expert order. Qwen2-MoE then
// adds its shared expert's output times sigmoid(x·shared_expert_gateᵀ).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "model/layers.hpp"

namespace attn::model {

namespace {

// The names of an expert's three projections: Mixtral's w1 (gate), w3 (up), w2 (down), or Qwen's.
struct ExpertNames {
    const char *gate, *up, *down;
};

// down(act(gate(x)) · up(x)) of rows x, the weights named `prefix` + names.
Tensor swiglu(const MatrixView& x, const Weights& w, const std::string& prefix, const ExpertNames& n, std::size_t E,
              std::size_t F, ModelConfig::Activation a) {
    const auto weight = [&](const char* name, std::size_t rows, std::size_t cols) -> const Weight& {
        return w.get(prefix + name + ".weight", {rows, cols});
    };
    Tensor gate = linear(x, weight(n.gate, F, E), Layout::linear, nullptr);
    gated(gate, linear(x, weight(n.up, F, E), Layout::linear, nullptr), a);
    return linear(rows_of(gate), weight(n.down, E, F), Layout::linear, nullptr);
}

}  // namespace

Tensor mixture_of_experts(const Tensor& x, const Weights& w, const std::string& prefix, const ModelConfig& c) {
    const MatrixView xv = rows_of(x);
    const ModelConfig::MixtureOfExperts& moe = c.moe;
    const std::size_t N = xv.rows, E = c.hidden, F = moe.intermediate ? moe.intermediate : c.intermediate;
    const std::size_t X = moe.experts, K = moe.per_token;
    const ExpertNames names = moe.mixtral_names ? ExpertNames{"w1", "w3", "w2"} : ExpertNames{"gate_proj", "up_proj", "down_proj"};
    const auto expert = [&](std::size_t e) { return prefix + "experts." + std::to_string(e) + "."; };
    // transformers v5 can save the experts fused, (experts, 2F, E) gate_up_proj and down_proj
    if (X && !w.has(expert(0) + names.gate + ".weight") && w.has(prefix + "experts.gate_up_proj"))
        w.missing(expert(0) + names.gate + ".weight",
                  "it holds " + prefix + "experts.gate_up_proj: experts fused into one tensor (transformers v5's layout) "
                  "are not supported: attn reads each expert's own " + names.gate + ", " + names.up + " and " + names.down +
                  " (save_pretrained's default, and the hub's checkpoints)");
    for (std::size_t e = 0; e < X; ++e) {  // a checkpoint missing an expert is refused whichever tokens route there
        w.get(expert(e) + names.gate + ".weight", {F, E}), w.get(expert(e) + names.up + ".weight", {F, E});
        w.get(expert(e) + names.down + ".weight", {E, F});
    }
    const Tensor logits = linear(xv, w.get(prefix + "gate.weight", {X, E}), Layout::linear, nullptr);
    // tokens[e], weights[e]: the tokens that chose expert e and their routing weights
    std::vector<std::vector<std::size_t>> tokens(X);
    std::vector<std::vector<float>> weights(X);
    std::vector<float> p(X);
    std::vector<std::size_t> order(X);
    for (std::size_t i = 0; i < N; ++i) {
        const float* z = logits.data() + i * logits.row_stride();
        const float m = *std::max_element(z, z + X);
        float sum = 0;
        for (std::size_t e = 0; e < X; ++e) sum += p[e] = std::exp(z[e] - m);
        for (std::size_t e = 0; e < X; ++e) p[e] /= sum;
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
        float top = 0;
        for (std::size_t k = 0; k < K; ++k) top += p[order[k]];
        for (std::size_t k = 0; k < K; ++k) {
            tokens[order[k]].push_back(i);
            weights[order[k]].push_back(moe.normalize ? p[order[k]] / top : p[order[k]]);
        }
    }
    Tensor out = new_rows(N, E);
    std::fill(out.data(), out.data() + N * out.row_stride(), 0.0f);
    for (std::size_t e = 0; e < X; ++e) {
        if (tokens[e].empty()) continue;
        const std::size_t n = tokens[e].size();
        Tensor xe = new_rows(n, E);
        for (std::size_t r = 0; r < n; ++r)
            std::copy_n(xv.data + tokens[e][r] * xv.stride, E, xe.data() + r * xe.row_stride());
        const Tensor y = swiglu(rows_of(xe), w, expert(e), names, E, F, c.activation);
        for (std::size_t r = 0; r < n; ++r) {
            float* o = out.data() + tokens[e][r] * out.row_stride();
            const float* yr = y.data() + r * y.row_stride();
            for (std::size_t col = 0; col < E; ++col) o[col] += yr[col] * weights[e][r];
        }
    }
    if (moe.shared_intermediate) {  // Qwen2-MoE: + sigmoid(shared_expert_gate(x)) · shared_expert(x)
        const Tensor shared = swiglu(xv, w, prefix + "shared_expert.", {"gate_proj", "up_proj", "down_proj"}, E,
                                     moe.shared_intermediate, c.activation);
        const Tensor g = linear(xv, w.get(prefix + "shared_expert_gate.weight", {1, E}), Layout::linear, nullptr);
        for (std::size_t i = 0; i < N; ++i) {
            const float s = 1.0f / (1.0f + std::exp(-g.data()[i * g.row_stride()]));
            float* o = out.data() + i * out.row_stride();
            const float* sh = shared.data() + i * shared.row_stride();
            for (std::size_t col = 0; col < E; ++col) o[col] += s * sh[col];
        }
    }
    return out;
}

}  // namespace attn::model
