#!/usr/bin/python3
"""Writes the data of the `nanogpt-head` worked example (data/examples/nanogpt-head/*.txt).

Run from the repository root with Debian 12's system Python (python3-torch 1.13, python3-numpy):
    /usr/bin/python3 data/examples/generate_nanogpt.py
The cell of nanoGPT's gpt-dev notebook, "version 4: self-attention" (the self-attention trick
notes in ../shared/seeds build the same head):
    torch.manual_seed(1337); x = torch.randn(4, 8, 32)
    key, query, value = (nn.Linear(32, 16, bias=False) for each, in this order)
    wei = softmax((query(x) @ key(x).transpose(-2, -1)).masked_fill(tril == 0, -inf)); out = wei @ value(x)
(unscaled: the notebook introduces the 1/sqrt(head_size) scale after this cell). Batch 0 is stored:
the projections as attn's --wq/--wk/--wv take them (in x out, nn.Linear's weight transposed),
and what torch computed for wei[0] and out[0]. x[0] itself is drawn by attn (torch.randn with
seed 1337). The results are also recomputed in float64 NumPy; the script stops if they disagree
by more than 1e-6. Values are written with 9 significant digits (float32 round-trips).
"""
import os

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

torch.set_num_threads(1)
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nanogpt-head")


def write(name, array, comment):
    a = np.asarray(array, dtype=np.float32)
    lines = ["# " + c for c in comment.split("\n")]
    lines += [" ".join("%.9g" % float(v) for v in row) for row in a]
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    os.makedirs(HERE, exist_ok=True)
    torch.manual_seed(1337)
    B, T, C = 4, 8, 32
    x = torch.randn(B, T, C)
    head_size = 16
    key = nn.Linear(C, head_size, bias=False)
    query = nn.Linear(C, head_size, bias=False)
    value = nn.Linear(C, head_size, bias=False)
    with torch.no_grad():
        k, q, v = key(x), query(x), value(x)
        wei = q @ k.transpose(-2, -1)
        tril = torch.tril(torch.ones(T, T))
        wei = wei.masked_fill(tril == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        out = wei @ v
    # float64 check of batch 0
    x0 = x[0].numpy().astype(np.float64)
    wq, wk, wv = (m.weight.detach().numpy().T.astype(np.float64) for m in (query, key, value))
    s = (x0 @ wq) @ (x0 @ wk).T
    s[np.triu_indices(T, 1)] = -np.inf
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w64 = e / e.sum(axis=1, keepdims=True)
    assert np.max(np.abs(w64 - wei[0].numpy())) <= 1e-6
    assert np.max(np.abs(w64 @ (x0 @ wv) - out[0].numpy())) <= 1e-6
    made = "made by data/examples/generate_nanogpt.py with torch " + torch.__version__
    for name, m in (("wq.txt", query), ("wk.txt", key), ("wv.txt", value)):
        write(name, m.weight.detach().numpy().T, f"{name[:2].upper()} = nn.Linear(32, 16, bias=False).weight.T ({made})")
    write("weights.txt", wei[0].numpy(), f"wei[0], as torch computed it ({made})")
    write("context.txt", out[0].numpy(), f"out[0] = wei[0] @ value(x)[0], as torch computed it ({made})")


main()
