#!/usr/bin/python3
"""Generates the K/V cache reference fixtures under data/kv_cache/CASE/ (see PROVENANCE.md).

Run from the repository root with Debian's torch 1.13 and numpy 1.24:
    /usr/bin/python3 data/kv_cache/generate.py

The attention is HF transformers' LlamaAttention.forward (modeling_llama.py, eager path) with its
DynamicCache, its math unchanged: q/k/v_proj (nn.Linear, with biases as Qwen2's), view into heads,
RoPE at position_ids = past … past + T − 1 (rotate_half, as apply_rotary_pos_emb; or GPT-J's
rotate_every_two for the interleaved case), the cache's update (torch.cat of the rotated keys and
the values along dim −2), repeat_kv, softmax(q·kᵀ/√d + causal mask)·v with the mask of a cache
(query i sees key j <= past + i). Weights, x, the projections and the RoPE tables are float32 as in
a float32 model; RoPE and the attention run in float64 (inputs widened), results saved as float32.

Each case runs the whole sequence at once, and again split into a prefix and decode steps that pass
the present cache on (past_key_values): the steps' contexts must equal the whole run's rows (checked
to 1e-12 here). A NumPy loop from the definition recomputes the whole run from the float32
projections, with its own RoPE tables (cos and sin rounded once to float32): 1e-12 without RoPE,
1e-6 with it (torch's float32 cos/sin are an ulp off at some angles).
"""
import os
import shutil

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)


# ---- HF transformers, models/llama/modeling_llama.py -------------------------------------------
def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def rope_cos_sin(theta, dim, position_ids):
    # LlamaRotaryEmbedding.forward: float32 inv_freq and angles, cos/sin of emb = cat(freqs, freqs)
    inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    inv_freq_expanded = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
    position_ids_expanded = position_ids[:, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


# ---- GPT-J, models/gptj/modeling_gptj.py (interleaved pairs) -------------------------------------
def rotate_every_two(x):
    x1 = x[:, :, :, ::2]
    x2 = x[:, :, :, 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)


def apply_rotary_pos_emb_gptj(t, cos, sin):
    # (B, heads, T, d) here; GPT-J's sin/cos repeat_interleave'd: pairs (2k, 2k+1) share angle k
    cos = torch.repeat_interleave(cos[:, None, :, : cos.shape[-1] // 2], 2, dim=-1)
    sin = torch.repeat_interleave(sin[:, None, :, : sin.shape[-1] // 2], 2, dim=-1)
    return (t * cos) + (rotate_every_two(t) * sin)


class Model:
    def __init__(self, g, D, H, G, d, theta, style, bias):
        def linear(out_f):
            lin = torch.nn.Linear(D, out_f, bias=bias)
            with torch.no_grad():
                lin.weight.copy_(torch.randn(out_f, D, generator=g) / np.sqrt(D))
                if bias:
                    lin.bias.copy_(0.5 * torch.randn(out_f, generator=g))
            return lin
        self.q_proj, self.k_proj, self.v_proj = linear(H * d), linear(G * d), linear(G * d)
        self.H, self.G, self.d, self.theta, self.style = H, G, d, theta, style

    def forward(self, x, past):
        """LlamaAttention.forward with a DynamicCache: x (B, T, D); past None or (k, v) rotated.
        Returns the context per head (B, H, T, d) and the present cache (k, v)."""
        B, T, _ = x.shape
        P = 0 if past is None else past[0].shape[-2]
        with torch.no_grad():
            q = self.q_proj(x).view(B, T, self.H, self.d).transpose(1, 2)
            k = self.k_proj(x).view(B, T, self.G, self.d).transpose(1, 2)
            v = self.v_proj(x).view(B, T, self.G, self.d).transpose(1, 2)
        position_ids = torch.arange(P, P + T)[None, :].expand(B, -1)
        if self.theta:
            cos, sin = rope_cos_sin(self.theta, self.d, position_ids)
            cos, sin = cos.double(), sin.double()
            q, k = q.double(), k.double()
            if self.style == "half":
                q, k = apply_rotary_pos_emb(q, k, cos, sin)
            else:
                q, k = apply_rotary_pos_emb_gptj(q, cos, sin), apply_rotary_pos_emb_gptj(k, cos, sin)
        q, k, v = q.double(), k.double(), v.double()
        if past is not None:  # DynamicCache.update
            k = torch.cat([past[0], k], dim=-2)
            v = torch.cat([past[1], v], dim=-2)
        key_states, value_states = repeat_kv(k, self.H // self.G), repeat_kv(v, self.H // self.G)
        attn_weights = torch.matmul(q, key_states.transpose(2, 3)) / np.sqrt(self.d)
        i = torch.arange(T)[:, None]
        j = torch.arange(P + T)[None, :]
        causal_mask = torch.where(j <= P + i, 0.0, -float("inf")).double()
        attn_weights = attn_weights + causal_mask
        attn_weights = torch.softmax(attn_weights, dim=-1)
        return torch.matmul(attn_weights, value_states), (k, v)


def numpy_reference(m, x):
    """The whole run from the definition with loops: every (b, h, i) row, from the float32
    projections (the model's, nn.Linear's) on."""
    B, T, _ = x.shape
    with torch.no_grad():
        proj = {n: getattr(m, n)(x).double().numpy() for n in ("q_proj", "k_proj", "v_proj")}
    d, half = m.d, m.d // 2
    inv = (1.0 / (m.theta ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))).astype(np.float32) if m.theta else None

    def rot(vec, pos):
        if not m.theta:
            return vec
        ang = (np.float32(pos) * inv).astype(np.float32)
        # float32 tables as the model's (cos and sin rounded once from float64)
        c = np.cos(ang.astype(np.float64)).astype(np.float32).astype(np.float64)
        s = np.sin(ang.astype(np.float64)).astype(np.float32).astype(np.float64)
        out = vec.copy()
        for kk in range(half):
            a, bb = ((kk, kk + half) if m.style == "half" else (2 * kk, 2 * kk + 1))
            out[a] = vec[a] * c[kk] - vec[bb] * s[kk]
            out[bb] = vec[bb] * c[kk] + vec[a] * s[kk]
        return out

    ctx = np.zeros((B, m.H, T, d))
    for b in range(B):
        for h in range(m.H):
            g = h // (m.H // m.G)
            K = [rot(proj["k_proj"][b, j, g * d:(g + 1) * d], j) for j in range(T)]
            V = [proj["v_proj"][b, j, g * d:(g + 1) * d] for j in range(T)]
            for i in range(T):
                q = rot(proj["q_proj"][b, i, h * d:(h + 1) * d], i)
                z = np.array([q @ K[j] / np.sqrt(d) for j in range(i + 1)])
                w = np.exp(z - z.max())
                w /= w.sum()
                ctx[b, h, i] = sum(w[j] * V[j] for j in range(i + 1))
    return ctx


def case(name, seed, B, T, D, H, G, d, theta, style, bias, steps):
    g = torch.Generator().manual_seed(seed)
    m = Model(g, D, H, G, d, theta, style, bias)
    x = torch.randn(B, T, D, generator=g)
    whole, (k_all, v_all) = m.forward(x, None)
    worst = np.abs(numpy_reference(m, x) - whole.numpy()).max()
    # 1e-12 without RoPE; with it, torch's float32 cos/sin differ from correctly rounded ones by an
    # ulp (6e-8) at some angles, which moves the context by about that.
    assert worst < (1e-6 if m.theta else 1e-12), worst
    arrays = {"x.npy": x.numpy()}
    notes = {"x.npy": f"embeddings (B, T, D) = {tuple(x.shape)}"}
    past, t0, step_worst = None, 0, 0.0
    for s, n in enumerate(steps):
        part = x[:, t0:t0 + n]
        ctx, past = m.forward(part, past)
        step_worst = max(step_worst, np.abs(ctx.numpy() - whole[:, :, t0:t0 + n].numpy()).max())
        arrays[f"x_step{s}.npy"] = part.numpy()
        notes[f"x_step{s}.npy"] = f"x[:, {t0}:{t0 + n}], step {s}" + (" (the prefix, no cache)" if s == 0 else
                                                                      f" (past length {t0})")
        arrays[f"context_step{s}.npy"] = ctx.float().numpy()
        notes[f"context_step{s}.npy"] = f"the step's context per head (B, H, {n}, d)"
        t0 += n
    assert t0 == T
    assert step_worst < 1e-12, step_worst
    print(f"{name}: numpy self-check {worst:.1e}, steps against the whole run {step_worst:.1e}")
    for n, lin in (("wq", m.q_proj), ("wk", m.k_proj), ("wv", m.v_proj)):
        arrays[f"{n}.npy"] = lin.weight.detach().numpy()
        notes[f"{n}.npy"] = f"{lin.__class__.__name__}.weight, out×in {tuple(lin.weight.shape)} (--linear-layout)"
        if bias:
            arrays[f"b{n[1]}.npy"] = lin.bias.detach().numpy()
            notes[f"b{n[1]}.npy"] = f"its bias ({lin.bias.shape[0]},)"
    arrays["context.npy"] = whole.float().numpy()
    notes["context.npy"] = "the whole run's context per head (B, H, T, d)"
    arrays["present_k.npy"] = k_all.float().numpy()
    notes["present_k.npy"] = "the present cache's keys after the whole run, rotated (B, G, T, d)"
    arrays["present_v.npy"] = v_all.float().numpy()
    notes["present_v.npy"] = "the present cache's values (B, G, T, d)"
    flags = (f"heads={H} kv_heads={G} rope={theta or 'none'} rope_style={style} bias={int(bias)} "
             f"steps={','.join(map(str, steps))}")
    dirpath = os.path.join(HERE, name)
    shutil.rmtree(dirpath, ignore_errors=True)
    os.makedirs(dirpath)
    for fname, arr in arrays.items():
        np.save(os.path.join(dirpath, fname), arr)
    with open(os.path.join(dirpath, "case.txt"), "w") as f:
        f.write(flags + "\n" + "\n".join(f"{fn} {tuple(a.shape)} {notes[fn]}" for fn, a in arrays.items()) + "\n")


if __name__ == "__main__":
    # Llama/Qwen2-style: grouped-query (4 query heads on 2 K/V heads), biases, RoPE rotate_half, B=2,
    # a prefix of 4, then one token, then two (Tq = 2 through the cache).
    case("llama_gqa_rope_b2", 1, B=2, T=7, D=12, H=4, G=2, d=6, theta=10000.0, style="half", bias=True,
         steps=[4, 1, 2])
    # GPT-J-style interleaved RoPE, multi-query (G = 1), no biases, a prefix of 2 and three single tokens.
    case("gptj_mqa_interleaved_b2", 2, B=2, T=5, D=8, H=3, G=1, d=4, theta=500.0, style="interleaved",
         bias=False, steps=[2, 1, 1, 1])
    # No RoPE, multi-head (G = H), one token of prefix.
    case("mha_norope_b2", 3, B=2, T=4, D=6, H=2, G=2, d=3, theta=0.0, style="half", bias=True, steps=[1, 3])
