// PhiModel's forward (transformers' models/phi/modeling_phi.py, eager attention; phi-1, phi-1.5,
// phi-2): token embeddings, then per layer input_layernorm (LayerNorm), q/k/v projections with
// biases (qk_layernorm: a LayerNorm over each head's q and k), RoPE on the leading
// partial_rotary_factor of each head's dims, causal grouped-query attention, dense; the MLP
// (fc1, the activation, fc2) on the same norm's output, and the layer's output
// attn + mlp + the input. final_layernorm at the end, whose output is the last hidden state.
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_phi(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    Tensor h = token_rows(c, w, in, E);
    const AttentionSpec spec = rope_decoder_spec(c, w, T, c.rotary_dims);
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        rec.hidden(l, h);
        const std::string p = layer_prefix(c.arch, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        const auto norm = [&](Tensor& x, const std::string& n, std::size_t len) {
            layer_norm(x, W(n + ".weight", {len}), &W(n + ".bias", {len}), c.norm_eps);
        };
        Tensor x = h;
        norm(x, "input_layernorm", E);
        const MatrixView xv = rows_of(x);
        Tensor q = linear(xv, W("self_attn.q_proj.weight", {H * d, E}), Layout::linear, &W("self_attn.q_proj.bias", {H * d}));
        Tensor k = linear(xv, W("self_attn.k_proj.weight", {G * d, E}), Layout::linear, &W("self_attn.k_proj.bias", {G * d}));
        const Tensor v = linear(xv, W("self_attn.v_proj.weight", {G * d, E}), Layout::linear, &W("self_attn.v_proj.bias", {G * d}));
        if (c.qk_norm) {  // each head's q and k over head_dim, before RoPE
            norm(q, "self_attn.q_layernorm", d);
            norm(k, "self_attn.k_layernorm", d);
        }
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, G, d),
                                          heads_view(v, B, T, 0, G, d), spec, rec.weights_of(l), rec.weights_stride());
        Tensor sum = linear(rows_of(ctx), W("self_attn.dense.weight", {E, H * d}), Layout::linear, &W("self_attn.dense.bias", {E}));
        Tensor f = linear(xv, W("mlp.fc1.weight", {F, E}), Layout::linear, &W("mlp.fc1.bias", {F}));
        activate(f, c.activation);
        add_rows(sum, linear(rows_of(f), W("mlp.fc2.weight", {E, F}), Layout::linear, &W("mlp.fc2.bias", {E})));
        add_rows(sum, h);  // attn_outputs + feed_forward_hidden_states + residual, in that order
        h = std::move(sum);
    }
    if (rec.last_layer() + 1 == c.layers) {
        layer_norm(h, w.get("final_layernorm.weight", {E}), &w.get("final_layernorm.bias", {E}), c.norm_eps);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
