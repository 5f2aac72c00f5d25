// BertModel's forward (transformers' models/bert/modeling_bert.py): embeddings (word +
// token type + absolute position, LayerNorm), then per layer self-attention, the output dense
// layer, Add & LayerNorm, the GELU feed-forward, Add & LayerNorm (post-LN). No attention mask:
// every token sees every token of its batch item. RobertaModel (models/roberta/modeling_roberta.py)
// is the same but for its position ids.
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

void run_bert(const ModelConfig& c, const Weights& w, const ModelInput& in, Recorder& rec) {
    const std::size_t E = c.hidden, H = c.heads, d = c.head_dim, B = in.batch, T = in.tokens, F = c.intermediate;
    const Weight& embeddings = w.table(token_embeddings(c.arch), {c.vocab, E});  // its shape checked before any buffer
    Tensor h = new_rows(B * T, E);
    embed(h, embeddings, in.ids, false);
    const std::vector<std::int64_t> positions = position_ids(c, in);
    std::vector<std::int64_t> types(B * T, 0);
    if (!in.token_types.empty()) types = in.token_types;
    if (c.absolute_positions) embed(h, w.table("embeddings.position_embeddings.weight", {c.max_positions, E}), positions, true);
    embed(h, w.table("embeddings.token_type_embeddings.weight", {c.type_vocab, E}), types, true);
    layer_norm(h, w.get("embeddings.LayerNorm.weight", {E}), &w.get("embeddings.LayerNorm.bias", {E}), c.norm_eps);
    rec.hidden(0, h);
    for (std::size_t l = 0; l <= rec.last_layer(); ++l) {
        const std::string p = layer_prefix(c.arch, l);
        const auto W = [&](const std::string& n, std::initializer_list<std::size_t> s) -> const Weight& { return w.get(p + n, s); };
        const MatrixView x = rows_of(h);
        const Tensor q = linear(x, W("attention.self.query.weight", {H * d, E}), Layout::linear, &W("attention.self.query.bias", {H * d}));
        const Tensor k = linear(x, W("attention.self.key.weight", {H * d, E}), Layout::linear, &W("attention.self.key.bias", {H * d}));
        const Tensor v = linear(x, W("attention.self.value.weight", {H * d, E}), Layout::linear, &W("attention.self.value.bias", {H * d}));
        const Tensor ctx = self_attention(heads_view(q, B, T, 0, H, d), heads_view(k, B, T, 0, H, d),
                                          heads_view(v, B, T, 0, H, d), AttentionSpec{}, rec.weights_of(l),
                                          rec.weights_stride());
        Tensor a = linear(rows_of(ctx), W("attention.output.dense.weight", {E, H * d}), Layout::linear,
                          &W("attention.output.dense.bias", {E}));
        add_rows(a, h);
        layer_norm(a, W("attention.output.LayerNorm.weight", {E}), &W("attention.output.LayerNorm.bias", {E}), c.norm_eps);
        Tensor f = linear(rows_of(a), W("intermediate.dense.weight", {F, E}), Layout::linear, &W("intermediate.dense.bias", {F}));
        activate(f, c.activation);
        h = linear(rows_of(f), W("output.dense.weight", {E, F}), Layout::linear, &W("output.dense.bias", {E}));
        add_rows(h, a);
        layer_norm(h, W("output.LayerNorm.weight", {E}), &W("output.LayerNorm.bias", {E}), c.norm_eps);
        rec.hidden(l + 1, h);
    }
}

}  // namespace attn::model
