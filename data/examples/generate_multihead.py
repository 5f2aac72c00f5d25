#!/usr/bin/python3
"""Writes the data of the `multihead` and `grouped-query` worked examples (data/examples/NAME/*.txt).

Run from the repository root with Debian 12's system Python (python3-torch 1.13, python3-numpy):
    /usr/bin/python3 data/examples/generate_multihead.py
Seeded, one thread: a rerun on the same machine rewrites the same files. Every stored result is
also recomputed in float64 NumPy, head by head with explicit index arithmetic, and the script
stops if the two disagree by more than 1e-6. Values are written with 9 significant digits
(float32 round-trips). Tensors of more than two dimensions are written as attn prints them:
blocks of rows, each headed "# NAME [h] RxC" and followed by a blank line.

Both examples use the embeddings of the `masking` example (torch.manual_seed(4);
torch.randn(8, 4): the 8 tokens of "The hiking trail led us through bear country.").
"""
import os

import numpy as np
import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = torch.__version__


def fmt(v):
    return "%.9g" % float(v)


def write(example, name, array, comment):
    a = np.asarray(array, dtype=np.float32)
    os.makedirs(os.path.join(HERE, example), exist_ok=True)
    lines = ["# " + c for c in comment.split("\n")]
    if a.ndim <= 2:
        a2 = a.reshape(1, -1) if a.ndim == 1 else a
        lines += [" ".join(fmt(v) for v in row) for row in a2]
    else:
        stem = name.split(".")[0]
        lead = a.shape[:-2]
        for idx in np.ndindex(*lead):
            lines.append("# %s [%s] %dx%d" % (stem, ", ".join(str(i) for i in idx), a.shape[-2], a.shape[-1]))
            lines += [" ".join(fmt(v) for v in row) for row in a[idx]]
            lines.append("")
    with open(os.path.join(HERE, example, name), "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


def softmax64(s):
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def reference64(x, wq, bq, wk, bk, wv, bv, wo, bo, H, G, causal):
    """float64, head by head: query head h reads key/value head h // (H // G)."""
    x = x.astype(np.float64)
    T = x.shape[0]
    q, k, v = x @ wq + bq, x @ wk + bk, x @ wv + bv
    dh, dv = wq.shape[1] // H, wv.shape[1] // G
    weights = np.zeros((H, T, T))
    context = np.zeros((H, T, dv))
    for h in range(H):
        g = h // (H // G)
        qh, kh, vh = q[:, h * dh:(h + 1) * dh], k[:, g * dh:(g + 1) * dh], v[:, g * dv:(g + 1) * dv]
        s = qh @ kh.T / np.sqrt(dh)
        if causal:
            for i in range(T):
                s[i, i + 1:] = -np.inf
        weights[h] = softmax64(s)
        context[h] = weights[h] @ vh
    concat = np.concatenate([context[h] for h in range(H)], axis=1)
    return weights, context, concat @ wo + bo


def check(what, a, b):
    d = float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
    assert d <= 1e-6, f"{what}: float64 check max |diff| {d:.3g}"
    return d


def heads(t, n):
    """(T, n*d) -> (n, T, d): PyTorch's view(T, n, d).transpose(0, 1)."""
    T = t.shape[0]
    return t.reshape(T, n, -1).transpose(0, 1)


def embeddings():
    torch.manual_seed(4)
    return torch.randn(8, 4)


def multihead():
    ex = "multihead"
    x = embeddings()
    E, H = 4, 2
    torch.manual_seed(123)
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True).eval()
    with torch.no_grad():  # nonzero biases, so they show
        mha.in_proj_bias.copy_(0.1 * torch.randn(3 * E))
        mha.out_proj.bias.copy_(0.1 * torch.randn(E))
    W, b = mha.in_proj_weight.detach(), mha.in_proj_bias.detach()
    Wo, bo = mha.out_proj.weight.detach(), mha.out_proj.bias.detach()
    src = (f"PyTorch {VERSION} float32: torch.manual_seed(123); "
           f"mha = nn.MultiheadAttention({E}, {H}, batch_first=True);\n"
           "biases set to 0.1 * torch.randn (in_proj_bias, then out_proj.bias) so they show")
    write(ex, "x.txt", x, "torch.manual_seed(4); X = torch.randn(8, 4) (the masking example's embeddings)")
    write(ex, "in_proj_weight.txt", W, src + "\nmha.in_proj_weight (3E x E = [W_q; W_k; W_v], nn.Linear layout: q = x W_q^T + b_q)")
    write(ex, "in_proj_bias.txt", b, src + "\nmha.in_proj_bias [b_q; b_k; b_v]")
    write(ex, "out_proj_weight.txt", Wo, src + "\nmha.out_proj.weight (E x E, nn.Linear layout)")
    write(ex, "out_proj_bias.txt", bo, src + "\nmha.out_proj.bias")

    Wq, Wk, Wv = W[:E], W[E:2 * E], W[2 * E:]
    bq, bk, bv = b[:E], b[E:2 * E], b[2 * E:]
    with torch.no_grad():
        q, k, v = x @ Wq.T + bq, x @ Wk.T + bk, x @ Wv.T + bv
        qh, kh, vh = heads(q, H), heads(k, H), heads(v, H)
        scores = qh @ kh.transpose(1, 2)
        for causal, suffix in ((False, ""), (True, "_causal")):
            mask = torch.ones(8, 8, dtype=torch.bool).triu(1) if causal else None
            out, wmean = mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=True)
            _, wheads = mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
            context = wheads @ vh
            # The per-head context recomputed from the module's weights reproduces its output.
            check("output from context", (torch.cat(list(context), dim=1) @ Wo.T + bo).numpy(), out.numpy())
            w64, c64, o64 = reference64(x.numpy(), Wq.T.numpy(), bq.numpy(), Wk.T.numpy(), bk.numpy(),
                                        Wv.T.numpy(), bv.numpy(), Wo.T.numpy(), bo.numpy(), H, H, causal)
            check("weights", wheads.numpy(), w64), check("context", context.numpy(), c64)
            check("output", out.numpy(), o64), check("weights-mean", wmean.numpy(), w64.mean(axis=0))
            what = "causal (attn_mask = ones(8, 8).triu(1), True = masked)" if causal else "no mask"
            call = f"mha(x, x, x, {'attn_mask=mask, ' if causal else ''}need_weights=True"
            if not causal:
                write(ex, "queries.txt", qh, src + "\nq = x W_q^T + b_q split into heads: view(8, 2, 2).transpose(0, 1)")
                write(ex, "keys.txt", kh, src + "\nk = x W_k^T + b_k split into heads")
                write(ex, "values.txt", vh, src + "\nv = x W_v^T + b_v split into heads")
                write(ex, "scores.txt", scores, src + "\nraw per-head scores q_h k_h^T (before the 1/sqrt(2) scale)")
            write(ex, f"weights{suffix}.txt", wheads,
                  src + f"\n{what}: {call}, average_attn_weights=False)[1], (H, T, T)")
            write(ex, f"weights_mean{suffix}.txt", wmean,
                  src + f"\n{what}: {call})[1] (average_attn_weights=True: mean over heads)")
            write(ex, f"context{suffix}.txt", context, src + f"\n{what}: per-head context weights_h v_h, (H, T, d_v)")
            write(ex, f"output{suffix}.txt", out, src + f"\n{what}: {call})[0]")


def grouped_query():
    ex = "grouped-query"
    x = embeddings()
    E, H, G, dh = 4, 4, 2, 2
    torch.manual_seed(7)
    wq = torch.randn(E, H * dh) / E ** 0.5
    wk = torch.randn(E, G * dh) / E ** 0.5
    wv = torch.randn(E, G * dh) / E ** 0.5
    wo = torch.randn(H * dh, E) / (H * dh) ** 0.5
    bq, bk, bv, bo = (0.1 * torch.randn(n) for n in (H * dh, G * dh, G * dh, E))
    src = (f"PyTorch {VERSION} float32: torch.manual_seed(7); W_q, W_k, W_v, W_o = torch.randn(4, 8), "
           "randn(4, 4), randn(4, 4), randn(8, 4),\neach / sqrt(rows); then biases b_q, b_k, b_v, b_o = 0.1 * randn "
           "(8), (4), (4), (4). H = 4 query heads, G = 2 key/value heads, d_h = 2")
    write(ex, "x.txt", x, "torch.manual_seed(4); X = torch.randn(8, 4) (the masking example's embeddings)")
    for name, t, what in (("wq", wq, "W_q (E x H*d_h: head h = columns 2h, 2h+1)"), ("wk", wk, "W_k (E x G*d_h)"),
                          ("wv", wv, "W_v (E x G*d_h)"), ("wo", wo, "W_o (H*d_h x E)"), ("bq", bq, "b_q"),
                          ("bk", bk, "b_k"), ("bv", bv, "b_v"), ("bo", bo, "b_o")):
        write(ex, name + ".txt", t, src + "\n" + what)
    q, k, v = x @ wq + bq, x @ wk + bk, x @ wv + bv
    qh, kh, vh = heads(q, H), heads(k, G), heads(v, G)
    # Query head h reads key/value head h // (H/G), as scaled_dot_product_attention(enable_gqa=True).
    kr, vr = kh.repeat_interleave(H // G, dim=0), vh.repeat_interleave(H // G, dim=0)
    mask = torch.ones(8, 8, dtype=torch.bool).triu(1)
    scaled = (qh @ kr.transpose(1, 2) / dh ** 0.5).masked_fill(mask, float("-inf"))
    weights = torch.softmax(scaled, dim=-1)
    context = weights @ vr
    out = torch.cat(list(context), dim=1) @ wo + bo
    w64, c64, o64 = reference64(x.numpy(), wq.numpy(), bq.numpy(), wk.numpy(), bk.numpy(), wv.numpy(), bv.numpy(),
                                wo.numpy(), bo.numpy(), H, G, True)
    check("weights", weights.numpy(), w64), check("context", context.numpy(), c64), check("output", out.numpy(), o64)
    calc = src + "\ncausal; key/value head for query head h: h // 2 (k.repeat_interleave(2, dim=0))"
    write(ex, "queries.txt", qh, calc + "\nq = x W_q + b_q split into 4 heads: view(8, 4, 2).transpose(0, 1)")
    write(ex, "keys.txt", kh, calc + "\nk = x W_k + b_k split into 2 heads")
    write(ex, "values.txt", vh, calc + "\nv = x W_v + b_v split into 2 heads")
    write(ex, "weights.txt", weights, calc + "\nsoftmax(q_h k_g^T / sqrt(2), causal), (H, T, T)")
    write(ex, "context.txt", context, calc + "\nweights_h v_g, (H, T, d_h)")
    write(ex, "output.txt", out, calc + "\nconcat_h(context_h) W_o + b_o, (T, E)")


if __name__ == "__main__":
    multihead()
    grouped_query()
    for ex in ("multihead", "grouped-query"):
        with open(os.path.join(HERE, ex, "labels.txt"), "w") as f:
            f.write("The\nhiking\ntrail\nled\nus\nthrough\nbear\ncountry.\n")
    print("ok: data/examples/multihead, data/examples/grouped-query (float64 check within 1e-6)")
