// config.json read as transformers' config classes read it: the defaults of a key left out are
// those of MistralConfig, Qwen2Config and LlamaConfig (transformers' configuration_*.py), and what
// their modules ignore stays ignored. Found by an audit against a float64 reference of the models.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <sstream>

#include "attn/error.hpp"
#include "attn/model.hpp"

namespace {

// A small config.json of model_type `type`, with the members `more` (", \"key\": value", ...) after
// its sizes (a repeated key: the last one counts, as in Python).
std::string config_text(const std::string& type, const std::string& more) {
    return "{\"model_type\": \"" + type +
           "\", \"hidden_size\": 64, \"intermediate_size\": 96, \"num_hidden_layers\": 2, "
           "\"num_attention_heads\": 16, \"vocab_size\": 50" + more + "}";
}

attn::model::ModelConfig config(const std::string& type, const std::string& more) {
    return attn::model::parse_model_config(config_text(type, more), "config.json");
}

// The InputError message of reading `json` as config.json, or "no error".
std::string parse_error(const std::string& json) {
    try {
        attn::model::parse_model_config(json, "config.json");
    } catch (const attn::InputError& e) {
        return e.what();
    }
    return "no error";
}

// config's InputError message, or "no error".
std::string error(const std::string& type, const std::string& more) { return parse_error(config_text(type, more)); }

}  // namespace

TEST_CASE("model config: num_key_value_heads left out is LlamaConfig's heads, MistralConfig's 8, Qwen2Config's 32") {
    CHECK(config("llama", "").kv_heads == 16);
    CHECK(config("mistral", "").kv_heads == 8);
    CHECK(config("qwen2", ", \"num_attention_heads\": 32").kv_heads == 32);
    // null: the heads, in all three (the classes' `if num_key_value_heads is None`)
    for (const char* type : {"llama", "mistral", "qwen2"}) {
        INFO(type);
        CHECK(config(type, ", \"num_key_value_heads\": null").kv_heads == 16);
        CHECK(config(type, ", \"num_key_value_heads\": 4").kv_heads == 4);
    }
}

TEST_CASE("model config: Mistral's window is 4096 when left out, none when null; its layers have no biases") {
    CHECK(config("mistral", "").sliding_window == 4096);
    CHECK(config("mistral", ", \"sliding_window\": null").sliding_window == 0);
    CHECK(config("mistral", ", \"sliding_window\": 3").sliding_window == 3);
    const attn::model::ModelConfig m = config("mistral", ", \"attention_bias\": true, \"mlp_bias\": true");
    CHECK_FALSE(m.qkv_bias);
    CHECK_FALSE(m.o_bias);
    CHECK_FALSE(m.mlp_bias);
    const attn::model::ModelConfig l = config("llama", ", \"attention_bias\": true, \"mlp_bias\": true");
    CHECK(l.qkv_bias);
    CHECK(l.o_bias);
    CHECK(l.mlp_bias);
    CHECK(config("llama", ", \"sliding_window\": 3").sliding_window == 0);  // LlamaModel has none
    // Qwen2: the window only with use_sliding_window (4096 when left out, none when null)
    CHECK(config("qwen2", ", \"num_key_value_heads\": 4, \"sliding_window\": 3").sliding_window == 0);
    CHECK(config("qwen2", ", \"num_key_value_heads\": 4, \"use_sliding_window\": true").sliding_window == 4096);
    CHECK(config("qwen2", ", \"num_key_value_heads\": 4, \"use_sliding_window\": true, \"sliding_window\": null").sliding_window == 0);
}

TEST_CASE("model config: RoPE from rope_scaling, else rope_parameters, as transformers v5 reads them") {
    // v5: rope_parameters = rope_scaling or rope_parameters; theta: the object's, else the
    // top-level rope_theta (setdefault), else 10000
    const std::string v5 = ", \"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": 2.0, \"rope_theta\": 500.0}";
    const attn::model::ModelConfig alone = config("llama", v5);
    CHECK(alone.rope.theta == 500.0f);
    CHECK(alone.rope.scaling.factor == 2.0f);
    const attn::model::ModelConfig top_theta_ignored = config("llama", v5 + ", \"rope_theta\": 10000.0");
    CHECK(top_theta_ignored.rope.theta == 500.0f);
    const attn::model::ModelConfig theta_from_top =
        config("llama", ", \"rope_theta\": 700.0, \"rope_parameters\": {\"rope_type\": \"default\"}");
    CHECK(theta_from_top.rope.theta == 700.0f);
    const attn::model::ModelConfig scaling_first =
        config("llama", v5 + ", \"rope_theta\": 300.0, \"rope_scaling\": {\"type\": \"linear\", \"factor\": 4.0}");
    CHECK(scaling_first.rope.theta == 300.0f);
    CHECK(scaling_first.rope.scaling.factor == 4.0f);
    CHECK(config("llama", ", \"rope_scaling\": null").rope.theta == 10000.0f);
}

TEST_CASE("model config: dynamic and yarn RoPE take max_position_embeddings and the configs' defaults") {
    using K = attn::RopeScalingKind;
    // dynamic: the limit is max_position_embeddings (LlamaConfig 2048, MistralConfig 131072,
    // Qwen2Config 32768), which limits nothing else: RoPE has no table to outgrow
    const attn::model::ModelConfig dyn = config("llama", ", \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}");
    CHECK(dyn.rope.scaling.kind == K::dynamic);
    CHECK(dyn.rope.scaling.original_max_positions == 2048.0f);
    CHECK(dyn.max_positions == 0);
    CHECK(config("mistral", ", \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}").rope.scaling.original_max_positions ==
          131072.0f);
    CHECK(config("qwen2", ", \"num_key_value_heads\": 4, \"max_position_embeddings\": 100, \"rope_scaling\": "
                          "{\"type\": \"dynamic\", \"factor\": 2.0}").rope.scaling.original_max_positions == 100.0f);
    // yarn: the original length defaults to max_position_embeddings; a null factor is
    // max_position_embeddings / original; the attention factor 0.1·ln(factor) + 1, or from
    // mscale / mscale_all_dim when both are set; beta_fast 32, beta_slow 1 (also for 0: `or`)
    const attn::model::ModelConfig y = config("llama", ", \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4.0, \"beta_fast\": 0}");
    CHECK(y.rope.scaling.kind == K::yarn);
    CHECK(y.rope.scaling.original_max_positions == 2048.0f);
    CHECK(y.rope.scaling.attention_factor == doctest::Approx(0.1 * std::log(4.0) + 1));
    CHECK(y.rope.scaling.beta_fast == 32.0);
    CHECK(y.rope.scaling.beta_slow == 1.0);
    CHECK(y.rope.scaling.truncate);
    const attn::model::ModelConfig ratio = config(
        "llama", ", \"max_position_embeddings\": 1000, \"rope_parameters\": {\"rope_type\": \"yarn\", \"factor\": null, "
                 "\"original_max_position_embeddings\": 250, \"mscale\": 2, \"mscale_all_dim\": 1, \"truncate\": false}");
    CHECK(ratio.rope.scaling.factor == 4.0f);
    CHECK(ratio.rope.scaling.attention_factor == doctest::Approx((0.2 * std::log(4.0) + 1) / (0.1 * std::log(4.0) + 1)));
    CHECK_FALSE(ratio.rope.scaling.truncate);
    CHECK(config("llama", ", \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 1.0}").rope.scaling.attention_factor == 1.0f);
    CHECK(config("llama", ", \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 8.0, \"attention_factor\": 0.5}")
              .rope.scaling.attention_factor == 0.5f);
    CHECK_THROWS_AS(config("llama", ", \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 8.0, \"attention_factor\": 0}"),
                    attn::InputError);
    CHECK(error("llama", ", \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 8.0, \"attention_factor\": 1e39}")
              .find("yarn's attention factor 1e+39: expected a positive number below 3.40282e+38 (float32)") != std::string::npos);
    CHECK(config("llama", ", \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 8.0, \"attention_factor\": 3e38}")
              .rope.scaling.attention_factor == 3e38f);
    CHECK_THROWS_AS(config("llama", ", \"rope_scaling\": {\"type\": \"longrope\", \"factor\": 8.0}"), attn::InputError);
    // a top-level original_max_position_embeddings fills the scaling's (v5 moves it there)
    CHECK(config("llama", ", \"original_max_position_embeddings\": 512, \"rope_scaling\": {\"type\": \"yarn\", "
                          "\"factor\": 2.0}").rope.scaling.original_max_positions == 512.0f);
    CHECK(config("llama", ", \"original_max_position_embeddings\": 512, \"rope_scaling\": {\"type\": \"yarn\", "
                          "\"factor\": 2.0, \"original_max_position_embeddings\": 64}").rope.scaling.original_max_positions == 64.0f);
    CHECK(config("llama", ", \"original_max_position_embeddings\": 512, \"rope_scaling\": {\"rope_type\": \"llama3\", "
                          "\"factor\": 8, \"low_freq_factor\": 1, \"high_freq_factor\": 4}").rope.scaling.original_max_positions == 512.0f);
    // the factor key is required (null is the ratio); truncate null is falsy, as get("truncate", True) gives it
    CHECK_THROWS_AS(config("llama", ", \"rope_scaling\": {\"type\": \"yarn\"}"), attn::InputError);
    CHECK_FALSE(config("llama", ", \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 2.0, \"truncate\": null}")
                    .rope.scaling.truncate);
}

TEST_CASE("model config: the keys transformers requires are required; its classes' defaults fill the rest") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    // rope_scaling: a factor for linear, dynamic and llama3 (and llama3's three others); a type
    // when there is a factor; a factor below 1 runs (transformers warns)
    CHECK(error("llama", ", \"rope_scaling\": {\"rope_type\": \"linear\"}").find("missing \"factor\"") != std::string::npos);
    CHECK(error("llama", ", \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": null}").find("missing \"factor\"") != std::string::npos);
    CHECK(error("llama", ", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8, \"high_freq_factor\": 4, "
                         "\"original_max_position_embeddings\": 64}").find("\"rope_scaling\": missing \"low_freq_factor\"") !=
          std::string::npos);
    CHECK(error("llama", ", \"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": \"2\"}")
              .find("\"rope_parameters\": \"factor\": ") != std::string::npos);
    // an unsupported type is named before the fields it would need (it said: missing "factor")
    CHECK(error("llama", ", \"rope_scaling\": {\"type\": \"su\", \"short_factor\": [1]}")
              .find("\"rope_scaling\": rope type \"su\" is not supported") != std::string::npos);
    CHECK(error("llama", ", \"rope_scaling\": {\"factor\": 2.0}").find("no \"rope_type\"") != std::string::npos);
    CHECK(config("llama", ", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 0.5, \"low_freq_factor\": 1, "
                          "\"high_freq_factor\": 4, \"original_max_position_embeddings\": 64}").rope.scaling.factor == 0.5f);
    // null where transformers uses the value as it is
    CHECK(error("llama", ", \"rope_theta\": null").find("\"rope_theta\" is null") != std::string::npos);
    CHECK(error("llama", ", \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": null}").find("is null") !=
          std::string::npos);
    CHECK(config("llama", ", \"rope_theta\": null, \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 5.0}")
              .rope.theta == 5.0f);
    CHECK(error("llama", ", \"hidden_act\": null").find("\"hidden_act\" is null") != std::string::npos);
    CHECK(error("gpt2", ", \"n_embd\": 64, \"n_head\": 16, \"activation_function\": null").find("is null") != std::string::npos);
    // BertLayer refuses cross-attention in an encoder; Qwen2's sliding layers need a window
    CHECK(error("bert", ", \"add_cross_attention\": true").find("cross-attention needs a decoder") != std::string::npos);
    CHECK(error("qwen2", ", \"num_key_value_heads\": 4, \"sliding_window\": 2, \"layer_types\": "
                         "[\"sliding_attention\", \"full_attention\"]").find("no window") != std::string::npos);
    // the classes' defaults for a key left out (bert-base, gpt2, Llama 2 7B, Mistral 7B, Qwen2 7B):
    // layers, hidden, heads, intermediate, vocab
    struct Sizes { const char* type; std::size_t layers, hidden, heads, intermediate, vocab; };
    for (const Sizes& want : {Sizes{"bert", 12, 768, 12, 3072, 30522}, Sizes{"gpt2", 12, 768, 12, 3072, 50257},
                              Sizes{"llama", 32, 4096, 32, 11008, 32000}, Sizes{"mistral", 32, 4096, 32, 14336, 32000},
                              Sizes{"qwen2", 32, 4096, 32, 22016, 151936},
                              Sizes{"qwen3", 32, 4096, 32, 22016, 151936}}) {
        INFO(want.type);
        const attn::model::ModelConfig got = parse(std::string("{\"model_type\": \"") + want.type + "\"}");
        CHECK(got.layers == want.layers);
        CHECK(got.hidden == want.hidden);
        CHECK(got.heads == want.heads);
        CHECK(got.intermediate == want.intermediate);
        CHECK(got.vocab == want.vocab);
    }
}

TEST_CASE("model config: null is None, as transformers' code takes it (from an audit)") {
    // Where transformers needs the value (range(None), LayerNorm(eps=None), i >= None): refused, not
    // the class's default (these were read as absent).
    CHECK(error("bert", ", \"layer_norm_eps\": null").find("\"layer_norm_eps\" is null") != std::string::npos);
    CHECK(error("bert", ", \"type_vocab_size\": null").find("\"type_vocab_size\" is null") != std::string::npos);
    CHECK(error("llama", ", \"rms_norm_eps\": null").find("\"rms_norm_eps\" is null") != std::string::npos);
    CHECK(error("llama", ", \"num_hidden_layers\": null").find("\"num_hidden_layers\" is null") != std::string::npos);
    CHECK(error("gpt2", ", \"layer_norm_epsilon\": null").find("\"layer_norm_epsilon\" is null") != std::string::npos);
    CHECK(error("qwen2", ", \"num_key_value_heads\": 4, \"use_sliding_window\": true, \"sliding_window\": 3, "
                         "\"max_window_layers\": null").find("\"max_window_layers\" is null") != std::string::npos);
    CHECK(error("qwen2", ", \"num_key_value_heads\": 4, \"max_window_layers\": null") == "no error");  // no window: unread
    // max_position_embeddings: unused by Llama's default RoPE; dynamic and yarn need it
    CHECK(error("llama", ", \"max_position_embeddings\": null") == "no error");
    CHECK(error("llama", ", \"max_position_embeddings\": null, \"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2}")
              .find("needs \"max_position_embeddings\", which is null") != std::string::npos);
    // `x if x is not None else default`: null is the default
    CHECK(config("gpt2", ", \"n_inner\": null").intermediate == 4 * 64);
    CHECK(config("llama", ", \"head_dim\": null").head_dim == 4);
    // `if config.scale_attn_weights:` and BertEmbeddings' `== "absolute"`: null is false
    CHECK_FALSE(config("gpt2", ", \"scale_attn_weights\": null").scale_attn_weights);
    CHECK(config("gpt2", "").scale_attn_weights);
    CHECK_FALSE(config("bert", ", \"position_embedding_type\": null").absolute_positions);
    CHECK(config("bert", ", \"position_embedding_type\": \"absolute\"").absolute_positions);
    // GPT2Config's aliases: the same value twice is fine, two values are refused
    CHECK(config("gpt2", ", \"n_embd\": 64, \"n_head\": 16").heads == 16);  // num_attention_heads 16 too
    CHECK(error("gpt2", ", \"n_embd\": 64, \"n_head\": 4")
              .find("\"n_head\" and \"num_attention_heads\" (the same field of GPT2Config) differ") != std::string::npos);
    CHECK(error("gpt2", ", \"n_embd\": 32").find("\"n_embd\" and \"hidden_size\"") != std::string::npos);
    CHECK(error("gpt2", ", \"n_head\": null").find("\"n_head\" is null") != std::string::npos);  // said "differ"
}

TEST_CASE("model config: Qwen3Config: head_dim its own (128), biases with attention_bias, q_norm and k_norm") {
    const attn::model::ModelConfig q = config("qwen3", ", \"num_attention_heads\": 32");
    CHECK(q.head_dim == 128);  // not hidden / heads (2)
    CHECK(q.kv_heads == 32);
    CHECK(q.qk_norm);
    CHECK_FALSE(q.qkv_bias);
    CHECK_FALSE(q.o_bias);
    CHECK(q.sliding_window == 0);
    const std::string g4 = ", \"num_key_value_heads\": 4";
    CHECK(config("qwen3", g4 + ", \"head_dim\": 8").head_dim == 8);
    CHECK(error("qwen3", g4 + ", \"head_dim\": null").find("\"head_dim\" is null") != std::string::npos);
    CHECK(config("qwen3", ", \"num_key_value_heads\": null").kv_heads == 16);
    // Qwen3Attention: Q, K, V and o_proj biases with attention_bias; Qwen3MLP has none
    const attn::model::ModelConfig b = config("qwen3", g4 + ", \"attention_bias\": true, \"mlp_bias\": true");
    CHECK(b.qkv_bias);
    CHECK(b.o_bias);
    CHECK_FALSE(b.mlp_bias);
    // the window as Qwen2's: only with use_sliding_window, from max_window_layers on
    const attn::model::ModelConfig w =
        config("qwen3", g4 + ", \"use_sliding_window\": true, \"sliding_window\": 3, \"max_window_layers\": 1");
    CHECK(w.window_of(0) == 0);
    CHECK(w.window_of(1) == 3);
    CHECK(config("qwen3", g4 + ", \"sliding_window\": 3").sliding_window == 0);
    // the others have no q_norm
    for (const char* type : {"llama", "mistral", "qwen2"}) CHECK_FALSE(config(type, g4).qk_norm);
}

TEST_CASE("model config: pad_token_id within nn.Embedding's vocab_size (BERT and the Llama family)") {
    const std::string g4 = ", \"num_key_value_heads\": 4";
    for (const char* type : {"bert", "llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2"}) {
        CAPTURE(type);
        for (const char* ok : {"0", "49", "-1", "-50", "null"}) CHECK_FALSE(config(type, g4 + ", \"pad_token_id\": " + ok).padding_idx);
        CHECK(error(type, g4 + ", \"pad_token_id\": 50").find("\"pad_token_id\" is 50: expected an integer id from -50 to 49") !=
              std::string::npos);
        CHECK(error(type, g4 + ", \"pad_token_id\": -51").find("\"pad_token_id\" is -51") != std::string::npos);
        CHECK(error(type, g4 + ", \"pad_token_id\": 0.5").find("\"pad_token_id\": json: expected an integer, found 0.5") !=
              std::string::npos);
    }
    CHECK_FALSE(config("gpt2", ", \"pad_token_id\": 5000").padding_idx);  // GPT-2's wte has no padding_idx
}

TEST_CASE("model config: distilbert is DistilBertConfig: its defaults, attribute_map and activation") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig d = parse("{\"model_type\": \"distilbert\"}");  // distilbert-base
    CHECK(d.arch == attn::model::Architecture::distilbert);
    CHECK(attn::model::is_encoder(d.arch));
    CHECK(d.layers == 6);
    CHECK(d.hidden == 768);
    CHECK(d.heads == 12);
    CHECK(d.head_dim == 64);
    CHECK(d.intermediate == 3072);  // hidden_dim: 4 * 768 whatever dim is
    CHECK(parse("{\"model_type\": \"distilbert\", \"dim\": 96}").intermediate == 3072);
    CHECK(d.vocab == 30522);
    CHECK(d.max_positions == 512);
    CHECK(d.type_vocab == 0);  // no token type embeddings
    CHECK(d.norm_eps == 1e-12);
    CHECK(d.activation == attn::model::ModelConfig::Activation::gelu_erf);
    CHECK_FALSE(d.padding_idx);
    // config.json's names of DistilBertConfig's fields: dim, n_heads, n_layers, or the aliases
    const attn::model::ModelConfig a = config("distilbert", ", \"hidden_dim\": 40, \"activation\": \"relu\"");
    CHECK(a.hidden == 64);
    CHECK(a.heads == 16);
    CHECK(a.layers == 2);
    CHECK(a.intermediate == 40);
    CHECK(a.activation == attn::model::ModelConfig::Activation::relu);
    CHECK(config("distilbert", ", \"dim\": 64, \"n_layers\": 2").hidden == 64);
    CHECK(error("distilbert", ", \"dim\": 32")
              .find("\"dim\" and \"hidden_size\" (the same field of DistilBertConfig) differ") != std::string::npos);
    CHECK(error("distilbert", ", \"n_heads\": 5").find("\"n_heads\" and \"num_attention_heads\"") != std::string::npos);
    CHECK(error("distilbert", ", \"n_heads\": 5, \"num_attention_heads\": 5")
              .find("hidden size 64 is not a multiple of 5 heads") != std::string::npos);
    CHECK(error("distilbert", ", \"activation\": \"mish\"").find("activation \"mish\" is not supported") !=
          std::string::npos);
    CHECK(error("distilbert", ", \"activation\": null").find("\"activation\" is null") != std::string::npos);
    CHECK(error("distilbert", ", \"pad_token_id\": 50").find("\"pad_token_id\" is 50") != std::string::npos);
    CHECK(error("distilbert", ", \"sinusoidal_pos_embds\": 1").find("\"sinusoidal_pos_embds\"") != std::string::npos);
}

TEST_CASE("model config: bloom is BloomConfig: its defaults, n_embed and the attribute_map") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig b = parse("{\"model_type\": \"bloom\"}");
    CHECK(b.arch == attn::model::Architecture::bloom);
    CHECK_FALSE(attn::model::is_encoder(b.arch));
    CHECK(b.layers == 2);
    CHECK(b.hidden == 64);
    CHECK(b.heads == 8);
    CHECK(b.kv_heads == 8);
    CHECK(b.head_dim == 8);
    CHECK(b.intermediate == 256);  // 4 * hidden_size, n_inner unread
    CHECK(parse("{\"model_type\": \"bloom\", \"n_inner\": 7}").intermediate == 256);
    CHECK(b.vocab == 250880);
    CHECK(b.max_positions == 0);  // ALiBi: no table, no limit
    CHECK(b.norm_eps == 1e-5);
    CHECK(b.activation == attn::model::ModelConfig::Activation::gelu_tanh);
    CHECK_FALSE(b.residual_from_norm);
    CHECK(parse("{\"model_type\": \"bloom\", \"apply_residual_connection_post_layernorm\": true}").residual_from_norm);
    // bigscience/bloom's keys: n_embed, num_attention_heads, n_layer
    const attn::model::ModelConfig big =
        parse("{\"model_type\": \"bloom\", \"n_embed\": 96, \"num_attention_heads\": 12, \"n_layer\": 3}");
    CHECK(big.hidden == 96);
    CHECK(big.heads == 12);
    CHECK(big.layers == 3);
    CHECK(config("bloom", ", \"n_embed\": 64").hidden == 64);  // hidden_size 64 too: the same value
    CHECK(error("bloom", ", \"n_embed\": 32").find("\"n_embed\" and \"hidden_size\" (the same field of BloomConfig) differ") !=
          std::string::npos);
    CHECK(error("bloom", ", \"n_head\": 8").find("\"n_head\" and \"num_attention_heads\"") != std::string::npos);
    CHECK(error("bloom", ", \"n_layer\": 3").find("\"n_layer\" and \"num_hidden_layers\"") != std::string::npos);
    CHECK(error("bloom", ", \"num_attention_heads\": 5").find("hidden_size 64 is not a multiple of n_head 5") !=
          std::string::npos);
    CHECK(error("bloom", ", \"layer_norm_epsilon\": -1").find("\"layer_norm_epsilon\" is -1") != std::string::npos);
    // n_embed null: not given (`hidden_size if n_embed is None else n_embed`)
    CHECK(config("bloom", ", \"n_embed\": null").hidden == 64);
    CHECK(parse("{\"model_type\": \"bloom\", \"n_embed\": null}").hidden == 64);
    // the output projections' biases, but for pretraining_tp > 1 with slow_but_exact
    CHECK(b.o_bias);
    CHECK(b.mlp_bias);
    for (const char* more : {", \"pretraining_tp\": 2", ", \"slow_but_exact\": true", ", \"pretraining_tp\": 1, \"slow_but_exact\": true"})
        CHECK(config("bloom", more).o_bias);
    const attn::model::ModelConfig sliced = config("bloom", ", \"pretraining_tp\": 4, \"slow_but_exact\": true");
    CHECK_FALSE(sliced.o_bias);
    CHECK_FALSE(sliced.mlp_bias);
    CHECK(error("bloom", ", \"pretraining_tp\": null").find("\"pretraining_tp\" is null") != std::string::npos);
}

TEST_CASE("model config: olmo2 is Olmo2Config: its defaults, the norms after, q_norm and k_norm over all heads") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig o = parse("{\"model_type\": \"olmo2\"}");  // OLMo 2 7B
    CHECK(o.arch == attn::model::Architecture::llama);
    CHECK(o.layers == 32);
    CHECK(o.hidden == 4096);
    CHECK(o.heads == 32);
    CHECK(o.kv_heads == 32);
    CHECK(o.head_dim == 128);
    CHECK(o.intermediate == 11008);
    CHECK(o.vocab == 50304);
    CHECK(o.norm_eps == 1e-5);
    CHECK(o.activation == attn::model::ModelConfig::Activation::silu);
    CHECK(o.rope.theta == 10000.0f);
    CHECK(o.qk_norm);
    CHECK(o.qk_norm_whole);
    CHECK(o.post_norms);
    CHECK_FALSE(o.sandwich_norms);
    CHECK_FALSE(o.qkv_bias);
    CHECK_FALSE(o.o_bias);
    CHECK(o.sliding_window == 0);
    // attention_bias: q, k, v and o_proj; OlmoMLP never has biases
    const attn::model::ModelConfig b = config("olmo2", ", \"attention_bias\": true, \"mlp_bias\": true");
    CHECK(b.qkv_bias);
    CHECK(b.o_bias);
    CHECK_FALSE(b.mlp_bias);
    CHECK(config("olmo2", ", \"num_key_value_heads\": 4").kv_heads == 4);
    CHECK(config("olmo2", ", \"head_dim\": 8").head_dim == 8);
    // pad_token_id 1 when absent: an id of the vocabulary
    CHECK(error("olmo2", ", \"vocab_size\": 1").find("no \"pad_token_id\": Olmo2Config's 1 is not an id of vocab_size 1") !=
          std::string::npos);
    CHECK(config("olmo2", ", \"vocab_size\": 1, \"pad_token_id\": 0").vocab == 1);
    // the other Llama-family types keep their norms before
    for (const char* type : {"llama", "mistral", "qwen2", "qwen3"}) CHECK_FALSE(config(type, ", \"num_key_value_heads\": 4").post_norms);
}

TEST_CASE("model config: phi is PhiConfig: its defaults, partial_rotary_factor 0.5, qk_layernorm") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig p = parse("{\"model_type\": \"phi\"}");  // phi-2's sizes
    CHECK(p.arch == attn::model::Architecture::phi);
    CHECK(p.layers == 24);
    CHECK(p.hidden == 2048);
    CHECK(p.heads == 32);
    CHECK(p.kv_heads == 32);
    CHECK(p.head_dim == 64);
    CHECK(p.intermediate == 8192);
    CHECK(p.vocab == 51200);
    CHECK(p.norm_eps == 1e-5);
    CHECK(p.activation == attn::model::ModelConfig::Activation::gelu_tanh);  // gelu_new
    CHECK(p.rope.theta == 10000.0f);
    CHECK(p.rotary_dims == 32);  // int(64 * 0.5)
    CHECK_FALSE(p.qk_norm);
    CHECK(p.qkv_bias);
    CHECK(error("phi", ", \"partial_rotary_factor\": 0.4").find("gives int(4 * 0.4) = 1 rotary dims") != std::string::npos);
    CHECK(config("phi", ", \"partial_rotary_factor\": 1.0").rotary_dims == 4);
    CHECK(config("phi", ", \"qk_layernorm\": true").qk_norm);
    CHECK(config("phi", ", \"num_key_value_heads\": 4").kv_heads == 4);
    CHECK(error("phi", ", \"num_key_value_heads\": 3").find("not a multiple of num_key_value_heads 3") != std::string::npos);
    CHECK(error("phi", ", \"num_attention_heads\": 5").find("hidden_size 64 is not a multiple of num_attention_heads 5") !=
          std::string::npos);
    CHECK(error("phi", ", \"rope_scaling\": {\"type\": \"linear\", \"factor\": 0}").find("factor") != std::string::npos);
    // head_dim of its own (4.48 on), hidden_size then need not divide; q_layernorm's size is hidden_size // heads
    CHECK(config("phi", ", \"head_dim\": 8").head_dim == 8);
    CHECK(config("phi", ", \"head_dim\": 8, \"num_attention_heads\": 5").head_dim == 8);
    CHECK(error("phi", ", \"num_attention_heads\": 5").find("not a multiple") != std::string::npos);
    CHECK(error("phi", ", \"head_dim\": null").find("\"head_dim\" is null") != std::string::npos);
    CHECK(error("phi", ", \"head_dim\": 8, \"qk_layernorm\": true").find("qk_layernorm normalises hidden_size // "
                                                                        "num_attention_heads = 4 dims, but a head has head_dim 8") !=
          std::string::npos);
    // the top level's original_max_position_embeddings, as the Llama family reads it
    const attn::model::ModelConfig lr = config(
        "phi", ", \"partial_rotary_factor\": 1.0, \"max_position_embeddings\": 64, \"original_max_position_embeddings\": 8, "
               "\"rope_scaling\": {\"rope_type\": \"longrope\", \"short_factor\": [1, 1], \"long_factor\": [2, 3]}");
    CHECK(lr.rope.scaling.original_max_positions == 8.0f);
    // dynamic RoPE reads max_position_embeddings (null refused) and needs more than 2 rotated dims
    CHECK(error("phi", ", \"max_position_embeddings\": null, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}")
              .find("max_position_embeddings") != std::string::npos);
    CHECK(error("phi", ", \"partial_rotary_factor\": 0.5, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}")
              .find("dynamic RoPE needs more than 2 dims turned") != std::string::npos);
    CHECK(config("phi", ", \"partial_rotary_factor\": 1.0, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}").rotary_dims ==
          4);
}

TEST_CASE("model config: granite is GraniteConfig: LlamaConfig's defaults and the multipliers") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig g = parse("{\"model_type\": \"granite\"}");
    CHECK(g.arch == attn::model::Architecture::llama);
    CHECK(g.hidden == 4096);
    CHECK(g.kv_heads == 32);
    CHECK(g.vocab == 32000);
    CHECK(g.norm_eps == 1e-6);
    CHECK(g.embedding_multiplier == 1.0f);
    CHECK(g.residual_multiplier == 1.0f);
    CHECK(g.attention_multiplier == 1.0);  // the scale itself, not 1/sqrt(head_dim)
    const attn::model::ModelConfig m = config(
        "granite", ", \"embedding_multiplier\": 12, \"attention_multiplier\": 0.015625, \"residual_multiplier\": 0.22, "
                   "\"logits_scaling\": 8, \"attention_bias\": true, \"mlp_bias\": true, \"num_key_value_heads\": 4");
    CHECK(m.embedding_multiplier == 12.0f);
    CHECK(m.attention_multiplier == 0.015625);
    CHECK(m.residual_multiplier == 0.22f);
    CHECK(m.qkv_bias);
    CHECK(m.o_bias);
    CHECK(m.mlp_bias);
    const std::string g4 = ", \"num_key_value_heads\": 4";
    CHECK(error("granite", g4 + ", \"attention_multiplier\": null").find("\"attention_multiplier\" is null") != std::string::npos);
    CHECK(error("granite", g4 + ", \"residual_multiplier\": 0").find("\"residual_multiplier\" is 0: expected a finite number") !=
          std::string::npos);
    CHECK(error("granite", g4 + ", \"embedding_multiplier\": 1e39").find("\"embedding_multiplier\" is 1e+39") != std::string::npos);
    // the others have none
    for (const char* type : {"llama", "mistral", "olmo2"}) CHECK(config(type, g4 + ", \"attention_multiplier\": 3").attention_multiplier == 0);
}

TEST_CASE("model config: mixtral is MixtralConfig: Mistral's sizes, rope_theta 1e6, no window, 8 experts, 2 per token") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig m = parse("{\"model_type\": \"mixtral\"}");  // Mixtral 8x7B
    CHECK(m.arch == attn::model::Architecture::llama);
    CHECK(m.hidden == 4096);
    CHECK(m.intermediate == 14336);
    CHECK(m.kv_heads == 8);
    CHECK(m.norm_eps == 1e-5);
    CHECK(m.rope.theta == 1e6f);
    CHECK(m.sliding_window == 0);
    CHECK(m.moe.experts == 8);
    CHECK(m.moe.per_token == 2);
    CHECK_FALSE(m.qkv_bias);
    CHECK(config("mixtral", ", \"sliding_window\": 4096").sliding_window == 4096);
    CHECK(config("mixtral", ", \"rope_theta\": 500").rope.theta == 500.0f);
    const attn::model::ModelConfig e = config("mixtral", ", \"num_local_experts\": 3, \"num_experts_per_tok\": 3");
    CHECK(e.moe.experts == 3);
    CHECK(e.moe.per_token == 3);
    CHECK(error("mixtral", ", \"num_local_experts\": 2, \"num_experts_per_tok\": 3")
              .find("\"num_experts_per_tok\" 3 is more than the 2 experts (num_local_experts)") != std::string::npos);
    CHECK(error("mixtral", ", \"num_local_experts\": 0").find("\"num_local_experts\" is 0") != std::string::npos);
    CHECK(error("mixtral", ", \"num_experts_per_tok\": null").find("\"num_experts_per_tok\" is null") != std::string::npos);
    // transformers v5's attribute_map: num_experts is num_local_experts
    CHECK(config("mixtral", ", \"num_experts\": 5").moe.experts == 5);
    CHECK(error("mixtral", ", \"num_experts\": 5, \"num_local_experts\": 4").find("(the same field of MixtralConfig) differ") !=
          std::string::npos);
    // the others have a plain MLP, and Mistral its 4096 window and theta 10000
    for (const char* type : {"llama", "mistral", "qwen2"}) CHECK(config(type, ", \"num_key_value_heads\": 4").moe.experts == 0);
    CHECK(parse("{\"model_type\": \"mistral\"}").rope.theta == 10000.0f);
}

TEST_CASE("model config: qwen2_moe and qwen3_moe: their defaults, the experts, mlp_only_layers, decoder_sparse_step") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig q2 = parse("{\"model_type\": \"qwen2_moe\"}");  // Qwen1.5-MoE-A2.7B's
    CHECK(q2.layers == 24);
    CHECK(q2.hidden == 2048);
    CHECK(q2.heads == 16);
    CHECK(q2.kv_heads == 16);
    CHECK(q2.intermediate == 5632);
    CHECK(q2.vocab == 151936);
    CHECK(q2.qkv_bias);
    CHECK_FALSE(q2.o_bias);
    CHECK_FALSE(q2.qk_norm);
    CHECK(q2.moe.experts == 60);
    CHECK(q2.moe.per_token == 4);
    CHECK(q2.moe.intermediate == 1408);
    CHECK(q2.moe.shared_intermediate == 5632);
    CHECK_FALSE(q2.moe.normalize);
    CHECK_FALSE(q2.moe.mixtral_names);
    CHECK(q2.moe.at(0));
    CHECK(q2.moe.at(23));
    CHECK_FALSE(config("qwen2_moe", ", \"qkv_bias\": false, \"num_key_value_heads\": 4").qkv_bias);
    const attn::model::ModelConfig q3 = parse("{\"model_type\": \"qwen3_moe\"}");
    CHECK(q3.heads == 32);
    CHECK(q3.kv_heads == 4);
    CHECK(q3.head_dim == 64);  // hidden_size / heads: Qwen3MoeConfig has no head_dim of its own
    CHECK(q3.intermediate == 6144);
    CHECK(q3.qk_norm);
    CHECK_FALSE(q3.qkv_bias);
    CHECK(q3.moe.experts == 128);
    CHECK(q3.moe.per_token == 8);
    CHECK(q3.moe.intermediate == 768);
    CHECK(q3.moe.shared_intermediate == 0);
    CHECK(config("qwen3_moe", ", \"num_key_value_heads\": 4, \"norm_topk_prob\": true").moe.normalize);
    CHECK(config("qwen3_moe", ", \"num_key_value_heads\": 4, \"attention_bias\": true").o_bias);
    // dense layers: mlp_only_layers, and those whose index + 1 is no multiple of decoder_sparse_step
    const attn::model::ModelConfig s = parse("{\"model_type\": \"qwen3_moe\", \"num_hidden_layers\": 6, "
                                             "\"decoder_sparse_step\": 2, \"mlp_only_layers\": [3, 4, 99]}");
    const bool sparse[] = {false, true, false, false, false, true};
    for (std::size_t l = 0; l < 6; ++l) CHECK(s.moe.at(l) == sparse[l]);
    const std::string g4 = ", \"num_key_value_heads\": 4";
    CHECK(error("qwen3_moe", g4 + ", \"mlp_only_layers\": [1.5]").find("\"mlp_only_layers\": expected layer indices") !=
          std::string::npos);
    CHECK(error("qwen3_moe", g4 + ", \"mlp_only_layers\": 1").find("expected an array") != std::string::npos);
    CHECK(error("qwen3_moe", g4 + ", \"decoder_sparse_step\": 0").find("\"decoder_sparse_step\" is 0") != std::string::npos);
    CHECK(error("qwen2_moe", g4 + ", \"num_experts\": 2").find("\"num_experts_per_tok\" 4 is more than the 2 experts (num_experts)") !=
          std::string::npos);
    // num_experts 0: plain MLPs; v5's alias num_local_experts
    const attn::model::ModelConfig dense = config("qwen3_moe", g4 + ", \"num_experts\": 0");
    CHECK(dense.moe.experts == 0);
    CHECK_FALSE(dense.moe.at(0));
    CHECK(config("qwen3_moe", g4 + ", \"num_local_experts\": 9").moe.experts == 9);
    CHECK(error("qwen2_moe", g4 + ", \"num_local_experts\": 9, \"num_experts\": 8").find("(the same field of Qwen2MoeConfig) differ") !=
          std::string::npos);
    CHECK(error("mixtral", g4 + ", \"num_local_experts\": 0").find("\"num_local_experts\" is 0") != std::string::npos);
    CHECK(error("qwen2_moe", g4 + ", \"use_sliding_window\": true").find("\"use_sliding_window\": true is not supported for qwen2_moe") !=
          std::string::npos);
    // Mixtral's experts are every layer's, under its own names, always renormalised
    const attn::model::ModelConfig m = config("mixtral", g4);
    CHECK(m.moe.mixtral_names);
    CHECK(m.moe.normalize);
    CHECK(m.moe.intermediate == 0);
    CHECK(m.moe.at(1));
}

TEST_CASE("model config: electra is ElectraConfig: ELECTRA-small's sizes and embedding_size") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig e = parse("{\"model_type\": \"electra\"}");
    CHECK(e.arch == attn::model::Architecture::bert);
    CHECK(e.layers == 12);
    CHECK(e.hidden == 256);
    CHECK(e.heads == 4);
    CHECK(e.intermediate == 1024);
    CHECK(e.embedding_size == 128);
    CHECK(e.vocab == 30522);
    CHECK(e.type_vocab == 2);
    CHECK(e.norm_eps == 1e-12);
    CHECK_FALSE(e.padding_idx);
    CHECK(config("electra", ", \"embedding_size\": 64").embedding_size == 64);
    CHECK(config("bert", "").embedding_size == 0);
    CHECK(error("electra", ", \"embedding_size\": 0").find("\"embedding_size\" is 0") != std::string::npos);
    CHECK(error("electra", ", \"is_decoder\": true").find("an ELECTRA decoder is not supported (attn runs ElectraModel's encoder)") !=
          std::string::npos);
    CHECK(error("electra", ", \"position_embedding_type\": \"relative_key\"").find("relative_key") != std::string::npos);
}

TEST_CASE("model config: starcoder2 is Starcoder2Config: its defaults, use_bias, sliding_window") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig s = parse("{\"model_type\": \"starcoder2\"}");  // starcoder2-7b
    CHECK(s.arch == attn::model::Architecture::starcoder2);
    CHECK(s.layers == 30);
    CHECK(s.hidden == 3072);
    CHECK(s.heads == 24);
    CHECK(s.kv_heads == 2);
    CHECK(s.head_dim == 128);
    CHECK(s.intermediate == 12288);
    CHECK(s.vocab == 49152);
    CHECK(s.norm_eps == 1e-5);
    CHECK(s.activation == attn::model::ModelConfig::Activation::gelu_tanh);
    CHECK(s.qkv_bias);
    CHECK(s.o_bias);
    CHECK(s.mlp_bias);
    CHECK(s.sliding_window == 0);
    CHECK(s.rope.theta == 10000.0f);
    const std::string g4 = ", \"num_key_value_heads\": 4";
    const attn::model::ModelConfig w = config("starcoder2", g4 + ", \"sliding_window\": 4096, \"use_bias\": false");
    CHECK(w.window_of(0) == 4096);
    CHECK(w.window_of(1) == 4096);
    CHECK_FALSE(w.qkv_bias);
    CHECK_FALSE(w.mlp_bias);
    CHECK(error("starcoder2", ", \"num_key_value_heads\": null").find("\"num_key_value_heads\" is null") != std::string::npos);
    CHECK(error("starcoder2", ", \"num_key_value_heads\": 3").find("not a multiple of num_key_value_heads 3") != std::string::npos);
    CHECK(error("starcoder2", g4 + ", \"norm_epsilon\": -1").find("\"norm_epsilon\" is -1") != std::string::npos);
    CHECK(error("starcoder2", g4 + ", \"head_dim\": null").find("\"head_dim\" is null") != std::string::npos);
    CHECK(config("starcoder2", g4 + ", \"head_dim\": 8").head_dim == 8);
    CHECK_FALSE(config("starcoder2", g4 + ", \"use_bias\": null").qkv_bias);  // nn.Linear(bias=None): none
}

TEST_CASE("model config: stablelm is StableLmConfig: its defaults, partial_rotary_factor 0.25, the parallel residual") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig s = parse("{\"model_type\": \"stablelm\"}");  // stablelm-3b-4e1t
    CHECK(s.arch == attn::model::Architecture::stablelm);
    CHECK(s.layers == 32);
    CHECK(s.hidden == 2560);
    CHECK(s.heads == 32);
    CHECK(s.kv_heads == 32);
    CHECK(s.head_dim == 80);
    CHECK(s.intermediate == 6912);
    CHECK(s.vocab == 50304);
    CHECK(s.norm_eps == 1e-5);
    CHECK(s.activation == attn::model::ModelConfig::Activation::silu);
    CHECK(s.rope.theta == 10000.0f);
    CHECK(s.rope.style == attn::RopeStyle::half);
    CHECK(s.rotary_dims == 20);  // int(80 * 0.25)
    CHECK_FALSE(s.qkv_bias);
    CHECK_FALSE(s.o_bias);
    CHECK_FALSE(s.qk_norm);
    CHECK_FALSE(s.parallel_residual);
    const attn::model::ModelConfig p = config(
        "stablelm", ", \"num_key_value_heads\": 4, \"use_qkv_bias\": true, \"qk_layernorm\": true, "
                    "\"use_parallel_residual\": true, \"partial_rotary_factor\": 0.5");
    CHECK(p.qkv_bias);
    CHECK_FALSE(p.o_bias);
    CHECK(p.qk_norm);
    CHECK(p.parallel_residual);
    CHECK(p.rotary_dims == 2);
    CHECK(error("stablelm", "").find("num_attention_heads 16 is not a multiple of num_key_value_heads 32") != std::string::npos);
    CHECK(error("stablelm", ", \"num_key_value_heads\": 16").find("\"partial_rotary_factor\" 0.25 gives int(4 * 0.25) = 1 rotary dims") != std::string::npos);
    CHECK(error("stablelm", ", \"num_attention_heads\": 5").find("hidden_size 64 is not a multiple of num_attention_heads 5") !=
          std::string::npos);
    CHECK(error("stablelm", ", \"num_attention_heads\": 8, \"num_key_value_heads\": 3").find("not a multiple of num_key_value_heads 3") !=
          std::string::npos);
    // StableLmAttention's head size is hidden_size // heads, whatever "head_dim" says
    CHECK(config("stablelm", ", \"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"head_dim\": 8").head_dim == 8);
    CHECK(error("stablelm", ", \"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"head_dim\": 16").find("\"head_dim\" 16 differs") != std::string::npos);
    CHECK(error("stablelm", ", \"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"layer_norm_eps\": null").find("\"layer_norm_eps\" is null") !=
          std::string::npos);
}

TEST_CASE("model config: cohere is CohereConfig: its defaults, interleaved RoPE, use_qk_norm, v5's rope_theta with a note") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig c = parse("{\"model_type\": \"cohere\"}");  // c4ai-command-r-v01
    CHECK(c.arch == attn::model::Architecture::cohere);
    CHECK(c.layers == 40);
    CHECK(c.hidden == 8192);
    CHECK(c.heads == 64);
    CHECK(c.kv_heads == 64);
    CHECK(c.head_dim == 128);
    CHECK(c.intermediate == 22528);
    CHECK(c.vocab == 256000);
    CHECK(c.norm_eps == 1e-5);
    CHECK(c.activation == attn::model::ModelConfig::Activation::silu);
    CHECK(c.rope.style == attn::RopeStyle::interleaved);
    CHECK(c.rope.theta == 500000.0f);
    REQUIRE(c.notes.size() == 1);
    CHECK(c.notes[0].find("v4's was 10000") != std::string::npos);
    CHECK(c.rotary_dims == 0);
    CHECK(c.parallel_residual);
    CHECK_FALSE(c.qkv_bias);
    CHECK_FALSE(c.qk_norm);
    const attn::model::ModelConfig b = config("cohere", ", \"num_key_value_heads\": 4, \"attention_bias\": true, "
                                                        "\"use_qk_norm\": true, \"rope_theta\": 8000000");
    CHECK(b.kv_heads == 4);
    CHECK(b.qkv_bias);
    CHECK(b.o_bias);
    CHECK(b.qk_norm);
    CHECK(b.rope.theta == 8000000.0f);
    CHECK(b.notes.empty());
    CHECK(config("cohere", ", \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2, \"rope_theta\": 50}").notes.empty());
    CHECK(config("cohere", ", \"num_key_value_heads\": null").kv_heads == 16);  // None: the heads
    CHECK(config("cohere", ", \"head_dim\": 6").head_dim == 6);
    CHECK(error("cohere", ", \"head_dim\": null").find("\"head_dim\" is null") != std::string::npos);
    CHECK(error("cohere", ", \"head_dim\": 5").find("head_dim 5 is odd") != std::string::npos);
    CHECK(error("cohere", ", \"partial_rotary_factor\": 0.5").find("\"partial_rotary_factor\" other than 1 is not supported") !=
          std::string::npos);
    CHECK(error("cohere", ", \"num_key_value_heads\": 3").find("not a multiple of num_key_value_heads 3") != std::string::npos);
}

TEST_CASE("model config: olmo is OlmoConfig: its defaults, LayerNorm's eps 1e-5, clip_qkv") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig o = parse("{\"model_type\": \"olmo\"}");  // OLMo-7B
    CHECK(o.arch == attn::model::Architecture::olmo);
    CHECK(o.layers == 32);
    CHECK(o.hidden == 4096);
    CHECK(o.heads == 32);
    CHECK(o.kv_heads == 32);
    CHECK(o.head_dim == 128);
    CHECK(o.intermediate == 11008);
    CHECK(o.vocab == 50304);
    CHECK(o.norm_eps == 1e-5);
    CHECK(o.activation == attn::model::ModelConfig::Activation::silu);
    CHECK(o.rope.theta == 10000.0f);
    CHECK(o.clip_qkv == 0);
    CHECK_FALSE(o.qkv_bias);
    CHECK_FALSE(o.o_bias);
    CHECK_FALSE(o.parallel_residual);
    const attn::model::ModelConfig b = config("olmo", ", \"clip_qkv\": 8, \"attention_bias\": true, \"num_key_value_heads\": 4, "
                                                      "\"layer_norm_eps\": 0.1, \"rms_norm_eps\": 0.1");
    CHECK(b.clip_qkv == 8.0f);
    CHECK(b.qkv_bias);
    CHECK(b.o_bias);
    CHECK(b.kv_heads == 4);
    CHECK(b.norm_eps == 1e-5);  // OlmoLayerNorm's eps is fixed
    CHECK(config("olmo", ", \"clip_qkv\": null").clip_qkv == 0);
    CHECK(error("olmo", ", \"clip_qkv\": 0").find("\"clip_qkv\" is 0: expected a positive float32 number") != std::string::npos);
    // 0 in float32 (transformers would clamp q, k and v to ±0)
    CHECK(error("olmo", ", \"clip_qkv\": 1e-50").find("\"clip_qkv\" is 1e-50") != std::string::npos);
    CHECK(error("olmo", ", \"clip_qkv\": -1").find("\"clip_qkv\" is -1") != std::string::npos);
    CHECK(error("olmo", ", \"head_dim\": null").find("\"head_dim\" is null") != std::string::npos);
    CHECK(config("olmo", ", \"head_dim\": 6").head_dim == 6);
    CHECK(error("olmo", ", \"vocab_size\": 1").find("OlmoConfig's 1 is not an id of vocab_size 1") != std::string::npos);
    CHECK(error("olmo", ", \"num_key_value_heads\": 3").find("not a multiple of num_key_value_heads 3") != std::string::npos);
}

TEST_CASE("model config: persimmon is PersimmonConfig: its defaults, qk_layernorm, partial rotary dims, rope_theta") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig p = parse("{\"model_type\": \"persimmon\"}");  // persimmon-8b
    CHECK(p.arch == attn::model::Architecture::persimmon);
    CHECK(p.layers == 36);
    CHECK(p.hidden == 4096);
    CHECK(p.heads == 64);
    CHECK(p.kv_heads == 64);
    CHECK(p.head_dim == 64);
    CHECK(p.intermediate == 16384);
    CHECK(p.vocab == 262144);
    CHECK(p.norm_eps == 1e-5);
    CHECK(p.activation == attn::model::ModelConfig::Activation::relu2);
    CHECK(p.qk_norm);
    CHECK(p.rotary_dims == 32);  // int(64 * 0.5)
    CHECK(p.rope.theta == 25000.0f);
    CHECK(p.rope.style == attn::RopeStyle::half);
    CHECK(p.qkv_bias);
    CHECK(p.o_bias);
    CHECK_FALSE(p.parallel_residual);
    CHECK(p.max_positions == 0);  // RoPE: no limit
    const attn::model::ModelConfig q = parse("{\"model_type\": \"persimmon\", \"hidden_size\": 64, \"num_attention_heads\": 2, "
                                             "\"qk_layernorm\": false, \"partial_rotary_factor\": 0.25, \"rope_theta\": 100, "
                                             "\"hidden_act\": \"gelu\"}");
    CHECK_FALSE(q.qk_norm);
    CHECK(q.rotary_dims == 8);
    CHECK(q.rope.theta == 100.0f);
    CHECK(q.activation == attn::model::ModelConfig::Activation::gelu_erf);
    const auto fails = [&](const std::string& more) { return parse_error("{\"model_type\": \"persimmon\", \"hidden_size\": 64" + more + "}"); };
    CHECK(fails(", \"num_attention_heads\": 6").find("hidden_size 64 is not a multiple of num_attention_heads 6") != std::string::npos);
    CHECK(fails(", \"num_attention_heads\": 4, \"partial_rotary_factor\": 0.1").find("rotary dims of each head") !=
          std::string::npos);  // int(16 * 0.1) = 1
    CHECK(fails(", \"hidden_act\": null").find("\"hidden_act\" is null") != std::string::npos);
    // dynamic RoPE reads max_position_embeddings, which transformers keeps None
    CHECK(fails(", \"max_position_embeddings\": null, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}")
              .find("which is null") != std::string::npos);
    CHECK(parse("{\"model_type\": \"persimmon\", \"max_position_embeddings\": null}").rotary_dims == 32);
}

TEST_CASE("model config: codegen is CodeGenConfig: GPTJConfig's keys and defaults, heads in 4 chunks") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig g = parse("{\"model_type\": \"codegen\"}");  // CodeGenConfig's defaults: GPT-J-6B's shape
    CHECK(g.arch == attn::model::Architecture::codegen);
    CHECK(attn::model::takes_type_ids(g.arch));
    CHECK(g.layers == 28);
    CHECK(g.hidden == 4096);
    CHECK(g.heads == 16);
    CHECK(g.head_dim == 256);
    CHECK(g.intermediate == 16384);
    CHECK(g.vocab == 50400);
    CHECK(g.max_positions == 2048);
    CHECK(g.activation == attn::model::ModelConfig::Activation::gelu_tanh);  // gelu_new
    CHECK(g.rotary_dims == 64);
    CHECK(g.rope.style == attn::RopeStyle::interleaved);
    CHECK_FALSE(g.qkv_bias);
    CHECK(g.mlp_bias);
    // codegen-350M-mono: n_ctx beside n_positions (an attribute the model never uses)
    const attn::model::ModelConfig m = parse("{\"model_type\": \"codegen\", \"n_embd\": 1024, \"n_head\": 16, \"n_layer\": 20, "
                                             "\"n_ctx\": 2048, \"n_positions\": 2048, \"rotary_dim\": 32, \"vocab_size\": 51200}");
    CHECK(m.head_dim == 64);
    CHECK(m.rotary_dims == 32);
    CHECK(m.vocab == 51200);
    const auto fails = [&](const std::string& more) { return parse_error("{\"model_type\": \"codegen\"" + more + "}"); };
    CHECK(fails(", \"n_embd\": 60, \"n_head\": 6, \"rotary_dim\": 4").find("n_head 6 is not a multiple of 4") != std::string::npos);
    CHECK(fails(", \"n_embd\": 64, \"hidden_size\": 32").find("(the same field of CodeGenConfig) differ") != std::string::npos);
    CHECK(fails(", \"n_embd\": 60, \"n_head\": 8").find("n_embd 60 is not a multiple of n_head 8") != std::string::npos);
    // n_ctx // n_head is computed, though never used
    CHECK(fails(", \"n_ctx\": null").find("\"n_ctx\" is null") != std::string::npos);
    CHECK(fails(", \"n_ctx\": \"abc\"").find("\"n_ctx\"") != std::string::npos);
    CHECK(parse("{\"model_type\": \"codegen\", \"n_ctx\": -4}").heads == 16);
}

TEST_CASE("model config: gptj is GPTJConfig: its defaults and attribute_map, rotary_dim, n_positions a limit") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig g = parse("{\"model_type\": \"gptj\"}");  // GPT-J-6B
    CHECK(g.arch == attn::model::Architecture::gptj);
    CHECK(g.layers == 28);
    CHECK(g.hidden == 4096);
    CHECK(g.heads == 16);
    CHECK(g.kv_heads == 16);
    CHECK(g.head_dim == 256);
    CHECK(g.intermediate == 16384);  // n_inner null: 4 * n_embd
    CHECK(g.vocab == 50400);
    CHECK(g.max_positions == 2048);
    CHECK(g.positions_key == "n_positions");
    CHECK(g.norm_eps == 1e-5);
    CHECK(g.activation == attn::model::ModelConfig::Activation::gelu_tanh);  // gelu_new
    CHECK(g.rotary_dims == 64);
    CHECK(g.rope.theta == 10000.0f);
    CHECK(g.rope.style == attn::RopeStyle::interleaved);
    CHECK_FALSE(g.qkv_bias);
    CHECK_FALSE(g.o_bias);
    CHECK(g.mlp_bias);
    // the attribute_map's names, the same field given twice refused when they differ
    const attn::model::ModelConfig a = parse("{\"model_type\": \"gptj\", \"hidden_size\": 64, \"num_attention_heads\": 4, "
                                             "\"num_hidden_layers\": 1, \"max_position_embeddings\": 9, \"rotary_dim\": 16, "
                                             "\"n_inner\": 24}");
    CHECK(a.hidden == 64);
    CHECK(a.head_dim == 16);
    CHECK(a.layers == 1);
    CHECK(a.max_positions == 9);
    CHECK(a.positions_key == "max_position_embeddings");
    CHECK(a.intermediate == 24);
    CHECK(a.rotary_dims == 16);
    const auto fails = [&](const std::string& more) { return parse_error("{\"model_type\": \"gptj\", \"n_embd\": 64, \"n_head\": 4" + more + "}"); };
    CHECK(fails(", \"hidden_size\": 32").find("\"n_embd\" and \"hidden_size\" (the same field of GPTJConfig) differ") !=
          std::string::npos);
    CHECK(fails(", \"rotary_dim\": 18").find("\"rotary_dim\" 18: expected an even number of dims up to the head's 16") !=
          std::string::npos);
    CHECK(fails(", \"rotary_dim\": 5").find("\"rotary_dim\" 5") != std::string::npos);
    CHECK(fails(", \"rotary_dim\": null").find("\"rotary_dim\" is null: the RoPE table then turns n_embd 64 dims, more than a head's 16") !=
          std::string::npos);
    CHECK(parse("{\"model_type\": \"gptj\", \"n_embd\": 8, \"n_head\": 1, \"rotary_dim\": null}").rotary_dims == 8);
    CHECK(fails(", \"n_head\": 5").find("n_embd 64 is not a multiple of n_head 5") != std::string::npos);
    CHECK(fails(", \"rotary_dim\": 8, \"rope_scaling\": {\"type\": \"linear\", \"factor\": 2}") == "no error");
}

TEST_CASE("model config: falcon is FalconConfig: its defaults, the K/V groups of the fused projection, the layer's norms") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig f = parse("{\"model_type\": \"falcon\"}");  // falcon-7b
    CHECK(f.arch == attn::model::Architecture::falcon);
    CHECK(f.layers == 32);
    CHECK(f.hidden == 4544);
    CHECK(f.heads == 71);
    CHECK(f.kv_heads == 1);  // multi_query
    CHECK(f.head_dim == 64);
    CHECK(f.intermediate == 4 * 4544);
    CHECK(f.vocab == 65024);
    CHECK(f.norm_eps == 1e-5);
    CHECK(f.activation == attn::model::ModelConfig::Activation::gelu_erf);
    CHECK(f.rope.theta == 10000.0f);
    CHECK(f.parallel_residual);
    CHECK_FALSE(f.split_norms);
    CHECK_FALSE(f.qkv_bias);
    const std::string falcon = "{\"model_type\": \"falcon\", \"hidden_size\": 64, \"num_attention_heads\": 8";
    // falcon-40b: new_decoder_architecture, num_kv_heads groups, ln_attn and ln_mlp
    const attn::model::ModelConfig g = parse(falcon + ", \"new_decoder_architecture\": true, \"num_kv_heads\": 2}");
    CHECK(g.kv_heads == 2);
    CHECK(g.split_norms);
    CHECK(g.parallel_residual);
    CHECK(parse(falcon + ", \"new_decoder_architecture\": true}").kv_heads == 8);  // num_kv_heads null: the heads
    // Falcon 2: one norm
    const attn::model::ModelConfig one = parse(falcon + ", \"new_decoder_architecture\": true, \"num_ln_in_parallel_attn\": 1}");
    CHECK_FALSE(one.split_norms);
    CHECK(one.parallel_residual);
    // neither: one K/V head per query head, the MLP after the attention
    const attn::model::ModelConfig s = parse(falcon + ", \"multi_query\": false, \"parallel_attn\": false, \"bias\": true, "
                                                      "\"n_embed\": 32, \"ffn_hidden_size\": 48}");
    CHECK(s.kv_heads == 8);
    CHECK(s.hidden == 32);
    CHECK(s.head_dim == 4);
    CHECK(s.intermediate == 48);
    CHECK_FALSE(s.parallel_residual);
    CHECK(s.qkv_bias);
    CHECK(s.o_bias);
    CHECK(s.mlp_bias);
    // 4 · n_embed, as transformers v5 reads it, with a note (v4: 4 · hidden_size)
    const attn::model::ModelConfig e = parse(falcon + ", \"n_embed\": 32}");
    CHECK(e.intermediate == 128);
    REQUIRE(e.notes.size() == 1);
    CHECK(e.notes[0].find("(v4: 4 · hidden_size = 256)") != std::string::npos);
    CHECK(parse(falcon + ", \"n_embed\": 64}").notes.empty());
    const auto fails = [&](const std::string& more) { return parse_error(falcon + more + "}"); };
    CHECK(fails(", \"alibi\": true").find("\"alibi\": true is not supported") != std::string::npos);
    CHECK(fails(", \"new_decoder_architecture\": true, \"parallel_attn\": false").find("FalconDecoderLayer has no such layer") !=
          std::string::npos);
    CHECK(fails(", \"new_decoder_architecture\": true, \"num_kv_heads\": 3").find("not a multiple of num_kv_heads 3") !=
          std::string::npos);
    CHECK(fails(", \"multi_query\": false, \"num_kv_heads\": 2").find("num_kv_heads 2 differs from num_attention_heads 8") !=
          std::string::npos);
    CHECK(fails(", \"new_decoder_architecture\": true, \"num_ln_in_parallel_attn\": 1, \"parallel_attn\": false")
              .find("FalconDecoderLayer has no such layer") != std::string::npos);
    CHECK(fails(", \"num_ln_in_parallel_attn\": 2").find("FalconDecoderLayer has no such layer") != std::string::npos);
    CHECK(fails(", \"num_ln_in_parallel_attn\": 2, \"parallel_attn\": false") == "no error");
    CHECK(fails(", \"num_attention_heads\": 7").find("hidden_size 64 is not a multiple of num_attention_heads 7") !=
          std::string::npos);
    CHECK(fails(", \"n_head\": 4").find("\"n_head\" and \"num_attention_heads\" (the same field of FalconConfig) differ") !=
          std::string::npos);
    CHECK(fails(", \"partial_rotary_factor\": 0.5").find("not supported") != std::string::npos);
}

TEST_CASE("model config: opt is OPTConfig: its defaults, do_layer_norm_before, word_embed_proj_dim, enable_bias") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig o = parse("{\"model_type\": \"opt\"}");  // opt-125m
    CHECK(o.arch == attn::model::Architecture::opt);
    CHECK(o.layers == 12);
    CHECK(o.hidden == 768);
    CHECK(o.heads == 12);
    CHECK(o.head_dim == 64);
    CHECK(o.intermediate == 3072);
    CHECK(o.vocab == 50272);
    CHECK(o.max_positions == 2048);
    CHECK(o.embedding_size == 768);
    CHECK(o.norm_eps == 1e-5);
    CHECK(o.activation == attn::model::ModelConfig::Activation::relu);
    CHECK(o.norm_before);
    CHECK(o.final_norm);
    CHECK(o.norm_affine);
    CHECK(o.qkv_bias);
    CHECK(o.mlp_bias);
    // opt-350m: post-LN (no final norm), word_embed_proj_dim 512 of 1024
    const attn::model::ModelConfig m = config("opt", ", \"do_layer_norm_before\": false, \"word_embed_proj_dim\": 32, "
                                                     "\"enable_bias\": false, \"layer_norm_elementwise_affine\": false");
    CHECK_FALSE(m.norm_before);
    CHECK_FALSE(m.final_norm);
    CHECK(m.embedding_size == 32);
    CHECK_FALSE(m.qkv_bias);
    CHECK_FALSE(m.norm_affine);
    CHECK_FALSE(config("opt", ", \"_remove_final_layer_norm\": true").final_norm);
    CHECK(config("opt", ", \"word_embed_proj_dim\": null").embedding_size == 64);
    // null is None, which nn.Linear(bias=...) and nn.LayerNorm(elementwise_affine=...) take as false
    const attn::model::ModelConfig n = config("opt", ", \"enable_bias\": null, \"layer_norm_elementwise_affine\": null");
    CHECK_FALSE(n.qkv_bias);
    CHECK_FALSE(n.norm_affine);
    CHECK(error("opt", ", \"num_attention_heads\": 5").find("hidden_size 64 is not a multiple of num_attention_heads 5") !=
          std::string::npos);
    CHECK(error("opt", ", \"vocab_size\": 1").find("OPTConfig's 1 is not an id of vocab_size 1") != std::string::npos);
    CHECK(error("opt", ", \"activation_function\": null").find("\"activation_function\" is null") != std::string::npos);
}

TEST_CASE("model config: gpt_neo is GPTNeoConfig: its defaults, attention_types and attention_layers, window_size") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig g = parse("{\"model_type\": \"gpt_neo\"}");  // gpt-neo-1.3B
    CHECK(g.arch == attn::model::Architecture::gpt_neo);
    CHECK(g.layers == 24);
    CHECK(g.hidden == 2048);
    CHECK(g.heads == 16);
    CHECK(g.head_dim == 128);
    CHECK(g.intermediate == 8192);
    CHECK(g.vocab == 50257);
    CHECK(g.max_positions == 2048);
    CHECK(g.activation == attn::model::ModelConfig::Activation::gelu_tanh);
    CHECK(g.window_of(0) == 0);  // global
    CHECK(g.window_of(1) == 256);  // local
    CHECK(g.window_of(23) == 256);
    const std::string neo = "{\"model_type\": \"gpt_neo\", \"hidden_size\": 32, \"num_heads\": 4";
    const attn::model::ModelConfig l = parse(neo + ", \"num_layers\": 3, \"window_size\": 5, "
                                                   "\"attention_types\": [[[\"local\"], 2], [[\"global\"], 1]]}");
    CHECK(l.window_of(0) == 5);
    CHECK(l.window_of(1) == 5);
    CHECK(l.window_of(2) == 0);
    // config.json's attention_layers (the attribute transformers saves) wins
    const attn::model::ModelConfig a = parse(neo + ", \"num_layers\": 2, \"attention_types\": [[[\"local\"], 2]], "
                                                   "\"attention_layers\": [\"global\", \"local\"]}");
    CHECK(a.window_of(0) == 0);
    CHECK(a.window_of(1) == 256);
    const auto fails = [&](const std::string& more) { return parse_error(neo + more + "}"); };
    // a count of a million expands no further than the layers read
    CHECK(parse(neo + ", \"num_layers\": 2, \"attention_types\": [[[\"local\", \"global\"], 1000000]]}").window_of(0) == 256);
    // the expansion's first num_layers (v5; v4 refused another length); too few refused
    CHECK(parse(neo + ", \"num_layers\": 3}").window_of(1) == 256);
    CHECK(fails(", \"num_layers\": 25").find("\"attention_types\" expands to 24 layers, but num_layers is 25") != std::string::npos);
    CHECK(fails(", \"num_layers\": 25, \"attention_layers\": [" + std::string(24 * 9, ' ') + "]").find("attention_layers") !=
          std::string::npos);
    CHECK(fails(", \"num_layers\": 1, \"attention_types\": [[[\"sparse\"], 1]]").find("attention type \"sparse\"") !=
          std::string::npos);
    CHECK(fails(", \"num_layers\": 1, \"attention_types\": [[\"global\", 1]]").find("expected [[[") != std::string::npos);
    CHECK(fails(", \"num_layers\": 2, \"attention_types\": [[[\"global\"], 2]], \"attention_layers\": [\"global\"]")
              .find("\"attention_layers\": expected an array") != std::string::npos);
    CHECK(fails(", \"num_heads\": 5").find("hidden_size 32 is not a multiple of num_heads 5") != std::string::npos);
    CHECK(fails(", \"num_attention_heads\": 8").find("\"num_heads\" and \"num_attention_heads\" (the same field of "
                                                      "GPTNeoConfig) differ") != std::string::npos);
}

TEST_CASE("model config: mpt is MptConfig: its defaults and attribute_map, attn_config as MptModel runs it, notes") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig m = parse("{\"model_type\": \"mpt\"}");  // mpt-7b's shape, MptConfig's defaults
    CHECK(m.arch == attn::model::Architecture::mpt);
    CHECK(m.layers == 24);
    CHECK(m.hidden == 2048);
    CHECK(m.heads == 16);
    CHECK(m.head_dim == 128);
    CHECK(m.intermediate == 8192);
    CHECK(m.vocab == 50368);
    CHECK(m.max_positions == 2048);
    CHECK(m.positions_key == "max_seq_len");
    CHECK(m.norm_eps == 1e-5);
    CHECK(m.activation == attn::model::ModelConfig::Activation::gelu_erf);
    CHECK(m.attention_multiplier == 0);  // softmax_scale null: 1/sqrt(head_dim)
    CHECK(m.clip_qkv == 0);
    CHECK(m.notes.empty());
    const attn::model::ModelConfig a = parse("{\"model_type\": \"mpt\", \"hidden_size\": 64, \"num_attention_heads\": 4, "
                                             "\"num_hidden_layers\": 3, \"attn_config\": {\"softmax_scale\": -0.5, "
                                             "\"clip_qkv\": 8, \"attn_type\": \"multiquery_attention\"}}");
    CHECK(a.hidden == 64);
    CHECK(a.heads == 4);
    CHECK(a.layers == 3);
    CHECK(a.attention_multiplier == -0.5);
    CHECK(a.clip_qkv == 8.0f);
    CHECK(parse("{\"model_type\": \"mpt\", \"attn_config\": {\"clip_qkv\": 0, \"softmax_scale\": null}}").clip_qkv == 0);
    // `if self.clip_qkv:` false is none, true clamps to ±1
    CHECK(parse("{\"model_type\": \"mpt\", \"attn_config\": {\"clip_qkv\": false}}").clip_qkv == 0);
    CHECK(parse("{\"model_type\": \"mpt\", \"attn_config\": {\"clip_qkv\": true}}").clip_qkv == 1.0f);
    // what transformers does not run: noted, not refused
    const attn::model::ModelConfig n = parse("{\"model_type\": \"mpt\", \"expansion_ratio\": 2, \"attn_config\": "
                                             "{\"alibi\": false, \"qk_ln\": true, \"alibi_bias_max\": 16}}");
    CHECK(n.intermediate == 8192);
    REQUIRE(n.notes.size() == 4);  // (alibi null, no_bias false: the same notes)
    CHECK(n.notes[0].find("not expansion_ratio 2") != std::string::npos);
    CHECK(n.notes[1].find("\"alibi\" is not true") != std::string::npos);
    CHECK(n.notes[2].find("\"qk_ln\" is not applied") != std::string::npos);
    CHECK(n.notes[3].find("not 16") != std::string::npos);
    const auto fails = [&](const std::string& more) { return parse_error("{\"model_type\": \"mpt\"" + more + "}"); };
    CHECK(fails(", \"n_heads\": 6").find("d_model 2048 is not a multiple of n_heads 6") != std::string::npos);
    CHECK(fails(", \"d_model\": 64, \"hidden_size\": 32").find("(the same field of MptConfig) differ") != std::string::npos);
    CHECK(fails(", \"attn_config\": [1]").find("\"attn_config\": expected an object") != std::string::npos);
    CHECK(fails(", \"attn_config\": {\"attn_type\": \"grouped_query_attention\"}")
              .find("\"attn_config\": \"attn_type\" \"grouped_query_attention\": expected") != std::string::npos);
    CHECK(parse("{\"model_type\": \"mpt\", \"no_bias\": false, \"attn_config\": {\"alibi\": null}}").notes.size() == 2);
    CHECK(fails(", \"attn_config\": {\"attn_type\": null}").find("\"attn_config\": \"attn_type\" is null") != std::string::npos);
    CHECK(fails(", \"attn_config\": {\"softmax_scale\": 0}").find("\"softmax_scale\" is 0: expected") != std::string::npos);
    CHECK(fails(", \"attn_config\": {\"softmax_scale\": 1e-50}").find("\"softmax_scale\" is 1e-50") != std::string::npos);
    CHECK(fails(", \"attn_config\": {\"clip_qkv\": -1}").find("\"clip_qkv\" is -1: expected a positive") != std::string::npos);
    CHECK(fails(", \"attn_config\": {\"clip_qkv\": 1e-50}").find("\"clip_qkv\" is 1e-50") != std::string::npos);
    CHECK(fails(", \"max_seq_len\": null").find("\"max_seq_len\" is null") != std::string::npos);
}

TEST_CASE("model config: albert is AlbertConfig: its defaults, embedding_size, num_hidden_groups, inner_group_num") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig a = parse("{\"model_type\": \"albert\"}");  // albert-xxlarge
    CHECK(a.arch == attn::model::Architecture::albert);
    CHECK(attn::model::is_encoder(a.arch));
    CHECK(a.layers == 12);
    CHECK(a.hidden == 4096);
    CHECK(a.heads == 64);
    CHECK(a.head_dim == 64);
    CHECK(a.intermediate == 16384);
    CHECK(a.embedding_size == 128);
    CHECK(a.layer_groups == 1);
    CHECK(a.vocab == 30000);
    CHECK(a.max_positions == 512);
    CHECK(a.type_vocab == 2);
    CHECK(a.norm_eps == 1e-12);
    CHECK(a.activation == attn::model::ModelConfig::Activation::gelu_tanh);  // gelu_new
    CHECK(a.absolute_positions);
    CHECK(config("albert", ", \"num_hidden_groups\": 2").layer_groups == 2);
    CHECK(config("albert", ", \"num_hidden_groups\": 3").layer_groups == 3);  // (group 2 never reached, as there)
    CHECK(error("albert", ", \"inner_group_num\": 2").find("\"inner_group_num\" 2 is not supported") != std::string::npos);
    CHECK(error("albert", ", \"position_embedding_type\": \"relative_key\"").find("relative_key") != std::string::npos);
    CHECK_FALSE(config("albert", ", \"position_embedding_type\": null").absolute_positions);
    CHECK(error("albert", ", \"num_attention_heads\": 5").find("not a multiple of 5 heads") != std::string::npos);
}

TEST_CASE("model config: gpt_bigcode is GPTBigCodeConfig: its defaults and attribute_map, multi_query") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig g = parse("{\"model_type\": \"gpt_bigcode\"}");
    CHECK(g.arch == attn::model::Architecture::gpt_bigcode);
    CHECK(g.layers == 12);
    CHECK(g.hidden == 768);
    CHECK(g.heads == 12);
    CHECK(g.kv_heads == 1);  // multi_query
    CHECK(g.head_dim == 64);
    CHECK(g.intermediate == 3072);
    CHECK(g.vocab == 50257);
    CHECK(g.max_positions == 1024);
    CHECK(g.positions_key == "n_positions");
    CHECK(g.activation == attn::model::ModelConfig::Activation::gelu_tanh);
    CHECK(g.scale_attn_weights);
    const attn::model::ModelConfig m = parse("{\"model_type\": \"gpt_bigcode\", \"hidden_size\": 64, \"num_attention_heads\": 8, "
                                             "\"multi_query\": false, \"scale_attn_weights\": false, \"n_inner\": 24}");
    CHECK(m.kv_heads == 8);
    CHECK(m.hidden == 64);
    CHECK_FALSE(m.scale_attn_weights);
    CHECK(m.intermediate == 24);
    CHECK(error("gpt_bigcode", ", \"n_embd\": 32").find("\"n_embd\" and \"hidden_size\" (the same field of GPTBigCodeConfig) "
                                                       "differ") != std::string::npos);
    CHECK(error("gpt_bigcode", ", \"num_attention_heads\": 5").find("n_embd 64 is not a multiple of n_head 5") !=
          std::string::npos);
    CHECK(error("gpt_bigcode", ", \"add_cross_attention\": true").find("not supported") != std::string::npos);
}

TEST_CASE("model config: olmo3 is Olmo3Config: OLMo 2's layer, all but every fourth layer sliding") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig o = parse("{\"model_type\": \"olmo3\", \"num_hidden_layers\": 8}");
    CHECK(o.arch == attn::model::Architecture::llama);
    CHECK(o.post_norms);
    CHECK(o.qk_norm_whole);
    CHECK(o.hidden == 4096);
    CHECK(o.norm_eps == 1e-5);
    CHECK(o.window_of(0) == 4096);
    CHECK(o.window_of(2) == 4096);
    CHECK(o.window_of(3) == 0);  // every fourth: full
    CHECK(o.window_of(7) == 0);
    CHECK(config("olmo3", ", \"sliding_window\": 5, \"layer_types\": [\"full_attention\", \"sliding_attention\"]").window_of(0) == 0);
    CHECK(error("olmo3", ", \"sliding_window\": null").find("\"sliding_window\" is null, but layer 0 slides") != std::string::npos);
    CHECK(error("olmo3", ", \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2}").find("is not supported for olmo3") !=
          std::string::npos);
}

TEST_CASE("model config: smollm3 is SmolLM3Config: no_rope_layers, the window on the NoPE layers, rope_theta 2e6") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig s = parse("{\"model_type\": \"smollm3\"}");  // SmolLM3-3B
    CHECK(s.arch == attn::model::Architecture::llama);
    CHECK(s.layers == 36);
    CHECK(s.hidden == 2048);
    CHECK(s.heads == 16);
    CHECK(s.kv_heads == 4);
    CHECK(s.vocab == 128256);
    CHECK(s.norm_eps == 1e-6);
    CHECK(s.rope.theta == 2000000.0f);
    CHECK(s.has_rope(0));
    CHECK_FALSE(s.has_rope(3));  // every fourth: NoPE
    CHECK(s.has_rope(4));
    CHECK(s.window_of(3) == 0);  // no window without use_sliding_window
    const std::string four = ", \"num_hidden_layers\": 4, \"pad_token_id\": 0";
    const attn::model::ModelConfig w = config("smollm3", four + ", \"use_sliding_window\": true, \"sliding_window\": 8");
    CHECK(w.window_of(3) == 8);
    CHECK(w.window_of(0) == 0);
    const attn::model::ModelConfig n = config("smollm3", four + ", \"no_rope_layers\": [0, 1, 1, 1]");
    CHECK_FALSE(n.has_rope(0));
    CHECK(n.has_rope(3));
    CHECK(error("smollm3", four + ", \"no_rope_layers\": [0, 2, 1, 1]").find("expected an array of 0 or 1") != std::string::npos);
    CHECK(error("smollm3", four + ", \"no_rope_layers\": [0]").find("expected an array of 0 or 1") != std::string::npos);
    CHECK(error("smollm3", ", \"num_hidden_layers\": 4").find("SmolLM3Config's 128004 is not an id of vocab_size 50") !=
          std::string::npos);
    CHECK(config("smollm3", four + ", \"attention_bias\": true").o_bias);
}

TEST_CASE("model config: cohere2 is Cohere2Config: sliding layers by sliding_window_pattern, RoPE only on them") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig c = parse("{\"model_type\": \"cohere2\", \"num_hidden_layers\": 8}");
    CHECK(c.arch == attn::model::Architecture::cohere);
    CHECK(c.rope.style == attn::RopeStyle::interleaved);
    CHECK(c.rope.theta == 10000.0f);
    CHECK(c.notes.empty());
    CHECK(c.head_dim == 128);
    CHECK_FALSE(c.qk_norm);
    CHECK(c.window_of(0) == 4096);
    CHECK(c.has_rope(0));
    CHECK(c.window_of(3) == 0);  // every fourth: full, without RoPE
    CHECK_FALSE(c.has_rope(3));
    const attn::model::ModelConfig p = config("cohere2", ", \"sliding_window_pattern\": 2, \"head_dim\": 6, \"use_qk_norm\": true");
    CHECK(p.window_of(0) == 4096);
    CHECK(p.window_of(1) == 0);
    CHECK(p.head_dim == 4);  // Cohere2Config sets hidden_size // heads over config.json's
    CHECK_FALSE(p.qk_norm);  // (Cohere2Attention has no q_norm)
    const attn::model::ModelConfig t = config("cohere2", ", \"sliding_window\": 5, \"layer_types\": [\"full_attention\", "
                                                         "\"sliding_attention\"]");
    CHECK_FALSE(t.has_rope(0));
    CHECK(t.has_rope(1));
    CHECK(t.window_of(1) == 5);
    CHECK(error("cohere2", ", \"sliding_window\": null").find("\"sliding_window\" is null, but layer 0 slides") != std::string::npos);
}

TEST_CASE("model config: glm and glm4 are GlmConfig and Glm4Config: interleaved partial RoPE, fused gate_up, biases") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig g = parse("{\"model_type\": \"glm\"}");  // glm-4-9b
    CHECK(g.arch == attn::model::Architecture::llama);
    CHECK(g.layers == 40);
    CHECK(g.hidden == 4096);
    CHECK(g.heads == 32);
    CHECK(g.kv_heads == 2);
    CHECK(g.head_dim == 128);
    CHECK(g.intermediate == 13696);
    CHECK(g.vocab == 151552);
    CHECK(g.norm_eps == 1.5625e-7);
    CHECK(g.rope.theta == 10000.0f);
    CHECK(g.rope.style == attn::RopeStyle::interleaved);
    CHECK(g.rotary_dims == 64);  // int(128 * 0.5)
    CHECK(g.qkv_bias);
    CHECK_FALSE(g.o_bias);
    CHECK(g.fused_gate_up);
    CHECK_FALSE(g.fused_qkv);
    CHECK_FALSE(g.sandwich_norms);
    const attn::model::ModelConfig g4 = parse("{\"model_type\": \"glm4\", \"attention_bias\": null, \"partial_rotary_factor\": 1.0}");
    CHECK(g4.sandwich_norms);
    CHECK(g4.glm4_norm_names);
    CHECK_FALSE(g4.qkv_bias);
    CHECK(g4.rotary_dims == 128);
    CHECK(error("glm", ", \"num_key_value_heads\": 4, \"head_dim\": 4, \"partial_rotary_factor\": 0.25").find("1 rotary dims") !=
          std::string::npos);
    CHECK(error("glm", ", \"num_key_value_heads\": 4").find("GlmConfig's 151329 is not an id of vocab_size 50") != std::string::npos);
    CHECK(error("glm", ", \"num_key_value_heads\": null, \"pad_token_id\": 0").find("\"num_key_value_heads\" is null") !=
          std::string::npos);
}

TEST_CASE("model config: nemotron is NemotronConfig: LayerNorm1P, partial RoPE 0.5, relu2, head_dim or kv_channels") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig n = parse("{\"model_type\": \"nemotron\"}");
    CHECK(n.arch == attn::model::Architecture::nemotron);
    CHECK(n.layers == 32);
    CHECK(n.hidden == 6144);
    CHECK(n.heads == 48);
    CHECK(n.kv_heads == 48);
    CHECK(n.head_dim == 128);
    CHECK(n.intermediate == 24576);
    CHECK(n.vocab == 256000);
    CHECK(n.norm_eps == 1e-5);
    CHECK(n.activation == attn::model::ModelConfig::Activation::relu2);
    CHECK(n.unit_offset_norm);
    CHECK(n.rotary_dims == 64);
    CHECK_FALSE(n.qkv_bias);
    CHECK_FALSE(n.mlp_bias);
    CHECK(config("nemotron", ", \"kv_channels\": 8").head_dim == 8);
    CHECK(config("nemotron", ", \"head_dim\": 16, \"kv_channels\": 8").head_dim == 16);
    CHECK(config("nemotron", ", \"head_dim\": null").head_dim == 4);
    const attn::model::ModelConfig b = config("nemotron", ", \"attention_bias\": true, \"mlp_bias\": true, \"head_dim\": 8, "
                                                          "\"partial_rotary_factor\": 1.0");
    CHECK(b.qkv_bias);
    CHECK(b.o_bias);
    CHECK(b.mlp_bias);
    CHECK(b.rotary_dims == 8);
    CHECK(error("nemotron", "").find("\"partial_rotary_factor\" 0.5 gives int(4 * 0.5) = 2") == std::string::npos);
    CHECK(error("nemotron", ", \"partial_rotary_factor\": 0.25").find("gives int(4 * 0.25) = 1 rotary dims") != std::string::npos);
    CHECK(error("nemotron", ", \"norm_eps\": null").find("\"norm_eps\" is null") != std::string::npos);
}

TEST_CASE("model config: roberta and xlm-roberta are BERT's encoder with RobertaEmbeddings' pad_token_id") {
    // RobertaConfig's defaults are BertConfig's but vocab_size 50265 (XLMRobertaConfig: 30522);
    // pad_token_id 1
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig r = parse("{\"model_type\": \"roberta\"}");
    CHECK(r.arch == attn::model::Architecture::bert);
    CHECK(r.vocab == 50265);
    CHECK(r.max_positions == 512);
    CHECK(r.type_vocab == 2);
    CHECK(r.norm_eps == 1e-12);
    CHECK(r.padding_idx == std::optional<std::int64_t>(1));
    CHECK(parse("{\"model_type\": \"xlm-roberta\"}").vocab == 30522);
    CHECK_FALSE(parse("{\"model_type\": \"bert\"}").padding_idx);
    CHECK(config("roberta", ", \"pad_token_id\": 0").padding_idx == std::optional<std::int64_t>(0));
    // an index from the end for nn.Embedding, down to -min(vocab_size, max_position_embeddings)
    CHECK(config("roberta", ", \"pad_token_id\": -1").padding_idx == std::optional<std::int64_t>(-1));
    CHECK(config("roberta", ", \"pad_token_id\": -50").padding_idx == std::optional<std::int64_t>(-50));
    // None fails in create_position_ids_from_input_ids; nn.Embedding asserts padding_idx lies in
    // the word table (50 here) and the position table
    CHECK(error("roberta", ", \"pad_token_id\": null").find("\"pad_token_id\" is null") != std::string::npos);
    CHECK(error("roberta", ", \"pad_token_id\": -51").find("expected an integer id from -50 to 49") != std::string::npos);
    CHECK(error("roberta", ", \"pad_token_id\": 50").find("\"pad_token_id\" is 50") != std::string::npos);
    CHECK(error("xlm-roberta", ", \"pad_token_id\": 3, \"max_position_embeddings\": 3").find("from -3 to 2 (nn.Embedding's padding_idx in vocab_size 50 and max_position_embeddings 3)") !=
          std::string::npos);
    CHECK(error("roberta", ", \"pad_token_id\": \"1\"").find("\"pad_token_id\"") != std::string::npos);
    CHECK(error("roberta", ", \"position_embedding_type\": \"relative_key\"").find("is not supported") != std::string::npos);
    CHECK(error("roberta", ", \"is_decoder\": true").find("a RoBERTa decoder is not supported (attn runs RobertaModel's encoder)") !=
          std::string::npos);
    CHECK(error("xlm-roberta", ", \"add_cross_attention\": true").find("(attn runs XLMRobertaModel's encoder)") != std::string::npos);
    CHECK(error("bert", ", \"is_decoder\": true").find("a BERT decoder is not supported (attn runs BertModel's encoder)") !=
          std::string::npos);
}

TEST_CASE("model config: Gemma2Config: query_pre_attn_scalar, softcap 50, window 4096 on the even layers, (1 + w) norms") {
    // the helper's sizes: hidden 64, 2 layers, 16 heads; Gemma2Config's 4 K/V heads, head_dim 256
    const attn::model::ModelConfig g = config("gemma2", "");
    CHECK(g.kv_heads == 4);
    CHECK(g.head_dim == 256);
    CHECK(g.query_scalar == 256);
    CHECK(g.softcap == 50.0f);
    CHECK(g.window_of(0) == 4096);
    CHECK(g.window_of(1) == 0);
    CHECK(g.embed_scale);
    CHECK(g.unit_offset_norm);
    CHECK(g.sandwich_norms);
    CHECK_FALSE(g.qkv_bias);
    CHECK(g.activation == attn::model::ModelConfig::Activation::gelu_tanh);
    CHECK(g.rope.theta == 10000.0f);
    // Gemma2MLP reads hidden_activation, not hidden_act
    CHECK(config("gemma2", ", \"hidden_act\": \"silu\"").activation == attn::model::ModelConfig::Activation::gelu_tanh);
    CHECK(config("gemma2", ", \"hidden_activation\": \"silu\"").activation == attn::model::ModelConfig::Activation::silu);
    CHECK(error("gemma2", ", \"hidden_activation\": null").find("\"hidden_activation\" is null") != std::string::npos);
    CHECK(config("gemma2", ", \"attn_logit_softcapping\": null").softcap == 0.0f);
    CHECK(error("gemma2", ", \"attn_logit_softcapping\": -1").find("\"attn_logit_softcapping\" is -1") != std::string::npos);
    // 0 is no "none": transformers divides by it (from an audit)
    CHECK(error("gemma2", ", \"attn_logit_softcapping\": 0").find("\"attn_logit_softcapping\" is 0: expected a positive number") !=
          std::string::npos);
    // Gemma2Config.validate_architecture (head_dim is its own: 256 here)
    CHECK(error("gemma2", ", \"num_attention_heads\": 12, \"num_key_value_heads\": 4").find(
              "hidden_size 64 is not a multiple of num_attention_heads 12") != std::string::npos);
    CHECK(error("gemma2", ", \"query_pre_attn_scalar\": null").find("\"query_pre_attn_scalar\" is null") != std::string::npos);
    CHECK(error("gemma2", ", \"query_pre_attn_scalar\": 0").find("expected a positive number") != std::string::npos);
    CHECK(config("gemma2", ", \"query_pre_attn_scalar\": 144").query_scalar == 144);
    CHECK(error("gemma2", ", \"num_key_value_heads\": null").find("\"num_key_value_heads\" is null") != std::string::npos);
    // layer_types overrides the even-layer default; a sliding layer needs a window
    const attn::model::ModelConfig t =
        config("gemma2", ", \"sliding_window\": 5, \"layer_types\": [\"full_attention\", \"sliding_attention\"]");
    CHECK(t.window_of(0) == 0);
    CHECK(t.window_of(1) == 5);
    CHECK(error("gemma2", ", \"sliding_window\": null").find("\"sliding_window\" is null, but layer 0 slides") != std::string::npos);
    CHECK(config("gemma2", ", \"sliding_window\": null, \"layer_types\": [\"full_attention\", \"full_attention\"]")
              .window_of(0) == 0);
    CHECK(error("gemma2", ", \"sliding_window\": null, \"layer_types\": [\"full_attention\", \"sliding_attention\"]")
              .find("layer 1 is \"sliding_attention\" but there is no window") != std::string::npos);
    CHECK(config("gemma2", ", \"attention_bias\": true").o_bias);
    CHECK(error("gemma2", ", \"use_bidirectional_attention\": true").find("not supported") != std::string::npos);
}

TEST_CASE("model config: GemmaConfig: 16 K/V heads, head_dim 256, no softcap nor window, hidden_act") {
    const attn::model::ModelConfig g = config("gemma", "");
    CHECK(g.kv_heads == 16);
    CHECK(g.head_dim == 256);
    CHECK(g.query_scalar == 0);  // head_dim ** -0.5
    CHECK(g.softcap == 0.0f);
    CHECK(g.window_of(0) == 0);
    CHECK(g.embed_scale);
    CHECK(g.unit_offset_norm);
    CHECK_FALSE(g.sandwich_norms);
    CHECK(g.activation == attn::model::ModelConfig::Activation::gelu_tanh);
    CHECK(config("gemma", ", \"hidden_act\": \"gelu\", \"hidden_activation\": \"gelu_python\"").activation ==
          attn::model::ModelConfig::Activation::gelu_erf);  // the same function
    // transformers from v4.48 runs hidden_act; where older versions' hidden_activation (left out
    // or null: gelu_pytorch_tanh) differs, a note
    const attn::model::ModelConfig google = config("gemma", ", \"hidden_act\": \"gelu\", \"hidden_activation\": \"gelu_pytorch_tanh\"");
    CHECK(google.activation == attn::model::ModelConfig::Activation::gelu_erf);
    REQUIRE(google.notes.size() == 1);
    CHECK(google.notes[0].find("runs \"hidden_act\" \"gelu\", as transformers does from v4.48; versions before it ran "
                               "\"hidden_activation\" \"gelu_pytorch_tanh\"") != std::string::npos);
    for (const char* act : {"\"gelu\", \"hidden_activation\": null", "\"silu\""}) {
        const attn::model::ModelConfig n = config("gemma", std::string(", \"hidden_act\": ") + act);
        REQUIRE(n.notes.size() == 1);
        CHECK(n.notes[0].find("(its default: the key is left out or null)") != std::string::npos);
    }
    CHECK(config("gemma", "").notes.empty());
    CHECK(config("gemma", ", \"hidden_act\": \"gelu_new\"").activation == attn::model::ModelConfig::Activation::gelu_tanh);
    // the others are unchanged
    for (const char* type : {"llama", "qwen3"}) {
        const attn::model::ModelConfig l = config(type, ", \"num_key_value_heads\": 4");
        CHECK_FALSE(l.embed_scale);
        CHECK_FALSE(l.unit_offset_norm);
        CHECK(l.softcap == 0.0f);
    }
}

TEST_CASE("model config: integer keys written as integers; a literal out of range shown as written") {
    // transformers' range(2.0), nn.Linear(64, 16.0) and nn.Embedding's padding_idx 1.0 fail (from an audit)
    CHECK(error("qwen3", ", \"head_dim\": 16.0").find("\"head_dim\": json: expected an integer, found 16.0") != std::string::npos);
    CHECK(error("llama", ", \"num_hidden_layers\": 2.0").find("\"num_hidden_layers\": json: expected an integer, found 2.0") !=
          std::string::npos);
    CHECK(error("llama", ", \"num_attention_heads\": 1.6e1").find("found 1.6e1") != std::string::npos);
    CHECK(error("roberta", ", \"pad_token_id\": 1.0").find("\"pad_token_id\": json: expected an integer, found 1.0") !=
          std::string::npos);
    CHECK(config("qwen3", ", \"num_key_value_heads\": 4, \"head_dim\": 16").head_dim == 16);
    // RoPE's lengths transformers only computes with: 4096.0 works there
    CHECK(config("llama", ", \"max_position_embeddings\": 64.0, \"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2}")
              .rope.scaling.original_max_positions == 64.0f);
    CHECK(config("llama", ", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 1, "
                          "\"high_freq_factor\": 4, \"original_max_position_embeddings\": 8192.0}")
              .rope.scaling.original_max_positions == 8192.0f);
    CHECK(error("llama", ", \"max_position_embeddings\": 64.5").find("\"max_position_embeddings\": json: expected an integer, found 64.5") !=
          std::string::npos);
    // was: "expected an integer, found 9223372036854775808.000000"
    CHECK(error("mistral", ", \"sliding_window\": 9223372036854775807")
              .find("\"sliding_window\": json: 9223372036854775807 is out of range: expected an integer from -2^53 to 2^53") !=
          std::string::npos);
}

TEST_CASE("model config: layer_types of another length than the layers says so") {
    CHECK(error("gemma2", ", \"sliding_window\": 5, \"layer_types\": [\"full_attention\", \"sliding_attention\", \"full_attention\"]")
              .find("\"layer_types\" has 3 entries for 2 layers (num_hidden_layers)") != std::string::npos);
    CHECK(error("qwen3", ", \"num_key_value_heads\": 4, \"layer_types\": [\"full_attention\"]").find("\"layer_types\" has 1 entry for 2 layers") !=
          std::string::npos);
    CHECK(error("qwen3", ", \"num_key_value_heads\": 4, \"layer_types\": [\"full_attention\", \"all\"]").find("expected one of") != std::string::npos);
}

TEST_CASE("model config: RoPE's base and frequencies, Gemma 2's scale and softcap are usable float32 numbers") {
    // (from an audit) in transformers' float32 each of these gives NaN, or a scale of 0
    CHECK(error("gemma2", ", \"rope_theta\": 1e-300").find("\"rope_theta\" is 1e-300: outside float32's range") != std::string::npos);
    CHECK(error("llama", ", \"rope_theta\": 1e308").find("config.json: \"rope_theta\" is 1e+308: outside float32's range") !=
          std::string::npos);
    CHECK(error("llama", ", \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 1e-39}")
              .find("\"rope_parameters\": \"rope_theta\" is 1e-39: outside") != std::string::npos);
    CHECK(config("llama", ", \"rope_theta\": 1e38").rope.theta == 1e38f);
    // the frequencies the scaling gives are checked when the model runs (test_model.sh), named so
    CHECK(config("llama", ", \"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": 1e-39}").rope_scaling_text ==
          "config.json: \"rope_parameters\": linear factor 1e-39");
    // Gemma 2: the scale query_pre_attn_scalar ** -0.5 and the softcap, positive normal float32
    CHECK(error("gemma2", ", \"query_pre_attn_scalar\": 1e300")
              .find("\"query_pre_attn_scalar\" 1e+300 makes the scale 1e-150 (query_pre_attn_scalar ** -0.5), outside float32's range") !=
          std::string::npos);
    CHECK(error("gemma2", ", \"query_pre_attn_scalar\": 1e-300").find("makes the scale 1e+150") != std::string::npos);
    CHECK(config("gemma2", ", \"query_pre_attn_scalar\": 1e-30").query_scalar == 1e-30);
    CHECK(error("gemma2", ", \"attn_logit_softcapping\": 1e-300")
              .find("\"attn_logit_softcapping\" is 1e-300: outside float32's range") != std::string::npos);
    CHECK(error("gemma2", ", \"attn_logit_softcapping\": 1e39").find("outside float32's range") != std::string::npos);
}

TEST_CASE("model config: Gemma3TextConfig: q_norm, no softcap, five sliding layers to one full, the sliding layers' own RoPE") {
    // the helper's sizes: hidden 64, 2 layers, 16 heads; Gemma3TextConfig's 4 K/V heads, head_dim 256
    const std::string six = ", \"num_hidden_layers\": 7";
    const attn::model::ModelConfig g = config("gemma3_text", six);
    CHECK(g.kv_heads == 4);
    CHECK(g.head_dim == 256);
    CHECK(g.vocab == 50);
    CHECK(g.query_scalar == 256);
    CHECK(g.softcap == 0.0f);  // attn_logit_softcapping None
    CHECK(g.qk_norm);
    CHECK(g.sandwich_norms);
    CHECK(g.embed_scale);
    CHECK(g.unit_offset_norm);
    CHECK_FALSE(g.bidirectional);
    // sliding_window_pattern 6: layer l slides unless (l + 1) % 6 == 0
    for (std::size_t l = 0; l < 7; ++l) CHECK(g.window_of(l) == (l == 5 ? 0u : 4096u));
    // full layers: rope_theta 1e6 with rope_scaling; sliding ones: rope_local_base_freq 10000
    CHECK(g.rope.theta == 1e6f);
    CHECK(g.sliding_rope.theta == 10000.0f);
    CHECK(&g.rope_of(0) == &g.sliding_rope);
    CHECK(&g.rope_of(5) == &g.rope);
    const attn::model::ModelConfig v4 =
        config("gemma3_text", six + ", \"rope_theta\": 500, \"rope_local_base_freq\": 20, \"sliding_window_pattern\": 2, "
                                    "\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 8}, \"sliding_window\": 512");
    CHECK(v4.rope.theta == 500.0f);
    CHECK(v4.rope.scaling.kind == attn::RopeScalingKind::linear);
    CHECK(v4.rope.scaling.factor == 8.0f);
    CHECK(v4.sliding_rope.theta == 20.0f);
    CHECK(v4.sliding_rope.scaling.kind == attn::RopeScalingKind::none);
    CHECK(v4.window_of(0) == 512);
    CHECK(v4.window_of(1) == 0);
    CHECK(&v4.rope_of(1) == &v4.rope);
    // transformers v5: rope_parameters per layer type; a rope_scaling beside it updates the full one
    const attn::model::ModelConfig v5 = config(
        "gemma3_text", six + ", \"rope_parameters\": {\"full_attention\": {\"rope_type\": \"linear\", \"factor\": 4, "
                             "\"rope_theta\": 2000}, \"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": 50}}");
    CHECK(v5.rope.theta == 2000.0f);
    CHECK(v5.rope.scaling.factor == 4.0f);
    CHECK(v5.sliding_rope.theta == 50.0f);
    const attn::model::ModelConfig both = config(
        "gemma3_text", six + ", \"rope_theta\": 300, \"rope_parameters\": {\"full_attention\": {\"rope_type\": \"linear\", "
                             "\"factor\": 4}}, \"rope_scaling\": {\"factor\": 2}");
    CHECK(both.rope.theta == 300.0f);  // the top level's, as v5's setdefault
    CHECK(both.rope.scaling.factor == 2.0f);
    CHECK(both.sliding_rope.theta == 10000.0f);
    CHECK(error("gemma3_text", ", \"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": 4}")
              .find("\"rope_parameters\": \"rope_type\": expected only \"full_attention\" and \"sliding_attention\"") !=
          std::string::npos);
    CHECK(error("gemma3_text", ", \"rope_parameters\": {\"sliding_attention\": {\"rope_type\": \"ntk\", \"factor\": 2}}")
              .find("config.json: \"rope_parameters\": \"sliding_attention\": rope type \"ntk\" is not supported") !=
          std::string::npos);
    CHECK(error("gemma3_text", ", \"rope_local_base_freq\": null").find("\"rope_local_base_freq\" is null") != std::string::npos);
    CHECK(error("gemma3_text", ", \"rope_local_base_freq\": 0").find("\"rope_local_base_freq\" is 0: expected a positive number") !=
          std::string::npos);
    CHECK(error("gemma3_text", ", \"sliding_window_pattern\": 0").find("\"sliding_window_pattern\" is 0") != std::string::npos);
    CHECK(error("gemma3_text", ", \"sliding_window\": null").find("\"sliding_window\" is null, but layer 0 slides") !=
          std::string::npos);
    // every sixth layer is full: with a null window, one layer is fine
    CHECK(config("gemma3_text", ", \"num_hidden_layers\": 1, \"sliding_window\": null, \"sliding_window_pattern\": 1")
              .window_of(0) == 0);
    // Gemma3Attention never passes attn_logit_softcapping to the attention: unread, with a note
    const attn::model::ModelConfig capped = config("gemma3_text", ", \"attn_logit_softcapping\": 30");
    CHECK(capped.softcap == 0.0f);
    REQUIRE(capped.notes.size() == 1);
    CHECK(capped.notes[0].find("\"attn_logit_softcapping\" is not applied") != std::string::npos);
    CHECK(config("gemma3_text", ", \"attn_logit_softcapping\": -1").softcap == 0.0f);
    // its head_dim is its own: hidden_size need not be a multiple of the heads
    CHECK(config("gemma3_text", ", \"num_attention_heads\": 3, \"num_key_value_heads\": 1, \"head_dim\": 8").heads == 3);
    // sliding_window_pattern is read only without layer_types (transformers 4.53 on)
    CHECK(config("gemma3_text", ", \"sliding_window_pattern\": null, \"layer_types\": [\"full_attention\", \"sliding_attention\"]")
              .window_of(1) == 4096);
    // a top-level original_max_position_embeddings is not Gemma 3's: yarn's original is
    // max_position_embeddings unless its object gives one
    const attn::model::ModelConfig yarn = config(
        "gemma3_text", ", \"original_max_position_embeddings\": 16, \"max_position_embeddings\": 64, "
                       "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4}");
    CHECK(yarn.rope.scaling.original_max_positions == 64.0f);
    // EmbeddingGemma: no causal rule; the window halved, sliding_window // 2 + 1, both ways
    const attn::model::ModelConfig e = config("gemma3_text", ", \"use_bidirectional_attention\": true, \"sliding_window\": 512");
    CHECK(e.bidirectional);
    CHECK(e.window_of(0) == 257);
    CHECK(error("gemma3_text", ", \"use_bidirectional_attention\": true, \"sliding_window\": null, \"layer_types\": "
                               "[\"full_attention\", \"full_attention\"]")
              .find("\"sliding_window\" is null, which \"use_bidirectional_attention\" halves") != std::string::npos);
}

TEST_CASE("model config: Gemma3Config's text_config is the language model's Gemma3TextConfig") {
    const auto parse = [](const std::string& json) { return attn::model::parse_model_config(json, "config.json"); };
    const attn::model::ModelConfig m = parse(
        "{\"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 2560, \"num_hidden_layers\": 34, "
        "\"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"linear\"}, \"sliding_window\": 1024}, "
        "\"vision_config\": {\"hidden_size\": 1152}}");
    CHECK(m.model_type == "gemma3");
    CHECK(m.hidden == 2560);
    CHECK(m.layers == 34);
    CHECK(m.heads == 8);
    CHECK(m.kv_heads == 4);
    CHECK(m.vocab == 262208);
    CHECK(m.window_of(0) == 1024);
    CHECK(m.window_of(5) == 0);
    CHECK(m.rope.scaling.factor == 8.0f);
    CHECK(m.sliding_rope.scaling.kind == attn::RopeScalingKind::none);
    CHECK(parse("{\"model_type\": \"gemma3\"}").hidden == 2304);  // no text_config: the defaults
    try {
        parse("{\"model_type\": \"gemma3\", \"text_config\": {\"num_attention_heads\": 3, \"num_key_value_heads\": 2}}");
        FAIL("no error");
    } catch (const attn::InputError& e) {
        CHECK(std::string(e.what()).find("config.json: \"text_config\": num_attention_heads 3 is not a multiple of num_key_value_heads 2") !=
              std::string::npos);
    }
    // Gemma3ForConditionalGeneration's model makes causal masks of its own: use_bidirectional_attention
    // only halves the window (Gemma3TextConfig's __post_init__)
    const attn::model::ModelConfig causal =
        parse("{\"model_type\": \"gemma3\", \"text_config\": {\"use_bidirectional_attention\": true, \"sliding_window\": 512}}");
    CHECK_FALSE(causal.bidirectional);
    CHECK(causal.window_of(0) == 257);
    CHECK_THROWS_AS(parse("{\"model_type\": \"gemma3\", \"text_config\": 5}"), attn::InputError);
}

TEST_CASE("model config: Phi3Config: fused projections, longrope (also su and yarn), partial_rotary_factor, sliding_window") {
    // the helper's sizes: hidden 64, 2 layers, 16 heads (head_dim 4), vocab 50: a pad_token_id below it
    const std::string PAD = ", \"pad_token_id\": 0";
    const attn::model::ModelConfig p = config("phi3", PAD + "");
    CHECK(p.fused_qkv);
    CHECK(p.fused_gate_up);
    CHECK(p.kv_heads == 16);
    CHECK(p.head_dim == 4);
    CHECK(p.rotary_dims == 4);
    CHECK(p.norm_eps == 1e-5);
    CHECK(p.window_of(0) == 0);
    CHECK(p.rope.theta == 10000.0f);
    CHECK(p.activation == attn::model::ModelConfig::Activation::silu);
    CHECK_FALSE(p.qkv_bias);
    CHECK(config("phi3", PAD + ", \"sliding_window\": 2047").window_of(1) == 2047);
    CHECK(config("phi3", PAD + ", \"partial_rotary_factor\": 0.5").rotary_dims == 2);
    // int(4 * 0.75) = 3: transformers turns 4 with frequencies over 3; attn refuses an odd count
    CHECK(error("phi3", PAD + ", \"partial_rotary_factor\": 0.75").find("gives int(4 * 0.75) = 3 rotary dims of each head") !=
          std::string::npos);
    // Phi3Config's pad_token_id is 32000 when absent: nn.Embedding refuses it for a smaller vocabulary
    CHECK(error("phi3", "").find("no \"pad_token_id\": Phi3Config's 32000 is not an id of vocab_size 50") != std::string::npos);
    CHECK(config("phi3", ", \"vocab_size\": 32064").vocab == 32064);
    CHECK(config("phi3", PAD + ", \"max_position_embeddings\": 16.0").rope.theta == 10000.0f);
    // v5: partial_rotary_factor inside rope_parameters
    CHECK(config("phi3", PAD + ", \"rope_parameters\": {\"rope_type\": \"default\", \"partial_rotary_factor\": 0.5}").rotary_dims == 2);
    // longrope: Phi3Config's original_max_position_embeddings (4096 by default) sets the factor,
    // max_position_embeddings over it, and the attention factor sqrt(1 + ln f / ln original)
    const std::string lists = "\"short_factor\": [1, 2], \"long_factor\": [3, 4]";
    for (const char* type : {"longrope", "su", "yarn"}) {
        CAPTURE(type);
        const attn::model::ModelConfig l = config(
            "phi3", PAD + ", \"max_position_embeddings\": 131072, \"rope_scaling\": {\"type\": \"" + type + "\", " + lists + "}");
        CHECK(l.rope.scaling.kind == attn::RopeScalingKind::longrope);
        CHECK(l.rope.scaling.original_max_positions == 4096.0f);
        CHECK(l.rope.scaling.factor == 32.0f);
        CHECK(l.rope.scaling.attention_factor == float(std::sqrt(1 + std::log(32.0) / std::log(4096.0))));
        CHECK(l.rope.scaling.ext_factors == std::vector<float>{1, 2});
        CHECK(l.rope.scaling.long_factor == std::vector<float>{3, 4});
    }
    CHECK(config("phi3", PAD + ", \"rope_scaling\": {\"type\": \"longrope\", \"attention_factor\": 1.5, " + lists + "}")
              .rope.scaling.attention_factor == 1.5f);
    // transformers v5: the object's factor before the ratio (Phi-3's original is the top level's)
    const attn::model::ModelConfig own = config(
        "phi3", PAD + ", \"max_position_embeddings\": 16, \"original_max_position_embeddings\": 4, \"rope_scaling\": "
                      "{\"type\": \"longrope\", \"factor\": 2, \"original_max_position_embeddings\": 8, " + lists + "}");
    CHECK(own.rope.scaling.factor == 2.0f);
    CHECK(own.rope.scaling.original_max_positions == 4.0f);
    CHECK(own.rope.scaling.attention_factor == float(std::sqrt(1 + std::log(2.0) / std::log(4.0))));
    CHECK(error("phi3", PAD + ", \"rope_scaling\": {\"type\": \"linear\", \"factor\": 2}").find("rope type \"linear\" is not Phi-3's") !=
          std::string::npos);
    CHECK(error("phi3", PAD + ", \"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [1, 2, 3], \"long_factor\": [3, 4]}")
              .find("longrope's \"short_factor\" has 3 numbers, expected 2: one per frequency of the 4 dims RoPE turns") !=
          std::string::npos);
    CHECK(error("phi3", PAD + ", \"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [1, 2]}").find("longrope needs \"long_factor\"") !=
          std::string::npos);
    CHECK(error("phi3", PAD + ", \"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [1, \"2\"], \"long_factor\": [3, 4]}")
              .find("\"short_factor\": expected positive numbers") != std::string::npos);
    CHECK(error("phi3", PAD + ", \"original_max_position_embeddings\": null").find("\"original_max_position_embeddings\" is null") !=
          std::string::npos);
    // Llama with longrope: no top-level original length: max_position_embeddings and the object's factor
    const attn::model::ModelConfig l = config(
        "llama", ", \"max_position_embeddings\": 5, \"rope_scaling\": {\"rope_type\": \"longrope\", \"factor\": 4, "
                 "\"short_factor\": [1, 1], \"long_factor\": [1, 2]}");
    CHECK(l.rope.scaling.original_max_positions == 5.0f);
    CHECK(l.rope.scaling.factor == 4.0f);
    CHECK(l.rope.scaling.attention_factor == float(std::sqrt(1 + std::log(4.0) / std::log(5.0))));
    CHECK(l.rotary_dims == 0);
    // v5: the object's original_max_position_embeddings, else the top level's, else max_position_embeddings
    const attn::model::ModelConfig o = config(
        "llama", ", \"max_position_embeddings\": 5, \"original_max_position_embeddings\": 3, \"rope_scaling\": "
                 "{\"rope_type\": \"longrope\", \"original_max_position_embeddings\": 2, \"short_factor\": [1, 1], \"long_factor\": [1, 2]}");
    CHECK(o.rope.scaling.original_max_positions == 2.0f);
    CHECK(o.rope.scaling.factor == 2.5f);  // no factor: max_position_embeddings over the original
    CHECK(config("llama", ", \"max_position_embeddings\": 5, \"original_max_position_embeddings\": 3, \"rope_scaling\": "
                          "{\"rope_type\": \"longrope\", \"short_factor\": [1, 1], \"long_factor\": [1, 2]}")
              .rope.scaling.original_max_positions == 3.0f);
    // the others keep refusing a partial rotation (LlamaModel's RoPE turns every dim)
    CHECK(error("llama", ", \"partial_rotary_factor\": 0.5").find("\"partial_rotary_factor\" other than 1 is not supported") !=
          std::string::npos);
}

TEST_CASE("model config: GPTNeoXConfig: rotary_pct and rotary_emb_base, parallel residual, biases") {
    // the helper's sizes: hidden 64, 2 layers, 16 heads (head_dim 4); rotary_pct 0.5 turns 2 dims
    const std::string half = ", \"rotary_pct\": 0.5";
    const attn::model::ModelConfig n = config("gpt_neox", half);
    CHECK(n.arch == attn::model::Architecture::gpt_neox);
    CHECK(n.head_dim == 4);
    CHECK(n.kv_heads == 16);
    CHECK(n.rotary_dims == 2);
    CHECK(n.rope.theta == 10000.0f);
    CHECK(n.parallel_residual);
    CHECK(n.qkv_bias);
    CHECK(n.o_bias);
    CHECK(n.norm_eps == 1e-5);
    CHECK(n.activation == attn::model::ModelConfig::Activation::gelu_erf);
    CHECK(n.window_of(0) == 0);
    // null is None: nn.Linear(bias=None) has no bias, `if self.use_parallel_residual:` is false
    const attn::model::ModelConfig nulls = config("gpt_neox", half + ", \"attention_bias\": null, \"use_parallel_residual\": null");
    CHECK_FALSE(nulls.qkv_bias);
    CHECK_FALSE(nulls.parallel_residual);
    // the default rotary_pct 0.25 of head_dim 4: int(1.0) = 1 dim, an odd count attn refuses
    CHECK(error("gpt_neox", "").find("\"rotary_pct\" 0.25 gives int(4 * 0.25) = 1 rotary dims") != std::string::npos);
    // top-level partial_rotary_factor and rope_theta are never read: v4's constructor overwrites
    // them from rotary_pct and rotary_emb_base (or their defaults), v5 sets them from those
    const attn::model::ModelConfig both = config(
        "gpt_neox", half + ", \"partial_rotary_factor\": 1.0, \"rotary_emb_base\": 500, \"rope_theta\": 20");
    CHECK(both.rotary_dims == 2);
    CHECK(both.rope.theta == 500.0f);
    const attn::model::ModelConfig top = config("gpt_neox", half + ", \"rope_theta\": 20");
    CHECK(top.rope.theta == 10000.0f);
    // v5: the RoPE object's members win over rotary_pct and rotary_emb_base
    const attn::model::ModelConfig v5 = config(
        "gpt_neox", half + ", \"rotary_emb_base\": 500, \"rope_parameters\": {\"rope_type\": \"default\", "
                           "\"rope_theta\": 20, \"partial_rotary_factor\": 1.0}");
    CHECK(v5.rotary_dims == 4);
    CHECK(v5.rope.theta == 20.0f);
    const attn::model::ModelConfig scaled = config(
        "gpt_neox", half + ", \"rotary_emb_base\": 500, \"rope_scaling\": {\"type\": \"linear\", \"factor\": 2}");
    CHECK(scaled.rope.theta == 500.0f);
    CHECK(scaled.rope.scaling.kind == attn::RopeScalingKind::linear);
    const attn::model::ModelConfig serial =
        config("gpt_neox", half + ", \"use_parallel_residual\": false, \"attention_bias\": false");
    CHECK_FALSE(serial.parallel_residual);
    CHECK_FALSE(serial.qkv_bias);
    CHECK(error("gpt_neox", half + ", \"num_attention_heads\": 12").find("hidden_size 64 is not a multiple of num_attention_heads 12") !=
          std::string::npos);
    CHECK(error("gpt_neox", ", \"rotary_pct\": null").find("\"rotary_pct\" is null") != std::string::npos);
}

// A config's layer count builds per-layer settings (windows, RoPE layers, dense MLP layers)
// before the weights are opened: 2^40 layers once took minutes and gigabytes in some classes
// (Gemma 2, Cohere 2, OLMo 3, SmolLM3, Qwen 2 with windows) before the weights said no. Every
// model type refuses more than 2^16 at once, under whichever key its class reads.
TEST_CASE("model config: more than 2^16 layers refused by every model type, under each class's key") {
    std::string types = attn::model::known_model_types();
    for (char& ch : types) ch = ch == ',' ? ' ' : ch;
    std::istringstream list(types);
    std::vector<std::string> not_refused;
    for (std::string type; list >> type;) {
        INFO("model_type " << type);
        // Gemma 3's wrapper reads its text model's layers from text_config
        const std::string nested = type == "gemma3" ? ", \"text_config\": {\"model_type\": \"gemma3_text\", " : ", ";
        const std::string close = type == "gemma3" ? "}" : "";
        bool refused = false;
        for (const char* key : {"num_hidden_layers", "n_layer", "num_layers", "n_layers"}) {
            const std::string e = error(type, nested + "\"" + key + "\": 1099511627776" + close);
            refused = refused || e.find("more layers than attn reads (65536)") != std::string::npos;
            if (e.find("more layers than attn reads") != std::string::npos) CHECK(e.find(key) != std::string::npos);
        }
        if (!refused) not_refused.push_back(type);
    }
    CHECK(not_refused == std::vector<std::string>{});
}

TEST_CASE("model config: model_type missing, or present but not a string, is named as such") {
    const auto message = parse_error;
    CHECK(message("{\"hidden_size\": 8}").starts_with("config.json: no \"model_type\" (attn runs bert, "));
    CHECK(message("{\"model_type\": 7}").starts_with("config.json: \"model_type\" is not a string (attn runs bert, "));
    CHECK(message("{\"model_type\": null}").starts_with("config.json: \"model_type\" is not a string (attn runs "));
}
