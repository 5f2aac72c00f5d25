// BloomModel's forward (transformers' models/bloom/modeling_bloom.py): word embeddings and
// word_embeddings_layernorm (no position embeddings: ALiBi), then per block input_layernorm,
// the fused query_key_value whose columns are per head q | k | v (view(..., heads, 3, d)),
// causal attention with ALiBi, dense, the residual; post_attention_layernorm, the MLP
// dense_h_to_4h, BLOOM's GELU (tanh form), dense_4h_to_h, the residual. With
// apply_residual_connection_post_layernorm both residuals are the LayerNorm's output instead of
// its input. ln_f at the end, whose output is the last hidden state. With pretraining_tp > 1 and
// slow_but_exact, transformers sums self_attention.dense and mlp.dense_4h_to_h slice by slice
// from zeros and leaves out their biases (ModelConfig::o_bias, mlp_bias false); the slices' sum
// is the whole product to float32 rounding.
// ALiBi: BLOOM adds slope_h·j (the key's position) to row i's scores, attn's engine
// slope_h·(j − i): the same weights, as a softmax row is unchanged by a constant
// (build_alibi_tensor's own note), up to float32 rounding.
#include <cmath>
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_bloom(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    Tensor h = token_rows(c, w, in, E);
    layer_norm(h, w.get("word_embeddings_layernorm.weight", {E}), &w.get("word_embeddings_layernorm.bias", {E}),
               c.norm_eps);
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    spec.alibi = 8.0f;  // build_alibi_tensor's slopes: 2^(−8/n) and its powers (attn/problem.hpp)
    spec.scale = float(1.0 / std::sqrt(double(d)));  // inv_norm_factor
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        Tensor x = h;
        layer_norm(x, W("input_layernorm.weight", {E}), &W("input_layernorm.bias", {E}), c.norm_eps);
        const Tensor qkv = linear(rows_of(x), W("self_attention.query_key_value.weight", {3 * E, E}), Layout::linear,
                                  &W("self_attention.query_key_value.bias", {3 * E}));
        // head h's q, k and v: columns h·3d + [0, d), [d, 2d), [2d, 3d)
        const Tensor ctx = self_attention(heads_view(qkv, B, T, 0, H, d, 3 * d), heads_view(qkv, B, T, d, H, d, 3 * d),
                                          heads_view(qkv, B, T, 2 * d, H, d, 3 * d), spec, rec.weights_of(l),
                                          rec.weights_stride());
        // (pretraining_tp with slow_but_exact: the two output projections without their biases,
        // which the model holds all the same: looked up where present, never read, so that the
        // note on unused tensors does not name them)
        const auto bias_unread = [&](const std::string& n) {
            if (w.has(p + n)) w.table(p + n, {E});
        };
        if (!c.o_bias) bias_unread("self_attention.dense.bias");
        if (!c.mlp_bias) bias_unread("mlp.dense_4h_to_h.bias");
        Tensor a = linear(rows_of(ctx), W("self_attention.dense.weight", {E, E}), Layout::linear,
                          c.o_bias ? &W("self_attention.dense.bias", {E}) : nullptr);
        add_rows(a, c.residual_from_norm ? x : h);
        x = a;
        layer_norm(x, W("post_attention_layernorm.weight", {E}), &W("post_attention_layernorm.bias", {E}), c.norm_eps);
        Tensor f = linear(rows_of(x), W("mlp.dense_h_to_4h.weight", {F, E}), Layout::linear, &W("mlp.dense_h_to_4h.bias", {F}));
        activate(f, c.activation);
        h = linear(rows_of(f), W("mlp.dense_4h_to_h.weight", {E, F}), Layout::linear,
                   c.mlp_bias ? &W("mlp.dense_4h_to_h.bias", {E}) : nullptr);
        add_rows(h, c.residual_from_norm ? x : a);
    }
    if (rec.last_layer() + 1 == c.layers) {
        layer_norm(h, w.get("ln_f.weight", {E}), &w.get("ln_f.bias", {E}), c.norm_eps);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
