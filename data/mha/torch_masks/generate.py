#!/usr/bin/python3
"""PyTorch's own masks for `attn attend --attn-mask/--key-padding-mask` (tests/e2e/test_torch_masks.sh).

Run from the repository root with Debian 12's python3-torch (1.13):
    /usr/bin/python3 data/mha/torch_masks/generate.py
nn.MultiheadAttention(8, 2, batch_first=True) on x (2, 5, 8), seeded, with its own tensors
saved as attn takes them (in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias) and the
masks as a user has them: attn_mask bool (5, 5), True = not allowed (also printed as torch prints
it, True/False text); attn_mask float (5, 5), added; key_padding_mask bool (2, 5), True = padding.
For each case the expected per-head weights (average_attn_weights=False) and the output.
"""
import os

import numpy as np
import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, t):
    np.save(os.path.join(HERE, name), t.detach().numpy() if torch.is_tensor(t) else t)


def main():
    torch.manual_seed(7)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(2, 5, 8)
    save("x.npy", x)
    save("in_proj_weight.npy", mha.in_proj_weight)
    save("in_proj_bias.npy", mha.in_proj_bias)
    save("out_proj_weight.npy", mha.out_proj.weight)
    save("out_proj_bias.npy", mha.out_proj.bias)
    # Raschka's mask buffer: torch.triu(ones, diagonal=1), True above the diagonal (the future).
    attn_bool = torch.triu(torch.ones(5, 5), diagonal=1).bool()
    attn_bool[4, 0] = True  # one more, so the mask is not only the causal rule
    attn_float = torch.zeros(5, 5)
    attn_float[:, 3] = -1.5
    attn_float[0, 1:] = float("-inf")
    padding = torch.tensor([[False] * 5, [False, False, False, True, True]])
    save("attn_mask_bool.npy", attn_bool.numpy())
    with open(os.path.join(HERE, "attn_mask_bool.txt"), "w") as f:
        f.write(str(attn_bool) + "\n")
    save("attn_mask_float.npy", attn_float)
    save("key_padding_mask.npy", padding.numpy())
    cases = {
        "bool": dict(attn_mask=attn_bool),
        "float": dict(attn_mask=attn_float),
        "bool_padding": dict(attn_mask=attn_bool, key_padding_mask=padding),
        "padding": dict(key_padding_mask=padding),
    }
    with torch.no_grad():
        for name, kw in cases.items():
            out, w = mha(x, x, x, average_attn_weights=False, **kw)
            save(f"weights_{name}.npy", w)
            save(f"output_{name}.npy", out)
    with open(os.path.join(HERE, "README.md"), "w") as f:
        f.write("# nn.MultiheadAttention's masks, as PyTorch applies them\n\n"
                "Made by `generate.py` (its docstring says what and how) with torch " + torch.__version__ + ".\n"
                "`weights_CASE.npy` and `output_CASE.npy` are `mha(x, x, x, average_attn_weights=False, ...)` for\n"
                "CASE bool (attn_mask bool), float (attn_mask float), bool_padding (both masks), padding.\n")


main()
