// GPTNeoModel's forward (transformers' models/gpt_neo/modeling_gpt_neo.py; gpt-neo-125m, 1.3B,
// 2.7B): token + position embeddings (wte, wpe; + the token types', looked up in wte), then per
// block ln_1, q/k/v projections without biases, attention without any scaling of q·kᵀ, causal
// ("global" layers) or causal within window_size keys ("local": each token sees itself and
// window_size - 1 before), out_proj, the residual, ln_2, the MLP c_fc, the activation, c_proj, the
// residual; ln_f at the end, whose output is the last hidden state.
#include <string>
#include <vector>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

void run_gpt_neo(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    Tensor h = token_rows(c, w, in, E);
    add_position_rows(h, w, "wpe.weight", c.max_positions, in);
    add_token_type_rows(h, c, w, in);
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    spec.scale = 1.0f;  // GPTNeoSelfAttention: torch.matmul(query, key.transpose(-1, -2)), unscaled
    const auto ln = [&](Tensor& x, const std::string& name) { layer_norm_named(x, w, name, E, c.norm_eps); };
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        spec.window = c.attention_window(l);  // local layers: bias ^ tril(bias, -window_size)
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto proj = [&](const Tensor& x, const std::string& name, std::size_t rows, std::size_t cols, bool bias) {
            return linear_named(w, p + name, x, rows, cols, bias);
        };
        Tensor x = h;
        ln(x, p + "ln_1");
        const Tensor q = proj(x, "attn.attention.q_proj", E, E, false), k = proj(x, "attn.attention.k_proj", E, E, false),
                     v = proj(x, "attn.attention.v_proj", E, E, false);
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, H, d),
                                          heads_view(v, B, T, 0, H, d), spec, rec.weights_of(l), rec.weights_stride());
        add_rows(h, proj(ctx, "attn.attention.out_proj", E, E, true));
        x = h;
        ln(x, p + "ln_2");
        Tensor f = proj(x, "mlp.c_fc", F, E, true);
        activate(f, c.activation);
        add_rows(h, proj(f, "mlp.c_proj", E, F, true));
    }
    if (rec.last_layer() + 1 == c.layers) {
        ln(h, "ln_f");
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
