// BertModel's forward (transformers' models/bert/modeling_bert.py): embeddings (word +
// token type + absolute position, LayerNorm), then per layer self-attention, the output dense
// layer, Add & LayerNorm, the GELU feed-forward, Add & LayerNorm (post-LN). No attention mask:
// every token sees every token of its batch item. RobertaModel (models/roberta/modeling_roberta.py)
// is the same but for its position ids; DistilBertModel (models/distilbert/modeling_distilbert.py)
// the same under other names (EncoderNames), without token types. (DistilBERT divides q by √d
// before q·kᵀ where BERT divides the scores: the same up to float32 rounding.) ElectraModel is
// BertModel with embeddings embedding_size wide, projected to hidden_size by embeddings_project
// when the two differ; AlbertModel (models/albert/modeling_albert.py) the same under its names,
// the projection (embedding_hidden_mapping_in) always there, the layers sharing their groups'
// weights (layer_prefix).
#include <string>

#include "model/layers.hpp"
#include "model/model_run.hpp"

namespace attn::model {

std::vector<std::int64_t> position_ids(const ModelConfig& c, const ModelInput& in) {
    std::vector<std::int64_t> positions(in.batch * in.tokens);
    for (std::size_t b = 0; b < in.batch; ++b) {
        std::int64_t counted = 0;  // RoBERTa's: the cumulative sum of the tokens that are not padding
        for (std::size_t t = 0; t < in.tokens; ++t) {
            const std::size_t i = b * in.tokens + t;
            if (!c.padding_idx) positions[i] = std::int64_t(t);
            else {
                const std::int64_t pad = *c.padding_idx;
                positions[i] = in.ids[i] == pad ? pad : pad + ++counted;
            }
        }
    }
    return positions;
}

namespace {

// The names of a layer's weights, after its layer_prefix (each with .weight and .bias).
struct EncoderNames {
    const char *query, *key, *value, *attention_out, *attention_norm, *ffn_in, *ffn_out, *output_norm;
};
constexpr EncoderNames bert_names{"attention.self.query",      "attention.self.key",      "attention.self.value",
                                  "attention.output.dense",    "attention.output.LayerNorm", "intermediate.dense",
                                  "output.dense",              "output.LayerNorm"};
constexpr EncoderNames distilbert_names{"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                                        "sa_layer_norm",   "ffn.lin1",        "ffn.lin2",        "output_layer_norm"};
constexpr EncoderNames albert_names{"attention.query", "attention.key", "attention.value",      "attention.dense",
                                    "attention.LayerNorm", "ffn",       "ffn_output", "full_layer_layer_norm"};

}  // namespace

void run_bert(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const EncoderNames& n = c.arch == Architecture::distilbert ? distilbert_names
                            : c.arch == Architecture::albert   ? albert_names
                                                               : bert_names;
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    const std::size_t Ee = embedding_width(c);  // ELECTRA's embeddings are their own width
    Tensor h = token_rows(c, w, in, Ee);
    const std::vector<std::int64_t> positions = position_ids(c, in);
    std::vector<std::int64_t> types(B * T, 0);
    if (!in.token_types.empty()) types = in.token_types;
    if (c.absolute_positions) embed(h, w.table("embeddings.position_embeddings.weight", {c.max_positions, Ee}), positions, true);
    if (c.type_vocab) embed(h, w.table("embeddings.token_type_embeddings.weight", {c.type_vocab, Ee}), types, true);
    layer_norm(h, w.get("embeddings.LayerNorm.weight", {Ee}), &w.get("embeddings.LayerNorm.bias", {Ee}), c.norm_eps);
    // ElectraModel's embeddings_project when the widths differ, AlbertTransformer's
    // embedding_hidden_mapping_in always; its output is the first hidden state
    const char* project = c.arch == Architecture::albert ? "encoder.embedding_hidden_mapping_in" : "embeddings_project";
    if (Ee != E || c.arch == Architecture::albert)
        h = linear(rows_of(h), w.get(std::string(project) + ".weight", {E, Ee}), Layout::linear,
                   &w.get(std::string(project) + ".bias", {E}));
    rec.hidden(0, h);
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        const std::string p = layer_prefix(c, l);
        // The weight and the bias of the layer's part `name`, the weight `rows` × `cols`.
        const auto weight = [&](const char* name, std::size_t rows, std::size_t cols) -> const Weight& {
            return w.get(p + name + ".weight", {rows, cols});
        };
        const auto bias = [&](const char* name, std::size_t size) { return &w.get(p + name + ".bias", {size}); };
        const MatrixView x = rows_of(h);
        const Tensor q = linear(x, weight(n.query, H * d, E), Layout::linear, bias(n.query, H * d));
        const Tensor k = linear(x, weight(n.key, H * d, E), Layout::linear, bias(n.key, H * d));
        const Tensor v = linear(x, weight(n.value, H * d, E), Layout::linear, bias(n.value, H * d));
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, H, d),
                                          heads_view(v, B, T, 0, H, d), AttentionSpec{}, rec.weights_of(l),
                                          rec.weights_stride());
        Tensor a = linear(rows_of(ctx), weight(n.attention_out, E, H * d), Layout::linear, bias(n.attention_out, E));
        add_rows(a, h);
        layer_norm(a, w.get(p + n.attention_norm + ".weight", {E}), bias(n.attention_norm, E), c.norm_eps);
        Tensor f = linear(rows_of(a), weight(n.ffn_in, F, E), Layout::linear, bias(n.ffn_in, F));
        activate(f, c.activation);
        h = linear(rows_of(f), weight(n.ffn_out, E, F), Layout::linear, bias(n.ffn_out, E));
        add_rows(h, a);
        layer_norm(h, w.get(p + n.output_norm + ".weight", {E}), bias(n.output_norm, E), c.norm_eps);
        rec.hidden(l + 1, h);
    }
}

}  // namespace attn::model
