#!/usr/bin/python3
"""PyTorch's own masks for `attn attend --attn-mask/--key-padding-mask` (tests/e2e/test_torch_masks.sh).

Run from the repository root with Debian 12's python3-torch (1.13):
    /usr/bin/python3 data/mha/torch_masks/generate.py
nn.MultiheadAttention(8, 2, batch_first=True) on x (2, 5, 8), seeded, with its own tensors
saved as attn takes them (in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias) and the
masks as a user has them: attn_mask bool (5, 5), True = not allowed (also printed as torch prints
it, True/False text); attn_mask float (5, 5), added; key_padding_mask bool (2, 5), True = padding;
key_padding_mask float (2, 5), added (-inf and -0.5); the bool masks also as an int64 .npy and as
members of masks.npz. For each case the expected per-head weights
(average_attn_weights=False) and the output. torch 1.13 refuses a float key_padding_mask beside a
bool attn_mask (masked_fill takes a bool mask); later versions add the two as floats, and so the
case bool_float_padding gives their sum as one float (B*H, 5, 5) attn_mask (saved too, as
attn_mask_float_3d.npy). bool_3d: a bool (B*H, 5, 5) attn_mask, one mask per batch item and head.
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
    # The same boolean masks as a user may have them too: an int64 array, members of an .npz.
    save("key_padding_mask_int64.npy", padding.numpy().astype(np.int64))
    np.savez(os.path.join(HERE, "masks.npz"), attn_mask=attn_bool.numpy(), key_padding_mask=padding.numpy())
    padding_float = torch.zeros(2, 5)
    padding_float[0, 2] = -0.5
    padding_float[1, 3:] = float("-inf")
    save("key_padding_mask_float.npy", padding_float)
    bool_as_float = torch.zeros(5, 5).masked_fill(attn_bool, float("-inf"))
    both = (bool_as_float[None, None] + padding_float[:, None, None, :]).expand(2, 2, 5, 5).reshape(4, 5, 5)
    save("attn_mask_float_3d.npy", both)
    # A 3-D bool attn_mask (B*H, 5, 5), batch item after batch item: its own mask per item and head.
    per_head = torch.stack([torch.roll(attn_bool, s, dims=1) for s in range(4)])
    per_head[:, :, 0] = False  # every query may see key 0
    save("attn_mask_bool_3d.npy", per_head.numpy())
    cases = {
        "bool": dict(attn_mask=attn_bool),
        "float": dict(attn_mask=attn_float),
        "bool_padding": dict(attn_mask=attn_bool, key_padding_mask=padding),
        "padding": dict(key_padding_mask=padding),
        "float_padding": dict(key_padding_mask=padding_float),
        "bool_float_padding": dict(attn_mask=both),
        "bool_3d": dict(attn_mask=per_head),
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
                "CASE bool (attn_mask bool), float (attn_mask float), bool_padding (both masks), padding,\n"
                "float_padding (key_padding_mask float), bool_float_padding (attn_mask bool and\n"
                "key_padding_mask float, added as later versions of torch add them: attn_mask_float_3d.npy)\n"
                "and bool_3d (a bool (B*H, T, T) attn_mask, attn_mask_bool_3d.npy).\n")


main()
