// attn model PATH --text "..." [--text-pair "..."] or --ids 101,2051,...: a Hugging Face model folder's forward pass, every layer's
// and head's attention weights (outputs.attentions stacked) and the hidden states, in every
// output format, and the pictures of one layer (attn/model.hpp).
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/html_view.hpp"
#include "attn/io.hpp"
#include "attn/model.hpp"
#include "attn/tokenizer.hpp"
#include "attn/viz.hpp"
#include "attn/viz_grid.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"
#include "runtime/did_you_mean.hpp"
#include "runtime/utf8.hpp"
#include "write/output_file.hpp"

namespace attn::cli {

namespace {

// "1,2,3" (rows separated by ';'), or a file of rows, one per line, ids separated by commas or
// white space. Every row must have the same length; an empty id (1,,2) or row (1,2;;3,4) is an
// error, not skipped.
std::vector<std::vector<std::int64_t>> parse_id_rows(const std::string& value, const std::string& option) {
    struct stat st {};
    std::string text = value;
    std::string where = option + " '" + value + "'";
    const bool file = ::stat(value.c_str(), &st) == 0;
    if (file) {
        text = io::read_text_file(value);
        where = value;
    }
    std::size_t line = 1;                // of the text, for a file's errors
    std::vector<std::size_t> row_lines;  // the line each row starts on
    // The ids given inline are a usage error, a file's are bad input (exit 3) at its line.
    const auto fail = [&](const std::string& what, std::size_t at) {
        if (file) throw InputError(where + ":" + std::to_string(at) + ": " + what);
        throw UsageError(where + ": " + what);
    };
    std::vector<std::vector<std::int64_t>> rows(1);
    std::string number;
    bool comma_open = false, row_open = false;  // a comma waits for the id after it, a ';' for the row
    const auto flush = [&] {
        if (number.empty()) return;
        std::size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(number, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != number.size() || number[0] == '+')
            fail("'" + io::printable_utf8(number, 40) + "' is not an integer token id", line);
        if (rows.back().empty()) row_lines.push_back(line);
        rows.back().push_back(v);
        number.clear();
        comma_open = row_open = false;
    };
    const auto empty_id = [&] { fail("an empty id (a comma at a row's start or end, or two in a row)", line); };
    const auto empty_row = [&] { fail("an empty row (a ';' at the start or end, or two in a row)", line); };
    for (char ch : text) {
        if (ch == ',') {
            flush();
            if (comma_open || rows.back().empty()) empty_id();
            comma_open = true;
        } else if (ch == ' ' || ch == '\t' || ch == '\r') {
            flush();
        } else if (ch == ';' || ch == '\n') {
            flush();
            if (comma_open) empty_id();
            if (ch == ';' && rows.back().empty()) empty_row();
            if (!rows.back().empty()) rows.emplace_back();
            row_open = row_open || ch == ';';
            line += ch == '\n';
        } else {
            number += ch;
        }
    }
    flush();
    if (comma_open) empty_id();
    if (row_open) empty_row();
    if (rows.back().empty()) rows.pop_back();
    if (rows.empty()) {  // no line to point at
        if (file) throw InputError(where + ": no token ids");
        throw UsageError(where + ": no token ids");
    }
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].size() != rows[0].size())
            fail("rows of " + std::to_string(rows[0].size()) + " and " + std::to_string(rows[i].size()) +
                     " ids: every row (batch item) needs the same number of tokens",
                 row_lines[i]);
    return rows;
}

std::vector<std::int64_t> flatten(const std::vector<std::vector<std::int64_t>>& rows) {
    std::vector<std::int64_t> out;
    for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
    return out;
}

// A view of t with dimension `dim` fixed at `index` (dropped).
TensorView pick(const TensorView& t, std::size_t dim, std::size_t index) {
    TensorView v;
    v.data = t.data + index * t.strides[dim];
    std::vector<std::size_t> dims;
    std::size_t k = 0;
    for (std::size_t d = 0; d < t.rank(); ++d)
        if (d != dim) dims.push_back(t.shape[d]), v.strides[k++] = t.strides[d];
    v.shape = Shape(dims);
    return v;
}

// Tokens as bertviz's page shows them (format_special_chars): GPT-2's "Ġ" and SentencePiece's
// "▁" (a space before the word) as a space, "</w>" dropped. The results keep the tokens.
std::vector<std::string> page_tokens(std::vector<std::string> tokens) {
    const auto replace = [](std::string& t, std::string_view from, std::string_view to) {
        for (std::size_t at = t.find(from); at != std::string::npos; at = t.find(from, at + to.size()))
            t.replace(at, from.size(), to);
    };
    for (std::string& t : tokens) {
        replace(t, "\u0120", " ");
        replace(t, "\u2581", " ");
        replace(t, "</w>", "");
    }
    return tokens;
}

// The masking of a decoder's layers in words: causal, and a sliding window on the layers with one
// (EmbeddingGemma's: not causal, the window both ways).
std::string masking_of_layers(const model::ModelConfig& c) {
    std::size_t windowed = 0, W = 0;
    for (std::size_t l = 0; l < c.layers; ++l)
        if (const std::size_t w = c.window_of(l)) ++windowed, W = w;
    if (windowed == 0) return c.bidirectional ? "" : "causal";
    return (c.bidirectional ? "sliding window of " + std::to_string(W - 1) + " keys each side"
                            : "causal, sliding window " + std::to_string(W)) +
           (windowed == c.layers ? "" : " on " + std::to_string(windowed) + " of " + std::to_string(c.layers) + " layers");
}

// Whether layer l of the model masks key j for query i (the cells the pictures mark).
bool masked_cell(const model::ModelConfig& c, std::size_t l, std::size_t i, std::size_t j) {
    if (model::is_encoder(c.arch)) return false;
    const std::size_t W = c.window_of(l);
    if (c.bidirectional) return W && (j + W <= i || i + W <= j);
    return j > i || (W && j + W <= i);
}

}  // namespace

int cmd_model(int argc, char** argv) {
    cxxopts::Options options(
        "attn model",
        "The forward pass of a Hugging Face model folder (config.json and model.safetensors, the shards of\n"
        "model.safetensors.index.json, or pytorch_model.bin, or the shards of pytorch_model.bin.index.json;\n"
        "a hub cache snapshot folder works as it is) on a text (or text pair) tokenized by the folder's own\n"
        "tokenizer, or on token ids: every layer's and head's attention weights, as transformers'\n"
        "output_attentions stacked, (layers, batch, heads, tokens, tokens), and the hidden states\n"
        "(layers + 1, batch, tokens, hidden).\n"
        "\n"
        "model_type (config.json):\n"
        "\n"
        "- bert (BertModel); roberta and xlm-roberta (RobertaModel: positions from pad_token_id + 1, pad\n"
        "  tokens not counted); electra (ElectraModel: embeddings embedding_size wide, projected to\n"
        "  hidden_size); distilbert (DistilBertModel); albert (AlbertModel: embeddings embedding_size wide,\n"
        "  layers sharing num_hidden_groups groups' weights).\n"
        "\n"
        "- gpt2 (GPT2Model: scale_attn_weights, scale_attn_by_inverse_layer_idx); gpt_bigcode\n"
        "  (GPTBigCodeModel: StarCoder, SantaCoder: one K/V head with multi_query; attentions (B, H, T, T),\n"
        "  which transformers' early versions gave as (B, T, H, T) with multi_query); gpt_neo (GPTNeoModel:\n"
        "  unscaled scores, global and local layers of window_size); gptj (GPTJModel: GPT-J-6B,\n"
        "  LayerNorm, RoPE on rotary_dim of each head on pairs (2i, 2i + 1), the attention and the MLP side\n"
        "  by side); codegen (CodeGenModel: codegen-350M to -16B: GPT-J's layer with the fused qkv_proj);\n"
        "  opt (OPTModel: learned positions, pre-LN or opt-350m's post-LN layers, ReLU;\n"
        "  word_embed_proj_dim's projections: attentions only).\n"
        "\n"
        "- llama, mistral, mixtral, qwen2, qwen3, qwen2_moe, qwen3_moe, gemma, gemma2, gemma3_text, gemma3,\n"
        "  phi3, glm, glm4, olmo2, olmo3, smollm3 and granite (LlamaModel: RMSNorm, RoPE with rope_scaling linear,\n"
        "  llama3, dynamic, yarn or longrope, or transformers v5's rope_parameters, grouped-query heads,\n"
        "  SwiGLU). Mistral's sliding_window; Mixtral's sparse mixture of experts (num_local_experts,\n"
        "  num_experts_per_tok) and Qwen MoE's (num_experts, norm_topk_prob, mlp_only_layers,\n"
        "  decoder_sparse_step, Qwen2-MoE's shared expert); Qwen2's biases and per-layer sliding window;\n"
        "  Qwen3's q_norm and k_norm. Gemma's embeddings times sqrt(hidden_size), (1 + weight) RMSNorm and\n"
        "  GeGLU; Gemma 2's norms after the attention and around the MLP, query_pre_attn_scalar,\n"
        "  attn_logit_softcapping and sliding layers; Gemma 3's q_norm and k_norm, sliding layers with a RoPE\n"
        "  of their own (rope_local_base_freq, or rope_parameters per layer type) and EmbeddingGemma's\n"
        "  use_bidirectional_attention; gemma3: the language model of Gemma3ForConditionalGeneration, from\n"
        "  its text_config, on text alone. Phi-3's fused qkv_proj and gate_up_proj, partial_rotary_factor\n"
        "  and sliding_window. GLM's Q/K/V biases, RoPE on the pairs (2i, 2i + 1) of partial_rotary_factor of\n"
        "  each head and fused gate_up_proj; GLM-4's norms after the attention and the MLP. OLMo 2's norms\n"
        "  after the attention and the MLP, none before, and q_norm and\n"
        "  k_norm over all heads; OLMo 3's sliding layers. SmolLM3's layers without RoPE (no_rope_layers).\n"
        "  Granite's embedding_multiplier, attention_multiplier and residual_multiplier.\n"
        "\n"
        "- phi (PhiModel: phi-1, phi-1.5, phi-2: LayerNorm, RoPE on partial_rotary_factor of each head, the\n"
        "  attention and the MLP side by side, qk_layernorm); starcoder2 (Starcoder2Model: LayerNorm,\n"
        "  use_bias, the MLP c_fc and c_proj, sliding_window); nemotron (NemotronModel: Minitron, Nemotron-Mini:\n"
        "  LayerNorm by weight + 1, RoPE on partial_rotary_factor of each head, up_proj, relu2, down_proj).\n"
        "\n"
        "- stablelm (StableLmModel: LayerNorm, use_qkv_bias, RoPE on partial_rotary_factor of each head,\n"
        "  qk_layernorm per head, use_parallel_residual); cohere (CohereModel: Command-R, Aya: LayerNorm\n"
        "  without bias, RoPE on pairs (2i, 2i + 1), the attention and the MLP side by side, use_qk_norm);\n"
        "  cohere2 (Cohere2Model: Command R7B: Cohere's layer with sliding layers, RoPE only on them);\n"
        "  olmo (OlmoModel: OLMo 1, the Llama layer with LayerNorm without weight or bias, clip_qkv).\n"
        "\n"
        "- gpt_neox (GPTNeoXModel: Pythia, GPT-NeoX-20B: LayerNorm, the fused query_key_value, RoPE on\n"
        "  rotary_pct of each head, use_parallel_residual); persimmon (PersimmonModel: persimmon-8b: GPT-NeoX's\n"
        "  serial layer with qk_layernorm, RoPE on partial_rotary_factor of each head, relu2); bloom\n"
        "  (BloomModel: ALiBi, LayerNorm on the word\n"
        "  embeddings, the fused query_key_value, apply_residual_connection_post_layernorm); mpt (MptModel:\n"
        "  mpt-7b, -30b: BLOOM's ALiBi, the fused Wqkv, no biases, attn_config's softmax_scale and clip_qkv);\n"
        "  falcon\n"
        "  (FalconModel: falcon-7b, -40b, -180b, Falcon 2: LayerNorm, the fused query_key_value by K/V group,\n"
        "  RoPE, new_decoder_architecture, parallel_attn; alibi is refused).\n"
        "\n"
        "The activations gelu, gelu_python, gelu_new, gelu_pytorch_tanh, gelu_fast, gelu_accurate,\n"
        "quick_gelu, relu, relu2, silu, swish, tanh; LayerNorm weights named gamma and beta (TensorFlow conversions) load as weight and\n"
        "bias, as in transformers. The weights are used where they lie in the mapped files (float16 and\n"
        "bfloat16 widened as the GEMM packs them; a pytorch_model.bin's non-row-major views and float64\n"
        "(F64) tensors of either format are copied as float32); the arithmetic is float32. A NaN or\n"
        "infinity in a weight the pass uses is an input error naming the tensor (in an embedding table,\n"
        "only in a row the tokens pick).\n");
    options.positional_help("PATH");
    options.add_options("Inputs")
        ("path", "The model folder", cxxopts::value<std::string>(), "PATH")
        ("ids", "Token ids from any tokenizer: a comma list (101,2051,102), rows of a batch separated by "
                "';', or a FILE with one row per line; IDS|TYPES (attn tokenize --format ids of a pair) gives "
                "the token types too", cxxopts::value<std::string>(), "LIST|FILE")
        ("token-types", "Token type ids, shaped as --ids: BERT's and ALBERT's segments (A = 0, B = 1; default all 0), or "
                        "the token_type_ids of gpt2, gpt_bigcode, gpt_neo and gptj (looked up in the token embeddings and "
                        "added; default none)",
         cxxopts::value<std::string>(), "LIST|FILE")
        ("text", "Text to tokenize with the folder's tokenizer (tokenizer.json, else vocab.txt, else vocab.json + "
                 "merges.txt), special tokens added: tokenizer(text) in transformers; the tokens label the output and "
                 "pictures", cxxopts::value<std::string>(), "TEXT")
        ("text-pair", "A second text: tokenizer(text, text_pair), its token type ids given to BERT; the HTML view's "
                      "sentence filter splits the pair", cxxopts::value<std::string>(), "TEXT");
    options.add_options("Output")
        ("show", "What to print, comma-separated: attentions (default), hidden-states, tokens (the ids, under "
                 "the token strings with --text)",
         cxxopts::value<std::string>(), "LIST")
        ("layer", "Only layer L's attentions (0-based): (batch, heads, tokens, tokens), outputs.attentions[L]; "
                  "the layer --heatmap and --svg draw (default 0) and the HTML view's only one",
         cxxopts::value<std::string>(), "L")
        ("head", "Only head H of the attentions, --heatmap and --svg (0-based; the HTML view keeps every head: its "
                 "toggles pick)", cxxopts::value<std::string>(), "H");
    options.add_options("Pictures")
        ("heatmap", "Draw the weights of --layer (each head, or --head) in the terminal (wider than $COLUMNS: in "
                    "column blocks, max-pooled to fit beyond 4 blocks). Alone it prints only "
                    "the picture; with --show, the results join it in --format pretty, or go to -o")
        ("svg", "Write an SVG heatmap of the weights of --layer (a grid of heads, or --head)",
         cxxopts::value<std::string>(), "FILE")
        ("html", "Write the interactive HTML view of the weights (every head) of every layer, with a layer "
                 "selector and a model view of every layer and head, as bertviz's head_view and model_view (tokens "
                 "as bertviz shows them: GPT-2's and SentencePiece's space marks as a space); of --layer alone "
                 "when given. A page holds 2^22 weights: beyond, every head is max-pooled (--layer keeps more of each)",
         cxxopts::value<std::string>(), "FILE");
    options.parse_positional({"path"});
    add_output_options(options);
    add_exec_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    if (!r.count("path")) throw UsageError("missing model folder: attn model PATH --text TEXT | --ids LIST (see --help)");
    const bool text = r.count("text") > 0;
    if (text && r.count("ids")) throw UsageError("--text and --ids both give the tokens: give one of them");
    if (r.count("text-pair") && !text) throw UsageError("--text-pair needs --text (the first text of the pair)");
    if (text && r.count("token-types"))
        throw UsageError("--token-types comes with --ids; with --text the tokenizer gives the token types");
    if (!text && !r.count("ids")) throw UsageError("missing --text or --ids: attn model PATH --text \"time flies\"");
    io::OutputOptions out = output_options(r);

    const bool heatmap = r["heatmap"].as<bool>(), show_given = r.count("show") > 0;
    check_heatmap_output(heatmap, show_given, r.count("format") > 0, out);
    bool show_att = false, show_hidden = false, show_tokens = false;
    if (!heatmap || show_given) {
        const std::string list = show_given ? r["show"].as<std::string>() : "attentions";
        std::size_t at = 0;
        while (at <= list.size()) {
            const std::size_t comma = list.find(',', at);
            const std::string item = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
            if (item == "attentions") show_att = true;
            else if (item == "hidden-states") show_hidden = true;
            else if (item == "tokens") show_tokens = true;
            else throw UsageError("invalid --show '" + item + "': expected attentions, hidden-states or tokens" +
                                  did_you_mean(item, {"attentions", "hidden-states", "tokens"}));
            if (comma == std::string::npos) break;
            at = comma + 1;
        }
    }
    io::check_npy_output(out, std::size_t(show_att) + show_hidden + show_tokens);  // before the run, not after it
    const auto index_option = [&](const char* name) -> std::optional<std::size_t> {
        if (!r.count(name)) return std::nullopt;
        const std::string t = r[name].as<std::string>();
        std::size_t used = 0;
        unsigned long long v = 0;
        try {
            v = std::stoull(t, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (t.empty() || used != t.size() || t[0] == '-' || t[0] == '+')
            throw UsageError(std::string("invalid --") + name + " '" + t + "': expected a non-negative integer");
        return std::size_t(v);
    };
    const std::optional<std::size_t> layer = index_option("layer"), head = index_option("head");
    const std::string svg = r.count("svg") ? r["svg"].as<std::string>() : "", html = r.count("html") ? r["html"].as<std::string>() : "";
    if (r.count("svg")) svg_path(svg, false, "", "");  // the name checked before the forward pass
    if (r.count("html")) html_path(html);
    const bool pictures = heatmap || !svg.empty() || !html.empty();

    const std::string path = r["path"].as<std::string>();
    const model::Model m(path);
    const model::ModelConfig& c = m.config();
    model::ModelInput input;
    std::vector<std::string> token_strings;  // the tokenizer's tokens (--text) to show, else empty
    std::vector<std::string> raw_tokens;     // the same as they are (json escapes every control)
    std::size_t sentence_b = 0;              // the first token of --text-pair, else 0
    std::optional<std::string> types_in_ids;  // --ids IDS|TYPES: the TYPES
    if (text) {
        std::optional<Tokenizer> tok;
        try {
            tok.emplace(Tokenizer::load(path));
        } catch (const InputError& e) {
            throw InputError(std::string("--text needs the model folder's tokenizer: ") + e.what() +
                             " (or give token ids with --ids)");
        }
        std::optional<std::string> pair;
        if (r.count("text-pair")) pair = text_option(r["text-pair"].as<std::string>(), "text-pair");
        const Encoding e = tok->encode(text_option(r["text"].as<std::string>(), "text"), pair);
        if (e.ids.empty()) throw InputError("--text gives no tokens");
        input.batch = 1, input.tokens = e.ids.size(), input.ids = e.ids;
        // Only BERT and ALBERT take token types; transformers gives the others none
        // (model_input_names: RobertaTokenizer's too).
        if (model::takes_segments(c.arch) && !c.padding_idx) input.token_types = e.type_ids;
        for (const auto& t : e.tokens) token_strings.push_back(io::printable_utf8(t));
        raw_tokens = e.tokens;
        for (std::size_t i = 0; pair && i < e.sequence.size() && !sentence_b; ++i)
            if (e.sequence[i] == 1) sentence_b = i;
    } else {
        std::string ids = r["ids"].as<std::string>();
        struct stat st {};
        if (const std::size_t bar = ids.find('|'); bar != std::string::npos && ::stat(ids.c_str(), &st) != 0) {
            // attn tokenize --format ids of a text pair: the ids, '|', the token type ids
            if (r.count("token-types"))
                throw UsageError("--ids '…|…' holds the token types (attn tokenize --format ids of a pair): drop "
                                 "--token-types, or the '|' part");
            types_in_ids = ids.substr(bar + 1);
            ids.resize(bar);
        }
        const auto id_rows = parse_id_rows(ids, "--ids");
        input.batch = id_rows.size(), input.tokens = id_rows[0].size(), input.ids = flatten(id_rows);
    }
    if (r.count("token-types") || types_in_ids) {
        const auto t = types_in_ids ? parse_id_rows(*types_in_ids, "--ids' token types")
                                    : parse_id_rows(r["token-types"].as<std::string>(), "--token-types");
        if (t.size() != input.batch || t[0].size() != input.tokens)
            throw UsageError(std::string(types_in_ids ? "--ids' token types (after '|') have " : "--token-types has ") +
                             std::to_string(t.size()) + "x" + std::to_string(t[0].size()) +
                             " ids, --ids " + std::to_string(input.batch) + "x" + std::to_string(input.tokens));
        input.token_types = flatten(t);
    }
    // Like --layer beyond the model's layers, an input error: the range is the checkpoint's.
    if (head && *head >= c.heads)
        throw InputError("--head " + std::to_string(*head) + ": the model has " + std::to_string(c.heads) + " heads (0 to " +
                         std::to_string(c.heads - 1) + ")");
    model::ForwardWants wants;
    wants.attentions = show_att || pictures;
    wants.hidden_states = show_hidden;
    // The terminal and SVG pictures draw one layer (0 by default); the HTML view every layer.
    wants.layer = layer ? layer : pictures && !show_att && html.empty() ? std::optional<std::size_t>(0) : std::nullopt;
    if (!wants.attentions && !wants.hidden_states) wants.layer = 0;  // --show tokens alone: the ids checked, little run
    const model::ForwardResult res = m.forward(input, wants);
    for (const std::string& note : res.notes) std::fprintf(stderr, "attn: note: %s\n", note.c_str());

    // Results: outputs.attentions stacked (a layer and head picked by --layer and --head).
    const std::size_t T = input.tokens;
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < T; ++i) labels.push_back(token_strings.empty() ? std::to_string(input.ids[i]) : token_strings[i]);
    Tensor tokens(Shape({input.batch, T}));
    for (std::size_t i = 0; i < input.ids.size(); ++i) tokens.slice_data(0)[(i / T) * tokens.row_stride() + i % T] = float(input.ids[i]);
    std::vector<io::Item> items;
    TensorView att;
    if (wants.attentions) {
        att = res.attentions.view();
        if (wants.layer) att = pick(att, 0, 0);  // (B, H, T, T)
    }
    if (show_tokens) {
        io::Item it = io::tensor_item("tokens", tokens.view());
        it.col_labels = token_strings;  // a header of token strings over the ids (--text)
        items.push_back(it);
    }
    if (show_att) {
        TensorView a = att;
        if (head) a = pick(a, a.rank() - 3, *head);
        io::Item it = io::tensor_item("attentions", a);
        if (input.batch == 1) it.row_labels = it.col_labels = labels;
        items.push_back(it);
    }
    if (show_hidden) {
        io::Item it = io::tensor_item("hidden-states", res.hidden_states.view());
        if (input.batch == 1) it.row_labels = labels;
        items.push_back(it);
    }
    // json's labels: the tokens as they are (a tab token is "\u0009" there, as attn tokenize's json
    // has it, not the '?' the other formats show).
    if (out.format == io::Format::json && input.batch == 1)
        out.labels = out.key_labels = raw_tokens.empty() ? labels : raw_tokens;

    // Every output of the run goes out in one all-or-nothing step (write/output_file.hpp): when
    // one of them fails, nothing is on standard output and no new file is left behind.
    std::vector<io::detail::PendingFile> files;
    std::string heatmap_text;
    if (pictures) {
        const TensorView layer_att = !wants.layer ? pick(res.attentions.view(), 0, layer.value_or(0)) : att;
        const std::size_t L = layer.value_or(0), W = c.window_of(L);
        // something masked: a decoder's causal rule, or EmbeddingGemma's window both ways
        const bool any_masked = !model::is_encoder(c.arch) && (!c.bidirectional || W);
        const auto masked = [&c, L](std::size_t i, std::size_t j) { return masked_cell(c, L, i, j); };
        const std::string masking = model::is_encoder(c.arch) ? ""
                                    : c.bidirectional ? (W ? "sliding window of " + std::to_string(W - 1) + " keys each side" : "")
                                    : W               ? "causal, sliding window " + std::to_string(W)
                                                      : "causal";
        const std::string what = "layer " + std::to_string(layer.value_or(0)) + " weights";
        std::vector<std::pair<std::size_t, std::size_t>> sel;  // (b, h)
        for (std::size_t b = 0; b < input.batch; ++b)
            for (std::size_t h = 0; h < c.heads; ++h)
                if (!head || *head == h) sel.emplace_back(b, h);
        const auto slice = [&](std::size_t b, std::size_t h) {
            Matrix mm(T, T);
            const float* p = layer_att.data + b * layer_att.strides[0] + h * layer_att.strides[1];
            for (std::size_t i = 0; i < T; ++i)
                for (std::size_t j = 0; j < T; ++j) mm(i, j) = p[i * layer_att.strides[2] + j];
            return mm;
        };
        const auto title = [&](std::size_t b, std::size_t h) {
            return (input.batch > 1 ? "batch " + std::to_string(b) + " · " : std::string()) + "head " + std::to_string(h);
        };
        std::vector<std::string> row_labels = input.batch == 1 ? labels : std::vector<std::string>{};
        if (heatmap) {
            for (const auto& [b, h] : sel) {
                heatmap_text += what + " · " + title(b, h) + ":\n";  // named as the SVG's title names it
                heatmap_text += viz::heatmap_text(slice(b, h), row_labels, row_labels,
                                                  viz::want_color(stdout_is_terminal()), masked, terminal_columns());
            }
        }
        if (!svg.empty()) {
            std::string doc;
            if (sel.size() == 1) {
                viz::SvgHeatmapOptions o;
                o.what = what + " · " + title(sel[0].first, sel[0].second), o.masking_text = masking;
                o.row_labels = o.col_labels = row_labels, o.masked = masked;
                doc = viz::svg_heatmap(slice(sel[0].first, sel[0].second), o);
            } else {
                std::vector<viz::GridPanel> panels;
                for (const auto& [b, h] : sel) panels.push_back({title(b, h), slice(b, h), masked});
                viz::SvgGridOptions o;
                o.what = what, o.masking_text = masking, o.row_labels = o.col_labels = row_labels;
                doc = viz::svg_grid(panels, o);
            }
            files.push_back({svg_path(svg, heatmap || (!items.empty() && out.path.empty()), "--heatmap or the results",
                                      "write the SVG to a file"),
                             std::move(doc)});
        }
        if (!html.empty()) {
            viz::HtmlViewOptions o;
            o.title = c.model_type + (layer ? " " + what : " attentions");
            o.query_labels = o.key_labels = page_tokens(row_labels);
            o.sentence_b = sentence_b;
            o.sentence_b_from_labels = false;  // the pair is --text-pair's, not a "[SEP]" typed in --text
            if (layer) {
                o.masking_text = masking;
                if (any_masked) o.masked = [masked](std::size_t, std::size_t i, std::size_t j) { return masked(i, j); };
                files.push_back({html, viz::html_view(layer_att, o)});
            } else {  // (L, B, H, T, T): each layer's own window (Qwen2's max_window_layers)
                o.masking_text = model::is_encoder(c.arch) ? "" : masking_of_layers(c);
                const std::size_t per_layer = input.batch * c.heads;
                if (!model::is_encoder(c.arch))
                    o.masked = [&c, per_layer](std::size_t s, std::size_t i, std::size_t j) {
                        return masked_cell(c, s / per_layer, i, j);
                    };
                files.push_back({html, viz::html_view(res.attentions.view(), o)});
            }
        }
    }
    if (!items.empty())
        for (auto& f : io::detail::output_files(items, out)) files.push_back(std::move(f));
    if (heatmap) files.push_back({"", (items.empty() || !out.path.empty() ? "" : "\n") + heatmap_text});
    io::detail::write_files(files);
    return exit_ok;
}

}  // namespace attn::cli
