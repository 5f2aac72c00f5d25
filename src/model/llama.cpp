// LlamaModel's forward (transformers' models/llama/modeling_llama.py, eager attention), also
// Mistral's, Mixtral's, Qwen2's, Qwen3's, Qwen2-MoE's, Qwen3-MoE's, Gemma's, Gemma 2's, Gemma 3's,
// Phi-3's, GLM's, GLM-4's, OLMo 2's, OLMo 3's, SmolLM3's and Granite's: token embeddings (Gemma:
// times √E; Granite: embedding_multiplier), then per layer RMSNorm (Gemma: by 1 + weight; OLMo 2:
// none), q/k/v projections (Qwen2, GLM: with biases; Qwen3, Gemma 3: then q_norm and k_norm,
// RMSNorm per head; OLMo 2: over all heads at once; Phi-3: one fused qkv_proj), RoPE (Phi-3: of the
// leading dims; GLM: on the pairs (2i, 2i + 1) of the leading dims; Gemma 3: the sliding layers'
// own; SmolLM3: none on its NoPE layers) and causal grouped-query attention on the engine
// (Mistral, Phi-3: a sliding window; Qwen2, OLMo 3, SmolLM3: sliding layers; Gemma 2: its scale,
// softcap and sliding layers; EmbeddingGemma: bidirectional), o_proj (Gemma 2, GLM-4, OLMo 2: then
// a norm), the residual (Granite: the output times residual_multiplier), RMSNorm (Gemma 2, GLM-4:
// their own; OLMo 2: none), the gated MLP (down(act(gate(x)) · up(x)); Phi-3, GLM: gate and up
// from one gate_up_proj; Mixtral, Qwen MoE: a sparse mixture of such experts, src/model/moe.cpp;
// Gemma 2, GLM-4, OLMo 2: then a norm), the residual; the final norm, whose output is the last
// hidden state.
#include <cmath>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_llama(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    Tensor h = token_rows(c, w, in, E);
    // Gemma: hidden_states * torch.tensor(hidden_size ** 0.5, dtype=hidden_states.dtype); Granite:
    // inputs_embeds * embedding_multiplier
    if (c.embed_scale) scale_rows(h, float(std::sqrt(double(E))));
    if (c.embedding_multiplier != 1.0f) scale_rows(h, c.embedding_multiplier);
    AttentionSpec spec;
    spec.causal = c.bidirectional ? Causal::none : Causal::top_left;  // EmbeddingGemma: none
    // RoPE (layers.hpp's rope_for_tokens) once layer 0's projection confirms head_dim. Gemma 3's
    // sliding layers have a RoPE of their own (ModelConfig::rope_of).
    const std::string qkv_fused = "self_attn.qkv_proj.weight";  // Phi-3: rows q | k | v
    if (c.fused_qkv) w.get(layer_prefix(c, 0) + qkv_fused, {(H + 2 * G) * d, E});
    else w.get(layer_prefix(c, 0) + "self_attn.q_proj.weight", {H * d, E});
    const std::size_t rotated = c.rotary_dims ? c.rotary_dims : d;  // Phi-3's partial_rotary_factor
    // (each only when some layer uses it: transformers makes one per layer type present)
    bool full_used = false, sliding_used = false;
    for (std::size_t l = 0; l < c.layers; ++l) (&c.rope_of(l) == &c.rope ? full_used : sliding_used) = true;
    const Rope full_rope = full_used ? rope_for_tokens(c.rope, rotated, T, c.rope_scaling_text) : Rope{};
    const Rope sliding_rope = sliding_used ? rope_for_tokens(c.sliding_rope, rotated, T, c.sliding_rope_text) : Rope{};
    // self.scaling = head_dim ** -0.5; Gemma 2's query_pre_attn_scalar ** -0.5; Granite's attention_multiplier
    spec.scale = float(c.attention_multiplier ? c.attention_multiplier
                       : c.query_scalar       ? std::pow(c.query_scalar, -0.5)
                                              : 1.0 / std::sqrt(double(d)));
    spec.softcap = c.softcap;  // Gemma 2: cap·tanh(scores / cap), before the mask
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        // kv_idx > q_idx - sliding_window; EmbeddingGemma's both ways: |q_idx - kv_idx| < sliding_window
        spec.window = c.attention_window(l);
        spec.rope = !c.has_rope(l) ? Rope{} : &c.rope_of(l) == &c.rope ? full_rope : sliding_rope;  // SmolLM3's NoPE layers
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        const auto bias = [&](bool on, const std::string& n, std::size_t len) { return on ? &W(n, {len}) : nullptr; };
        const auto norm = [&](Tensor& x, const std::string& n, std::size_t len) { rms_norm(x, W(n, {len}), c.norm_eps, c.unit_offset_norm); };
        Tensor x = h;
        if (!c.post_norms) norm(x, "input_layernorm.weight", E);  // OLMo 2: none
        const MatrixView xv = rows_of(x);
        Tensor q, k, v;
        std::size_t k0 = 0, v0 = 0;  // the columns where K's and V's heads start (Phi-3: in q)
        if (c.fused_qkv) {
            q = linear(xv, W(qkv_fused, {(H + 2 * G) * d, E}), Layout::linear, nullptr);
            k0 = H * d, v0 = (H + G) * d;
        } else {
            q = linear(xv, W("self_attn.q_proj.weight", {H * d, E}), Layout::linear, bias(c.qkv_bias, "self_attn.q_proj.bias", H * d));
            k = linear(xv, W("self_attn.k_proj.weight", {G * d, E}), Layout::linear, bias(c.qkv_bias, "self_attn.k_proj.bias", G * d));
            if (c.qk_norm) {  // Qwen3, Gemma 3: each head's q and k RMS-normalised over head_dim, before RoPE
                // (OLMo 2: the whole q and k projections)
                norm(q, "self_attn.q_norm.weight", c.qk_norm_whole ? H * d : d);
                norm(k, "self_attn.k_norm.weight", c.qk_norm_whole ? G * d : d);
            }
            v = linear(xv, W("self_attn.v_proj.weight", {G * d, E}), Layout::linear, bias(c.qkv_bias, "self_attn.v_proj.bias", G * d));
        }
        const Tensor& kt = c.fused_qkv ? q : k;
        const Tensor& vt = c.fused_qkv ? q : v;
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(kt, B, T, k0, G, d),
                                          heads_view(vt, B, T, v0, G, d), spec, rec.weights_of(l), rec.weights_stride());
        Tensor o = linear(rows_of(ctx), W("self_attn.o_proj.weight", {E, H * d}), Layout::linear, bias(c.o_bias, "self_attn.o_proj.bias", E));
        // Gemma 2: post_attention_layernorm, pre_ and post_feedforward_layernorm; GLM-4: post_self_attn_layernorm,
        // post_attention_layernorm, post_mlp_layernorm; OLMo 2: the first and the last
        const bool glm4 = c.glm4_norm_names;
        if (c.sandwich_norms || c.post_norms) norm(o, glm4 ? "post_self_attn_layernorm.weight" : "post_attention_layernorm.weight", E);
        if (c.residual_multiplier != 1.0f) scale_rows(o, c.residual_multiplier);  // Granite
        add_rows(h, o);
        x = h;
        if (!c.post_norms)
            norm(x, c.sandwich_norms && !glm4 ? "pre_feedforward_layernorm.weight" : "post_attention_layernorm.weight", E);
        Tensor gate;
        if (c.moe.at(l)) {  // Mixtral, Qwen MoE: a sparse mixture of experts in place of the MLP (src/model/moe.cpp)
            add_rows(h, mixture_of_experts(x, w, p + (c.moe.mixtral_names ? "block_sparse_moe." : "mlp."), c));
            continue;
        }
        if (c.fused_gate_up) {  // Phi3MLP, GlmMLP: gate, up = gate_up_proj(x).chunk(2); up · act(gate)
            gate = gated_halves(linear(rows_of(x), W("mlp.gate_up_proj.weight", {2 * F, E}), Layout::linear, nullptr), c.activation);
        } else {
            gate = linear(rows_of(x), W("mlp.gate_proj.weight", {F, E}), Layout::linear, bias(c.mlp_bias, "mlp.gate_proj.bias", F));
            const Tensor up = linear(rows_of(x), W("mlp.up_proj.weight", {F, E}), Layout::linear, bias(c.mlp_bias, "mlp.up_proj.bias", F));
            gated(gate, up, c.activation);
        }
        Tensor down = linear(rows_of(gate), W("mlp.down_proj.weight", {E, F}), Layout::linear, bias(c.mlp_bias, "mlp.down_proj.bias", E));
        if (c.sandwich_norms || c.post_norms) norm(down, glm4 ? "post_mlp_layernorm.weight" : "post_feedforward_layernorm.weight", E);
        if (c.residual_multiplier != 1.0f) scale_rows(down, c.residual_multiplier);
        add_rows(h, down);
    }
    if (rec.last_layer() + 1 == c.layers) {
        rms_norm(h, w.get("norm.weight", {E}), c.norm_eps, c.unit_offset_norm);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
