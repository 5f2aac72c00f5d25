// StableLmModel's forward (transformers' models/stablelm/modeling_stablelm.py, eager attention),
// also CohereModel's (models/cohere/modeling_cohere.py), Cohere2Model's
// (models/cohere2/modular_cohere2.py) and OlmoModel's (models/olmo/modular_olmo.py): token
// embeddings, then per layer input_layernorm (LayerNorm; Cohere's has no bias, OLMo's neither
// weight nor bias), q/k/v projections (StableLM: biases with use_qkv_bias; Cohere, OLMo: with
// attention_bias, o_proj's too; OLMo: then clamped to ±clip_qkv), each head's q and k normalised by
// a LayerNorm weight of its own (StableLM's qk_layernorm, q_layernorm.norms.N; Cohere's
// use_qk_norm, q_norm of shape (heads, head_dim)), RoPE (StableLM: on the leading
// partial_rotary_factor of each head's dims; Cohere: on pairs (2i, 2i + 1)), causal grouped-query
// attention (Cohere 2: a window on the sliding layers, RoPE on those only), o_proj. The MLP
// down(act(gate(x)) · up(x)) runs on input_layernorm's output beside the attention with
// use_parallel_residual (Cohere: always), the layer's output residual + attn + mlp; otherwise on
// post_attention_layernorm's output after the attention's residual. norm at the end, whose output
// is the last hidden state.
#include <string>
#include <vector>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_stablelm(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    const bool cohere = c.arch == Architecture::cohere, olmo = c.arch == Architecture::olmo;
    Tensor h = token_rows(c, w, in, E);
    AttentionSpec spec = rope_decoder_spec(c, w, T, c.rotary_dims ? c.rotary_dims : d);
    const Rope rope = spec.rope;
    const std::vector<float> ones(olmo ? E : 0, 1.0f);
    const auto norm = [&](Tensor& x, const std::string& name) {
        if (olmo) return layer_norm_heads(x, ones, E, c.norm_eps);  // OlmoLayerNorm: no weight, no bias
        layer_norm(x, w.get(name + ".weight", {E}), cohere ? nullptr : &w.get(name + ".bias", {E}), c.norm_eps);
    };
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        spec.window = c.attention_window(l);  // Cohere 2: a window on the sliding layers, RoPE only there
        spec.rope = c.has_rope(l) ? rope : Rope{};
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        const auto proj = [&](const Tensor& x, const std::string& n, std::size_t rows, std::size_t cols, bool bias) {
            return linear_named(w, p + n, x, rows, cols, bias);
        };
        // q or k: each head normalised over head_dim by its own weight, before RoPE
        const auto head_norms = [&](Tensor& x, const std::string& which, std::size_t heads) {
            std::vector<float> g;
            if (cohere) {
                g = W("self_attn." + which + "_norm.weight", {heads, d}).values();
            } else {
                for (std::size_t k = 0; k < heads; ++k) {
                    const std::string n = "self_attn." + which + "_layernorm.norms." + std::to_string(k) + ".weight";
                    const std::vector<float> one = W(n, {d}).values();
                    g.insert(g.end(), one.begin(), one.end());
                }
            }
            layer_norm_heads(x, g, d, c.norm_eps);
        };
        const auto mlp = [&](const Tensor& x) {
            Tensor gate = proj(x, "mlp.gate_proj", F, E, false);
            gated(gate, proj(x, "mlp.up_proj", F, E, false), c.activation);
            return proj(gate, "mlp.down_proj", E, F, false);
        };
        Tensor x = h;
        norm(x, p + "input_layernorm");
        Tensor q = proj(x, "self_attn.q_proj", H * d, E, c.qkv_bias);
        Tensor k = proj(x, "self_attn.k_proj", G * d, E, c.qkv_bias);
        Tensor v = proj(x, "self_attn.v_proj", G * d, E, c.qkv_bias);
        if (c.clip_qkv > 0)  // OLMo: clamp_(min=-clip_qkv, max=clip_qkv)
            for (Tensor* t : {&q, &k, &v}) clamp_rows(*t, c.clip_qkv);
        if (c.qk_norm) head_norms(q, "q", H), head_norms(k, "k", G);
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, G, d),
                                          heads_view(v, B, T, 0, G, d), spec, rec.weights_of(l), rec.weights_stride());
        add_rows(h, proj(ctx, "self_attn.o_proj", E, H * d, c.o_bias));
        if (!c.parallel_residual) {
            x = h;
            norm(x, p + "post_attention_layernorm");
        }
        add_rows(h, mlp(x));  // residual + attn + mlp, in that order
    }
    if (rec.last_layer() + 1 == c.layers) {
        norm(h, "norm");
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
