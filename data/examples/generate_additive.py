#!/usr/bin/python3
"""Writes the data of the `additive` worked example (data/examples/additive/*.txt): d2l's
additive attention example (d2l.ai, "Attention Scoring Functions", PyTorch tab).

Run from the repository root with Debian 12's system Python (python3-torch 1.13, python3-numpy):
    /usr/bin/python3 data/examples/generate_additive.py
d2l's AdditiveAttention and masked_softmax are the ones copied into data/scores/generate.py
(imported from there: one copy of the book's code). The module's weights are random in the book;
here torch.manual_seed(0) draws the queries, then LazyLinear's weights on the first call, and the
weights are stored (in attn's in×out layout) with the module's own float32 output. The script
stops if a float64 recomputation differs from the module by more than 1e-6 (weights) / 1e-5
(context). Values are written with 9 significant digits, tensors of more than two dimensions as
attn prints them (blocks headed "# NAME [b, h] RxC").
"""
import importlib.util
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("scores", os.path.join(HERE, "..", "scores", "generate.py"))
scores = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scores)
torch.set_num_threads(1)


def write(name, array, comment):
    a = np.asarray(array, dtype=np.float32)
    os.makedirs(os.path.join(HERE, "additive"), exist_ok=True)
    lines = ["# " + c for c in comment.split("\n")]
    if a.ndim <= 2:
        a2 = a.reshape(1, -1) if a.ndim == 1 else a
        lines += [" ".join("%.9g" % float(v) for v in row) for row in a2]
    else:
        for idx in np.ndindex(*a.shape[:-2]):
            lines.append("# %s [%s] %dx%d" % (name.split(".")[0], ", ".join(str(i) for i in idx), a.shape[-2], a.shape[-1]))
            lines += [" ".join("%.9g" % float(v) for v in row) for row in a[idx]]
            lines.append("")
    with open(os.path.join(HERE, "additive", name), "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


torch.manual_seed(0)
queries = torch.normal(0, 1, (2, 1, 20))
keys = torch.ones((2, 10, 2))
values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
valid_lens = torch.tensor([2, 6])
attention = scores.AdditiveAttention(num_hiddens=8, dropout=0.1)
attention.eval()
with torch.no_grad():
    out = attention(queries, keys, values, valid_lens)
    w = attention.attention_weights
    Wq, Wk, va = attention.W_q.weight.T.detach(), attention.W_k.weight.T.detach(), attention.w_v.weight[0].detach()
    s = torch.tanh((queries.double() @ Wq.double())[:, :, None] + (keys.double() @ Wk.double())[:, None]) @ va.double()
    s = s.masked_fill(torch.arange(10)[None, None] >= valid_lens[:, None, None], float("-inf"))
    w64 = torch.softmax(s, -1)
    assert float(torch.max(torch.abs(w64 - w.double()))) <= 1e-6
    assert float(torch.max(torch.abs(w64 @ values.double() - out.double()))) <= 1e-5
src = "d2l: torch.manual_seed(0); "
write("q.txt", queries[:, None], src + "queries = torch.normal(0, 1, (2, 1, 20)), as (B, 1 head, Tq, d_q)")
write("k.txt", keys[:, None], "keys = torch.ones((2, 10, 2)), as (B, 1 head, Tk, d_k)")
write("v.txt", values[:, None], "values = torch.arange(40).reshape(1, 10, 4).repeat(2, 1, 1), as (B, 1 head, Tk, d_v)")
write("wa_q.txt", Wq, "AdditiveAttention(num_hiddens=8).W_q.weight.T (d_q x h), drawn on the first call after the queries")
write("wa_k.txt", Wk, "AdditiveAttention(num_hiddens=8).W_k.weight.T (d_k x h)")
write("va.txt", va, "AdditiveAttention(num_hiddens=8).w_v.weight[0] (h)")
write("weights.txt", w[:, None], "PyTorch %s float32: attention.attention_weights, valid_lens [2, 6] (d2l's masked_softmax)"
      % torch.__version__)
write("context.txt", out[:, None], "PyTorch float32: attention(queries, keys, values, valid_lens)")
