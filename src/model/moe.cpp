// Mixtral's sparse mixture of experts (model/layers.hpp's mixture_of_experts), as transformers'
// MixtralSparseMoeBlock computes it: router logits = x·gateᵀ; routing weights = softmax(logits)
// in float32, the top k (torch.topk: the largest first, the lower index first among equals),
// divided by their sum; expert e takes the tokens that chose it, runs w2(act(w1(x)) · w3(x)) on
// them, multiplies each row by its routing weight and index_add_s it into a zero output, expert
// after expert, so a token's sum runs in expert order.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "model/layers.hpp"

namespace attn::model {

Tensor mixture_of_experts(const Tensor& x, const Weights& w, const std::string& prefix, const ModelConfig& c) {
    const MatrixView xv = rows_of(x);
    const std::size_t N = xv.rows, E = c.hidden, F = c.intermediate, X = c.experts, K = c.experts_per_token;
    const auto expert = [&](std::size_t e, const char* name, std::size_t rows, std::size_t cols) -> const Weight& {
        return w.get(prefix + "experts." + std::to_string(e) + "." + name + ".weight", {rows, cols});
    };
    for (std::size_t e = 0; e < X; ++e)  // a checkpoint missing an expert is refused whichever tokens route there
        expert(e, "w1", F, E), expert(e, "w3", F, E), expert(e, "w2", E, F);
    const Tensor logits = linear(xv, w.get(prefix + "gate.weight", {X, E}), Layout::linear, nullptr);
    // chosen[e]: the tokens that chose expert e and their routing weights
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
            weights[order[k]].push_back(p[order[k]] / top);
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
        Tensor gate = linear(rows_of(xe), expert(e, "w1", F, E), Layout::linear, nullptr);
        gated(gate, linear(rows_of(xe), expert(e, "w3", F, E), Layout::linear, nullptr), c.activation);
        const Tensor down = linear(rows_of(gate), expert(e, "w2", E, F), Layout::linear, nullptr);
        for (std::size_t r = 0; r < n; ++r) {
            float* o = out.data() + tokens[e][r] * out.row_stride();
            const float* y = down.data() + r * down.row_stride();
            for (std::size_t col = 0; col < E; ++col) o[col] += y[col] * weights[e][r];
        }
    }
    return out;
}

}  // namespace attn::model
