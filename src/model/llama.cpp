// LlamaModel's forward (transformers' models/llama/modeling_llama.py, eager attention), also
// Mistral's, Qwen2's and Qwen3's: token embeddings, then per layer RMSNorm, q/k/v projections
// (Qwen2: with biases; Qwen3: then q_norm and k_norm, RMSNorm per head), RoPE and causal
// grouped-query attention on the engine (Mistral: a sliding window), o_proj, the residual,
// RMSNorm, the SwiGLU MLP (down(act(gate(x)) · up(x))), the residual; the final norm, whose
// output is the last hidden state.
#include <cmath>
#include <string>

#include "attention/rope.hpp"
#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_llama(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    const Weight& embeddings = w.table(token_embeddings(c.arch), {c.vocab, E});  // its shape checked before any buffer
    Tensor h = new_rows(B * T, E);
    embed(h, embeddings, in.ids, false);
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    spec.rope = c.rope;
    spec.rope.dims = d;
    spec.rope = engine::rope_at_length(spec.rope, T);  // dynamic NTK: positions 0 … T − 1
    spec.scale = float(1.0 / std::sqrt(double(d)));  // self.scaling = head_dim ** -0.5
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        const std::size_t window = c.window_of(l);  // kv_idx > q_idx - sliding_window
        spec.window = window ? Window{window - 1, unbounded} : Window{};
        rec.hidden(l, h);
        const std::string p = layer_prefix(c.arch, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        const auto bias = [&](bool on, const std::string& n, std::size_t len) { return on ? &W(n, {len}) : nullptr; };
        Tensor x = h;
        rms_norm(x, W("input_layernorm.weight", {E}), c.norm_eps);
        const MatrixView xv = rows_of(x);
        Tensor q = linear(xv, W("self_attn.q_proj.weight", {H * d, E}), Layout::linear, bias(c.qkv_bias, "self_attn.q_proj.bias", H * d));
        Tensor k = linear(xv, W("self_attn.k_proj.weight", {G * d, E}), Layout::linear, bias(c.qkv_bias, "self_attn.k_proj.bias", G * d));
        if (c.qk_norm) {  // Qwen3: each head's q and k RMS-normalised over head_dim, before RoPE
            rms_norm(q, W("self_attn.q_norm.weight", {d}), c.norm_eps);
            rms_norm(k, W("self_attn.k_norm.weight", {d}), c.norm_eps);
        }
        const Tensor v = linear(xv, W("self_attn.v_proj.weight", {G * d, E}), Layout::linear, bias(c.qkv_bias, "self_attn.v_proj.bias", G * d));
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, G, d),
                                          heads_view(v, B, T, 0, G, d), spec, rec.weights_of(l), rec.weights_stride());
        add_rows(h, linear(rows_of(ctx), W("self_attn.o_proj.weight", {E, H * d}), Layout::linear, bias(c.o_bias, "self_attn.o_proj.bias", E)));
        x = h;
        rms_norm(x, W("post_attention_layernorm.weight", {E}), c.norm_eps);
        Tensor gate = linear(rows_of(x), W("mlp.gate_proj.weight", {F, E}), Layout::linear, bias(c.mlp_bias, "mlp.gate_proj.bias", F));
        const Tensor up = linear(rows_of(x), W("mlp.up_proj.weight", {F, E}), Layout::linear, bias(c.mlp_bias, "mlp.up_proj.bias", F));
        gated(gate, up, c.activation);
        add_rows(h, linear(rows_of(gate), W("mlp.down_proj.weight", {E, F}), Layout::linear, bias(c.mlp_bias, "mlp.down_proj.bias", E)));
    }
    if (rec.last_layer() + 1 == c.layers) {
        rms_norm(h, w.get("norm.weight", {E}), c.norm_eps);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
