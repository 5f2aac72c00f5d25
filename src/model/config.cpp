// config.json → ModelConfig, with transformers' defaults (BertConfig, RobertaConfig, GPT2Config,
// LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config, GemmaConfig, Gemma2Config,
// Gemma3TextConfig, Gemma3Config, Phi3Config, GPTNeoXConfig, StableLmConfig, CohereConfig, ...)
// and a clear error for every feature attn does not run.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/model.hpp"
#include "read/json.hpp"

namespace attn::model {

const char* known_model_types() noexcept {
    return "bert, roberta, xlm-roberta, electra, distilbert, albert, gpt2, gpt_bigcode, gpt_neo, gptj, codegen, opt, llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3_text, gemma3, phi3, glm, glm4, olmo2, olmo3, smollm3, granite, mixtral, qwen2_moe, qwen3_moe, olmo, phi, starcoder2, nemotron, stablelm, cohere, cohere2, gpt_neox, persimmon, bloom, mpt, falcon";
}

namespace {

std::string shown(double x) {  // a config's number in a message: 0.5, 8, -1, 1e+30
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
}

// Whether x rounded to float32, as transformers' tensors take it, is a positive normal number:
// a base, scale or cap below FLT_MIN loses its digits or becomes 0, above FLT_MAX inf.
bool positive_float32(double x) {
    const float f = float(x);
    return f >= std::numeric_limits<float>::min() && !std::isinf(f);
}
const std::string float32_range = "outside float32's range (1.17549e-38 to 3.40282e+38)";

struct Reader {
    const json::Value& v;
    const std::string& source;
    std::string within = "";  // the object v is, for messages ("\"rope_scaling\": "); "" at the top

    [[noreturn]] void fail(const std::string& m) const { throw InputError(source + ": " + within + m); }
    // A present key's integer, written as one (transformers' int keys fail on 16.0).
    std::int64_t integer(const char* key) const {
        try {
            return v.at(key).as_int();
        } catch (const InputError& e) {
            fail(std::string("\"") + key + "\": " + e.what());
        }
    }
    // How a count may be written: as an integer (transformers' sizes fail on 16.0), or as any
    // whole number where transformers only computes with it (a length of 4096.0 works there).
    enum class Written { integer, whole };
    std::size_t count(const char* key, Written written = Written::integer) const {  // a required positive integer
        const json::Value* x = v.find(key);
        if (!x || x->is_null()) fail(std::string("missing \"") + key + "\"");
        const double d = x->is_number() ? x->as_number() : 0;
        if (written == Written::whole && d >= 1 && d <= 0x1p53 && d == std::floor(d)) return std::size_t(d);
        const std::int64_t n = integer(key);
        if (n <= 0) fail(std::string("\"") + key + "\" is " + std::to_string(n) + ": expected a positive integer");
        return std::size_t(n);
    }
    // Absent: the config class's default. null (None) is refused where transformers' code needs
    // a value (range(None), nn.LayerNorm(eps=None) fail there); count_or_none takes the default
    // for it too, where transformers writes `x if x is not None else default`.
    std::size_t count_or(const char* key, std::size_t fallback) const {
        not_null(key);
        return count_or_none(key, fallback);
    }
    // num_hidden_layers (or the class's own key), at most 2^16: the per-layer settings (windows,
    // RoPE layers, dense MLP layers) are built from it before the weights are opened, and no
    // checkpoint holds nearly so many (the deepest have a few hundred).
    std::size_t layers_or(const char* key, std::size_t fallback) const {
        const std::size_t n = count_or(key, fallback);
        if (n > max_layers)
            fail(std::string("\"") + key + "\" is " + std::to_string(n) + ": more layers than attn reads (" +
                 std::to_string(max_layers) + ")");
        return n;
    }
    static constexpr std::size_t max_layers = std::size_t(1) << 16;
    std::size_t count_or_none(const char* key, std::size_t fallback, Written written = Written::integer) const {
        const json::Value* x = v.find(key);
        return !x || x->is_null() ? fallback : count(key, written);
    }
    double number(const char* key) const {  // required: transformers indexes the dict (KeyError)
        const json::Value* x = v.find(key);
        if (!x || x->is_null()) fail(std::string("missing \"") + key + "\"");
        return number_or(key, 0.0);
    }
    // A key transformers passes on as it is: null (None) where its code needs a value fails there.
    void not_null(const char* key) const {
        if (const json::Value* x = v.find(key); x && x->is_null())
            fail(std::string("\"") + key + "\" is null: expected a value (transformers has no default for None here)");
    }
    double number_or(const char* key, double fallback) const {
        try {
            return v.number_or(key, fallback);
        } catch (const InputError& e) {
            fail(std::string("\"") + key + "\": " + e.what());
        }
    }
    // A normalisation's epsilon: finite and >= 0 (a negative one makes a variance negative, and
    // the forward pass NaN: the config's fault, not the weights').
    double eps_or(const char* key, double fallback) const {
        not_null(key);
        const double e = number_or(key, fallback);
        if (!(e >= 0.0) || std::isinf(float(e)))
            fail(std::string("\"") + key + "\" is " + shown(e) + ": expected a small number >= 0");
        return e;
    }
    // A flag transformers tests with `if config.x:` (None is false), or passes on with a default.
    bool flag(const char* key, bool fallback) const {
        const json::Value* x = v.find(key);
        return x && x->is_null() ? false : bool_or(key, fallback);
    }
    bool bool_or(const char* key, bool fallback) const {
        try {
            return v.bool_or(key, fallback);
        } catch (const InputError& e) {
            fail(std::string("\"") + key + "\": " + e.what());
        }
    }
    std::string string_or(const char* key, const char* fallback) const {
        try {
            return v.string_or(key, fallback);
        } catch (const InputError& e) {
            fail(std::string("\"") + key + "\": " + e.what());
        }
    }
};

ModelConfig::Activation activation(const Reader& r, const std::string& name) {
    using A = ModelConfig::Activation;
    // transformers' ACT2FN names; gelu_fast and gelu_accurate are the tanh form of gelu_new.
    if (name == "gelu" || name == "gelu_python") return A::gelu_erf;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast" || name == "gelu_accurate")
        return A::gelu_tanh;
    if (name == "quick_gelu") return A::quick_gelu;
    if (name == "relu") return A::relu;
    if (name == "relu2") return A::relu2;
    if (name == "silu" || name == "swish") return A::silu;
    if (name == "tanh") return A::tanh;
    r.fail("activation \"" + name + "\" is not supported (attn runs gelu, gelu_python, gelu_new, gelu_pytorch_tanh, "
           "gelu_fast, gelu_accurate, quick_gelu, relu, relu2, silu, swish, tanh)");
}

// pad_token_id, the padding_idx of the word embeddings' nn.Embedding (BertEmbeddings,
// LlamaModel, MistralModel, Qwen2Model, Qwen3Model, GemmaModel, Gemma2Model), which asserts -vocab_size <= id <
// vocab_size; RoBERTa's position embeddings take it too (max_position_embeddings). Null or
// absent: none (RoBERTa: 1, and null fails in its position ids).
std::optional<std::int64_t> padding_id(const Reader& r, const ModelConfig& c, bool roberta) {
    const json::Value* pad = r.v.find("pad_token_id");
    if (roberta && pad && pad->is_null()) r.fail("\"pad_token_id\" is null: RoBERTa's position ids need the padding id");
    if (!roberta && (!pad || pad->is_null())) return std::nullopt;
    const std::int64_t id = pad ? r.integer("pad_token_id") : 1;
    const std::int64_t limit = std::int64_t(roberta ? std::min(c.vocab, c.max_positions) : c.vocab);
    if (id < -limit || id >= limit)
        r.fail("\"pad_token_id\" is " + std::to_string(id) + ": expected an integer id from -" + std::to_string(limit) +
               " to " + std::to_string(limit - 1) + " (nn.Embedding's padding_idx in vocab_size " + std::to_string(c.vocab) +
               (roberta ? " and max_position_embeddings " + std::to_string(c.max_positions) : std::string()) + ")");
    return id;
}

// A config class's own pad_token_id (OlmoConfig's 1, Phi3Config's 32000, ...) for a config.json
// without the key: the word embeddings' padding_idx, which must be an id of vocab_size.
void class_pad_fits(const Reader& r, const ModelConfig& c, std::int64_t id, const char* config_class) {
    if (!r.v.find("pad_token_id") && c.vocab <= std::uint64_t(id))
        r.fail("no \"pad_token_id\": " + std::string(config_class) + "'s " + std::to_string(id) + " is not an id of vocab_size " +
               std::to_string(c.vocab) + " (nn.Embedding's padding_idx)");
}

// position_embedding_type: null (None) adds no positions at all, as BertEmbeddings (and
// AlbertEmbeddings) add them only `if self.position_embedding_type == "absolute"` and the
// attention's relative branches compare it too; the relative types are refused.
void absolute_positions(const Reader& r, ModelConfig& c) {
    const json::Value* pos_type = r.v.find("position_embedding_type");
    c.absolute_positions = !pos_type || !pos_type->is_null();
    const std::string pos = r.string_or("position_embedding_type", "absolute");
    if (pos != "absolute") r.fail("position_embedding_type \"" + pos + "\" is not supported (attn runs \"absolute\", or null: none)");
}

void bert(const Reader& r, ModelConfig& c, std::size_t vocab = 30522) {
    c.arch = Architecture::bert;
    // BertConfig's defaults (bert-base); RobertaConfig's and XLMRobertaConfig's are the same but
    // for RobertaConfig's vocab_size (50265); ElectraConfig's are ELECTRA-small's
    // discriminator's (hidden 256, 4 heads, intermediate 1024, embedding_size 128)
    const bool electra = c.model_type == "electra";
    c.layers = r.layers_or("num_hidden_layers", 12), c.hidden = r.count_or("hidden_size", electra ? 256 : 768);
    c.heads = r.count_or("num_attention_heads", electra ? 4 : 12);
    c.intermediate = r.count_or("intermediate_size", electra ? 1024 : 3072);
    // ElectraEmbeddings are embedding_size wide, and ElectraModel projects them to hidden_size
    // (embeddings_project) when the two differ
    if (electra) c.embedding_size = r.count_or("embedding_size", 128);
    c.vocab = r.count_or("vocab_size", vocab), c.max_positions = r.count_or("max_position_embeddings", 512);
    c.type_vocab = r.count_or("type_vocab_size", 2);
    c.norm_eps = r.eps_or("layer_norm_eps", 1e-12);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "gelu"));
    absolute_positions(r, c);
    const bool xlmr = c.model_type == "xlm-roberta", roberta = xlmr || c.model_type == "roberta";
    const std::string name = xlmr ? "XLM-RoBERTa" : roberta ? "RoBERTa" : electra ? "ELECTRA" : "BERT";
    const std::string encoder =
        std::string(xlmr ? "XLMRobertaModel" : roberta ? "RobertaModel" : electra ? "ElectraModel" : "BertModel") + "'s encoder";
    if (r.bool_or("is_decoder", false))
        r.fail(std::string("\"is_decoder\": ") + (electra ? "an " : "a ") + name + " decoder is not supported (attn runs " + encoder + ")");
    if (r.bool_or("add_cross_attention", false))  // BertLayer raises it for an encoder
        r.fail("\"add_cross_attention\": cross-attention needs a decoder (attn runs " + encoder + ")");
    if (!roberta) padding_id(r, c, false);  // checked only (RoBERTa's: roberta())
}

// AlbertConfig's defaults (albert-xxlarge): BertModel's post-LN layers under ALBERT's names, the
// embeddings embedding_size wide (128) and always mapped to hidden_size (embedding_hidden_mapping_in),
// num_hidden_layers layers running the weights of num_hidden_groups groups of inner_group_num
// layers (1: the outputs and attentions are one per layer, as attn stacks them), GELU (tanh).
void albert(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::albert;
    c.layers = r.layers_or("num_hidden_layers", 12), c.hidden = r.count_or("hidden_size", 4096);
    c.heads = r.count_or("num_attention_heads", 64);
    c.intermediate = r.count_or("intermediate_size", 16384);
    c.embedding_size = r.count_or("embedding_size", 128);
    c.layer_groups = r.count_or("num_hidden_groups", 1);
    // (groups past the layers are never reached by AlbertTransformer's group_idx: unused, as there)
    if (const std::size_t inner = r.count_or("inner_group_num", 1); inner != 1)
        r.fail("\"inner_group_num\" " + std::to_string(inner) + " is not supported (attn runs one layer per group "
               "step, as every ALBERT checkpoint has)");
    c.vocab = r.count_or("vocab_size", 30000), c.max_positions = r.count_or("max_position_embeddings", 512);
    c.type_vocab = r.count_or("type_vocab_size", 2);
    c.norm_eps = r.eps_or("layer_norm_eps", 1e-12);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "gelu_new"));
    absolute_positions(r, c);
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx (AlbertConfig's 0)
}

// RobertaModel: BertModel's layers under RobertaEmbeddings, whose position ids count the tokens
// that are not pad_token_id (default 1) from pad_token_id + 1 on (create_position_ids_from_input_ids).
void roberta(const Reader& r, ModelConfig& c) {
    bert(r, c, c.model_type == "roberta" ? 50265 : 30522);
    c.padding_idx = padding_id(r, c, true);
}

// A config class's attribute_map (GPT2Config's hidden_size for n_embd, DistilBertConfig's for
// dim): the key config.json gives the field by, key or its alias; both, differing, are refused
// (which one transformers keeps depends on its version).
const char* aliased(const Reader& r, const char* key, const char* alias, const char* config_class) {
    const json::Value *k = r.v.find(key), *a = r.v.find(alias);
    if (k && a && k->is_null() != a->is_null())  // as transformers keeps the alias: a null one is None
        r.not_null(k->is_null() ? key : alias);
    const bool same = k && a && ((k->is_null() && a->is_null()) ||
                                 (k->is_number() && a->is_number() && k->as_number() == a->as_number()));
    if (k && a && !same)
        r.fail(std::string("\"") + key + "\" and \"" + alias + "\" (the same field of " + config_class + ") differ: give one");
    return k || !a ? key : alias;
}

// The keys GPT2Config set the names of, read as it reads them (n_layer, n_embd, n_head and
// n_positions, or their attribute_map aliases; n_inner, null: 4·n_embd; layer_norm_epsilon,
// activation_function), with a config class's defaults: GPT2Config's, GPTJConfig's, GPTBigCodeConfig's.
struct Gpt2Defaults {
    std::size_t layers, hidden, heads, vocab, positions;
    const char* activation;
};
void gpt2_keys(const Reader& r, ModelConfig& c, const char* config_class, const Gpt2Defaults& d) {
    const auto named = [&](const char* key, const char* alias) { return aliased(r, key, alias, config_class); };
    c.layers = r.layers_or(named("n_layer", "num_hidden_layers"), d.layers);
    c.hidden = r.count_or(named("n_embd", "hidden_size"), d.hidden);
    c.heads = r.count_or(named("n_head", "num_attention_heads"), d.heads);
    c.intermediate = r.count_or_none("n_inner", 4 * c.hidden);
    c.vocab = r.count_or("vocab_size", d.vocab);
    c.positions_key = named("n_positions", "max_position_embeddings");
    c.max_positions = r.count_or(c.positions_key.c_str(), d.positions);
    c.norm_eps = r.eps_or("layer_norm_epsilon", 1e-5);
    r.not_null("activation_function");
    c.activation = activation(r, r.string_or("activation_function", d.activation));
}

// DistilBertModel (models/distilbert/modeling_distilbert.py): BertModel's post-LN layers under
// other names, word + position embeddings (no token types), every LayerNorm's eps 1e-12 (fixed,
// not in the config). DistilBertConfig's defaults (distilbert-base) and attribute_map.
void distilbert(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::distilbert;
    const auto named = [&](const char* key, const char* alias) { return aliased(r, key, alias, "DistilBertConfig"); };
    c.layers = r.layers_or(named("n_layers", "num_hidden_layers"), 6);
    c.hidden = r.count_or(named("dim", "hidden_size"), 768);
    c.heads = r.count_or(named("n_heads", "num_attention_heads"), 12);
    c.intermediate = r.count_or("hidden_dim", 3072);
    c.vocab = r.count_or("vocab_size", 30522), c.max_positions = r.count_or("max_position_embeddings", 512);
    c.type_vocab = 0;
    c.norm_eps = 1e-12;
    r.not_null("activation");
    c.activation = activation(r, r.string_or("activation", "gelu"));
    // sinusoidal_pos_embds: transformers fills the position table with sinusoids when it builds the
    // model; a checkpoint stores that table, and attn reads it from the weights as for false.
    r.flag("sinusoidal_pos_embds", false);
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx (default 0)
}

void gpt2(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::gpt2;
    gpt2_keys(r, c, "GPT2Config", {12, 768, 12, 50257, 1024, "gelu_new"});  // GPT2Config's defaults (gpt2, the 124M model)
    c.scale_attn_weights = r.flag("scale_attn_weights", true);  // `if self.scale_attn_weights:`, null false
    c.scale_by_inverse_layer = r.flag("scale_attn_by_inverse_layer_idx", false);
    if (r.flag("add_cross_attention", false)) r.fail("\"add_cross_attention\": true is not supported");
}

// GPTJConfig's defaults (GPT-J-6B) and attribute_map (n_embd, n_head, n_layer, n_positions): LayerNorm,
// q/k/v and out_proj without biases, RoPE of base 10000 on the leading rotary_dim dims of each head
// on pairs (2i, 2i + 1), from a table of n_positions positions (more tokens fail there), the MLP
// fc_in and fc_out (n_inner wide, null: 4·n_embd) with biases beside the attention. CodeGenConfig
// has the same keys and defaults (GPT-J-6B's shape).
void gptj_keys(const Reader& r, ModelConfig& c, const char* config_class) {
    gpt2_keys(r, c, config_class, {28, 4096, 16, 50400, 2048, "gelu_new"});
    if (c.hidden % c.heads)  // GPTJAttention and CodeGenAttention refuse it
        r.fail("n_embd " + std::to_string(c.hidden) + " is not a multiple of n_head " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
    c.mlp_bias = true;
    // rotary_dim null: a table n_embd wide (`self.rotary_dim or self.embed_dim`) turning every dim, which
    // fits the head only when there is one
    const json::Value* rotary_given = r.v.find("rotary_dim");
    if (rotary_given && rotary_given->is_null() && c.heads != 1)
        r.fail("\"rotary_dim\" is null: the RoPE table then turns n_embd " + std::to_string(c.hidden) + " dims, more than a head's " +
               std::to_string(c.head_dim) + " (transformers fails on it with n_head > 1)");
    const std::size_t rotary = r.count_or_none("rotary_dim", rotary_given ? c.hidden : 64);
    if (rotary > c.head_dim || rotary % 2)
        r.fail("\"rotary_dim\" " + std::to_string(rotary) + ": expected an even number of dims up to the head's " +
               std::to_string(c.head_dim) + " (n_embd / n_head)");
    c.rotary_dims = rotary;
    c.rope.theta = 10000.0f;  // create_sinusoidal_positions' base
    c.rope.style = RopeStyle::interleaved;  // rotate_every_two
    if (r.v.find("rope_scaling") && !r.v.at("rope_scaling").is_null())
        c.notes.push_back("\"rope_scaling\" is not applied: GPT-J's RoPE has none (as in transformers)");
}
void gptj(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::gptj;
    gptj_keys(r, c, "GPTJConfig");
}

// CodeGenModel: GPT-J's layer with one fused qkv_proj, whose columns are mp_num = 4 chunks (the
// TPU cores it was trained on) of q | v | k, each of n_head / 4 heads: n_head a multiple of 4.
// n_ctx only narrows an attribute the model never uses (min(rotary_dim, n_ctx // n_head)), but
// computing it fails on a null or non-numeric one.
void codegen(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::codegen;
    gptj_keys(r, c, "CodeGenConfig");
    r.not_null("n_ctx");
    r.number_or("n_ctx", 2048);  // (a number)
    if (c.heads % 4)  // _split_heads' reshape fails
        r.fail("n_head " + std::to_string(c.heads) + " is not a multiple of 4: CodeGen's qkv_proj holds 4 chunks (mp_num) of "
               "whole heads");
}

// OPTConfig's defaults (opt-125m): learned positions, LayerNorm before the attention and the MLP
// (do_layer_norm_before; false: after their residuals, and no final norm), biases with
// enable_bias, ReLU, ffn_dim; word_embed_proj_dim (null: hidden_size) the token embeddings' width.
void opt(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::opt;
    c.layers = r.layers_or("num_hidden_layers", 12), c.hidden = r.count_or("hidden_size", 768);
    c.heads = r.count_or("num_attention_heads", 12);
    c.intermediate = r.count_or("ffn_dim", 3072);
    c.vocab = r.count_or("vocab_size", 50272);
    c.max_positions = r.count_or("max_position_embeddings", 2048);
    c.embedding_size = r.count_or_none("word_embed_proj_dim", c.hidden);
    c.norm_eps = 1e-5;  // nn.LayerNorm's default: OPTConfig has no eps
    r.not_null("activation_function");
    c.activation = activation(r, r.string_or("activation_function", "relu"));
    if (c.hidden % c.heads)  // OPTAttention refuses it
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
    // (null is None, falsy: nn.Linear(bias=None) has no bias, nn.LayerNorm(elementwise_affine=None) no parameters)
    c.qkv_bias = c.o_bias = c.mlp_bias = r.flag("enable_bias", true);
    c.norm_before = r.flag("do_layer_norm_before", true);
    c.final_norm = c.norm_before && !r.flag("_remove_final_layer_norm", false);
    c.norm_affine = r.flag("layer_norm_elementwise_affine", true);
    class_pad_fits(r, c, 1, "OPTConfig");
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// GPTNeoConfig's defaults (gpt-neo-1.3B) and attribute_map (num_heads, num_layers): learned positions,
// LayerNorm, q/k/v without biases and out_proj with one, no scaling of q·kᵀ, the layers "global"
// (causal) or "local" (causal within window_size) as attention_types expands, its first
// num_layers (config.json's attention_layers, transformers' expansion of it, wins when given), the
// MLP c_fc and c_proj.
void gpt_neo(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::gpt_neo;
    c.layers = r.layers_or(aliased(r, "num_layers", "num_hidden_layers", "GPTNeoConfig"), 24);
    c.heads = r.count_or(aliased(r, "num_heads", "num_attention_heads", "GPTNeoConfig"), 16);
    c.hidden = r.count_or("hidden_size", 2048);
    c.intermediate = r.count_or_none("intermediate_size", 4 * c.hidden);
    c.vocab = r.count_or("vocab_size", 50257);
    c.max_positions = r.count_or("max_position_embeddings", 2048);
    c.norm_eps = r.eps_or("layer_norm_epsilon", 1e-5);
    r.not_null("activation_function");
    c.activation = activation(r, r.string_or("activation_function", "gelu_new"));
    if (c.hidden % c.heads)  // GPTNeoSelfAttention refuses it
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_heads " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
    c.o_bias = c.mlp_bias = true;
    c.sliding_window = r.count_or("window_size", 256);
    // attention_types: [[["global", "local"], 12]], each pattern repeated its count of times
    std::vector<std::string> types;
    if (const json::Value* t = r.v.find("attention_types"); t && !t->is_null()) {
        const auto bad = [&] { r.fail("\"attention_types\": expected [[[\"global\" or \"local\", ...], count], ...]"); };
        if (!t->is_array()) bad();
        for (const json::Value& item : t->as_array()) {
            if (!item.is_array() || item.as_array().size() != 2 || !item.as_array()[0].is_array() || !item.as_array()[1].is_number())
                bad();
            const double count = item.as_array()[1].as_number();
            if (!(count >= 0) || count != std::floor(count) || count > 1e6) bad();
            // (only the first num_layers are read: a huge count expands no further)
            for (std::size_t k = 0; k < std::size_t(count) && types.size() < c.layers; ++k)
                for (const json::Value& name : item.as_array()[0].as_array()) types.push_back(name.is_string() ? name.as_string() : "");
        }
    } else {
        for (int k = 0; k < 12; ++k) types.insert(types.end(), {"global", "local"});
    }
    if (const json::Value* given = r.v.find("attention_layers"); given && !given->is_null()) {
        if (!given->is_array() || given->as_array().size() < c.layers)
            r.fail("\"attention_layers\": expected an array of \"global\" or \"local\", one per layer");
        types.clear();
        for (std::size_t l = 0; l < c.layers; ++l)
            types.push_back(given->as_array()[l].is_string() ? given->as_array()[l].as_string() : "");
    } else if (types.size() < c.layers) {  // (v4's GPTNeoConfig refused any other length; v5 reads the first num_layers)
        r.fail("\"attention_types\" expands to " + std::to_string(types.size()) + " layers, but num_layers is " +
               std::to_string(c.layers));
    }
    for (std::size_t l = 0; l < c.layers; ++l) {
        if (types[l] != "global" && types[l] != "local")
            r.fail("layer " + std::to_string(l) + "'s attention type \"" + types[l] + "\": expected \"global\" or \"local\"");
        c.slides.push_back(types[l] == "local");
    }
}

// GPTBigCodeConfig's defaults (its santacoder-sized defaults) and attribute_map (GPT2Config's):
// GPT-2's block with nn.Linear layers, the fused c_attn holding q | k | v of one K/V head with
// multi_query (the default), else q, k, v per head; scale_attn_weights; gelu_pytorch_tanh.
void gpt_bigcode(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::gpt_bigcode;
    gpt2_keys(r, c, "GPTBigCodeConfig", {12, 768, 12, 50257, 1024, "gelu_pytorch_tanh"});
    if (c.hidden % c.heads)  // GPTBigCodeAttention refuses it
        r.fail("n_embd " + std::to_string(c.hidden) + " is not a multiple of n_head " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
    c.kv_heads = r.flag("multi_query", true) ? 1 : c.heads;
    c.scale_attn_weights = r.flag("scale_attn_weights", true);
    if (r.flag("add_cross_attention", false)) r.fail("\"add_cross_attention\": true is not supported");
}

// BloomConfig's defaults (its tiny test model's: the checkpoints give theirs) and attribute_map
// (n_layer, n_head); n_embed, which older configs give, is hidden_size (null: not given). No
// position embeddings (ALiBi: no limit on the tokens), the MLP 4·hidden_size wide with BLOOM's
// GELU (tanh form), every linear layer with biases but for one case: pretraining_tp > 1 with
// slow_but_exact sums the output projections (self_attention.dense, mlp.dense_4h_to_h) slice by
// slice from zeros, without their biases.
void bloom(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::bloom;
    c.layers = r.layers_or(aliased(r, "n_layer", "num_hidden_layers", "BloomConfig"), 2);
    const json::Value* n_embed = r.v.find("n_embed");  // `hidden_size if n_embed is None else n_embed`
    c.hidden = n_embed && n_embed->is_null() ? r.count_or("hidden_size", 64)
                                             : r.count_or(aliased(r, "n_embed", "hidden_size", "BloomConfig"), 64);
    c.heads = r.count_or(aliased(r, "n_head", "num_attention_heads", "BloomConfig"), 8);
    c.intermediate = 4 * c.hidden;
    c.vocab = r.count_or("vocab_size", 250880);
    c.norm_eps = r.eps_or("layer_norm_epsilon", 1e-5);
    c.activation = ModelConfig::Activation::gelu_tanh;
    c.residual_from_norm = r.flag("apply_residual_connection_post_layernorm", false);
    r.not_null("pretraining_tp");  // `self.pretraining_tp > 1` fails on None
    const bool sliced = r.number_or("pretraining_tp", 1) > 1 && r.flag("slow_but_exact", false);
    c.o_bias = c.mlp_bias = !sliced;  // self_attention.dense's and mlp.dense_4h_to_h's biases
    if (c.hidden % c.heads)  // BloomAttention refuses it
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of n_head " + std::to_string(c.heads));
}

// "clip_qkv" (OLMo, MPT): q, k and v clamped to ±clip_qkv, a positive float32 (0 or less would
// clamp them all to one value, a float32 subnormal to about 0); null: none.
float clip_qkv(const Reader& r) {
    const json::Value* clip = r.v.find("clip_qkv");
    if (!clip || clip->is_null()) return 0;
    const double x = r.number_or("clip_qkv", 0.0);
    if (!positive_float32(x)) r.fail("\"clip_qkv\" is " + shown(x) + ": expected a positive float32 number, or null (none)");
    return float(x);
}

// MptConfig's defaults (mpt-7b) and attribute_map (d_model, n_heads, n_layers), read as
// transformers' MptModel runs them: no position embeddings but ALiBi with BLOOM's slopes
// (alibi_bias_max 8 whatever attn_config says: MptModel passes none), the fused Wqkv (rows
// q | k | v), out_proj and the MLP up_proj (4·d_model wide whatever expansion_ratio says) and
// down_proj all without biases, LayerNorms without bias; attn_config's softmax_scale (null:
// 1/√head_dim) and clip_qkv (null, 0 or false: none; true: ±1). Tokens are limited to
// max_seq_len, the columns of MptModel's ALiBi tensor. Where the config asks for what
// transformers does not run (ALiBi off, qk_ln, another bias maximum or MLP width, biases), a
// note says so.
void mpt(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::mpt;
    c.layers = r.layers_or(aliased(r, "n_layers", "num_hidden_layers", "MptConfig"), 24);
    c.hidden = r.count_or(aliased(r, "d_model", "hidden_size", "MptConfig"), 2048);
    c.heads = r.count_or(aliased(r, "n_heads", "num_attention_heads", "MptConfig"), 16);
    if (c.hidden % c.heads)  // the heads' reshape fails
        r.fail("d_model " + std::to_string(c.hidden) + " is not a multiple of n_heads " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
    c.intermediate = 4 * c.hidden;
    c.vocab = r.count_or("vocab_size", 50368);
    c.positions_key = "max_seq_len";
    c.max_positions = r.count_or("max_seq_len", 2048);
    c.norm_eps = r.eps_or("layer_norm_epsilon", 1e-5);
    c.activation = ModelConfig::Activation::gelu_erf;
    if (const double ratio = r.number_or("expansion_ratio", 4); ratio != 4)
        c.notes.push_back("the MLP is 4 · d_model = " + std::to_string(c.intermediate) +
                          " wide, as transformers' MptMLP builds it, not expansion_ratio " + shown(ratio) + " times");
    const json::Value none = json::Value::object({}, {});
    const json::Value* attn = r.v.find("attn_config");
    if (attn && !attn->is_null() && !attn->is_object()) r.fail("\"attn_config\": expected an object");
    const Reader a{attn && attn->is_object() ? *attn : none, r.source, "\"attn_config\": "};
    a.not_null("attn_type");  // MptAttentionConfig: None is not one of the two
    const std::string type = a.string_or("attn_type", "multihead_attention");
    if (type != "multihead_attention" && type != "multiquery_attention")  // MptAttentionConfig refuses it
        a.fail("\"attn_type\" \"" + type + "\": expected \"multihead_attention\" or \"multiquery_attention\"");
    if (const json::Value* s = a.v.find("softmax_scale"); s && !s->is_null()) {
        const double x = a.number_or("softmax_scale", 0.0);
        if (!std::isfinite(float(x)) || float(x) == 0)  // (0: every score 0, ALiBi alone)
            a.fail("\"softmax_scale\" is " + shown(x) + ": expected a finite float32 number other than 0, or null "
                   "(1/sqrt(head_dim))");
        c.attention_multiplier = x;
    }
    // `if self.clip_qkv:` 0 and false are none, true clamps to ±1
    if (const json::Value* clip = a.v.find("clip_qkv"); clip && clip->is_bool())
        c.clip_qkv = clip->as_bool() ? 1.0f : 0.0f;
    else if (!clip || clip->is_null() || !clip->is_number() || clip->as_number() != 0)
        c.clip_qkv = clip_qkv(a);
    if (!a.flag("alibi", true))
        c.notes.push_back("ALiBi is applied although attn_config's \"alibi\" is not true, as transformers' MptModel "
                          "always applies it");
    if (!r.flag("no_bias", true))
        c.notes.push_back("no bias is applied although \"no_bias\" is false, as transformers' MPT layers have none");
    if (a.flag("qk_ln", false))
        c.notes.push_back("attn_config's \"qk_ln\" is not applied, as transformers' MptAttention has no q/k LayerNorm");
    if (const double bias_max = a.number_or("alibi_bias_max", 8); bias_max != 8)
        c.notes.push_back("ALiBi's slopes are those of alibi_bias_max 8, as transformers' MptModel builds them, not " +
                          shown(bias_max));
}

// The lengths RoPE's scalings read from the top level of config.json: max_position_embeddings,
// and original_max_position_embeddings (0: absent), which transformers v5 moves into the
// scaling's parameters when they lack it.
struct Lengths {
    std::size_t max_positions = 0, original = 0;
};

// YaRN as transformers v5's _compute_yarn_parameters reads it: original_max_position_embeddings
// (else the top level's, else max_position_embeddings, as v4 reads it), factor (required;
// null: max_position_embeddings / original_max_position_embeddings; v4.5x took that ratio
// whenever the original was given), the attention factor (else from mscale and mscale_all_dim
// when both are set, else 0.1·ln(factor) + 1), beta_fast (32), beta_slow (1), truncate (true).
void yarn(const Reader& sr, const Lengths& top, RopeScaling& out) {
    const std::size_t max_positions = top.max_positions;
    out.kind = RopeScalingKind::yarn;
    const double original = double(sr.count_or_none("original_max_position_embeddings",
                                                    top.original ? top.original : max_positions, Reader::Written::whole));
    out.original_max_positions = float(original);
    const json::Value* given = sr.v.find("factor");
    const double factor = given && !given->is_null() ? sr.number_or("factor", 1.0) : double(max_positions) / original;
    if (!(factor > 0.0) || !std::isfinite(factor))
        sr.fail("yarn's factor " + shown(factor) + ": expected a finite number > 0");
    out.factor = float(factor);
    const auto mscale = [&](double m) { return factor <= 1 ? 1.0 : 0.1 * m * std::log(factor) + 1.0; };  // get_mscale
    const double m = sr.number_or("mscale", 0), m_all = sr.number_or("mscale_all_dim", 0);
    const double attention =
        sr.number_or("attention_factor", m != 0 && m_all != 0 ? mscale(m) / mscale(m_all) : mscale(1));
    // It multiplies RoPE's float32 cos and sin: beyond float32 they are inf and the scores NaN
    // (one that rounds to 0 makes them 0, and every query attends uniformly, as in transformers).
    if (!(attention > 0) || !std::isfinite(float(attention)))
        sr.fail("yarn's attention factor " + shown(attention) + ": expected a positive number below 3.40282e+38 (float32)");
    out.attention_factor = float(attention);
    // `get("beta_fast") or 32`: 0 and null take the default too
    const double fast = sr.number_or("beta_fast", 32), slow = sr.number_or("beta_slow", 1);
    out.beta_fast = fast != 0 ? fast : 32, out.beta_slow = slow != 0 ? slow : 1;
    if (!std::isfinite(out.beta_fast) || !std::isfinite(out.beta_slow) || out.beta_fast < 0 || out.beta_slow < 0)
        sr.fail("yarn's beta_fast and beta_slow: expected positive numbers");
    const json::Value* truncate = sr.v.find("truncate");  // get("truncate", True): null is falsy
    out.truncate = !truncate || (!truncate->is_null() && sr.bool_or("truncate", true));
}

// LongRoPE as transformers v5's _compute_longrope_parameters reads it: "short_factor" and
// "long_factor" (one number per frequency: their count is checked against the rotated dims once
// head_dim is known); the original length the object's original_max_position_embeddings, else
// the config's top-level one, else max_position_embeddings (Phi-3: the top level's always, which
// Phi3Config has: `phi3_original`); the factor the object's, else max_position_embeddings over
// the original; the attention factor the object's, else sqrt(1 + ln(factor) / ln(original)) for
// a factor above 1, else 1. (Transformers v4.48 to v4.57 took max_position_embeddings over a
// top-level original before the object's factor, and only a top-level original.)
void longrope(const Reader& sr, const Lengths& top, RopeScaling& out, bool phi3_original) {
    out.kind = RopeScalingKind::longrope;
    const auto list = [&](const char* key) {
        const json::Value* x = sr.v.find(key);
        if (!x || x->is_null()) sr.fail(std::string("longrope needs \"") + key + "\", a list of numbers");
        if (!x->is_array()) sr.fail(std::string("\"") + key + "\": expected a list of numbers");
        std::vector<float> v;
        for (const json::Value& n : x->as_array()) {
            const double f = n.is_number() ? n.as_number() : 0.0;
            if (!n.is_number() || !(f > 0) || !std::isfinite(float(f)))
                sr.fail(std::string("\"") + key + "\": expected positive numbers below 3.40282e+38 (float32)");
            v.push_back(float(f));
        }
        return v;
    };
    out.ext_factors = list("short_factor");
    out.long_factor = list("long_factor");
    if (top.max_positions == 0) sr.fail("longrope needs \"max_position_embeddings\", which is null");
    const std::size_t fallback_original = top.original ? top.original : top.max_positions;
    const double original = double(phi3_original ? top.original
                                                 : sr.count_or_none("original_max_position_embeddings", fallback_original,
                                                                    Reader::Written::whole));
    out.original_max_positions = float(original);
    const double factor = sr.number_or("factor", double(top.max_positions) / original);
    if (!(factor > 0.0) || !std::isfinite(factor)) sr.fail("longrope's factor " + shown(factor) + ": expected a finite number > 0");
    out.factor = float(factor);
    const double attention_fallback = factor > 1.0 ? std::sqrt(1 + std::log(factor) / std::log(original)) : 1.0;
    const double attention = sr.number_or("attention_factor", attention_fallback);
    if (!(attention > 0) || !std::isfinite(float(attention)))
        sr.fail("longrope's attention factor " + shown(attention) + ": expected a positive number below 3.40282e+38 (float32)");
    out.attention_factor = float(attention);
}

// RoPE's scaling from `sr`, an object with "rope_type" (or "type") and its fields: config.json's
// "rope_scaling", or transformers v5's "rope_parameters" (sr.within names it), into `out`;
// `text` names it for messages.
void rope_scaling(const Reader& sr, const Lengths& top, RopeScaling& out, std::string& text, bool phi3 = false) {
    std::string type = sr.string_or("rope_type", "");
    if (type.empty()) type = sr.string_or("type", "");
    // No type: transformers finds no function for None (a KeyError); an object without one
    // that scales nothing is read as the default
    if (type.empty() && sr.v.find("factor")) sr.fail("a \"factor\" but no \"rope_type\" (or \"type\")");
    if (type.empty()) type = "default";
    if (type == "default") return;
    // Phi3Config: "su" and "yarn" are its older names of longrope, and it runs no other scaling
    if (phi3 && (type == "su" || type == "yarn")) type = "longrope";
    if (phi3 && type != "longrope")
        sr.fail("rope type \"" + type + "\" is not Phi-3's (Phi3Config runs default and longrope, also named su and yarn)");
    // The types attn runs, each a branch below; any other is named before its fields are read.
    static constexpr std::array<std::string_view, 5> scaled = {"linear", "llama3", "dynamic", "yarn", "longrope"};
    if (std::find(scaled.begin(), scaled.end(), type) == scaled.end())
        sr.fail("rope type \"" + type + "\" is not supported (attn runs default, linear, llama3, dynamic, yarn and longrope)");
    if (type == "longrope") {
        longrope(sr, top, out, phi3);
        text = sr.source + ": " + sr.within + type + " factor " + shown(out.factor);
        return;
    }
    // Every other type requires the factor (yarn's may be null); transformers warns of one below 1
    // and runs it.
    if (!sr.v.find("factor")) sr.fail("missing \"factor\"");
    double factor = type == "yarn" ? sr.number_or("factor", 1.0) : sr.number("factor");
    if (!(factor > 0.0) || !std::isfinite(factor))
        sr.fail("factor " + shown(factor) + ": expected a finite number > 0");
    out.factor = float(factor);
    if (type == "linear") {
        out.kind = RopeScalingKind::linear;
    } else if (type == "llama3") {
        out.kind = RopeScalingKind::llama3;
        out.low_freq_factor = float(sr.number("low_freq_factor"));
        out.high_freq_factor = float(sr.number("high_freq_factor"));
        constexpr Reader::Written whole = Reader::Written::whole;
        const char* key = "original_max_position_embeddings";
        out.original_max_positions = float(top.original ? sr.count_or_none(key, top.original, whole) : sr.count(key, whole));
        if (!(out.high_freq_factor > out.low_freq_factor) || !(out.low_freq_factor > 0))
            sr.fail("llama3 needs 0 < low_freq_factor < high_freq_factor");
    } else if (type == "dynamic") {
        if (top.max_positions == 0) sr.fail("dynamic RoPE needs \"max_position_embeddings\", which is null");
        out.kind = RopeScalingKind::dynamic;
        out.original_max_positions = float(top.max_positions);  // config.max_position_embeddings
    } else if (type == "yarn") {
        if (top.max_positions == 0) sr.fail("yarn RoPE needs \"max_position_embeddings\", which is null");
        yarn(sr, top, out);
        if (sr.v.find("factor")->is_null()) factor = out.factor;  // max_position_embeddings / the original
    }
    // The frequencies it gives are checked when the model runs (run_llama), once the weights
    // confirm head_dim: a config's absurd one would take memory here.
    text = sr.source + ": " + sr.within + type + " factor " + shown(factor);
}

// A RoPE base as transformers takes it: `key` of `holder`, else `fallback` (null, None, fails
// there); a normal float32, as torch takes it.
float rope_base(const Reader& holder, const char* key, double fallback) {
    const std::string name = std::string("\"") + key + "\"";
    holder.not_null(key);
    const double theta = holder.number_or(key, fallback);
    if (!(theta > 0)) holder.fail(name + " is " + shown(theta) + ": expected a positive number");
    if (!positive_float32(theta)) holder.fail(name + " is " + shown(theta) + ": " + float32_range + ", in which transformers computes RoPE");
    return float(theta);
}

// RoPE's theta and scaling as transformers reads them: the object "rope_scaling" (v4's, which v5
// still takes first: rope_parameters = rope_scaling or rope_parameters), else v5's
// "rope_parameters" ({"rope_type", "rope_theta", the scaling's fields}); theta the object's
// "rope_theta", else the top-level one (v5's setdefault), else the config class's (10000;
// Mixtral's 1e6). partial_rotary_factor, the object's else the top level's, is returned for
// Phi-3, Phi, StableLM, GLM, Nemotron, GPT-NeoX and Persimmon (`partial`; Phi's, GLM's,
// Nemotron's and Persimmon's (RopeOf::phi) default is 0.5, StableLM's 0.25; the others refuse one
// other than 1);
// Phi-3 has scaling types of its own (rope_scaling's phi3).
enum class RopeOf { llama, phi3, gpt_neox, phi, stablelm, glm, nemotron };
double rope(const Reader& r, const Lengths& top, ModelConfig& c, RopeOf of = RopeOf::llama, double default_theta = 10000.0) {
    const bool phi3 = of == RopeOf::phi3, partial_allowed = of != RopeOf::llama;
    const json::Value* scaling = r.v.find("rope_scaling");
    const json::Value* params = r.v.find("rope_parameters");
    const bool v4 = scaling && !scaling->is_null();
    const json::Value* chosen = v4 ? scaling : params && !params->is_null() ? params : nullptr;
    const std::string what = v4 ? "\"rope_scaling\"" : "\"rope_parameters\"";
    if (chosen && !chosen->is_object()) r.fail(what + ": expected an object or null");
    if (chosen && !v4)
        for (const json::Value& x : chosen->values())
            if (x.is_object())
                r.fail("\"rope_parameters\" per layer type is not supported (attn runs one RoPE for every layer)");
    const Reader pr{chosen ? *chosen : r.v, r.source, chosen ? what + ": " : ""};
    // The object's theta when it has one, else the top level's.
    c.rope.theta = rope_base(pr.v.find("rope_theta") ? pr : r, "rope_theta", default_theta);
    const Reader& partial_holder = pr.v.find("partial_rotary_factor") ? pr : r;
    partial_holder.not_null("partial_rotary_factor");
    const double partial = partial_holder.number_or("partial_rotary_factor", of == RopeOf::phi || of == RopeOf::glm ||
                                                                                     of == RopeOf::nemotron
                                                                                 ? 0.5
                                                                             : of == RopeOf::stablelm ? 0.25
                                                                                                      : 1.0);
    if (!partial_allowed && (pr.number_or("partial_rotary_factor", 1.0) != 1.0 || r.number_or("partial_rotary_factor", 1.0) != 1.0))
        r.fail("\"partial_rotary_factor\" other than 1 is not supported");
    if (chosen) rope_scaling(pr, top, c.rope.scaling, c.rope_scaling_text, phi3);
    return partial;
}

// Gemma 3's two RoPEs (Gemma3RotaryEmbedding): the full layers' of base "rope_theta" (1e6) with
// "rope_scaling", the sliding layers' of base "rope_local_base_freq" (10000), unscaled. Or
// transformers v5's "rope_parameters" per layer type, {"full_attention": {...},
// "sliding_attention": {...}}, each object's "rope_theta" else those keys' (v5's setdefault);
// a "rope_scaling" beside it updates the full layers' object (its members win).
void gemma3_ropes(const Reader& r, const Lengths& top, ModelConfig& c) {
    const json::Value* params = r.v.find("rope_parameters");
    const json::Value* scaling = r.v.find("rope_scaling");
    const auto object_or_null = [&](const json::Value* x, const std::string& what) {
        if (x && !x->is_null() && !x->is_object()) r.fail(what + ": expected an object or null");
        return x && x->is_object() ? x : nullptr;
    };
    params = object_or_null(params, "\"rope_parameters\"");
    scaling = object_or_null(scaling, "\"rope_scaling\"");
    if (params)
        for (const std::string& k : params->keys())
            if (k != "full_attention" && k != "sliding_attention")
                r.fail("\"rope_parameters\": \"" + k + "\": expected only \"full_attention\" and \"sliding_attention\" "
                       "(Gemma 3's RoPE per layer type)");
    const auto of = [&](const char* type) {
        return object_or_null(params ? params->find(type) : nullptr, "\"rope_parameters\": \"" + std::string(type) + "\"");
    };
    // One layer type's RoPE from the members of `parts` (later ones win, as dict.update does).
    const auto one = [&](std::initializer_list<const json::Value*> parts, const std::string& within, const char* base_key,
                         double base, Rope& out, std::string& text) {
        std::vector<std::string> keys;
        std::vector<json::Value> values;
        for (const json::Value* part : parts)
            if (part) {
                keys.insert(keys.end(), part->keys().begin(), part->keys().end());
                values.insert(values.end(), part->values().begin(), part->values().end());
            }
        const json::Value merged = json::Value::object(std::move(keys), std::move(values));
        const Reader pr{merged, r.source, within};
        out.theta = merged.find("rope_theta") ? rope_base(pr, "rope_theta", base) : rope_base(r, base_key, base);
        if (pr.number_or("partial_rotary_factor", 1.0) != 1.0)
            pr.fail("\"partial_rotary_factor\" other than 1 is not supported");
        rope_scaling(pr, top, out.scaling, text);
    };
    const json::Value* full = of("full_attention");
    const std::string full_name = full && scaling ? "\"rope_parameters\": \"full_attention\" updated by \"rope_scaling\": "
                                  : full          ? "\"rope_parameters\": \"full_attention\": "
                                  : scaling       ? "\"rope_scaling\": "
                                                  : "";
    one({full, scaling}, full_name, "rope_theta", 1e6, c.rope, c.rope_scaling_text);
    const json::Value* sliding = of("sliding_attention");
    one({sliding}, sliding ? "\"rope_parameters\": \"sliding_attention\": " : "", "rope_local_base_freq", 1e4,
        c.sliding_rope, c.sliding_rope_text);
    if (r.number_or("partial_rotary_factor", 1.0) != 1.0) r.fail("\"partial_rotary_factor\" other than 1 is not supported");
}

// config.json's "layer_types" (when not null) over c.slides, the config's default: which layers
// slide. A sliding layer it names needs a window (`why` says what leaves it out).
void layer_types(const Reader& r, ModelConfig& c, const char* why) {
    if (const json::Value* types = r.v.find("layer_types"); types && !types->is_null()) {
        if (!types->is_array())
            r.fail(std::string("\"layer_types\": expected an array, found ") + json::kind_name(types->kind()));
        if (const std::size_t n = types->as_array().size(); n != c.layers)
            r.fail("\"layer_types\" has " + std::to_string(n) + (n == 1 ? " entry" : " entries") + " for " +
                   std::to_string(c.layers) + (c.layers == 1 ? " layer" : " layers") + " (num_hidden_layers)");
        for (std::size_t l = 0; l < c.layers; ++l) {
            const json::Value& t = types->as_array()[l];
            const std::string name = t.is_string() ? t.as_string() : "";
            if (name != "full_attention" && name != "sliding_attention")
                r.fail("\"layer_types\": expected one of \"full_attention\" or \"sliding_attention\" per layer");
            if (name == "sliding_attention" && c.sliding_window == 0)  // transformers' mask finds no window
                r.fail("\"layer_types\": layer " + std::to_string(l) + " is \"sliding_attention\" but there is no window" + why);
            c.slides[l] = name == "sliding_attention";
        }
    }
}

// The Llama family's RoPE (max_position_embeddings: the class's default when absent; null
// only dynamic and yarn refuse, as 0) and its query heads checked against the K/V heads; returns
// rope()'s partial_rotary_factor.
double rope_and_groups(const Reader& r, ModelConfig& c, std::size_t default_max_positions, double default_theta = 10000.0,
                       RopeOf of = RopeOf::llama) {
    // (RoPE computes with these lengths: 4096.0 works in transformers)
    const std::size_t max_positions = r.count_or_none("max_position_embeddings", default_max_positions, Reader::Written::whole);
    const json::Value* max_given = r.v.find("max_position_embeddings");
    const double partial = rope(r, {max_given && max_given->is_null() ? 0 : max_positions,
                                    r.count_or_none("original_max_position_embeddings", 0, Reader::Written::whole)},
                                c, of, default_theta);
    if (c.heads % c.kv_heads)
        r.fail("num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_key_value_heads " +
               std::to_string(c.kv_heads));
    return partial;
}

// The defaults of the Llama family's config classes (transformers' configuration_*.py), for
// the keys config.json leaves out: LlamaConfig (Llama 2 7B; GraniteConfig's the same),
// MistralConfig (Mistral 7B), MixtralConfig (8x7B), Qwen2Config (7B), Qwen3Config (Qwen2's sizes,
// head_dim 128), Qwen2MoeConfig (A2.7B), Qwen3MoeConfig (15B-A2B), Olmo2Config (7B; Olmo3Config's
// the same), SmolLM3Config (3B).
struct LlamaDefaults {
    std::size_t layers, hidden, heads, kv_heads /* 0: the heads */, intermediate, vocab, max_positions;
    double eps, theta;
};
LlamaDefaults llama_defaults(const std::string& type) {
    if (type == "mistral") return {32, 4096, 32, 8, 14336, 32000, 4096 * 32, 1e-6, 1e4};
    if (type == "mixtral") return {32, 4096, 32, 8, 14336, 32000, 4096 * 32, 1e-5, 1e6};
    if (type == "qwen2" || type == "qwen3") return {32, 4096, 32, 32, 22016, 151936, 32768, 1e-6, 1e4};
    if (type == "qwen2_moe") return {24, 2048, 16, 16, 5632, 151936, 32768, 1e-6, 1e4};
    if (type == "qwen3_moe") return {24, 2048, 32, 4, 6144, 151936, 32768, 1e-6, 1e4};
    if (type == "olmo2" || type == "olmo3") return {32, 4096, 32, 0, 11008, 50304, 2048, 1e-5, 1e4};
    if (type == "smollm3") return {36, 2048, 16, 4, 11008, 128256, 32768, 1e-6, 2e6};
    return {32, 4096, 32, 0, 11008, 32000, 2048, 1e-6, 1e4};  // llama, granite
}

// A sparse mixture of experts (ModelConfig::moe): Mixtral's num_local_experts, Qwen's num_experts,
// num_experts_per_tok of them per token; Qwen's layers in mlp_only_layers, or whose index + 1 is
// no multiple of decoder_sparse_step, keep a plain MLP.
void experts(const Reader& r, ModelConfig& c, const char* count_key, std::size_t count, std::size_t per_token) {
    c.moe.per_token = r.count_or("num_experts_per_tok", per_token);
    // Qwen's num_experts 0: every layer's MLP plain (`config.num_experts > 0 and ...`)
    const json::Value* given = r.v.find(count_key);
    const bool none = !c.moe.mixtral_names && given && given->is_number() && given->as_number() == 0;
    c.moe.experts = none ? 0 : r.count_or(count_key, count);
    if (none) return;
    if (c.moe.per_token > c.moe.experts)
        r.fail("\"num_experts_per_tok\" " + std::to_string(c.moe.per_token) + " is more than the " +
               std::to_string(c.moe.experts) + " experts (" + count_key + ")");
    if (c.moe.mixtral_names) return;
    const std::size_t step = r.count_or("decoder_sparse_step", 1);
    c.moe.dense_layers.assign(c.layers, false);
    for (std::size_t l = 0; l < c.layers; ++l) c.moe.dense_layers[l] = (l + 1) % step != 0;
    if (const json::Value* only = r.v.find("mlp_only_layers"); only && !only->is_null()) {
        if (!only->is_array()) r.fail("\"mlp_only_layers\": expected an array of layer indices");
        for (const json::Value& x : only->as_array()) {
            const double l = x.is_number() ? x.as_number() : -1;
            if (!(l >= 0) || l != std::floor(l))
                r.fail("\"mlp_only_layers\": expected layer indices (integers from 0)");
            if (l < double(c.layers)) c.moe.dense_layers[std::size_t(l)] = true;  // `layer_idx not in mlp_only_layers`
        }
    }
}

void llama(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::llama;
    const bool qwen2 = c.model_type == "qwen2", qwen3 = c.model_type == "qwen3";
    const bool qwen = qwen2 || qwen3, olmo3 = c.model_type == "olmo3", olmo2 = c.model_type == "olmo2" || olmo3;
    const bool granite = c.model_type == "granite", smollm3 = c.model_type == "smollm3";
    const bool mixtral = c.model_type == "mixtral", qwen_moe = c.model_type == "qwen2_moe" || c.model_type == "qwen3_moe";
    const LlamaDefaults d = llama_defaults(c.model_type);
    c.layers = r.layers_or("num_hidden_layers", d.layers), c.hidden = r.count_or("hidden_size", d.hidden);
    c.heads = r.count_or("num_attention_heads", d.heads);
    c.intermediate = r.count_or("intermediate_size", d.intermediate);
    // num_key_value_heads absent: the class's default; null: the heads (Qwen3MoeConfig before v5 has
    // no such fallback and fails)
    c.kv_heads = r.v.find("num_key_value_heads") ? r.count_or_none("num_key_value_heads", c.heads)
                 : d.kv_heads                     ? d.kv_heads
                                                  : c.heads;
    // Qwen3Config's head_dim is its own (128), not hidden / heads; null fails in Qwen3Attention.
    c.head_dim = qwen3 ? r.count_or("head_dim", 128) : r.count_or_none("head_dim", c.hidden / c.heads);
    c.vocab = r.count_or("vocab_size", d.vocab);
    c.norm_eps = r.eps_or("rms_norm_eps", d.eps);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "silu"));
    // max_position_embeddings: only dynamic and yarn RoPE read it, not a limit (RoPE has no
    // table to outgrow); null: unused by the default, linear and llama3 RoPE.
    rope_and_groups(r, c, d.max_positions, d.theta);
    if (qwen) {
        // Qwen2: Q/K/V biases always, none on o_proj; Qwen3: all four with attention_bias, and
        // q_norm and k_norm in every layer.
        c.qkv_bias = qwen2 || r.bool_or("attention_bias", false);
        c.o_bias = qwen3 && c.qkv_bias;
        c.qk_norm = qwen3;
        // Qwen2Config and Qwen3Config: the window (default 4096) only with use_sliding_window, on the layers
        // layer_types calls sliding_attention, by default those from max_window_layers (28) on.
        if (r.flag("use_sliding_window", false)) {
            c.sliding_window = r.v.find("sliding_window") ? r.count_or_none("sliding_window", 0) : 4096;
            r.not_null("max_window_layers");  // `layer_idx >= config.max_window_layers`
        }
        const double first_layer = r.number_or("max_window_layers", 28);  // 0: every layer
        if (!(first_layer >= 0) || first_layer != std::floor(first_layer) || first_layer > 1e9)
            r.fail("\"max_window_layers\": expected a non-negative integer");
        const std::size_t first = std::size_t(first_layer);
        for (std::size_t l = 0; l < c.layers; ++l) c.slides.push_back(l >= first);
        layer_types(r, c, " (\"sliding_window\" is null, or \"use_sliding_window\" is not true)");
    } else if (mixtral) {
        // MixtralConfig: no window unless given; the MLP a sparse mixture of num_local_experts
        // (8), num_experts_per_tok (2) of them per token, their weights renormalised; no biases
        c.sliding_window = r.count_or_none("sliding_window", 0);
        experts(r, c, aliased(r, "num_local_experts", "num_experts", "MixtralConfig"), 8, 2);  // (v5's alias)
    } else if (qwen_moe) {
        // Qwen2MoeConfig: Q/K/V biases (qkv_bias, v5; always before), 60 experts of
        // moe_intermediate_size 1408, 4 per token, and a shared expert behind a sigmoid gate.
        // Qwen3MoeConfig: Qwen3's attention (q_norm, k_norm; all four biases with attention_bias),
        // 128 experts of 768, 8 per token, no shared expert. Both: norm_topk_prob (false).
        const bool v2 = c.model_type == "qwen2_moe";
        c.qkv_bias = v2 ? r.flag("qkv_bias", true) : r.bool_or("attention_bias", false);
        c.o_bias = !v2 && c.qkv_bias;
        c.qk_norm = !v2;
        c.moe.mixtral_names = false;
        c.moe.normalize = r.flag("norm_topk_prob", false);
        c.moe.intermediate = r.count_or("moe_intermediate_size", v2 ? 1408 : 768);
        if (v2) c.moe.shared_intermediate = r.count_or("shared_expert_intermediate_size", 5632);
        experts(r, c, aliased(r, "num_experts", "num_local_experts", v2 ? "Qwen2MoeConfig" : "Qwen3MoeConfig"), v2 ? 60 : 128,
                v2 ? 4 : 8);  // (v5's alias)
        // (their windows are read differently across transformers' versions: refused)
        if (r.flag("use_sliding_window", false))
            r.fail("\"use_sliding_window\": true is not supported for " + c.model_type + " (attn runs its full attention)");
    } else if (c.model_type == "mistral") {
        // MistralAttention and MistralMLP have no biases, whatever the config says; its window
        // is 4096 keys when the key is absent, none when null.
        const json::Value* window = r.v.find("sliding_window");
        c.sliding_window = !window ? 4096 : r.count_or_none("sliding_window", 0);
    } else if (olmo2) {
        // Olmo2Attention: q_norm and k_norm over the whole q and k projections; Olmo2DecoderLayer:
        // the norms on the attention's and the MLP's outputs, none before; OlmoMLP has no biases.
        c.qkv_bias = c.o_bias = r.bool_or("attention_bias", false);
        c.qk_norm = c.qk_norm_whole = c.post_norms = true;
        class_pad_fits(r, c, 1, olmo3 ? "Olmo3Config" : "Olmo2Config");
        if (olmo3) {
            // Olmo3Config: sliding_window (4096; null: none) on the layers layer_types calls
            // sliding_attention, by default all but every fourth
            const json::Value* window = r.v.find("sliding_window");
            c.sliding_window = !window ? 4096 : r.count_or_none("sliding_window", 0);
            for (std::size_t l = 0; l < c.layers; ++l) c.slides.push_back((l + 1) % 4 != 0);
            const json::Value* types = r.v.find("layer_types");
            if (c.sliding_window == 0 && (!types || types->is_null()) && c.layers >= 1 && c.slides[0])
                r.fail("\"sliding_window\" is null, but layer 0 slides (Olmo3Config's layer_types: all but every fourth)");
            layer_types(r, c, " (\"sliding_window\" is null)");
            // (which layers a rope_scaling scales differs across transformers' versions: refused)
            if (c.rope.scaling.kind != RopeScalingKind::none)
                r.fail(c.rope_scaling_text + ": is not supported for olmo3 (transformers' versions differ on whether it "
                       "scales the sliding layers' RoPE)");
        }
    } else if (smollm3) {
        // SmolLM3Config: no RoPE on the layers no_rope_layers marks 0 (by default every
        // no_rope_layer_interval-th); the window (use_sliding_window and sliding_window) on the layers
        // layer_types calls sliding_attention, by default those without RoPE
        c.qkv_bias = c.o_bias = r.flag("attention_bias", false);
        c.mlp_bias = r.flag("mlp_bias", false);
        const std::size_t interval = r.count_or("no_rope_layer_interval", 4);
        for (std::size_t l = 0; l < c.layers; ++l) c.rope_layers.push_back((l + 1) % interval != 0);
        if (const json::Value* given = r.v.find("no_rope_layers"); given && !given->is_null()) {
            if (!given->is_array() || given->as_array().size() < c.layers)
                r.fail("\"no_rope_layers\": expected an array of 0 or 1, one per layer");
            for (std::size_t l = 0; l < c.layers; ++l) {
                const json::Value& x = given->as_array()[l];
                if (!x.is_number() || (x.as_number() != 0 && x.as_number() != 1))
                    r.fail("\"no_rope_layers\": expected an array of 0 or 1, one per layer");
                c.rope_layers[l] = x.as_number() == 1;
            }
        }
        if (r.flag("use_sliding_window", false)) c.sliding_window = r.count_or_none("sliding_window", 0);
        for (std::size_t l = 0; l < c.layers; ++l) c.slides.push_back(c.sliding_window && !c.rope_layers[l]);
        layer_types(r, c, " (\"use_sliding_window\" is not true, or \"sliding_window\" is null)");
        class_pad_fits(r, c, 128004, "SmolLM3Config");
    } else {
        c.qkv_bias = c.o_bias = r.bool_or("attention_bias", false);
        c.mlp_bias = r.bool_or("mlp_bias", false);
    }
    if (granite) {  // GraniteConfig's multipliers (1.0 each when absent): float32 factors, as torch applies them
        const auto multiplier = [&](const char* key) {
            r.not_null(key);
            const double m = r.number_or(key, 1.0);
            if (!std::isfinite(float(m)) || m == 0)
                r.fail(std::string("\"") + key + "\" is " + shown(m) + ": expected a finite number other than 0 (float32)");
            return m;
        };
        c.embedding_multiplier = float(multiplier("embedding_multiplier"));
        c.residual_multiplier = float(multiplier("residual_multiplier"));
        c.attention_multiplier = multiplier("attention_multiplier");  // GraniteAttention's scaling
    }
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// max_position_embeddings where only dynamic and yarn RoPE read it (RoPE has no table to outgrow:
// it is no limit on the tokens): the config class's default when absent, 0 when null, which those
// two refuse (transformers fails on None there).
std::size_t rope_max_positions(const Reader& r, std::size_t fallback) {
    const json::Value* given = r.v.find("max_position_embeddings");
    return given && given->is_null() ? 0 : r.count_or_none("max_position_embeddings", fallback, Reader::Written::whole);
}

// The leading dims of each head RoPE turns: int(head_dim * factor), as transformers computes it;
// `key` names the factor. (For an odd count transformers' Phi-3 turns one more dim and Phi and
// Persimmon fail; for 0 they turn none; no checkpoint has those.)
std::size_t rotary_dims(const Reader& r, std::size_t head_dim, double factor, const char* key) {
    const double rotary = std::floor(double(head_dim) * factor);
    if (!(factor > 0) || rotary < 2 || rotary > double(head_dim) || std::fmod(rotary, 2.0) != 0)
        r.fail(std::string("\"") + key + "\" " + shown(factor) + " gives int(" + std::to_string(head_dim) + " * " +
               shown(factor) + ") = " + shown(rotary) + " rotary dims of each head: attn runs an even number from 2 to head_dim");
    return std::size_t(rotary);
}

// PhiConfig's defaults (phi-2's sizes): LayerNorm (input_layernorm, final_layernorm), q/k/v
// projections and dense with biases, RoPE on the leading int(head_dim * partial_rotary_factor)
// dims (0.5 when absent), the attention and the MLP (fc1, the activation, fc2) side by side on
// the same norm's output, qk_layernorm (LayerNorm over each head's q and k before RoPE).
void phi(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::phi;
    c.layers = r.layers_or("num_hidden_layers", 24), c.hidden = r.count_or("hidden_size", 2048);
    c.heads = r.count_or("num_attention_heads", 32);
    c.kv_heads = r.count_or_none("num_key_value_heads", c.heads);
    c.intermediate = r.count_or("intermediate_size", 8192);
    c.vocab = r.count_or("vocab_size", 51200);
    c.norm_eps = r.eps_or("layer_norm_eps", 1e-5);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "gelu_new"));
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    c.qk_norm = r.flag("qk_layernorm", false);
    // getattr(config, "head_dim", hidden_size // heads) (4.48 on); q_layernorm's size is always
    // hidden_size // heads
    const json::Value* head_dim = r.v.find("head_dim");
    if ((!head_dim || head_dim->is_null()) && c.hidden % c.heads)
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " + std::to_string(c.heads));
    r.not_null("head_dim");  // None ** -0.5 fails in PhiAttention
    c.head_dim = r.count_or("head_dim", c.hidden / c.heads);
    if (c.qk_norm && c.head_dim * c.heads != c.hidden)
        r.fail("qk_layernorm normalises hidden_size // num_attention_heads = " + std::to_string(c.hidden / c.heads) +
               " dims, but a head has head_dim " + std::to_string(c.head_dim));
    const double partial = rope(r, {rope_max_positions(r, 2048),
                                    r.count_or_none("original_max_position_embeddings", 0, Reader::Written::whole)},
                                c, RopeOf::phi);
    c.rotary_dims = rotary_dims(r, c.head_dim, partial, "partial_rotary_factor");
    if (c.heads % c.kv_heads)
        r.fail("num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_key_value_heads " +
               std::to_string(c.kv_heads));
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// Starcoder2Config's defaults (starcoder2-7b): LayerNorm (norm_epsilon), biases on every linear
// layer with use_bias, RoPE, grouped-query heads (num_key_value_heads 2; null fails there), the
// sliding window on every layer when given (None: none), the MLP c_fc, gelu_pytorch_tanh, c_proj.
void starcoder2(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::starcoder2;
    c.layers = r.layers_or("num_hidden_layers", 30), c.hidden = r.count_or("hidden_size", 3072);
    c.heads = r.count_or("num_attention_heads", 24), c.kv_heads = r.count_or("num_key_value_heads", 2);
    c.intermediate = r.count_or("intermediate_size", 12288);
    c.head_dim = r.count_or("head_dim", c.hidden / c.heads);  // getattr(config, "head_dim", hidden // heads): None fails
    c.vocab = r.count_or("vocab_size", 49152);
    c.norm_eps = r.eps_or("norm_epsilon", 1e-5);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "gelu_pytorch_tanh"));
    c.qkv_bias = c.o_bias = c.mlp_bias = r.flag("use_bias", true);
    c.sliding_window = r.count_or_none("sliding_window", 0);
    rope_and_groups(r, c, 4096);
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// StableLmConfig's defaults (stablelm-3b-4e1t): LayerNorm (with biases), q/k/v biases with
// use_qkv_bias, none on o_proj and the MLP (gate, up, down), RoPE on the leading
// int(head_dim * partial_rotary_factor) dims (0.25), qk_layernorm (a LayerNorm of each head's own,
// no bias), use_parallel_residual (the attention and the MLP on input_layernorm's output).
void stablelm(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::stablelm;
    c.layers = r.layers_or("num_hidden_layers", 32), c.hidden = r.count_or("hidden_size", 2560);
    c.heads = r.count_or("num_attention_heads", 32), c.kv_heads = r.count_or("num_key_value_heads", 32);
    c.intermediate = r.count_or("intermediate_size", 6912);
    c.vocab = r.count_or("vocab_size", 50304);
    c.norm_eps = r.eps_or("layer_norm_eps", 1e-5);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "silu"));
    if (c.hidden % c.heads)  // StableLmAttention refuses it
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
    // StableLmAttention's head_dim is always hidden_size // heads; RoPE's frequencies would take a
    // "head_dim" key: one that differs makes the two disagree
    if (const json::Value* hd = r.v.find("head_dim"); hd && !hd->is_null() && r.count("head_dim") != c.head_dim)
        r.fail("\"head_dim\" " + std::to_string(r.count("head_dim")) + " differs from hidden_size // num_attention_heads = " +
               std::to_string(c.head_dim) + ", StableLM's head size");
    c.qkv_bias = r.flag("use_qkv_bias", false);
    c.qk_norm = r.flag("qk_layernorm", false);
    c.parallel_residual = r.flag("use_parallel_residual", false);
    const double partial = rope_and_groups(r, c, 4096, 10000.0, RopeOf::stablelm);
    c.rotary_dims = rotary_dims(r, c.head_dim, partial, "partial_rotary_factor");
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// OlmoConfig's defaults (OLMo-7B): LlamaModel's layer with OlmoLayerNorm (no weight, no bias, eps
// 1e-5 always) for every norm, q/k/v/o biases with attention_bias, clip_qkv (q, k and v clamped
// to ±clip_qkv; null: none).
void olmo(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::olmo;
    c.layers = r.layers_or("num_hidden_layers", 32), c.hidden = r.count_or("hidden_size", 4096);
    c.heads = r.count_or("num_attention_heads", 32);
    c.kv_heads = r.count_or_none("num_key_value_heads", c.heads);
    c.intermediate = r.count_or("intermediate_size", 11008);
    c.head_dim = r.count_or("head_dim", c.hidden / c.heads);  // getattr(config, "head_dim", hidden // heads): None fails
    c.vocab = r.count_or("vocab_size", 50304);
    c.norm_eps = 1e-5;  // OlmoLayerNorm's, whatever config.json says
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "silu"));
    c.qkv_bias = c.o_bias = r.flag("attention_bias", false);
    c.clip_qkv = clip_qkv(r);
    rope_and_groups(r, c, 2048);
    class_pad_fits(r, c, 1, "OlmoConfig");
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// CohereConfig's defaults (c4ai-command-r-v01): CohereLayerNorm (a LayerNorm without bias), q/k/v
// and o_proj biases with attention_bias, RoPE on each head's pairs (2i, 2i + 1), use_qk_norm
// (CohereLayerNorm over each head's q and k, a weight of each head's own), the attention and the
// MLP (gate, up, down) side by side on input_layernorm's output. rope_theta's default is
// transformers v5's (500000); v4's was 10000: a note says so when config.json gives none.
// Cohere2Config (c4ai-command-r7b): no q/k norms, head_dim hidden_size // heads, sliding layers
// (layer_types, sliding_window_pattern), RoPE only on them, rope_theta 10000.
void cohere(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::cohere;
    const bool v2 = c.model_type == "cohere2";
    c.layers = r.layers_or("num_hidden_layers", 40), c.hidden = r.count_or("hidden_size", 8192);
    c.heads = r.count_or("num_attention_heads", 64);
    c.kv_heads = r.count_or_none("num_key_value_heads", c.heads);
    c.intermediate = r.count_or("intermediate_size", 22528);
    // getattr(config, "head_dim", hidden // heads): None fails; Cohere2Config sets hidden // heads itself
    c.head_dim = v2 ? c.hidden / c.heads : r.count_or("head_dim", c.hidden / c.heads);
    c.vocab = r.count_or("vocab_size", 256000);
    c.norm_eps = r.eps_or("layer_norm_eps", 1e-5);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "silu"));
    c.qkv_bias = c.o_bias = r.flag("attention_bias", false);
    c.qk_norm = !v2 && r.flag("use_qk_norm", false);
    c.parallel_residual = true;
    rope_and_groups(r, c, 8192, v2 ? 10000.0 : 500000.0);
    c.rope.style = RopeStyle::interleaved;  // repeat_interleave(freqs, 2): pairs (2i, 2i + 1)
    const auto theta_in = [&](const char* key) {
        const json::Value* o = r.v.find(key);
        return o && o->is_object() && o->find("rope_theta");
    };
    if (v2) {
        // Cohere2Config: sliding_window (4096; null: none) on the layers layer_types calls
        // sliding_attention, by default all but every sliding_window_pattern-th (4); RoPE only there
        const json::Value* window = r.v.find("sliding_window");
        c.sliding_window = !window ? 4096 : r.count_or_none("sliding_window", 0);
        const json::Value* types = r.v.find("layer_types");
        const bool default_types = !types || types->is_null();
        const std::size_t pattern = default_types ? r.count_or("sliding_window_pattern", 4) : 4;
        for (std::size_t l = 0; l < c.layers; ++l) c.slides.push_back((l + 1) % pattern != 0);
        if (c.sliding_window == 0 && default_types && c.slides[0])
            r.fail("\"sliding_window\" is null, but layer 0 slides (Cohere2Config's layer_types: all but every "
                   "sliding_window_pattern-th)");
        layer_types(r, c, " (\"sliding_window\" is null)");
        for (std::size_t l = 0; l < c.layers; ++l) c.rope_layers.push_back(c.window_of(l) != 0);  // `if self.sliding_window`
    } else if (!r.v.find("rope_theta") && !theta_in("rope_scaling") && !theta_in("rope_parameters"))
        c.notes.push_back("no \"rope_theta\": RoPE's base is CohereConfig's default in transformers v5, 500000 "
                          "(v4's was 10000)");
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx (CohereConfig's 0 when absent)
}

// FalconConfig's defaults (falcon-7b) and attribute_map (n_layer, n_head); n_embed, which older
// configs give, is hidden_size. The fused query_key_value holds, per K/V group, the group's query
// heads, its key and its value: num_kv_heads groups with new_decoder_architecture, one with
// multi_query, one per head otherwise. RoPE on every dim (alibi refused: transformers' versions
// apply Falcon's ALiBi differently), LayerNorm, the MLP dense_h_to_4h and dense_4h_to_h
// (ffn_hidden_size, null: 4·hidden_size), biases everywhere with `bias`. new_decoder_architecture
// (with parallel_attn) runs the attention and the MLP side by side with ln_attn and ln_mlp
// (num_ln_in_parallel_attn 2, the default) or input_layernorm (1); otherwise side by side with
// parallel_attn, or one after the other with post_attention_layernorm.
void falcon(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::falcon;
    const auto named = [&](const char* key, const char* alias) { return aliased(r, key, alias, "FalconConfig"); };
    c.layers = r.layers_or(named("n_layer", "num_hidden_layers"), 32);
    c.heads = r.count_or(named("n_head", "num_attention_heads"), 71);
    const std::size_t hidden_size = r.count_or("hidden_size", 4544);
    const json::Value* n_embed = r.v.find("n_embed");  // `hidden_size if n_embed is None else n_embed`
    c.hidden = n_embed && !n_embed->is_null() ? r.count("n_embed") : hidden_size;
    // ffn_hidden_size null: 4·hidden_size, n_embed's when given as transformers v5 reads it (v4: hidden_size's)
    c.intermediate = r.count_or_none("ffn_hidden_size", 4 * c.hidden);
    const json::Value* ffn = r.v.find("ffn_hidden_size");
    if ((!ffn || ffn->is_null()) && c.hidden != hidden_size)
        c.notes.push_back("the MLP is 4 · n_embed = " + std::to_string(4 * c.hidden) +
                          " wide, as transformers v5 reads FalconConfig (v4: 4 · hidden_size = " +
                          std::to_string(4 * hidden_size) + ")");
    c.vocab = r.count_or("vocab_size", 65024);
    c.norm_eps = r.eps_or("layer_norm_epsilon", 1e-5);
    r.not_null("activation");
    c.activation = activation(r, r.string_or("activation", "gelu"));
    if (c.hidden % c.heads)  // FalconAttention refuses it
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
    if (r.flag("alibi", false))
        r.fail("\"alibi\": true is not supported (transformers' versions apply Falcon's ALiBi differently; attn runs its RoPE)");
    c.qkv_bias = c.o_bias = c.mlp_bias = r.flag("bias", false);
    const bool grouped = r.flag("new_decoder_architecture", false);
    const std::size_t kv_heads = r.count_or_none("num_kv_heads", c.heads);
    c.kv_heads = grouped ? kv_heads : r.flag("multi_query", true) ? 1 : c.heads;
    if (!grouped && !r.flag("multi_query", true) && kv_heads != c.heads)  // key_layer.reshape(..., num_kv_heads, ...) fails
        r.fail("num_kv_heads " + std::to_string(kv_heads) + " differs from num_attention_heads " + std::to_string(c.heads) +
               " without new_decoder_architecture or multi_query");
    if (c.heads % c.kv_heads)
        r.fail("num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_kv_heads " + std::to_string(c.kv_heads));
    const json::Value* norms = r.v.find("num_ln_in_parallel_attn");
    const double n = norms && !norms->is_null() ? r.number_or("num_ln_in_parallel_attn", 0) : grouped ? 2 : 1;
    const bool parallel = r.flag("parallel_attn", true);
    // the layers transformers cannot run: no MLP input, or a norm it did not make (new_decoder_architecture
    // without parallel_attn makes input_layernorm and reads ln_attn)
    if (grouped ? !parallel || (n != 1 && n != 2) : n == 2 && parallel)
        r.fail("\"num_ln_in_parallel_attn\" " + shown(n) + " with new_decoder_architecture " + (grouped ? "true" : "false") +
               " and parallel_attn " + (parallel ? "true" : "false") + ": FalconDecoderLayer has no such layer");
    c.split_norms = grouped && n == 2;
    c.parallel_residual = grouped || parallel;
    // (RoPE has no table to outgrow: max_position_embeddings is no limit on the tokens)
    rope_and_groups(r, c, 2048);
}

// NemotronConfig's defaults (Nemotron-4 15B's kind): StarCoder2's layer with LayerNorm1P (LayerNorm by
// weight + 1, norm_eps), q/k/v/o biases with attention_bias, the MLP's with mlp_bias, head_dim
// (or kv_channels; null: hidden_size // heads), RoPE on the leading int(head_dim ·
// partial_rotary_factor) dims (0.5), the MLP up_proj, relu2, down_proj.
void nemotron(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::nemotron;
    c.layers = r.layers_or("num_hidden_layers", 32), c.hidden = r.count_or("hidden_size", 6144);
    c.heads = r.count_or("num_attention_heads", 48);
    c.kv_heads = r.count_or_none("num_key_value_heads", c.heads);
    c.intermediate = r.count_or("intermediate_size", 24576);
    // `head_dim or kwargs.get("kv_channels")`, then hidden_size // heads when that is None
    const json::Value* head_dim = r.v.find("head_dim");
    const bool own = head_dim && !head_dim->is_null() && !(head_dim->is_number() && head_dim->as_number() == 0);
    c.head_dim = own ? r.count("head_dim") : r.count_or_none("kv_channels", c.hidden / c.heads);
    c.vocab = r.count_or("vocab_size", 256000);
    c.norm_eps = r.eps_or("norm_eps", 1e-5);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "relu2"));
    c.unit_offset_norm = true;
    c.qkv_bias = c.o_bias = r.flag("attention_bias", false);
    c.mlp_bias = r.flag("mlp_bias", false);
    const double partial = rope_and_groups(r, c, 4096, 10000.0, RopeOf::nemotron);
    c.rotary_dims = rotary_dims(r, c.head_dim, partial, "partial_rotary_factor");
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// GPTNeoXConfig's defaults (GPT-NeoX-20B; Pythia's configs give theirs): LayerNorm, the fused
// query_key_value (per head q | k | v), biases on it and dense with attention_bias, RoPE on the
// leading int(head_dim * rotary_pct) dims of base rotary_emb_base, use_parallel_residual, the MLP
// dense_h_to_4h and dense_4h_to_h with biases. The RoPE object's (rope_scaling's, else v5's
// rope_parameters') rope_theta and partial_rotary_factor come first, as v5 reads them; the
// top-level keys of those names are never read (v4's constructor overwrites them from
// rotary_emb_base and rotary_pct, v5 sets them from those).
// The sizes, LayerNorm eps and activation GPTNeoXConfig and PersimmonConfig read alike, with
// their defaults; hidden_size a multiple of the heads (both attentions refuse it otherwise).
struct NeoxDefaults {
    std::size_t layers, hidden, heads, intermediate, vocab;
    const char* activation;
};
void neox_keys(const Reader& r, ModelConfig& c, const NeoxDefaults& d) {
    c.layers = r.layers_or("num_hidden_layers", d.layers), c.hidden = r.count_or("hidden_size", d.hidden);
    c.heads = r.count_or("num_attention_heads", d.heads), c.kv_heads = c.heads;
    c.intermediate = r.count_or("intermediate_size", d.intermediate);
    c.vocab = r.count_or("vocab_size", d.vocab);
    c.norm_eps = r.eps_or("layer_norm_eps", 1e-5);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", d.activation));
    if (c.hidden % c.heads)
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " + std::to_string(c.heads));
    c.head_dim = c.hidden / c.heads;
}

void gpt_neox(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::gpt_neox;
    neox_keys(r, c, {44, 6144, 64, 24576, 50432, "gelu"});
    const double partial = rope(r, {rope_max_positions(r, 2048), 0}, c, RopeOf::gpt_neox);
    const json::Value* scaling = r.v.find("rope_scaling");
    const json::Value* params = r.v.find("rope_parameters");
    const json::Value* object = scaling && scaling->is_object() ? scaling : params && params->is_object() ? params : nullptr;
    const bool own_partial = object && object->find("partial_rotary_factor");
    r.not_null("rotary_pct");
    c.rotary_dims = rotary_dims(r, c.head_dim, own_partial ? partial : r.number_or("rotary_pct", 0.25),
                                own_partial ? "partial_rotary_factor" : "rotary_pct");
    if (!(object && object->find("rope_theta"))) c.rope.theta = rope_base(r, "rotary_emb_base", 10000.0);
    c.qkv_bias = c.o_bias = r.flag("attention_bias", true);
    c.parallel_residual = r.flag("use_parallel_residual", true);
}

// PersimmonConfig's defaults (persimmon-8b): GPT-NeoX's serial layer under its own names: LayerNorm,
// the fused query_key_value per head (q | k | v as view(heads, 3, d)) and dense with biases,
// qk_layernorm (a LayerNorm over each head's q and k, one weight and bias for every head, before
// RoPE), RoPE of base rope_theta (25000) on the leading int(head_dim · partial_rotary_factor)
// dims (0.5), relu2 between dense_h_to_4h and dense_4h_to_h (with biases), final_layernorm.
void persimmon(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::persimmon;
    neox_keys(r, c, {36, 4096, 64, 16384, 262144, "relu2"});
    c.qkv_bias = c.o_bias = true;  // GPT-NeoX's attention_bias true (the MLP's biases it always has)
    c.qk_norm = r.flag("qk_layernorm", true);
    const double partial = rope(r, {rope_max_positions(r, 16384), 0}, c, RopeOf::phi, 25000.0);
    c.rotary_dims = rotary_dims(r, c.head_dim, partial, "partial_rotary_factor");
}

// Phi3Config's defaults (Phi-3-mini-4k): LlamaModel with the projections fused, self_attn.qkv_proj
// (rows q | k | v) and mlp.gate_up_proj (rows gate | up), no biases; RoPE default or longrope on
// the leading int(head_dim · partial_rotary_factor) dims of each head; sliding_window on every
// layer when not null.
void phi3(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::llama;
    c.fused_qkv = c.fused_gate_up = true;
    c.layers = r.layers_or("num_hidden_layers", 32), c.hidden = r.count_or("hidden_size", 3072);
    c.heads = r.count_or("num_attention_heads", 32);
    c.kv_heads = r.count_or_none("num_key_value_heads", c.heads);
    c.intermediate = r.count_or("intermediate_size", 8192);
    c.head_dim = r.count_or("head_dim", c.hidden / c.heads);  // getattr(config, "head_dim", hidden // heads)
    c.vocab = r.count_or("vocab_size", 32064);
    c.norm_eps = r.eps_or("rms_norm_eps", 1e-5);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "silu"));
    // Phi3Config always has original_max_position_embeddings (4096): longrope's factor is
    // max_position_embeddings over it
    r.not_null("max_position_embeddings"), r.not_null("original_max_position_embeddings");
    const std::size_t max_positions = r.count_or_none("max_position_embeddings", 4096, Reader::Written::whole);
    const std::size_t original = r.count_or_none("original_max_position_embeddings", 4096, Reader::Written::whole);
    const double partial = rope(r, {max_positions, original}, c, RopeOf::phi3);
    if (c.head_dim == 0)
        r.fail("hidden_size " + std::to_string(c.hidden) + " over " + std::to_string(c.heads) +
               " heads leaves no dims for a head (head_dim is hidden_size // num_attention_heads)");
    c.rotary_dims = rotary_dims(r, c.head_dim, partial, "partial_rotary_factor");
    if (c.heads % c.kv_heads)
        r.fail("num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_key_value_heads " +
               std::to_string(c.kv_heads));
    c.sliding_window = r.count_or_none("sliding_window", 0);  // None: no window
    class_pad_fits(r, c, 32000, "Phi3Config");  // checked only: the word embeddings' padding_idx
    padding_id(r, c, false);
}

// GemmaConfig's (gemma-7b), Gemma2Config's (gemma-2-2b) and Gemma3TextConfig's defaults; all run
// as LlamaModel with the embeddings scaled by √hidden_size and RMSNorm's weight as (1 + weight);
// Gemma 2 adds a norm after the attention and around the MLP, the scale query_pre_attn_scalar ** -0.5,
// the softcap attn_logit_softcapping, and the window on the layers layer_types calls sliding (by
// default the even ones: 0, 2, …). Gemma 3 adds q_norm and k_norm, its sliding layers' own RoPE
// (gemma3_ropes), five sliding layers to one full by default (sliding_window_pattern 6), no softcap
// (attn_logit_softcapping is unread), and EmbeddingGemma's use_bidirectional_attention.
void gemma(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::llama;
    const bool v3 = c.model_type == "gemma3_text" || c.model_type == "gemma3", v2 = c.model_type == "gemma2" || v3;
    c.layers = r.layers_or("num_hidden_layers", v2 ? 26 : 28), c.hidden = r.count_or("hidden_size", v2 ? 2304 : 3072);
    c.heads = r.count_or("num_attention_heads", v2 ? 8 : 16), c.kv_heads = r.count_or("num_key_value_heads", v2 ? 4 : 16);
    c.head_dim = r.count_or("head_dim", 256);  // its own key; null fails in the attention's nn.Linear
    c.intermediate = r.count_or("intermediate_size", v2 ? 9216 : 24576);
    c.vocab = r.count_or("vocab_size", v3 ? 262208 : 256000);
    c.norm_eps = r.eps_or("rms_norm_eps", 1e-6);
    if (v2) {  // Gemma2MLP, Gemma3MLP: ACT2FN[config.hidden_activation] (hidden_act unread)
        r.not_null("hidden_activation");
        c.activation = activation(r, r.string_or("hidden_activation", "gelu_pytorch_tanh"));
    } else {
        // GemmaMLP: ACT2FN[config.hidden_act] since transformers v4.48, as attn runs it; before,
        // hidden_activation (None: gelu_pytorch_tanh), hidden_act unread. Google's configs give
        // "gelu" and "gelu_pytorch_tanh": where the two readings differ, a note says so.
        r.not_null("hidden_act");
        const std::string act = r.string_or("hidden_act", "gelu_pytorch_tanh");
        c.activation = activation(r, act);
        const json::Value* a = r.v.find("hidden_activation");
        const bool given = a && !a->is_null();
        // (unread now: a value attn does not know, or not a string, gets no note and no error)
        const std::string older = !given ? "gelu_pytorch_tanh" : a->is_string() ? a->as_string() : "";
        bool differs = false;
        try {
            differs = !older.empty() && activation(r, older) != c.activation;
        } catch (const InputError&) {
        }
        if (differs)
            c.notes.push_back("the MLP runs \"hidden_act\" \"" + act + "\"" +
                              (r.v.find("hidden_act") ? "" : " (GemmaConfig's default)") +
                              ", as transformers does from v4.48; versions before it ran \"hidden_activation\" \"" +
                              older + "\"" + (given ? "" : " (its default: the key is left out or null)"));
    }
    if (v3) {
        const std::size_t max_positions = r.count_or_none("max_position_embeddings", 131072, Reader::Written::whole);
        const json::Value* max_given = r.v.find("max_position_embeddings");
        // (a top-level original_max_position_embeddings is not Gemma 3's: yarn and llama3 read
        // theirs from their objects)
        gemma3_ropes(r, {max_given && max_given->is_null() ? 0 : max_positions, 0}, c);
        if (c.heads % c.kv_heads)
            r.fail("num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_key_value_heads " +
                   std::to_string(c.kv_heads));
    } else {
        rope_and_groups(r, c, 8192);
    }
    c.qkv_bias = c.o_bias = r.bool_or("attention_bias", false);
    c.embed_scale = c.unit_offset_norm = true;
    // EmbeddingGemma (Gemma3TextConfig): the window halved (below); Gemma3TextModel then drops
    // the causal rule and opens the window both ways. Gemma3ForConditionalGeneration's model
    // (gemma3) makes causal masks of its own: the halved window, causal.
    const bool halved = r.flag("use_bidirectional_attention", false);
    if (halved && !v3)
        r.fail("\"use_bidirectional_attention\": true is not supported (attn runs Gemma's causal attention)");
    c.bidirectional = halved && c.model_type == "gemma3_text";
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
    if (!v2) return;
    c.sandwich_norms = true;
    c.qk_norm = v3;  // Gemma3Attention's q_norm and k_norm: Gemma3RMSNorm over head_dim, before RoPE
    r.not_null("query_pre_attn_scalar");  // None ** -0.5 fails
    c.query_scalar = r.number_or("query_pre_attn_scalar", 256);
    if (!(c.query_scalar > 0)) r.fail("\"query_pre_attn_scalar\" is " + shown(c.query_scalar) + ": expected a positive number");
    if (const double scale = std::pow(c.query_scalar, -0.5); !positive_float32(scale))  // it multiplies float32 scores
        r.fail("\"query_pre_attn_scalar\" " + shown(c.query_scalar) + " makes the scale " + shown(scale) +
               " (query_pre_attn_scalar ** -0.5), " + float32_range);
    // null: none. 0 is not: transformers divides by it (every logit 0: uniform weights, or NaN).
    // Gemma3Attention stores it and never passes it to the attention: unread, with a note.
    const json::Value* cap = r.v.find("attn_logit_softcapping");
    if (v3 && cap && !cap->is_null())
        c.notes.push_back("\"attn_logit_softcapping\" is not applied: Gemma 3's attention does not use it (as in transformers)");
    const bool no_cap = v3 || (cap && cap->is_null());
    const double softcap = no_cap ? 0.0 : r.number_or("attn_logit_softcapping", 50.0);
    if (!no_cap && !(softcap > 0))
        r.fail("\"attn_logit_softcapping\" is " + shown(softcap) + ": expected a positive number, or null (none)");
    if (!no_cap && !positive_float32(softcap))  // the float32 scores are divided by it
        r.fail("\"attn_logit_softcapping\" is " + shown(softcap) + ": " + float32_range + ", or null (none)");
    // Gemma2Config.validate_architecture (Gemma 3's head_dim is its own: no such check)
    if (!v3 && c.hidden % c.heads)
        r.fail("hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " +
               std::to_string(c.heads) + " (Gemma2Config refuses it)");
    c.softcap = float(softcap);
    const json::Value* window = r.v.find("sliding_window");  // 4096 when absent, none when null
    c.sliding_window = !window ? 4096 : r.count_or_none("sliding_window", 0);
    // Gemma 3's "sliding_window_pattern" (BC: still in the Hub's configs), read only without
    // layer_types: layer l slides unless (l + 1) is a multiple of it
    const json::Value* types = r.v.find("layer_types");
    const bool default_types = !types || types->is_null();
    const std::size_t pattern = v3 && default_types ? r.count_or("sliding_window_pattern", 6) : 2;
    for (std::size_t l = 0; l < c.layers; ++l) c.slides.push_back(v3 ? (l + 1) % pattern != 0 : l % 2 == 0);
    if (c.sliding_window == 0 && default_types && std::find(c.slides.begin(), c.slides.end(), true) != c.slides.end())
        r.fail(v3 ? "\"sliding_window\" is null, but layer " +
                        std::to_string(std::find(c.slides.begin(), c.slides.end(), true) - c.slides.begin()) +
                        " slides (Gemma3TextConfig's layer_types: all but every sliding_window_pattern-th)"
                  : "\"sliding_window\" is null, but layer 0 slides (Gemma2Config's layer_types: every even layer)");
    layer_types(r, c, " (\"sliding_window\" is null)");
    if (halved && !c.sliding_window)  // None // 2 fails in Gemma3TextConfig
        r.fail("\"sliding_window\" is null, which \"use_bidirectional_attention\" halves: expected a positive integer");
    // Gemma3TextConfig: sliding_window // 2 + 1 with use_bidirectional_attention; for EmbeddingGemma
    // the window then reaches |i - j| < that both ways.
    if (halved) c.sliding_window = c.sliding_window / 2 + 1;
}

// GlmConfig's defaults (glm-4-9b) and Glm4Config's (GLM-4-0414, the same): LlamaModel's layer with
// Q/K/V biases (attention_bias; none on o_proj), head_dim its own (128), RoPE on the pairs
// (2i, 2i + 1) of the leading int(head_dim · partial_rotary_factor) dims (0.5), the MLP's gate and
// up fused in gate_up_proj; GLM-4's norms after the attention and around the MLP.
void glm(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::llama;
    c.layers = r.layers_or("num_hidden_layers", 40), c.hidden = r.count_or("hidden_size", 4096);
    c.heads = r.count_or("num_attention_heads", 32), c.kv_heads = r.count_or("num_key_value_heads", 2);
    c.intermediate = r.count_or("intermediate_size", 13696);
    c.head_dim = r.count_or("head_dim", 128);  // None fails in the attention's nn.Linear
    c.vocab = r.count_or("vocab_size", 151552);
    c.norm_eps = r.eps_or("rms_norm_eps", 1.5625e-7);
    r.not_null("hidden_act");
    c.activation = activation(r, r.string_or("hidden_act", "silu"));
    c.qkv_bias = r.flag("attention_bias", true);  // GlmAttention: o_proj without bias
    c.fused_gate_up = true;
    const double partial = rope_and_groups(r, c, 131072, 10000.0, RopeOf::glm);
    c.rotary_dims = rotary_dims(r, c.head_dim, partial, "partial_rotary_factor");
    c.rope.style = RopeStyle::interleaved;  // cos[..., : dim // 2].repeat_interleave(2): pairs (2i, 2i + 1)
    if (c.model_type == "glm4") c.sandwich_norms = c.glm4_norm_names = true;
    class_pad_fits(r, c, 151329, c.model_type == "glm4" ? "Glm4Config" : "GlmConfig");
    padding_id(r, c, false);  // checked only: the word embeddings' padding_idx
}

// Gemma3Config (Gemma3ForConditionalGeneration): its "text_config" is the language model's
// Gemma3TextConfig (null or absent: the defaults), run on text alone.
void gemma3(const Reader& r, ModelConfig& c) {
    const json::Value* text = r.v.find("text_config");
    if (text && !text->is_null() && !text->is_object()) r.fail("\"text_config\": expected an object or null");
    const json::Value none = json::Value::object({}, {});
    gemma(Reader{text && text->is_object() ? *text : none, r.source, "\"text_config\": "}, c);
}

}  // namespace

ModelConfig parse_model_config(const std::string& text, const std::string& source) {
    json::Value v;
    try {
        v = json::parse_json(text);
    } catch (const InputError& e) {
        throw InputError(source + ": " + e.what());
    }
    const Reader r{v, source};
    if (!v.is_object()) r.fail("expected a JSON object");
    ModelConfig c;
    const json::Value* type = v.find("model_type");
    if (!type || !type->is_string())
        r.fail(std::string(type ? "\"model_type\" is not a string" : "no \"model_type\"") + " (attn runs " +
               known_model_types() + ")");
    c.model_type = type->as_string();
    if (c.model_type == "bert" || c.model_type == "electra") bert(r, c);
    else if (c.model_type == "roberta" || c.model_type == "xlm-roberta") roberta(r, c);
    else if (c.model_type == "distilbert") distilbert(r, c);
    else if (c.model_type == "albert") albert(r, c);
    else if (c.model_type == "gpt2") gpt2(r, c);
    else if (c.model_type == "gpt_bigcode") gpt_bigcode(r, c);
    else if (c.model_type == "gptj") gptj(r, c);
    else if (c.model_type == "codegen") codegen(r, c);
    else if (c.model_type == "opt") opt(r, c);
    else if (c.model_type == "gpt_neo") gpt_neo(r, c);
    else if (c.model_type == "mpt") mpt(r, c);
    else if (c.model_type == "persimmon") persimmon(r, c);
    else if (c.model_type == "llama" || c.model_type == "mistral" || c.model_type == "qwen2" || c.model_type == "qwen3" ||
             c.model_type == "olmo2" || c.model_type == "olmo3" || c.model_type == "smollm3" ||
             c.model_type == "granite" || c.model_type == "mixtral" ||
             c.model_type == "qwen2_moe" || c.model_type == "qwen3_moe")
        llama(r, c);
    else if (c.model_type == "gemma" || c.model_type == "gemma2" || c.model_type == "gemma3_text") gemma(r, c);
    else if (c.model_type == "gemma3") gemma3(r, c);
    else if (c.model_type == "phi3") phi3(r, c);
    else if (c.model_type == "glm" || c.model_type == "glm4") glm(r, c);
    else if (c.model_type == "phi") phi(r, c);
    else if (c.model_type == "starcoder2") starcoder2(r, c);
    else if (c.model_type == "nemotron") nemotron(r, c);
    else if (c.model_type == "gpt_neox") gpt_neox(r, c);
    else if (c.model_type == "bloom") bloom(r, c);
    else if (c.model_type == "falcon") falcon(r, c);
    else if (c.model_type == "stablelm") stablelm(r, c);
    else if (c.model_type == "cohere" || c.model_type == "cohere2") cohere(r, c);
    else if (c.model_type == "olmo") olmo(r, c);
    else r.fail("model_type \"" + c.model_type + "\" is not supported (attn runs " + known_model_types() + ")");
    if (c.kv_heads == 0) c.kv_heads = c.heads;
    if (c.head_dim == 0) {
        if (c.hidden % c.heads)
            r.fail("hidden size " + std::to_string(c.hidden) + " is not a multiple of " + std::to_string(c.heads) + " heads");
        c.head_dim = c.hidden / c.heads;
    }
    if ((c.arch == Architecture::llama || c.arch == Architecture::starcoder2 || c.arch == Architecture::cohere ||
         c.arch == Architecture::olmo || c.arch == Architecture::falcon) &&
        c.head_dim % 2)
        r.fail("head_dim " + std::to_string(c.head_dim) + " is odd: RoPE rotates pairs of dims (head_dim, or "
               "hidden_size / num_attention_heads)");
    // longrope's lists: one factor per frequency of the dims RoPE turns (Phi3Config's check)
    for (const Rope* rope : {&c.rope, &c.sliding_rope})
        if (rope->scaling.kind == RopeScalingKind::longrope) {
            const std::size_t want = (c.rotary_dims ? c.rotary_dims : c.head_dim) / 2;
            for (const auto& [name, list] : {std::pair<const char*, const std::vector<float>*>{"short_factor", &rope->scaling.ext_factors},
                                             {"long_factor", &rope->scaling.long_factor}})
                if (list->size() != want)
                    r.fail(std::string("longrope's \"") + name + "\" has " + std::to_string(list->size()) +
                           (list->size() == 1 ? " number" : " numbers") + ", expected " + std::to_string(want) +
                           ": one per frequency of the " + std::to_string(2 * want) + " dims RoPE turns");
        }
    if ((c.rope.scaling.kind == RopeScalingKind::dynamic || c.sliding_rope.scaling.kind == RopeScalingKind::dynamic) &&
        (c.rotary_dims ? c.rotary_dims : c.head_dim) == 2)  // dim / (dim - 2), dim the dims RoPE turns
        r.fail("dynamic RoPE needs more than 2 dims turned (its theta is raised to the power dim / (dim - 2), dim the "
               "head_dim or the rotary dims)");
    return c;
}

}  // namespace attn::model
