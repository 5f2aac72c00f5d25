// Writes the example SVG heatmaps that `make screenshots` renders to PNG: the tutorials'
// simple self-attention weights, causal weights of the masking sentence, and a large matrix
// (no values in cells, thinned labels). Usage: svg_examples OUTPUT_DIR
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "attn/ops.hpp"
#include "attn/torch_rng.hpp"
#include "attn/viz.hpp"

namespace {

void write(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) std::fprintf(stderr, "svg_examples: cannot write %s\n", path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: svg_examples OUTPUT_DIR\n");
        return 2;
    }
    const std::string dir = argv[1];

    // 1. simple (Attention Mechanisms notebook): Q = K = V = X, no scaling.
    const float x[6][3] = {{0.35f, 0.15f, 0.89f}, {0.97f, 0.80f, 0.30f}, {0.65f, 0.34f, 0.24f},
                           {0.20f, 0.87f, 0.34f}, {0.86f, 0.13f, 0.05f}, {0.10f, 0.20f, 0.30f}};
    attn::Matrix X(6, 3);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 3; ++j) X(i, j) = x[i][j];
    attn::Matrix W = attn::matmul(X, X, true);
    attn::normalize_rows(W, attn::Normalization::softmax, attn::MaskedRowPolicy::zero);
    attn::viz::SvgHeatmapOptions simple;
    simple.row_labels = simple.col_labels = {"These", "are", "random", "words", "and", "embeddings"};
    simple.scale_text = "scale none";
    write(dir + "/simple_weights.svg", attn::viz::svg_heatmap(W, simple));

    // 2. masking (single-head self-attention notes): causal weights of the sentence; embeddings E = torch.randn(8, 16)
    //    and projections W_q, W_k = torch.randn(16, 8) / 4 after torch.manual_seed(4).
    attn::TorchGenerator gen(4);
    const attn::Matrix E = gen.randn_matrix(8, 16);
    attn::Matrix Wq = gen.randn_matrix(16, 8), Wk = gen.randn_matrix(16, 8);
    for (std::size_t i = 0; i < 16; ++i)
        for (std::size_t j = 0; j < 8; ++j) {
            Wq(i, j) /= 4;
            Wk(i, j) /= 4;
        }
    attn::Matrix S = attn::matmul(attn::matmul(E, Wq), attn::matmul(E, Wk), true);
    const float scale = 1.0f / std::sqrt(8.0f);
    attn::ScoreMask sm;
    sm.causal = attn::Causal::top_left;
    for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t j = 0; j < 8; ++j)
            S(i, j) = j < attn::causal_visible(sm.causal, i, 8, 8) ? S(i, j) * scale : -std::numeric_limits<float>::infinity();
    attn::normalize_rows(S, attn::Normalization::softmax, attn::MaskedRowPolicy::zero);
    attn::viz::SvgHeatmapOptions masking;
    masking.row_labels = masking.col_labels = {"The", "hiking", "trail", "led", "us", "through", "bear", "country."};
    masking.scale_text = "scale 1/√8 = 0.3536";
    masking.masking_text = "causal mask";
    masking.masked = attn::viz::cell_mask(sm, 8, 8);
    write(dir + "/masking_causal_weights.svg", attn::viz::svg_heatmap(S, masking));

    // 3. a large matrix: scaled scores of 64 random queries and keys (seed 92, d_k 32).
    gen.manual_seed(92);
    const attn::Matrix Q = gen.randn_matrix(64, 32), K = gen.randn_matrix(64, 32);
    attn::Matrix L = attn::matmul(Q, K, true);
    for (std::size_t i = 0; i < 64; ++i)
        for (std::size_t j = 0; j < 64; ++j) L(i, j) /= std::sqrt(32.0f);
    attn::viz::SvgHeatmapOptions large;
    large.what = "scaled scores";
    large.scale_text = "scale 1/√32";
    write(dir + "/large_scaled_scores.svg", attn::viz::svg_heatmap(L, large));

    // The terminal heatmap of the masking example, for the README.
    write(dir + "/masking_heatmap.txt",
          attn::viz::heatmap_text(S, masking.row_labels, masking.col_labels, false, masking.masked));
    return 0;
}
