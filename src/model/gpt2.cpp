// GPT2Model's forward (transformers' models/gpt2/modeling_gpt2.py): token + position
// embeddings (+ the token types', looked up in the token embeddings), then per block ln_1,
// the fused c_attn (Conv1D: x·W, E × 3E, columns q | k | v), causal attention, c_proj, the
// residual, ln_2, the GELU (tanh) MLP, the residual (pre-LN); ln_f at the end, whose output is
// the last hidden state.
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
    std::vector<std::int64_t> positions(B * T);
    for (std::size_t i = 0; i < B * T; ++i) positions[i] = std::int64_t(i % T);
    embed(h, w.table("wpe.weight", {c.max_positions, E}), positions, true);
    if (!in.token_types.empty()) embed(h, embeddings, in.token_types, true);  // + self.wte(token_type_ids)
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        // GPT2Attention: the scores over √d (scale_attn_weights), then over layer_idx + 1
        // (scale_attn_by_inverse_layer_idx); the default is the engine's 1/√d.
        if (!c.scale_attn_weights || c.scale_by_inverse_layer)
            spec.scale = float((c.scale_attn_weights ? 1.0 / std::sqrt(double(d)) : 1.0) /
                               (c.scale_by_inverse_layer ? double(l + 1) : 1.0));
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        Tensor x = h;
        layer_norm(x, W("ln_1.weight", {E}), &W("ln_1.bias", {E}), c.norm_eps);
        const Tensor qkv = linear(rows_of(x), W("attn.c_attn.weight", {E, 3 * E}), Layout::conv1d, &W("attn.c_attn.bias", {3 * E}));
        const Tensor ctx = self_attention(heads_view(qkv, B, T, 0, H, d), heads_view(qkv, B, T, E, H, d),
                                          heads_view(qkv, B, T, 2 * E, H, d), spec, rec.weights_of(l), rec.weights_stride());
        add_rows(h, linear(rows_of(ctx), W("attn.c_proj.weight", {E, E}), Layout::conv1d, &W("attn.c_proj.bias", {E})));
        x = h;
        layer_norm(x, W("ln_2.weight", {E}), &W("ln_2.bias", {E}), c.norm_eps);
        Tensor f = linear(rows_of(x), W("mlp.c_fc.weight", {E, F}), Layout::conv1d, &W("mlp.c_fc.bias", {F}));
        activate(f, c.activation);
        add_rows(h, linear(rows_of(f), W("mlp.c_proj.weight", {F, E}), Layout::conv1d, &W("mlp.c_proj.bias", {E})));
    }
    if (rec.last_layer() + 1 == c.layers) {
        layer_norm(h, w.get("ln_f.weight", {E}), &w.get("ln_f.bias", {E}), c.norm_eps);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
