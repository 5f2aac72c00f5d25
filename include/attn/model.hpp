// Hugging Face transformer checkpoints run forward: a model folder (config.json and its
// weights) and token ids in, every layer's and head's attention weights and the hidden states
// out, shaped as transformers' `output_attentions` / `output_hidden_states` stacked.
//
// Architectures (config.json's model_type):
//   bert                   BertModel: word + position + token-type embeddings, post-LN layers,
//                          GELU (erf), no mask (every token sees every token)
//   roberta, xlm-roberta   RobertaModel: BertModel's layers; positions count from pad_token_id + 1
//                          over the tokens that are not pad_token_id (which keep pad_token_id)
//   electra                ElectraModel: BertModel's layers after embeddings embedding_size wide,
//                          projected to hidden_size (embeddings_project) when the two differ
//   distilbert             DistilBertModel: BertModel's layers under other names, no token types
//   albert                 AlbertModel: BertModel's layers under other names, shared by
//                          num_hidden_groups, after embeddings embedding_size wide mapped to hidden_size
//   gpt2                   GPT2Model: pre-LN, Conv1D layout (x·W) with the fused c_attn, causal,
//                          GELU (tanh), ln_f; scale_attn_weights, scale_attn_by_inverse_layer_idx
//   gpt_bigcode            GPTBigCodeModel (StarCoder, SantaCoder): GPT-2's block with nn.Linear
//                          layers and one K/V head (multi_query)
//   gpt_neo                GPTNeoModel: GPT-2's layout with q/k/v/out_proj, no scaling of q·kᵀ,
//                          "local" layers seeing window_size tokens
//   opt                    OPTModel: learned positions (offset 2), pre-LN (do_layer_norm_before) or
//                          post-LN layers, ReLU; word_embed_proj_dim's project_in (attentions only)
//   gptj                   GPTJModel: LayerNorm, RoPE on rotary_dim of each head on pairs
//                          (2i, 2i + 1), the attention and the MLP side by side (fc_in, fc_out), ln_f
//   codegen                CodeGenModel: GPT-J's layer with the fused qkv_proj (4 chunks of q | v | k)
//   llama, mistral, qwen2, LlamaModel: RMSNorm, RoPE (rope_theta; rope_scaling linear, llama3,
//   qwen3                  dynamic and yarn, or v5's rope_parameters), grouped-query heads, SwiGLU; Mistral's
//                          sliding_window; Qwen2's Q/K/V biases and sliding layers; Qwen3's
//                          q_norm and k_norm (RMSNorm over each head's q and k, before RoPE)
//   gemma, gemma2          the same, with embeddings ·√hidden_size, RMSNorm by (1 + weight),
//                          GeGLU, head_dim its own; Gemma 2's norms after the attention and
//                          around the MLP, query_pre_attn_scalar, attn_logit_softcapping and
//                          sliding layers
//   gemma3_text, gemma3    Gemma 2's layer with q_norm and k_norm, sliding layers with a RoPE of
//                          their own; EmbeddingGemma's bidirectional window; gemma3: the language
//                          model of Gemma3ForConditionalGeneration (text_config)
//   phi3                   the fused qkv_proj and gate_up_proj, partial_rotary_factor, LongRoPE
//   glm, glm4              the fused gate_up_proj, Q/K/V biases, RoPE on pairs (2i, 2i + 1) of the
//                          leading partial_rotary_factor of each head; GLM-4's sandwich norms
//   phi                    PhiModel (phi-1, phi-1.5, phi-2): LayerNorm, q/k/v with biases, RoPE on
//                          partial_rotary_factor of each head, the attention and the MLP side by
//                          side (fc1, fc2), qk_layernorm, final_layernorm
//   starcoder2             Starcoder2Model: the Llama layer with LayerNorm, biases (use_bias), the
//                          MLP c_fc and c_proj, sliding_window
//   stablelm               StableLmModel: the Llama layer with LayerNorm, Q/K/V biases
//                          (use_qkv_bias), RoPE on partial_rotary_factor of each head, qk_layernorm
//                          (a LayerNorm of each head's own), use_parallel_residual
//   cohere, cohere2        CohereModel: LayerNorm without bias, RoPE on pairs (2i, 2i + 1), the
//                          attention and the MLP side by side, use_qk_norm (each head's own weight);
//                          Cohere 2's sliding layers, RoPE only on them
//   olmo                   OlmoModel: the Llama layer with LayerNorm without weight or bias,
//                          clip_qkv
//   nemotron               NemotronModel (Minitron, Nemotron-Mini): StarCoder2's layer with LayerNorm by
//                          (1 + weight), RoPE on partial_rotary_factor of each head, up_proj, relu2, down_proj
//   gpt_neox               GPTNeoXModel: LayerNorm, the fused query_key_value per head, RoPE on
//                          rotary_pct of each head, use_parallel_residual
//   persimmon              PersimmonModel: GPT-NeoX's serial layer, qk_layernorm (one LayerNorm for
//                          every head's q, one for k), relu2
//   granite                LlamaModel's layer with embedding_multiplier, attention_multiplier (the
//                          scores' scale) and residual_multiplier
//   mixtral                Mistral's layer with a sparse mixture of experts for the MLP
//   qwen2_moe, qwen3_moe   Qwen2's and Qwen3's layers with one (Qwen2-MoE: and a shared expert)
//   olmo2, olmo3           LlamaModel's layer with the norms after the attention and the MLP
//                          (none before), q_norm and k_norm over the whole projection; OLMo 3's
//                          sliding layers
//   smollm3                LlamaModel's layer without RoPE on no_rope_layers' layers
//   bloom                  BloomModel: ALiBi (BLOOM's slopes), LayerNorm on the embeddings, the
//                          fused query_key_value per head, GELU (tanh), ln_f;
//                          apply_residual_connection_post_layernorm
//   mpt                    MptModel: ALiBi (BLOOM's slopes), the fused Wqkv (rows q | k | v),
//                          no biases, LayerNorms without bias, GELU; softmax_scale, clip_qkv
//   falcon                 FalconModel: LayerNorm, the fused query_key_value per K/V group
//                          (new_decoder_architecture, multi_query), RoPE, the attention and the MLP
//                          side by side (ln_attn and ln_mlp, or one norm) or one after the other
// The attention runs on attn's engine (attn/multihead.hpp's batched_attention: causal rule,
// window, RoPE and grouped-query heads of the resolved problem), the linear layers on attn's
// GEMM with the weights where they lie in the mapped files (float16 and bfloat16 widened as
// the GEMM packs them), all arithmetic in float32.
//
// The weights: model.safetensors, or the shards a model.safetensors.index.json names; PATH
// may be a hub cache snapshot folder (its files are links into blobs/). A folder with only
// pytorch_model.bin (or the shards a pytorch_model.bin.index.json names) is read through
// attn/model_file.hpp (FILE.bin:NAME), tensor by tensor, as float32 copies.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/problem.hpp"
#include "attn/tensor.hpp"

namespace attn::model {

enum class Architecture {
    bert, distilbert, albert, gpt2, gpt_bigcode, gpt_neo, gptj, codegen, opt, llama, phi, starcoder2, stablelm, cohere, olmo,
    gpt_neox, persimmon, bloom, mpt, falcon, nemotron
};
// An encoder (bert, distilbert, albert): every token sees every token, no mask of any kind.
inline bool is_encoder(Architecture a) noexcept {
    return a == Architecture::bert || a == Architecture::distilbert || a == Architecture::albert;
}
// Token types as segments (BERT's and ALBERT's token_type_embeddings: A = 0, B = 1).
inline bool takes_segments(Architecture a) noexcept { return a == Architecture::bert || a == Architecture::albert; }
// Token types as token ids (GPT-2's token_type_ids, looked up in the token embeddings and added).
inline bool takes_type_ids(Architecture a) noexcept {
    return a == Architecture::gpt2 || a == Architecture::gpt_bigcode || a == Architecture::gpt_neo || a == Architecture::gptj ||
           a == Architecture::codegen;
}

// The model_type values attn runs, for messages: "bert, roberta, ..., falcon".
const char* known_model_types() noexcept;

// What config.json says, resolved (defaults as transformers' config classes have them).
struct ModelConfig {
    std::string model_type;  // as written
    Architecture arch = Architecture::bert;
    std::size_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0;
    std::size_t vocab = 0, max_positions = 0, type_vocab = 0;  // max_positions 0: no limit (RoPE)
    std::string positions_key = "max_position_embeddings";    // config.json's name of it (GPT-2: n_positions)
    double norm_eps = 1e-12;
    enum class Activation { gelu_erf, gelu_tanh, quick_gelu, relu, relu2, silu, tanh } activation = Activation::gelu_erf;
    Rope rope;                          // theta 0 for bert and gpt2
    std::string rope_scaling_text;      // for messages: "DIR/config.json: \"rope_scaling\": linear factor 2"
    Rope sliding_rope;                  // Gemma 3: the sliding layers' own (theta 0: `rope` on every layer)
    std::string sliding_rope_text;      // its rope_scaling_text
    std::size_t sliding_window = 0;     // 0: none (Mistral: each token sees itself and W - 1 before)
    std::vector<bool> slides;           // per layer: the sliding window applies (empty: every layer)
    std::vector<bool> rope_layers;      // per layer: RoPE turns q and k (SmolLM3's no_rope_layers, Cohere 2's sliding
                                        // layers; empty: every layer)
    bool qkv_bias = false, o_bias = false, mlp_bias = false;  // the q/k/v, output and MLP projections' biases
    bool qk_norm = false;  // Qwen3: self_attn.q_norm and k_norm, RMSNorm over head_dim (Phi, Persimmon: LayerNorm;
                           // StableLM, Cohere: a LayerNorm weight of each head's own)
    bool qk_norm_whole = false;  // OLMo 2: q_norm and k_norm over the whole projection (heads · head_dim)
    bool fused_qkv = false;      // Phi-3: self_attn.qkv_proj (rows q | k | v)
    bool fused_gate_up = false;  // Phi-3, GLM: mlp.gate_up_proj (rows gate | up)
    bool glm4_norm_names = false;  // GLM-4's sandwich norms: post_self_attn_layernorm after the attention,
                                   // post_attention_layernorm before the MLP, post_mlp_layernorm after it
    bool parallel_residual = false;  // the attention and the MLP side by side (GPT-NeoX's use_parallel_residual:
                                     // x + attn(ln1(x)) + mlp(ln2(x)); StableLM, Cohere, Falcon: of one norm's output)
    bool split_norms = false;  // Falcon's new_decoder_architecture: ln_attn before the attention, ln_mlp before the MLP
    bool residual_from_norm = false;  // BLOOM's apply_residual_connection_post_layernorm: ln(x) + attn(ln(x))
    std::size_t rotary_dims = 0;     // partial_rotary_factor (Phi-3, Phi, StableLM, Persimmon), rotary_pct (GPT-NeoX), rotary_dim
                                     // (GPT-J): the leading dims of each head RoPE turns (0: all)
    bool embed_scale = false, unit_offset_norm = false;  // Gemma: embeddings ·√hidden, RMSNorm by (1 + weight)
                                                          // (Nemotron: LayerNorm by (1 + weight))
    bool sandwich_norms = false;  // Gemma 2: post_attention_layernorm on the attention's output,
                                  // pre_ and post_feedforward_layernorm around the MLP
    bool post_norms = false;  // OLMo 2: no norm before the attention and the MLP, post_attention_layernorm
                              // and post_feedforward_layernorm on their outputs
    double query_scalar = 0;      // Gemma 2: the scale query_pre_attn_scalar ** -0.5 (0: head_dim's)
    double attention_multiplier = 0;  // Granite: the scale itself (0: none; MPT's softmax_scale)
    // Mixtral, Qwen2-MoE, Qwen3-MoE: the MLP a sparse mixture of experts (src/model/moe.cpp)
    struct MixtureOfExperts {
        std::size_t experts = 0;              // 0: a plain MLP
        std::size_t per_token = 0;            // num_experts_per_tok, weighted by the router's softmax
        std::size_t intermediate = 0;         // each expert's (Qwen: moe_intermediate_size; 0: intermediate)
        std::size_t shared_intermediate = 0;  // Qwen2-MoE's shared expert behind a sigmoid gate (0: none)
        bool normalize = true;                // the top weights divided by their sum (Qwen: norm_topk_prob)
        bool mixtral_names = true;            // block_sparse_moe.experts.N.w1, w3, w2; else mlp.experts.N.*_proj
        std::vector<bool> dense_layers;       // per layer: a plain MLP instead (Qwen's mlp_only_layers,
                                              // decoder_sparse_step; empty: none)
        bool at(std::size_t l) const { return experts && (dense_layers.empty() || !dense_layers[l]); }
    } moe;
    float embedding_multiplier = 1, residual_multiplier = 1;  // Granite: embeddings · m; x + layer(x) · m
    float softcap = 0;            // Gemma 2: attn_logit_softcapping (0: none)
    float clip_qkv = 0;           // OLMo: q, k and v clamped to [-clip_qkv, clip_qkv] (0: none)
    bool bidirectional = false;   // EmbeddingGemma: no causal rule; sliding layers see |i - j| < sliding_window
    bool scale_attn_weights = true, scale_by_inverse_layer = false;  // gpt2: 1/√d, and 1/(layer + 1)
    bool absolute_positions = true;  // bert: position embeddings added (position_embedding_type null: none)
    std::size_t embedding_size = 0;  // ELECTRA: the embeddings' width (0: hidden), projected to hidden when it differs
                                     // (ALBERT: always, by encoder.embedding_hidden_mapping_in; OPT's
                                     // word_embed_proj_dim, projected back by project_out at the end)
    std::size_t layer_groups = 1;    // ALBERT's num_hidden_groups: layer l runs group l·groups/layers's weights
    bool norm_before = true;   // OPT's do_layer_norm_before (false: each LayerNorm after its residual, as opt-350m)
    bool final_norm = true;    // OPT: the decoder's final_layer_norm (none post-LN or with _remove_final_layer_norm)
    bool norm_affine = true;   // OPT's layer_norm_elementwise_affine (false: LayerNorms without weight or bias)
    // roberta: pad_token_id, the padding_idx of RobertaEmbeddings' position ids; none: 0, 1, 2, ...
    std::optional<std::int64_t> padding_idx;
    std::vector<std::string> notes;  // for stderr: readings of config.json that transformers' versions differ on

    // The sliding window of layer l (0: none): Qwen2's slides from max_window_layers on.
    std::size_t window_of(std::size_t l) const { return slides.empty() || slides[l] ? sliding_window : 0; }
    // Layer l's window as the engine takes it: kv_idx > q_idx - sliding_window, each token seeing
    // itself and W - 1 before (EmbeddingGemma's bidirectional one: |q_idx - kv_idx| < W); none
    // without a window.
    Window attention_window(std::size_t l) const {
        const std::size_t w = window_of(l);
        return w ? Window{w - 1, bidirectional ? w - 1 : unbounded} : Window{};
    }
    // The RoPE of layer l: Gemma 3's sliding layers have their own.
    const Rope& rope_of(std::size_t l) const { return sliding_rope.theta > 0 && window_of(l) ? sliding_rope : rope; }
    // Whether RoPE turns layer l's q and k (SmolLM3's NoPE layers, Cohere 2's full layers: not).
    bool has_rope(std::size_t l) const { return rope_layers.empty() || rope_layers[l]; }
};

// config.json's text into a ModelConfig. InputError naming `source` for JSON errors, an
// unknown model_type (listing the known ones), a missing or bad field, or a feature of the
// checkpoint attn does not run (e.g. "position_embedding_type": "relative_key").
ModelConfig parse_model_config(const std::string& text, const std::string& source);

// Token ids: batch rows of equal length, and BERT's token types (empty: all 0).
struct ModelInput {
    std::size_t batch = 1, tokens = 0;
    std::vector<std::int64_t> ids;          // batch × tokens, row by row
    std::vector<std::int64_t> token_types;  // empty or batch × tokens
};

struct ForwardWants {
    bool attentions = true, hidden_states = false;
    std::optional<std::size_t> layer;  // only this layer's attentions (the run stops after it
                                       // unless hidden states are wanted)
};

struct ForwardResult {
    Tensor attentions;     // (L, B, H, T, T), or (1, B, H, T, T) for one layer; rank 0 when not wanted
    Tensor hidden_states;  // (L + 1, B, T, E): the embeddings, then each layer's output (the last
                           // after ln_f / norm for gpt2 and llama, as transformers gives them)
    std::vector<std::string> notes;  // for stderr: what the weights hold that the pass left unused
};

class Weights;  // the mapped weight files (src/model/weights.hpp)

class Model {
public:
    // Reads PATH/config.json and maps the weights. InputError for a folder that is no model
    // folder (naming what is missing), a bad config, or missing or misshapen weights.
    explicit Model(const std::string& folder);
    ~Model();
    Model(Model&&) noexcept;
    Model& operator=(Model&&) noexcept;

    const ModelConfig& config() const noexcept { return config_; }
    // The forward pass. InputError for ids outside the vocabulary, token types outside
    // type_vocab_size, more tokens than max_position_embeddings (bert, gpt2; roberta: a position
    // id past the table), a layer past the last.
    ForwardResult forward(const ModelInput& input, const ForwardWants& wants) const;

private:
    ModelConfig config_;
    std::unique_ptr<Weights> weights_;
};

}  // namespace attn::model
