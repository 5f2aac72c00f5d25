// PhiModel's forward (transformers' models/phi/modeling_phi.py, eager attention; phi-1, phi-1.5,
// phi-2), also GPTJModel's (models/gptj/modeling_gptj.py) under its own names: token embeddings,
// then per layer input_layernorm (LayerNorm; GPT-J: ln_1), q/k/v projections (Phi: with biases;
// qk_layernorm: a LayerNorm over each head's q and k), RoPE on the leading partial_rotary_factor
// of each head's dims (GPT-J: rotary_dim, on pairs (2i, 2i + 1)), causal grouped-query
// attention, dense (GPT-J: out_proj, no bias); the MLP (fc1, the activation, fc2; GPT-J: fc_in,
// fc_out) on the same norm's output, and the layer's output attn + mlp + the input.
// final_layernorm (GPT-J: ln_f) at the end, whose output is the last hidden state. CodeGenModel's
// (models/codegen/modeling_codegen.py) is GPT-J's with q, k and v from one fused qkv_proj.
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

namespace {

struct ParallelNames {
    const char *norm, *q, *k, *v, *o, *fc1, *fc2, *final_norm;
};
const ParallelNames phi_names{"input_layernorm", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                              "self_attn.dense", "mlp.fc1",          "mlp.fc2",          "final_layernorm"};
const ParallelNames gptj_names{"ln_1", "attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.out_proj", "mlp.fc_in", "mlp.fc_out", "ln_f"};

// Part `part` (0 q, 1 v, 2 k) of CodeGen's qkv_proj rows (rows × 3E): its columns are mp_num = 4
// chunks of q | v | k, each E/4 wide (chunk m holds heads m·H/4 to (m + 1)·H/4 − 1, as
// _split_heads reshapes them), so the part's columns of the 4 chunks side by side are its heads
// in order.
Tensor codegen_part(const Tensor& qkv, std::size_t E, std::size_t part) {
    return column_blocks(qkv, 4, E / 4, 3 * E / 4, part * E / 4);
}

}  // namespace

void run_phi(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, G = c.kv_heads, d = c.head_dim, B = in.batch, T = in.tokens,
                      F = c.intermediate;
    const ParallelNames& n = c.arch == Architecture::phi ? phi_names : gptj_names;
    Tensor h = token_rows(c, w, in, E);
    add_token_type_rows(h, c, w, in);  // GPT-J's
    const AttentionSpec spec = c.arch == Architecture::codegen
                                   ? rope_decoder_spec(c, w, T, c.rotary_dims, "attn.qkv_proj", 3 * E)
                                   : rope_decoder_spec(c, w, T, c.rotary_dims, n.q);
    const auto ln = [&](Tensor& x, const std::string& name, std::size_t len) { layer_norm_named(x, w, name, len, c.norm_eps); };
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        rec.hidden(l, h);
        const std::string p = layer_prefix(c, l);
        const auto proj = [&](const Tensor& x, const std::string& name, std::size_t rows, std::size_t cols, bool bias) {
            return linear_named(w, p + name, x, rows, cols, bias);
        };
        Tensor x = h;
        ln(x, p + n.norm, E);
        Tensor q, k, v;
        if (c.arch == Architecture::codegen) {
            const Tensor qkv = proj(x, "attn.qkv_proj", 3 * E, E, false);
            q = codegen_part(qkv, E, 0), v = codegen_part(qkv, E, 1), k = codegen_part(qkv, E, 2);
        } else {
            q = proj(x, n.q, H * d, E, c.qkv_bias);
            k = proj(x, n.k, G * d, E, c.qkv_bias);
            v = proj(x, n.v, G * d, E, c.qkv_bias);
        }
        if (c.qk_norm) {  // each head's q and k over head_dim, before RoPE
            ln(q, p + "self_attn.q_layernorm", d);
            ln(k, p + "self_attn.k_layernorm", d);
        }
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, G, d),
                                          heads_view(v, B, T, 0, G, d), spec, rec.weights_of(l), rec.weights_stride());
        Tensor sum = proj(ctx, n.o, E, H * d, c.o_bias);
        Tensor f = proj(x, n.fc1, F, E, c.mlp_bias);
        activate(f, c.activation);
        add_rows(sum, proj(f, n.fc2, E, F, c.mlp_bias));
        add_rows(sum, h);  // attn_outputs + feed_forward_hidden_states + residual, in that order
        h = std::move(sum);
    }
    if (rec.last_layer() + 1 == c.layers) {
        ln(h, n.final_norm, E);
        rec.hidden(c.layers, h);
    }
}

}  // namespace attn::model
