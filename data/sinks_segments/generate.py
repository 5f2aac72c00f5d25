#!/usr/bin/python3
"""Generates the attention-sink and document-mask reference fixtures under data/sinks_segments/CASE/
(see PROVENANCE.md).

Run from the repository root with Debian's torch 1.13 and numpy 1.24:
    /usr/bin/python3 data/sinks_segments/generate.py

- sdpa_gptoss is gpt-oss's reference attention (openai/gpt-oss, gpt_oss/torch/model.py, `sdpa`),
  its math unchanged: the sinks S are one more column of the logits, softmax, the column dropped.
  Its causal mask (triu) and sliding window (tril, diagonal=-sliding_window) are as there; an
  optional extra boolean mask (key padding, documents) is added as -inf, the same way.
- document_causal_mask / document_mask are FlexAttention's mask_mod for packed documents
  (PyTorch's FlexAttention blog and attention-gym's `generate_doc_mask_mod`):
  document_id[q_idx] == document_id[kv_idx] (and q_idx >= kv_idx when causal). With a cache or an
  offset (document_offset_mask_mod), the query sits at q_idx + offset and takes the id there. Torch 1.13 has no
  flex_attention, so the mask_mod is evaluated on the (Tq, Tk) index grid, as create_mask does,
  and the softmax is torch's.
Everything runs in float64 and is saved as float32 (inputs are float32 first, then widened).
A self-check recomputes every context with NumPy loops from the definition and asserts 1e-12.
"""
import os
import shutil

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)


# ---- openai/gpt-oss, gpt_oss/torch/model.py ---------------------------------------------------
def sdpa_gptoss(Q, K, V, S, sm_scale, sliding_window=0, extra_mask=None):
    # sliding_window == 0 means no sliding window
    n_tokens, n_heads, q_mult, d_head = Q.shape
    assert K.shape == (n_tokens, n_heads, d_head)
    assert V.shape == (n_tokens, n_heads, d_head)
    K = K[:, :, None, :].expand(-1, -1, q_mult, -1)
    V = V[:, :, None, :].expand(-1, -1, q_mult, -1)
    S = S.reshape(n_heads, q_mult, 1, 1).expand(-1, -1, n_tokens, -1)
    mask = torch.triu(Q.new_full((n_tokens, n_tokens), -float("inf")), diagonal=1)
    if sliding_window > 0:
        mask += torch.tril(mask.new_full((n_tokens, n_tokens), -float("inf")), diagonal=-sliding_window)
    if extra_mask is not None:  # attn's addition: key padding or documents, -inf where not allowed
        mask = mask + torch.where(extra_mask, 0.0, -float("inf")).to(mask.dtype)
    QK = torch.einsum("qhmd,khmd->hmqk", Q, K)
    QK *= sm_scale
    QK += mask[None, None, :, :]
    QK = torch.cat([QK, S], dim=-1)
    W = torch.softmax(QK, dim=-1)
    W = W[..., :-1]
    attn = torch.einsum("hmqk,khmd->qhmd", W, V)
    return attn, W  # attn (n_tokens, n_heads, q_mult, d), W (n_heads, q_mult, n_tokens, n_tokens)


# ---- FlexAttention's document masks (mask_mod(b, h, q_idx, kv_idx)) -----------------------------
def make_document_mask_mod(document_id, causal):
    def document_causal_mask(b, h, q_idx, kv_idx):
        causal_mask = q_idx >= kv_idx
        document_mask = document_id[q_idx] == document_id[kv_idx]
        return causal_mask & document_mask

    def document_mask(b, h, q_idx, kv_idx):
        return document_id[q_idx] == document_id[kv_idx]

    return document_causal_mask if causal else document_mask


def create_mask(mask_mod, T):
    # FlexAttention's create_mask: the mask_mod over the (q_idx, kv_idx) grid
    q_idx = torch.arange(T)[:, None]
    kv_idx = torch.arange(T)[None, :]
    return mask_mod(0, 0, q_idx, kv_idx)


def document_attention(q, k, v, document_id, causal, scale):
    # q (H, T, d), k/v (H, T, d): softmax(q·kᵀ·scale, masked -inf)·v (no row is fully masked:
    # every query sees itself)
    mask = create_mask(make_document_mask_mod(document_id, causal), q.shape[-2])
    s = (q @ k.transpose(-1, -2)) * scale
    s = s.masked_fill(~mask, -float("inf"))
    w = torch.softmax(s, dim=-1)
    return w @ v, w


def rnd(g, *shape):
    return torch.randn(*shape, generator=g, dtype=torch.float32)


def ids_of(runs):
    return np.concatenate([np.full(n, 10 * i + 3, dtype=np.int64) for i, n in enumerate(runs)])


def reference_context(q, k, v, allowed, scale, sink):
    """NumPy loops from the definition: w_ij = exp(s_ij - m)/(exp(sink - m) + sum exp(s_ij - m))."""
    Tq, Tk = allowed.shape
    out = np.zeros((Tq, v.shape[1]))
    for i in range(Tq):
        z = [scale * float(q[i] @ k[j]) if allowed[i, j] else -np.inf for j in range(Tk)]
        m = max(z + ([sink] if sink is not None else []))
        if m == -np.inf:
            continue
        den = sum(np.exp(x - m) for x in z if x != -np.inf) + (np.exp(sink - m) if sink is not None else 0.0)
        for j in range(Tk):
            if z[j] != -np.inf:
                out[i] += np.exp(z[j] - m) / den * v[j]
    return out


def save_case(name, flags, arrays, notes):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    lines = [flags]
    for fname, arr in arrays.items():
        if fname.endswith(".txt"):
            with open(os.path.join(d, fname), "w") as f:
                f.write("\n".join(" ".join(str(int(x)) for x in np.atleast_2d(arr)[r])
                                  for r in range(np.atleast_2d(arr).shape[0])) + "\n")
        else:
            np.save(os.path.join(d, fname), arr)
        lines.append(f"{fname} {tuple(np.shape(arr))} {notes[fname]}")
    with open(os.path.join(d, "case.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def sinks_case(name, seed, T, G, q_mult, d, window, lengths=None, runs=None):
    """gpt-oss's sdpa; attn's -q (H, T, d), -k/-v (G, T, d); query head g·q_mult + m."""
    g = torch.Generator().manual_seed(seed)
    H = G * q_mult
    q, k, v, S = rnd(g, H, T, d), rnd(g, G, T, d), rnd(g, G, T, d), 2.0 * rnd(g, H)
    extra = None
    if runs is not None:
        ids = ids_of(runs)
        extra = create_mask(make_document_mask_mod(torch.from_numpy(ids), False), T)
    if lengths is not None:
        pad = torch.arange(T)[None, :] < lengths
        extra = pad.expand(T, T) if extra is None else extra & pad
    scale = 1.0 / np.sqrt(d)
    Q = q.double().reshape(G, q_mult, T, d).permute(2, 0, 1, 3)
    attn, W = sdpa_gptoss(Q, k.double().permute(1, 0, 2), v.double().permute(1, 0, 2), S.double(), scale,
                          window, extra)
    ctx = attn.permute(1, 2, 0, 3).reshape(H, T, d)  # (H, T, d)
    W = W.reshape(H, T, T)
    allowed = np.tril(np.ones((T, T), bool))
    if window:
        allowed &= ~np.tril(np.ones((T, T), bool), -window)
    if extra is not None:
        allowed &= extra.numpy()
    worst = max(np.abs(reference_context(q[h].double().numpy(), k[h // q_mult].double().numpy(),
                                         v[h // q_mult].double().numpy(), allowed, scale, float(S[h]))
                       - ctx[h].numpy()).max() for h in range(H))
    assert worst < 1e-12, worst
    print(f"{name}: self-check {worst:.1e}")
    flags = f"gpt-oss sdpa with sinks T={T} G={G} q_mult={q_mult} d={d} causal=top-left"
    flags += f" window={window - 1 if window else 'none'}"
    arrays = {"q.npy": q.numpy(), "k.npy": k.numpy(), "v.npy": v.numpy(), "sinks.npy": S.numpy()}
    notes = {"q.npy": "queries (H, T, d)", "k.npy": "keys (G, T, d)", "v.npy": "values (G, T, d)",
             "sinks.npy": "gpt-oss's sinks, one logit per query head (H,)"}
    if runs is not None:
        flags += " segments=segments.npy"
        arrays["segments.npy"] = ids_of(runs)
        notes["segments.npy"] = "document ids (T,) int64"
    if lengths is not None:
        flags += f" lengths={lengths}"
    arrays["context.npy"] = ctx.float().numpy()
    arrays["weights.npy"] = W.float().numpy()
    notes["context.npy"] = "gpt-oss's attention output per head (H, T, d)"
    notes["weights.npy"] = "softmax with the sink column dropped (H, T, T): rows sum to < 1"
    save_case(name, flags, arrays, notes)


def documents_case(name, seed, B, H, d, runs_per_item, causal, text_ids=False, ids=None):
    g = torch.Generator().manual_seed(seed)
    T = sum(runs_per_item[0]) if ids is None else ids.shape[1]
    q, k, v = rnd(g, B, H, T, d), rnd(g, B, H, T, d), rnd(g, B, H, T, d)
    if ids is None:
        ids = np.stack([ids_of(r) for r in runs_per_item])
    scale = 1.0 / np.sqrt(d)
    ctx = torch.zeros(B, H, T, d, dtype=torch.float64)
    for b in range(B):
        c, _ = document_attention(q[b].double(), k[b].double(), v[b].double(), torch.from_numpy(ids[b]), causal, scale)
        ctx[b] = c
        allowed = ids[b][:, None] == ids[b][None, :]
        if causal:
            allowed &= np.tril(np.ones((T, T), bool))
        worst = max(np.abs(reference_context(q[b, h].double().numpy(), k[b, h].double().numpy(),
                                             v[b, h].double().numpy(), allowed, scale, None) - c[h].numpy()).max()
                    for h in range(H))
        assert worst < 1e-12, worst
    print(f"{name}: self-check {worst:.1e}")
    flags = f"FlexAttention document mask B={B} H={H} T={T} d={d} causal={'top-left' if causal else 'none'}"
    seg = "segments.txt" if text_ids else "segments.npy"
    seg_ids = ids if B > 1 else ids[0]
    flags += f" segments={seg}"
    arrays = {"q.npy": q.numpy(), "k.npy": k.numpy(), "v.npy": v.numpy(), seg: seg_ids,
              "context.npy": ctx.float().numpy()}
    notes = {"q.npy": "queries (B, H, T, d)", "k.npy": "keys (B, H, T, d)", "v.npy": "values (B, H, T, d)",
             seg: "document ids, " + ("(B, T)" if B > 1 else "(T,)") + (" as text" if text_ids else " int64"),
             "context.npy": "softmax(q·kᵀ/√d masked by the mask_mod)·v per item and head (B, H, T, d)"}
    save_case(name, flags, arrays, notes)


def document_offset_mask_mod(document_id, offset):
    # FlexAttention's document mask with a K/V cache (attention-gym's decoding examples): the query at
    # q_idx sits at position q_idx + offset among the keys and takes the document id there;
    # causal within the document.
    def document_causal_mask(b, h, q_idx, kv_idx):
        q_pos = q_idx + offset
        return (q_pos >= kv_idx) & (document_id[q_pos] == document_id[kv_idx])

    return document_causal_mask


def documents_offset_case(name, seed, B, H, d, Tq, runs_per_item, offsets):
    """Tq < Tk: one id per key position, queries at q_idx + offset[b] (per item), causal."""
    g = torch.Generator().manual_seed(seed)
    Tk = sum(runs_per_item[0])
    q, k, v = rnd(g, B, H, Tq, d), rnd(g, B, H, Tk, d), rnd(g, B, H, Tk, d)
    ids = np.stack([ids_of(r) for r in runs_per_item])
    scale = 1.0 / np.sqrt(d)
    ctx = torch.zeros(B, H, Tq, d, dtype=torch.float64)
    for b in range(B):
        mask_mod = document_offset_mask_mod(torch.from_numpy(ids[b]), offsets[b])
        mask = mask_mod(0, 0, torch.arange(Tq)[:, None], torch.arange(Tk)[None, :])  # create_mask's grid
        s = (q[b].double() @ k[b].double().transpose(-1, -2)) * scale
        ctx[b] = torch.softmax(s.masked_fill(~mask, -float("inf")), dim=-1) @ v[b].double()
        allowed = np.array([[i + offsets[b] >= j and ids[b][i + offsets[b]] == ids[b][j] for j in range(Tk)]
                            for i in range(Tq)])
        worst = max(np.abs(reference_context(q[b, h].double().numpy(), k[b, h].double().numpy(),
                                             v[b, h].double().numpy(), allowed, scale, None) - ctx[b, h].numpy()).max()
                    for h in range(H))
        assert worst < 1e-12, worst
    print(f"{name}: self-check {worst:.1e}")
    flags = (f"FlexAttention document mask with a cache offset B={B} H={H} Tq={Tq} Tk={Tk} d={d} causal=top-left "
             f"causal_offset={','.join(map(str, offsets))} segments=segments.npy")
    arrays = {"q.npy": q.numpy(), "k.npy": k.numpy(), "v.npy": v.numpy(), "segments.npy": ids,
              "context.npy": ctx.float().numpy()}
    notes = {"q.npy": "queries (B, H, Tq, d)", "k.npy": "keys (B, H, Tk, d)", "v.npy": "values (B, H, Tk, d)",
             "segments.npy": "document ids per key position (B, Tk) int64",
             "context.npy": "softmax(q·kᵀ/√d masked by the mask_mod at q_idx + offset)·v (B, H, Tq, d)"}
    save_case(name, flags, arrays, notes)


if __name__ == "__main__":
    sinks_case("sinks_gqa_causal", 1, T=11, G=2, q_mult=2, d=8, window=0)
    sinks_case("sinks_sliding_window", 2, T=13, G=1, q_mult=3, d=6, window=4)
    sinks_case("sinks_decode_t3", 3, T=3, G=2, q_mult=1, d=5, window=0)
    # Keys past length 4 are padding, and documents 3..: rows 4.. see nothing but the sink:
    # gpt-oss's formula gives them weights 0 and context 0.
    sinks_case("sinks_documents_padding", 4, T=10, G=1, q_mult=2, d=4, window=0, lengths=4, runs=[1, 3, 6])
    documents_case("documents_causal_per_item", 5, B=2, H=2, d=8,
                   runs_per_item=[[1, 7, 8, 8], [5, 1, 1, 17]], causal=True)
    # Ids in several runs (FlexAttention's mask_mod compares ids, not runs): 0 0 1 1 0 0 2 2 1 1 ...
    documents_case("documents_interleaved", 7, B=1, H=2, d=8, runs_per_item=None, causal=True,
                   ids=np.array([[0, 0, 1, 1, 0, 0, 2, 2, 1, 1, 0, 2, 2, 2, 1, 0, 0, 1]], dtype=np.int64))
    documents_case("documents_text_ids", 6, B=1, H=3, d=6, runs_per_item=[[4, 1, 15]], causal=False,
                   text_ids=True)
    # Tq < Tk with per-item offsets (3 new queries after 14 and 9 keys, of 17):
    # documents of length 1 included; the queries take the ids at their positions.
    documents_offset_case("documents_offset_per_item", 8, B=2, H=2, d=8, Tq=3,
                          runs_per_item=[[5, 1, 9, 1, 1], [1, 8, 1, 7]], offsets=[14, 9])
    # Decoding: one query at the last position (offset Tk − 1), split-K's path.
    documents_offset_case("documents_decode_t1", 9, B=2, H=3, d=6, Tq=1,
                          runs_per_item=[[20, 1, 12], [33]], offsets=[32, 32])
