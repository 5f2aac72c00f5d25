// MptModel's forward (transformers' models/mpt/modeling_mpt.py; mpt-7b, mpt-30b and their
// variants): word embeddings (wte; no position embeddings: ALiBi), then per block norm_1, the
// fused Wqkv (rows q | k | v, chunk(3)) clamped to ±clip_qkv when given, causal attention of
// q·kᵀ·softmax_scale plus ALiBi, out_proj, the residual; norm_2, the MLP up_proj, GELU (erf),
// down_proj, the residual. norm_f at the end, whose output is the last hidden state. No linear
// layer has a bias, no LayerNorm a bias (MptBlock sets them to None).
// ALiBi: MptModel adds slope_h·(j − (T − 1)) to every row's scores (the last T columns of its
// tensor over max_seq_len), attn's engine slope_h·(j − i): the same weights, as a softmax row is
// unchanged by a constant, up to float32 rounding. build_mpt_alibi_tensor's slopes (2^(−8i/n')
// for the n' = 2^⌈log2 n⌉ heads, the even i first) are build_alibi_tensor's (BLOOM's) for every
// head count.
#include <cmath>
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_mpt(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    Tensor h = token_rows(c, w, in, E);
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    spec.alibi = 8.0f;  // (attn/problem.hpp: BLOOM's slopes)
    spec.scale = c.attention_multiplier != 0 ? float(c.attention_multiplier) : float(1.0 / std::sqrt(double(d)));
    const auto ln = [&](Tensor& x, const std::string& name) { layer_norm(x, w.get(name + ".weight", {E}), nullptr, c.norm_eps); };
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto proj = [&](const Tensor& x, const std::string& name, std::size_t rows, std::size_t cols) {
            return linear_named(w, p + name, x, rows, cols, false);
        };
        Tensor x = h;
        ln(x, p + "norm_1");
        Tensor qkv = proj(x, "attn.Wqkv", 3 * E, E);
        if (c.clip_qkv > 0) clamp_rows(qkv, c.clip_qkv);  // mixed_qkv.clamp(min=-clip_qkv, max=clip_qkv)
        const Tensor ctx = self_attention(heads_view(qkv, B, T, 0, H, d), heads_view(qkv, B, T, E, H, d),
                                          heads_view(qkv, B, T, 2 * E, H, d), spec, rec.weights_of(l),
                                          rec.weights_stride());
        add_rows(h, proj(ctx, "attn.out_proj", E, E));
        x = h;
        ln(x, p + "norm_2");
        Tensor f = proj(x, "ffn.up_proj", F, E);
        activate(f, c.activation);
        add_rows(h, proj(f, "ffn.down_proj", E, F));
    }
    if (rec.last_layer() + 1 == c.layers) {
        ln(h, "norm_f");
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
