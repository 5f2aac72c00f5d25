// The worked-example catalogue. Inputs and expected outputs live in data/examples/ (embedded
// into the binary); expected values were computed with PyTorch 1.13 in float32.
#include "experiments/worked_examples.hpp"

#include <charconv>
#include <optional>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/multihead.hpp"
#include "attn/torch_rng.hpp"
#include "attn/variance_experiment.hpp"
#include "attn/problem.hpp"
#include "experiments/example_data.hpp"

namespace attn::worked_examples {

namespace {

// A catalogue case's scale: a name (attn/problem.hpp's named_scale) or a float literal.
float scale_of(const std::string& text, std::size_t d_k) {
    if (const std::optional<float> named = named_scale(text, d_k)) return *named;
    double value = 0;  // read as a double and rounded to float, as --scale is
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) throw InputError("example scale '" + text + "' is not a number");
    return float(value);
}

using Op = ExampleOp;

ExampleCase::Files multihead_inputs() {
    return {{"x", "x.txt"},
            {"in_proj_weight", "in_proj_weight.txt"},
            {"in_proj_bias", "in_proj_bias.txt"},
            {"out_proj_weight", "out_proj_weight.txt"},
            {"out_proj_bias", "out_proj_bias.txt"}};
}

std::vector<Example> make_catalogue() {
    std::vector<Example> all;
    all.push_back(
        {"simple",
         "simple self-attention: Q = K = V = X, unscaled softmax",
         "Attention Mechanisms notebook, \"Simple Self-Attention\"",
         "",
         {{"plain", Op::attend, {{"x", "x.txt"}}, "none", Causal::none, Normalization::softmax,
           {{"scores", "scores.txt"}, {"weights", "weights.txt"}, {"context", "context.txt"}}},
          {"row 3 normalized by its sum", Op::attend, {{"q", "x3.txt"}, {"k", "x.txt"}, {"v", "x.txt"}}, "none",
           Causal::none, Normalization::sum, {{"weights", "weights_sum_row3.txt"}}}},
         "printed, for the third token (\"random\"):\n"
         "  scores normalized by their sum: tensor([0.1452, 0.2875, 0.1757, 0.1497, 0.1815, 0.0605])\n"
         "  after softmax:                  tensor([0.1509, 0.2445, 0.1674, 0.1532, 0.1707, 0.1133])\n"
         "  context vector:                 tensor([0.5876, 0.4533, 0.3425])"});
    all.push_back(
        {"trainable",
         "trainable projections W_q, W_k, W_v (d_out = 2), scaled by 1/sqrt(2)",
         "Attention Mechanisms notebook, \"Creating Good Context Vectors with Trainable Weights\"",
         "",
         {{"plain", Op::attend, {{"x", "x.txt"}, {"wq", "wq.txt"}, {"wk", "wk.txt"}, {"wv", "wv.txt"}}, "auto",
           Causal::none, Normalization::softmax,
           {{"queries", "queries.txt"}, {"keys", "keys.txt"}, {"values", "values.txt"}, {"scores", "scores.txt"},
            {"weights", "weights.txt"}, {"context", "context.txt"}}},
          {"causal", Op::attend, {{"x", "x.txt"}, {"wq", "wq.txt"}, {"wk", "wk.txt"}, {"wv", "wv.txt"}}, "auto",
           Causal::top_left, Normalization::softmax,
           {{"weights", "weights_causal.txt"}, {"context", "context_causal.txt"}}}},
         "printed, for the third token only:\n"
         "  q3      = [-0.4854, 0.0467]\n"
         "  scores  = [0.0214, 0.2577, 0.1998, -0.0948, 0.3484, -0.0249]\n"
         "  weights = [0.1547, 0.1828, 0.1755, 0.1425, 0.1949, 0.1497]\n"
         "  context = [0.2618, 0.4683]"});
    all.push_back(
        {"exact-match",
         "database analogy: one query, keys k1 = [1,0] and k3 = [1,1] tie",
         "scaled dot-product notebook, \"Exact Match Scenario\"",
         "",
         {{"scale none", Op::attend, {{"q", "q.txt"}, {"k", "k.txt"}, {"v", "v.txt"}}, "none", Causal::none,
           Normalization::softmax,
           {{"scores", "scores.txt"}, {"weights", "weights_none.txt"}, {"context", "context_none.txt"}}},
          {"scale auto", Op::attend, {{"q", "q.txt"}, {"k", "k.txt"}, {"v", "v.txt"}}, "auto", Causal::none,
           Normalization::softmax, {{"weights", "weights_auto.txt"}, {"context", "context_auto.txt"}}}},
         "works the example by hand with a hard 0/1 match and gets [0.1, 0.9]; dot-product\n"
         "attention instead weighs k1 and k3 equally (q·k = 1 for both) and gives [0.2, 0.8]"});
    all.push_back({"scaling",
                   "softmax of [10, 20, 30] without and with the 1/sqrt(512) scale",
                   "scaled dot-product notebook, \"Gradient Saturation\" code cell",
                   "",
                   {{"unscaled", Op::softmax, {{"logits", "logits.txt"}}, "none", Causal::none,
                     Normalization::softmax, {{"softmax", "softmax.txt"}}},
                    {"scaled", Op::softmax, {{"logits", "logits.txt"}}, "0.044194173824159216", Causal::none,
                     Normalization::softmax, {{"softmax", "softmax_scaled.txt"}}}},
                   "shows the code cell without its output (the notebook was saved unexecuted);\n"
                   "the values above are PyTorch's for the same cell"});
    all.push_back({"saturation",
                   "softmax([8,0,0]) saturates; softmax([1,0,0]) = softmax([8,0,0]/sqrt(64)) does not",
                   "Attention Mechanisms notebook, scaling note",
                   "",
                   {{"[8,0,0]", Op::softmax, {{"logits", "logits8.txt"}}, "none", Causal::none,
                     Normalization::softmax, {{"softmax", "softmax8.txt"}}},
                    {"[1,0,0]", Op::softmax, {{"logits", "logits1.txt"}}, "none", Causal::none,
                     Normalization::softmax, {{"softmax", "softmax1.txt"}}}},
                   "states: softmax([8,0,0]) ≈ [1,0,0]; with scaling 8/sqrt(64) = 1:\n"
                   "softmax([1,0,0]) ≈ [0.576, 0.211, 0.211]"});
    all.push_back({"peaky",
                   "softmax of logits and of the same logits times 8 (\"gets too peaky\")",
                   "self-attention trick notes, last two cells",
                   "",
                   {{"logits", Op::softmax, {{"logits", "logits.txt"}}, "none", Causal::none,
                     Normalization::softmax, {{"softmax", "softmax.txt"}}},
                    {"logits x8", Op::softmax, {{"logits", "logits.txt"}}, "8", Causal::none,
                     Normalization::softmax, {{"softmax", "softmax_x8.txt"}}}},
                   "shows both cells without output; the second is commented\n"
                   "\"# gets too peaky, converges to one-hot\""});
    {
        Example e{"causal-average",
                  "running mean of x[0] (xbow) = causal attention over all-zero scores",
                  "self-attention trick notes, \"Mathematical trick in self-attention\"",
                  "",
                  {{"xbow", Op::attend, {{"q", "zeros.txt"}, {"k", "zeros.txt"}}, "none", Causal::top_left,
                    Normalization::softmax, {{"v", "x0.txt"}, {"context", "xbow.txt"}},
                    // x = torch.randn(4, 8, 2) after torch.manual_seed(42); batch 0 is the values.
                    {{"v", 42, {4, 8, 2}}}}},
                  "computes xbow with a loop of means, then as softmax(masked zeros) @ x, and checks\n"
                  "torch.allclose(xbow3, xbow); the notebook was saved without printed values"};
        all.push_back(std::move(e));
    }
    {
        Example e{"nanogpt-head",
                  "nanoGPT's single head: bias-free nn.Linear(32, 16) key/query/value, unscaled, causal",
                  "nanoGPT's gpt-dev notebook, \"version 4: self-attention\" (built up in the self-attention "
                  "trick notes)",
                  "",
                  {{"batch 0", Op::attend, {{"wq", "wq.txt"}, {"wk", "wk.txt"}, {"wv", "wv.txt"}}, "none",
                    Causal::top_left, Normalization::softmax, {{"weights", "weights.txt"}, {"context", "context.txt"}},
                    // x = torch.randn(4, 8, 32) after torch.manual_seed(1337); batch 0 is the input.
                    {{"x", 1337, {4, 8, 32}}}}},
                  "prints wei[0]; its second row is [0.1574, 0.8426, 0, ...]. attn random draws x and\n"
                  "the three layers' weights as torch does, so the whole cell runs without Python\n"
                  "(README, attn random)"};
        all.push_back(std::move(e));
    }
    {
        Example e{"variance",
                  "variance of q·k grows with d_k; scaling by 1/sqrt(d_k) brings it back to 1",
                  "scaled dot-product notebook, \"Visualizing Variance of Dot Product\"",
                  "",
                  {{"d_k = 512", Op::variance, {}, "auto", Causal::none, Normalization::softmax,
                    {{"variance", "variance.txt"}}}},
                  "computes, with torch.manual_seed(92), Q and K = torch.randn(4, 8, 32, 512) and\n"
                  "the population variance of Q·Kᵀ unscaled (theory d_k·σ⁴ = 512) and scaled (σ⁴ = 1)"};
        all.push_back(std::move(e));
    }
    all.push_back({"masking",
                   "causal mask on \"The hiking trail led us through bear country.\" (T = 8)",
                   "single-head self-attention notes, \"Masking\" (embeddings from torch.manual_seed(4); "
                   "torch.randn(8, 4))",
                   "labels.txt",
                   {{"unmasked", Op::attend, {{"x", "x.txt"}}, "auto", Causal::none, Normalization::softmax,
                     {{"weights", "weights.txt"}}},
                    {"causal", Op::attend, {{"x", "x.txt"}}, "auto", Causal::top_left, Normalization::softmax,
                     {{"weights", "weights_causal.txt"}, {"context", "context_causal.txt"}}, {}, true}},
                   "sets every score above the diagonal to -inf before the softmax, so token i attends\n"
                   "to tokens 1..i only (its printed table has a typo in row k6); the scaled dot-product\n"
                   "notebook notes that causal attention reduces to self-attention for the last token:\n"
                   "compare the last rows of the two weight matrices above"});
    all.push_back({"multihead",
                   "nn.MultiheadAttention(4, 2): two heads of d_k = 2, concatenated, then W_O (the single-head"
                   " self-attention notes' sentence)",
                   "PyTorch's nn.MultiheadAttention, seeded (data/examples/generate_multihead.py)",
                   "labels.txt",
                   {{"two heads", Op::attend, multihead_inputs(), "auto", Causal::none, Normalization::softmax,
                     {{"queries", "queries.txt"}, {"keys", "keys.txt"}, {"values", "values.txt"},
                      {"scores", "scores.txt"}, {"weights", "weights.txt"}, {"weights-mean", "weights_mean.txt"},
                      {"context", "context.txt"}, {"output", "output.txt"}}, {}, false, 2},
                    {"two heads, causal", Op::attend, multihead_inputs(), "auto", Causal::top_left,
                     Normalization::softmax,
                     {{"weights", "weights_causal.txt"}, {"weights-mean", "weights_mean_causal.txt"},
                      {"context", "context_causal.txt"}, {"output", "output_causal.txt"}}, {}, true, 2}},
                   "is not a tutorial: nn.MultiheadAttention(4, 2, batch_first=True) after torch.manual_seed(123),\n"
                   "biases 0.1·randn, called as mha(x, x, x[, attn_mask]) with need_weights=True; its output and\n"
                   "averaged weights, and the per-head weights (average_attn_weights=False), are the values above"});
    all.push_back({"grouped-query",
                   "grouped-query attention: 4 query heads share 2 key/value heads (as Llama, Mistral), causal",
                   "PyTorch, seeded (data/examples/generate_multihead.py): repeat_interleave of K/V heads",
                   "labels.txt",
                   {{"H = 4, G = 2", Op::attend,
                     {{"x", "x.txt"}, {"wq", "wq.txt"}, {"wk", "wk.txt"}, {"wv", "wv.txt"}, {"bq", "bq.txt"},
                      {"bk", "bk.txt"}, {"bv", "bv.txt"}, {"wo", "wo.txt"}, {"bo", "bo.txt"}},
                     "auto", Causal::top_left, Normalization::softmax,
                     {{"queries", "queries.txt"}, {"keys", "keys.txt"}, {"values", "values.txt"},
                      {"weights", "weights.txt"}, {"context", "context.txt"}, {"output", "output.txt"}},
                     {}, true, 4, 2}},
                   "is not a tutorial: query head h reads key/value head h / 2, computed in PyTorch with\n"
                   "k.repeat_interleave(2, dim=0) (scaled_dot_product_attention's enable_gqa=True); heads 0 and 1\n"
                   "share keys, so their weights differ only through their queries"});
    {
        ExampleCase c{"valid_lens [2, 6]", Op::attend,
                      {{"q", "q.txt"}, {"k", "k.txt"}, {"v", "v.txt"}, {"wa_q", "wa_q.txt"}, {"wa_k", "wa_k.txt"},
                       {"va", "va.txt"}},
                      "auto", Causal::none, Normalization::softmax, {{"weights", "weights.txt"}, {"context", "context.txt"}}};
        c.score = ScoreFunction::additive;
        c.lengths = {2, 6};
        all.push_back({"additive",
                       "d2l's additive attention: v_aᵀ·tanh(q·W_q + k·W_k), h = 8, keys of ones, valid_lens [2, 6]",
                       "d2l.ai, \"Attention Scoring Functions\": AdditiveAttention's example (weights seeded: "
                       "data/examples/generate_additive.py)",
                       "",
                       {c},
                       "checks the output's shape (2, 1, 4) and draws the weights: every key is the same (ones), so\n"
                       "each visible key gets the same weight, 1/2 for the first item's 2 keys and 1/6 for the second's\n"
                       "6, whatever the random weights; the context is the mean of the visible values"});
    }
    {
        ExampleCase c{"sliding_window = 3", Op::attend, {{"x", "x.txt"}}, "auto", Causal::top_left,
                      Normalization::softmax, {{"weights", "weights.txt"}, {"context", "context.txt"}}, {}, true};
        c.window.left = 2;  // Mistral's sliding_window = W is --causal --window W-1
        all.push_back({"sliding-window",
                       "Mistral's sliding window (W = 3) on the masking example's sentence: a causal band",
                       "HF transformers' sliding-window causal mask with eager attention, in PyTorch "
                       "(data/examples/generate_sliding_window.py)",
                       "labels.txt",
                       {c},
                       "is not a tutorial: the \"other attention mechanisms\" that avoid the T×T matrix start with\n"
                       "local windows; each token sees itself and the 2 before it, so the heatmap is a band of\n"
                       "width 3 and the cost grows with T·W, not T²"});
    }
    {
        Example e{"rope-relative",
                  "RoPE: a score depends on the tokens and on i - j only; the same tokens shifted by 3 keep their "
                  "scores",
                  "RoFormer (Su et al. 2021, §3.4.2); HF Llama's apply_rotary_pos_emb (data/examples/generate_rope.py)",
                  "",
                  {{"positions 0..3", Op::attend, {{"q", "x.txt"}, {"k", "x.txt"}, {"v", "x.txt"}}, "auto",
                    Causal::none, Normalization::softmax, {{"scores", "scores.txt"}}},
                   {"after 3 other tokens: queries at 3..6 (bottom-right), keys at 0..6", Op::attend,
                    {{"q", "x.txt"}, {"k", "y.txt"}, {"v", "y.txt"}}, "auto", Causal::bottom_right,
                    Normalization::softmax, {{"scores", "scores_shifted.txt"}}}},
                  "is not a tutorial: RoFormer shows that after the rotations q_m·k_n depends on m - n only,\n"
                  "not on m and n: the last four columns of the second scores equal the first scores (to\n"
                  "float32 rounding: the angles differ), though every token sits 3 positions later"};
        for (ExampleCase& c : e.cases) c.rope = 10000.0f;
        all.push_back(std::move(e));
    }
    return all;
}

// A score function other than dot: the batched engine on the example's 4-D tensors.
std::map<std::string, Tensor> run_scored(const ExampleCase& c, const std::string& example) {
    std::map<std::string, Tensor> in, out;
    for (const auto& [name, file] : c.inputs) in[name] = example_tensor(example, file);
    std::map<std::string, TensorView> views;
    for (const auto& [name, t] : in) views[name] = t.view();
    const auto weight = [&](const char* name) { return views.count(name) ? &views.at(name) : nullptr; };
    AttentionSpec spec;
    if (c.scale != "auto") spec.scale = scale_of(c.scale, in.at("k").cols());
    spec.causal = c.causal;
    spec.normalize = c.normalize;
    spec.lengths = c.lengths;
    spec.score = c.score;
    spec.wa = weight("wa"), spec.wa_q = weight("wa_q"), spec.wa_k = weight("wa_k"), spec.va = weight("va");
    BatchedAttention r = batched_attention(views.at("q"), views.at("k"), views.at("v"), spec, AttentionWants{true, true, true, true});
    out["scores"] = std::move(r.scores), out["scaled"] = std::move(r.scaled);
    out["weights"] = std::move(r.weights), out["context"] = std::move(r.context);
    for (auto& [name, t] : in) out[name] = std::move(t);
    return out;
}

const Matrix* input_of(const std::map<std::string, Matrix>& in, const char* name) {
    const auto it = in.find(name);
    return it == in.end() ? nullptr : &it->second;
}

// Multi-head attention from embeddings, as `attn attend -x ... --heads H` computes it.
std::map<std::string, Tensor> run_multihead(const ExampleCase& c, const std::string& example) {
    std::map<std::string, Tensor> in, out;
    for (const auto& [name, file] : c.inputs) in[name] = example_tensor(example, file);
    auto view_of_input = [&](const char* name) -> std::optional<TensorView> {
        const auto it = in.find(name);
        return it == in.end() ? std::nullopt : std::optional<TensorView>(it->second.view());
    };
    InProjection ip;
    Tensor wo;
    std::optional<TensorView> wq = view_of_input("wq"), wk = view_of_input("wk"), wv = view_of_input("wv");
    std::optional<TensorView> bq = view_of_input("bq"), bk = view_of_input("bk"), bv = view_of_input("bv");
    std::optional<TensorView> wo_view = view_of_input("wo"), bo = view_of_input("bo");
    if (in.count("in_proj_weight")) {
        const auto bias = view_of_input("in_proj_bias");
        ip = split_in_projection(in.at("in_proj_weight").view(), bias ? &*bias : nullptr);
        wq = ip.wq.view(), wk = ip.wk.view(), wv = ip.wv.view();
        if (ip.bq.rank()) bq = ip.bq.view(), bk = ip.bk.view(), bv = ip.bv.view();
    }
    if (in.count("out_proj_weight")) {
        wo = from_linear_weight(in.at("out_proj_weight").view());
        wo_view = wo.view(), bo = view_of_input("out_proj_bias");
    }
    auto ptr = [](const std::optional<TensorView>& v) { return v ? &*v : nullptr; };
    MultiheadWeights w;
    w.heads = c.heads, w.kv_heads = c.kv_heads ? c.kv_heads : c.heads;
    w.wq = ptr(wq), w.wk = ptr(wk), w.wv = ptr(wv), w.bq = ptr(bq), w.bk = ptr(bk), w.bv = ptr(bv);
    w.wo = ptr(wo_view), w.bo = ptr(bo);
    const Tensor& X = in.at("x");
    AttentionSpec spec;
    spec.scale = scale_of(c.scale, (wq ? wq->cols() : X.cols()) / c.heads);
    spec.causal = c.causal;
    spec.normalize = c.normalize;
    spec.head_axis = HeadAxis::always;
    AttentionWants wants{true, true, true, true};
    wants.weights_mean = true;
    Multihead mh = multihead_attention(X.view(), nullptr, w, spec, wants);
    out["queries"] = to_tensor(split_heads(mh.queries, w.heads));
    out["keys"] = to_tensor(split_heads(mh.keys, w.kv_heads));
    out["values"] = to_tensor(split_heads(mh.values, w.kv_heads));
    out["scores"] = std::move(mh.attention.scores), out["scaled"] = std::move(mh.attention.scaled);
    out["weights"] = std::move(mh.attention.weights), out["weights-mean"] = std::move(mh.attention.weights_mean);
    out["context"] = std::move(mh.attention.context), out["output"] = std::move(mh.output);
    for (auto& [name, t] : in) out[name] = std::move(t);
    return out;
}

}  // namespace

const std::vector<Example>& examples() {
    static const std::vector<Example> all = make_catalogue();
    return all;
}

const Example* find_example(const std::string& name) {
    for (const Example& e : examples())
        if (e.name == name) return &e;
    return nullptr;
}

std::string example_file(const std::string& example, const std::string& file) {
    const std::string path = example + "/" + file;
    for (std::size_t i = 0; i < embedded_example_count; ++i)
        if (path == embedded_examples[i].path) return embedded_examples[i].content;
    throw RuntimeFailure("example data file data/examples/" + path + " is missing from this build");
}

std::vector<std::string> example_file_names(const std::string& example) {
    const std::string prefix = example + "/";
    std::vector<std::string> names;
    for (std::size_t i = 0; i < embedded_example_count; ++i) {
        const std::string path = embedded_examples[i].path;
        if (path.compare(0, prefix.size(), prefix) == 0) names.push_back(path.substr(prefix.size()));
    }
    return names;
}

Tensor example_tensor(const std::string& example, const std::string& file) {
    return io::parse_tensor(example_file(example, file), "data/examples/" + example + "/" + file);
}

// The single-head cases: matrices through the 2-D pipeline.
std::map<std::string, Matrix> run_matrices(const ExampleCase& c, const std::string& example) {
    std::map<std::string, Matrix> in, out;
    for (const auto& [name, file] : c.inputs) in[name] = example_tensor(example, file).to_matrix();
    for (const GeneratedInput& g : c.generated) {
        TorchGenerator gen(g.seed);
        const std::vector<float> draw = gen.randn(g.shape);
        const std::size_t rows = g.shape[g.shape.size() - 2], cols = g.shape.back();
        Matrix m(rows, cols);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) m(i, j) = draw[i * cols + j];
        in[g.name] = std::move(m);
    }

    if (c.op == ExampleOp::variance) {
        const VarianceResult r = run_variance_experiment(VarianceExperiment{}).front();
        Matrix v(1, 2);
        v(0, 0) = float(r.unscaled_var), v(0, 1) = float(r.scaled_var);
        out["variance"] = std::move(v);
        return out;
    }

    if (c.op == ExampleOp::softmax) {
        const Matrix& logits = in.at("logits");
        ScoreMask sm;
        sm.scale = scale_of(c.scale, logits.cols());
        sm.causal = c.causal;
        Matrix w = scaled_scores(logits, sm);
        normalize_rows(w, c.normalize, MaskedRowPolicy::zero);
        out["logits"] = logits;
        out["softmax"] = std::move(w);
        return out;
    }
    Matrix Q, K, V;
    if (in.count("x")) {
        const Matrix& X = in.at("x");
        Projections p = project(X, input_of(in, "wq"), input_of(in, "wk"), input_of(in, "wv"));
        Q = std::move(p.queries), K = std::move(p.keys), V = std::move(p.values);
    } else {
        Q = in.at("q"), K = in.at("k"), V = in.at("v");
    }
    if (c.rope != 0.0f || c.window.bounded()) {  // the engine's Rope and Window (attn/problem.hpp)
        AttentionSpec spec;
        spec.scale = scale_of(c.scale, Q.cols());
        spec.causal = c.causal;
        spec.normalize = c.normalize;
        spec.rope.theta = c.rope;
        spec.window = c.window;
        const Tensor q{Matrix(Q)}, k{Matrix(K)}, v{Matrix(V)};  // copies: Q, K, V are shown too
        BatchedAttention r = batched_attention(q.view(), k.view(), v.view(), spec, AttentionWants{true, true, true, true});
        for (auto& [name, m] : in) out[name] = std::move(m);
        out["queries"] = std::move(Q), out["keys"] = std::move(K), out["values"] = std::move(V);
        out["scores"] = std::move(r.scores).to_matrix(), out["scaled"] = std::move(r.scaled).to_matrix();
        out["weights"] = std::move(r.weights).to_matrix(), out["context"] = std::move(r.context).to_matrix();
        return out;
    }
    AttentionOptions opt;
    opt.score_mask.scale = scale_of(c.scale, Q.cols());
    opt.score_mask.causal = c.causal;
    opt.normalize = c.normalize;
    AttentionResult r = attend(Q, K, V, opt, AttentionWants{true, true, true, true});
    for (auto& [name, m] : in) out[name] = std::move(m);
    out["queries"] = std::move(Q), out["keys"] = std::move(K), out["values"] = std::move(V);
    out["scores"] = std::move(r.scores), out["scaled"] = std::move(r.scaled);
    out["weights"] = std::move(r.weights), out["context"] = std::move(r.context);
    return out;
}

std::map<std::string, Tensor> run_case(const ExampleCase& c, const std::string& example) {
    if (c.heads) return run_multihead(c, example);
    if (c.score != ScoreFunction::dot) return run_scored(c, example);
    std::map<std::string, Tensor> result;
    for (auto& [name, m] : run_matrices(c, example)) result[name] = Tensor(std::move(m));
    return result;
}

}  // namespace attn::worked_examples
