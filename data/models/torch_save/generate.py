"""torch.save checkpoints for attn's restricted unpickler, and malicious ones it must refuse.

Run from the repository root: /usr/bin/python3 data/models/torch_save/generate.py
(torch 1.13, numpy 1.24; see PROVENANCE). Writes into this script's folder:
  state_dict.pt      an OrderedDict of f32/f16/bf16/int64 tensors, views sharing a storage
                     (a transpose, a strided slice with an offset, an expand with stride 0), a
                     0-d scalar, an nn.Parameter, and a nested dict {"meta": {"epoch": 3, "sub": {"w": ...}}}
  expected.npz       numpy's float32 copy of every readable tensor of state_dict.pt, same names
                     (the nested one as "meta.sub.w")
  mha/pytorch_model.bin  an nn.MultiheadAttention(E=8, H=2) state_dict, plus the same weights
                     as separate nn.Linear weights q.weight/k.weight/v.weight (+ .bias) and as
                     GPT-2's Conv1D c_attn.weight (E x 3E, x.W) / c_attn.bias
  mha/model.safetensors  q.weight, k.weight, v.weight with __metadata__ {"format": "pt"}
  mha/x.npy, mha/output.npy  the input (T=5, E=8) and torch's MHA output for it
  legacy.pt          the same state_dict with _use_new_zipfile_serialization=False
  malicious/*.pt     torch-zip archives whose data.pkl must be refused (see MALICIOUS), and a
                     legacy-format file whose one storage two tensors type differently
                     (`--malicious` remakes only these)
  tensor.pt, attentions.pt, nested.pt  torch.save of a tensor, of a tuple of two, of a dict with
                     a list (collections_expected.npz: their values; `--collections` remakes them)
  attentions_savez.npz, attentions_stacked.npy  attentions.pt's tuple by numpy.savez(*...), and
                     torch.stack of it; attentions_one.pt the tuple of its first layer alone;
                     attentions_f64.pt the tuple in float64; f64_huge.pt a float64 1e300;
                     vectors.pt a list of five (3,) tensors; tensor_and_none.pt (layer 0, None)
                     expanded/layers.pt a tuple of 8 expanded views, 512 MiB
                     stacked (`--stacked` remakes them)
  complex.pt         {"w": float32 (1, 3), "z": complex64 (2,)} (`--complex` remakes it)
  expanded/          a Llama folder (config.json, pytorch_model.bin) of stride-0 views: 6 KB that
                     are 940 MB as float32 (`--expanded` remakes only it)
  views/             data/models/tiny/bert's weights in a pytorch_model.bin as views of every
                     kind (rows of a wider storage, an offset, a transpose, a stride-2 vector,
                     two tensors of one storage; an unused all-NaN pooler weight); views_nan/ the
                     same with a NaN in layer 0's key weight (`--views` remakes only them)
"""
import collections
import io
import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(24)
torch.set_num_threads(1)


def state_dict():
    sd = collections.OrderedDict()
    sd["f32"] = torch.randn(3, 5)
    sd["f16"] = torch.randn(2, 3).half()
    sd["bf16"] = torch.randn(4, 2).bfloat16()
    sd["ids"] = torch.arange(5, dtype=torch.int64) * 7
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6) / 8
    sd["base"] = base
    sd["base_t"] = base.t()                 # stride (1, 6), shares base's storage
    sd["slice"] = base[1:3, 1:6:2]          # offset 7, stride (6, 2)
    sd["expand"] = torch.tensor([1.5, -2.0, 0.25]).expand(2, 3)  # stride (0, 1)
    sd["scalar"] = torch.tensor(2.5)        # 0-d
    sd["param"] = torch.nn.Parameter(torch.randn(2, 2, 3))
    sd["meta"] = {"epoch": 3, "sub": {"w": torch.randn(2, 2)}}
    return sd


def expected(sd, prefix=""):
    out = {}
    for k, v in sd.items():
        if isinstance(v, dict):
            out.update(expected(v, prefix + k + "."))
        elif isinstance(v, torch.Tensor) and v.is_floating_point() and v.dim() > 0:
            out[prefix + k] = v.detach().float().numpy().astype("<f4")
    return out


def write_safetensors(path, tensors, metadata):
    import json
    header, data = {"__metadata__": metadata}, b""
    for name, a in tensors.items():
        b = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def mha_files():
    os.makedirs(os.path.join(HERE, "mha"), exist_ok=True)
    E, H, T = 8, 2, 5
    mha = torch.nn.MultiheadAttention(E, H)
    x = torch.randn(T, E)
    with torch.no_grad():
        y, _ = mha(x, x, x, need_weights=False)
    sd = mha.state_dict()
    w, b = sd["in_proj_weight"], sd["in_proj_bias"]
    for i, n in enumerate("qkv"):
        sd[n + ".weight"] = w[i * E:(i + 1) * E].clone()
        sd[n + ".bias"] = b[i * E:(i + 1) * E].clone()
    sd["c_attn.weight"] = w.t().contiguous()  # GPT-2's Conv1D: E x 3E, x.W
    sd["c_attn.bias"] = b.clone()
    torch.save(sd, os.path.join(HERE, "mha", "pytorch_model.bin"))
    write_safetensors(os.path.join(HERE, "mha", "model.safetensors"),
                      {n + ".weight": sd[n + ".weight"].numpy() for n in "qkv"}, {"format": "pt"})
    np.save(os.path.join(HERE, "mha", "x.npy"), x.numpy().astype("<f4"))
    np.save(os.path.join(HERE, "mha", "output.npy"), y.numpy().astype("<f4"))


# ---- malicious data.pkl payloads (protocol 2 unless noted) ------------------------------------
PWNED = "attn_pickle_pwned"  # the system() payload's file, relative to the reader's cwd
CMD = ("touch " + PWNED).encode()
CMD_UNICODE = b"X" + struct.pack("<I", len(CMD)) + CMD  # BINUNICODE
MALICIOUS = {
    # GLOBAL posix.system, then REDUCE: torch.load / pickle.load would run `touch attn_pickle_pwned`
    "system": b"\x80\x02cposix\nsystem\nq\x00" + CMD_UNICODE + b"\x85R.",
    # the same through protocol 4's STACK_GLOBAL
    "stack_global": b"\x80\x04\x8c\x05posix\x8c\x06system\x93" + CMD_UNICODE + b"\x85R.",
    # REDUCE of a global that is allowed as a value but is no known callable
    "reduce_storage": b"\x80\x02ctorch\nFloatStorage\nK\x0a\x85R.",
    # INST: a class call by name (protocol 0)
    "inst": b"(" + CMD_UNICODE + b"iposix\nsystem\n.",
    # an opcode no pickle protocol defines
    "unknown_opcode": b"\x80\x02}\xff.",
    # a real state_dict pickle cut in the middle (no STOP)
    "truncated_pickle": None,
    # a dict placed inside itself
    "cycle": b"\x80\x02}q\x00X\x01\x00\x00\x00ah\x00s.",
}


def torch_zip(path, pkl, extra=()):
    # A fixed date: a rerun writes the same bytes.
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in [("data.pkl", pkl), *extra, ("version", b"3\n")]:
            z.writestr(zipfile.ZipInfo("archive/" + name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def legacy_two_dtypes(path):
    """A legacy-format file whose storage 'k0' is a HalfStorage of 12 for tensor h and a
    FloatStorage of 6 for tensor w: torch.load types a storage by its first reference (w would
    be float16 there); attn must refuse rather than read the bytes as float32."""
    class Storage:
        def __init__(self, kind, numel):
            self.kind, self.numel = kind, numel

    class Tensor:
        def __init__(self, storage, size, stride):
            self.args = (storage, 0, size, stride, False, collections.OrderedDict())

        def __reduce__(self):
            return torch._utils._rebuild_tensor_v2, self.args

    class Pickler(pickle.Pickler):
        def persistent_id(self, o):
            return ("storage", o.kind, "k0", "cpu", o.numel, None) if isinstance(o, Storage) else None

    def dump(o):
        b = io.BytesIO()
        Pickler(b, protocol=2).dump(o)
        return b.getvalue()
    magic = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e"
    sd = {"h": Tensor(Storage(torch.HalfStorage, 12), (12,), (1,)),
          "w": Tensor(Storage(torch.FloatStorage, 6), (2, 3), (3, 1))}
    with open(path, "wb") as f:
        f.write(magic + dump(1001) + dump({"little_endian": True}) + dump(sd) + dump(["k0"]) +
                struct.pack("<q", 12) + struct.pack("<6f", 0, 1, 2, 3, 4, 5))


def malicious_files():
    d = os.path.join(HERE, "malicious")
    os.makedirs(d, exist_ok=True)
    good = io.BytesIO()
    torch.save(collections.OrderedDict(w=torch.ones(2, 2)), good)
    good_pkl = zipfile.ZipFile(io.BytesIO(good.getvalue())).read("archive/data.pkl")
    MALICIOUS["truncated_pickle"] = good_pkl[: len(good_pkl) // 2]
    for name, pkl in MALICIOUS.items():
        torch_zip(os.path.join(d, name + ".pt"), pkl, [("data/0", b"\0" * 16)])
    legacy_two_dtypes(os.path.join(d, "legacy_two_dtypes.pt"))
    # a whole checkpoint cut in half: the zip directory is gone
    with open(os.path.join(d, "truncated_zip.pt"), "wb") as f:
        f.write(good.getvalue()[: len(good.getvalue()) // 2])
    # The payloads are live: Python's own unpickler runs them (in a scratch folder).
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("system", "stack_global", "inst"):
            subprocess.run([sys.executable, "-c", "import pickle,sys; pickle.loads(bytes.fromhex(sys.argv[1]))",
                            MALICIOUS[name].hex()], cwd=tmp, check=False, capture_output=True)
            assert os.path.exists(os.path.join(tmp, PWNED)), name + ": the payload did not run in Python"
            os.remove(os.path.join(tmp, PWNED))


def expanded_files():
    """expanded/: a Llama folder whose pytorch_model.bin is 6 KB of stride-0 views (each weight
    one value, expand()ed): 940 MB as float32 in all, each tensor under 256 MiB."""
    folder = os.path.join(HERE, "expanded")
    os.makedirs(folder, exist_ok=True)
    E, L, V = 4096, 2, 16
    config = {"model_type": "llama", "vocab_size": V, "hidden_size": E, "num_hidden_layers": L,
              "num_attention_heads": 32, "num_key_value_heads": 32, "intermediate_size": E,
              "max_position_embeddings": 16}
    with open(os.path.join(folder, "config.json"), "w") as f:
        f.write(json.dumps(config, indent=2) + "\n")

    def one(*shape):
        return torch.full((1,) * len(shape), 0.001).expand(*shape)
    sd = collections.OrderedDict()
    sd["model.embed_tokens.weight"] = one(V, E)
    sd["model.norm.weight"] = one(E)
    for layer in range(L):
        p = "model.layers.%d." % layer
        sd[p + "input_layernorm.weight"] = one(E)
        sd[p + "post_attention_layernorm.weight"] = one(E)
        for name in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"):
            sd[p + name + ".weight"] = one(E, E)
    torch.save(sd, os.path.join(folder, "pytorch_model.bin"))


def read_safetensors(path):
    """name -> float32 torch tensor of an F32 safetensors file (8-byte header length, JSON header, data)."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = collections.OrderedDict()
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", name
        b, t = e["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(raw[8 + n + b:8 + n + t], dtype="<f4").reshape(e["shape"]).copy())
    return out


def views_files():
    """views/: data/models/tiny/bert's weights (the same values) saved as views torch.load gives
    back equal: attn uses the row-major ones where they lie and copies the others, and its outputs
    must equal those of the safetensors folder."""
    root = os.path.dirname(os.path.dirname(HERE))
    bert = os.path.join(root, "models", "tiny", "bert")
    folder = os.path.join(HERE, "views")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(bert, "config.json")) as f:
        config = f.read()
    with open(os.path.join(folder, "config.json"), "w") as f:
        f.write(config)
    sd = read_safetensors(os.path.join(bert, "model.safetensors"))
    views = collections.OrderedDict()
    for name, w in sd.items():
        if name.endswith("query.weight"):  # the rows of a wider storage: row stride 35
            wide = torch.zeros(w.shape[0], w.shape[1] + 3)
            wide[:, :w.shape[1]] = w
            views[name] = wide[:, :w.shape[1]]
        elif name.endswith("key.weight"):  # a transpose of the transpose: strides (1, rows)
            views[name] = w.t().contiguous().t()
        elif name.endswith("value.weight"):  # an offset of 5 elements into its storage
            views[name] = torch.cat([torch.full((5,), 7.0), w.flatten()])[5:].view(w.shape)
        elif name.endswith("LayerNorm.weight"):  # a vector of stride 2
            views[name] = torch.stack([w, torch.zeros_like(w)], dim=1)[:, 0]
        elif name.endswith("word_embeddings.weight"):  # rows 2.. of a taller table
            views[name] = torch.cat([torch.full((2, w.shape[1]), 9.0), w])[2:]
        else:
            views[name] = w.clone()
    # two tensors of one storage (views of one torch.cat), as tied or fused weights are
    for layer in (0, 1):
        q, k = ("encoder.layer.%d.attention.self.%s.bias" % (layer, x) for x in ("query", "key"))
        both = torch.cat([sd[q], sd[k]])
        views[q], views[k] = both[:sd[q].numel()], both[sd[q].numel():]
    for name, v in views.items():
        assert torch.equal(v, sd[name]), name
    assert views["encoder.layer.0.attention.self.key.weight"].stride() == (1, 32)
    assert views["encoder.layer.0.attention.self.query.weight"].stride() == (35, 1)
    # BertModel's pooler, which no attention or hidden state uses: all NaN, as a weight the pass
    # never reads may be
    views["pooler.dense.weight"] = torch.full((32, 32), float("nan"))
    torch.save(views, os.path.join(folder, "pytorch_model.bin"))
    # views_nan/: the same with a NaN at row 1, column 6 of layer 0's key weight (a copied view)
    views["encoder.layer.0.attention.self.key.weight"][1, 6] = float("nan")
    os.makedirs(folder + "_nan", exist_ok=True)
    with open(os.path.join(folder + "_nan", "config.json"), "w") as f:
        f.write(config)
    torch.save(views, os.path.join(folder + "_nan", "pytorch_model.bin"))


def collections_files():
    """tensor.pt: torch.save of one tensor; attentions.pt: of a tuple of two (B, H, T, T) tensors,
    as outputs.attentions is; nested.pt: {"layers": [tensor, tensor], "step": 3}; and
    collections_expected.npz: their float32 values under the names attn gives them."""
    torch.manual_seed(25)
    one = torch.randn(3, 4)
    attentions = tuple(torch.softmax(torch.randn(1, 2, 3, 3), dim=-1) for _ in range(2))
    layers = [torch.randn(2, 2), torch.randn(2, 3)]
    torch.save(one, os.path.join(HERE, "tensor.pt"))
    torch.save(attentions, os.path.join(HERE, "attentions.pt"))
    torch.save({"layers": layers, "step": 3}, os.path.join(HERE, "nested.pt"))
    np.savez(os.path.join(HERE, "collections_expected.npz"), tensor=one.numpy(),
             **{"attentions.%d" % i: a.numpy() for i, a in enumerate(attentions)},
             **{"layers.%d" % i: t.numpy() for i, t in enumerate(layers)})


def stacked_files():
    """attentions_savez.npz: attentions.pt's tuple saved by numpy.savez(*attentions) (arr_0, arr_1);
    attentions_stacked.npy: torch.stack(attentions), what attn view reads either file as."""
    attentions = torch.load(os.path.join(HERE, "attentions.pt"))
    np.savez(os.path.join(HERE, "attentions_savez.npz"), *[a.numpy() for a in attentions])
    np.save(os.path.join(HERE, "attentions_stacked.npy"), torch.stack(attentions).numpy())
    torch.save(attentions[:1], os.path.join(HERE, "attentions_one.pt"))  # a model of one layer
    torch.save(tuple(a.double() for a in attentions), os.path.join(HERE, "attentions_f64.pt"))
    torch.save(torch.tensor([[0.5, 1e300]], dtype=torch.float64), os.path.join(HERE, "f64_huge.pt"))
    torch.save([torch.full((3,), 0.25) for _ in range(5)], os.path.join(HERE, "vectors.pt"))  # no Tq x Tk
    torch.save((attentions[0], None), os.path.join(HERE, "tensor_and_none.pt"))  # torch.stack refuses it
    # expanded/layers.pt: a tuple of 8 layers (1, 4, 2048, 2048), each one value expand()ed: a
    # few KB in the file, 64 MiB each and 512 MiB stacked as float32
    layers = tuple(torch.full((1, 1, 1, 1), 1.0 / 2048).expand(1, 4, 2048, 2048) for _ in range(8))
    os.makedirs(os.path.join(HERE, "expanded"), exist_ok=True)
    torch.save(layers, os.path.join(HERE, "expanded", "layers.pt"))


def complex_files():
    """complex.pt: {"w": a float32 (1, 3), "z": a complex64 (2,)}: attn lists both, reads w and
    refuses z by name (it reads no complex tensor)."""
    torch.save({"w": torch.tensor([[0.5, -1.0, 2.0]]), "z": torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64)},
               os.path.join(HERE, "complex.pt"))


def main():
    sd = state_dict()
    torch.save(sd, os.path.join(HERE, "state_dict.pt"))
    torch.save(sd, os.path.join(HERE, "legacy.pt"), _use_new_zipfile_serialization=False)
    np.savez(os.path.join(HERE, "expected.npz"), **expected(sd))
    mha_files()
    malicious_files()
    expanded_files()
    collections_files()
    stacked_files()
    views_files()
    complex_files()
    print("torch", torch.__version__, "numpy", np.__version__)


if __name__ == "__main__":
    if sys.argv[1:] == ["--malicious"]:
        malicious_files()  # only malicious/ (main() makes everything)
    elif sys.argv[1:] == ["--expanded"]:
        expanded_files()  # only expanded/
    elif sys.argv[1:] == ["--collections"]:
        collections_files()  # only tensor.pt, attentions.pt, nested.pt and their expected values
    elif sys.argv[1:] == ["--views"]:
        views_files()  # only views/
    elif sys.argv[1:] == ["--complex"]:
        complex_files()  # only complex.pt
    elif sys.argv[1:] == ["--stacked"]:
        stacked_files()  # only attentions_savez.npz and attentions_stacked.npy
    else:
        main()
