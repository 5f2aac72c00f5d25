#!/usr/bin/python3
"""Writes ONNX's own backend test cases of the Attention operator (opsets 23-25) under
data/onnx/CASE/ for tests/e2e/test_onnx_attention.sh; see README.md.

Source: github.com/onnx/onnx at commit f7546912001bc31e92a238b17068a21b373d882e (2026-08-22):
  - the cases: onnx/backend/test/case/node/attention.py (87 export_* functions). ONNX's exporter
    (onnx/backend/test/case/base.py) calls np.random.seed(0) before each export_*; some cases then
    seed again. CASES below lists, per case, the same seeds and the same np.random.rand draws in
    the same order (same shapes, same .astype), and the inputs the case builds by hand, so the
    inputs are ONNX's arrays bit for bit.
  - the expected outputs: onnx/reference/ops/op_attention.py, _compute_attention, ported below
    (onnx_attention) step by step in the same dtype (float16 cases compute in float16, as ONNX's
    expect() data does).
Run from the repository root with Debian 12's system Python and NumPy (no onnx needed):
    /usr/bin/python3 data/onnx/generate.py
"""
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NP = {"f4": np.float32, "f2": np.float16, "b1": np.bool_}
TENSOR_DTYPE = {1: np.float32, 10: np.float16, 11: np.float64}  # onnx.TensorProto FLOAT, FLOAT16, DOUBLE


# ---------------------------------------------------------------- the reference, ported
def softmax_rows(x):
    """op_attention.py's _softmax: a row that is all -inf gives zeros, never NaN."""
    top = np.max(x, axis=-1, keepdims=True)
    empty = np.isneginf(top)
    e = np.exp(x - np.where(empty, 0, top))
    total = np.sum(e, axis=-1, keepdims=True)
    return e / np.where(total == 0, 1, total)


def frontier_bias(base, offset, allowed_of_diff):
    """-inf where allowed_of_diff(p - j) is false, p = i + offset (offset scalar, or one per batch
    item: then the result gains a (B, 1, Tq, Tk) shape). As _apply_causal/_apply_sliding_window."""
    tq, tk = base.shape[-2:]
    i = np.arange(tq).reshape(tq, 1)
    j = np.arange(tk).reshape(1, tk)
    per_item = np.ndim(offset) > 0
    p = i + (np.reshape(offset, (-1, 1, 1)) if per_item else int(offset))
    cells = np.where(allowed_of_diff(p - j), base.dtype.type(0), base.dtype.type(-np.inf))
    if per_item:
        cells = cells.reshape(cells.shape[0], 1, tq, tk)
    return base + cells


def split_heads(x, heads):
    """(B, T, heads*d) -> (B, heads, T, d)."""
    b, t, hidden = x.shape
    return np.transpose(np.reshape(x, [b, t, heads, int(hidden / heads)]), (0, 2, 1, 3))


def onnx_attention(Q, K, V, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None,
                   scale=None, is_causal=0, q_num_heads=None, kv_num_heads=None,
                   softmax_precision=None, softcap=None, qk_matmul_output_mode=None,
                   left_window_size=None, right_window_size=None):
    """Returns (Y, present_key, present_value, qk_matmul_output) as _compute_attention does."""
    left = -1 if left_window_size is None else left_window_size
    right = -1 if right_window_size is None else right_window_size
    rank = Q.ndim
    if rank == 3:
        Q, K, V = split_heads(Q, q_num_heads), split_heads(K, kv_num_heads), split_heads(V, kv_num_heads)
    if scale is None:
        scale = 1 / np.sqrt(Q.shape[3])
    root = np.sqrt(scale)  # ONNX scales Q and K by sqrt(scale) each
    K = K if past_key is None else np.concatenate((past_key, K), axis=2)
    V = V if past_value is None else np.concatenate((past_value, V), axis=2)
    present_key, present_value = K, V
    tq, tk = Q.shape[2], K.shape[2]
    bias = np.zeros((tq, tk), dtype=Q.dtype)
    if attn_mask is not None and attn_mask.shape[-1] < tk:  # a short mask is padded as masked
        pad = [(0, 0)] * (attn_mask.ndim - 1) + [(0, tk - attn_mask.shape[-1])]
        attn_mask = np.pad(attn_mask, pad, mode="constant",
                           constant_values=False if attn_mask.dtype == np.bool_ else -np.inf)
    # the causal frontier (and the window's) is p = i + offset: the past's length with a cache,
    # nonpad_kv_seqlen[b] - Tq per item with nonpad_kv_seqlen, else 0
    if past_key is None and nonpad_kv_seqlen is not None:
        offset = nonpad_kv_seqlen.reshape(-1) - tq
    else:
        offset = past_key.shape[2] if past_key is not None else 0
    windowed = left >= 0 or right >= 0
    if is_causal:
        if attn_mask is not None and attn_mask.dtype == np.bool_:
            attn_mask = np.where(attn_mask, Q.dtype.type(0), Q.dtype.type(-np.inf))
        base = np.zeros((tq, tk), dtype=Q.dtype) if attn_mask is None else attn_mask.copy()
        if windowed:
            base = np.zeros((tq, tk), dtype=Q.dtype) + base
        bias = frontier_bias(base, offset, lambda diff: diff >= 0)
    elif attn_mask is not None:
        if attn_mask.dtype == np.bool_:
            attn_mask = (1 - attn_mask).astype(Q.dtype)
            attn_mask[attn_mask == 1] = -np.inf
        bias = bias + attn_mask
    if windowed:
        def inside(diff):
            ok = np.ones_like(diff, dtype=np.bool_)
            if left >= 0:
                ok &= diff <= left
            if right >= 0:
                ok &= -diff <= right
            return ok
        bias = frontier_bias(np.zeros((tq, tk), dtype=Q.dtype) + bias, offset, inside)
    if nonpad_kv_seqlen is not None:
        valid = np.arange(tk) < nonpad_kv_seqlen[:, np.newaxis]
        bias = bias + np.where(valid.reshape(Q.shape[0], 1, 1, tk), 0, -np.inf)
    hq = Q.shape[1] if q_num_heads is None else q_num_heads
    hkv = K.shape[1] if kv_num_heads is None else kv_num_heads
    if hq != hkv and hq % hkv == 0:  # grouped-query: kv head g serves query heads g*r .. g*r+r-1
        K = np.repeat(K, repeats=hq // hkv, axis=1)
        V = np.repeat(V, repeats=hq // hkv, axis=1)
    qk = np.matmul(Q * root, np.transpose(K, (0, 1, 3, 2)) * root)
    if softcap is not None and softcap > 0:
        qk = np.tanh(qk / softcap) * softcap
    with_bias = qk + bias
    if qk_matmul_output_mode == 2:
        qk = with_bias.copy()
    if softmax_precision is not None:
        with_bias = with_bias.astype(TENSOR_DTYPE[softmax_precision])
    weights = softmax_rows(with_bias)
    # a row whose bias is all -inf (no key allowed) gets zero weights, decided on the bias
    weights = np.where(np.isneginf(np.max(bias, axis=-1, keepdims=True)), 0, weights)
    if qk_matmul_output_mode == 3:
        qk = weights
    qk = qk.astype(Q.dtype)
    Y = np.matmul(weights, V).astype(Q.dtype)
    if rank == 3:
        Y = np.transpose(Y, (0, 2, 1, 3))
        Y = np.reshape(Y, (Y.shape[0], Y.shape[1], -1))
    return Y, present_key, present_value, qk


# ---------------------------------------------------------------- the cases' hand-built inputs
def TRANSPOSE_QKV():  # export_attention_3d_transpose_verification
    Q = np.zeros((1, 2, 12), dtype=np.float32)
    for head in range(3):
        Q[0, :, head * 4:head * 4 + 4] = float(head + 1)
    K = np.ones((1, 2, 12), dtype=np.float32) * 0.1
    V = np.ones((1, 2, 12), dtype=np.float32) * 0.1
    return dict(Q=Q, K=K, V=V)


def BIDIRECTIONAL_QKV():  # export_attention_bidirectional_window
    return dict(Q=np.zeros((1, 1, 5, 1), dtype=np.float32), K=np.zeros((1, 1, 5, 1), dtype=np.float32),
                V=np.arange(5, dtype=np.float32).reshape(1, 1, 5, 1))


def FLOAT16_EXT_CACHE():  # export_attention_local_window_ext_cache_float16_mask
    return dict(Q=np.zeros((2, 3, 4, 8), dtype=np.float16), K=np.zeros((2, 3, 8, 8), dtype=np.float16),
                V=np.ones((2, 3, 8, 8), dtype=np.float16), attn_mask=np.zeros((1, 8), dtype=np.float16),
                nonpad_kv_seqlen=np.array([6, 7], dtype=np.int64))


def NEGINF_LAST2():  # export_attention_softcap_with_neginf_mask(_poison): keys 4 and 5 masked
    m = np.zeros((4, 6), dtype=np.float32)
    m[:, 4:] = -np.inf
    return m


def POISON_V(x):  # ... and V = 1000 at the masked keys
    x["V"][:, :, 4:, :] = 1000.0


COMPOSITION_MASK = [  # export_attention_4d_causal_nonpad_attn_mask_composition, (2, 1, 3, 6)
    [[[True, True, True, False, False, False],
      [True, True, True, False, False, False],
      [True, False, True, True, False, False]]],
    [[[True, True, True, True, False, False],
      [True, True, True, True, False, False],
      [True, True, False, True, True, False]]],
]


def GQA_RANK4_MASK():  # export_attention_local_window_gqa_rank4_mask: query row 0 fully masked
    m = np.ones((2, 4, 4, 6), dtype=np.bool_)
    m[:, :, 0, :] = False
    return m


class Case:
    def __init__(self, name, opset, seed, attrs, draws=(), out=("Y",), fixed=None, post=None):
        self.name, self.opset, self.seed, self.attrs = name, opset, seed, attrs
        self.draws, self.out, self.fixed, self.post = draws, out, fixed, post

    def inputs(self):
        np.random.seed(0)  # ONNX's exporter, before every case
        if self.seed is not None:
            np.random.seed(self.seed)
        x = {n: np.random.rand(*shape).astype(NP[dt]) for n, shape, dt in self.draws}
        fixed = self.fixed() if callable(self.fixed) else dict(self.fixed or {})
        for n, v in fixed.items():
            v = v() if callable(v) else v
            if n == "nonpad_kv_seqlen":
                v = np.array(v, dtype=np.int64)
            elif not isinstance(v, np.ndarray):
                v = np.array(v, dtype=np.bool_)
            x[n] = v
        if self.post:
            self.post(x)
        return x


# ---------------------------------------------------------------- the 87 cases, in the file's order
CASES = [
    Case('test_attention_4d', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_fp16', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f2'), ('K', (2, 3, 6, 8), 'f2'), ('V', (2, 3, 6, 8), 'f2')],
         out=['Y']),
    Case('test_attention_4d_gqa', 23, seed=None, attrs={},
         draws=[('Q', (2, 9, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_diff_heads_sizes', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4')],
         out=['Y']),
    Case('test_attention_4d_scaled', 23, seed=None, attrs={'scale': 0.01},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_gqa_scaled', 23, seed=None, attrs={'scale': 0.01},
         draws=[('Q', (2, 9, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_diff_heads_sizes_scaled', 23, seed=None, attrs={'scale': 0.01},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4')],
         out=['Y']),
    Case('test_attention_4d_causal', 23, seed=None, attrs={'is_causal': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_gqa_causal', 23, seed=None, attrs={'is_causal': 1},
         draws=[('Q', (2, 9, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_diff_heads_sizes_causal', 23, seed=None, attrs={'is_causal': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4')],
         out=['Y']),
    Case('test_attention_4d_attn_mask', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_4d_attn_mask_3d', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 1, 4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_4d_attn_mask_3d_causal', 23, seed=None, attrs={'is_causal': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 1, 4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_4d_attn_mask_4d', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 3, 4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_4d_attn_mask_4d_causal', 23, seed=None, attrs={'is_causal': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 3, 4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_4d_attn_mask_bool', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 6), 'b1')],
         out=['Y']),
    Case('test_attention_4d_attn_mask_bool_4d', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 3, 4, 6), 'b1')],
         out=['Y']),
    Case('test_attention_4d_gqa_attn_mask', 23, seed=None, attrs={},
         draws=[('Q', (2, 9, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_4d_diff_heads_sizes_attn_mask', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_4d_with_past_and_present', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_4d_gqa_with_past_and_present', 23, seed=None, attrs={},
         draws=[('Q', (2, 9, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_4d_gqa_with_past_and_present_fp16', 23, seed=None, attrs={},
         draws=[('Q', (2, 9, 4, 8), 'f2'), ('K', (2, 3, 6, 8), 'f2'), ('V', (2, 3, 6, 8), 'f2'), ('attn_mask', (4, 18), 'f2'), ('past_key', (2, 3, 12, 8), 'f2'), ('past_value', (2, 3, 12, 8), 'f2')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_4d_diff_heads_with_past_and_present', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 10), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_4d_diff_heads_with_past_and_present_mask3d', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4'), ('attn_mask', (2, 1, 4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 10), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_4d_diff_heads_with_past_and_present_mask4d', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4'), ('attn_mask', (2, 3, 4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 10), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_4d_softcap', 23, seed=None, attrs={'softcap': 2.0},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_gqa_softcap', 23, seed=None, attrs={'softcap': 2.0},
         draws=[('Q', (2, 9, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_4d_diff_heads_sizes_softcap', 23, seed=None, attrs={'softcap': 2.0},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4')],
         out=['Y']),
    Case('test_attention_4d_with_qk_matmul', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y', 'qk_matmul_output']),
    Case('test_attention_4d_with_qk_matmul_bias', 23, seed=None, attrs={'qk_matmul_output_mode': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y', 'qk_matmul_output']),
    Case('test_attention_4d_with_qk_matmul_softcap', 23, seed=None, attrs={'softcap': 2.0, 'qk_matmul_output_mode': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y', 'qk_matmul_output']),
    Case('test_attention_4d_with_qk_matmul_softmax', 23, seed=None, attrs={'qk_matmul_output_mode': 3},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y', 'qk_matmul_output']),
    Case('test_attention_4d_with_past_and_present_qk_matmul_bias', 23, seed=None, attrs={'qk_matmul_output_mode': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_4d_with_past_and_present_qk_matmul_bias_3d_mask', 23, seed=None, attrs={'qk_matmul_output_mode': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 1, 4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_4d_with_past_and_present_qk_matmul_bias_4d_mask', 23, seed=None, attrs={'qk_matmul_output_mode': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 3, 4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_4d_with_past_and_present_qk_matmul_bias_3d_mask_causal', 23, seed=None, attrs={'qk_matmul_output_mode': 2, 'is_causal': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 1, 4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_4d_with_past_and_present_qk_matmul_bias_4d_mask_causal', 23, seed=None, attrs={'qk_matmul_output_mode': 2, 'is_causal': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (2, 3, 4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_4d_with_past_and_present_qk_matmul', 23, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_3d', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_gqa', 23, seed=None, attrs={'q_num_heads': 9, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 72), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_diff_heads_sizes', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 30), 'f4')],
         out=['Y']),
    Case('test_attention_3d_scaled', 23, seed=None, attrs={'scale': 0.01, 'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_gqa_scaled', 23, seed=None, attrs={'scale': 0.01, 'q_num_heads': 9, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 72), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_diff_heads_sizes_scaled', 23, seed=None, attrs={'scale': 0.01, 'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 30), 'f4')],
         out=['Y']),
    Case('test_attention_3d_causal', 23, seed=None, attrs={'is_causal': 1, 'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_gqa_causal', 23, seed=None, attrs={'is_causal': 1, 'q_num_heads': 9, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 72), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_diff_heads_sizes_causal', 23, seed=None, attrs={'is_causal': 1, 'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 30), 'f4')],
         out=['Y']),
    Case('test_attention_3d_attn_mask', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_3d_gqa_attn_mask', 23, seed=None, attrs={'q_num_heads': 9, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 72), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_3d_diff_heads_sizes_attn_mask', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 30), 'f4'), ('attn_mask', (4, 6), 'f4')],
         out=['Y']),
    Case('test_attention_3d_softcap', 23, seed=None, attrs={'softcap': 3.0, 'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_gqa_softcap', 23, seed=None, attrs={'softcap': 3.0, 'q_num_heads': 9, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 72), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4')],
         out=['Y']),
    Case('test_attention_3d_diff_heads_sizes_softcap', 23, seed=None, attrs={'softcap': 3.0, 'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 30), 'f4')],
         out=['Y']),
    Case('test_attention_3d_with_past_and_present', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_3d_gqa_with_past_and_present', 23, seed=None, attrs={'q_num_heads': 9, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 72), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_3d_diff_heads_with_past_and_present', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 30), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 10), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_3d_with_past_and_present_qk_matmul', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_3d_with_past_and_present_qk_matmul_bias', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3, 'qk_matmul_output_mode': 2},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_3d_with_past_and_present_qk_matmul_softcap', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3, 'softcap': 2.0, 'qk_matmul_output_mode': 1},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_3d_with_past_and_present_qk_matmul_softmax', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3, 'qk_matmul_output_mode': 3},
         draws=[('Q', (2, 4, 24), 'f4'), ('K', (2, 6, 24), 'f4'), ('V', (2, 6, 24), 'f4'), ('attn_mask', (4, 18), 'f4'), ('past_key', (2, 3, 12, 8), 'f4'), ('past_value', (2, 3, 12, 8), 'f4')],
         out=['Y', 'present_key', 'present_value', 'qk_matmul_output']),
    Case('test_attention_3d_transpose_verification', 23, seed=None, attrs={'q_num_heads': 3, 'kv_num_heads': 3},
         out=['Y'], fixed=TRANSPOSE_QKV),
    Case('test_attention_4d_diff_heads_mask4d_padded_kv', 24, seed=None, attrs={},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 10), 'f4'), ('attn_mask', (2, 3, 4, 4), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[3, 4])),
    Case('test_attention_4d_softcap_neginf_mask', 23, seed=42, attrs={'softcap': 0.5},
         draws=[('Q', (1, 1, 4, 8), 'f4'), ('K', (1, 1, 6, 8), 'f4'), ('V', (1, 1, 6, 8), 'f4')],
         out=['Y'], fixed=dict(attn_mask=NEGINF_LAST2)),
    Case('test_attention_4d_softcap_neginf_mask_poison', 23, seed=42, attrs={'softcap': 0.5},
         draws=[('Q', (1, 1, 4, 8), 'f4'), ('K', (1, 1, 6, 8), 'f4'), ('V', (1, 1, 6, 8), 'f4')],
         out=['Y'], fixed=dict(attn_mask=NEGINF_LAST2), post=POISON_V),
    Case('test_attention_4d_gqa_causal_nonpad_decode', 24, seed=0, attrs={'is_causal': 1},
         draws=[('Q', (2, 4, 1, 8), 'f4'), ('K', (2, 2, 8, 8), 'f4'), ('V', (2, 2, 8, 8), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[8, 5])),
    Case('test_attention_4d_gqa_causal_nonpad_decode_fp16', 24, seed=0, attrs={'is_causal': 1},
         draws=[('Q', (2, 4, 1, 8), 'f2'), ('K', (2, 2, 8, 8), 'f2'), ('V', (2, 2, 8, 8), 'f2')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[8, 5])),
    Case('test_attention_4d_causal_nonpad_continued_prefill', 24, seed=1, attrs={'is_causal': 1},
         draws=[('Q', (1, 2, 2, 8), 'f4'), ('K', (1, 2, 4, 8), 'f4'), ('V', (1, 2, 4, 8), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[4])),
    Case('test_attention_4d_causal_with_past_and_present', 24, seed=2, attrs={'is_causal': 1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 4, 8), 'f4'), ('V', (2, 3, 4, 8), 'f4'), ('past_key', (2, 3, 3, 8), 'f4'), ('past_value', (2, 3, 3, 8), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_causal_boolmask_nan_robustness', 24, seed=3, attrs={'is_causal': 1},
         draws=[('Q', (1, 2, 2, 8), 'f4'), ('K', (1, 2, 2, 8), 'f4'), ('V', (1, 2, 2, 8), 'f4')],
         out=['Y'], fixed=dict(attn_mask=[[True, False], [False, False]])),
    Case('test_attention_23_boolmask_fullymasked_row_nan_robustness', 23, seed=4, attrs={},
         draws=[('Q', (1, 2, 2, 8), 'f4'), ('K', (1, 2, 2, 8), 'f4'), ('V', (1, 2, 2, 8), 'f4')],
         out=['Y'], fixed=dict(attn_mask=[[False, False], [True, True]])),
    Case('test_attention_4d_causal_nonpad_negative_offset_structural_empty', 24, seed=7, attrs={'is_causal': 1},
         draws=[('Q', (1, 2, 4, 8), 'f4'), ('K', (1, 2, 4, 8), 'f4'), ('V', (1, 2, 4, 8), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[2])),
    Case('test_attention_23_fullymasked_qk_matmul_output_mode3_zero', 23, seed=13, attrs={'qk_matmul_output_mode': 3},
         draws=[('Q', (1, 2, 2, 8), 'f4'), ('K', (1, 2, 2, 8), 'f4'), ('V', (1, 2, 2, 8), 'f4')],
         out=['Y', 'qk_matmul_output'], fixed=dict(attn_mask=[[False, False], [True, True]])),
    Case('test_attention_24_fullymasked_qk_matmul_output_mode3_zero', 24, seed=13, attrs={'qk_matmul_output_mode': 3},
         draws=[('Q', (1, 2, 2, 8), 'f4'), ('K', (1, 2, 2, 8), 'f4'), ('V', (1, 2, 2, 8), 'f4')],
         out=['Y', 'qk_matmul_output'], fixed=dict(attn_mask=[[False, False], [True, True]])),
    Case('test_attention_24_qk_matmul_output_mode3_softmax_precision', 24, seed=17, attrs={'qk_matmul_output_mode': 3, 'softmax_precision': 1},
         draws=[('Q', (1, 2, 2, 8), 'f2'), ('K', (1, 2, 2, 8), 'f2'), ('V', (1, 2, 2, 8), 'f2')],
         out=['Y', 'qk_matmul_output'], fixed=dict(attn_mask=[[False, False], [True, True]])),
    Case('test_attention_4d_causal_nonpad_attn_mask_composition', 24, seed=11, attrs={'is_causal': 1},
         draws=[('Q', (2, 2, 3, 8), 'f4'), ('K', (2, 2, 6, 8), 'f4'), ('V', (2, 2, 6, 8), 'f4')],
         out=['Y'], fixed=dict(attn_mask=COMPOSITION_MASK, nonpad_kv_seqlen=[4, 5])),
    Case('test_attention_4d_causal_nonpad_batch_prefill', 24, seed=12, attrs={'is_causal': 1},
         draws=[('Q', (3, 2, 2, 8), 'f4'), ('K', (3, 2, 6, 8), 'f4'), ('V', (3, 2, 6, 8), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[4, 5, 6])),
    Case('test_attention_local_window', 25, seed=None, attrs={'is_causal': 1, 'left_window_size': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_bidirectional_window', 25, seed=None, attrs={'left_window_size': 1, 'right_window_size': 2},
         out=['Y'], fixed=BIDIRECTIONAL_QKV),
    Case('test_attention_local_window_default', 25, seed=None, attrs={'left_window_size': -1, 'right_window_size': -1},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y']),
    Case('test_attention_local_window_rank1_boolean_mask', 25, seed=None, attrs={'is_causal': 1, 'left_window_size': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 6, 8), 'f4'), ('V', (2, 3, 6, 8), 'f4')],
         out=['Y'], fixed=dict(attn_mask=[True, True, True, True, False, False])),
    Case('test_attention_local_window_with_past', 25, seed=None, attrs={'is_causal': 1, 'left_window_size': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 2, 8), 'f4'), ('V', (2, 3, 2, 8), 'f4'), ('past_key', (2, 3, 8, 8), 'f4'), ('past_value', (2, 3, 8, 8), 'f4')],
         out=['Y', 'present_key', 'present_value']),
    Case('test_attention_local_window_ext_cache_rank3_head_mask', 25, seed=None, attrs={'is_causal': 1, 'left_window_size': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 8, 8), 'f4'), ('V', (2, 3, 8, 8), 'f4'), ('attn_mask', (3, 4, 8), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[6, 7])),
    Case('test_attention_local_window_ext_cache_rank4_batch_mask', 25, seed=None, attrs={'is_causal': 1, 'left_window_size': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 8, 8), 'f4'), ('V', (2, 3, 8, 8), 'f4'), ('attn_mask', (2, 1, 4, 8), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[6, 7])),
    Case('test_attention_local_window_ext_cache_rank2_mask', 25, seed=None, attrs={'is_causal': 1, 'left_window_size': 2},
         draws=[('Q', (2, 3, 4, 8), 'f4'), ('K', (2, 3, 8, 8), 'f4'), ('V', (2, 3, 8, 8), 'f4'), ('attn_mask', (1, 8), 'f4')],
         out=['Y'], fixed=dict(nonpad_kv_seqlen=[6, 7])),
    Case('test_attention_local_window_ext_cache_float16_mask', 25, seed=None, attrs={'is_causal': 1, 'left_window_size': 2},
         out=['Y'], fixed=FLOAT16_EXT_CACHE),
    Case('test_attention_3d_local_window', 25, seed=None, attrs={'q_num_heads': 4, 'kv_num_heads': 1, 'is_causal': 1, 'left_window_size': 2},
         draws=[('Q', (2, 4, 32), 'f4'), ('K', (2, 6, 8), 'f4'), ('V', (2, 6, 6), 'f4')],
         out=['Y']),
    Case('test_attention_local_window_gqa_rank4_mask', 25, seed=25, attrs={'is_causal': 1, 'left_window_size': 2, 'softcap': 2.0, 'softmax_precision': 11, 'qk_matmul_output_mode': 3},
         draws=[('Q', (2, 4, 4, 8), 'f4'), ('K', (2, 2, 6, 8), 'f4'), ('V', (2, 2, 6, 6), 'f4')],
         out=['Y', 'qk_matmul_output'], fixed=dict(attn_mask=GQA_RANK4_MASK)),
]

INPUT_ORDER = ["Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"]
OUTPUT_INDEX = {"Y": 0, "present_key": 1, "present_value": 2, "qk_matmul_output": 3}


def dims(a):
    return ",".join(str(n) for n in a.shape)


def write_case(case):
    x = case.inputs()
    outs = onnx_attention(**x, **case.attrs)
    d = os.path.join(HERE, case.name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    lines = [f"# ONNX Attention backend test case {case.name}: written by data/onnx/generate.py",
             f"opset {case.opset}"]
    lines += [f"{k} {v}" for k, v in case.attrs.items()]
    for n in INPUT_ORDER:
        if n in x:
            a = x[n]
            np.save(os.path.join(d, n + ".npy"), a.astype(a.dtype.newbyteorder("<")))
            lines.append(f"input {n} {a.dtype} {dims(a)}")
    for n in case.out:
        a = outs[OUTPUT_INDEX[n]]
        # float16 results are stored widened to float32 (exactly), for build/allclose
        np.save(os.path.join(d, n + ".npy"), a.astype("<f8" if a.dtype == np.float64 else "<f4"))
        lines.append(f"output {n} {a.dtype} {dims(a)}")
    with open(os.path.join(d, "case.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return x, outs


def main():
    names = [c.name for c in CASES]
    assert len(names) == 87 and len(set(names)) == 87
    for case in CASES:
        x, outs = write_case(case)
        for n in case.out:
            assert not np.isnan(outs[OUTPUT_INDEX[n]]).any(), f"{case.name}: NaN in {n}"
    print(f"wrote {len(CASES)} cases under {HERE}")


if __name__ == "__main__":
    main()
