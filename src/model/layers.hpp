// The layers around the attention, on activations kept as rows (a (rows × E) float32 tensor,
// every token of every batch item one row): linear layers on attn's GEMM with the weights in
// place, LayerNorm, RMSNorm, the activations, embedding lookups, and one attention layer on
// attn's engine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/model.hpp"
#include "attn/problem.hpp"
#include "attn/tensor.hpp"
#include "model/weights.hpp"

namespace attn::model {

// The rows of a tensor of any rank ≥ 2 as one matrix (its leading dimensions flattened).
MatrixView rows_of(const Tensor& t) noexcept;
Tensor new_rows(std::size_t rows, std::size_t cols);  // uninitialised

// Y = X·Wᵀ + b for nn.Linear's W (out × in), or X·W + b for GPT-2's Conv1D W (in × out).
enum class Layout { linear, conv1d };
Tensor linear(const MatrixView& X, const Weight& W, Layout layout, const Weight* bias);

// The nn.Linear `name` of the weights (name.weight rows × cols, and name.bias when `bias`) on x's
// rows; the nn.LayerNorm `name` (name.weight and name.bias, `width` long) on x, in place.
Tensor linear_named(const Weights& w, const std::string& name, const Tensor& x, std::size_t rows, std::size_t cols,
                    bool bias);
void layer_norm_named(Tensor& x, const Weights& w, const std::string& name, std::size_t width, double eps,
                      bool unit_offset = false);

// In place, row by row: nn.LayerNorm (weight, bias) and Llama's RMSNorm (weight only; bias null).
// Means and variances are accumulated in double. Both normalise each run of the weight's length
// of a row: the whole row, or each head of a projection (Qwen3's q_norm and k_norm, Phi's
// q_layernorm and k_layernorm); with unit_offset they multiply by (1 + weight), as Gemma's RMSNorm
// and Nemotron's LayerNorm1P.
void layer_norm(Tensor& X, const Weight& weight, const Weight* bias, double eps, bool unit_offset = false);
// LayerNorm without bias of each head's d columns of a projection, each head scaled by its own
// weight: `weights` holds d per head, one per column (StableLM's qk_layernorm, Cohere's q_norm).
// With d the whole row and weights all 1: a LayerNorm without weight or bias (OLMo's, OPT's
// layer_norm_elementwise_affine false).
void layer_norm_heads(Tensor& X, const std::vector<float>& weights, std::size_t d, double eps);
void rms_norm(Tensor& X, const Weight& weight, double eps, bool unit_offset = false);
// Columns of a fused projection's rows gathered: block b < blocks of `width` columns from column
// b·stride + offset, side by side (GPT-NeoX's and Persimmon's q | k | v per head: blocks = heads,
// width d, stride 3d; CodeGen's 4 chunks of q | v | k: width E/4, stride 3E/4).
Tensor column_blocks(const Tensor& x, std::size_t blocks, std::size_t width, std::size_t stride, std::size_t offset);
// x += y, row by row (the residual connections).
void add_rows(Tensor& x, const Tensor& y);
// x *= m, every element (float32 products, as torch's tensor * scalar).
void scale_rows(Tensor& x, float m);
// x clamped to [-limit, limit], every element (OLMo's clip_qkv).
void clamp_rows(Tensor& x, float limit);
// The activation in place.
void activate(Tensor& X, ModelConfig::Activation a);
// SwiGLU: gate = act(gate) · up, in place in gate.
void gated(Tensor& gate, const Tensor& up, ModelConfig::Activation a);
// The same of Phi-3's fused gate_up (rows × 2F: gate | up), into a new rows × F tensor.
Tensor gated_halves(const Tensor& gate_up, ModelConfig::Activation a);
// The sparse mixture of experts of Mixtral and Qwen MoE (ModelConfig::moe) on rows x (N × E), the
// weights under `prefix` (a layer's "block_sparse_moe." or "mlp."): the router `gate`, per token
// the softmax of its logits in float32 and the top per_token (renormalised to sum 1 with
// moe.normalize), each expert's SwiGLU on its tokens times their weights, added into zeros in
// expert order (index_add_); Qwen2-MoE's gated shared expert after. Every expert's weights are
// looked up, used or not (src/model/moe.cpp).
Tensor mixture_of_experts(const Tensor& x, const Weights& w, const std::string& prefix, const ModelConfig& c);
// Rows of an embedding table (vocab × E) for the ids, added to out (or written when !add).
void embed(Tensor& out, const Weight& table, const std::vector<std::int64_t>& ids, bool add);

// A config's RoPE for a pass over `tokens` tokens, turning the leading `dims` dims of each head:
// dynamic NTK's base and longrope's factors for that length (engine::rope_at_length), its
// frequencies checked as transformers computes them in float32 (an infinite one makes position
// 0's angle NaN there, one of 0 never turns). InputError naming `text` (the config's scaling) when
// they are not finite numbers > 0; rope_theta is a normal float32 (config.cpp): only the scaling
// can make them so.
Rope rope_for_tokens(const Rope& config_rope, std::size_t dims, std::size_t tokens, const std::string& text);

// One self-attention layer on the engine: Q, K, V are (B, H|G, T, d) views (heads as column
// blocks of the projections); spec says causal, window and RoPE. The heads' context comes back
// side by side as rows (B·T × H·dv); when `weights` is not null the (B, H, T, T) weights are
// copied to it, slice by slice with row stride `weights_stride`.
Tensor self_attention(const TensorView& Q, const TensorView& K, const TensorView& V, const AttentionSpec& spec,
                      float* weights, std::size_t weights_stride);
// The (B, heads, T, d) view of columns [col0, col0 + heads·d) of rows (B·T × C) of a projection.
// head_stride: the columns from one head's to the next's (d; GPT-NeoX's fused q | k | v: 3·d).
TensorView heads_view(const Tensor& rows, std::size_t batch, std::size_t tokens, std::size_t col0, std::size_t heads,
                      std::size_t d, std::size_t head_stride = 0);

}  // namespace attn::model
