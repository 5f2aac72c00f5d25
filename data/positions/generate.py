#!/usr/bin/python3
"""Generates the RoPE and ALiBi reference fixtures under data/positions/CASE/ (see README.md).

Run from the repository root with Debian's torch 1.13 and numpy 1.24:
    /usr/bin/python3 data/positions/generate.py

The functions below are HF transformers' own definitions, copied with their math unchanged:
- rotate_half, apply_rotary_pos_emb and LlamaRotaryEmbedding's inv_freq / cos / sin:
  transformers/models/llama/modeling_llama.py (v4.44; default rope_type, attention_scaling 1);
- rotate_every_two and the GPT-J application: transformers/models/gptj/modeling_gptj.py;
- partial rotary dims (rotary_ndims = rotary_pct · head_size, the rest passed through):
  transformers/models/gpt_neox/modeling_gpt_neox.py;
- build_alibi_tensor: transformers/models/bloom/modeling_bloom.py.
Query positions follow attn's rule: query i sits at i, or at i + Tk - Tq with the causal
alignment bottom-right (HF's position_ids = cache_position = past_len + arange(Tq)); key j at j.
Every context is recomputed in float64 from the float32 rotated Q and K (or BLOOM's float32
slopes) with NumPy, and the script asserts that torch's float32 attention agrees within 1e-6.
All arrays are float32, little-endian, C order, saved with np.save.
"""
import math
import os
import shutil

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)


# ---- transformers/models/llama/modeling_llama.py -------------------------------------------
def llama_inv_freq(base, dim):
    # LlamaRotaryEmbedding.__init__ (rope_type "default": _compute_default_rope_parameters)
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def llama_cos_sin(inv_freq, position_ids):
    # LlamaRotaryEmbedding.forward: freqs = inv_freq @ position_ids in float32; emb = cat(freqs, freqs)
    inv_freq_expanded = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
    position_ids_expanded = position_ids[:, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


# ---- transformers/models/gptj/modeling_gptj.py ----------------------------------------------
def create_sinusoidal_positions(num_pos, dim, base):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64) / dim))
    sinusoid_inp = torch.einsum("i , j -> i j", torch.arange(num_pos, dtype=torch.int64).float(), inv_freq).float()
    return torch.cat((torch.sin(sinusoid_inp), torch.cos(sinusoid_inp)), dim=1)


def rotate_every_two(x):
    x1 = x[:, :, :, ::2]
    x2 = x[:, :, :, 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)  # in einsum notation: rearrange(x, '... d j -> ... (d j)')


def gptj_apply_rotary_pos_emb(tensor, sin, cos):
    sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3)
    cos = torch.repeat_interleave(cos[:, :, None, :], 2, 3)
    return (tensor * cos) + (rotate_every_two(tensor) * sin)


# ---- transformers/models/bloom/modeling_bloom.py --------------------------------------------
def build_alibi_tensor(attention_mask, num_heads, dtype):
    batch_size, seq_length = attention_mask.shape
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))), device=attention_mask.device, dtype=torch.float32)
    powers = torch.arange(1, 1 + closest_power_of_2, device=attention_mask.device, dtype=torch.int32)
    slopes = torch.pow(base, powers)

    if closest_power_of_2 != num_heads:
        extra_base = torch.tensor(
            2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))), device=attention_mask.device, dtype=torch.float32
        )
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = torch.arange(1, 1 + 2 * num_remaining_heads, 2, device=attention_mask.device, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)

    arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
    alibi = slopes[..., None] * arange_tensor
    return alibi.reshape(batch_size * num_heads, 1, seq_length).to(dtype)


# ---- float64 attention, from the definition ---------------------------------------------------
def attention64(q, k, v, causal, bias=None):
    """q (H, Tq, d), k (H, Tk, d), v (H, Tk, dv) float64; causal None | 'top-left' | 'bottom-right'."""
    H, Tq, d = q.shape
    Tk = k.shape[1]
    out = np.zeros((H, Tq, v.shape[2]))
    scores = np.zeros((H, Tq, Tk))
    for h in range(H):
        for i in range(Tq):
            p = i + (Tk - Tq if causal == "bottom-right" else 0)
            z = np.array([q[h, i] @ k[h, j] / math.sqrt(d) for j in range(Tk)])
            scores[h, i] = z * math.sqrt(d)
            if bias is not None:
                z = z + bias[h, i]
            allowed = np.array([causal is None or j <= p for j in range(Tk)])
            z = np.where(allowed, z, -np.inf)
            w = np.exp(z - z.max())
            w /= w.sum()
            out[h, i] = w @ v[h]
    return out, scores


def torch_sdpa32(q, k, v, causal, bias=None):
    """float32 softmax(q·kᵀ/√d + bias, masked)·v in torch, for the self-check."""
    Tq, Tk = q.shape[-2], k.shape[-2]
    z = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if bias is not None:
        z = z + bias
    if causal:
        off = Tk - Tq if causal == "bottom-right" else 0
        m = torch.ones(Tq, Tk, dtype=torch.bool).tril(off)
        z = z.masked_fill(~m, float("-inf"))
    return torch.softmax(z, dim=-1) @ v


class Case:
    def __init__(self, name, flags):
        self.name, self.dir, self.lines = name, os.path.join(HERE, name), [flags]
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)

    def save(self, fname, a, what):
        a = np.ascontiguousarray(np.asarray(a, dtype="<f4"))
        assert np.all(np.isfinite(a))
        np.save(os.path.join(self.dir, fname + ".npy"), a)
        self.lines.append(f"{fname}.npy {tuple(a.shape)} {what}")

    def close(self):
        with open(os.path.join(self.dir, "case.txt"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def check(name, got32, want64):
    d = float(np.max(np.abs(np.asarray(got32, dtype=np.float64) - want64)))
    assert d <= 1e-6, f"{name}: torch float32 vs float64 max |diff| {d:.3g}"
    print(f"{name}: torch float32 vs float64 max |diff| {d:.3g}")


def rope_case(name, H, Tq, Tk, d, dv, theta, style, ndims, causal, seed):
    torch.manual_seed(seed)
    q, k, v = torch.randn(H, Tq, d), torch.randn(H, Tk, d), torch.randn(H, Tk, dv)
    off = Tk - Tq if causal == "bottom-right" else 0
    qpos, kpos = torch.arange(off, off + Tq)[None, :], torch.arange(Tk)[None, :]
    if style == "half":
        inv = llama_inv_freq(theta, ndims)
        qc, qs = llama_cos_sin(inv, qpos)
        kc, ks = llama_cos_sin(inv, kpos)
        # GPT-NeoX: rotate the first ndims, pass the rest through
        q_rot, _ = apply_rotary_pos_emb(q[None, :, :, :ndims], q[None, :, :, :ndims], qc, qs)
        _, k_rot = apply_rotary_pos_emb(k[None, :, :, :ndims], k[None, :, :, :ndims], kc, ks)
    else:
        table = create_sinusoidal_positions(Tk + Tq, ndims, theta)
        qsin, qcos = torch.split(table[qpos], ndims // 2, dim=-1)
        ksin, kcos = torch.split(table[kpos], ndims // 2, dim=-1)
        # GPT-J's layout (B, T, H, d)
        q_rot = gptj_apply_rotary_pos_emb(q[None, :, :, :ndims].transpose(1, 2), qsin, qcos).transpose(1, 2)
        k_rot = gptj_apply_rotary_pos_emb(k[None, :, :, :ndims].transpose(1, 2), ksin, kcos).transpose(1, 2)
    q_rot = torch.cat((q_rot[0], q[:, :, ndims:]), dim=-1)
    k_rot = torch.cat((k_rot[0], k[:, :, ndims:]), dim=-1)
    want, scores = attention64(q_rot.double().numpy(), k_rot.double().numpy(), v.double().numpy(), causal)
    check(name, torch_sdpa32(q_rot, k_rot, v, causal), want)
    c = Case(name, f"RoPE theta={theta} style={style} rope_dims={ndims} d={d} H={H} Tq={Tq} Tk={Tk} "
                   f"causal={causal} seed={seed}; query i at position i{' + Tk - Tq' if off else ''}, key j at j")
    c.save("q", q, "queries (H, Tq, d), before RoPE")
    c.save("k", k, "keys (H, Tk, d), before RoPE")
    c.save("v", v, "values (H, Tk, dv)")
    c.save("q_rot", q_rot, "queries after HF's rotation, float32 as torch computes it")
    c.save("k_rot", k_rot, "keys after HF's rotation, float32")
    c.save("scores", scores, "q_rot·k_rotᵀ in float64 (attn's --show scores)")
    c.save("context", want, "softmax(q_rot·k_rotᵀ/√d, causal)·v in float64")
    c.close()


def alibi_case(name, H, Tq, Tk, d, dv, causal, seed):
    torch.manual_seed(seed)
    q, k, v = torch.randn(H, Tq, d), torch.randn(H, Tk, d), torch.randn(H, Tk, dv)
    alibi = build_alibi_tensor(torch.ones(1, Tk, dtype=torch.long), H, torch.float32)  # (H, 1, Tk): slope·j
    slopes = alibi[:, 0, 1].clone()  # key 1: the slope itself
    # BLOOM adds slope·j to every query's scores; attn adds slope·(j − p): the same softmax (a
    # constant per row). The float64 reference uses BLOOM's form.
    bias = alibi.double().numpy().repeat(Tq, axis=1)
    want, _ = attention64(q.double().numpy(), k.double().numpy(), v.double().numpy(), causal, bias)
    check(name, torch_sdpa32(q, k, v, causal, alibi), want)
    scaled = np.zeros((H, Tq, Tk))  # without a causal rule: query i at position i
    for h in range(H):
        for i in range(Tq):
            for j in range(Tk):
                scaled[h, i, j] = float(slopes[h]) * (j - i)
    c = Case(name, f"ALiBi (BLOOM's build_alibi_tensor) H={H} Tq={Tq} Tk={Tk} d={d} causal={causal} seed={seed}")
    c.save("q", q, "queries (H, Tq, d)")
    c.save("k", k, "keys (H, Tk, d)")
    c.save("v", v, "values (H, Tk, dv)")
    c.save("slopes", slopes, "BLOOM's float32 slopes, one per head")
    c.save("alibi_only", scaled, "slope_h·(j − i) in float64: attn's --show scaled with --scale 0, no causal rule")
    c.save("context", want, "softmax(q·kᵀ/√d + slope·j, causal)·v in float64")
    c.close()


rope_case("rope_half_bottom_right", 3, 6, 9, 8, 5, 10000.0, "half", 8, "bottom-right", 1)
rope_case("rope_half_dims4_neox", 2, 7, 7, 10, 3, 10000.0, "half", 4, "top-left", 2)
rope_case("rope_interleaved_gptj_dims6", 2, 5, 8, 10, 4, 10000.0, "interleaved", 6, None, 3)
rope_case("rope_llama3_theta_decode", 4, 1, 40, 16, 16, 500000.0, "half", 16, "bottom-right", 4)
rope_case("rope_long_positions", 1, 3, 1200, 32, 4, 10000.0, "half", 32, "bottom-right", 5)
for H in (1, 2, 3, 5, 6, 8, 12):
    alibi_case(f"alibi_h{H}", H, 5, 9, 6, 4, "bottom-right", 10 + H)
alibi_case("alibi_h5_decode", 5, 1, 33, 8, 8, "bottom-right", 30)
alibi_case("alibi_h6_top_left", 6, 7, 7, 4, 3, "top-left", 31)
