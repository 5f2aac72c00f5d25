// What the architectures share: the checked input, the results being filled, and one
// forward function per architecture (src/model/bert.cpp, gpt2.cpp, llama.cpp, phi.cpp,
// starcoder2.cpp, stablelm.cpp, gpt_neox.cpp, bloom.cpp, mpt.cpp, falcon.cpp, opt.cpp, gpt_neo.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/model.hpp"
#include "model/weights.hpp"

namespace attn::model {

// The results of one forward pass, filled layer by layer.
class Recorder {
public:
    Recorder(const ModelConfig& c, const ModelInput& in, const ForwardWants& wants);
    // The last layer the pass must run (all of them when hidden states are wanted).
    static std::size_t last_layer(const ModelConfig& c, const ForwardWants& wants) noexcept {
        return wants.hidden_states || !wants.layer ? c.layers - 1 : *wants.layer;
    }
    std::size_t last_layer() const noexcept { return last_; }
    // Where layer l's (B, H, T, T) weights go (row stride: weights_stride()), or null when not kept.
    // With ForwardWants::layer, the other layers get a scratch buffer: their attention then runs as
    // in a run that keeps every layer's weights (the engine's materialised path, whose context
    // differs from the streaming one's in the last bits), so layer L's weights, and the hidden
    // states, are the full run's bit for bit.
    float* weights_of(std::size_t l) noexcept;
    std::size_t weights_stride() const noexcept { return result_.attentions.row_stride(); }
    // Hidden state k (0: the embeddings), rows B·T × E.
    void hidden(std::size_t k, const Tensor& rows);
    ForwardResult take() && { return std::move(result_); }

private:
    ForwardWants wants_;
    std::size_t last_ = 0, B_ = 0, T_ = 0;
    ForwardResult result_;
    Tensor scratch_;  // the weights of the layers before ForwardWants::layer, not kept
};

// The names of layer l's weights begin with this: "encoder.layer.3.", "h.3.", "layers.3.".
std::string layer_prefix(const ModelConfig& c, std::size_t l);
// The token embedding table's name ("wte.weight"): read first, and what tells a task model's
// prefix ("transformer.") from the base model's.
const char* token_embeddings(Architecture arch);
// The token embeddings' width: embedding_size (ELECTRA, ALBERT; OPT's word_embed_proj_dim) when
// given, else hidden_size.
std::size_t embedding_width(const ModelConfig& c);
// The rows (batch·tokens × width) of the ids' token embeddings: the table token_embeddings(arch),
// vocab × width, its shape checked before any buffer is allocated.
Tensor token_rows(const ModelConfig& c, const Weights& w, const ModelInput& in, std::size_t width);
// GPT-2's token_type_ids (also GPTBigCode's, GPT-Neo's, GPT-J's), when given: their rows of the
// token embeddings added to rows (hidden_states + self.wte(token_type_ids)).
void add_token_type_rows(Tensor& rows, const ModelConfig& c, const Weights& w, const ModelInput& in);
// Learned absolute positions (GPT-2's wpe, GPT-Neo's, OPT's): row t + offset of the table `name`
// (table_rows × the rows' width) added to every batch item's token t.
void add_position_rows(Tensor& rows, const Weights& w, const std::string& name, std::size_t table_rows,
                       const ModelInput& in, std::int64_t offset = 0);
// A RoPE decoder's attention over `tokens` tokens (Phi, GPT-J, StarCoder2, StableLM, Cohere,
// OLMo, Falcon): causal, the scale head_dim ** -0.5, RoPE (layers.hpp's rope_for_tokens) on the
// leading `dims` dims of each head, made once layer 0's query projection `q_proj` (`rows` ×
// hidden; 0: heads · head_dim, else a fused one's) has confirmed head_dim.
AttentionSpec rope_decoder_spec(const ModelConfig& c, const Weights& w, std::size_t tokens, std::size_t dims,
                                const std::string& q_proj = "self_attn.q_proj", std::size_t rows = 0);

// BertEmbeddings' position ids (0, 1, 2, ... in every batch item), or RobertaEmbeddings' (the
// tokens that are not padding_idx numbered from padding_idx + 1, padding keeps padding_idx).
std::vector<std::int64_t> position_ids(const ModelConfig& c, const ModelInput& in);

void run_bert(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_gpt2(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_llama(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_gpt_neox(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);  // and Persimmon's
void run_bloom(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_mpt(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_falcon(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_opt(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_gpt_neo(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);
void run_phi(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);  // and GPT-J's
void run_starcoder2(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);  // and Nemotron's
void run_stablelm(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec);  // and Cohere's, OLMo's

}  // namespace attn::model
