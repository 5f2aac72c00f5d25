#!/usr/bin/python3
"""Writes the data of the `rope-relative` worked example (data/examples/rope-relative/*.txt).

Run from the repository root with Debian 12's system Python (python3-torch 1.13, python3-numpy):
    /usr/bin/python3 data/examples/generate_rope.py
Seeded, one thread: a rerun rewrites the same files. The rotation is HF transformers' own
(models/llama/modeling_llama.py: LlamaRotaryEmbedding's inv_freq and cos/sin, rotate_half,
apply_rotary_pos_emb), copied with its math unchanged. Every stored score is recomputed in float64
from the float32 rotated rows and the script stops if the two disagree by more than 1e-6.

RoPE's relative-position property (RoFormer, Su et al. 2021, §3.4.2): the score of a query at
position m and a key at position n depends on the vectors and on m − n only. The four tokens x are
scored at positions 0..3, then again after three other tokens (positions 3..6): the last four
columns of the second scores equal the first scores.
"""
import os

import numpy as np
import torch

torch.set_num_threads(1)
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rope-relative")
THETA = 10000.0


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def cos_sin(dim, position_ids):
    inv_freq = 1.0 / (THETA ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    freqs = (inv_freq[None, :, None].float() @ position_ids[None, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[0], emb.sin()[0]


def rotated(x, positions):
    cos, sin = cos_sin(x.shape[-1], positions)
    return (x * cos) + (rotate_half(x) * sin)  # apply_rotary_pos_emb's q_embed


def write(name, array, comment):
    a = np.asarray(array, dtype=np.float32)
    with open(os.path.join(HERE, name), "w") as f:
        f.write("# " + comment + "\n")
        for row in a:
            f.write(" ".join("%.9g" % float(v) for v in row) + "\n")


os.makedirs(HERE, exist_ok=True)
torch.manual_seed(7)
x = torch.randn(4, 4)
y = torch.cat((torch.randn(3, 4), x))  # three other tokens, then x
s1 = rotated(x, torch.arange(4)) @ rotated(x, torch.arange(4)).T
q2 = rotated(x, torch.arange(3, 7))
k2 = rotated(y, torch.arange(7))
s2 = q2 @ k2.T
for got, q, k in ((s1, rotated(x, torch.arange(4)), rotated(x, torch.arange(4))), (s2, q2, k2)):
    want = q.double().numpy() @ k.double().numpy().T
    assert np.max(np.abs(got.numpy() - want)) <= 1e-6
print("max |shifted - first| over the last four columns:", float((s2[:, 3:] - s1).abs().max()))
write("x.txt", x, "4 tokens, d = 4: torch.manual_seed(7); x = torch.randn(4, 4)")
write("y.txt", y, "3 other tokens (the next torch.randn(3, 4)), then the same 4 tokens x")
write("scores.txt", s1, "rotated q·kᵀ of x at positions 0..3 (HF apply_rotary_pos_emb, theta 10000, torch 1.13 float32)")
write("scores_shifted.txt", s2, "x at positions 3..6 against y at 0..6: the last four columns are the first scores")
