// GPT2Model's forward (transformers' models/gpt2/modeling_gpt2.py): token + position
// embeddings (+ the token types', looked up in the token embeddings), then per block ln_1,
// the fused c_attn (Conv1D: x·W, E × 3E, columns q | k | v), causal attention, c_proj, the
// residual, ln_2, the GELU (tanh) MLP, the residual (pre-LN); ln_f at the end, whose output is
// the last hidden state. GPTBigCodeModel (models/gpt_bigcode/modeling_gpt_bigcode.py) is the same
// with nn.Linear layers (W·x) and c_attn's columns q | k | v of one K/V head (multi_query), or
// q, k, v per head.
#include <cmath>
#include <string>

#include "attn/error.hpp"

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_gpt2(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    if (H * d != E) throw InputError("gpt2: n_embd " + std::to_string(E) + " is not a multiple of n_head");
    const Weight& embeddings = w.table(token_embeddings(c.arch), {c.vocab, E});  // its shape checked before any buffer
    Tensor h = new_rows(B * T, E);
    embed(h, embeddings, in.ids, false);
    add_position_rows(h, w, "wpe.weight", c.max_positions, in);
    add_token_type_rows(h, c, w, in);
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    const bool bigcode = c.arch == Architecture::gpt_bigcode, mqa = c.kv_heads == 1 && H > 1;
    const Layout layout = bigcode ? Layout::linear : Layout::conv1d;
    const std::size_t QKV = H * d + 2 * c.kv_heads * d;
    // c_attn's columns: GPT-2's q | k | v blocks of E; GPTBigCode's q | k | v with one K/V head, or
    // per head q, k, v ((heads, 3·d), as its view splits them)
    const std::size_t k0 = !bigcode ? E : mqa ? E : d, v0 = !bigcode ? 2 * E : mqa ? E + d : 2 * d;
    const std::size_t q_stride = bigcode && !mqa ? 3 * d : 0, kv_stride = q_stride;
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        // GPT2Attention: the scores over √d (scale_attn_weights), then over layer_idx + 1
        // (scale_attn_by_inverse_layer_idx); the default is the engine's 1/√d.
        if (!c.scale_attn_weights || c.scale_by_inverse_layer)
            spec.scale = float((c.scale_attn_weights ? 1.0 / std::sqrt(double(d)) : 1.0) /
                               (c.scale_by_inverse_layer ? double(l + 1) : 1.0));
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        // The layer `name` (in × out features) and its bias: Conv1D's weight is in × out, nn.Linear's out × in.
        const auto layer = [&](const Tensor& x, const std::string& name, std::size_t inputs, std::size_t out) {
            return linear(rows_of(x), w.get(p + name + ".weight", {bigcode ? out : inputs, bigcode ? inputs : out}), layout,
                          &w.get(p + name + ".bias", {out}));
        };
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        Tensor x = h;
        layer_norm(x, W("ln_1.weight", {E}), &W("ln_1.bias", {E}), c.norm_eps);
        const Tensor qkv = layer(x, "attn.c_attn", E, QKV);
        const Tensor ctx = self_attention(heads_view(qkv, B, T, 0, H, d, q_stride), heads_view(qkv, B, T, k0, c.kv_heads, d, kv_stride),
                                          heads_view(qkv, B, T, v0, c.kv_heads, d, kv_stride), spec, rec.weights_of(l),
                                          rec.weights_stride());
        add_rows(h, layer(ctx, "attn.c_proj", E, E));
        x = h;
        layer_norm(x, W("ln_2.weight", {E}), &W("ln_2.bias", {E}), c.norm_eps);
        Tensor f = layer(x, "mlp.c_fc", E, F);
        activate(f, c.activation);
        add_rows(h, layer(f, "mlp.c_proj", F, E));
    }
    if (rec.last_layer() + 1 == c.layers) {
        layer_norm(h, w.get("ln_f.weight", {E}), &w.get("ln_f.bias", {E}), c.norm_eps);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
