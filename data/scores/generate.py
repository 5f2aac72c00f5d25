#!/usr/bin/python3
"""Reference fixtures for `attn attend --score general|additive|cosine` (see README.md).

Run from the repository root with Debian 12's torch 1.13 and numpy 1.24:
    /usr/bin/python3 data/scores/generate.py
The scores are written from each model's own definition:
  additive  d2l's AdditiveAttention and masked_softmax (d2l.ai, chapter "Attention Scoring
            Functions", PyTorch tab), copied below as the book has them; the d2l case runs the
            module itself in float32 (its worked example), every case also in float64;
  general   Luong et al. 2015's "general" score q·W_a·kᵀ, scaled by 1/sqrt(d_k) as attn does;
  cosine    torch.nn.functional.cosine_similarity (a zero vector gives 0) in float64.
Inputs are float32 (np.save, '<f4'); expected results are the float64 computation rounded to
float32. Every case is seeded (torch.manual_seed), so a rerun rewrites the same bytes.
"""
import math
import os
import shutil

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)


# ---- d2l (d2l.ai, 11.3 "Attention Scoring Functions", PyTorch), as the book has it --------
def masked_softmax(X, valid_lens):  # @save
    """Perform softmax operation by masking elements on the last axis."""
    # X: 3D tensor, valid_lens: 1D or 2D tensor
    def _sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = torch.arange((maxlen), dtype=torch.float32,
                            device=X.device)[None, :] < valid_len[:, None]
        X[~mask] = value
        return X

    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        # On the last axis, replace masked elements with a very large negative
        # value, whose exponentiation outputs 0
        X = _sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


class AdditiveAttention(nn.Module):  # @save
    """Additive attention."""
    def __init__(self, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        # After dimension expansion, shape of queries: (batch_size, no. of
        # queries, 1, num_hiddens) and shape of keys: (batch_size, 1, no. of
        # key-value pairs, num_hiddens). Sum them up with broadcasting
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        # There is only one output of self.w_v, so we remove the last
        # one-dimensional entry from the shape. Shape of scores: (batch_size,
        # no. of queries, no. of key-value pairs)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        # Shape of values: (batch_size, no. of key-value pairs, value dimension)
        return torch.bmm(self.dropout(self.attention_weights), values)
# ---- end of d2l ------------------------------------------------------------------------


def save(case, name, array):
    a = np.ascontiguousarray(np.asarray(array, dtype="<f4"))
    assert np.all(np.isfinite(a)), f"{case}/{name}"
    os.makedirs(os.path.join(HERE, case), exist_ok=True)
    np.save(os.path.join(HERE, case, name + ".npy"), a)


def fresh(case):
    d = os.path.join(HERE, case)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)


def finish(scores, scale, allowed, v):
    """softmax(scale·scores, masked)·V in float64 (masked cells excluded; no row fully masked)."""
    z = (scale * scores).masked_fill(~allowed, float("-inf"))
    w = torch.softmax(z, dim=-1)
    return w, w @ v


def d2l_example():
    """d2l's worked example: its queries, keys, values and valid_lens, AdditiveAttention(8)."""
    case = "additive_d2l"
    fresh(case)
    torch.manual_seed(0)
    queries = torch.normal(0, 1, (2, 1, 20))
    keys = torch.ones((2, 10, 2))
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    valid_lens = torch.tensor([2, 6])
    attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
    attention.eval()
    with torch.no_grad():
        out = attention(queries, keys, values, valid_lens)
        weights32 = attention.attention_weights
        Wq = attention.W_q.weight.T.double()  # in×out: attn's layout
        Wk = attention.W_k.weight.T.double()
        va = attention.w_v.weight[0].double()
        q, k, v = queries.double(), keys.double(), values.double()
        s = torch.tanh((q @ Wq)[:, :, None, :] + (k @ Wk)[:, None, :, :]) @ va
        allowed = torch.arange(10)[None, None, :] < valid_lens[:, None, None]
        w, ctx = finish(s, 1.0, allowed, v)
    assert torch.max(torch.abs(w - weights32.double())) < 1e-6 and torch.max(torch.abs(ctx - out.double())) < 1e-4
    # attn reads a batch as 4-D (B, H, T, d): one head.
    save(case, "q", queries[:, None]), save(case, "k", keys[:, None]), save(case, "v", values[:, None])
    save(case, "wa_q", Wq), save(case, "wa_k", Wk), save(case, "va", va)
    save(case, "weights", w[:, None]), save(case, "context", ctx[:, None])
    save(case, "torch_context", out[:, None])  # the module's own float32 output
    with open(os.path.join(HERE, case, "lengths.txt"), "w") as f:
        f.write("2 6\n")
    return float(torch.max(torch.abs(ctx - out.double())))


def additive_heads():
    """Additive scores with heads, a batch and a causal mask (bottom-right, Tq < Tk), d_q != d_k."""
    case = "additive_heads"
    fresh(case)
    torch.manual_seed(1)
    B, H, Tq, Tk, dq, dk, dv, h = 2, 3, 5, 9, 6, 4, 3, 17
    q, k, v = torch.randn(B, H, Tq, dq), torch.randn(B, H, Tk, dk), torch.randn(B, H, Tk, dv)
    Wq, Wk, va = torch.randn(dq, h) / math.sqrt(dq), torch.randn(dk, h) / math.sqrt(dk), torch.randn(h)
    qd, kd = q.double() @ Wq.double(), k.double() @ Wk.double()
    s = torch.tanh(qd[..., :, None, :] + kd[..., None, :, :]) @ va.double()
    i, j = torch.arange(Tq)[:, None], torch.arange(Tk)[None, :]
    w, ctx = finish(s, 1.0, j <= i + Tk - Tq, v.double())
    for n, a in dict(q=q, k=k, v=v, wa_q=Wq, wa_k=Wk, va=va, weights=w, context=ctx).items():
        save(case, n, a)


def general():
    """Luong's general score with a batch, heads and a (Tq, Tk) boolean mask; d_q != d_k."""
    case = "general"
    fresh(case)
    torch.manual_seed(2)
    B, H, Tq, Tk, dq, dk, dv = 2, 2, 4, 6, 3, 5, 2
    q, k, v = torch.randn(B, H, Tq, dq), torch.randn(B, H, Tk, dk), torch.randn(B, H, Tk, dv)
    Wa = torch.randn(dq, dk)
    mask = torch.rand(Tq, Tk) < 0.7
    mask[:, 0] = True  # no fully masked row
    s = q.double() @ Wa.double() @ k.double().transpose(-1, -2)
    w, ctx = finish(s, 1 / math.sqrt(dk), mask, v.double())
    for n, a in dict(q=q, k=k, v=v, wa=Wa, mask=mask.float(), weights=w, context=ctx).items():
        save(case, n, a)


def cosine():
    """Cosine similarity (F.cosine_similarity, float64) with a zero query and a zero key, causal."""
    case = "cosine"
    fresh(case)
    torch.manual_seed(3)
    H, T, d, dv = 2, 6, 5, 4
    q, k, v = torch.randn(H, T, d), torch.randn(H, T, d), torch.randn(H, T, dv)
    q[0, 2] = 0
    k[1, 3] = 0
    s = F.cosine_similarity(q.double()[:, :, None, :], k.double()[:, None, :, :], dim=-1)
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    w, ctx = finish(s, 1.0, j <= i, v.double())
    for n, a in dict(q=q, k=k, v=v, weights=w, context=ctx).items():
        save(case, n, a)


if __name__ == "__main__":
    d = d2l_example()
    additive_heads()
    general()
    cosine()
    print(f"d2l example: max |float64 context - AdditiveAttention's float32| = {d:.3g}")
