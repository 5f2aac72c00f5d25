"""Tiny random Hugging Face checkpoints and their PyTorch reference outputs, for `attn model`
(tests/e2e/test_model.sh). Run from the repository root with Debian's python (torch 1.13, numpy):

    /usr/bin/python3 data/models/make_tiny.py            # the committed data/models/tiny/
    /usr/bin/python3 data/models/make_tiny.py --variants # only gpt2_variants, gpt2_unscaled, qwen2_window
    /usr/bin/python3 data/models/make_tiny.py --rope-variants  # llama_yarn(_v5), llama_dynamic, gpt2_token_types, qwen2_bin_shards
    /usr/bin/python3 data/models/make_tiny.py --qwen3    # only qwen3_bf16, qwen3_bias_window
    /usr/bin/python3 data/models/make_tiny.py --roberta  # only roberta
    /usr/bin/python3 data/models/make_tiny.py --float64  # only qwen3_f64
    /usr/bin/python3 data/models/make_tiny.py --gemma    # only gemma2, gemma2_bf16_types, gemma_bf16
    /usr/bin/python3 data/models/make_tiny.py --gemma3   # only gemma3_text, gemma3_v5_bf16, embeddinggemma, gemma3_multimodal
    /usr/bin/python3 data/models/make_tiny.py --phi3     # only phi3, phi3_su_bf16, llama_longrope
    /usr/bin/python3 data/models/make_tiny.py --llama-biases  # only llama_biases
    /usr/bin/python3 data/models/make_tiny.py --gpt-neox # only pythia_f16, gpt_neox_serial
    /usr/bin/python3 data/models/make_tiny.py --distilbert  # only distilbert, distilbert_aliased_f16
    /usr/bin/python3 data/models/make_tiny.py --bloom    # only bloom, bloom_post_ln_f16, bloom_tp_sliced
    /usr/bin/python3 data/models/make_tiny.py --olmo2    # only olmo2, olmo2_bias_bf16
    /usr/bin/python3 data/models/make_tiny.py --phi      # only phi, phi_qk_gqa_f16
    /usr/bin/python3 data/models/make_tiny.py --granite  # only granite, granite_bias_bf16
    /usr/bin/python3 data/models/make_tiny.py --mixtral  # only mixtral, mixtral_top1_bf16
    /usr/bin/python3 data/models/make_tiny.py --qwen-moe # only qwen2_moe, qwen3_moe_bf16
    /usr/bin/python3 data/models/make_tiny.py --electra  # only electra, electra_same_width_f16
    /usr/bin/python3 data/models/make_tiny.py --starcoder2  # only starcoder2, starcoder2_nobias_bf16, starcoder2_dynamic
    /usr/bin/python3 data/models/make_tiny.py --stablelm # only stablelm, stablelm_parallel_bf16
    /usr/bin/python3 data/models/make_tiny.py --cohere   # only cohere, cohere_f16
    /usr/bin/python3 data/models/make_tiny.py --olmo     # only olmo, olmo_head_dim_bf16
    /usr/bin/python3 data/models/make_tiny.py --gptj     # only gptj, gptj_full_rotary_f16
    /usr/bin/python3 data/models/make_tiny.py --falcon   # only falcon, falcon_grouped_bf16, falcon_serial_f16, falcon2
    /usr/bin/python3 data/models/make_tiny.py --opt      # only opt, opt_post_ln_f16, ../opt_project
    /usr/bin/python3 data/models/make_tiny.py --gpt-neo  # only gpt_neo, gpt_neo_local_f16
    /usr/bin/python3 data/models/make_tiny.py --mpt      # only mpt, mpt_clip_f16
    /usr/bin/python3 data/models/make_tiny.py --codegen  # only codegen, codegen_f16
    /usr/bin/python3 data/models/make_tiny.py --persimmon  # only persimmon, persimmon_bf16
    /usr/bin/python3 data/models/make_tiny.py --albert   # only albert, albert_groups_f16
    /usr/bin/python3 data/models/make_tiny.py --gpt-bigcode  # only gpt_bigcode, gpt_bigcode_mha_f16
    /usr/bin/python3 data/models/make_tiny.py --olmo3-smollm3  # only olmo3, smollm3_bf16, smollm3_nope
    /usr/bin/python3 data/models/make_tiny.py --cohere2  # only cohere2, cohere2_types_f16
    /usr/bin/python3 data/models/make_tiny.py --glm      # only glm, glm4_bf16
    /usr/bin/python3 data/models/make_tiny.py --nemotron # only nemotron, nemotron_bias_bf16
    /usr/bin/python3 data/models/make_tiny.py --bert-base /tmp/bert-base   # the timing checkpoint
    /usr/bin/python3 data/models/make_tiny.py --gpt2-small /tmp/gpt2-small                 # T=256
    /usr/bin/python3 data/models/make_tiny.py --llama-shaped /tmp/llama [--no-torch]  # bf16, T=512

Python `transformers` is not installed here: each architecture's forward is written below in
plain torch from transformers' modeling code (models/bert/modeling_bert.py BertModel and
models/electra/modeling_electra.py ElectraModel, models/gpt2/modeling_gpt2.py GPT2Model,
models/llama/modeling_llama.py LlamaModel with eager attention, modeling_rope_utils.py's default,
linear, llama3, dynamic, yarn and longrope frequencies, Mistral's sliding-window mask `kv_idx >
q_idx - sliding_window` of masking_utils.py, Qwen3's q_norm and k_norm of
models/qwen3/modeling_qwen3.py, Phi-3's fused projections and partial rotary dims of
models/phi3/modeling_phi3.py; models/gemma, gemma2 and gemma3's GemmaModel, Gemma2Model and
Gemma3TextModel; models/mixtral/modeling_mixtral.py MixtralModel; models/qwen2_moe and qwen3_moe's
Qwen2MoeModel and Qwen3MoeModel; models/olmo2/modular_olmo2.py Olmo2Model;
models/olmo3/modular_olmo3.py Olmo3Model; models/smollm3/modular_smollm3.py SmolLM3Model;
models/glm/modular_glm.py GlmModel; models/glm4/modular_glm4.py Glm4Model;
models/nemotron/modeling_nemotron.py NemotronModel;
models/starcoder2/modeling_starcoder2.py Starcoder2Model; models/stablelm/modeling_stablelm.py
StableLmModel; models/cohere/modeling_cohere.py CohereModel; models/cohere2/modular_cohere2.py Cohere2Model; models/olmo/modular_olmo.py OlmoModel;
models/gptj/modeling_gptj.py GPTJModel; models/falcon/modeling_falcon.py FalconModel;
models/opt/modeling_opt.py OPTModel; models/gpt_neo/modeling_gpt_neo.py GPTNeoModel;
models/mpt/modeling_mpt.py MptModel; models/codegen/modeling_codegen.py CodeGenModel;
models/persimmon/modeling_persimmon.py PersimmonModel;
models/albert/modeling_albert.py AlbertModel;
models/gpt_bigcode/modeling_gpt_bigcode.py GPTBigCodeModel; models/granite/modular_granite.py
GraniteModel; models/phi/modeling_phi.py PhiModel; models/gpt_neox/modeling_gpt_neox.py
GPTNeoXModel; models/distilbert/modeling_distilbert.py DistilBertModel;
models/bloom/modeling_bloom.py BloomModel), with the parameter names and
config.json keys of those classes. The weights are random (torch.manual_seed); the float16 and
bfloat16 variants store the weights rounded to that type and the reference runs in float32 on
exactly those rounded values (attn widens them exactly and computes in float32).

Each folder holds config.json, the weights (model.safetensors, or shards and
model.safetensors.index.json), ids.txt (one batch row per line), token_types.txt (bert), and
the expected attentions.npy (L, B, H, T, T) = torch.stack(outputs.attentions) and
hidden_states.npy (L+1, B, T, E) = torch.stack(outputs.hidden_states), float32 (llama also
attentions_layer1_head2.npy = outputs.attentions[1][:, 2]).
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tiny")

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64"}


def write_safetensors(path, tensors):
    """tensors: {name: torch tensor}; the reference writer's layout (u64 header length, JSON
    header padded with spaces to 8 bytes, data in header order, "format": "pt" metadata)."""
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, t in tensors.items():
        t = t.contiguous()
        raw = t.view(torch.int16).numpy().tobytes() if t.dtype in (torch.float16, torch.bfloat16) else t.numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def rnd(*shape, std=0.2):
    return torch.randn(*shape) * std


def ln_params(sd, name, E):
    sd[name + ".weight"] = 1.0 + rnd(E, std=0.1)
    sd[name + ".bias"] = rnd(E, std=0.1)


# ---- BertModel ---------------------------------------------------------------------------

def bert_state(c):
    E, F_, V = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    Ee = c.get("embedding_size", E)  # ElectraEmbeddings' width
    sd = {"embeddings.word_embeddings.weight": rnd(V, Ee, std=1.0),
          "embeddings.position_embeddings.weight": rnd(c["max_position_embeddings"], Ee, std=0.5),
          "embeddings.token_type_embeddings.weight": rnd(c["type_vocab_size"], Ee, std=0.5)}
    ln_params(sd, "embeddings.LayerNorm", Ee)
    if Ee != E:  # ElectraModel's embeddings_project
        sd["embeddings_project.weight"], sd["embeddings_project.bias"] = rnd(E, Ee, std=0.3), rnd(E, std=0.1)
    for l in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % l
        for n in ("query", "key", "value"):
            sd[p + "attention.self.%s.weight" % n] = rnd(E, E, std=0.4)
            sd[p + "attention.self.%s.bias" % n] = rnd(E, std=0.1)
        sd[p + "attention.output.dense.weight"] = rnd(E, E)
        sd[p + "attention.output.dense.bias"] = rnd(E, std=0.1)
        ln_params(sd, p + "attention.output.LayerNorm", E)
        sd[p + "intermediate.dense.weight"] = rnd(F_, E)
        sd[p + "intermediate.dense.bias"] = rnd(F_, std=0.1)
        sd[p + "output.dense.weight"] = rnd(E, F_)
        sd[p + "output.dense.bias"] = rnd(E, std=0.1)
        ln_params(sd, p + "output.LayerNorm", E)
    return sd


def bert_forward(sd, c, ids, types, positions=None):
    """BertModel; RobertaModel with the positions of roberta_positions (its encoder is BERT's:
    RobertaLayer and the rest are "Copied from transformers.models.bert.modeling_bert"); ElectraModel
    with its embeddings embedding_size wide and embeddings_project when that differs from hidden_size."""
    B, T = ids.shape
    E, H = c["hidden_size"], c["num_attention_heads"]
    d, eps = E // H, c["layer_norm_eps"]
    positions = torch.arange(T)[None] if positions is None else positions
    h = (sd["embeddings.word_embeddings.weight"][ids] + sd["embeddings.token_type_embeddings.weight"][types]
         + sd["embeddings.position_embeddings.weight"][positions])
    Ee = c.get("embedding_size", E)
    h = F.layer_norm(h, (Ee,), sd["embeddings.LayerNorm.weight"], sd["embeddings.LayerNorm.bias"], eps)
    if Ee != E:  # ElectraModel: hidden_states = self.embeddings_project(hidden_states), the encoder's input
        h = F.linear(h, sd["embeddings_project.weight"], sd["embeddings_project.bias"])
    hidden, atts = [h], []
    for l in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % l
        heads = lambda n: F.linear(h, sd[p + "attention.self.%s.weight" % n], sd[p + "attention.self.%s.bias" % n]).view(B, T, H, d).transpose(1, 2)
        q, k, v = heads("query"), heads("key"), heads("value")
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)
        probs = torch.softmax(scores, dim=-1)
        atts.append(probs)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(B, T, E)
        a = F.linear(ctx, sd[p + "attention.output.dense.weight"], sd[p + "attention.output.dense.bias"])
        a = F.layer_norm(a + h, (E,), sd[p + "attention.output.LayerNorm.weight"], sd[p + "attention.output.LayerNorm.bias"], eps)
        i = F.gelu(F.linear(a, sd[p + "intermediate.dense.weight"], sd[p + "intermediate.dense.bias"]))
        o = F.linear(i, sd[p + "output.dense.weight"], sd[p + "output.dense.bias"])
        h = F.layer_norm(o + a, (E,), sd[p + "output.LayerNorm.weight"], sd[p + "output.LayerNorm.bias"], eps)
        hidden.append(h)
    return torch.stack(atts), torch.stack(hidden)


# ---- GPT2Model -----------------------------------------------------------------------------

def gpt2_state(c):
    E, V = gpt2_key(c, "n_embd", "hidden_size"), c["vocab_size"]
    Fi = c.get("n_inner") or 4 * E
    sd = {"wte.weight": rnd(V, E, std=0.5), "wpe.weight": rnd(gpt2_key(c, "n_positions", "max_position_embeddings"), E, std=0.3)}
    for l in range(gpt2_key(c, "n_layer", "num_hidden_layers")):
        p = "h.%d." % l
        ln_params(sd, p + "ln_1", E)
        sd[p + "attn.c_attn.weight"] = rnd(E, 3 * E, std=0.4)  # Conv1D: in × out
        sd[p + "attn.c_attn.bias"] = rnd(3 * E, std=0.1)
        sd[p + "attn.c_proj.weight"] = rnd(E, E)
        sd[p + "attn.c_proj.bias"] = rnd(E, std=0.1)
        ln_params(sd, p + "ln_2", E)
        sd[p + "mlp.c_fc.weight"] = rnd(E, Fi)
        sd[p + "mlp.c_fc.bias"] = rnd(Fi, std=0.1)
        sd[p + "mlp.c_proj.weight"] = rnd(Fi, E)
        sd[p + "mlp.c_proj.bias"] = rnd(E, std=0.1)
    ln_params(sd, "ln_f", E)
    return sd


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


ACTIVATIONS = {"gelu_new": gelu_new, "quick_gelu": lambda x: x * torch.sigmoid(1.702 * x)}


def gpt2_key(c, key, alias):
    """GPT2Config's attribute_map: hidden_size for n_embd, and so on."""
    return c[key] if key in c else c[alias]


def gpt2_forward(sd, c, ids, types=None):
    B, T = ids.shape
    E, H, eps = gpt2_key(c, "n_embd", "hidden_size"), gpt2_key(c, "n_head", "num_attention_heads"), c["layer_norm_epsilon"]
    d = E // H
    act = ACTIVATIONS[c.get("activation_function", "gelu_new")]
    conv1d = lambda x, n: torch.addmm(sd[n + ".bias"], x.view(-1, x.size(-1)), sd[n + ".weight"]).view(*x.shape[:-1], -1)
    h = sd["wte.weight"][ids] + sd["wpe.weight"][torch.arange(T)][None]
    if types is not None:  # GPT2Model: hidden_states + self.wte(token_type_ids)
        h = h + sd["wte.weight"][types]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    hidden, atts = [], []
    for l in range(gpt2_key(c, "n_layer", "num_hidden_layers")):
        p = "h.%d." % l
        hidden.append(h)
        x = F.layer_norm(h, (E,), sd[p + "ln_1.weight"], sd[p + "ln_1.bias"], eps)
        q, k, v = conv1d(x, p + "attn.c_attn").split(E, dim=2)
        q, k, v = (t.view(B, T, H, d).transpose(1, 2) for t in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2))
        if c.get("scale_attn_weights", True):
            w = w / torch.full([], v.size(-1) ** 0.5)
        if c.get("scale_attn_by_inverse_layer_idx", False):
            w = w / float(l + 1)
        w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min))
        w = torch.softmax(w, dim=-1)
        atts.append(w)
        ctx = torch.matmul(w, v).transpose(1, 2).reshape(B, T, E)
        h = h + conv1d(ctx, p + "attn.c_proj")
        x = F.layer_norm(h, (E,), sd[p + "ln_2.weight"], sd[p + "ln_2.bias"], eps)
        h = h + conv1d(act(conv1d(x, p + "mlp.c_fc")), p + "mlp.c_proj")
    h = F.layer_norm(h, (E,), sd["ln_f.weight"], sd["ln_f.bias"], eps)
    hidden.append(h)
    return torch.stack(atts), torch.stack(hidden)


# ---- LlamaModel (and Mistral, Qwen2) ------------------------------------------------------

def llama_state(c, qkv_bias):
    E, V, Fi, H = c["hidden_size"], c["vocab_size"], c["intermediate_size"], c["num_attention_heads"]
    G = c.get("num_key_value_heads", H)
    d = c.get("head_dim", E // H)
    sd = {"embed_tokens.weight": rnd(V, E, std=1.0)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        if c["model_type"] not in ("olmo2", "olmo3"):  # Olmo2DecoderLayer: no input_layernorm
            sd[p + "input_layernorm.weight"] = 1.0 + rnd(E, std=0.1)
        for n, rows in (("q", H * d), ("k", G * d), ("v", G * d)):
            sd[p + "self_attn.%s_proj.weight" % n] = rnd(rows, E, std=0.4)
            if qkv_bias:
                sd[p + "self_attn.%s_proj.bias" % n] = rnd(rows, std=0.2)
        if c["model_type"] == "phi3":  # Phi3Attention's qkv_proj: the rows of q, k and v one after another
            sd[p + "self_attn.qkv_proj.weight"] = torch.cat([sd.pop(p + "self_attn.%s_proj.weight" % n) for n in "qkv"])
        sd[p + "self_attn.o_proj.weight"] = rnd(E, H * d)
        if c["model_type"] in ("llama", "olmo2", "olmo3", "granite", "smollm3") and c.get("attention_bias"):  # o_proj's too
            sd[p + "self_attn.o_proj.bias"] = rnd(E, std=0.2)
        if c["model_type"] in ("qwen3", "qwen3_moe"):  # Qwen3Attention: o_proj's bias with attention_bias; q_norm, k_norm
            if qkv_bias:
                sd[p + "self_attn.o_proj.bias"] = rnd(E, std=0.2)
            sd[p + "self_attn.q_norm.weight"] = 1.0 + rnd(d, std=0.3)
            sd[p + "self_attn.k_norm.weight"] = 1.0 + rnd(d, std=0.3)
        if c["model_type"] in ("olmo2", "olmo3"):  # Olmo2Attention: q_norm, k_norm over the whole projections
            sd[p + "self_attn.q_norm.weight"] = 1.0 + rnd(H * d, std=0.3)
            sd[p + "self_attn.k_norm.weight"] = 1.0 + rnd(G * d, std=0.3)
            sd[p + "post_feedforward_layernorm.weight"] = 1.0 + rnd(E, std=0.1)
        sd[p + "post_attention_layernorm.weight"] = 1.0 + rnd(E, std=0.1)
        if c["model_type"] == "glm4":  # Glm4DecoderLayer: a norm after the attention and after the MLP
            sd[p + "post_self_attn_layernorm.weight"] = 1.0 + rnd(E, std=0.1)
            sd[p + "post_mlp_layernorm.weight"] = 1.0 + rnd(E, std=0.1)
        sd[p + "mlp.gate_proj.weight"] = rnd(Fi, E)
        sd[p + "mlp.up_proj.weight"] = rnd(Fi, E)
        if c["model_type"] in ("phi3", "glm", "glm4"):  # Phi3MLP's (GlmMLP's) gate_up_proj: gate's rows, then up's
            sd[p + "mlp.gate_up_proj.weight"] = torch.cat([sd.pop(p + "mlp.gate_proj.weight"), sd.pop(p + "mlp.up_proj.weight")])
        sd[p + "mlp.down_proj.weight"] = rnd(E, Fi)
        if c.get("mlp_bias"):  # LlamaMLP: bias=config.mlp_bias on all three
            for n, rows in (("gate", Fi), ("up", Fi), ("down", E)):
                sd[p + "mlp.%s_proj.bias" % n] = rnd(rows, std=0.2)
        if c["model_type"] in ("qwen2_moe", "qwen3_moe") and qwen_moe_at(c, l):  # Qwen's sparse MoE block under mlp.
            for n in ("gate", "up", "down"):
                del sd[p + "mlp.%s_proj.weight" % n]
            Fm, X = c["moe_intermediate_size"], c["num_experts"]
            sd[p + "mlp.gate.weight"] = rnd(X, E, std=1.0)
            for e in range(X):
                q = p + "mlp.experts.%d." % e
                sd[q + "gate_proj.weight"], sd[q + "up_proj.weight"], sd[q + "down_proj.weight"] = rnd(Fm, E), rnd(Fm, E), rnd(E, Fm)
            if c["model_type"] == "qwen2_moe":  # the shared expert and its gate
                Fs = c["shared_expert_intermediate_size"]
                q = p + "mlp.shared_expert."
                sd[q + "gate_proj.weight"], sd[q + "up_proj.weight"], sd[q + "down_proj.weight"] = rnd(Fs, E), rnd(Fs, E), rnd(E, Fs)
                sd[p + "mlp.shared_expert_gate.weight"] = rnd(1, E, std=0.5)
        if c["model_type"] == "mixtral":  # MixtralSparseMoeBlock: the router and num_local_experts w1, w3, w2
            for n in ("gate", "up", "down"):
                del sd[p + "mlp.%s_proj.weight" % n]
            sd[p + "block_sparse_moe.gate.weight"] = rnd(c["num_local_experts"], E, std=1.0)
            for e in range(c["num_local_experts"]):
                q = p + "block_sparse_moe.experts.%d." % e
                sd[q + "w1.weight"], sd[q + "w3.weight"], sd[q + "w2.weight"] = rnd(Fi, E), rnd(Fi, E), rnd(E, Fi)
    sd["norm.weight"] = 1.0 + rnd(E, std=0.1)
    return sd


def rope_inv_freq(c, d, seq_len):
    """modeling_rope_utils.py: _compute_default_rope_parameters, linear, llama3, dynamic and yarn
    scaling (transformers v5: rope_scaling, else rope_parameters); the inverse frequencies and
    the attention factor cos and sin are multiplied by."""
    s = c.get("rope_scaling") or c.get("rope_parameters")
    base = (s or {}).get("rope_theta", c.get("rope_theta", 10000.0))
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    if not s:
        return inv_freq, 1.0
    kind = s.get("rope_type", s.get("type"))
    if kind in (None, "default"):  # v5's rope_parameters of plain RoPE
        return inv_freq, 1.0
    if kind == "linear":
        return inv_freq / s["factor"], 1.0
    if kind == "dynamic":
        # dynamic_rope_update: seq_len = max(position_ids) + 1, a tensor, at least
        # max_position_embeddings (torch.maximum), so that the new base is a float32 tensor
        max_pos, factor = c["max_position_embeddings"], s["factor"]
        seq_len = torch.maximum(torch.tensor(seq_len), torch.tensor(max_pos))
        base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (d / (d - 2))
        return 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d)), 1.0
    if kind == "yarn" and c["model_type"] != "phi3":
        return yarn_inv_freq(c, s, base, d)
    if kind in ("longrope", "su", "yarn"):  # Phi3Config: su and yarn are longrope
        return longrope_inv_freq(c, s, base, d, seq_len)
    assert kind == "llama3"
    factor, low, high, old = s["factor"], s["low_freq_factor"], s["high_freq_factor"], s["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    is_medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(is_medium, smoothed, inv_freq_llama), 1.0


def yarn_inv_freq(c, s, base, dim):
    """_compute_yarn_parameters (transformers v5)."""
    original = s.get("original_max_position_embeddings") or c["max_position_embeddings"]
    factor = s["factor"]  # required (transformers' _check_received_keys), null: the ratio
    if factor is None:
        factor = c["max_position_embeddings"] / original

    def get_mscale(scale, mscale=1):
        return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0
    attention_factor = s.get("attention_factor")
    mscale, mscale_all_dim = s.get("mscale"), s.get("mscale_all_dim")
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
        else:
            attention_factor = get_mscale(factor)
    beta_fast, beta_slow = s.get("beta_fast") or 32, s.get("beta_slow") or 1

    def find_correction_dim(num_rotations):
        return (dim * math.log(original / (num_rotations * 2 * math.pi))) / (2 * math.log(base))
    low, high = find_correction_dim(beta_fast), find_correction_dim(beta_slow)
    if s.get("truncate", True):  # null: falsy, as in transformers
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).float() / dim)
    extrapolation_factor = 1 - ramp
    inv_freq = (1.0 / (factor * pos_freqs)) * (1 - extrapolation_factor) + (1.0 / pos_freqs) * extrapolation_factor
    return inv_freq, attention_factor


def longrope_inv_freq(c, s, base, dim, seq_len):
    """transformers v5's _compute_longrope_parameters with longrope_frequency_update: long_factor
    for a sequence longer than the original length (the object's, else the top level's, else
    max_position_embeddings; Phi3Config's top-level one always, 4096 by default); the factor the
    object's, else max_position_embeddings over the original."""
    if c["model_type"] == "phi3":
        original = c.get("original_max_position_embeddings", 4096)
    else:
        original = (s.get("original_max_position_embeddings") or c.get("original_max_position_embeddings")
                    or c["max_position_embeddings"])
    factor = s.get("factor")
    if factor is None:
        factor = c.get("max_position_embeddings", 4096) / original
    attention_factor = s.get("attention_factor")
    if attention_factor is None:
        attention_factor = math.sqrt(1 + math.log(factor) / math.log(original)) if factor > 1.0 else 1.0
    ext = torch.tensor(s["long_factor"] if seq_len > original else s["short_factor"], dtype=torch.float32)
    shape = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
    return 1.0 / (ext * base ** shape), attention_factor


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rms_norm(x, w, eps):
    variance = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(variance + eps))


def mixtral_moe(sd, c, p, x):
    """MixtralSparseMoeBlock.forward (eval): softmax of the router logits in float32, topk, the top k
    divided by their sum, each expert's w2(silu(w1(x)) * w3(x)) on its tokens times their weights,
    index_add_ into zeros expert by expert."""
    B, T, E = x.shape
    flat = x.reshape(-1, E)
    logits = F.linear(flat, sd[p + "gate.weight"])
    weights = F.softmax(logits, dim=1, dtype=torch.float)
    weights, selected = torch.topk(weights, c["num_experts_per_tok"], dim=-1)
    weights /= weights.sum(dim=-1, keepdim=True)
    out = torch.zeros_like(flat)
    mask = F.one_hot(selected, num_classes=c["num_local_experts"]).permute(2, 1, 0)
    for e in range(c["num_local_experts"]):
        idx, top_x = torch.where(mask[e])
        q = p + "experts.%d." % e
        cur = flat[None, top_x].reshape(-1, E)
        y = F.linear(F.silu(F.linear(cur, sd[q + "w1.weight"])) * F.linear(cur, sd[q + "w3.weight"]), sd[q + "w2.weight"])
        out.index_add_(0, top_x, y * weights[top_x, idx, None])
    return out.reshape(B, T, E)


def qwen_moe_at(c, l):
    """Qwen2MoeDecoderLayer: the sparse block unless l is in mlp_only_layers or (l + 1) is no multiple
    of decoder_sparse_step."""
    return l not in c.get("mlp_only_layers", []) and c["num_experts"] > 0 and (l + 1) % c.get("decoder_sparse_step", 1) == 0


def qwen_moe(sd, c, p, x):
    """Qwen2MoeSparseMoeBlock / Qwen3MoeSparseMoeBlock.forward: softmax of the router logits in float32,
    topk, divided by their sum only with norm_topk_prob; the experts' gate/up/down on their tokens
    index_add_ed into zeros; Qwen2-MoE adds sigmoid(shared_expert_gate(x)) * shared_expert(x)."""
    B, T, E = x.shape
    flat = x.reshape(-1, E)
    weights = F.softmax(F.linear(flat, sd[p + "gate.weight"]), dim=1, dtype=torch.float)
    weights, selected = torch.topk(weights, c["num_experts_per_tok"], dim=-1)
    if c.get("norm_topk_prob", False):
        weights /= weights.sum(dim=-1, keepdim=True)
    out = torch.zeros_like(flat)
    mask = F.one_hot(selected, num_classes=c["num_experts"]).permute(2, 1, 0)
    mlp = lambda q, t: F.linear(F.silu(F.linear(t, sd[q + "gate_proj.weight"])) * F.linear(t, sd[q + "up_proj.weight"]),
                                sd[q + "down_proj.weight"])
    for e in range(c["num_experts"]):
        idx, top_x = torch.where(mask[e])
        cur = flat[None, top_x].reshape(-1, E)
        out.index_add_(0, top_x, mlp(p + "experts.%d." % e, cur) * weights[top_x, idx, None])
    if c["model_type"] == "qwen2_moe":
        out = out + torch.sigmoid(F.linear(flat, sd[p + "shared_expert_gate.weight"])) * mlp(p + "shared_expert.", flat)
    return out.reshape(B, T, E)


def smollm3_rope_layers(c):
    """SmolLM3Config: no_rope_layers, else a NoPE layer every no_rope_layer_interval layers (1: RoPE)."""
    n = c.get("no_rope_layer_interval", 4)
    return c.get("no_rope_layers") or [int((l + 1) % n != 0) for l in range(c["num_hidden_layers"])]


def layer_types(c):
    """Olmo3Config's and SmolLM3Config's layer_types when config.json gives none."""
    if c.get("layer_types"):
        return c["layer_types"]
    L = c["num_hidden_layers"]
    if c["model_type"] == "olmo3":  # all but every fourth slide
        return ["sliding_attention" if (l + 1) % 4 != 0 else "full_attention" for l in range(L)]
    rope = smollm3_rope_layers(c)  # SmolLM3: the NoPE layers slide with use_sliding_window
    slide = c.get("use_sliding_window") and c.get("sliding_window") is not None
    return ["sliding_attention" if slide and not rope[l] else "full_attention" for l in range(L)]


def llama_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["rms_norm_eps"]
    G = c.get("num_key_value_heads", H)
    d = c.get("head_dim", E // H)
    glm = c["model_type"] in ("glm", "glm4")
    rotary = int(d * c.get("partial_rotary_factor", 0.5 if glm else 1.0))  # Phi3, GLM: RoPE on the leading dims
    inv_freq, attention_scaling = rope_inv_freq(c, rotary, T)
    pos = torch.arange(T)[None]
    freqs = (inv_freq[None, :, None].float() @ pos[:, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None] * attention_scaling, emb.sin()[:, None] * attention_scaling
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    causal = j <= i

    def mask_of(layer):
        # Mistral: every layer slides; Qwen2: with use_sliding_window, the layers from
        # max_window_layers on (its default layer_types)
        W = c.get("sliding_window") if c["model_type"] in ("mistral", "phi3", "mixtral") else None
        if c["model_type"] in ("qwen2", "qwen3") and c.get("use_sliding_window") and layer >= c.get("max_window_layers", 28):
            W = c.get("sliding_window")
        if c["model_type"] in ("olmo3", "smollm3") and layer_types(c)[layer] == "sliding_attention":
            W = c.get("sliding_window", 4096 if c["model_type"] == "olmo3" else None)
        allowed = causal & (j > i - W) if W else causal
        return torch.where(allowed, 0.0, torch.finfo(torch.float32).min)
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    # GraniteModel: inputs_embeds * embedding_multiplier; GraniteAttention's scaling is
    # attention_multiplier; each residual adds the layer's output * residual_multiplier
    granite = c["model_type"] == "granite"
    scaling = c.get("attention_multiplier", 1.0) if granite else d ** -0.5
    residual_m = c.get("residual_multiplier", 1.0) if granite else 1.0
    h = sd["embed_tokens.weight"][ids]
    if granite:
        h = h * c.get("embedding_multiplier", 1.0)
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        hidden.append(h)
        olmo2 = c["model_type"] in ("olmo2", "olmo3")  # no norm before the attention and the MLP, the norms after
        x = h if olmo2 else rms_norm(h, sd[p + "input_layernorm.weight"], eps)
        if olmo2:  # Olmo2Attention: q_norm(q_proj(x)), k_norm(k_proj(x)) over all heads, then the views
            q = rms_norm(lin(x, p + "self_attn.q_proj"), sd[p + "self_attn.q_norm.weight"], eps).view(B, T, H, d)
            k = rms_norm(lin(x, p + "self_attn.k_proj"), sd[p + "self_attn.k_norm.weight"], eps).view(B, T, G, d)
            v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)
        elif c["model_type"] == "phi3":  # qkv[..., :H·d], the next G·d, the rest
            qkv = lin(x, p + "self_attn.qkv_proj")
            q, k, v = qkv[..., :H * d], qkv[..., H * d:(H + G) * d], qkv[..., (H + G) * d:]
            q, k, v = q.reshape(B, T, H, d), k.reshape(B, T, G, d), v.reshape(B, T, G, d).transpose(1, 2)
        else:
            q, k = lin(x, p + "self_attn.q_proj").view(B, T, H, d), lin(x, p + "self_attn.k_proj").view(B, T, G, d)
            v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)
        if c["model_type"] in ("qwen3", "qwen3_moe"):  # Qwen3RMSNorm over each head's head_dim, before RoPE
            q, k = rms_norm(q, sd[p + "self_attn.q_norm.weight"], eps), rms_norm(k, sd[p + "self_attn.k_norm.weight"], eps)
        q, k = q.transpose(1, 2), k.transpose(1, 2)

        def turn(x):  # Phi3's apply_rotary_pos_emb: the leading rotary dims turned, the rest passed
            if c["model_type"] == "smollm3" and not smollm3_rope_layers(c)[l]:  # SmolLM3Attention: `if self.use_rope`
                return x
            if glm:  # GLM's apply_rotary_pos_emb: cos[..., : dim // 2].repeat_interleave(2), pairs (2i, 2i + 1)
                cg = cos[..., : cos.shape[-1] // 2].repeat_interleave(2, dim=-1)
                sg = sin[..., : sin.shape[-1] // 2].repeat_interleave(2, dim=-1)
                r = x[..., :rotary]
                pairs = torch.stack((-r[..., 1::2], r[..., 0::2]), dim=-1).flatten(-2)
                return torch.cat([r * cg + pairs * sg, x[..., rotary:]], dim=-1)
            r = x[..., :rotary]
            return torch.cat([r * cos + rotate_half(r) * sin, x[..., rotary:]], dim=-1)
        q, k = turn(q), turn(k)
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)  # repeat_kv
        w = torch.matmul(q, k.transpose(2, 3)) * scaling + mask_of(l)
        w = torch.softmax(w, dim=-1, dtype=torch.float32)
        atts.append(w)
        ctx = torch.matmul(w, v).transpose(1, 2).reshape(B, T, H * d)
        if olmo2:
            h = h + rms_norm(lin(ctx, p + "self_attn.o_proj"), sd[p + "post_attention_layernorm.weight"], eps)
            mlp = lin(F.silu(lin(h, p + "mlp.gate_proj")) * lin(h, p + "mlp.up_proj"), p + "mlp.down_proj")
            h = h + rms_norm(mlp, sd[p + "post_feedforward_layernorm.weight"], eps)
            continue
        if c["model_type"] == "glm4":  # Glm4DecoderLayer: post_self_attn_layernorm on the attention's output
            h = h + rms_norm(lin(ctx, p + "self_attn.o_proj"), sd[p + "post_self_attn_layernorm.weight"], eps)
        else:
            h = h + lin(ctx, p + "self_attn.o_proj") * residual_m if granite else h + lin(ctx, p + "self_attn.o_proj")
        x = rms_norm(h, sd[p + "post_attention_layernorm.weight"], eps)
        if c["model_type"] in ("phi3", "glm", "glm4"):  # gate, up = gate_up_proj(x).chunk(2, dim=-1); up · act(gate)
            gate, up = lin(x, p + "mlp.gate_up_proj").chunk(2, dim=-1)
            mlp = lin(up * F.silu(gate), p + "mlp.down_proj")
            h = h + (rms_norm(mlp, sd[p + "post_mlp_layernorm.weight"], eps) if c["model_type"] == "glm4" else mlp)
        elif granite:
            h = h + lin(F.silu(lin(x, p + "mlp.gate_proj")) * lin(x, p + "mlp.up_proj"), p + "mlp.down_proj") * residual_m
        elif c["model_type"] == "mixtral":
            h = h + mixtral_moe(sd, c, p + "block_sparse_moe.", x)
        elif c["model_type"] in ("qwen2_moe", "qwen3_moe") and qwen_moe_at(c, l):
            h = h + qwen_moe(sd, c, p + "mlp.", x)
        else:
            h = h + lin(F.silu(lin(x, p + "mlp.gate_proj")) * lin(x, p + "mlp.up_proj"), p + "mlp.down_proj")
    h = rms_norm(h, sd["norm.weight"], eps)
    hidden.append(h)
    return torch.stack(atts), torch.stack(hidden)


# ---- GemmaModel and Gemma2Model ------------------------------------------------------------
# models/gemma/modeling_gemma.py and models/gemma2/modeling_gemma2.py (eager attention): the
# embeddings times torch.tensor(hidden_size ** 0.5) in their dtype, GemmaRMSNorm's
# x·rsqrt(mean(x²) + eps)·(1 + weight) in float32, GeGLU (gelu approximate='tanh'), head_dim its own;
# Gemma 2: scaling query_pre_attn_scalar ** -0.5, the scores / cap, tanh, · cap
# (attn_logit_softcapping) before the mask, sliding_window on the layers layer_types calls
# sliding_attention (default: the even ones), post_attention_layernorm on the attention's output
# before the residual, pre_ and post_feedforward_layernorm around the MLP.

def gemma_state(c):
    E, V, Fi, H, G, d = (c["hidden_size"], c["vocab_size"], c["intermediate_size"], c["num_attention_heads"],
                         c["num_key_value_heads"], c["head_dim"])
    norms = ["input_layernorm", "post_attention_layernorm"]
    if c["model_type"] != "gemma":
        norms += ["pre_feedforward_layernorm", "post_feedforward_layernorm"]
    sd = {"embed_tokens.weight": rnd(V, E, std=0.3)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        for n in norms:  # GemmaRMSNorm's weight starts at 0: the scale is 1 + weight
            sd[p + n + ".weight"] = rnd(E, std=0.3)
        for n, rows in (("q", H * d), ("k", G * d), ("v", G * d)):
            sd[p + "self_attn.%s_proj.weight" % n] = rnd(rows, E, std=0.4)
            if c.get("attention_bias"):
                sd[p + "self_attn.%s_proj.bias" % n] = rnd(rows, std=0.2)
        sd[p + "self_attn.o_proj.weight"] = rnd(E, H * d)
        if c.get("attention_bias"):
            sd[p + "self_attn.o_proj.bias"] = rnd(E, std=0.2)
        if c["model_type"] == "gemma3_text":  # Gemma3RMSNorm over head_dim: 1 + weight
            sd[p + "self_attn.q_norm.weight"] = rnd(d, std=0.3)
            sd[p + "self_attn.k_norm.weight"] = rnd(d, std=0.3)
        sd[p + "mlp.gate_proj.weight"] = rnd(Fi, E)
        sd[p + "mlp.up_proj.weight"] = rnd(Fi, E)
        sd[p + "mlp.down_proj.weight"] = rnd(E, Fi)
    sd["norm.weight"] = rnd(E, std=0.3)
    return sd


def gemma3_ropes(c):
    """Gemma3TextConfig's RoPE per layer type, as rope_inv_freq's configs: v4's rope_theta (1e6)
    with rope_scaling for the full layers and rope_local_base_freq (1e4) unscaled for the sliding
    ones; v5's rope_parameters per layer type (full_attention updated by rope_scaling), each
    object's rope_theta else those keys'."""
    params = c.get("rope_parameters") or {}
    full = dict(params.get("full_attention") or {})
    full.update(c.get("rope_scaling") or {})
    sliding = dict(params.get("sliding_attention") or {})
    out = {}
    for kind, p, key, base in (("full_attention", full, "rope_theta", 1e6),
                               ("sliding_attention", sliding, "rope_local_base_freq", 1e4)):
        theta = p.get("rope_theta", c.get(key, base))
        scaled = p.get("rope_type", p.get("type", "default")) != "default"
        out[kind] = {"model_type": c["model_type"], "rope_theta": theta,
                     "max_position_embeddings": c.get("max_position_embeddings", 131072),
                     "rope_scaling": dict(p, rope_theta=theta) if scaled else None}
    return out


def gemma_forward(sd, c, ids):
    B, T = ids.shape
    E, H, G, d, eps = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], c["rms_norm_eps"]
    v3 = c["model_type"] == "gemma3_text"
    v2 = c["model_type"] == "gemma2" or v3

    def cos_sin(rc):
        inv_freq, attention_scaling = rope_inv_freq(rc, d, T)
        freqs = (inv_freq[None, :, None] @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos()[:, None] * attention_scaling, emb.sin()[:, None] * attention_scaling
    if v3:
        ropes = {kind: cos_sin(rc) for kind, rc in gemma3_ropes(c).items()}
    else:
        ropes = {kind: cos_sin({"rope_theta": c["rope_theta"]}) for kind in ("full_attention", "sliding_attention")}
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    pattern = c.get("sliding_window_pattern", 6) if v3 else 2
    types = c.get("layer_types") or ["sliding_attention" if (l + 1) % pattern else "full_attention"
                                     for l in range(c["num_hidden_layers"])]
    scaling = c.get("query_pre_attn_scalar", 256) ** -0.5 if v2 else d ** -0.5
    # (Gemma3Attention never passes attn_logit_softcapping on: no cap)
    cap = c.get("attn_logit_softcapping", 50.0) if v2 and not v3 else None
    bidirectional = v3 and c.get("use_bidirectional_attention")
    window = c.get("sliding_window")
    if bidirectional:  # Gemma3TextConfig: sliding_window // 2 + 1, then |q_idx - kv_idx| < it
        window = window // 2 + 1

    def norm(x, name):  # GemmaRMSNorm
        out = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
        return out * (1.0 + sd[name + ".weight"].float())
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    h = sd["embed_tokens.weight"][ids]
    h = h * torch.tensor(E ** 0.5, dtype=h.dtype)
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        hidden.append(h)
        sliding = v2 and types[l] == "sliding_attention"
        if bidirectional:  # EmbeddingGemma: or_mask_function True (full), the window both ways (sliding)
            allowed = (i - j).abs() < window if sliding else torch.ones(T, T, dtype=torch.bool)
        else:
            allowed = j <= i
            if sliding:  # the tril(diagonal=-sliding_window) cells masked
                allowed = allowed & (j > i - window)
        mask = torch.where(allowed, 0.0, torch.finfo(torch.float32).min)
        x = norm(h, p + "input_layernorm")
        q = lin(x, p + "self_attn.q_proj").view(B, T, H, d)
        k = lin(x, p + "self_attn.k_proj").view(B, T, G, d)
        if v3:  # Gemma3Attention: q_norm and k_norm over each head's head_dim, before RoPE
            q, k = norm(q, p + "self_attn.q_norm"), norm(k, p + "self_attn.k_norm")
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)
        cos, sin = ropes[types[l]]
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)  # repeat_kv
        w = torch.matmul(q, k.transpose(2, 3)) * scaling
        if cap is not None:
            w = torch.tanh(w / cap) * cap
        w = torch.softmax(w + mask, dim=-1, dtype=torch.float32)
        atts.append(w)
        o = lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, H * d), p + "self_attn.o_proj")
        if v2:
            o = norm(o, p + "post_attention_layernorm")
        h = h + o
        x = norm(h, p + ("pre_feedforward_layernorm" if v2 else "post_attention_layernorm"))
        m = lin(F.gelu(lin(x, p + "mlp.gate_proj"), approximate="tanh") * lin(x, p + "mlp.up_proj"), p + "mlp.down_proj")
        if v2:
            m = norm(m, p + "post_feedforward_layernorm")
        h = h + m
    hidden.append(norm(h, "norm"))
    return torch.stack(atts), torch.stack(hidden)


# Gemma 2 (--gemma: torch.manual_seed(6)): 3 layers (0 and 2 slide by Gemma2Config's default), window 3
# of 7 tokens, softcap 2 (the scores reach it), query_pre_attn_scalar 24 != head_dim 16 != hidden /
# heads; float32. Then bfloat16 with layer_types (the second layer slides), no softcap (null) and
# attention_bias. Gemma (v1): one K/V head, head_dim 16, bfloat16.
GEMMA2 = {"model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
          "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
          "intermediate_size": 64, "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
          "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "max_position_embeddings": 64, "attention_bias": False,
          "query_pre_attn_scalar": 24, "sliding_window": 3, "attn_logit_softcapping": 2.0,
          "final_logit_softcapping": 30.0}
GEMMA2_TYPES = dict(GEMMA2, num_hidden_layers=2, layer_types=["full_attention", "sliding_attention"],
                    attn_logit_softcapping=None, attention_bias=True, rope_theta=500.0)
GEMMA = {"model_type": "gemma", "architectures": ["GemmaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
         "intermediate_size": 64, "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
         "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "max_position_embeddings": 64, "attention_bias": False}


def gemma():
    torch.manual_seed(6)
    for name, c, dtype in (("gemma2", GEMMA2, torch.float32), ("gemma2_bf16_types", GEMMA2_TYPES, torch.bfloat16),
                           ("gemma_bf16", GEMMA, torch.bfloat16)):
        save(name, c, gemma_state(c), lambda sd, c=c: gemma_forward(sd, c, IDS), dtype, prefix="model.")


# Gemma 3 (--gemma3: torch.manual_seed(7)), models/gemma3/modeling_gemma3.py: Gemma2's layer with
# q_norm and k_norm, the sliding layers' own RoPE. gemma3_text: 4 layers, sliding_window_pattern 2
# (layers 0 and 2 slide, window 3), full layers' rope_theta 500 with linear scaling 2, sliding
# layers' rope_local_base_freq 20, no softcap, float32. gemma3_v5_bf16: v5's rope_parameters per
# layer type (full: linear 4 of theta 2000; sliding: theta 50), layer_types, attention_bias, an
# attn_logit_softcapping of 3 that Gemma3Attention never applies, bfloat16. gemma3_multimodal:
# Gemma3Config (model_type gemma3) with the text model in "text_config", 6 layers by the default
# pattern (layer 5 full), weights named "language_model.model." beside a vision tower's. embeddinggemma: use_bidirectional_attention
# (full layers see every key, sliding ones |i - j| < 5 // 2 + 1).
GEMMA3 = {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
          "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
          "intermediate_size": 64, "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
          "rope_theta": 500.0, "rope_local_base_freq": 20.0, "rope_scaling": {"rope_type": "linear", "factor": 2.0},
          "max_position_embeddings": 64, "query_pre_attn_scalar": 24, "sliding_window": 3,
          "sliding_window_pattern": 2, "final_logit_softcapping": None}
GEMMA3_V5 = {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
             "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 8,
             "intermediate_size": 48, "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
             "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 2000.0},
                                 "sliding_attention": {"rope_type": "default", "rope_theta": 50.0}},
             "max_position_embeddings": 64, "query_pre_attn_scalar": 8, "sliding_window": 2,
             "layer_types": ["sliding_attention", "full_attention", "sliding_attention"], "attention_bias": True,
             "attn_logit_softcapping": 3.0}
GEMMA3_TEXT_CONFIG = dict(GEMMA3, num_hidden_layers=6, sliding_window=4, rope_scaling={"rope_type": "linear", "factor": 8.0},
                          rope_theta=1000.0, rope_local_base_freq=10.0)
del GEMMA3_TEXT_CONFIG["sliding_window_pattern"], GEMMA3_TEXT_CONFIG["architectures"]
GEMMA3_MULTIMODAL = {"model_type": "gemma3", "architectures": ["Gemma3ForConditionalGeneration"],
                     "text_config": GEMMA3_TEXT_CONFIG, "vision_config": {"model_type": "siglip_vision_model"}}
EMBEDDINGGEMMA = dict(GEMMA3, num_hidden_layers=2, sliding_window=5, use_bidirectional_attention=True,
                      architectures=["Gemma3TextModel"])


def gemma3():
    torch.manual_seed(7)
    for name, c, dtype in (("gemma3_text", GEMMA3, torch.float32), ("gemma3_v5_bf16", GEMMA3_V5, torch.bfloat16),
                           ("embeddinggemma", EMBEDDINGGEMMA, torch.float32)):
        save(name, c, gemma_state(c), lambda sd, c=c: gemma_forward(sd, c, IDS), dtype, prefix="model.")
    text = GEMMA3_TEXT_CONFIG
    sd = gemma_state(text)
    save("gemma3_multimodal", GEMMA3_MULTIMODAL, sd, lambda sd: gemma_forward(sd, text, IDS), torch.bfloat16,
         prefix="language_model.model.", extra={"vision_tower.vision_model.post_layernorm.weight": rnd(8)})

# ---- the checkpoints -------------------------------------------------------------------------

IDS = torch.tensor([[1, 17, 42, 5, 63, 9, 2], [1, 33, 8, 8, 50, 21, 2]])
TYPES = torch.tensor([[0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1]])
GPT2_TYPES = torch.tensor([[0, 0, 0, 1, 1, 1, 63], [5, 5, 5, 5, 9, 9, 9]])

BERT = {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 64, "hidden_size": 32,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64, "hidden_act": "gelu",
        "max_position_embeddings": 16, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
        "position_embedding_type": "absolute"}
GPT2 = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 64, "n_embd": 32, "n_layer": 2,
        "n_head": 4, "n_inner": None, "n_positions": 16, "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5}
LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
         "hidden_act": "silu", "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "max_position_embeddings": 64,
         "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 64}}
LLAMA_LINEAR = dict(LLAMA, rope_theta=500.0, num_key_value_heads=1,
                    rope_scaling={"type": "linear", "factor": 2.0})
MISTRAL = dict(LLAMA, model_type="mistral", architectures=["MistralForCausalLM"], rope_scaling=None, sliding_window=3)
QWEN2 = dict(LLAMA, model_type="qwen2", architectures=["Qwen2ForCausalLM"], rope_scaling=None, rope_theta=1000000.0,
             use_sliding_window=False, sliding_window=4, max_window_layers=2)


# GPT-2 with the attention scale of transformers' scale_attn_by_inverse_layer_idx (and 1/√d),
# quick_gelu, and GPT2Config's alias keys; GPT-2 without 1/√d; Qwen2 whose second layer slides.
GPT2_VARIANTS = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 64, "hidden_size": 32,
                 "num_hidden_layers": 2, "num_attention_heads": 4, "n_inner": None, "max_position_embeddings": 16,
                 "activation_function": "quick_gelu", "layer_norm_epsilon": 1e-5,
                 "scale_attn_by_inverse_layer_idx": True}
GPT2_UNSCALED = dict(GPT2, scale_attn_weights=False)
QWEN2_WINDOW = dict(QWEN2, use_sliding_window=True, sliding_window=3, max_window_layers=1)

# RoPE scalings (--rope-variants): YaRN in rope_scaling as Qwen2.5's long-context configs write
# it, factor 4 with original = max_position_embeddings (transformers v5 scales by 4; v4.5x took
# the ratio, 1, and ran plain RoPE) (head_dim 16 of hidden 32: 8 frequencies, the ramp from
# dim 0 to 3), and in v5's rope_parameters with every field (mscale, truncate false, which moves
# the ramp's end from 2 to 1.2 at head_dim 16). Dynamic NTK on 7 tokens > max_position_embeddings 5.
LLAMA_YARN = dict(LLAMA, head_dim=16, max_position_embeddings=64,
                  rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64})
LLAMA_YARN_V5 = dict(LLAMA, rope_scaling=None, max_position_embeddings=96, num_key_value_heads=4, head_dim=16,
                     rope_parameters={"rope_type": "yarn", "rope_theta": 500.0, "factor": 3.0,
                                      "original_max_position_embeddings": 32, "beta_fast": 16, "beta_slow": 2,
                                      "truncate": False, "mscale": 0.8, "mscale_all_dim": 0.5})
LLAMA_DYNAMIC = dict(LLAMA, max_position_embeddings=5, rope_scaling={"type": "dynamic", "factor": 2.0})


# Qwen3: q_norm and k_norm, head_dim 16 != hidden / heads (8), Qwen3Config's keys; bfloat16 weights,
# and float32 with attention_bias (Q/K/V and o_proj biases) and the second layer sliding (--qwen3:
# torch.manual_seed(5)).
QWEN3 = dict(QWEN2, model_type="qwen3", architectures=["Qwen3ForCausalLM"], head_dim=16, intermediate_size=64,
             attention_bias=False)
QWEN3_BIAS_WINDOW = dict(QWEN3, attention_bias=True, use_sliding_window=True, sliding_window=3, max_window_layers=1)


def qwen3():
    torch.manual_seed(5)
    save("qwen3_bf16", QWEN3, llama_state(QWEN3, False), lambda sd: llama_forward(sd, QWEN3, IDS), torch.bfloat16,
         prefix="model.")
    save("qwen3_bias_window", QWEN3_BIAS_WINDOW, llama_state(QWEN3_BIAS_WINDOW, True),
         lambda sd: llama_forward(sd, QWEN3_BIAS_WINDOW, IDS), prefix="model.")


def float64():
    """F64 safetensors (transformers casts them to the model's dtype; attn copies them as float32)."""
    torch.manual_seed(6)
    save("qwen3_f64", QWEN3, llama_state(QWEN3, False), lambda sd: llama_forward(sd, QWEN3, IDS), torch.float64,
         prefix="model.")


# Phi-3 (--phi3: torch.manual_seed(8)), models/phi3/modeling_phi3.py: fused qkv_proj and gate_up_proj.
# phi3: H=4 G=2 head_dim 8, partial_rotary_factor 0.5 (RoPE on 4 of 8 dims), sliding_window 4, longrope
# with max_position_embeddings 16 over original_max_position_embeddings 4 (7 tokens > 4: long_factor;
# attention factor sqrt(1 + ln 4 / ln 4)), float32. phi3_su_bf16: the older name "su", 7 tokens
# within the original 8 (short_factor), an attention_factor given, every dim turned, bfloat16.
# llama_longrope: LlamaModel with longrope and no top-level original length (max_position_embeddings
# 5 < 7 tokens: long_factor; the object's factor 4).
PHI3 = {"model_type": "phi3", "architectures": ["Phi3ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
        "hidden_act": "silu", "rms_norm_eps": 1e-5, "rope_theta": 100.0, "partial_rotary_factor": 0.5,
        "max_position_embeddings": 16, "original_max_position_embeddings": 4, "sliding_window": 4,
        "rope_scaling": {"type": "longrope", "short_factor": [1.0, 1.5], "long_factor": [2.0, 5.0]},
        "pad_token_id": 0}
PHI3_SU = dict(PHI3, num_key_value_heads=4, partial_rotary_factor=1.0, max_position_embeddings=32,
               original_max_position_embeddings=8, sliding_window=None,
               rope_scaling={"type": "su", "short_factor": [1.0, 1.25, 3.0, 7.0], "long_factor": [9.0] * 4,
                             "attention_factor": 1.25})
LLAMA_LONGROPE = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                  "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
                  "hidden_act": "silu", "rms_norm_eps": 1e-6, "rope_theta": 500.0, "max_position_embeddings": 5,
                  "rope_scaling": {"rope_type": "longrope", "factor": 4.0, "short_factor": [1.0] * 4,
                                   "long_factor": [1.0, 2.0, 4.0, 8.0]}}


# ---- GPTNeoXModel -------------------------------------------------------------------------------
# models/gpt_neox/modeling_gpt_neox.py (eager attention): embed_in; per layer input_layernorm, the
# fused query_key_value viewed as (B, T, heads, 3·d) and split q | k | v per head, RoPE on the leading
# int(d · rotary_pct) dims (rotary_emb_base), scores · head_size ** -0.5, the causal mask, dense;
# use_parallel_residual: mlp(ln2(x)) + attn(ln1(x)) + x, else x' = attn(ln1(x)) + x, mlp(ln2(x')) + x';
# the MLP dense_h_to_4h, gelu, dense_4h_to_h; final_layer_norm.

def gpt_neox_state(c):
    E, V, Fi = c["hidden_size"], c["vocab_size"], c["intermediate_size"]
    bias = c.get("attention_bias", True)
    sd = {"embed_in.weight": rnd(V, E, std=1.0)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        for n in ("input_layernorm", "post_attention_layernorm"):
            sd[p + n + ".weight"] = 1.0 + rnd(E, std=0.1)
            sd[p + n + ".bias"] = rnd(E, std=0.1)
        sd[p + "attention.query_key_value.weight"] = rnd(3 * E, E, std=0.4)
        sd[p + "attention.dense.weight"] = rnd(E, E)
        if bias:
            sd[p + "attention.query_key_value.bias"] = rnd(3 * E, std=0.2)
            sd[p + "attention.dense.bias"] = rnd(E, std=0.2)
        sd[p + "mlp.dense_h_to_4h.weight"], sd[p + "mlp.dense_h_to_4h.bias"] = rnd(Fi, E), rnd(Fi, std=0.2)
        sd[p + "mlp.dense_4h_to_h.weight"], sd[p + "mlp.dense_4h_to_h.bias"] = rnd(E, Fi), rnd(E, std=0.2)
    sd["final_layer_norm.weight"] = 1.0 + rnd(E, std=0.1)
    sd["final_layer_norm.bias"] = rnd(E, std=0.1)
    return sd


def gpt_neox_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["layer_norm_eps"]
    d = E // H
    rotary = int(d * c.get("rotary_pct", 0.25))
    base = c.get("rotary_emb_base", 10000)
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary, 2, dtype=torch.int64).float() / rotary))
    freqs = torch.outer(torch.arange(T, dtype=torch.int64).type_as(inv_freq), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[None, None], emb.sin()[None, None]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)
    h = sd["embed_in.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        hidden.append(h)
        qkv = lin(ln(h, p + "input_layernorm"), p + "attention.query_key_value").view(B, T, H, 3 * d)
        q, k, v = (qkv[..., i * d:(i + 1) * d].permute(0, 2, 1, 3) for i in range(3))

        def turn(x):
            r = x[..., :rotary]
            return torch.cat((r * cos + rotate_half(r) * sin, x[..., rotary:]), dim=-1)
        q, k = turn(q), turn(k)
        w = torch.matmul(q, k.transpose(2, 3)) * d ** -0.5
        w = torch.where(causal, w, torch.tensor(torch.finfo(torch.float32).min))
        w = torch.softmax(w, dim=-1)
        atts.append(w)
        a = lin(torch.matmul(w, v).permute(0, 2, 1, 3).reshape(B, T, E), p + "attention.dense")
        mlp = lambda x: lin(F.gelu(lin(ln(x, p + "post_attention_layernorm"), p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h")
        if c.get("use_parallel_residual", True):
            h = mlp(h) + a + h
        else:
            a = a + h
            h = mlp(a) + a
    h = F.layer_norm(h, (E,), sd["final_layer_norm.weight"], sd["final_layer_norm.bias"], eps)
    hidden.append(h)
    return torch.stack(atts), torch.stack(hidden)


# Pythia's shape (--gpt-neox: torch.manual_seed(10)): pythia_f16: rotary_pct 0.25 (2 of 8 dims of each
# head), use_parallel_residual, float16, "gpt_neox." names. gpt_neox_serial: use_parallel_residual
# false, rotary_pct 1, no attention biases, rotary_emb_base 500.
PYTHIA = {"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"], "vocab_size": 64, "hidden_size": 32,
          "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "hidden_act": "gelu",
          "rotary_pct": 0.25, "rotary_emb_base": 10000, "max_position_embeddings": 64, "layer_norm_eps": 1e-5,
          "use_parallel_residual": True, "tie_word_embeddings": False}
GPT_NEOX_SERIAL = dict(PYTHIA, use_parallel_residual=False, rotary_pct=1.0, attention_bias=False, rotary_emb_base=500)


def gpt_neox():
    family(10, gpt_neox_state, gpt_neox_forward,
           ("pythia_f16", PYTHIA, {"dtype": torch.float16, "prefix": "gpt_neox."}),
           ("gpt_neox_serial", GPT_NEOX_SERIAL, {"prefix": "gpt_neox."}))


# llama_biases (--llama-biases: torch.manual_seed(9)): LlamaConfig's attention_bias (q, k, v and o_proj)
# and mlp_bias (gate, up, down), head_dim 12 != hidden / heads (8), v5's rope_parameters of plain RoPE.
LLAMA_BIASES = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 12,
                "intermediate_size": 40, "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 64,
                "rope_parameters": {"rope_type": "default", "rope_theta": 300.0}, "attention_bias": True,
                "mlp_bias": True}


# OLMo 2 (--olmo2: torch.manual_seed(13)): models/olmo2/modular_olmo2.py, LlamaModel's layer with
# q_norm and k_norm (RMSNorm over all heads' q and k at once), post_attention_layernorm and
# post_feedforward_layernorm on the attention's and the MLP's outputs and no norm before them.
# olmo2: G=2, float32; olmo2_bias_bf16: attention_bias (q, k, v, o_proj), MHA, linear rope_scaling.
OLMO2 = {"model_type": "olmo2", "architectures": ["Olmo2ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
         "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 64, "rope_theta": 500.0,
         "attention_bias": False, "pad_token_id": 1}
OLMO2_BIAS = dict(OLMO2, num_key_value_heads=4, attention_bias=True, rms_norm_eps=1e-5,
                  rope_scaling={"rope_type": "linear", "factor": 2.0})


def olmo2():
    torch.manual_seed(13)
    save("olmo2", OLMO2, llama_state(OLMO2, False), lambda sd: llama_forward(sd, OLMO2, IDS), prefix="model.")
    save("olmo2_bias_bf16", OLMO2_BIAS, llama_state(OLMO2_BIAS, True), lambda sd: llama_forward(sd, OLMO2_BIAS, IDS),
         torch.bfloat16, prefix="model.")


# OLMo 3 and SmolLM3 (--olmo3-smollm3: torch.manual_seed(29)): models/olmo3/modular_olmo3.py Olmo3Model
# (OLMo 2's layer, sliding_window on the layers layer_types calls sliding_attention: by default all but
# every fourth) and models/smollm3/modular_smollm3.py SmolLM3Model (LlamaModel's layer without RoPE on
# the layers no_rope_layers marks 0, Qwen2Model's per-layer-type masks). olmo3: 4 layers, window 3;
# smollm3_bf16: 4 layers, the default NoPE layer 3 (interval 4), use_sliding_window with window 2 on it,
# attention_bias, rope_theta absent (SmolLM3Config's 2e6); smollm3_nope: no_rope_layers [0, 1, 0] given.
OLMO3 = dict(OLMO2, model_type="olmo3", architectures=["Olmo3ForCausalLM"], num_hidden_layers=4, sliding_window=3)
SMOLLM3 = {"model_type": "smollm3", "architectures": ["SmolLM3ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
           "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
           "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 64, "use_sliding_window": True,
           "sliding_window": 2, "attention_bias": True, "pad_token_id": 3}
SMOLLM3_NOPE = {"model_type": "smollm3", "architectures": ["SmolLM3Model"], "vocab_size": 64, "hidden_size": 32,
                "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 40, "hidden_act": "silu",
                "rms_norm_eps": 1e-5, "rope_theta": 100.0, "no_rope_layers": [0, 1, 0], "pad_token_id": 0}


def olmo3_smollm3():
    torch.manual_seed(29)
    save("olmo3", OLMO3, llama_state(OLMO3, False), lambda sd: llama_forward(sd, OLMO3, IDS), prefix="model.")
    for name, c, dtype in (("smollm3_bf16", SMOLLM3, torch.bfloat16), ("smollm3_nope", SMOLLM3_NOPE, torch.float32)):
        rc = dict(c, rope_theta=c.get("rope_theta", 2000000.0))  # SmolLM3Config's default_theta
        save(name, c, llama_state(c, c.get("attention_bias", False)), lambda sd, rc=rc: llama_forward(sd, rc, IDS), dtype,
             prefix="model.")


# GLM and GLM-4 (--glm: torch.manual_seed(31)): models/glm/modular_glm.py GlmModel (LlamaModel's layer with
# Q/K/V biases, RoPE on the pairs (2i, 2i + 1) of the leading partial_rotary_factor of each head, Phi3MLP's
# gate_up_proj) and models/glm4/modular_glm4.py Glm4Model (the same with post_self_attn_layernorm and
# post_mlp_layernorm). glm: head_dim 16 of its own (hidden 32, 4 heads), the default factor 0.5, G=2;
# glm4_bf16: head_dim 8, partial_rotary_factor 1.0, attention_bias false, linear rope_scaling.
GLM = {"model_type": "glm", "architectures": ["GlmForCausalLM"], "vocab_size": 64, "hidden_size": 32,
       "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
       "intermediate_size": 40, "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 64,
       "rope_theta": 100.0, "attention_bias": True, "pad_token_id": 0}
GLM4 = {"model_type": "glm4", "architectures": ["Glm4ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
        "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 8,
        "intermediate_size": 24, "hidden_act": "silu", "rms_norm_eps": 1e-5, "max_position_embeddings": 64,
        "partial_rotary_factor": 1.0, "attention_bias": False, "pad_token_id": 0,
        "rope_scaling": {"rope_type": "linear", "factor": 2.0}}


def glm():
    torch.manual_seed(31)
    save("glm", GLM, llama_state(GLM, True), lambda sd: llama_forward(sd, GLM, IDS), prefix="model.")
    save("glm4_bf16", GLM4, llama_state(GLM4, False), lambda sd: llama_forward(sd, GLM4, IDS), torch.bfloat16,
         prefix="model.")


# ---- PhiModel (--phi: torch.manual_seed(14)) ------------------------------------------------
# models/phi/modeling_phi.py (modular_phi.py): LayerNorm input_layernorm, q/k/v_proj with biases
# (qk_layernorm: nn.LayerNorm(head_dim) on each head's q and k, before RoPE), RoPE on the leading
# int(head_dim * partial_rotary_factor) dims, softmax in float32, dense; PhiMLP fc1, the
# activation, fc2 on the same norm's output; attn + mlp + residual; final_layernorm.
# phi: PhiForCausalLM's "model." names, partial_rotary_factor 0.5 given, gelu_new, float32;
# phi_qk_gqa_f16: the base model's names, qk_layernorm, 2 K/V heads, partial_rotary_factor absent
# (PhiConfig's 0.5), dynamic rope_scaling past max_position_embeddings 5, gelu, float16.
PHI = {"model_type": "phi", "architectures": ["PhiForCausalLM"], "vocab_size": 64, "hidden_size": 32,
       "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48, "hidden_act": "gelu_new",
       "max_position_embeddings": 64, "layer_norm_eps": 1e-5, "rope_theta": 500.0, "partial_rotary_factor": 0.5,
       "qk_layernorm": False}
PHI_QK_GQA = {"model_type": "phi", "architectures": ["PhiModel"], "vocab_size": 64, "hidden_size": 48,
              "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
              "hidden_act": "gelu", "max_position_embeddings": 5, "layer_norm_eps": 1e-5, "rope_theta": 100.0,
              "qk_layernorm": True, "rope_scaling": {"type": "dynamic", "factor": 2.0}}


def phi_state(c):
    E, H, Fi = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"]
    G, d = c.get("num_key_value_heads", H), E // H
    sd = {"embed_tokens.weight": rnd(c["vocab_size"], E, std=1.0)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        ln_params(sd, p + "input_layernorm", E)
        for n, rows in (("q_proj", H * d), ("k_proj", G * d), ("v_proj", G * d)):
            sd[p + "self_attn.%s.weight" % n] = rnd(rows, E, std=0.4)
            sd[p + "self_attn.%s.bias" % n] = rnd(rows, std=0.2)
        if c.get("qk_layernorm"):
            ln_params(sd, p + "self_attn.q_layernorm", d)
            ln_params(sd, p + "self_attn.k_layernorm", d)
        sd[p + "self_attn.dense.weight"] = rnd(E, H * d)
        sd[p + "self_attn.dense.bias"] = rnd(E, std=0.1)
        sd[p + "mlp.fc1.weight"] = rnd(Fi, E)
        sd[p + "mlp.fc1.bias"] = rnd(Fi, std=0.1)
        sd[p + "mlp.fc2.weight"] = rnd(E, Fi)
        sd[p + "mlp.fc2.bias"] = rnd(E, std=0.1)
    ln_params(sd, "final_layernorm", E)
    return sd


def phi_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["layer_norm_eps"]
    G, d = c.get("num_key_value_heads", H), E // H
    rotary = int(d * c.get("partial_rotary_factor", 0.5))
    inv_freq, _ = rope_inv_freq(c, rotary, T)
    freqs = (inv_freq[None, :, None].float() @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    act = {"gelu": F.gelu, "gelu_new": gelu_new}[c["hidden_act"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd[n + ".bias"])
    ln = lambda x, n, size: F.layer_norm(x, (size,), sd[n + ".weight"], sd[n + ".bias"], eps)
    h = sd["embed_tokens.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        hidden.append(h)
        p = "layers.%d." % l
        x = ln(h, p + "input_layernorm", E)
        q = lin(x, p + "self_attn.q_proj").view(B, T, H, d).transpose(1, 2)
        k = lin(x, p + "self_attn.k_proj").view(B, T, G, d).transpose(1, 2)
        v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)
        if c.get("qk_layernorm"):
            q, k = ln(q, p + "self_attn.q_layernorm", d), ln(k, p + "self_attn.k_layernorm", d)

        def turn(t):  # the leading rotary dims turned, the rest passed
            r = t[..., :rotary]
            return torch.cat([r * cos + rotate_half(r) * sin, t[..., rotary:]], dim=-1)
        q, k = turn(q), turn(k)
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        w = (torch.matmul(q, k.transpose(2, 3)) * d ** -0.5).masked_fill(causal, float("-inf"))
        w = torch.softmax(w, dim=-1, dtype=torch.float32)
        atts.append(w)
        attn = lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, H * d), p + "self_attn.dense")
        mlp = lin(act(lin(x, p + "mlp.fc1")), p + "mlp.fc2")
        h = attn + mlp + h
    hidden.append(ln(h, "final_layernorm", E))
    return torch.stack(atts), torch.stack(hidden)


def phi():
    family(14, phi_state, phi_forward,
           ("phi", PHI, {"prefix": "model."}),
           ("phi_qk_gqa_f16", PHI_QK_GQA, {"dtype": torch.float16}))


# Granite (--granite: torch.manual_seed(15)): models/granite/modular_granite.py, LlamaModel with
# inputs_embeds * embedding_multiplier, GraniteAttention's scaling = attention_multiplier (instead of
# head_dim ** -0.5), and residual + output * residual_multiplier after the attention and the MLP.
# granite: granite-3.0's kind of multipliers (12, 1/64 scale over head_dim 8, 0.22), G=2, float32;
# granite_bias_bf16: attention_bias and mlp_bias, only attention_multiplier given (the others 1.0).
GRANITE = {"model_type": "granite", "architectures": ["GraniteForCausalLM"], "vocab_size": 64, "hidden_size": 32,
           "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
           "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 64, "rope_theta": 500.0,
           "embedding_multiplier": 12.0, "attention_multiplier": 0.015625, "residual_multiplier": 0.22,
           "logits_scaling": 8.0}
GRANITE_BIAS = {"model_type": "granite", "architectures": ["GraniteForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 40, "hidden_act": "silu",
                "rms_norm_eps": 1e-5, "attention_multiplier": 0.5, "attention_bias": True, "mlp_bias": True}


def granite():
    torch.manual_seed(15)
    save("granite", GRANITE, llama_state(GRANITE, False), lambda sd: llama_forward(sd, GRANITE, IDS), prefix="model.")
    save("granite_bias_bf16", GRANITE_BIAS, llama_state(GRANITE_BIAS, True),
         lambda sd: llama_forward(sd, GRANITE_BIAS, IDS), torch.bfloat16, prefix="model.")


# Mixtral (--mixtral: torch.manual_seed(16)): models/mixtral/modeling_mixtral.py, Mistral's layer
# with MixtralSparseMoeBlock for the MLP. mixtral: 4 experts, 2 per token, G=2, rope_theta given,
# float32; mixtral_top1_bf16: 3 experts, 1 per token (its weight renormalised to 1), MixtralConfig's
# rope_theta 1e6 (absent), a sliding window of 4, bfloat16.
MIXTRAL = {"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "vocab_size": 64, "hidden_size": 32,
           "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 24,
           "hidden_act": "silu", "rms_norm_eps": 1e-5, "max_position_embeddings": 64, "rope_theta": 300.0,
           "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": None}
MIXTRAL_TOP1 = {"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 16,
                "hidden_act": "silu", "num_local_experts": 3, "num_experts_per_tok": 1, "sliding_window": 4}


def mixtral():
    torch.manual_seed(16)
    save("mixtral", MIXTRAL, llama_state(MIXTRAL, False), lambda sd: llama_forward(sd, MIXTRAL, IDS), prefix="model.")
    c = dict(MIXTRAL_TOP1, rope_theta=1e6, rms_norm_eps=1e-5)  # MixtralConfig's defaults, for the reference
    save("mixtral_top1_bf16", MIXTRAL_TOP1, llama_state(c, False), lambda sd: llama_forward(sd, c, IDS),
         torch.bfloat16, prefix="model.")


# Qwen2-MoE and Qwen3-MoE (--qwen-moe: torch.manual_seed(17)): models/qwen2_moe and qwen3_moe's
# sparse blocks under mlp. (router mlp.gate, experts' gate_proj/up_proj/down_proj of
# moe_intermediate_size; Qwen2-MoE's shared expert behind a sigmoid gate), norm_topk_prob, dense MLPs
# on mlp_only_layers and by decoder_sparse_step. qwen2_moe: 4 experts, 2 per token, not
# renormalised, layer 1 dense (mlp_only_layers), Q/K/V biases, float32; qwen3_moe_bf16: Qwen3's
# attention (q_norm, k_norm), 5 experts, 3 per token, norm_topk_prob, decoder_sparse_step 2 (layers
# 1 and 3 sparse), bfloat16.
QWEN2_MOE = {"model_type": "qwen2_moe", "architectures": ["Qwen2MoeForCausalLM"], "vocab_size": 64, "hidden_size": 32,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
             "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 64, "rope_theta": 300.0,
             "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 12,
             "shared_expert_intermediate_size": 20, "norm_topk_prob": False, "mlp_only_layers": [1],
             "decoder_sparse_step": 1, "use_sliding_window": False}
QWEN3_MOE = {"model_type": "qwen3_moe", "architectures": ["Qwen3MoeForCausalLM"], "vocab_size": 64, "hidden_size": 32,
             "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
             "intermediate_size": 24, "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 64,
             "rope_theta": 1000.0, "num_experts": 5, "num_experts_per_tok": 3, "moe_intermediate_size": 8,
             "norm_topk_prob": True, "decoder_sparse_step": 2, "mlp_only_layers": [], "attention_bias": False}


def qwen_moe_models():
    torch.manual_seed(17)
    save("qwen2_moe", QWEN2_MOE, llama_state(QWEN2_MOE, True), lambda sd: llama_forward(sd, QWEN2_MOE, IDS),
         prefix="model.")
    save("qwen3_moe_bf16", QWEN3_MOE, llama_state(QWEN3_MOE, False), lambda sd: llama_forward(sd, QWEN3_MOE, IDS),
         torch.bfloat16, prefix="model.")


# ---- Starcoder2Model (--starcoder2: torch.manual_seed(19)) -------------------------------------
# models/starcoder2/modeling_starcoder2.py: LayerNorm input_layernorm and post_attention_layernorm
# (norm_epsilon), q/k/v/o_proj with biases (use_bias), RoPE, the sliding window on every layer,
# the MLP c_fc, gelu_pytorch_tanh, c_proj; norm (LayerNorm). starcoder2: G=2, window 3 < 7 tokens,
# rope_theta as starcoder2-3b gives it, float32; starcoder2_nobias_bf16: use_bias false, no window,
# GELU exact, bfloat16; starcoder2_dynamic: dynamic RoPE past max_position_embeddings 5.
STARCODER2 = {"model_type": "starcoder2", "architectures": ["Starcoder2ForCausalLM"], "vocab_size": 64,
              "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
              "intermediate_size": 48, "hidden_act": "gelu_pytorch_tanh", "norm_epsilon": 1e-5,
              "max_position_embeddings": 64, "rope_theta": 999999.4420358813, "sliding_window": 3, "use_bias": True}
STARCODER2_DYNAMIC = dict(STARCODER2, sliding_window=None, max_position_embeddings=5,
                          rope_scaling={"rope_type": "dynamic", "factor": 2.0})
STARCODER2_NOBIAS = dict(STARCODER2, num_hidden_layers=3, num_key_value_heads=4, sliding_window=None, use_bias=False,
                         hidden_act="gelu", rope_theta=100.0)


def starcoder2_state(c):
    E, H, Fi = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"]
    G, d, bias = c["num_key_value_heads"], E // H, c["use_bias"]
    sd = {"embed_tokens.weight": rnd(c["vocab_size"], E, std=1.0)}

    def linear(name, rows, cols, std=0.3):
        sd[name + ".weight"] = rnd(rows, cols, std=std)
        if bias:
            sd[name + ".bias"] = rnd(rows, std=0.1)
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        ln_params(sd, p + "input_layernorm", E)
        for n, rows in (("q_proj", H * d), ("k_proj", G * d), ("v_proj", G * d)):
            linear(p + "self_attn." + n, rows, E, std=0.4)
        linear(p + "self_attn.o_proj", E, H * d)
        ln_params(sd, p + "post_attention_layernorm", E)
        linear(p + "mlp.c_fc", Fi, E)
        linear(p + "mlp.c_proj", E, Fi)
    ln_params(sd, "norm", E)
    return sd


def starcoder2_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["norm_epsilon"]
    G, d = c["num_key_value_heads"], E // H
    inv_freq, _ = rope_inv_freq(c, d, T)
    freqs = (inv_freq[None, :, None].float() @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    W = c.get("sliding_window")
    allowed = (j <= i) & (j > i - W) if W else j <= i
    act = {"gelu": F.gelu, "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh")}[c["hidden_act"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)
    h = sd["embed_tokens.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        hidden.append(h)
        p = "layers.%d." % l
        x = ln(h, p + "input_layernorm")
        q = lin(x, p + "self_attn.q_proj").view(B, T, H, d).transpose(1, 2)
        k = lin(x, p + "self_attn.k_proj").view(B, T, G, d).transpose(1, 2)
        v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        w = torch.matmul(q, k.transpose(2, 3)) * d ** -0.5 + torch.where(allowed, 0.0, torch.finfo(torch.float32).min)
        w = torch.softmax(w, dim=-1, dtype=torch.float32)
        atts.append(w)
        h = h + lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, E), p + "self_attn.o_proj")
        h = h + lin(act(lin(ln(h, p + "post_attention_layernorm"), p + "mlp.c_fc")), p + "mlp.c_proj")
    hidden.append(ln(h, "norm"))
    return torch.stack(atts), torch.stack(hidden)


def starcoder2():
    family(19, starcoder2_state, starcoder2_forward,
           ("starcoder2", STARCODER2, {"prefix": "model."}),
           ("starcoder2_nobias_bf16", STARCODER2_NOBIAS, {"dtype": torch.bfloat16, "prefix": "model."}),
           ("starcoder2_dynamic", STARCODER2_DYNAMIC, {"prefix": "model."}))


# StableLM (--stablelm: torch.manual_seed(20)): models/stablelm/modeling_stablelm.py StableLmModel.
# stablelm: use_qkv_bias, qk_layernorm (StableLmLayerNormPerHead: nn.LayerNorm(head_dim, bias=False)
# per head), partial_rotary_factor 0.5, G=2, sequential residual; stablelm_parallel_bf16:
# use_parallel_residual, the default factor 0.25 (4 of 16 dims), gelu, no biases, H=G=4, dynamic
# RoPE past max_position_embeddings 5.
STABLELM = {"model_type": "stablelm", "architectures": ["StableLmForCausalLM"], "vocab_size": 64, "hidden_size": 32,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
            "hidden_act": "silu", "max_position_embeddings": 64, "layer_norm_eps": 1e-5, "rope_theta": 100.0,
            "partial_rotary_factor": 0.5, "use_qkv_bias": True, "qk_layernorm": True, "use_parallel_residual": False}
STABLELM_PARALLEL = {"model_type": "stablelm", "architectures": ["StableLmModel"], "vocab_size": 64, "hidden_size": 64,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
                     "intermediate_size": 40, "hidden_act": "gelu", "max_position_embeddings": 5,
                     "layer_norm_eps": 1e-5, "use_parallel_residual": True,
                     "rope_scaling": {"type": "dynamic", "factor": 2.0}}
# Cohere (--cohere: torch.manual_seed(21)): models/cohere/modeling_cohere.py CohereModel. cohere:
# use_qk_norm (CohereLayerNorm of weight (heads, head_dim)), attention_bias, G=2, rope_theta 100;
# cohere_f16: head_dim 6 of its own (hidden 32 over 4 heads), no rope_theta (CohereConfig's v5
# default, 500000), relu, H=G=4.
COHERE = {"model_type": "cohere", "architectures": ["CohereForCausalLM"], "vocab_size": 64, "hidden_size": 32,
          "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
          "hidden_act": "silu", "max_position_embeddings": 64, "layer_norm_eps": 1e-5, "rope_theta": 100.0,
          "use_qk_norm": True, "attention_bias": True, "logit_scale": 0.0625, "pad_token_id": 0}
COHERE_OWN_HEAD = {"model_type": "cohere", "architectures": ["CohereForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                   "num_hidden_layers": 3, "num_attention_heads": 4, "head_dim": 6, "intermediate_size": 24,
                   "hidden_act": "relu", "layer_norm_eps": 1e-4}


def stablelm_state(c):
    E, H, Fi = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"]
    G, d = c["num_key_value_heads"], E // H
    sd = {"embed_tokens.weight": rnd(c["vocab_size"], E, std=1.0)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        ln_params(sd, p + "input_layernorm", E)
        for n, rows in (("q_proj", H * d), ("k_proj", G * d), ("v_proj", G * d)):
            sd[p + "self_attn.%s.weight" % n] = rnd(rows, E, std=0.4)
            if c.get("use_qkv_bias"):
                sd[p + "self_attn.%s.bias" % n] = rnd(rows, std=0.2)
        if c.get("qk_layernorm"):
            for which, heads in (("q", H), ("k", G)):
                for h in range(heads):
                    sd[p + "self_attn.%s_layernorm.norms.%d.weight" % (which, h)] = 1.0 + rnd(d, std=0.3)
        sd[p + "self_attn.o_proj.weight"] = rnd(E, H * d)
        if not c.get("use_parallel_residual"):
            ln_params(sd, p + "post_attention_layernorm", E)
        sd[p + "mlp.gate_proj.weight"], sd[p + "mlp.up_proj.weight"] = rnd(Fi, E), rnd(Fi, E)
        sd[p + "mlp.down_proj.weight"] = rnd(E, Fi)
    ln_params(sd, "norm", E)
    return sd


def stablelm_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["layer_norm_eps"]
    G, d = c["num_key_value_heads"], E // H
    rotary = int(d * c.get("partial_rotary_factor", 0.25))
    inv_freq, _ = rope_inv_freq(c, rotary, T)
    freqs = (inv_freq[None, :, None].float() @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    act = {"silu": F.silu, "gelu": F.gelu}[c["hidden_act"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)

    def per_head(x, n):  # StableLmLayerNormPerHead: x (B, heads, T, d), one LayerNorm per head
        parts = torch.split(x, 1, dim=1)
        return torch.cat([F.layer_norm(t, (d,), sd[n + ".norms.%d.weight" % i], None, eps) for i, t in enumerate(parts)], 1)
    h = sd["embed_tokens.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        hidden.append(h)
        p = "layers.%d." % l
        x = ln(h, p + "input_layernorm")
        q = lin(x, p + "self_attn.q_proj").view(B, T, H, d).transpose(1, 2)
        k = lin(x, p + "self_attn.k_proj").view(B, T, G, d).transpose(1, 2)
        v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)
        if c.get("qk_layernorm"):
            q, k = per_head(q, p + "self_attn.q_layernorm"), per_head(k, p + "self_attn.k_layernorm")

        def turn(t):  # the leading rotary dims turned, the rest passed
            r = t[..., :rotary]
            return torch.cat([r * cos + rotate_half(r) * sin, t[..., rotary:]], dim=-1)
        q, k = turn(q), turn(k)
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        w = (torch.matmul(q, k.transpose(2, 3)) / math.sqrt(d)).masked_fill(causal, float("-inf"))
        w = torch.softmax(w, dim=-1, dtype=torch.float32)
        atts.append(w)
        attn = lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, E), p + "self_attn.o_proj")
        mlp = lambda y: lin(act(lin(y, p + "mlp.gate_proj")) * lin(y, p + "mlp.up_proj"), p + "mlp.down_proj")
        if c.get("use_parallel_residual"):
            h = h + attn + mlp(x)
        else:
            h = h + attn
            h = h + mlp(ln(h, p + "post_attention_layernorm"))
    hidden.append(ln(h, "norm"))
    return torch.stack(atts), torch.stack(hidden)


def stablelm():
    family(20, stablelm_state, stablelm_forward,
           ("stablelm", STABLELM, {"prefix": "model."}),
           ("stablelm_parallel_bf16", STABLELM_PARALLEL, {"dtype": torch.bfloat16}))


def cohere_state(c):
    E, H, Fi = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"]
    G = c.get("num_key_value_heads", H)
    d = E // H if c["model_type"] == "cohere2" else c.get("head_dim", E // H)
    bias = c.get("attention_bias", False)
    sd = {"embed_tokens.weight": rnd(c["vocab_size"], E, std=1.0)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        sd[p + "input_layernorm.weight"] = 1.0 + rnd(E, std=0.1)
        for n, rows, cols in (("q_proj", H * d, E), ("k_proj", G * d, E), ("v_proj", G * d, E), ("o_proj", E, H * d)):
            sd[p + "self_attn.%s.weight" % n] = rnd(rows, cols, std=0.4)
            if bias:
                sd[p + "self_attn.%s.bias" % n] = rnd(rows, std=0.2)
        if c.get("use_qk_norm"):
            sd[p + "self_attn.q_norm.weight"] = 1.0 + rnd(H, d, std=0.3)
            sd[p + "self_attn.k_norm.weight"] = 1.0 + rnd(G, d, std=0.3)
        sd[p + "mlp.gate_proj.weight"], sd[p + "mlp.up_proj.weight"] = rnd(Fi, E), rnd(Fi, E)
        sd[p + "mlp.down_proj.weight"] = rnd(E, Fi)
    sd["norm.weight"] = 1.0 + rnd(E, std=0.1)
    return sd


def cohere_layer_norm(x, weight, eps):
    """CohereLayerNorm: mean-centred, no bias, in float32; weight of the last dims' shape."""
    mean = x.mean(-1, keepdim=True)
    variance = (x - mean).pow(2).mean(-1, keepdim=True)
    return weight * ((x - mean) * torch.rsqrt(variance + eps))


def cohere_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["layer_norm_eps"]
    G = c.get("num_key_value_heads", H)
    d = E // H if c["model_type"] == "cohere2" else c.get("head_dim", E // H)  # Cohere2Config sets it
    # CohereConfig v5's default_theta 500000 when config.json has no rope_theta (Cohere2Config: 10000)
    v2 = c["model_type"] == "cohere2"
    inv_freq, _ = rope_inv_freq(dict(c, rope_theta=c.get("rope_theta", 10000.0 if v2 else 500000.0)), d, T)
    freqs = (inv_freq[None, :, None].float() @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
    emb = torch.repeat_interleave(freqs, 2, dim=-1)  # CohereRotaryEmbedding: interleave, not cat
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]

    def rotate(x):  # Cohere's rotate_half: pairs (2i, 2i + 1)
        return torch.stack([-x[..., 1::2], x[..., ::2]], dim=-1).flatten(-2)
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    pattern = c.get("sliding_window_pattern", 4)  # Cohere2Config's layer_types when none are given
    types = c.get("layer_types") or ["sliding_attention" if (l + 1) % pattern else "full_attention"
                                     for l in range(c["num_hidden_layers"])]
    act = {"silu": F.silu, "relu": F.relu}[c["hidden_act"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    h = sd["embed_tokens.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        hidden.append(h)
        p = "layers.%d." % l
        x = cohere_layer_norm(h, sd[p + "input_layernorm.weight"], eps)
        q = lin(x, p + "self_attn.q_proj").view(B, T, H, d)
        k = lin(x, p + "self_attn.k_proj").view(B, T, G, d)
        v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)
        if c.get("use_qk_norm"):
            q = cohere_layer_norm(q, sd[p + "self_attn.q_norm.weight"], eps)
            k = cohere_layer_norm(k, sd[p + "self_attn.k_norm.weight"], eps)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        sliding = v2 and types[l] == "sliding_attention"
        if not v2 or sliding:  # Cohere2Attention: `if self.sliding_window is not None:` RoPE
            q, k = q * cos + rotate(q) * sin, k * cos + rotate(k) * sin
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        masked = causal | (j <= i - c.get("sliding_window", 4096)) if sliding else causal
        w = (torch.matmul(q, k.transpose(2, 3)) * d ** -0.5).masked_fill(masked, float("-inf"))
        w = torch.softmax(w, dim=-1, dtype=torch.float32)
        atts.append(w)
        attn = lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, H * d), p + "self_attn.o_proj")
        mlp = lin(act(lin(x, p + "mlp.gate_proj")) * lin(x, p + "mlp.up_proj"), p + "mlp.down_proj")
        h = h + attn + mlp
    hidden.append(cohere_layer_norm(h, sd["norm.weight"], eps))
    return torch.stack(atts), torch.stack(hidden)


# Cohere 2 (--cohere2: torch.manual_seed(30)): models/cohere2/modular_cohere2.py Cohere2Model. cohere2: 4 layers,
# the default pattern (layers 0-2 slide with window 3 and RoPE, layer 3 full without RoPE), G=2, attention_bias,
# rope_theta absent (10000); cohere2_types_f16: layer_types full, sliding, full with window 2, a head_dim key that
# Cohere2Config overwrites with hidden_size // heads, relu.
COHERE2 = {"model_type": "cohere2", "architectures": ["Cohere2ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
           "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
           "hidden_act": "silu", "layer_norm_eps": 1e-5, "sliding_window": 3, "attention_bias": True,
           "logit_scale": 0.25, "pad_token_id": 0}
COHERE2_TYPES = {"model_type": "cohere2", "architectures": ["Cohere2ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                 "num_hidden_layers": 3, "num_attention_heads": 4, "head_dim": 6, "intermediate_size": 24,
                 "hidden_act": "relu", "layer_norm_eps": 1e-4, "rope_theta": 100.0, "sliding_window": 2,
                 "layer_types": ["full_attention", "sliding_attention", "full_attention"]}


def cohere2():
    family(30, cohere_state, cohere_forward,
           ("cohere2", COHERE2, {"prefix": "model."}),
           ("cohere2_types_f16", COHERE2_TYPES, {"dtype": torch.float16, "prefix": "model."}))


def cohere():
    family(21, cohere_state, cohere_forward,
           ("cohere", COHERE, {"prefix": "model."}),
           ("cohere_f16", COHERE_OWN_HEAD, {"dtype": torch.float16, "prefix": "model."}))


# OLMo (--olmo: torch.manual_seed(22)): models/olmo/modular_olmo.py OlmoModel, LlamaModel's layer with
# OlmoLayerNorm (F.layer_norm without weight or bias, eps 1e-5) and clip_qkv. olmo: clip_qkv 0.6 (it
# clamps), attention_bias, G=2; olmo_head_dim_bf16: head_dim 6 of its own, no clip, linear rope_scaling.
OLMO = {"model_type": "olmo", "architectures": ["OlmoForCausalLM"], "vocab_size": 64, "hidden_size": 32,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
        "hidden_act": "silu", "max_position_embeddings": 64, "rope_theta": 100.0, "attention_bias": True,
        "clip_qkv": 0.6, "pad_token_id": 1}
OLMO_HEAD_DIM = {"model_type": "olmo", "architectures": ["OlmoForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                 "num_hidden_layers": 3, "num_attention_heads": 4, "head_dim": 6, "intermediate_size": 24,
                 "hidden_act": "silu", "clip_qkv": None, "rope_scaling": {"type": "linear", "factor": 2.0}}


def olmo_state(c):
    E, H, Fi = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"]
    G, d = c.get("num_key_value_heads", H), c.get("head_dim", E // H)
    sd = {"embed_tokens.weight": rnd(c["vocab_size"], E, std=1.0)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        for n, rows, cols in (("q_proj", H * d, E), ("k_proj", G * d, E), ("v_proj", G * d, E), ("o_proj", E, H * d)):
            sd[p + "self_attn.%s.weight" % n] = rnd(rows, cols, std=0.4)
            if c.get("attention_bias"):
                sd[p + "self_attn.%s.bias" % n] = rnd(rows, std=0.2)
        sd[p + "mlp.gate_proj.weight"], sd[p + "mlp.up_proj.weight"] = rnd(Fi, E), rnd(Fi, E)
        sd[p + "mlp.down_proj.weight"] = rnd(E, Fi)
    return sd


def olmo_forward(sd, c, ids):
    B, T = ids.shape
    E, H = c["hidden_size"], c["num_attention_heads"]
    G, d = c.get("num_key_value_heads", H), c.get("head_dim", E // H)
    inv_freq, _ = rope_inv_freq(c, d, T)
    freqs = (inv_freq[None, :, None].float() @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x: F.layer_norm(x, (E,), None, None, 1e-5)  # OlmoLayerNorm
    clip = c.get("clip_qkv")
    h = sd["embed_tokens.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        hidden.append(h)
        p = "layers.%d." % l
        x = ln(h)
        q, k, v = lin(x, p + "self_attn.q_proj"), lin(x, p + "self_attn.k_proj"), lin(x, p + "self_attn.v_proj")
        if clip is not None:
            q, k, v = q.clamp(min=-clip, max=clip), k.clamp(min=-clip, max=clip), v.clamp(min=-clip, max=clip)
        q, k, v = (t.view(B, T, -1, d).transpose(1, 2) for t in (q, k, v))
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        w = (torch.matmul(q, k.transpose(2, 3)) * d ** -0.5).masked_fill(causal, float("-inf"))
        w = torch.softmax(w, dim=-1, dtype=torch.float32)
        atts.append(w)
        h = h + lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, H * d), p + "self_attn.o_proj")
        y = ln(h)
        h = h + lin(F.silu(lin(y, p + "mlp.gate_proj")) * lin(y, p + "mlp.up_proj"), p + "mlp.down_proj")
    hidden.append(ln(h))
    return torch.stack(atts), torch.stack(hidden)


def olmo():
    family(22, olmo_state, olmo_forward,
           ("olmo", OLMO, {"prefix": "model."}),
           ("olmo_head_dim_bf16", OLMO_HEAD_DIM, {"dtype": torch.bfloat16, "prefix": "model."}))


# GPT-J (--gptj: torch.manual_seed(23)): models/gptj/modeling_gptj.py GPTJModel. gptj: rotary_dim 4 of
# head_dim 8, n_inner null (4·n_embd), gelu_new, "transformer." names; gptj_full_rotary_f16: rotary_dim 8
# (every dim), n_inner 24, exact gelu, config.json's attribute_map names (hidden_size, ...), GPTJModel's names,
# token types (looked up in wte).
GPTJ = {"model_type": "gptj", "architectures": ["GPTJForCausalLM"], "vocab_size": 64, "n_embd": 32, "n_layer": 2,
        "n_head": 4, "n_positions": 16, "rotary_dim": 4, "n_inner": None, "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5}
GPTJ_FULL = {"model_type": "gptj", "architectures": ["GPTJModel"], "vocab_size": 64, "hidden_size": 32,
             "num_hidden_layers": 3, "num_attention_heads": 4, "max_position_embeddings": 7, "rotary_dim": 8,
             "n_inner": 24, "activation_function": "gelu", "layer_norm_epsilon": 1e-4}


def gptj_sizes(c):
    E = c.get("n_embd", c.get("hidden_size"))
    return E, c.get("n_head", c.get("num_attention_heads")), c.get("n_layer", c.get("num_hidden_layers")), \
        c.get("n_inner") or 4 * E


def gptj_state(c):
    E, H, L, Fi = gptj_sizes(c)
    sd = {"wte.weight": rnd(c["vocab_size"], E, std=1.0)}
    for l in range(L):
        p = "h.%d." % l
        ln_params(sd, p + "ln_1", E)
        if c["model_type"] == "codegen":  # CodeGenAttention's fused qkv_proj
            sd[p + "attn.qkv_proj.weight"] = rnd(3 * E, E, std=0.4)
        else:
            for n in ("q_proj", "k_proj", "v_proj"):
                sd[p + "attn.%s.weight" % n] = rnd(E, E, std=0.4)
        sd[p + "attn.out_proj.weight"] = rnd(E, E)
        sd[p + "mlp.fc_in.weight"], sd[p + "mlp.fc_in.bias"] = rnd(Fi, E), rnd(Fi, std=0.1)
        sd[p + "mlp.fc_out.weight"], sd[p + "mlp.fc_out.bias"] = rnd(E, Fi), rnd(E, std=0.1)
    ln_params(sd, "ln_f", E)
    return sd


def gptj_forward(sd, c, ids, types=None):
    B, T = ids.shape
    E, H, L, Fi = gptj_sizes(c)
    d, rot, eps = E // H, c["rotary_dim"], c["layer_norm_epsilon"]
    max_pos = c.get("n_positions", c.get("max_position_embeddings"))
    # create_sinusoidal_positions and apply_rotary_pos_emb: sin | cos from a table, rotate_every_two
    inv_freq = 1.0 / (10000 ** (torch.arange(0, rot, 2, dtype=torch.int64) / rot))
    sinusoid = torch.einsum("i , j -> i j", torch.arange(max_pos, dtype=torch.int64).float(), inv_freq).float()
    sin, cos = torch.sin(sinusoid)[:T], torch.cos(sinusoid)[:T]
    sin = torch.repeat_interleave(sin[None, :, None, :], 2, 3)  # (1, T, 1, rot)
    cos = torch.repeat_interleave(cos[None, :, None, :], 2, 3)

    def every_two(x):
        return torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).flatten(-2)
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    act = {"gelu": F.gelu, "gelu_new": gelu_new}[c["activation_function"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)
    scale_attn = torch.sqrt(torch.tensor(d, dtype=torch.float32))
    h = sd["wte.weight"][ids]
    if types is not None:  # GPTJModel: hidden_states + self.wte(token_type_ids)
        h = h + sd["wte.weight"][types]
    hidden, atts = [], []
    for l in range(L):
        hidden.append(h)
        p = "h.%d." % l
        x = ln(h, p + "ln_1")
        if c["model_type"] == "codegen":  # CodeGenAttention.forward: mp_num 4 chunks of q | v | k, _split_heads
            qkv = F.linear(x, sd[p + "attn.qkv_proj.weight"])
            qkv_split = qkv.reshape(qkv.shape[:-1] + (4, -1))
            q, v, k = torch.split(qkv_split, H * d // 4, dim=-1)
            q, v, k = (t.reshape(t.shape[:-1] + (H // 4, d)).reshape(B, T, H, d) for t in (q, v, k))
        else:
            q, k, v = (lin(x, p + "attn.%s" % n).view(B, T, H, d) for n in ("q_proj", "k_proj", "v_proj"))
        q = torch.cat([q[..., :rot] * cos + every_two(q[..., :rot]) * sin, q[..., rot:]], dim=-1).permute(0, 2, 1, 3)
        k = torch.cat([k[..., :rot] * cos + every_two(k[..., :rot]) * sin, k[..., rot:]], dim=-1).permute(0, 2, 1, 3)
        v = v.permute(0, 2, 1, 3)
        w = (torch.matmul(q, k.transpose(-1, -2)) / scale_attn).masked_fill(causal, torch.finfo(torch.float32).min)
        w = torch.softmax(w, dim=-1)
        atts.append(w)
        attn = lin(torch.matmul(w, v).permute(0, 2, 1, 3).reshape(B, T, E), p + "attn.out_proj")
        ff = lin(act(lin(x, p + "mlp.fc_in")), p + "mlp.fc_out")
        h = attn + ff + h
    hidden.append(ln(h, "ln_f"))
    return torch.stack(atts), torch.stack(hidden)


# CodeGen (--codegen: torch.manual_seed(42)): models/codegen/modeling_codegen.py CodeGenModel, GPT-J's
# layer with the fused qkv_proj (4 chunks of q | v | k). codegen: 4 heads, rotary_dim 4, "transformer."
# names; codegen_f16: 8 heads, every dim turned, n_inner 24, gelu, token types, float16.
CODEGEN = {"model_type": "codegen", "architectures": ["CodeGenForCausalLM"], "vocab_size": 64, "n_embd": 32,
           "n_layer": 2, "n_head": 4, "n_positions": 16, "n_ctx": 16, "rotary_dim": 4, "n_inner": None,
           "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5}
CODEGEN_F16 = {"model_type": "codegen", "architectures": ["CodeGenModel"], "vocab_size": 64, "hidden_size": 64,
               "num_hidden_layers": 3, "num_attention_heads": 8, "max_position_embeddings": 7, "rotary_dim": 8,
               "n_inner": 24, "activation_function": "gelu", "layer_norm_epsilon": 1e-4}


def codegen():
    family(42, gptj_state, gptj_forward,
           ("codegen", CODEGEN, {"prefix": "transformer."}),
           ("codegen_f16", CODEGEN_F16, {"dtype": torch.float16, "types": GPT2_TYPES}))


def gptj():
    family(23, gptj_state, gptj_forward,
           ("gptj", GPTJ, {"prefix": "transformer."}),
           ("gptj_full_rotary_f16", GPTJ_FULL, {"dtype": torch.float16, "types": GPT2_TYPES}))


# Falcon (--falcon: torch.manual_seed(24)): models/falcon/modeling_falcon.py FalconModel (RoPE; alibi is
# not made). falcon: falcon-7b's layout (multi_query, parallel_attn, no biases), "transformer." names;
# falcon_grouped_bf16: new_decoder_architecture with 2 K/V groups, ln_attn and ln_mlp, dynamic RoPE past
# max_position_embeddings 5; falcon_serial_f16: neither multi_query nor parallel_attn (q | k | v per head,
# post_attention_layernorm), biases, n_embed, ffn_hidden_size, relu; falcon2: new_decoder_architecture with
# num_ln_in_parallel_attn 1 (Falcon 2's one norm), 1 K/V group, linear rope_scaling.
FALCON = {"model_type": "falcon", "architectures": ["FalconForCausalLM"], "vocab_size": 64, "hidden_size": 32,
          "num_hidden_layers": 2, "num_attention_heads": 4, "layer_norm_epsilon": 1e-5, "rope_theta": 100.0,
          "new_decoder_architecture": False, "multi_query": True, "parallel_attn": True, "bias": False,
          "alibi": False, "max_position_embeddings": 64}
FALCON_GROUPED = {"model_type": "falcon", "architectures": ["FalconModel"], "vocab_size": 64, "hidden_size": 32,
                  "num_hidden_layers": 3, "num_attention_heads": 4, "num_kv_heads": 2, "new_decoder_architecture": True,
                  "max_position_embeddings": 5, "rope_scaling": {"type": "dynamic", "factor": 2.0}}
FALCON_SERIAL = {"model_type": "falcon", "architectures": ["FalconForCausalLM"], "vocab_size": 64, "n_embed": 32,
                 "n_layer": 2, "n_head": 4, "multi_query": False, "parallel_attn": False, "bias": True,
                 "ffn_hidden_size": 48, "activation": "relu", "layer_norm_epsilon": 1e-4}
FALCON2 = {"model_type": "falcon", "architectures": ["FalconForCausalLM"], "vocab_size": 64, "hidden_size": 32,
           "num_hidden_layers": 2, "num_attention_heads": 4, "num_kv_heads": 1, "new_decoder_architecture": True,
           "num_ln_in_parallel_attn": 1, "parallel_attn": True, "rope_theta": 500.0,
           "rope_scaling": {"type": "linear", "factor": 2.0}}


def falcon_sizes(c):
    E = c.get("n_embed") or c.get("hidden_size", 4544)
    H = c.get("n_head", c.get("num_attention_heads"))
    grouped = c.get("new_decoder_architecture", False)
    G = c.get("num_kv_heads") or H if grouped else 1 if c.get("multi_query", True) else H
    Fi = c.get("ffn_hidden_size") or 4 * E  # (transformers v5; v4: 4 * the hidden_size key)
    return E, H, G, c.get("n_layer", c.get("num_hidden_layers")), Fi


def falcon_norms(c):
    """The layer's LayerNorms, as FalconDecoderLayer makes them."""
    n = c.get("num_ln_in_parallel_attn")
    if n is None and c.get("new_decoder_architecture"):
        n = 2
    if not c.get("parallel_attn", True):
        return ["input_layernorm", "post_attention_layernorm"]
    return ["ln_attn", "ln_mlp"] if n == 2 else ["input_layernorm"]


def falcon_state(c):
    E, H, G, L, Fi = falcon_sizes(c)
    d, bias = E // H, c.get("bias", False)
    sd = {"word_embeddings.weight": rnd(c["vocab_size"], E, std=1.0)}

    def linear(name, rows, cols, std=0.3):
        sd[name + ".weight"] = rnd(rows, cols, std=std)
        if bias:
            sd[name + ".bias"] = rnd(rows, std=0.1)
    for l in range(L):
        p = "h.%d." % l
        for n in falcon_norms(c):
            ln_params(sd, p + n, E)
        linear(p + "self_attention.query_key_value", (H + 2 * G) * d, E, std=0.4)
        linear(p + "self_attention.dense", E, E)
        linear(p + "mlp.dense_h_to_4h", Fi, E)
        linear(p + "mlp.dense_4h_to_h", E, Fi)
    ln_params(sd, "ln_f", E)
    return sd


def falcon_forward(sd, c, ids):
    B, T = ids.shape
    E, H, G, L, Fi = falcon_sizes(c)
    d, eps = E // H, c.get("layer_norm_epsilon", 1e-5)
    grouped, parallel = c.get("new_decoder_architecture", False), c.get("parallel_attn", True)
    norms = falcon_norms(c)
    rc = dict(c, rope_theta=c.get("rope_theta", 10000.0), max_position_embeddings=c.get("max_position_embeddings", 2048))
    inv_freq, _ = rope_inv_freq(rc, d, T)
    freqs = (inv_freq[None, :, None].float() @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    mask = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
    act = {"gelu": F.gelu, "relu": F.relu}[c.get("activation", "gelu")]
    lin = lambda x, n: x @ sd[n + ".weight"].T + sd[n + ".bias"] if n + ".bias" in sd else x @ sd[n + ".weight"].T
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)
    h = sd["word_embeddings.weight"][ids]
    hidden, atts = [], []
    for l in range(L):
        hidden.append(h)
        p = "h.%d." % l
        x = ln(h, p + norms[0])
        fused = lin(x, p + "self_attention.query_key_value")
        if grouped:  # FalconAttention._split_heads
            qkv = fused.view(B, T, -1, H // G + 2, d)
            q, k, v = qkv[:, :, :, :-2], qkv[:, :, :, [-2]], qkv[:, :, :, [-1]]
            k, v = torch.broadcast_to(k, q.shape), torch.broadcast_to(v, q.shape)
            q, k, v = [t.flatten(2, 3) for t in (q, k, v)]
            kv_heads = H
        elif not c.get("multi_query", True):
            qkv = fused.view(B, T, H, 3, d)
            q, k, v = qkv[..., 0, :], qkv[..., 1, :], qkv[..., 2, :]
            kv_heads = H
        else:
            qkv = fused.view(B, T, H + 2, d)
            q, k, v = qkv[..., :-2, :], qkv[..., [-2], :], qkv[..., [-1], :]
            kv_heads = 1
        q = q.transpose(1, 2).reshape(B, H, T, d)
        k = k.transpose(1, 2).reshape(B, kv_heads, T, d)
        v = v.transpose(1, 2).reshape(B, kv_heads, T, d)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = q @ k.transpose(-1, -2)
        scores /= math.sqrt(d)
        w = F.softmax(scores + mask, dim=-1, dtype=torch.float32)
        atts.append(w.expand(B, H, T, T))
        attn = lin((w @ v).view(B, H, T, d).permute(0, 2, 1, 3).reshape(B, T, E), p + "self_attention.dense")
        residual = h
        if grouped and norms == ["ln_attn", "ln_mlp"]:
            mlp_in = ln(h, p + "ln_mlp")
        elif parallel:
            mlp_in = x
        else:
            residual = residual + attn
            mlp_in = ln(residual, p + "post_attention_layernorm")
        m = lin(act(lin(mlp_in, p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h")
        if grouped or parallel:
            m += attn
        h = residual + m
    hidden.append(ln(h, "ln_f"))
    return torch.stack(atts), torch.stack(hidden)


def falcon():
    family(24, falcon_state, falcon_forward,
           ("falcon", FALCON, {"prefix": "transformer."}),
           ("falcon_grouped_bf16", FALCON_GROUPED, {"dtype": torch.bfloat16}),
           ("falcon_serial_f16", FALCON_SERIAL, {"dtype": torch.float16, "prefix": "transformer."}),
           ("falcon2", FALCON2, {"prefix": "transformer."}))


# OPT (--opt: torch.manual_seed(25)): models/opt/modeling_opt.py OPTModel. opt: opt-125m's layout (pre-LN,
# relu, biases), OPTForCausalLM's "model." names, max_position_embeddings 16; opt_post_ln_f16: opt-350m's
# post-LN (do_layer_norm_before false: no final norm), no biases (enable_bias false), gelu, OPTModel's
# names; data/models/opt_project (beside tiny/: its last hidden state is narrower, so the tiny/ loop's
# hidden-state check does not apply): word_embed_proj_dim 16 of hidden 32 (project_in, project_out).
OPT = {"model_type": "opt", "architectures": ["OPTForCausalLM"], "vocab_size": 64, "hidden_size": 32,
       "num_hidden_layers": 2, "num_attention_heads": 4, "ffn_dim": 48, "max_position_embeddings": 16,
       "activation_function": "relu", "do_layer_norm_before": True, "word_embed_proj_dim": 32, "pad_token_id": 1}
OPT_POST_LN = {"model_type": "opt", "architectures": ["OPTModel"], "vocab_size": 64, "hidden_size": 32,
               "num_hidden_layers": 3, "num_attention_heads": 4, "ffn_dim": 40, "max_position_embeddings": 9,
               "activation_function": "gelu", "do_layer_norm_before": False, "enable_bias": False}
OPT_PROJECT = dict(OPT, word_embed_proj_dim=16)


def opt_state(c):
    E, L, Fi = c["hidden_size"], c["num_hidden_layers"], c["ffn_dim"]
    P, bias = c.get("word_embed_proj_dim") or E, c.get("enable_bias", True)
    sd = {"decoder.embed_tokens.weight": rnd(c["vocab_size"], P, std=1.0),
          "decoder.embed_positions.weight": rnd(c["max_position_embeddings"] + 2, E, std=0.5)}
    if P != E:
        sd["decoder.project_in.weight"], sd["decoder.project_out.weight"] = rnd(E, P, std=0.3), rnd(P, E, std=0.3)

    def linear(name, rows, cols, std=0.3):
        sd[name + ".weight"] = rnd(rows, cols, std=std)
        if bias:
            sd[name + ".bias"] = rnd(rows, std=0.1)
    for l in range(L):
        p = "decoder.layers.%d." % l
        ln_params(sd, p + "self_attn_layer_norm", E)
        for n in ("q_proj", "k_proj", "v_proj"):
            linear(p + "self_attn." + n, E, E, std=0.4)
        linear(p + "self_attn.out_proj", E, E)
        ln_params(sd, p + "final_layer_norm", E)
        linear(p + "fc1", Fi, E)
        linear(p + "fc2", E, Fi)
    if c.get("do_layer_norm_before", True):
        ln_params(sd, "decoder.final_layer_norm", E)
    return sd


def opt_forward(sd, c, ids):
    B, T = ids.shape
    E, H, L = c["hidden_size"], c["num_attention_heads"], c["num_hidden_layers"]
    d, before = E // H, c.get("do_layer_norm_before", True)
    causal = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
    act = {"relu": F.relu, "gelu": F.gelu}[c["activation_function"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], 1e-5)
    h = sd["decoder.embed_tokens.weight"][ids]
    if "decoder.project_in.weight" in sd:
        h = F.linear(h, sd["decoder.project_in.weight"])
    mask = torch.ones(B, T)
    positions = (torch.cumsum(mask, dim=1) * mask - 1).long()
    h = h + sd["decoder.embed_positions.weight"][positions + 2]
    hidden, atts = [], []
    for l in range(L):
        hidden.append(h)
        p = "decoder.layers.%d." % l
        residual = h
        x = ln(h, p + "self_attn_layer_norm") if before else h
        q = (lin(x, p + "self_attn.q_proj") * d ** -0.5).view(B, T, H, d).transpose(1, 2)
        k = lin(x, p + "self_attn.k_proj").view(B, T, H, d).transpose(1, 2)
        v = lin(x, p + "self_attn.v_proj").view(B, T, H, d).transpose(1, 2)
        w = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * 1.0 + causal, dim=-1, dtype=torch.float32)
        atts.append(w)
        h = residual + lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, E), p + "self_attn.out_proj")
        if not before:
            h = ln(h, p + "self_attn_layer_norm")
        residual = h
        x = ln(h, p + "final_layer_norm") if before else h
        h = residual + lin(act(lin(x, p + "fc1")), p + "fc2")
        if not before:
            h = ln(h, p + "final_layer_norm")
    if before:
        h = ln(h, "decoder.final_layer_norm")
    if "decoder.project_out.weight" in sd:
        h = F.linear(h, sd["decoder.project_out.weight"])
    hidden.append(h)
    return torch.stack(atts), torch.stack(hidden) if h.shape[-1] == E else None  # (project_out: no stack)


def opt():
    torch.manual_seed(25)
    save("opt", OPT, opt_state(OPT), lambda sd: opt_forward(sd, OPT, IDS), prefix="model.")
    save("opt_post_ln_f16", OPT_POST_LN, opt_state(OPT_POST_LN), lambda sd: opt_forward(sd, OPT_POST_LN, IDS),
         torch.float16)
    # the attentions only (the hidden states do not stack: the last is project_out's, 16 wide)
    save("opt_project", OPT_PROJECT, opt_state(OPT_PROJECT),
         lambda sd: (opt_forward(sd, OPT_PROJECT, IDS)[0], torch.zeros(0)), prefix="model.", root=HERE)
    os.remove(os.path.join(HERE, "opt_project", "hidden_states.npy"))


# GPT-Neo (--gpt-neo: torch.manual_seed(26)): models/gpt_neo/modeling_gpt_neo.py GPTNeoModel. gpt_neo: global
# and local layers (attention_types), window_size 3 (< 7 tokens), "transformer." names; gpt_neo_local_f16:
# local, global, local with config.json's attention_layers beside attention_types, window_size 2, n 24, gelu,
# token types (GPT-2's kind: ids looked up in wte).
GPT_NEO = {"model_type": "gpt_neo", "architectures": ["GPTNeoForCausalLM"], "vocab_size": 64, "hidden_size": 32,
           "num_layers": 2, "num_heads": 4, "attention_types": [[["global", "local"], 1]], "window_size": 3,
           "intermediate_size": None, "max_position_embeddings": 16, "activation_function": "gelu_new",
           "layer_norm_epsilon": 1e-5}
GPT_NEO_LOCAL = {"model_type": "gpt_neo", "architectures": ["GPTNeoModel"], "vocab_size": 64, "hidden_size": 32,
                 "num_layers": 3, "num_heads": 4, "attention_types": [[["local", "global", "local"], 1]],
                 "attention_layers": ["local", "global", "local"], "window_size": 2, "intermediate_size": 24,
                 "max_position_embeddings": 8, "activation_function": "gelu", "layer_norm_epsilon": 1e-4}


def gpt_neo_state(c):
    E, L = c["hidden_size"], c["num_layers"]
    Fi = c.get("intermediate_size") or 4 * E
    sd = {"wte.weight": rnd(c["vocab_size"], E, std=1.0), "wpe.weight": rnd(c["max_position_embeddings"], E, std=0.5)}
    for l in range(L):
        p = "h.%d." % l
        ln_params(sd, p + "ln_1", E)
        for n in ("q_proj", "k_proj", "v_proj"):
            sd[p + "attn.attention.%s.weight" % n] = rnd(E, E, std=0.15)
        sd[p + "attn.attention.out_proj.weight"], sd[p + "attn.attention.out_proj.bias"] = rnd(E, E), rnd(E, std=0.1)
        ln_params(sd, p + "ln_2", E)
        sd[p + "mlp.c_fc.weight"], sd[p + "mlp.c_fc.bias"] = rnd(Fi, E), rnd(Fi, std=0.1)
        sd[p + "mlp.c_proj.weight"], sd[p + "mlp.c_proj.bias"] = rnd(E, Fi), rnd(E, std=0.1)
    ln_params(sd, "ln_f", E)
    return sd


def gpt_neo_forward(sd, c, ids, token_types=None):
    B, T = ids.shape
    E, H, L, eps = c["hidden_size"], c["num_heads"], c["num_layers"], c["layer_norm_epsilon"]
    d, max_pos = E // H, c["max_position_embeddings"]
    types = c.get("attention_layers") or [t for names, n in c["attention_types"] for _ in range(n) for t in names]
    act = {"gelu": F.gelu, "gelu_new": gelu_new}[c["activation_function"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)
    h = sd["wte.weight"][ids] + sd["wpe.weight"][torch.arange(T)][None]
    if token_types is not None:  # GPTNeoModel: hidden_states + self.wte(token_type_ids)
        h = h + sd["wte.weight"][token_types]
    hidden, atts = [], []
    for l in range(L):
        hidden.append(h)
        p = "h.%d." % l
        bias = torch.tril(torch.ones((max_pos, max_pos), dtype=torch.uint8))
        if types[l] == "local":
            bias = bias ^ torch.tril(bias, -c["window_size"])
        x = ln(h, p + "ln_1")
        q, k, v = (lin(x, p + "attn.attention." + n).view(B, T, H, d).permute(0, 2, 1, 3) for n in ("q_proj", "k_proj", "v_proj"))
        w = torch.matmul(q, k.transpose(-1, -2))
        w = torch.where(bias[:T, :T].bool(), w, torch.tensor(torch.finfo(torch.float32).min))
        w = torch.softmax(w, dim=-1)
        atts.append(w)
        h = lin(torch.matmul(w, v).permute(0, 2, 1, 3).reshape(B, T, E), p + "attn.attention.out_proj") + h
        h = h + lin(act(lin(ln(h, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
    hidden.append(ln(h, "ln_f"))
    return torch.stack(atts), torch.stack(hidden)


def gpt_neo():
    family(26, gpt_neo_state, gpt_neo_forward,
           ("gpt_neo", GPT_NEO, {"prefix": "transformer."}),
           ("gpt_neo_local_f16", GPT_NEO_LOCAL, {"dtype": torch.float16, "types": GPT2_TYPES}))


# ALBERT (--albert: torch.manual_seed(27)): models/albert/modeling_albert.py AlbertModel. albert: embeddings
# 16 wide (embedding_size) mapped to hidden 32 by encoder.embedding_hidden_mapping_in, 3 layers sharing one
# layer's weights (num_hidden_groups 1), token types, gelu_new, "albert." names; albert_groups_f16:
# embedding_size = hidden_size (the mapping still there), 4 layers over 2 hidden groups (layers 0-1 the first
# group's weights, 2-3 the second's), relu.
ALBERT = {"model_type": "albert", "architectures": ["AlbertForMaskedLM"], "vocab_size": 64, "embedding_size": 16,
          "hidden_size": 32, "num_hidden_layers": 3, "num_hidden_groups": 1, "num_attention_heads": 4,
          "intermediate_size": 48, "inner_group_num": 1, "hidden_act": "gelu_new", "max_position_embeddings": 16,
          "type_vocab_size": 2, "layer_norm_eps": 1e-12, "position_embedding_type": "absolute", "pad_token_id": 0}
ALBERT_GROUPS = {"model_type": "albert", "architectures": ["AlbertModel"], "vocab_size": 64, "embedding_size": 32,
                 "hidden_size": 32, "num_hidden_layers": 4, "num_hidden_groups": 2, "num_attention_heads": 4,
                 "intermediate_size": 40, "hidden_act": "relu", "max_position_embeddings": 8, "type_vocab_size": 2,
                 "layer_norm_eps": 1e-5}


def albert_state(c):
    E, Ee, Fi, G = c["hidden_size"], c["embedding_size"], c["intermediate_size"], c["num_hidden_groups"]
    sd = {"embeddings.word_embeddings.weight": rnd(c["vocab_size"], Ee, std=1.0),
          "embeddings.position_embeddings.weight": rnd(c["max_position_embeddings"], Ee, std=0.5),
          "embeddings.token_type_embeddings.weight": rnd(c["type_vocab_size"], Ee, std=0.5),
          "encoder.embedding_hidden_mapping_in.weight": rnd(E, Ee, std=0.3),
          "encoder.embedding_hidden_mapping_in.bias": rnd(E, std=0.1)}
    ln_params(sd, "embeddings.LayerNorm", Ee)

    def linear(name, rows, cols, std=0.3):
        sd[name + ".weight"], sd[name + ".bias"] = rnd(rows, cols, std=std), rnd(rows, std=0.1)
    for g in range(G):
        p = "encoder.albert_layer_groups.%d.albert_layers.0." % g
        for n in ("query", "key", "value"):
            linear(p + "attention." + n, E, E, std=0.4)
        linear(p + "attention.dense", E, E)
        ln_params(sd, p + "attention.LayerNorm", E)
        linear(p + "ffn", Fi, E)
        linear(p + "ffn_output", E, Fi)
        ln_params(sd, p + "full_layer_layer_norm", E)
    return sd


def albert_forward(sd, c, ids, types):
    B, T = ids.shape
    E, Ee, H, L, G = c["hidden_size"], c["embedding_size"], c["num_attention_heads"], c["num_hidden_layers"], \
        c["num_hidden_groups"]
    d, eps = E // H, c["layer_norm_eps"]
    act = {"gelu_new": gelu_new, "relu": F.relu}[c["hidden_act"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd[n + ".bias"])
    ln = lambda x, n, size: F.layer_norm(x, (size,), sd[n + ".weight"], sd[n + ".bias"], eps)
    e = sd["embeddings.word_embeddings.weight"][ids] + sd["embeddings.token_type_embeddings.weight"][types]
    e = e + sd["embeddings.position_embeddings.weight"][torch.arange(T)][None]
    h = lin(ln(e, "embeddings.LayerNorm", Ee), "encoder.embedding_hidden_mapping_in")
    hidden, atts = [h], []
    for i in range(L):
        g = int(i / (L / G))  # AlbertTransformer's group_idx
        p = "encoder.albert_layer_groups.%d.albert_layers.0." % g
        q, k, v = (lin(h, p + "attention." + n).view(B, T, H, d).permute(0, 2, 1, 3) for n in ("query", "key", "value"))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)
        probs = torch.softmax(scores, dim=-1)
        atts.append(probs)
        ctx = torch.matmul(probs, v).transpose(2, 1).flatten(2)
        a = ln(h + lin(ctx, p + "attention.dense"), p + "attention.LayerNorm", E)
        f = lin(act(lin(a, p + "ffn")), p + "ffn_output")
        h = ln(f + a, p + "full_layer_layer_norm", E)
        hidden.append(h)
    return torch.stack(atts), torch.stack(hidden)


def albert():
    family(27, albert_state, albert_forward,
           ("albert", ALBERT, {"prefix": "albert.", "types": TYPES}),
           ("albert_groups_f16", ALBERT_GROUPS, {"dtype": torch.float16, "types": TYPES}))


# GPTBigCode (--gpt-bigcode: torch.manual_seed(28)): models/gpt_bigcode/modeling_gpt_bigcode.py
# GPTBigCodeModel. gpt_bigcode: multi_query (one K/V head), "transformer." names, n_positions 16;
# gpt_bigcode_mha_f16: multi_query false (q, k, v per head in c_attn), scale_attn_weights false, n_inner
# 24, exact gelu, attribute_map names. The attentions are stacked (B, H, T, T), as attn gives them and
# transformers does now (the MQA path of its early versions returned (B, T, H, T)).
GPT_BIGCODE = {"model_type": "gpt_bigcode", "architectures": ["GPTBigCodeForCausalLM"], "vocab_size": 64, "n_embd": 32,
               "n_layer": 2, "n_head": 4, "n_positions": 16, "n_inner": None, "multi_query": True,
               "activation_function": "gelu_pytorch_tanh", "layer_norm_epsilon": 1e-5}
GPT_BIGCODE_MHA = {"model_type": "gpt_bigcode", "architectures": ["GPTBigCodeModel"], "vocab_size": 64, "hidden_size": 32,
                   "num_hidden_layers": 3, "num_attention_heads": 4, "max_position_embeddings": 8, "n_inner": 24,
                   "multi_query": False, "scale_attn_weights": False, "activation_function": "gelu",
                   "layer_norm_epsilon": 1e-4}


def gpt_bigcode_sizes(c):
    E = c.get("n_embd", c.get("hidden_size"))
    return E, c.get("n_head", c.get("num_attention_heads")), c.get("n_layer", c.get("num_hidden_layers")), \
        c.get("n_inner") or 4 * E, c.get("n_positions", c.get("max_position_embeddings"))


def gpt_bigcode_state(c):
    E, H, L, Fi, P = gpt_bigcode_sizes(c)
    d, kv = E // H, 1 if c.get("multi_query", True) else H
    sd = {"wte.weight": rnd(c["vocab_size"], E, std=1.0), "wpe.weight": rnd(P, E, std=0.5)}

    def linear(name, rows, cols, std=0.3):
        sd[name + ".weight"], sd[name + ".bias"] = rnd(rows, cols, std=std), rnd(rows, std=0.1)
    for l in range(L):
        p = "h.%d." % l
        ln_params(sd, p + "ln_1", E)
        linear(p + "attn.c_attn", E + 2 * kv * d, E, std=0.4)
        linear(p + "attn.c_proj", E, E)
        ln_params(sd, p + "ln_2", E)
        linear(p + "mlp.c_fc", Fi, E)
        linear(p + "mlp.c_proj", E, Fi)
    ln_params(sd, "ln_f", E)
    return sd


def gpt_bigcode_forward(sd, c, ids):
    B, T = ids.shape
    E, H, L, Fi, P = gpt_bigcode_sizes(c)
    d, eps, mq = E // H, c["layer_norm_epsilon"], c.get("multi_query", True)
    scale = d ** -0.5 if c.get("scale_attn_weights", True) else 1.0
    act = {"gelu": F.gelu, "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh")}[c["activation_function"]]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd[n + ".bias"])
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    h = sd["wte.weight"][ids] + sd["wpe.weight"][torch.arange(T)][None]
    hidden, atts = [], []
    for l in range(L):
        hidden.append(h)
        p = "h.%d." % l
        fused = lin(ln(h, p + "ln_1"), p + "attn.c_attn")
        if mq:  # query (B, T, E), key_value (B, T, 2d); scores (B, T, H, T) as the MQA path computes them
            query, key_value = fused.split((E, 2 * d), dim=2)
            key, value = key_value.split((d, d), dim=-1)
            w = torch.baddbmm(torch.zeros(B, T * H, T), query.reshape(B, T * H, d), key.transpose(-1, -2), beta=1,
                              alpha=scale).view(B, T, H, T)
            w = torch.softmax(torch.where(mask[None, :, None, :], w, torch.finfo(torch.float32).min), dim=-1)
            out = torch.bmm(w.view(B, T * H, T), value).view(B, T, E)
            atts.append(w.permute(0, 2, 1, 3))
        else:  # per head q, k, v: view (B, T, H, 3d)
            query, key_value = fused.view(B, T, H, 3 * d).transpose(1, 2).split((d, 2 * d), dim=3)
            key, value = key_value.split((d, d), dim=-1)
            w = torch.baddbmm(torch.zeros(B * H, T, T), query.reshape(B * H, T, d), key.transpose(-1, -2).reshape(B * H, d, T),
                              beta=1, alpha=scale).view(B, H, T, T)
            w = torch.softmax(torch.where(mask, w, torch.finfo(torch.float32).min), dim=-1)
            out = torch.matmul(w, value).transpose(1, 2).reshape(B, T, E)
            atts.append(w)
        h = lin(out, p + "attn.c_proj") + h
        h = h + lin(act(lin(ln(h, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
    hidden.append(ln(h, "ln_f"))
    return torch.stack(atts), torch.stack(hidden)


def gpt_bigcode():
    family(28, gpt_bigcode_state, gpt_bigcode_forward,
           ("gpt_bigcode", GPT_BIGCODE, {"prefix": "transformer."}),
           ("gpt_bigcode_mha_f16", GPT_BIGCODE_MHA, {"dtype": torch.float16}))


# Nemotron (--nemotron: torch.manual_seed(32)): models/nemotron/modeling_nemotron.py NemotronModel: LlamaModel's
# layer with NemotronLayerNorm1P (F.layer_norm by weight + 1, with bias), RoPE on the leading
# partial_rotary_factor of each head's dims, NemotronMLP down_proj(relu2(up_proj(x))). nemotron: G=2, the
# default factor 0.5, no biases; nemotron_bias_bf16: head_dim 16 of its own (hidden 32, 4 heads), factor 0.25,
# attention_bias and mlp_bias, linear rope_scaling.
NEMOTRON = {"model_type": "nemotron", "architectures": ["NemotronForCausalLM"], "vocab_size": 64, "hidden_size": 32,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
            "hidden_act": "relu2", "norm_eps": 1e-5, "max_position_embeddings": 64, "rope_theta": 100.0}
NEMOTRON_BIAS = {"model_type": "nemotron", "architectures": ["NemotronForCausalLM"], "vocab_size": 64, "hidden_size": 32,
                 "num_hidden_layers": 3, "num_attention_heads": 4, "head_dim": 16, "intermediate_size": 24,
                 "hidden_act": "relu2", "norm_eps": 1e-4, "partial_rotary_factor": 0.25, "attention_bias": True,
                 "mlp_bias": True, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}


def nemotron_state(c):
    E, H, Fi = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"]
    G, d = c.get("num_key_value_heads", H), c.get("head_dim") or E // H
    ab, mb = c.get("attention_bias", False), c.get("mlp_bias", False)
    sd = {"embed_tokens.weight": rnd(c["vocab_size"], E, std=1.0)}

    def linear(name, rows, cols, bias, std=0.3):
        sd[name + ".weight"] = rnd(rows, cols, std=std)
        if bias:
            sd[name + ".bias"] = rnd(rows, std=0.1)
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        sd[p + "input_layernorm.weight"], sd[p + "input_layernorm.bias"] = rnd(E, std=0.1), rnd(E, std=0.1)  # (1 + w)
        for n, rows in (("q_proj", H * d), ("k_proj", G * d), ("v_proj", G * d)):
            linear(p + "self_attn." + n, rows, E, ab, std=0.4)
        linear(p + "self_attn.o_proj", E, H * d, ab)
        sd[p + "post_attention_layernorm.weight"], sd[p + "post_attention_layernorm.bias"] = rnd(E, std=0.1), rnd(E, std=0.1)
        linear(p + "mlp.up_proj", Fi, E, mb)
        linear(p + "mlp.down_proj", E, Fi, mb, std=0.2)
    sd["norm.weight"], sd["norm.bias"] = rnd(E, std=0.1), rnd(E, std=0.1)
    return sd


def nemotron_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["norm_eps"]
    G, d = c.get("num_key_value_heads", H), c.get("head_dim") or E // H
    rotary = int(d * c.get("partial_rotary_factor", 0.5))
    inv_freq, _ = rope_inv_freq(c, rotary, T)
    freqs = (inv_freq[None, :, None].float() @ torch.arange(T)[None, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd.get(n + ".bias"))
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"] + 1, sd[n + ".bias"], eps)  # NemotronLayerNorm1P
    relu2 = lambda x: torch.square(F.relu(x))
    h = sd["embed_tokens.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        hidden.append(h)
        p = "layers.%d." % l
        x = ln(h, p + "input_layernorm")
        q = lin(x, p + "self_attn.q_proj").view(B, T, H, d).transpose(1, 2)
        k = lin(x, p + "self_attn.k_proj").view(B, T, G, d).transpose(1, 2)
        v = lin(x, p + "self_attn.v_proj").view(B, T, G, d).transpose(1, 2)

        def turn(t):  # apply_rotary_pos_emb: the leading rot_dim dims turned, the rest passed
            r = t[..., :rotary]
            return torch.cat([r * cos + rotate_half(r) * sin, t[..., rotary:]], dim=-1)
        q, k = turn(q), turn(k)
        k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
        w = (torch.matmul(q, k.transpose(2, 3)) * d ** -0.5).masked_fill(causal, float("-inf"))
        w = torch.softmax(w, dim=-1, dtype=torch.float32)
        atts.append(w)
        h = h + lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, H * d), p + "self_attn.o_proj")
        h = h + lin(relu2(lin(ln(h, p + "post_attention_layernorm"), p + "mlp.up_proj")), p + "mlp.down_proj")
    hidden.append(ln(h, "norm"))
    return torch.stack(atts), torch.stack(hidden)


def nemotron():
    family(32, nemotron_state, nemotron_forward,
           ("nemotron", NEMOTRON, {"prefix": "model."}),
           ("nemotron_bias_bf16", NEMOTRON_BIAS, {"dtype": torch.bfloat16, "prefix": "model."}))


# MPT (--mpt: torch.manual_seed(41)): models/mpt/modeling_mpt.py MptModel. mpt: 4 heads (a power of 2),
# "transformer." names; mpt_clip_f16: 6 heads (build_mpt_alibi_tensor's interleaved slopes), clip_qkv 0.6
# (the projections reach past it), softmax_scale 0.3, 3 layers, float16, max_seq_len 7 (the tokens).
MPT = {"model_type": "mpt", "architectures": ["MptForCausalLM"], "vocab_size": 64, "d_model": 32, "n_layers": 2,
       "n_heads": 4, "expansion_ratio": 4, "max_seq_len": 16, "layer_norm_epsilon": 1e-5, "no_bias": True,
       "attn_config": {"attn_type": "multihead_attention", "alibi": True, "alibi_bias_max": 8, "clip_qkv": None,
                       "softmax_scale": None, "qk_ln": False}}
MPT_CLIP = {"model_type": "mpt", "architectures": ["MptModel"], "vocab_size": 64, "d_model": 36, "n_layers": 3,
            "n_heads": 6, "max_seq_len": 7, "layer_norm_epsilon": 1e-4,
            "attn_config": {"clip_qkv": 0.6, "softmax_scale": 0.3}}


def mpt_state(c):
    E, L = c["d_model"], c["n_layers"]
    sd = {"wte.weight": rnd(c["vocab_size"], E, std=1.0)}
    for l in range(L):
        p = "blocks.%d." % l
        sd[p + "norm_1.weight"] = 1.0 + rnd(E, std=0.1)
        sd[p + "attn.Wqkv.weight"] = rnd(3 * E, E, std=0.3)
        sd[p + "attn.out_proj.weight"] = rnd(E, E)
        sd[p + "norm_2.weight"] = 1.0 + rnd(E, std=0.1)
        sd[p + "ffn.up_proj.weight"] = rnd(4 * E, E)
        sd[p + "ffn.down_proj.weight"] = rnd(E, 4 * E, std=0.1)
    sd["norm_f.weight"] = 1.0 + rnd(E, std=0.1)
    return sd


def mpt_slopes(n_heads, alibi_bias_max=8):
    """build_mpt_alibi_tensor's slopes (its own formula, not BLOOM's)."""
    n2 = 2 ** math.ceil(math.log2(n_heads))
    base = torch.arange(1, n2 + 1, dtype=torch.int64).float() * (alibi_bias_max / n2)
    slopes = 1.0 / torch.pow(2, base)
    if n2 != n_heads:
        slopes = torch.cat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes


def mpt_forward(sd, c, ids):
    B, T = ids.shape
    E, H, L, eps, S = c["d_model"], c["n_heads"], c["n_layers"], c["layer_norm_epsilon"], c["max_seq_len"]
    d = E // H
    scale = c["attn_config"].get("softmax_scale") or 1 / math.sqrt(E / H)
    clip = c["attn_config"].get("clip_qkv")
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], None, eps)
    # (H, 1, S) as MptModel builds it for max_seq_len, its last T columns used
    alibi = (torch.arange(1 - S, 1, dtype=torch.int32).view(1, 1, S) * mpt_slopes(H).view(H, 1, 1))[:, :, S - T:]
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    h = sd["wte.weight"][ids]
    hidden, atts = [], []
    for l in range(L):
        hidden.append(h)
        p = "blocks.%d." % l
        qkv = F.linear(ln(h, p + "norm_1"), sd[p + "attn.Wqkv.weight"])
        if clip:
            qkv = qkv.clamp(min=-clip, max=clip)
        q, k, v = (t.reshape(B, T, H, d).transpose(1, 2) for t in qkv.chunk(3, dim=2))
        scores = torch.matmul(q, k.transpose(-1, -2)) * scale + alibi
        w = torch.softmax(scores.masked_fill(causal, torch.finfo(torch.float32).min), dim=-1)
        atts.append(w)
        ctx = torch.matmul(w, v).permute(0, 2, 1, 3).reshape(B, T, E)
        h = F.linear(ctx, sd[p + "attn.out_proj.weight"]) + h
        h = F.linear(F.gelu(F.linear(ln(h, p + "norm_2"), sd[p + "ffn.up_proj.weight"])), sd[p + "ffn.down_proj.weight"]) + h
    hidden.append(ln(h, "norm_f"))
    return torch.stack(atts), torch.stack(hidden)


def mpt():
    family(41, mpt_state, mpt_forward,
           ("mpt", MPT, {"prefix": "transformer."}),
           ("mpt_clip_f16", MPT_CLIP, {"dtype": torch.float16}))


# Persimmon (--persimmon: torch.manual_seed(43)): models/persimmon/modeling_persimmon.py PersimmonModel.
# persimmon: its defaults' rope_theta (25000), partial_rotary_factor (0.5), qk_layernorm and relu2, 4 heads,
# "model." names; persimmon_bf16: no qk_layernorm, a quarter of each head turned, rope_theta 100 with linear
# rope_scaling 2, gelu, 2 heads of 16, 3 layers, bfloat16.
PERSIMMON = {"model_type": "persimmon", "architectures": ["PersimmonForCausalLM"], "vocab_size": 64, "hidden_size": 32,
             "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 16,
             "layer_norm_eps": 1e-5}
PERSIMMON_BF16 = {"model_type": "persimmon", "architectures": ["PersimmonModel"], "vocab_size": 64, "hidden_size": 32,
                  "intermediate_size": 40, "num_hidden_layers": 3, "num_attention_heads": 2, "hidden_act": "gelu",
                  "qk_layernorm": False, "partial_rotary_factor": 0.25, "rope_theta": 100.0,
                  "rope_scaling": {"type": "linear", "factor": 2.0}, "layer_norm_eps": 1e-4}


def persimmon_state(c):
    E, Fi, H = c["hidden_size"], c["intermediate_size"], c["num_attention_heads"]
    sd = {"embed_tokens.weight": rnd(c["vocab_size"], E, std=1.0)}
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        ln_params(sd, p + "input_layernorm", E)
        sd[p + "self_attn.query_key_value.weight"], sd[p + "self_attn.query_key_value.bias"] = rnd(3 * E, E, std=0.4), rnd(3 * E, std=0.2)
        if c.get("qk_layernorm", True):
            ln_params(sd, p + "self_attn.q_layernorm", E // H)
            ln_params(sd, p + "self_attn.k_layernorm", E // H)
        sd[p + "self_attn.dense.weight"], sd[p + "self_attn.dense.bias"] = rnd(E, E), rnd(E, std=0.2)
        ln_params(sd, p + "post_attention_layernorm", E)
        sd[p + "mlp.dense_h_to_4h.weight"], sd[p + "mlp.dense_h_to_4h.bias"] = rnd(Fi, E), rnd(Fi, std=0.2)
        sd[p + "mlp.dense_4h_to_h.weight"], sd[p + "mlp.dense_4h_to_h.bias"] = rnd(E, Fi, std=0.1), rnd(E, std=0.2)
    ln_params(sd, "final_layernorm", E)
    return sd


def persimmon_forward(sd, c, ids):
    B, T = ids.shape
    E, H, eps = c["hidden_size"], c["num_attention_heads"], c["layer_norm_eps"]
    d = E // H
    rot = int(c.get("partial_rotary_factor", 0.5) * d)  # PersimmonRotaryEmbedding's dim
    base = c.get("rope_theta", 25000.0)
    inv_freq = 1.0 / (base ** (torch.arange(0, rot, 2, dtype=torch.int64).float() / rot))
    t = torch.arange(T, dtype=torch.int64).type_as(inv_freq)
    if c.get("rope_scaling"):  # linear: positions divided by the factor
        t = t / c["rope_scaling"]["factor"]
    emb = torch.cat((torch.outer(t, inv_freq),) * 2, dim=-1)
    cos, sin = emb.cos()[None, None], emb.sin()[None, None]
    act = {"relu2": lambda x: torch.square(F.relu(x)), "gelu": F.gelu}[c.get("hidden_act", "relu2")]
    lin = lambda x, n: F.linear(x, sd[n + ".weight"], sd[n + ".bias"])
    ln = lambda x, n, w=E: F.layer_norm(x, (w,), sd[n + ".weight"], sd[n + ".bias"], eps)
    mask = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
    h = sd["embed_tokens.weight"][ids]
    hidden, atts = [], []
    for l in range(c["num_hidden_layers"]):
        p = "layers.%d." % l
        hidden.append(h)
        fused = lin(ln(h, p + "input_layernorm"), p + "self_attn.query_key_value").view(B, T, H, 3, d)
        q, k, v = fused[..., 0, :], fused[..., 1, :], fused[..., 2, :]
        if c.get("qk_layernorm", True):
            q, k = ln(q, p + "self_attn.q_layernorm", d), ln(k, p + "self_attn.k_layernorm", d)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        turn = lambda x: torch.cat((x[..., :rot] * cos + rotate_half(x[..., :rot]) * sin, x[..., rot:]), dim=-1)
        q, k = turn(q), turn(k)
        w = torch.softmax(torch.matmul(q, k.transpose(2, 3)) / math.sqrt(d) + mask, dim=-1, dtype=torch.float32)
        atts.append(w)
        h = lin(torch.matmul(w, v).transpose(1, 2).reshape(B, T, E), p + "self_attn.dense") + h
        h = lin(act(lin(ln(h, p + "post_attention_layernorm"), p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h") + h
    hidden.append(ln(h, "final_layernorm"))
    return torch.stack(atts), torch.stack(hidden)


def persimmon():
    family(43, persimmon_state, persimmon_forward,
           ("persimmon", PERSIMMON, {"prefix": "model."}),
           ("persimmon_bf16", PERSIMMON_BF16, {"dtype": torch.bfloat16}))


def llama_biases():
    torch.manual_seed(9)
    save("llama_biases", LLAMA_BIASES, llama_state(LLAMA_BIASES, True), lambda sd: llama_forward(sd, LLAMA_BIASES, IDS),
         prefix="model.")


def phi3():
    torch.manual_seed(8)
    for name, c, dtype in (("phi3", PHI3, torch.float32), ("phi3_su_bf16", PHI3_SU, torch.bfloat16),
                           ("llama_longrope", LLAMA_LONGROPE, torch.float32)):
        save(name, c, llama_state(c, False), lambda sd, c=c: llama_forward(sd, c, IDS), dtype, prefix="model.")


def rounded(sd, dtype):
    """The weights as stored (dtype) and as the reference computes with them (float32, the same values)."""
    stored = {n: t.to(dtype) for n, t in sd.items()}
    return stored, {n: t.float() for n, t in stored.items()}


def save(name, config, sd, forward, dtype=torch.float32, prefix="", shards=1, types=None, ids=IDS, torch_save=False,
         extra=None, root=OUT):
    folder = os.path.join(root, name)
    os.makedirs(folder, exist_ok=True)
    stored, sd32 = rounded(sd, dtype)
    with torch.no_grad():
        att, hid = forward(sd32)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    tensors = {prefix + n: t for n, t in stored.items()}
    tensors.update({n: t.to(dtype) for n, t in (extra or {}).items()})  # beside the model, unused
    # torch_save: the zip format torch.save writes by default (torch >= 1.6)
    write = (lambda path, ts: torch.save({n: t.contiguous() for n, t in ts.items()}, path)) if torch_save \
        else write_safetensors
    stem, ext = ("pytorch_model", "bin") if torch_save else ("model", "safetensors")
    if shards == 1:
        write(os.path.join(folder, "%s.%s" % (stem, ext)), tensors)
    else:
        names = list(tensors)
        weight_map = {}
        for s in range(shards):
            file = "%s-%05d-of-%05d.%s" % (stem, s + 1, shards, ext)
            part = names[s * len(names) // shards:(s + 1) * len(names) // shards]
            write(os.path.join(folder, file), {n: tensors[n] for n in part})
            weight_map.update({n: file for n in part})
        with open(os.path.join(folder, "%s.%s.index.json" % (stem, ext)), "w") as f:
            json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    np.savetxt(os.path.join(folder, "ids.txt"), ids.numpy(), fmt="%d", delimiter=",")
    if types is not None:
        np.savetxt(os.path.join(folder, "token_types.txt"), types.numpy(), fmt="%d", delimiter=",")
    np.save(os.path.join(folder, "attentions.npy"), att.numpy().astype(np.float32))
    np.save(os.path.join(folder, "hidden_states.npy"), hid.numpy().astype(np.float32))
    if name == "llama":  # outputs.attentions[1][:, 2]: what --layer 1 --head 2 gives
        np.save(os.path.join(folder, "attentions_layer1_head2.npy"), att[1][:, 2].numpy().astype(np.float32))
    print(name, tuple(att.shape), tuple(hid.shape), DTYPES[dtype])


def family(seed, state, forward, *folders):
    """A family's folders from one torch.manual_seed(seed) stream, in order: each (name, config,
    save's keyword arguments); state(config) draws the weights, forward(sd, config, IDS[, types])
    is the reference, with the folder's token types when it has them."""
    torch.manual_seed(seed)
    for name, c, opts in folders:
        types = opts.get("types")
        run = (lambda sd, c=c: forward(sd, c, IDS)) if types is None else (lambda sd, c=c, t=types: forward(sd, c, IDS, t))
        save(name, c, state(c), run, **opts)


def variants():
    torch.manual_seed(1)
    save("gpt2_variants", GPT2_VARIANTS, gpt2_state(GPT2_VARIANTS), lambda sd: gpt2_forward(sd, GPT2_VARIANTS, IDS))
    save("gpt2_unscaled", GPT2_UNSCALED, gpt2_state(GPT2_UNSCALED), lambda sd: gpt2_forward(sd, GPT2_UNSCALED, IDS))
    save("qwen2_window", QWEN2_WINDOW, llama_state(QWEN2_WINDOW, True), lambda sd: llama_forward(sd, QWEN2_WINDOW, IDS),
         prefix="model.")


def rope_variants():
    torch.manual_seed(2)
    for name, c in (("llama_yarn", LLAMA_YARN), ("llama_yarn_v5", LLAMA_YARN_V5), ("llama_dynamic", LLAMA_DYNAMIC)):
        save(name, c, llama_state(c, False), lambda sd, c=c: llama_forward(sd, c, IDS), prefix="model.")
    # GPT2Model's token_type_ids, looked up in wte (token ids as types, any below vocab_size)
    save("gpt2_token_types", GPT2, gpt2_state(GPT2), lambda sd: gpt2_forward(sd, GPT2, IDS, GPT2_TYPES),
         types=GPT2_TYPES)
    # pytorch_model.bin in shards, with pytorch_model.bin.index.json (older Llama-family uploads)
    save("qwen2_bin_shards", QWEN2, llama_state(QWEN2, True), lambda sd: llama_forward(sd, QWEN2, IDS), torch.bfloat16,
         prefix="model.", shards=3, torch_save=True)


def tiny():
    torch.manual_seed(0)
    save("bert", BERT, bert_state(BERT), lambda sd: bert_forward(sd, BERT, IDS, TYPES), types=TYPES)
    save("bert_f16", BERT, bert_state(BERT), lambda sd: bert_forward(sd, BERT, IDS, TYPES), torch.float16,
         prefix="bert.", types=TYPES)
    save("gpt2", GPT2, gpt2_state(GPT2), lambda sd: gpt2_forward(sd, GPT2, IDS), prefix="transformer.")
    save("llama", LLAMA, llama_state(LLAMA, False), lambda sd: llama_forward(sd, LLAMA, IDS), prefix="model.")
    save("llama_bf16", LLAMA_LINEAR, llama_state(LLAMA_LINEAR, False), lambda sd: llama_forward(sd, LLAMA_LINEAR, IDS),
         torch.bfloat16, prefix="model.")
    save("mistral_f16", MISTRAL, llama_state(MISTRAL, False), lambda sd: llama_forward(sd, MISTRAL, IDS), torch.float16,
         prefix="model.")
    save("qwen2_bf16", QWEN2, llama_state(QWEN2, True), lambda sd: llama_forward(sd, QWEN2, IDS), torch.bfloat16,
         prefix="model.", shards=2)
    bert_uncased()
    variants()
    rope_variants()
    qwen3()
    roberta()
    float64()
    gemma()
    gemma3()
    phi3()
    llama_biases()
    gpt_neox()
    distilbert()
    bloom()
    olmo2()
    phi()
    granite()
    mixtral()
    qwen_moe_models()
    electra()
    starcoder2()
    stablelm()
    cohere()
    olmo()
    gptj()
    falcon()
    opt()
    gpt_neo()
    mpt()
    codegen()
    persimmon()
    albert()
    gpt_bigcode()
    olmo3_smollm3()
    cohere2()
    glm()
    nemotron()


# "time flies like an arrow" / "fruit flies like a banana" through bert-base-uncased's tokenizer
# (tests/e2e/test_tokenize.sh checks these ids against @huggingface/tokenizers).
PAIR_IDS = torch.tensor([[101, 2051, 10029, 2066, 2019, 8612, 102, 5909, 10029, 2066, 1037, 15212, 102]])
PAIR_TYPES = torch.tensor([[0] * 7 + [1] * 6])
BERT_UNCASED = dict(BERT, vocab_size=30522, hidden_size=8, num_attention_heads=2, intermediate_size=16,
                    max_position_embeddings=32)


def bert_uncased():
    """bert_uncased: a tiny BERT with bert-base-uncased's 30,522-token vocabulary (vocab.txt
    written from data/tokenize/bert-base-uncased/tokenizer.json.gz), float16 weights, and the
    reference on the tutorial's sentence pair. bert_bin: the tiny bert config with a torch.save
    state_dict (pytorch_model.bin, float32)."""
    import gzip
    torch.manual_seed(4)
    with gzip.open(os.path.join(HERE, "..", "tokenize", "bert-base-uncased", "tokenizer.json.gz"), "rt") as f:
        vocab = json.load(f)["model"]["vocab"]
    assert len(vocab) == BERT_UNCASED["vocab_size"] and sorted(vocab.values()) == list(range(len(vocab)))
    save("bert_uncased", BERT_UNCASED, bert_state(BERT_UNCASED),
         lambda sd: bert_forward(sd, BERT_UNCASED, PAIR_IDS, PAIR_TYPES), torch.float16, types=PAIR_TYPES, ids=PAIR_IDS)
    with open(os.path.join(OUT, "bert_uncased", "vocab.txt"), "w", encoding="utf-8") as f:
        f.writelines(t + "\n" for t in sorted(vocab, key=vocab.get))
    save("bert_bin", BERT, bert_state(BERT), lambda sd: bert_forward(sd, BERT, IDS, TYPES), types=TYPES, torch_save=True)


# ---- RobertaModel (--roberta) ----------------------------------------------------------------
# models/roberta/modeling_roberta.py: BertModel's encoder under RobertaEmbeddings, whose position
# ids come from create_position_ids_from_input_ids: pad tokens (pad_token_id) keep position
# padding_idx, the others count on from padding_idx + 1; weights under "roberta." as
# RobertaForMaskedLM stores them (its lm_head left out, no pooler: add_pooling_layer=False).
# A hand-made ByteLevel BPE tokenizer.json (RobertaProcessing: <s> A </s>) whose merges build
# whole words: "time flies like an arrow" is the first row of ids; the second row is padded on
# the right, the third on the left and in the middle. No attention mask (attn takes none):
# pad tokens are attended to, as RobertaModel(input_ids) without attention_mask does.
ROBERTA = {"model_type": "roberta", "architectures": ["RobertaForMaskedLM"], "vocab_size": 64, "hidden_size": 32,
           "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64, "hidden_act": "gelu",
           "max_position_embeddings": 20, "type_vocab_size": 1, "layer_norm_eps": 1e-5, "pad_token_id": 1,
           "bos_token_id": 0, "eos_token_id": 2, "position_embedding_type": "absolute"}
ROBERTA_WORDS = ["time", "\u0120flies", "\u0120like", "\u0120an", "\u0120arrow"]


def roberta_positions(ids, padding_idx):
    mask = ids.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


def roberta_tokenizer():
    """vocab: <s> <pad> </s> <unk>, the words' characters, then each prefix of each word; merges:
    a word's prefixes, left to right (no merge applies across words)."""
    vocab, merges = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}, []
    for ch in "".join(ROBERTA_WORDS):
        vocab.setdefault(ch, len(vocab))
    for w in ROBERTA_WORDS:
        for n in range(2, len(w) + 1):
            if w[:n] not in vocab:  # "\u0120a" of "\u0120an" and "\u0120arrow": once
                merges.append(w[:n - 1] + " " + w[n - 1])
                vocab[w[:n]] = len(vocab)
    assert len(vocab) <= ROBERTA["vocab_size"]
    special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
                "special": True} for t, i in list(vocab.items())[:4]]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": special, "normalizer": None,
            "pre_tokenizer": byte_level,
            "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                               "trim_offsets": True, "add_prefix_space": False},
            "decoder": byte_level,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                      "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                      "merges": merges}}


def roberta():
    torch.manual_seed(5)
    tok = roberta_tokenizer()
    text = [0] + [tok["model"]["vocab"][w] for w in ROBERTA_WORDS] + [2]
    ids = torch.tensor([text, [0, 33, 8, 50, 2, 1, 1], [1, 1, 0, 21, 1, 9, 2]])
    forward = lambda sd, ids: bert_forward(sd, ROBERTA, ids, torch.zeros_like(ids), roberta_positions(ids, 1))
    text_att = []  # the first row alone (what --text gives): its own reference

    def both(sd):
        text_att.append(forward(sd, ids[:1])[0])
        return forward(sd, ids)
    save("roberta", ROBERTA, bert_state(ROBERTA), both, prefix="roberta.", ids=ids)
    folder = os.path.join(OUT, "roberta")
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, indent=1, ensure_ascii=False)
    np.save(os.path.join(folder, "text_attentions.npy"), text_att[0].numpy().astype(np.float32))


# ---- DistilBertModel (--distilbert) ----------------------------------------------------------
# models/distilbert/modeling_distilbert.py: word + position embeddings (no token types) and
# LayerNorm, then per layer q_lin/k_lin/v_lin, q / sqrt(dim_per_head) before q @ k^T, softmax,
# out_lin, sa_layer_norm(out + x), ffn.lin1, the activation, ffn.lin2, output_layer_norm(ffn + sa);
# every LayerNorm's eps 1e-12. distilbert: DistilBertForMaskedLM's "distilbert." names, float32,
# gelu; distilbert_aliased_f16: the base model's names, DistilBertConfig's attribute_map aliases
# (hidden_size, num_attention_heads, num_hidden_layers) in config.json, gelu_new, float16 weights.
DISTILBERT = {"model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"], "vocab_size": 64, "dim": 32,
              "n_layers": 2, "n_heads": 4, "hidden_dim": 48, "activation": "gelu", "max_position_embeddings": 16,
              "sinusoidal_pos_embds": False, "pad_token_id": 0}
DISTILBERT_ALIASED = {"model_type": "distilbert", "architectures": ["DistilBertModel"], "vocab_size": 64,
                      "hidden_size": 24, "num_hidden_layers": 3, "num_attention_heads": 2, "hidden_dim": 40,
                      "activation": "gelu_new", "max_position_embeddings": 12}


def distilbert_state(c):
    E, F_, V = c.get("dim", c.get("hidden_size")), c["hidden_dim"], c["vocab_size"]
    sd = {"embeddings.word_embeddings.weight": rnd(V, E, std=1.0),
          "embeddings.position_embeddings.weight": rnd(c["max_position_embeddings"], E, std=0.5)}
    ln_params(sd, "embeddings.LayerNorm", E)
    for l in range(c.get("n_layers", c.get("num_hidden_layers"))):
        p = "transformer.layer.%d." % l
        for n in ("q_lin", "k_lin", "v_lin", "out_lin"):
            sd[p + "attention.%s.weight" % n] = rnd(E, E, std=0.4)
            sd[p + "attention.%s.bias" % n] = rnd(E, std=0.1)
        ln_params(sd, p + "sa_layer_norm", E)
        sd[p + "ffn.lin1.weight"] = rnd(F_, E)
        sd[p + "ffn.lin1.bias"] = rnd(F_, std=0.1)
        sd[p + "ffn.lin2.weight"] = rnd(E, F_)
        sd[p + "ffn.lin2.bias"] = rnd(E, std=0.1)
        ln_params(sd, p + "output_layer_norm", E)
    return sd


def distilbert_forward(sd, c, ids):
    B, T = ids.shape
    E, H = c.get("dim", c.get("hidden_size")), c.get("n_heads", c.get("num_attention_heads"))
    d, eps = E // H, 1e-12
    act = {"gelu": F.gelu, "gelu_new": gelu_new, "relu": F.relu}[c["activation"]]
    h = sd["embeddings.word_embeddings.weight"][ids] + sd["embeddings.position_embeddings.weight"][torch.arange(T)[None]]
    Ee = c.get("embedding_size", E)
    h = F.layer_norm(h, (Ee,), sd["embeddings.LayerNorm.weight"], sd["embeddings.LayerNorm.bias"], eps)
    if Ee != E:  # ElectraModel: hidden_states = self.embeddings_project(hidden_states), the encoder's input
        h = F.linear(h, sd["embeddings_project.weight"], sd["embeddings_project.bias"])
    hidden, atts = [h], []
    for l in range(c.get("n_layers", c.get("num_hidden_layers"))):
        p = "transformer.layer.%d.attention." % l
        lin = lambda x, n: F.linear(x, sd[p + n + ".weight"], sd[p + n + ".bias"])
        shape = lambda x: x.view(B, -1, H, d).transpose(1, 2)
        q, k, v = shape(lin(h, "q_lin")), shape(lin(h, "k_lin")), shape(lin(h, "v_lin"))
        q = q / math.sqrt(d)
        weights = torch.softmax(torch.matmul(q, k.transpose(2, 3)), dim=-1)
        atts.append(weights)
        ctx = lin(torch.matmul(weights, v).transpose(1, 2).reshape(B, T, E), "out_lin")
        p = "transformer.layer.%d." % l
        sa = F.layer_norm(ctx + h, (E,), sd[p + "sa_layer_norm.weight"], sd[p + "sa_layer_norm.bias"], eps)
        f = F.linear(act(F.linear(sa, sd[p + "ffn.lin1.weight"], sd[p + "ffn.lin1.bias"])),
                     sd[p + "ffn.lin2.weight"], sd[p + "ffn.lin2.bias"])
        h = F.layer_norm(f + sa, (E,), sd[p + "output_layer_norm.weight"], sd[p + "output_layer_norm.bias"], eps)
        hidden.append(h)
    return torch.stack(atts), torch.stack(hidden)


def distilbert():
    family(11, distilbert_state, distilbert_forward,
           ("distilbert", DISTILBERT, {"prefix": "distilbert."}),
           ("distilbert_aliased_f16", DISTILBERT_ALIASED, {"dtype": torch.float16}))


# ---- BloomModel (--bloom) ---------------------------------------------------------------------
# models/bloom/modeling_bloom.py: word_embeddings and word_embeddings_layernorm, per block
# input_layernorm, query_key_value viewed (B, T, H, 3, d), scores alibi.baddbmm(q, k^T, beta=1,
# alpha=1/sqrt(d)) with build_alibi_tensor's slope_h * j, the causal mask, softmax in float32,
# dense + residual, post_attention_layernorm, dense_h_to_4h, bloom_gelu_forward, dense_4h_to_h +
# residual (the LayerNorms' outputs as residuals with apply_residual_connection_post_layernorm);
# ln_f. bloom: BloomForCausalLM's "transformer." names, 6 heads (ALiBi's slopes for a count that is
# no power of two), float32; bloom_post_ln_f16: the base model's names, n_embed and
# num_attention_heads (the older key and the alias), apply_residual_connection_post_layernorm,
# 4 heads, float16; bloom_tp_sliced: pretraining_tp 4 with slow_but_exact, whose output projections
# transformers sums slice by slice without their biases.
BLOOM = {"model_type": "bloom", "architectures": ["BloomForCausalLM"], "vocab_size": 64, "hidden_size": 36,
         "n_layer": 2, "n_head": 6, "layer_norm_epsilon": 1e-5, "apply_residual_connection_post_layernorm": False,
         "pretraining_tp": 1, "slow_but_exact": False}
BLOOM_TP_SLICED = dict(BLOOM, pretraining_tp=4, slow_but_exact=True, n_head=4)
BLOOM_POST_LN = {"model_type": "bloom", "architectures": ["BloomModel"], "vocab_size": 64, "n_embed": 32,
                 "num_hidden_layers": 3, "num_attention_heads": 4, "layer_norm_epsilon": 1e-5,
                 "apply_residual_connection_post_layernorm": True}


def bloom_sizes(c):
    return (c.get("hidden_size", c.get("n_embed")), c.get("n_head", c.get("num_attention_heads")),
            c.get("n_layer", c.get("num_hidden_layers")))


def bloom_state(c):
    E, _, L = bloom_sizes(c)
    sd = {"word_embeddings.weight": rnd(c["vocab_size"], E, std=1.0)}
    ln_params(sd, "word_embeddings_layernorm", E)
    for l in range(L):
        p = "h.%d." % l
        ln_params(sd, p + "input_layernorm", E)
        sd[p + "self_attention.query_key_value.weight"] = rnd(3 * E, E, std=0.4)
        sd[p + "self_attention.query_key_value.bias"] = rnd(3 * E, std=0.1)
        sd[p + "self_attention.dense.weight"] = rnd(E, E)
        sd[p + "self_attention.dense.bias"] = rnd(E, std=0.1)
        ln_params(sd, p + "post_attention_layernorm", E)
        sd[p + "mlp.dense_h_to_4h.weight"] = rnd(4 * E, E)
        sd[p + "mlp.dense_h_to_4h.bias"] = rnd(4 * E, std=0.1)
        sd[p + "mlp.dense_4h_to_h.weight"] = rnd(E, 4 * E, std=0.1)
        sd[p + "mlp.dense_4h_to_h.bias"] = rnd(E, std=0.1)
    ln_params(sd, "ln_f", E)
    return sd


def bloom_alibi(n_head, T):
    """build_alibi_tensor for an all-ones attention mask: (n_head, 1, T), slope_h * j."""
    closest = 2 ** math.floor(math.log2(n_head))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest) - 3))), dtype=torch.float32)
    slopes = torch.pow(base, torch.arange(1, 1 + closest, dtype=torch.int32))
    if closest != n_head:
        extra = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest) - 3))), dtype=torch.float32)
        rest = min(closest, n_head - closest)
        slopes = torch.cat([slopes, torch.pow(extra, torch.arange(1, 1 + 2 * rest, 2, dtype=torch.int32))])
    return slopes[:, None, None] * torch.arange(T)[None, None, :]


def bloom_forward(sd, c, ids):
    B, T = ids.shape
    E, H, L = bloom_sizes(c)
    d, eps = E // H, c["layer_norm_epsilon"]
    post = c.get("apply_residual_connection_post_layernorm", False)
    ln = lambda x, n: F.layer_norm(x, (E,), sd[n + ".weight"], sd[n + ".bias"], eps)
    h = ln(sd["word_embeddings.weight"][ids], "word_embeddings_layernorm")
    alibi = bloom_alibi(H, T).repeat(B, 1, 1)  # (B*H, 1, T)
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    tp = c.get("pretraining_tp", 1)

    def out_proj(x, n):  # pretraining_tp > 1 with slow_but_exact: slices summed from zeros, no bias
        if tp > 1 and c.get("slow_but_exact"):
            w, step = sd[n + ".weight"], sd[n + ".weight"].shape[-1] / tp
            out = torch.zeros(*x.shape[:-1], w.shape[0])
            for i in range(tp):
                out = out + F.linear(x[..., int(i * step):int((i + 1) * step)], w[:, int(i * step):int((i + 1) * step)])
            return out
        return F.linear(x, sd[n + ".weight"], sd[n + ".bias"])
    hidden, atts = [], []
    for l in range(L):
        hidden.append(h)
        p = "h.%d." % l
        x = ln(h, p + "input_layernorm")
        residual = x if post else h
        qkv = F.linear(x, sd[p + "self_attention.query_key_value.weight"], sd[p + "self_attention.query_key_value.bias"])
        qkv = qkv.view(B, T, H, 3, d)
        q, k, v = (qkv[..., i, :].transpose(1, 2).reshape(B * H, T, d) for i in range(3))
        scores = alibi.baddbmm(q, k.transpose(-1, -2), beta=1.0, alpha=1.0 / math.sqrt(d)).view(B, H, T, T)
        probs = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1, dtype=torch.float32)
        atts.append(probs)
        ctx = torch.bmm(probs.view(B * H, T, T), v).view(B, H, T, d).permute(0, 2, 1, 3).reshape(B, T, E)
        a = out_proj(ctx, p + "self_attention.dense") + residual
        x = ln(a, p + "post_attention_layernorm")
        residual = x if post else a
        f = F.linear(x, sd[p + "mlp.dense_h_to_4h.weight"], sd[p + "mlp.dense_h_to_4h.bias"])
        f = f * 0.5 * (1.0 + torch.tanh(0.79788456 * f * (1 + 0.044715 * f * f)))  # bloom_gelu_forward
        h = out_proj(f, p + "mlp.dense_4h_to_h") + residual
    hidden.append(ln(h, "ln_f"))
    return torch.stack(atts), torch.stack(hidden)


def bloom():
    family(12, bloom_state, bloom_forward,
           ("bloom", BLOOM, {"prefix": "transformer."}),
           ("bloom_post_ln_f16", BLOOM_POST_LN, {"dtype": torch.float16}),
           ("bloom_tp_sliced", BLOOM_TP_SLICED, {}))


# ---- ElectraModel (--electra: torch.manual_seed(18)) ------------------------------------------
# models/electra/modeling_electra.py: ElectraEmbeddings (word, position, token type, LayerNorm) of
# embedding_size, embeddings_project to hidden_size when they differ, then BertEncoder.
# electra: ElectraForPreTraining's "electra." names, embedding_size 16 < hidden 32, token types;
# electra_same_width_f16: the base model's names, embedding_size = hidden_size (no projection).
ELECTRA = {"model_type": "electra", "architectures": ["ElectraForPreTraining"], "vocab_size": 64, "embedding_size": 16,
           "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48,
           "hidden_act": "gelu", "max_position_embeddings": 16, "type_vocab_size": 2, "layer_norm_eps": 1e-12}
ELECTRA_SAME = dict(ELECTRA, architectures=["ElectraModel"], embedding_size=32, num_hidden_layers=3, intermediate_size=40)


def electra():
    family(18, bert_state, bert_forward,
           ("electra", ELECTRA, {"prefix": "electra.", "types": TYPES}),
           ("electra_same_width_f16", ELECTRA_SAME, {"dtype": torch.float16, "types": TYPES}))


def bert_base(folder, T=128, repeats=3, threads=2):
    """A BERT-base-shaped random checkpoint (L=12, E=768, H=12, FF=3072) in `folder` (never
    committed), ids of T tokens, and the eager torch forward timed on `threads` threads (best
    of `repeats`)."""
    import time
    torch.manual_seed(1)
    torch.set_num_threads(threads)
    c = dict(BERT, vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
             intermediate_size=3072, max_position_embeddings=512)
    sd = {n: t * 0.1 for n, t in bert_state(c).items()}
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    write_safetensors(os.path.join(folder, "model.safetensors"), sd)
    ids = torch.randint(0, 30522, (1, T))
    np.savetxt(os.path.join(folder, "ids.txt"), ids.numpy(), fmt="%d", delimiter=",")
    types = torch.zeros_like(ids)
    times = []
    with torch.no_grad():
        for _ in range(repeats):
            t0 = time.perf_counter()
            att, hid = bert_forward(sd, c, ids, types)
            times.append(time.perf_counter() - t0)
    np.save(os.path.join(folder, "attentions.npy"), att.numpy())
    print("torch %s threads=%d eager forward (output_attentions): best %.1f ms, median %.1f ms" %
          (torch.__version__, torch.get_num_threads(), 1e3 * min(times), 1e3 * sorted(times)[len(times) // 2]))


def llama_shaped(folder, T=512, time_torch=True, threads=2):
    """A Llama-shaped random checkpoint (L=4, E=2048, H=32, G=8, FF=5632, bfloat16 weights) in
    `folder` (never committed), ids of T tokens, and (time_torch) one eager torch forward timed."""
    import time
    torch.manual_seed(2)
    torch.set_num_threads(threads)
    c = dict(LLAMA, vocab_size=32000, hidden_size=2048, num_hidden_layers=4, num_attention_heads=32,
             num_key_value_heads=8, intermediate_size=5632, rope_scaling=None, max_position_embeddings=2048)
    sd = {n: (t * 0.05 if t.dim() == 2 else t) for n, t in llama_state(c, False).items()}
    stored, sd32 = rounded(sd, torch.bfloat16)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    write_safetensors(os.path.join(folder, "model.safetensors"), {"model." + n: t for n, t in stored.items()})
    ids = torch.randint(0, 32000, (1, T))
    np.savetxt(os.path.join(folder, "ids.txt"), ids.numpy(), fmt="%d", delimiter=",")
    if time_torch:
        with torch.no_grad():
            t0 = time.perf_counter()
            att, hid = llama_forward(sd32, c, ids)
            dt = time.perf_counter() - t0
        np.save(os.path.join(folder, "attentions.npy"), att.numpy())
        print("torch %s threads=%d eager forward (output_attentions): %.1f ms" % (torch.__version__, threads, 1e3 * dt))


def gpt2_small(folder, T=256, threads=2):
    """A GPT-2-small-shaped random checkpoint (L=12, E=768, H=12) in `folder` (never committed),
    ids of T tokens, and one eager torch forward timed."""
    import time
    torch.manual_seed(3)
    torch.set_num_threads(threads)
    c = dict(GPT2, vocab_size=50257, n_embd=768, n_layer=12, n_head=12, n_positions=1024)
    sd = {n: t * 0.1 for n, t in gpt2_state(c).items()}
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    write_safetensors(os.path.join(folder, "model.safetensors"), sd)
    ids = torch.randint(0, 50257, (1, T))
    np.savetxt(os.path.join(folder, "ids.txt"), ids.numpy(), fmt="%d", delimiter=",")
    with torch.no_grad():
        t0 = time.perf_counter()
        att, hid = gpt2_forward(sd, c, ids)
        dt = time.perf_counter() - t0
    np.save(os.path.join(folder, "attentions.npy"), att.numpy())
    print("torch %s threads=%d eager forward (output_attentions): %.1f ms" % (torch.__version__, threads, 1e3 * dt))


# The flags that make one group of folders (tiny() makes them all).
SUBSETS = {"--variants": variants, "--rope-variants": rope_variants, "--qwen3": qwen3, "--roberta": roberta,
           "--float64": float64, "--gemma": gemma, "--gemma3": gemma3, "--phi3": phi3, "--llama-biases": llama_biases,
           "--gpt-neox": gpt_neox, "--distilbert": distilbert,
           "--bloom": bloom, "--olmo2": olmo2, "--phi": phi,
           "--granite": granite, "--mixtral": mixtral, "--qwen-moe": qwen_moe_models,
           "--electra": electra, "--starcoder2": starcoder2, "--stablelm": stablelm, "--cohere": cohere,
           "--olmo": olmo, "--gptj": gptj, "--falcon": falcon,
           "--opt": opt, "--gpt-neo": gpt_neo, "--mpt": mpt, "--codegen": codegen, "--persimmon": persimmon, "--albert": albert,
           "--gpt-bigcode": gpt_bigcode,
           "--olmo3-smollm3": olmo3_smollm3, "--cohere2": cohere2,
           "--glm": glm, "--nemotron": nemotron}

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--bert-base":
        bert_base(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--gpt2-small":
        gpt2_small(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "--llama-shaped":
        llama_shaped(sys.argv[2], time_torch="--no-torch" not in sys.argv)
    elif len(sys.argv) == 2 and sys.argv[1] in SUBSETS:
        SUBSETS[sys.argv[1]]()
    else:
        tiny()
