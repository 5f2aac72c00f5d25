#!/usr/bin/python3
"""Writes the model-file fixtures in this directory (numpy only; no model is downloaded).

Run from this directory: /usr/bin/python3 make_models.py
The values are literals here so that tests can restate them independently of attn.
"""
import json
import struct

import numpy as np

FLOATS = [[1.5, -2.25, 0.125], [3.0, 4.5, -0.5]]          # exact in float16 and bfloat16
WQ = np.arange(12, dtype=np.float32).reshape(3, 4) / 4     # 0, 0.25, ..., 2.75
HEADS = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 12


def npz_fixtures():
    arrays = dict(floats=np.array(FLOATS, dtype=np.float32),
                  wq=WQ,
                  floats64=np.array(FLOATS, dtype=np.float64),
                  heads=HEADS,
                  ints=np.array([[1, -2, 3], [40, 5, -6]], dtype=np.int64))
    np.savez("small.npz", **arrays)
    np.savez_compressed("small_compressed.npz", **arrays)
    # A larger member, so that deflate uses dynamic Huffman blocks and back-references.
    big = (np.arange(64 * 48, dtype=np.float32).reshape(64, 48) % 7) / 8
    np.savez_compressed("big_compressed.npz", big=big)
    np.savez("single.npz", only=np.array(FLOATS, dtype=np.float32))
    # Members attn lists but cannot read: 0-d, a string dtype, an empty array.
    np.savez("unreadable.npz", floats=np.array(FLOATS, dtype=np.float32), scalar=np.float32(1.5),
             text=np.array(["ab"]), empty=np.zeros((0, 3), dtype=np.float32))


def bf16_bytes(values):
    out = b""
    for v in np.asarray(values, dtype=np.float32).ravel():
        bits = struct.unpack("<I", struct.pack("<f", float(v)))[0]
        assert bits & 0xFFFF == 0, "value not exact in bfloat16"
        out += struct.pack("<H", bits >> 16)
    return out


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype string, shape, raw bytes). The layout of the format's
    reference writer: 8-byte little-endian header length, JSON header padded with spaces to
    a multiple of 8, then the data in header order."""
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def safetensors_fixtures():
    f = np.array(FLOATS)
    write_safetensors("small.safetensors", [
        ("floats_f32", "F32", (2, 3), f.astype("<f4").tobytes()),
        ("floats_f16", "F16", (2, 3), f.astype("<f2").tobytes()),
        ("floats_bf16", "BF16", (2, 3), bf16_bytes(f)),
        ("wq", "F32", (3, 4), WQ.astype("<f4").tobytes()),
        ("heads", "F32", (2, 3, 4), HEADS.astype("<f4").tobytes()),
    ], metadata={"format": "pt", "note": "attn test fixture"})
    write_safetensors("wrong_dtype.safetensors", [
        ("ids", "I64", (2, 3), np.array([[1, -2, 3], [40, 5, -6]], dtype="<i8").tobytes()),
        ("floats_f32", "F32", (2, 3), f.astype("<f4").tobytes()),
    ])


def weights_fixture():
    """(B, H, Tq, Tk) = (2, 3, 4, 5) softmax weights for the HTML view's browser check, and
    the same values as text lines "SLICE QUERY KEY WEIGHT" (slice = b*3 + h)."""
    rng = np.random.default_rng(10)
    s = rng.standard_normal((2, 3, 4, 5)) * 2
    w = np.exp(s - s.max(-1, keepdims=True))
    w = (w / w.sum(-1, keepdims=True)).astype(np.float32)
    np.save("weights_b2h3.npy", w)
    with open("weights_b2h3.txt", "w") as f:
        for b in range(2):
            for h in range(3):
                for q in range(4):
                    for k in range(5):
                        f.write("%d %d %d %.9g\n" % (b * 3 + h, q, k, w[b, h, q, k]))


def layers_fixture():
    # (L, B, H, T, T) = (2, 1, 3, 6, 6): PyTorch's output_attentions stacked with torch.stack
    # for one sentence, as `attn view` takes it.
    rng = np.random.default_rng(11)
    s = rng.standard_normal((2, 1, 3, 6, 6)) * 2
    w = np.exp(s - s.max(-1, keepdims=True))
    w = (w / w.sum(-1, keepdims=True)).astype(np.float32)
    np.save("weights_l2b1h3.npy", w)
    with open("weights_l2b1h3.txt", "w") as f:
        for l in range(2):
            for h in range(3):
                for q in range(6):
                    for k in range(6):
                        f.write("%d %d %d %.9g\n" % (l * 3 + h, q, k, w[l, 0, h, q, k]))


if __name__ == "__main__":
    npz_fixtures()
    safetensors_fixtures()
    weights_fixture()
    layers_fixture()
