// attn::model::Model: the folder opened, the input checked, the architecture's forward pass run
// (attn/model.hpp).
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <set>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model.hpp"
#include "model/layers.hpp"
#include "model/model_run.hpp"
#include "model/weights.hpp"

namespace attn::model {

namespace {

// Where each architecture keeps its weights, under the base model's names: the token embedding
// table, and the stem of its layers' names (the layer's index and "." follow; ALBERT's: its group's);
// and the prefix a task model's checkpoint (BertForMaskedLM, GPT2LMHeadModel, LlamaForCausalLM)
// nests the base model's names under (transformers' base_model_prefix and a ".").
struct WeightNames {
    const char* token_embeddings;
    const char* layers;
    const char* task_prefix;
};
WeightNames weight_names(Architecture arch) {
    switch (arch) {
        case Architecture::bert: return {"embeddings.word_embeddings.weight", "encoder.layer.", "bert."};
        case Architecture::distilbert: return {"embeddings.word_embeddings.weight", "transformer.layer.", "distilbert."};
        case Architecture::albert: return {"embeddings.word_embeddings.weight", "encoder.albert_layer_groups.", "albert."};
        case Architecture::gpt2:
        case Architecture::gpt_bigcode:
        case Architecture::gptj:
        case Architecture::codegen:
        case Architecture::gpt_neo: return {"wte.weight", "h.", "transformer."};
        case Architecture::bloom:
        case Architecture::falcon: return {"word_embeddings.weight", "h.", "transformer."};
        case Architecture::mpt: return {"wte.weight", "blocks.", "transformer."};
        case Architecture::gpt_neox: return {"embed_in.weight", "layers.", "gpt_neox."};
        case Architecture::opt: return {"decoder.embed_tokens.weight", "decoder.layers.", "model."};
        case Architecture::llama:
        case Architecture::phi:
        case Architecture::starcoder2:
        case Architecture::nemotron:
        case Architecture::persimmon:
        case Architecture::stablelm:
        case Architecture::cohere:
        case Architecture::olmo: break;
    }
    return {"embed_tokens.weight", "layers.", "model."};
}

bool is_folder(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A result holding NaN or ±inf (non-finite weights, or float32 overflow) is a failure, never
// printed as if it were the model's output.
void require_finite(const Tensor& t, const char* what) {
    if (t.rank() == 0) return;
    const MatrixView m{t.data(), t.shape().numel() / t.cols(), t.cols(), t.row_stride()};
    for (std::size_t i = 0; i < m.rows; ++i)
        for (std::size_t j = 0; j < m.cols; ++j)
            if (!std::isfinite(m(i, j)))
                throw RuntimeFailure(std::string("the ") + what + " hold " + (std::isnan(m(i, j)) ? "NaN" : "an infinity") +
                                     ": the weights hold non-finite values or the forward pass overflows float32");
}

}  // namespace

Model::Model(const std::string& folder) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0) throw InputError(folder + ": No such file or directory");
    if (!is_folder(folder))
        throw InputError(folder + ": not a folder (attn model reads a Hugging Face model folder: config.json and "
                                  "model.safetensors)");
    const std::string config = folder + "/config.json";
    if (::stat(config.c_str(), &st) != 0)
        throw InputError(folder + ": no config.json (a Hugging Face model folder has config.json and model.safetensors)");
    require_regular_file(config);
    config_ = parse_model_config(io::read_file(config, io::Content::text), config);
    weights_ = std::make_unique<Weights>(folder);
    // A task model's checkpoint nests the base model (weight_names' task_prefix). BERT's prefix is
    // its model type's: RobertaForMaskedLM's "roberta." (XLM-RoBERTa's too), ElectraForPreTraining's
    // "electra."; Gemma3ForConditionalGeneration keeps the language model beside the vision tower,
    // as Google's checkpoints name it and as transformers v4.52 on saves it (Gemma3Model's).
    const WeightNames names = weight_names(config_.arch);
    if (config_.model_type == "gemma3")
        weights_->choose_prefix({"language_model.model.", "model.language_model.", "language_model."}, names.token_embeddings);
    else if (config_.arch == Architecture::bert)
        weights_->choose_prefix({"", config_.padding_idx               ? "roberta."
                                     : config_.model_type == "electra" ? "electra."
                                                                       : names.task_prefix},
                                names.token_embeddings);
    else
        weights_->choose_prefix({"", names.task_prefix}, names.token_embeddings);
}

Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

// Tensors of the layers run that nothing read: a config.json without attention_bias over a
// checkpoint with biases, or Qwen3's weights under model_type qwen2 (q_norm, k_norm), run
// without them, as in transformers, whose loader warns "Some weights of the model checkpoint
// ... were not used". Only the layers run: --layer stops the forward pass early.
static void note_unused_weights(const ModelConfig& c, const Weights& w, std::size_t last, std::vector<std::string>& notes) {
    std::set<std::string> unused;  // (ALBERT's layers share their group's tensors)
    for (std::size_t l = 0; l <= last; ++l)
        for (std::string& name : w.unused(layer_prefix(c, l))) unused.insert(std::move(name));
    if (unused.empty()) return;
    std::string list;
    std::size_t shown = 0;
    for (const std::string& name : unused)
        if (shown++ < 6) list += (list.empty() ? "" : ", ") + name;
    if (unused.size() > 6) list += " and " + std::to_string(unused.size() - 6) + " more";
    const bool one = unused.size() == 1;
    notes.push_back(std::to_string(unused.size()) + (one ? " tensor" : " tensors") + " of the layers run " +
                    (one ? "is" : "are") + " not in the model config.json describes (" + c.model_type + ") and " +
                    (one ? "is" : "are") + " left out, as transformers leaves " + (one ? "it" : "them") +
                    " out with a warning: " + list +
                    ". A model_type or an option such as attention_bias that does not match the checkpoint does this");
}

ForwardResult Model::forward(const ModelInput& in, const ForwardWants& wants) const {
    const ModelConfig& c = config_;
    if (in.tokens == 0 || in.batch == 0) throw InputError("no token ids");
    if (in.ids.size() != in.batch * in.tokens) throw InputError("the token ids are not batch × tokens");
    for (std::size_t i = 0; i < in.ids.size(); ++i)
        if (in.ids[i] < 0 || std::uint64_t(in.ids[i]) >= c.vocab)
            throw InputError("token id " + std::to_string(in.ids[i]) + " (item " + std::to_string(i / in.tokens) +
                             ", position " + std::to_string(i % in.tokens) + ") is outside the vocabulary of " +
                             std::to_string(c.vocab) + " (vocab_size)");
    if (!in.token_types.empty()) {  // segments (BERT, ALBERT) or token ids looked up in the token embeddings (GPT-2, ...)
        const bool ids = takes_type_ids(c.arch);
        if (!takes_segments(c.arch) && !ids)
            throw InputError("token types are BERT's and ALBERT's segments, or token ids for gpt2, gpt_bigcode, gpt_neo, "
                             "gptj and codegen; model_type " + c.model_type + " has none");
        if (in.token_types.size() != in.ids.size())
            throw InputError("token types: " + std::to_string(in.token_types.size()) + " given for " +
                             std::to_string(in.ids.size()) + " token ids");
        const std::size_t types = ids ? c.vocab : c.type_vocab;
        for (std::int64_t t : in.token_types)
            if (t < 0 || std::uint64_t(t) >= types)
                throw InputError("token type " + std::to_string(t) + " is outside " +
                                 (ids ? "the vocabulary of " : "type_vocab_size ") + std::to_string(types) +
                                 (ids ? " (" + c.model_type + " looks token types up in the token embeddings)" : ""));
    }
    if (c.padding_idx) {  // RoBERTa's position ids: from padding_idx + 1 on, padding not counted
        // (position_embedding_type null: none looked up)
        const std::vector<std::int64_t> positions = c.absolute_positions ? position_ids(c, in) : std::vector<std::int64_t>{};
        for (std::size_t i = 0; i < positions.size(); ++i)
            if (std::uint64_t(positions[i]) >= c.max_positions)
                throw InputError("token " + std::to_string(i % in.tokens) + " (item " + std::to_string(i / in.tokens) +
                                 ") has position id " + std::to_string(positions[i]) + " (RoBERTa numbers the tokens that "
                                 "are not pad_token_id " + std::to_string(*c.padding_idx) + " from " +
                                 std::to_string(*c.padding_idx + 1) + "): the model has " +
                                 std::to_string(c.max_positions) + " positions (max_position_embeddings)");
    } else if (c.max_positions && in.tokens > c.max_positions)
        throw InputError(std::to_string(in.tokens) + " tokens: the model has " + std::to_string(c.max_positions) +
                         " positions (" + c.positions_key + ")");
    // OPTDecoder's last hidden state is project_out's, word_embed_proj_dim wide: it does not stack
    // with the others (opt-350m)
    if (wants.hidden_states && c.arch == Architecture::opt && c.embedding_size != c.hidden)
        throw InputError("hidden states: OPT's last one is word_embed_proj_dim " + std::to_string(c.embedding_size) +
                         " wide (project_out), the others hidden_size " + std::to_string(c.hidden) +
                         ": they do not stack into one tensor (the attentions do)");
    if (wants.layer && *wants.layer >= c.layers)
        throw InputError("layer " + std::to_string(*wants.layer) + ": the model has " + std::to_string(c.layers) +
                         " layers (0 to " + std::to_string(c.layers - 1) + ")");
    // The token embeddings (read first; their shape checked) and the last layer run are looked for
    // before the results are allocated: a config of 10^9 layers over a file of 2, or of a
    // hidden_size of 10^9, is refused by what is missing or of another shape, not as a buffer of
    // 784 GB.
    weights_->table(token_embeddings(c.arch), {c.vocab, embedding_width(c)});
    const std::size_t last = Recorder::last_layer(c, wants);
    if (!weights_->has_any(layer_prefix(c, last)))
        weights_->missing(layer_prefix(c, last) + "*", "config.json has " + std::to_string(c.layers) +
                                                                " layers, and layer " + std::to_string(last) + " is needed");
    Recorder rec(c, in, wants);
    switch (c.arch) {
        case Architecture::bert:
        case Architecture::distilbert:
        case Architecture::albert: run_bert(c, *weights_, in, rec); break;
        case Architecture::gpt2:
        case Architecture::gpt_bigcode: run_gpt2(c, *weights_, in, rec); break;
        case Architecture::llama: run_llama(c, *weights_, in, rec); break;
        case Architecture::gpt_neox:
        case Architecture::persimmon: run_gpt_neox(c, *weights_, in, rec); break;
        case Architecture::bloom: run_bloom(c, *weights_, in, rec); break;
        case Architecture::mpt: run_mpt(c, *weights_, in, rec); break;
        case Architecture::falcon: run_falcon(c, *weights_, in, rec); break;
        case Architecture::opt: run_opt(c, *weights_, in, rec); break;
        case Architecture::gpt_neo: run_gpt_neo(c, *weights_, in, rec); break;
        case Architecture::phi:
        case Architecture::gptj:
        case Architecture::codegen: run_phi(c, *weights_, in, rec); break;
        case Architecture::starcoder2:
        case Architecture::nemotron: run_starcoder2(c, *weights_, in, rec); break;
        case Architecture::stablelm:
        case Architecture::cohere:
        case Architecture::olmo: run_stablelm(c, *weights_, in, rec); break;
    }
    ForwardResult r = std::move(rec).take();
    r.notes = c.notes;
    require_finite(r.attentions, "attentions");
    require_finite(r.hidden_states, "hidden states");
    // Layers past config.json's count: a config that is wrong about it would go unnoticed
    // (transformers warns of weights it does not use).
    if (weights_->has_any(layer_prefix(c, c.layers)))
        r.notes.push_back("the weights hold a layer " + std::to_string(c.layers) + " (" + layer_prefix(c, c.layers) +
                          "*) but config.json has " + std::to_string(c.layers) + (c.layers == 1 ? " layer" : " layers") +
                          ": the layers past them are not used");
    note_unused_weights(c, *weights_, last, r.notes);
    return r;
}

const char* token_embeddings(Architecture arch) { return weight_names(arch).token_embeddings; }

std::size_t embedding_width(const ModelConfig& c) { return c.embedding_size ? c.embedding_size : c.hidden; }

Tensor token_rows(const ModelConfig& c, const Weights& w, const ModelInput& in, std::size_t width) {
    const Weight& table = w.table(token_embeddings(c.arch), {c.vocab, width});
    Tensor rows = new_rows(in.batch * in.tokens, width);
    embed(rows, table, in.ids, false);
    return rows;
}

void add_token_type_rows(Tensor& rows, const ModelConfig& c, const Weights& w, const ModelInput& in) {
    if (!in.token_types.empty()) embed(rows, w.table(token_embeddings(c.arch), {c.vocab, c.hidden}), in.token_types, true);
}

void add_position_rows(Tensor& rows, const Weights& w, const std::string& name, std::size_t table_rows,
                       const ModelInput& in, std::int64_t offset) {
    std::vector<std::int64_t> positions(in.batch * in.tokens);
    for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = std::int64_t(i % in.tokens) + offset;
    embed(rows, w.table(name, {table_rows, rows.cols()}), positions, true);
}

AttentionSpec rope_decoder_spec(const ModelConfig& c, const Weights& w, std::size_t tokens, std::size_t dims,
                                const std::string& q_proj, std::size_t rows) {
    AttentionSpec spec;
    spec.causal = Causal::top_left;
    w.get(layer_prefix(c, 0) + q_proj + ".weight", {rows ? rows : c.heads * c.head_dim, c.hidden});  // confirms head_dim
    spec.rope = rope_for_tokens(c.rope, dims, tokens, c.rope_scaling_text);
    spec.scale = float(1.0 / std::sqrt(double(c.head_dim)));  // head_dim ** -0.5
    return spec;
}

std::string layer_prefix(const ModelConfig& c, std::size_t l) {
    if (c.arch == Architecture::albert) {  // AlbertTransformer: group_idx = int(i / (num_hidden_layers / num_hidden_groups));
        // past the last layer, the group past the last (what a note on unused weights looks for)
        const auto group = l >= c.layers ? c.layer_groups
                                         : std::size_t(double(l) / (double(c.layers) / double(c.layer_groups)));
        return weight_names(c.arch).layers + std::to_string(group) + ".albert_layers.0.";
    }
    return weight_names(c.arch).layers + std::to_string(l) + ".";
}

Recorder::Recorder(const ModelConfig& c, const ModelInput& in, const ForwardWants& wants)
    : wants_(wants), B_(in.batch), T_(in.tokens) {
    last_ = last_layer(c, wants);
    if (wants.attentions)
        result_.attentions = Tensor(Shape({wants.layer ? 1 : c.layers, B_, c.heads, T_, T_}), Tensor::Uninitialized{});
    if (wants.attentions && wants.layer && last_ > 0)  // (same shape: the same row stride)
        scratch_ = Tensor(Shape({1, B_, c.heads, T_, T_}), Tensor::Uninitialized{});
    if (wants.hidden_states)
        result_.hidden_states = Tensor(Shape({c.layers + 1, B_, T_, c.hidden}), Tensor::Uninitialized{});
}

float* Recorder::weights_of(std::size_t l) noexcept {
    if (!wants_.attentions) return nullptr;
    if (wants_.layer && l != *wants_.layer) return scratch_.data();
    Tensor& a = result_.attentions;
    const std::size_t per_layer = a.shape()[1] * a.shape()[2];  // B·H slices of T×T
    return a.slice_data((wants_.layer ? 0 : l) * per_layer);
}

void Recorder::hidden(std::size_t k, const Tensor& rows) {
    // Checked whether kept or not: the engine's softmax need not turn a NaN row of scores
    // into NaN weights, so a non-finite hidden state is caught here, before any layer uses it.
    for (std::size_t r = 0; r < B_ * T_; ++r)
        for (std::size_t c = 0; c < rows.cols(); ++c)
            if (!std::isfinite(rows.data()[r * rows.row_stride() + c]))
                throw RuntimeFailure("hidden state " + std::to_string(k) + " (batch item " + std::to_string(r / T_) +
                                     ", token " + std::to_string(r % T_) + ") holds " +
                                     (std::isnan(rows.data()[r * rows.row_stride() + c]) ? "NaN" : "an infinity") +
                                     ": the weights hold non-finite values or the forward pass overflows float32");
    if (!wants_.hidden_states) return;
    Tensor& h = result_.hidden_states;
    for (std::size_t r = 0; r < B_ * T_; ++r)
        std::memcpy(h.slice_data(k * B_) + r * h.row_stride(), rows.data() + r * rows.row_stride(), h.cols() * sizeof(float));
}

}  // namespace attn::model
