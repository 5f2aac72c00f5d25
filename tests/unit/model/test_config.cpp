// config.json read as transformers' config classes read it: the defaults of a key left out are
// those of MistralConfig, Qwen2Config and LlamaConfig (transformers' configuration_*.py), and what
// their modules ignore stays ignored. Found by an audit against a float64 reference of the models.
#include <doctest/doctest.h>

#include <string>

#include "attn/error.hpp"
#include "attn/model.hpp"

namespace {

attn::model::ModelConfig config(const std::string& type, const std::string& more) {
    return attn::model::parse_model_config("{\"model_type\": \"" + type +
                                        "\", \"hidden_size\": 64, \"intermediate_size\": 96, \"num_hidden_layers\": 2, "
                                        "\"num_attention_heads\": 16, \"vocab_size\": 50" + more + "}",
                                    "config.json");
}

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
