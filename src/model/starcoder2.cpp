// Starcoder2Model's forward (transformers' models/starcoder2/modeling_starcoder2.py, eager
// attention), also NemotronModel's (models/nemotron/modeling_nemotron.py): token embeddings, then
// per layer input_layernorm (LayerNorm with bias; Nemotron's by weight + 1), q/k/v projections
// (biases with use_bias; Nemotron: attention_bias), RoPE (Nemotron: on the leading
// partial_rotary_factor of each head's dims), causal grouped-query attention (sliding_window on
// every layer when given), o_proj, the residual; post_attention_layernorm, the MLP c_fc, the
// activation, c_proj (Nemotron: up_proj, relu2, down_proj; biases with use_bias, mlp_bias), the
// residual. norm (LayerNorm) at the end, whose output is the last hidden state.
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_starcoder2(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    const bool nemotron = c.arch == Architecture::nemotron;
    const char* mlp_in = nemotron ? "mlp.up_proj" : "mlp.c_fc";
    const char* mlp_out = nemotron ? "mlp.down_proj" : "mlp.c_proj";
    Tensor h = token_rows(c, w, in, E);
    AttentionSpec spec = rope_decoder_spec(c, w, T, c.rotary_dims ? c.rotary_dims : d);
    const auto norm = [&](Tensor& x, const std::string& name) { layer_norm_named(x, w, name, E, c.norm_eps, c.unit_offset_norm); };
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        spec.window = c.attention_window(l);
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto proj = [&](const Tensor& x, const std::string& name, std::size_t rows, std::size_t cols, bool bias) {
            return linear_named(w, p + name, x, rows, cols, bias);
        };
        Tensor x = h;
        norm(x, p + "input_layernorm");
        const Tensor q = proj(x, "self_attn.q_proj", H * d, E, c.qkv_bias), k = proj(x, "self_attn.k_proj", G * d, E, c.qkv_bias);
        const Tensor v = proj(x, "self_attn.v_proj", G * d, E, c.qkv_bias);
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, G, d),
                                          heads_view(v, B, T, 0, G, d), spec, rec.weights_of(l), rec.weights_stride());
        add_rows(h, proj(ctx, "self_attn.o_proj", E, H * d, c.o_bias));
        x = h;
        norm(x, p + "post_attention_layernorm");
        Tensor f = proj(x, mlp_in, F, E, c.mlp_bias);
        activate(f, c.activation);
        add_rows(h, proj(f, mlp_out, E, F, c.mlp_bias));
    }
    if (rec.last_layer() + 1 == c.layers) {
        norm(h, "norm");
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
