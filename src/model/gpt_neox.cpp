// GPTNeoXModel's forward (transformers' models/gpt_neox/modeling_gpt_neox.py, eager attention;
// Pythia, GPT-NeoX-20B): token embeddings (embed_in), then per layer input_layernorm, the fused
// query_key_value whose columns are per head q | k | v (view(..., heads, 3·d)), RoPE on the
// leading rotary_pct of each head's dims, causal attention, dense; with use_parallel_residual
// x + attn(ln1(x)) + mlp(ln2(x)), else x' = x + attn(ln1(x)), x' + mlp(ln2(x')); the MLP
// dense_h_to_4h, the activation, dense_4h_to_h. final_layer_norm at the end, whose output is the
// last hidden state. PersimmonModel's (models/persimmon/modeling_persimmon.py; persimmon-8b) is the
// serial layer under its own names (embed_tokens, self_attn.query_key_value, self_attn.dense,
// final_layernorm), with qk_layernorm: a LayerNorm over each head's q (q_layernorm) and k
// (k_layernorm), one weight and bias for every head, before RoPE.
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

namespace {

struct NeoxNames {
    const char *qkv, *dense, *final_norm;
};
const NeoxNames neox_names{"attention.query_key_value", "attention.dense", "final_layer_norm"};
const NeoxNames persimmon_names{"self_attn.query_key_value", "self_attn.dense", "final_layernorm"};

}  // namespace

void run_gpt_neox(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    const NeoxNames& n = c.arch == Architecture::persimmon ? persimmon_names : neox_names;
    const std::string qkv_name = std::string(n.qkv) + ".", dense_name = std::string(n.dense) + ".";
    Tensor h = token_rows(c, w, in, E);
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    w.get(layer_prefix(c, 0) + qkv_name + "weight", {3 * E, E});  // confirms head_dim
    spec.rope = rope_for_tokens(c.rope, c.rotary_dims, T, c.rope_scaling_text);
    spec.scale = float(1.0 / std::sqrt(double(d)));  // norm_factor = head_size ** -0.5
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        const auto bias = [&](const std::string& n, std::size_t len) { return c.qkv_bias ? &W(n, {len}) : nullptr; };
        Tensor x = h;
        layer_norm(x, W("input_layernorm.weight", {E}), &W("input_layernorm.bias", {E}), c.norm_eps);
        const Tensor qkv = linear(rows_of(x), W(qkv_name + "weight", {3 * E, E}), Layout::linear, bias(qkv_name + "bias", 3 * E));
        // head h's q, k and v: columns h·3d + [0, d), [d, 2d), [2d, 3d)
        Tensor ctx;
        if (c.qk_norm) {  // Persimmon: each head's q and k normalised, one LayerNorm for all heads' q, one for k
            Tensor q = column_blocks(qkv, H, d, 3 * d, 0), k = column_blocks(qkv, H, d, 3 * d, d);
            layer_norm_named(q, w, p + "self_attn.q_layernorm", d, c.norm_eps);
            layer_norm_named(k, w, p + "self_attn.k_layernorm", d, c.norm_eps);
            ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, H, d),
                                 heads_view(qkv, B, T, 2 * d, H, d, 3 * d), spec, rec.weights_of(l), rec.weights_stride());
        } else {
            ctx = self_attention(heads_view(qkv, B, T, 0, H, d, 3 * d), heads_view(qkv, B, T, d, H, d, 3 * d),
                                 heads_view(qkv, B, T, 2 * d, H, d, 3 * d), spec, rec.weights_of(l), rec.weights_stride());
        }
        const Tensor attn = linear(rows_of(ctx), W(dense_name + "weight", {E, E}), Layout::linear, bias(dense_name + "bias", E));
        // the MLP's input: ln2 of the layer's input (parallel), or of the input plus the attention
        if (!c.parallel_residual) add_rows(h, attn);
        x = h;
        layer_norm(x, W("post_attention_layernorm.weight", {E}), &W("post_attention_layernorm.bias", {E}), c.norm_eps);
        Tensor f = linear(rows_of(x), W("mlp.dense_h_to_4h.weight", {F, E}), Layout::linear, &W("mlp.dense_h_to_4h.bias", {F}));
        activate(f, c.activation);
        const Tensor m = linear(rows_of(f), W("mlp.dense_4h_to_h.weight", {E, F}), Layout::linear, &W("mlp.dense_4h_to_h.bias", {E}));
        if (c.parallel_residual) {  // mlp_output + attn_output + hidden_states, in that order
            Tensor sum = m;
            add_rows(sum, attn);
            add_rows(sum, h);
            h = std::move(sum);
        } else {  // mlp_output + attn_output (the input plus the attention)
            Tensor sum = m;
            add_rows(sum, h);
            h = std::move(sum);
        }
    }
    if (rec.last_layer() + 1 == c.layers) {
        layer_norm_named(h, w, n.final_norm, E, c.norm_eps);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
