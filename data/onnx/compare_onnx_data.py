#!/usr/bin/python3
"""Compares data/onnx/CASE/ with ONNX's own serialized test data (TensorProto .pb files), as a
check of generate.py; not needed to regenerate or to run the tests. Usage:
    /usr/bin/python3 data/onnx/compare_onnx_data.py NODE_DIR
NODE_DIR is onnx/backend/test/data/node of an onnx checkout from before those files were
removed (commit a8f77b5b9, "Remove node test artifacts"; its parent holds 76 Attention cases).
Prints every input that is not bit-identical and every output's max |diff|; see README.md.
Reads TensorProto with a minimal protobuf decoder (no onnx or protobuf package needed).
"""
import os
import sys

import numpy as np

np.seterr(invalid='ignore')
DT = {1: np.float32, 9: np.bool_, 10: np.float16, 7: np.int64, 11: np.float64}
def varint(b, i):
    r = s = 0
    while True:
        c = b[i]; i += 1; r |= (c & 0x7f) << s; s += 7
        if not c & 0x80: return r, i
def tensor(path):
    b = open(path, 'rb').read(); i = 0; dims = []; dt = None; raw = None; fl = []; i64 = []; i32 = []
    while i < len(b):
        key, i = varint(b, i); f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
            if f == 1: dims.append(v)
            elif f == 2: dt = v
            elif f == 7: i64.append(v)
            elif f == 5: i32.append(v)
        elif w == 2:
            n, i = varint(b, i); chunk = b[i:i+n]; i += n
            if f == 9: raw = chunk
            elif f == 1:
                j = 0
                while j < len(chunk): v, j = varint(chunk, j); dims.append(v)
            elif f == 4: fl += list(np.frombuffer(chunk, '<f4'))
            elif f == 7:
                j = 0
                while j < len(chunk): v, j = varint(chunk, j); i64.append(v)
            elif f == 5:
                j = 0
                while j < len(chunk): v, j = varint(chunk, j); i32.append(v)
        elif w == 5: i += 4
        elif w == 1: i += 8
    t = DT[dt]
    if raw is not None: a = np.frombuffer(raw, np.dtype(t).newbyteorder('<'))
    elif t == np.float32: a = np.array(fl, np.float32)
    elif t == np.int64: a = np.array(i64, np.int64)
    elif t in (np.bool_, np.float16): a = np.array(i32, np.uint16).view(np.float16) if t == np.float16 else np.array(i32, np.bool_)
    return a.reshape(dims)
ROOT = sys.argv[1]; here = os.path.dirname(os.path.abspath(__file__)); n = 0; bad = 0
for name in sorted(os.listdir(ROOT)):
    if name.endswith('_expanded'): continue
    d = os.path.join(ROOT, name, 'test_data_set_0'); mine = os.path.join(here, name)
    if not os.path.isdir(mine): print('MISSING here', name); continue
    case = open(os.path.join(mine, 'case.txt')).read().split('\n')
    ins = [l.split()[1] for l in case if l.startswith('input ')]
    outs = [l.split()[1] for l in case if l.startswith('output ')]
    n += 1
    for k, nm in enumerate(ins):
        a = tensor(os.path.join(d, f'input_{k}.pb')); b = np.load(os.path.join(mine, nm + '.npy'))
        if a.shape != b.shape or not np.array_equal(a, b): print('INPUT', name, nm, a.shape, b.shape); bad += 1
    for k, nm in enumerate(outs):
        a = tensor(os.path.join(d, f'output_{k}.pb')).astype(np.float64); b = np.load(os.path.join(mine, nm + '.npy')).astype(np.float64)
        if a.shape != b.shape: print('OUTSHAPE', name, nm, a.shape, b.shape); bad += 1; continue
        fin = np.isfinite(a) & np.isfinite(b)
        if not np.array_equal(np.isinf(a), np.isinf(b)) or np.max(np.abs(a-b)[fin]) > 0: print('OUTPUT', name, nm, 'max|diff|', np.max(np.abs(a - b)[fin])); bad += 1
print(n, 'cases compared;', bad, 'arrays not bit-identical (inputs must be; outputs differ by float rounding)')
