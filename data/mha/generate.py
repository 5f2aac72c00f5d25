#!/usr/bin/python3
"""Generates the multi-head attention reference fixtures under data/mha/CASE/ (see README.md).

Run from the repository root with Debian's torch 1.13 and numpy 1.24:
    /usr/bin/python3 data/mha/generate.py
Every case is seeded, so a rerun rewrites the same files (up to the last bits of float32 on a
CPU whose torch kernels differ). Every stored result is recomputed independently in float64
with NumPy and the script stops (AssertionError) if they disagree beyond TOL_F64.
All arrays are float32, little-endian, C order, saved with np.save.
"""
import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
TOL_MANUAL = 1e-6  # torch float32 manual computation vs nn.MultiheadAttention (max |diff|)
TOL_F64 = 1e-6     # float64 NumPy recomputation vs the stored float32 values (max |diff|)
worst = {"manual": 0.0, "f64": 0.0}
worst_by_case = {}  # name -> max |float64 - float32| over its stored arrays


def maxdiff(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def check(kind, name, what, a, b):
    d = maxdiff(a, b)
    tol = TOL_MANUAL if kind == "manual" else TOL_F64
    assert d <= tol, f"{name}: {what}: {kind} check max |diff| {d:.3g} > {tol:g}"
    worst[kind] = max(worst[kind], d)
    if kind == "f64":
        worst_by_case[name] = max(worst_by_case.get(name, 0.0), d)
    return d


class Case:
    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(HERE, name)
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        self.files = []
        self.lines = []

    def save(self, fname, array, what):
        a = np.ascontiguousarray(np.asarray(array, dtype="<f4"))
        assert np.all(np.isfinite(a)), f"{self.name}/{fname} has non-finite values"
        np.save(os.path.join(self.dir, fname + ".npy"), a)
        self.files.append(f"{fname}.npy {tuple(a.shape)} {what}")

    def text(self, fname, content, what):
        with open(os.path.join(self.dir, fname), "w") as f:
            f.write(content)
        self.files.append(f"{fname} {what}")

    def finish(self):
        with open(os.path.join(self.dir, "case.txt"), "w") as f:
            f.write("".join(line + "\n" for line in self.lines))
            f.write("files:\n")
            f.write("".join(f"  {line}\n" for line in self.files))


def randn(*shape, scale=1.0):
    return torch.randn(*shape, dtype=torch.float32) * scale


# ---------------------------------------------------------------- float64 NumPy reference
def np_softmax_rows(s):
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def np_attention(q, k, v, allowed):
    """q (Tq,d), k (Tk,d), v (Tk,dv), allowed (Tq,Tk) bool or None; float64."""
    s = q @ k.T / math.sqrt(q.shape[-1])
    if allowed is not None:
        s = np.where(allowed, s, -np.inf)
    w = np_softmax_rows(s)
    return w, w @ v


def allowed_matrix(tq, tk, causal, length=None):
    """True = may attend. causal: None, 'top-left' (j <= i) or 'bottom-right' (j <= i + tk - tq)."""
    i = np.arange(tq)[:, None]
    j = np.arange(tk)[None, :]
    a = np.ones((tq, tk), dtype=bool)
    if causal == "top-left":
        a &= j <= i
    elif causal == "bottom-right":
        a &= j <= i + tk - tq
    if length is not None:
        a &= j < length
    assert a.any(axis=1).all(), "a query row with every key masked"
    return a


# ---------------------------------------------------------------- nn.MultiheadAttention cases
def mha_case(name, seed, E, H, T, S=None, B=None, causal=False, lengths=None):
    """S=None: self-attention (query = key = value = x); else key = value = kv of length S.
    B=None: unbatched (T,E) input."""
    c = Case(name)
    torch.manual_seed(seed)
    cross = S is not None
    S = S if cross else T
    dh = E // H
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True)
    mha.eval()
    with torch.no_grad():
        mha.in_proj_weight.copy_(randn(3 * E, E, scale=1 / math.sqrt(E)))
        mha.in_proj_bias.copy_(randn(3 * E, scale=0.1))
        mha.out_proj.weight.copy_(randn(E, E, scale=1 / math.sqrt(E)))
        mha.out_proj.bias.copy_(randn(E, scale=0.1))
    bshape = () if B is None else (B,)
    x = randn(*bshape, T, E)
    kv = randn(*bshape, S, E) if cross else x
    attn_mask = torch.ones(T, S, dtype=torch.bool).triu(1) if causal else None  # True = masked
    kpm = None
    if lengths is not None:
        assert len(lengths) == (1 if B is None else B)
        kpm = torch.arange(S)[None, :] >= torch.tensor(lengths)[:, None]  # True = masked (padding)
        if B is None:
            kpm = kpm[0]
    with torch.no_grad():
        out_mean, w_mean = mha(x, kv, kv, key_padding_mask=kpm, attn_mask=attn_mask,
                               need_weights=True, average_attn_weights=True)
        out_heads, w_heads = mha(x, kv, kv, key_padding_mask=kpm, attn_mask=attn_mask,
                                 need_weights=True, average_attn_weights=False)
        out_nw, _ = mha(x, kv, kv, key_padding_mask=kpm, attn_mask=attn_mask, need_weights=False)
    assert torch.equal(out_mean, out_heads)
    check("manual", name, "output need_weights=False", out_nw, out_mean)

    # Manual torch float32 computation from the split in-projection.
    W, bW = mha.in_proj_weight.detach(), mha.in_proj_bias.detach()
    Wo, bo = mha.out_proj.weight.detach(), mha.out_proj.bias.detach()
    xb = x if B is not None else x[None]
    kvb = kv if B is not None else kv[None]
    Bn = xb.shape[0]
    q = xb @ W[:E].T + bW[:E]
    k = kvb @ W[E:2 * E].T + bW[E:2 * E]
    v = kvb @ W[2 * E:].T + bW[2 * E:]
    q = q.view(Bn, T, H, dh).transpose(1, 2)
    k = k.view(Bn, S, H, dh).transpose(1, 2)
    v = v.view(Bn, S, H, dh).transpose(1, 2)
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)  # q scaled before the product, as torch 1.13 MHA does
    lens = lengths if lengths is not None else [S] * Bn
    allowed = np.stack([allowed_matrix(T, S, "top-left" if causal else None,
                                       lens[b] if lengths is not None else None) for b in range(Bn)])
    scores = scores.masked_fill(~torch.from_numpy(allowed)[:, None], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    context = weights @ v  # (B,H,T,dh)
    out = context.transpose(1, 2).reshape(Bn, T, E) @ Wo.T + bo
    if B is None:
        weights, context, out = weights[0], context[0], out[0]
    check("manual", name, "output", out, out_mean)
    check("manual", name, "weights", weights, w_heads)
    check("manual", name, "weights_mean", weights.mean(dim=-3), w_mean)

    # Independent float64 NumPy recomputation, head by head.
    Wn, bWn, Won, bon = (t.numpy().astype(np.float64) for t in (W, bW, Wo, bo))
    xn = xb.numpy().astype(np.float64)
    kvn = kvb.numpy().astype(np.float64)
    ctx64 = np.zeros((Bn, H, T, dh))
    w64 = np.zeros((Bn, H, T, S))
    for b in range(Bn):
        for h in range(H):
            rq = slice(h * dh, (h + 1) * dh)
            rk = slice(E + h * dh, E + (h + 1) * dh)
            rv = slice(2 * E + h * dh, 2 * E + (h + 1) * dh)
            qh = xn[b] @ Wn[rq].T + bWn[rq]
            kh = kvn[b] @ Wn[rk].T + bWn[rk]
            vh = kvn[b] @ Wn[rv].T + bWn[rv]
            w64[b, h], ctx64[b, h] = np_attention(qh, kh, vh, allowed[b])
    out64 = np.concatenate([ctx64[:, h] for h in range(H)], axis=-1) @ Won.T + bon
    if B is None:
        w64, ctx64, out64 = w64[0], ctx64[0], out64[0]
    check("f64", name, "output", out64, out_mean)
    check("f64", name, "weights", w64, w_heads)
    check("f64", name, "weights_mean", w64.mean(axis=-3), w_mean)
    check("f64", name, "context", ctx64, context)

    c.lines += [
        f"kind: nn.MultiheadAttention(embed_dim={E}, num_heads={H}, batch_first=True), eval, dropout 0",
        f"embed_dim E: {E}", f"heads H: {H}", f"head_dim: {dh}",
        f"batched: {'yes, B=' + str(B) if B is not None else 'no (unbatched: x is (T,E))'}",
        f"attention: {'cross (query = x, key = value = kv)' if cross else 'self (query = key = value = x)'}",
        f"T (queries): {T}", f"S (keys): {S}",
        "causal: " + ("yes (attn_mask = bool triu(ones(T,S), 1), True = masked; query i sees keys j <= i)"
                      if causal else "no"),
        "key_padding: " + ("yes (key_padding_mask[b, j] = j >= lengths[b], True = masked)"
                           if lengths is not None else "no"),
        f"seed: torch.manual_seed({seed})",
    ]
    c.save("x", x, "query input" + ("" if cross else " (= key = value)"))
    if cross:
        c.save("kv", kv, "key = value input")
    c.save("in_proj_weight", W, "mha.in_proj_weight, rows [W_q; W_k; W_v], each E x E (nn.Linear: y = x W^T + b)")
    c.save("in_proj_bias", bW, "mha.in_proj_bias [b_q; b_k; b_v]")
    c.save("out_proj_weight", Wo, "mha.out_proj.weight (y = concat_heads W_o^T + b_o)")
    c.save("out_proj_bias", bo, "mha.out_proj.bias")
    if lengths is not None:
        c.text("lengths.txt", " ".join(str(n) for n in lengths) + "\n",
               "valid key count per batch item; keys at index >= length are masked")
    c.save("output", out_mean, "first return value of mha(x, kv, kv, ...)")
    c.save("weights_mean", w_mean, "attention weights, average_attn_weights=True (mean over heads)")
    c.save("weights", w_heads, "attention weights per head, average_attn_weights=False")
    c.save("context", context, "per-head context softmax(q k^T/sqrt(head_dim) + mask) v, before out_proj")
    c.finish()


# ---------------------------------------------------------------- separate projections, GQA
def proj_case(name, seed, E, H, G, dh, dv, T, B, S=None, causal=False, check_mha=False):
    """Q = x wq + bq (E x H*dh), K = kv wk + bk (E x G*dh), V = kv wv + bv (E x G*dv);
    heads are contiguous column blocks; query head h reads K/V head h // (H/G);
    output = concat_h(context_h) wo + bo, wo (H*dv) x E."""
    assert H % G == 0
    c = Case(name)
    torch.manual_seed(seed)
    cross = S is not None
    S = S if cross else T
    x = randn(B, T, E)
    kv = randn(B, S, E) if cross else x
    wq = randn(E, H * dh, scale=1 / math.sqrt(E))
    wk = randn(E, G * dh, scale=1 / math.sqrt(E))
    wv = randn(E, G * dv, scale=1 / math.sqrt(E))
    wo = randn(H * dv, E, scale=1 / math.sqrt(H * dv))
    bq, bk, bv, bo = randn(H * dh, scale=0.1), randn(G * dh, scale=0.1), randn(G * dv, scale=0.1), randn(E, scale=0.1)
    allowed = allowed_matrix(T, S, "top-left" if causal else None)

    def torch_forward(dtype):
        t = lambda a: a.to(dtype)  # noqa: E731
        q = (t(x) @ t(wq) + t(bq)).view(B, T, H, dh).transpose(1, 2)
        k = (t(kv) @ t(wk) + t(bk)).view(B, S, G, dh).transpose(1, 2)
        v = (t(kv) @ t(wv) + t(bv)).view(B, S, G, dv).transpose(1, 2)
        k = k.repeat_interleave(H // G, dim=1)
        v = v.repeat_interleave(H // G, dim=1)
        s = q @ k.transpose(-2, -1) / math.sqrt(dh)
        s = s.masked_fill(~torch.from_numpy(allowed), float("-inf"))
        w = torch.softmax(s, dim=-1)
        ctx = w @ v
        out = ctx.transpose(1, 2).reshape(B, T, H * dv) @ t(wo) + t(bo)
        return w, ctx, out

    w32, ctx32, out32 = torch_forward(torch.float32)
    w64t, ctx64t, out64t = torch_forward(torch.float64)
    check("f64", name, "weights (torch f64)", w64t, w32)
    check("f64", name, "context (torch f64)", ctx64t, ctx32)
    check("f64", name, "output (torch f64)", out64t, out32)

    # Independent NumPy float64: explicit head mapping, no repeat_interleave.
    n = lambda a: a.numpy().astype(np.float64)  # noqa: E731
    xn, kvn = n(x), n(kv)
    w64 = np.zeros((B, H, T, S))
    c64 = np.zeros((B, H, T, dv))
    for b in range(B):
        for h in range(H):
            g = h // (H // G)
            qh = xn[b] @ n(wq)[:, h * dh:(h + 1) * dh] + n(bq)[h * dh:(h + 1) * dh]
            kh = kvn[b] @ n(wk)[:, g * dh:(g + 1) * dh] + n(bk)[g * dh:(g + 1) * dh]
            vh = kvn[b] @ n(wv)[:, g * dv:(g + 1) * dv] + n(bv)[g * dv:(g + 1) * dv]
            w64[b, h], c64[b, h] = np_attention(qh, kh, vh, allowed)
    o64 = np.concatenate([c64[:, h] for h in range(H)], axis=-1) @ n(wo) + n(bo)
    check("f64", name, "weights (numpy f64)", w64, w32)
    check("f64", name, "context (numpy f64)", c64, ctx32)
    check("f64", name, "output (numpy f64)", o64, out32)

    if check_mha:  # G == H, dh == dv == E/H: the same numbers as nn.MultiheadAttention
        assert G == H and dh == dv == E // H
        mha = torch.nn.MultiheadAttention(E, H, batch_first=True).eval()
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([wq.T, wk.T, wv.T]))
            mha.in_proj_bias.copy_(torch.cat([bq, bk, bv]))
            mha.out_proj.weight.copy_(wo.T)
            mha.out_proj.bias.copy_(bo)
            mask = torch.from_numpy(~allowed) if causal else None
            o_mha, w_mha = mha(x, kv, kv, attn_mask=mask, need_weights=True, average_attn_weights=False)
        check("manual", name, "output vs nn.MultiheadAttention", out32, o_mha)
        check("manual", name, "weights vs nn.MultiheadAttention", w32, w_mha)

    c.lines += [
        "kind: separate Q/K/V projections, column-block layout (y = x W + b, W = nn.Linear weight transposed)",
        f"embed_dim E: {E} (output E_out = {E})", f"query heads H: {H}", f"key/value heads G: {G}",
        f"head_dim dh (q,k): {dh}", f"value head_dim dv: {dv}",
        f"query head h reads key/value head h // (H/G) = h // {H // G}"
        + (" (multi-query)" if G == 1 else " (grouped-query)" if G < H else " (ordinary multi-head)"),
        f"batched: yes, B={B}",
        f"attention: {'cross (query = x, key = value = kv)' if cross else 'self (query = key = value = x)'}",
        f"T (queries): {T}", f"S (keys): {S}",
        "causal: " + ("yes, top-left (query i sees keys j <= i)" if causal else "no"),
        "key_padding: no", "scale: 1/sqrt(dh)",
        f"seed: torch.manual_seed({seed})",
    ]
    if check_mha:
        c.lines.append("also checked: equals nn.MultiheadAttention with in_proj_weight = [wq^T; wk^T; wv^T], "
                       "out_proj.weight = wo^T")
    c.save("x", x, "query input" + ("" if cross else " (= key = value)"))
    if cross:
        c.save("kv", kv, "key = value input")
    c.save("wq", wq, "E x (H*dh), head h = columns [h*dh, (h+1)*dh)")
    c.save("wk", wk, "E x (G*dh), head g = columns [g*dh, (g+1)*dh)")
    c.save("wv", wv, "E x (G*dv), head g = columns [g*dv, (g+1)*dv)")
    c.save("wo", wo, "(H*dv) x E, rows in head order")
    c.save("bq", bq, "bias of Q")
    c.save("bk", bk, "bias of K")
    c.save("bv", bv, "bias of V")
    c.save("bo", bo, "bias of the output")
    c.save("output", out32, "concat_h(context[:, h]) wo + bo, (B,T,E)")
    c.save("weights", w32, "attention weights per query head (B,H,T,S)")
    c.save("context", ctx32, "per-head context before wo (B,H,T,dv)")
    c.finish()


# ---------------------------------------------------------------- direct q/k/v, broadcasting
def qkv_case(name, seed, q_shape, k_shape, dv, causal=None):
    """q (B,H,Tq,d); k (..., G or absent, Tk, d); v the same with dv. K/V heads are repeated
    (repeat_interleave, h // (H/G)) when 1 < G < H, then torch.matmul broadcasting applies."""
    c = Case(name)
    torch.manual_seed(seed)
    B, H, Tq, d = q_shape
    Tk = k_shape[-2]
    v_shape = tuple(k_shape[:-1]) + (dv,)
    q = randn(*q_shape)
    k = randn(*k_shape)
    v = randn(*v_shape)
    G = k_shape[-3] if len(k_shape) >= 3 else 1
    allowed = allowed_matrix(Tq, Tk, causal)

    def torch_forward(dtype):
        qq, kk, vv = q.to(dtype), k.to(dtype), v.to(dtype)
        if len(k_shape) >= 3 and 1 < G < H:
            kk = kk.repeat_interleave(H // G, dim=-3)
            vv = vv.repeat_interleave(H // G, dim=-3)
        s = torch.matmul(qq, kk.transpose(-2, -1)) / math.sqrt(d)
        s = s.masked_fill(~torch.from_numpy(allowed), float("-inf"))
        w = torch.softmax(s, dim=-1)
        return w, torch.matmul(w, vv)

    w32, c32 = torch_forward(torch.float32)
    w64t, c64t = torch_forward(torch.float64)
    assert tuple(w32.shape) == (B, H, Tq, Tk) and tuple(c32.shape) == (B, H, Tq, dv)
    check("f64", name, "weights (torch f64)", w64t, w32)
    check("f64", name, "context (torch f64)", c64t, c32)

    # NumPy float64 with explicit indexing: batch b of k is b (or 0 when its batch size is 1).
    qn, kn, vn = (a.numpy().astype(np.float64) for a in (q, k, v))
    k4 = kn.reshape((1,) * (4 - kn.ndim) + kn.shape)
    v4 = vn.reshape((1,) * (4 - vn.ndim) + vn.shape)
    w64 = np.zeros((B, H, Tq, Tk))
    c64 = np.zeros((B, H, Tq, dv))
    for b in range(B):
        for h in range(H):
            bb = b if k4.shape[0] > 1 else 0
            g = h // (H // G) if k4.shape[1] > 1 else 0
            w64[b, h], c64[b, h] = np_attention(qn[b, h], k4[bb, g], v4[bb, g], allowed)
    check("f64", name, "weights (numpy f64)", w64, w32)
    check("f64", name, "context (numpy f64)", c64, c32)

    rel = {None: "no", "top-left": "yes, top-left (query i sees keys j <= i; torch 2.x SDPA is_causal=True)",
           "bottom-right": f"yes, bottom-right (query i sees keys j <= i + Tk - Tq = i + {Tk - Tq})"}
    c.lines += [
        "kind: scaled dot-product attention on given q, k, v (no projections), scale 1/sqrt(d)",
        f"q shape (B,H,Tq,d): {tuple(q_shape)}", f"k shape: {tuple(k_shape)}", f"v shape: {v_shape}",
        f"query heads H: {H}", f"key/value heads G: {G}"
        + (f" (query head h reads key/value head h // {H // G})" if 1 < G < H else
           " (broadcast to every query head)" if G == 1 else ""),
        f"Tq: {Tq}", f"Tk: {Tk}", f"d: {d}", f"dv: {dv}",
        f"causal: {rel[causal]}",
        f"seed: torch.manual_seed({seed})",
    ]
    c.save("q", q, "queries")
    c.save("k", k, "keys (broadcast over missing/size-1 leading dims as torch.matmul)")
    c.save("v", v, "values (same leading dims as k)")
    c.save("weights", w32, "softmax(q k^T / sqrt(d) + mask), (B,H,Tq,Tk)")
    c.save("context", c32, "weights v, (B,H,Tq,dv)")
    c.finish()


def main():
    torch.set_num_threads(1)
    for d in os.listdir(HERE):  # rewrite every case directory from scratch
        if os.path.isfile(os.path.join(HERE, d, "case.txt")):
            shutil.rmtree(os.path.join(HERE, d))

    mha_case("mha_self_e6_h3_b2", 101, E=6, H=3, T=4, B=2)
    mha_case("mha_self_causal_e8_h2_b2", 102, E=8, H=2, T=5, B=2, causal=True)
    mha_case("mha_self_causal_pad_e8_h2_b3", 103, E=8, H=2, T=4, B=3, causal=True, lengths=[4, 2, 1])
    mha_case("mha_cross_pad_e12_h4_b2", 104, E=12, H=4, T=3, S=5, B=2, lengths=[5, 2])
    mha_case("mha_cross_causal_e6_h3_b2", 105, E=6, H=3, T=5, S=3, B=2, causal=True)
    mha_case("mha_cross_t1_e8_h2_b2", 106, E=8, H=2, T=1, S=6, B=2)
    mha_case("mha_unbatched_self_causal_e6_h3", 107, E=6, H=3, T=5, causal=True)
    mha_case("mha_unbatched_cross_pad_e12_h4", 108, E=12, H=4, T=2, S=4, lengths=[3])
    mha_case("mha_unbatched_cross_t1_e8_h2", 109, E=8, H=2, T=1, S=3)

    proj_case("proj_h2_g2_e8", 201, E=8, H=2, G=2, dh=4, dv=4, T=4, B=2, causal=True, check_mha=True)
    proj_case("gqa_h4_g2_e8", 202, E=8, H=4, G=2, dh=2, dv=3, T=5, B=2)
    proj_case("gqa_h6_g3_e12", 203, E=12, H=6, G=3, dh=2, dv=2, T=3, S=5, B=2, causal=True)
    proj_case("mqa_h8_g1_e16", 204, E=16, H=8, G=1, dh=2, dv=2, T=4, B=1, causal=True)

    qkv_case("qkv_bhtd_causal", 301, (2, 3, 4, 4), (2, 3, 4, 4), dv=4, causal="top-left")
    qkv_case("qkv_gqa_b2_g2", 302, (2, 4, 3, 5), (2, 2, 6, 5), dv=5)
    qkv_case("qkv_gqa_b1_g2_causal", 303, (2, 4, 3, 5), (1, 2, 6, 5), dv=3, causal="top-left")
    qkv_case("qkv_gqa_3d_g3_causal", 304, (2, 6, 4, 3), (3, 4, 3), dv=3, causal="top-left")
    qkv_case("qkv_shared_2d", 305, (2, 3, 4, 4), (6, 4), dv=2)
    qkv_case("qkv_mqa_g1", 306, (1, 4, 3, 4), (1, 1, 5, 4), dv=4)
    qkv_case("qkv_bottom_right_tq3_tk7", 307, (2, 2, 3, 4), (2, 2, 7, 4), dv=4, causal="bottom-right")
    qkv_case("qkv_top_left_tq3_tk7", 307, (2, 2, 3, 4), (2, 2, 7, 4), dv=4, causal="top-left")

    for name, d in worst_by_case.items():
        print(f"{name:32s} max |float64 - float32| {d:.3g}")
    print(f"torch {torch.__version__}, numpy {np.__version__}")
    print(f"max |float32 manual - nn.MultiheadAttention|: {worst['manual']:.3g} (bound {TOL_MANUAL:g})")
    print(f"max |float64 recomputation - stored float32|: {worst['f64']:.3g} (bound {TOL_F64:g})")


if __name__ == "__main__":
    sys.exit(main())
