// FalconModel's forward (transformers' models/falcon/modeling_falcon.py, eager attention; falcon-7b,
// -40b, -180b, Falcon 2): word embeddings, then per layer LayerNorm (ln_attn with
// new_decoder_architecture, else input_layernorm), the fused query_key_value whose rows hold, per
// K/V group, the group's query heads then its key then its value, RoPE on every dim, causal
// grouped-query attention, dense; the MLP dense_h_to_4h, the activation, dense_4h_to_h, beside the
// attention (on ln_mlp's output, or the same norm's) with the layer's output x + (mlp + attn), or
// after it on post_attention_layernorm's output of x + attn. ln_f at the end, whose output is the
// last hidden state.
#include <cstring>
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_falcon(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    const std::size_t r = H / G, QKV = (H + 2 * G) * d;  // query heads per group; the fused rows
    Tensor h = token_rows(c, w, in, E);
    // (attention_scores /= math.sqrt(self.head_dim); RoPE on every dim)
    const AttentionSpec spec = rope_decoder_spec(c, w, T, d, "self_attention.query_key_value", QKV);
    const auto ln = [&](Tensor& x, const std::string& name) { layer_norm_named(x, w, name, E, c.norm_eps); };
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto proj = [&](const Tensor& x, const std::string& name, std::size_t rows, std::size_t cols, bool bias) {
            return linear_named(w, p + name, x, rows, cols, bias);
        };
        Tensor x = h;
        ln(x, p + (c.split_norms ? "ln_attn" : "input_layernorm"));
        const Tensor qkv = proj(x, "self_attention.query_key_value", QKV, E, c.qkv_bias);
        // Group g's columns: its r query heads, its key, its value, d each. The queries of all groups
        // side by side; the keys and values read in place, (r + 2)·d apart.
        Tensor q = new_rows(B * T, H * d);
        for (std::size_t i = 0; i < B * T; ++i)
            for (std::size_t g = 0; g < G; ++g)
                std::memcpy(q.data() + i * q.row_stride() + g * r * d, qkv.data() + i * qkv.row_stride() + g * (r + 2) * d,
                            r * d * sizeof(float));
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(qkv, B, T, r * d, G, d, (r + 2) * d),
                                          heads_view(qkv, B, T, (r + 1) * d, G, d, (r + 2) * d), spec, rec.weights_of(l),
                                          rec.weights_stride());
        const Tensor attn = proj(ctx, "self_attention.dense", E, E, c.o_bias);
        if (!c.parallel_residual) {  // x + attn, then the MLP on its post_attention_layernorm
            add_rows(h, attn);
            x = h;
            ln(x, p + "post_attention_layernorm");
        } else if (c.split_norms) {
            x = h;
            ln(x, p + "ln_mlp");
        }
        Tensor f = proj(x, "mlp.dense_h_to_4h", F, E, c.mlp_bias);
        activate(f, c.activation);
        Tensor m = proj(f, "mlp.dense_4h_to_h", E, F, c.mlp_bias);
        if (c.parallel_residual) add_rows(m, attn);  // mlp_output += attention_output
        add_rows(h, m);                              // residual + mlp_output
    }
    if (rec.last_layer() + 1 == c.layers) {
        ln(h, "ln_f");
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
