// OPTModel's forward (transformers' models/opt/modeling_opt.py, eager attention; facebook/opt-*):
// token embeddings (word_embed_proj_dim wide, then project_in when that differs from hidden_size)
// plus learned positions (row position + 2 of embed_positions), then per layer
// self_attn_layer_norm before the attention (do_layer_norm_before) or after its residual, q/k/v
// projections (q times head_dim ** -0.5 before q·kᵀ), causal attention, out_proj, the residual;
// final_layer_norm before the MLP (fc1, the activation, fc2) or after its residual. The decoder's
// final_layer_norm (with do_layer_norm_before, unless _remove_final_layer_norm) at the end, whose
// output is the last hidden state.
#include <cmath>
#include <string>
#include <vector>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_opt(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    const std::size_t P = embedding_width(c);  // word_embed_proj_dim
    Tensor h = token_rows(c, w, in, P);
    if (P != E) h = linear(rows_of(h), w.get("decoder.project_in.weight", {E, P}), Layout::linear, nullptr);
    add_position_rows(h, w, "decoder.embed_positions.weight", c.max_positions + 2, in, 2);  // OPTLearnedPositionalEmbedding's offset
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    spec.scale = 1.0f;  // (q is scaled by its projection)
    const float scaling = float(std::pow(double(d), -0.5));
    const std::vector<float> ones(c.norm_affine ? 0 : E, 1.0f);
    const auto ln = [&](Tensor& x, const std::string& name) {
        if (!c.norm_affine) return layer_norm_heads(x, ones, E, c.norm_eps);  // elementwise_affine false
        layer_norm_named(x, w, name, E, c.norm_eps);
    };
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto proj = [&](const Tensor& x, const std::string& name, std::size_t rows, std::size_t cols, bool bias) {
            return linear_named(w, p + name, x, rows, cols, bias);
        };
        Tensor x = h;
        if (c.norm_before) ln(x, p + "self_attn_layer_norm");
        Tensor q = proj(x, "self_attn.q_proj", E, E, c.qkv_bias);
        scale_rows(q, scaling);  // self.q_proj(hidden_states) * self.scaling
        const Tensor k = proj(x, "self_attn.k_proj", E, E, c.qkv_bias),
                     v = proj(x, "self_attn.v_proj", E, E, c.qkv_bias);
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, H, d),
                                          heads_view(v, B, T, 0, H, d), spec, rec.weights_of(l), rec.weights_stride());
        add_rows(h, proj(ctx, "self_attn.out_proj", E, E, c.o_bias));
        if (!c.norm_before) ln(h, p + "self_attn_layer_norm");
        x = h;
        if (c.norm_before) ln(x, p + "final_layer_norm");
        Tensor f = proj(x, "fc1", F, E, c.mlp_bias);
        activate(f, c.activation);
        add_rows(h, proj(f, "fc2", E, F, c.mlp_bias));
        if (!c.norm_before) ln(h, p + "final_layer_norm");
    }
    if (rec.last_layer() + 1 == c.layers) {
        if (c.final_norm) ln(h, "decoder.final_layer_norm");
        rec.hidden(c.layers, h);  // (project_out's output, P wide, is refused as a hidden state: model.cpp)
    }
}

}  // namespace attn::model
