// config.json → ModelConfig, with transformers' defaults (BertConfig, GPT2Config, LlamaConfig,
// MistralConfig, Qwen2Config) and a clear error for every feature attn does not run.
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/model.hpp"
#include "read/json.hpp"

namespace attn::model {

const char* known_model_types() noexcept { return "bert, gpt2, llama, mistral, qwen2"; }

namespace {

struct Reader {
    const json::Value& v;
    const std::string& source;

    [[noreturn]] void fail(const std::string& m) const { throw InputError(source + ": " + m); }
    std::size_t count(const char* key) const {  // a required positive integer
        const json::Value* x = v.find(key);
        if (!x || x->is_null()) fail(std::string("missing \"") + key + "\"");
        std::int64_t n = 0;
        try {
            n = x->as_int();
        } catch (const InputError& e) {
            fail(std::string("\"") + key + "\": " + e.what());
        }
        if (n <= 0) fail(std::string("\"") + key + "\" is " + std::to_string(n) + ": expected a positive integer");
        return std::size_t(n);
    }
    std::size_t count_or(const char* key, std::size_t fallback) const {
        const json::Value* x = v.find(key);
        return !x || x->is_null() ? fallback : count(key);
    }
    double number_or(const char* key, double fallback) const {
        try {
            return v.number_or(key, fallback);
        } catch (const InputError& e) {
            fail(std::string("\"") + key + "\": " + e.what());
        }
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
    if (name == "gelu") return A::gelu_erf;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh") return A::gelu_tanh;
    if (name == "relu") return A::relu;
    if (name == "silu" || name == "swish") return A::silu;
    r.fail("activation \"" + name + "\" is not supported (attn runs gelu, gelu_new, gelu_pytorch_tanh, relu, silu)");
}

void bert(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::bert;
    c.layers = r.count("num_hidden_layers"), c.hidden = r.count("hidden_size");
    c.heads = r.count("num_attention_heads"), c.intermediate = r.count("intermediate_size");
    c.vocab = r.count("vocab_size"), c.max_positions = r.count_or("max_position_embeddings", 512);
    c.type_vocab = r.count_or("type_vocab_size", 2);
    c.norm_eps = r.number_or("layer_norm_eps", 1e-12);
    c.activation = activation(r, r.string_or("hidden_act", "gelu"));
    const std::string pos = r.string_or("position_embedding_type", "absolute");
    if (pos != "absolute") r.fail("position_embedding_type \"" + pos + "\" is not supported (attn runs \"absolute\")");
    if (r.bool_or("is_decoder", false)) r.fail("\"is_decoder\": a BERT decoder is not supported (attn runs BertModel's encoder)");
}

void gpt2(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::gpt2;
    c.layers = r.count("n_layer"), c.hidden = r.count("n_embd"), c.heads = r.count("n_head");
    c.intermediate = r.count_or("n_inner", 4 * c.hidden);
    c.vocab = r.count("vocab_size"), c.max_positions = r.count_or("n_positions", 1024);
    c.norm_eps = r.number_or("layer_norm_epsilon", 1e-5);
    c.activation = activation(r, r.string_or("activation_function", "gelu_new"));
    if (!r.bool_or("scale_attn_weights", true)) r.fail("\"scale_attn_weights\": false is not supported");
    if (r.bool_or("scale_attn_by_inverse_layer_idx", false))
        r.fail("\"scale_attn_by_inverse_layer_idx\": true is not supported");
    if (r.bool_or("add_cross_attention", false)) r.fail("\"add_cross_attention\": true is not supported");
}

// RoPE's scaling from `sr`, an object with "rope_type" (or "type") and its fields: config.json's
// "rope_scaling", or transformers v5's "rope_parameters" (`what`, for messages).
void rope_scaling(const Reader& sr, const std::string& what, ModelConfig& c) {
    std::string type = sr.string_or("rope_type", "");
    if (type.empty()) type = sr.string_or("type", "default");
    RopeScaling& out = c.rope.scaling;
    if (type == "default") return;
    const double factor = sr.number_or("factor", 1.0);
    if (!(factor >= 1.0) || !std::isfinite(factor)) sr.fail(what + ": factor " + std::to_string(factor) + ": expected a finite number >= 1");
    out.factor = float(factor);
    if (type == "linear") {
        out.kind = RopeScalingKind::linear;
    } else if (type == "llama3") {
        out.kind = RopeScalingKind::llama3;
        out.low_freq_factor = float(sr.number_or("low_freq_factor", 1.0));
        out.high_freq_factor = float(sr.number_or("high_freq_factor", 4.0));
        out.original_max_positions = float(sr.count("original_max_position_embeddings"));
        if (!(out.high_freq_factor > out.low_freq_factor) || !(out.low_freq_factor > 0))
            sr.fail(what + ": llama3 needs 0 < low_freq_factor < high_freq_factor");
    } else {
        sr.fail(what + ": rope type \"" + type + "\" is not supported (attn runs default, linear and llama3)");
    }
}

// RoPE's theta and scaling: transformers v5's "rope_parameters" ({"rope_type", "rope_theta",
// the scaling's fields}) when present, else "rope_theta" and "rope_scaling" (v4).
void rope(const Reader& r, ModelConfig& c) {
    const json::Value* params = r.v.find("rope_parameters");
    const bool v5 = params && !params->is_null();
    if (v5 && !params->is_object()) r.fail("\"rope_parameters\": expected an object or null");
    const Reader pr{v5 ? *params : r.v, r.source};
    if (v5)
        for (const json::Value& x : params->values())
            if (x.is_object())
                r.fail("\"rope_parameters\" per layer type is not supported (attn runs one RoPE for every layer)");
    const double theta = pr.number_or("rope_theta", v5 ? r.number_or("rope_theta", 10000.0) : 10000.0);
    if (!(theta > 0) || !std::isfinite(theta)) r.fail("\"rope_theta\": expected a positive number");
    c.rope.theta = float(theta);
    if (pr.number_or("partial_rotary_factor", 1.0) != 1.0 || r.number_or("partial_rotary_factor", 1.0) != 1.0)
        r.fail("\"partial_rotary_factor\" other than 1 is not supported");
    if (v5) return rope_scaling(pr, "\"rope_parameters\"", c);
    const json::Value* s = r.v.find("rope_scaling");
    if (!s || s->is_null()) return;
    if (!s->is_object()) r.fail("\"rope_scaling\": expected an object or null");
    rope_scaling(Reader{*s, r.source}, "\"rope_scaling\"", c);
}

void llama(const Reader& r, ModelConfig& c) {
    c.arch = Architecture::llama;
    c.layers = r.count("num_hidden_layers"), c.hidden = r.count("hidden_size");
    c.heads = r.count("num_attention_heads"), c.intermediate = r.count("intermediate_size");
    c.kv_heads = r.count_or("num_key_value_heads", c.heads);
    c.head_dim = r.count_or("head_dim", c.hidden / c.heads);
    c.vocab = r.count("vocab_size");
    c.norm_eps = r.number_or("rms_norm_eps", 1e-6);
    c.activation = activation(r, r.string_or("hidden_act", "silu"));
    rope(r, c);
    if (c.heads % c.kv_heads) r.fail("num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_key_value_heads " + std::to_string(c.kv_heads));
    if (c.model_type == "qwen2") {
        c.qkv_bias = true;
        if (r.bool_or("use_sliding_window", false)) r.fail("\"use_sliding_window\": true is not supported for qwen2");
    } else {
        c.qkv_bias = c.o_bias = r.bool_or("attention_bias", false);
        c.mlp_bias = r.bool_or("mlp_bias", false);
    }
    if (c.model_type == "mistral") c.sliding_window = r.count_or("sliding_window", 0);
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
        r.fail(std::string("no \"model_type\" (attn runs ") + known_model_types() + ")");
    c.model_type = type->as_string();
    if (c.model_type == "bert") bert(r, c);
    else if (c.model_type == "gpt2") gpt2(r, c);
    else if (c.model_type == "llama" || c.model_type == "mistral" || c.model_type == "qwen2") llama(r, c);
    else r.fail("model_type \"" + c.model_type + "\" is not supported (attn runs " + known_model_types() + ")");
    if (c.kv_heads == 0) c.kv_heads = c.heads;
    if (c.head_dim == 0) {
        if (c.hidden % c.heads)
            r.fail("hidden size " + std::to_string(c.hidden) + " is not a multiple of " + std::to_string(c.heads) + " heads");
        c.head_dim = c.hidden / c.heads;
    }
    return c;
}

}  // namespace attn::model
