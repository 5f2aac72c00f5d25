// Starcoder2Model's forward (transformers' models/starcoder2/modeling_starcoder2.py, eager
// attention): token embeddings, then per layer input_layernorm (LayerNorm with bias), q/k/v
// projections (biases with use_bias), RoPE, causal grouped-query attention (sliding_window on
// every layer when given), o_proj, the residual; post_attention_layernorm, the MLP c_fc, the
// activation, c_proj (biases with use_bias), the residual. norm (LayerNorm) at the end, whose
// output is the last hidden state.
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_starcoder2(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    Tensor h = token_rows(c, w, in, E);
    AttentionSpec spec = rope_decoder_spec(c, w, T, d);  // every dim of each head
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        // kv_idx > q_idx - sliding_window: each token sees itself and W - 1 before
        const std::size_t window = c.window_of(l);
        spec.window = window ? Window{window - 1, unbounded} : Window{};
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        const auto bias = [&](const std::string& n, std::size_t len) { return c.qkv_bias ? &W(n + ".bias", {len}) : nullptr; };
        const auto proj = [&](const MatrixView& x, const std::string& n, std::size_t rows, std::size_t cols) {
            return linear(x, W(n + ".weight", {rows, cols}), Layout::linear, bias(n, rows));
        };
        const auto norm = [&](Tensor& x, const std::string& n) {
            layer_norm(x, W(n + ".weight", {E}), &W(n + ".bias", {E}), c.norm_eps);
        };
        Tensor x = h;
        norm(x, "input_layernorm");
        const MatrixView xv = rows_of(x);
        const Tensor q = proj(xv, "self_attn.q_proj", H * d, E), k = proj(xv, "self_attn.k_proj", G * d, E);
        const Tensor v = proj(xv, "self_attn.v_proj", G * d, E);
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, G, d),
                                          heads_view(v, B, T, 0, G, d), spec, rec.weights_of(l), rec.weights_stride());
        add_rows(h, proj(rows_of(ctx), "self_attn.o_proj", E, H * d));
        x = h;
        norm(x, "post_attention_layernorm");
        Tensor f = proj(rows_of(x), "mlp.c_fc", F, E);
        activate(f, c.activation);
        add_rows(h, proj(rows_of(f), "mlp.c_proj", E, F));
    }
    if (rec.last_layer() + 1 == c.layers) {
        layer_norm(h, w.get("norm.weight", {E}), &w.get("norm.bias", {E}), c.norm_eps);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
