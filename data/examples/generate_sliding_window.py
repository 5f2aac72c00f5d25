#!/usr/bin/python3
"""Writes the data of the `sliding-window` worked example (data/examples/sliding-window/*.txt).

Run from the repository root with Debian 12's system Python (python3-torch 1.13, python3-numpy):
    /usr/bin/python3 data/examples/generate_sliding_window.py
Deterministic: it reads the `masking` example's embeddings (torch.manual_seed(4); torch.randn(8, 4))
and labels. The mask is Mistral's, as HF transformers builds it for `sliding_window = W`
(a key j is visible to query i iff j <= i and i - j < W), added to the scores as -inf, then HF's
eager attention: softmax(Q·Kᵀ/√d + mask, float32)·V with Q = K = V = X. The stored weights are
checked against a float64 recomputation (1e-6).
"""
import os
import shutil

import numpy as np
import torch

torch.set_num_threads(1)
ROOT = os.path.dirname(os.path.abspath(__file__))
HERE = os.path.join(ROOT, "sliding-window")
W = 3  # Mistral's sliding_window: each token sees itself and the W - 1 before it


def write(name, array, comment):
    a = np.asarray(array, dtype=np.float32)
    with open(os.path.join(HERE, name), "w") as f:
        f.write("# " + comment + "\n")
        for row in a:
            f.write(" ".join("%.9g" % float(v) for v in row) + "\n")


os.makedirs(HERE, exist_ok=True)
shutil.copy(os.path.join(ROOT, "masking", "x.txt"), os.path.join(HERE, "x.txt"))
shutil.copy(os.path.join(ROOT, "masking", "labels.txt"), os.path.join(HERE, "labels.txt"))
x = torch.tensor(np.loadtxt(os.path.join(HERE, "x.txt"), dtype=np.float32))
T, d = x.shape
i = torch.arange(T)[:, None]
j = torch.arange(T)[None, :]
visible = (j <= i) & (i - j < W)
mask = torch.zeros(T, T).masked_fill(~visible, float("-inf"))
scores = x @ x.T / np.sqrt(d)
weights = torch.softmax(scores + mask, dim=-1, dtype=torch.float32)
context = weights @ x

x64 = x.double()
s64 = (x64 @ x64.T) / np.sqrt(d) + mask.double()
w64 = torch.softmax(s64, dim=-1)
assert float((w64 - weights.double()).abs().max()) < 1e-6
assert float((w64 @ x64 - context.double()).abs().max()) < 1e-6

note = "PyTorch 1.13 float32, data/examples/generate_sliding_window.py: Mistral's sliding_window = %d" % W
write("weights.txt", weights, note + ", weights")
write("context.txt", context, note + ", context")
