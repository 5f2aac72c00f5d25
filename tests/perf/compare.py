#!/usr/bin/env python3
"""Side-by-side timing of attn against NumPy/OpenBLAS and PyTorch eager (make compare).

Every contender runs in this same invocation, on the same shapes, with the same number of
threads (OMP/OPENBLAS/torch threads = attn --threads), and is summarised by its median.
FLOPs: sgemm 2·M·N·K; attention 4·Tq·Tk·d (both products), dense even when causal.
Peers run in child processes so that each gets its own thread settings and OpenBLAS core
type (OpenBLAS 0.3.21 does not know every new CPU and then falls back to generic kernels:
the default is timed as installed, and the Haswell/SkylakeX kernels are timed too; Debian's
PyTorch multiplies through the same OpenBLAS).
"""
import json
import os
import platform
import subprocess
import sys
import time

THREADS = int(os.environ.get("THREADS", "2"))
REPEAT = int(os.environ.get("REPEAT", "7"))
ARCH = os.environ.get("ARCH", "auto")          # attn --arch
ONLY = os.environ.get("ONLY", "all")           # all, sgemm or attention
ROUNDS = int(os.environ.get("ROUNDS", "3"))     # interleaved rounds of attn and peers
SGEMM_SIZES = [1024, 2048]
ATTN_T = 4096
ATTN_DS = [64, 128]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def timeit(fn, warmup=2, repeat=REPEAT):
    """(median wall seconds, mean CPU seconds of the whole process) per run."""
    for _ in range(warmup):
        fn()
    times = []
    c0 = time.process_time()
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return median(times), (time.process_time() - c0) / repeat


# ---- peers (run in a child process: `compare.py --peer KIND ARGS`) --------------------

def peer_sgemm(n):
    import numpy as np
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    return timeit(lambda: a @ b)


def peer_numpy_attention(T, d, causal):
    import numpy as np
    rng = np.random.default_rng(2)
    q, k, v = (rng.uniform(-1, 1, (T, d)).astype(np.float32) for _ in range(3))
    scale = np.float32(1 / np.sqrt(d))
    mask = np.triu(np.ones((T, T), dtype=bool), 1) if causal else None

    def run():
        s = (q @ k.T) * scale
        if mask is not None:
            s[mask] = -np.inf
        s -= s.max(axis=1, keepdims=True)  # stable softmax
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        return s @ v
    return timeit(run)


def peer_torch_attention(T, d, causal):
    import torch
    torch.set_num_threads(THREADS)
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.rand(T, d, generator=g) * 2 - 1 for _ in range(3))
    scale = 1 / d ** 0.5
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if causal else None

    def run():
        with torch.no_grad():
            s = q @ k.T * scale
            if mask is not None:
                s = s.masked_fill(mask, float("-inf"))
            return torch.softmax(s, dim=-1) @ v
    return timeit(run)


def run_peer(kind, args, extra_env=None):
    env = dict(os.environ, OMP_NUM_THREADS=str(THREADS), OPENBLAS_NUM_THREADS=str(THREADS),
               MKL_NUM_THREADS=str(THREADS))
    env.update(extra_env or {})
    out = subprocess.run([sys.executable, __file__, "--peer", kind] + [str(a) for a in args],
                         env=env, check=True, capture_output=True, text=True)
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


# ---- attn -------------------------------------------------------------------------------

def attn_bench(attn, *args, repeat=REPEAT):
    cmd = [attn, "bench", "--format", "json", "--threads", str(THREADS), "--repeat", str(repeat), "--warmup", "2",
           "--arch", ARCH]
    out = subprocess.run(cmd + list(args), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--peer":
        kind, args = sys.argv[2], sys.argv[3:]
        if kind == "sgemm":
            t = peer_sgemm(int(args[0]))
        elif kind == "numpy-attention":
            t = peer_numpy_attention(int(args[0]), int(args[1]), args[2] == "1")
        else:
            t = peer_torch_attention(int(args[0]), int(args[1]), args[2] == "1")
        print(*t)
        return

    attn = sys.argv[1] if len(sys.argv) > 1 else "build/attn"
    sizes = ",".join(str(n) for n in SGEMM_SIZES)
    ds = ",".join(str(d) for d in ATTN_DS)
    progress = sys.stderr.isatty()

    def say(msg):
        if progress:
            print(msg, file=sys.stderr)

    do_sgemm, do_attention = ONLY in ("all", "sgemm"), ONLY in ("all", "attention")
    # The FMA peak is a physical limit: measured once per round, the highest value counts
    # (a loaded machine can only make it look lower).
    peak_gflops, arch = None, None

    def measure_peak():
        nonlocal peak_gflops, arch
        say("attn: FMA peak ...")
        peak = attn_bench(attn, "--peak", "--op", "matmul", "--sizes", "8", repeat=1)
        arch = peak["results"][0]["arch"]
        g = next((p["gflops"] for p in peak["peak"] if p["arch"] == arch and p["threads"] == THREADS), None)
        if g and (peak_gflops is None or g > peak_gflops):
            peak_gflops = g
    blas = (("NumPy/OpenBLAS (as installed)", {}),
            ("NumPy/OpenBLAS Haswell kernels", {"OPENBLAS_CORETYPE": "Haswell"}),
            ("NumPy/OpenBLAS SkylakeX kernels", {"OPENBLAS_CORETYPE": "SkylakeX"}))
    # Debian's torch and numpy both multiply through the system OpenBLAS: timed as installed
    # and with its AVX-512 kernels forced (the fair figure where it misdetects the CPU).
    skx = {"OPENBLAS_CORETYPE": "SkylakeX"}
    attention_peers = (("PyTorch 1.13 eager", "torch-attention", {}),
                       ("PyTorch eager, OpenBLAS SkylakeX", "torch-attention", skx),
                       ("NumPy (stable softmax)", "numpy-attention", {}),
                       ("NumPy, OpenBLAS SkylakeX", "numpy-attention", skx))

    # Rounds interleave attn and the peers so that a change in machine load (a shared
    # machine) hits every contender alike; each figure is the median over the rounds of
    # per-round medians.
    attn_t, peer_t = {}, {}
    for rnd in range(ROUNDS):
        measure_peak()
        if do_sgemm:
            say(f"round {rnd + 1}/{ROUNDS}: sgemm ...")
            for r in attn_bench(attn, "--op", "matmul", "--sizes", sizes)["results"]:
                attn_t.setdefault(f"sgemm {r['shape'].split('x')[0]}^3", []).append((r["median"], r["user"] + r["system"]))
            for n in SGEMM_SIZES:
                for label, env in blas:
                    peer_t.setdefault((f"sgemm {n}^3", label), []).append(run_peer("sgemm", [n], env))
        if do_attention:
            for causal in (False, True):
                say(f"round {rnd + 1}/{ROUNDS}: attention{' causal' if causal else ''} ...")
                extra = ["--causal"] if causal else []
                for r in attn_bench(attn, "--op", "attention", "--sizes", str(ATTN_T), "--d", ds, *extra)["results"]:
                    d = int(r["shape"].split("x")[2])
                    attn_t.setdefault(f"attention T={ATTN_T} d={d}{' causal' if causal else ''}", []).append(
                        (r["median"], r["user"] + r["system"]))
                for d in ATTN_DS:
                    case = f"attention T={ATTN_T} d={d}{' causal' if causal else ''}"
                    for label, kind, env in attention_peers:
                        peer_t.setdefault((case, label), []).append(run_peer(kind, [ATTN_T, d, int(causal)], env))

    rows = []  # (case, attn median, flops, peer name, peer median)
    for (case, label), times in peer_t.items():
        if case.startswith("sgemm"):
            n = int(case.split()[1].rstrip("^3"))
            flops = 2.0 * n ** 3
        else:
            d = int(case.split("d=")[1].split()[0])
            flops = 4.0 * ATTN_T * ATTN_T * d
        a, p = attn_t[case], times
        rows.append((case, median([w for w, _ in a]), median([c for _, c in a]), flops, label,
                     median([w for w, _ in p]), median([c for _, c in p])))

    print(f"attn vs peers — {platform.node()} ({os.cpu_count()} CPUs), {time.strftime('%Y-%m-%d %H:%M %Z')}, "
          f"arch {arch}, {THREADS} threads everywhere, medians of {REPEAT} runs x {ROUNDS} interleaved rounds")
    if peak_gflops:
        print(f"FMA peak ({arch}, {THREADS} threads, best of {ROUNDS}): {peak_gflops:.0f} GFLOP/s "
              "(no % of peak for causal rows: their FLOPs are counted dense but half is skipped)")
    print("FLOPs: sgemm 2n^3; attention 4*Tq*Tk*d, dense even when causal\n")
    head = (f"| {'case':<30} | {'attn ms':>8} | {'attn GFLOP/s':>12} | {'% peak':>6} | {'peer':<32} | {'peer ms':>8} "
            f"| {'peer GFLOP/s':>12} | {'attn speed-up':>13} | {'per CPU-s':>9} |")
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for case, t, cpu, flops, peer, tp, cpup in rows:
        g, gp = flops / t * 1e-9, flops / tp * 1e-9
        frac = f"{100 * g / peak_gflops:.0f}%" if peak_gflops and "causal" not in case else "-"
        print(f"| {case:<30} | {t * 1e3:8.1f} | {g:12.1f} | {frac:>6} | {peer:<32} | {tp * 1e3:8.1f} | {gp:12.1f} "
              f"| {tp / t:12.2f}x | {cpup / cpu:8.2f}x |")
    print("\nattn speed-up = peer median / attn median (wall clock). per CPU-s = the same ratio in CPU time of all")
    print("threads: steadier on a shared machine, but it charges busy-waiting threads (OpenBLAS spins) as work.")
    # causal vs non-causal for attn itself (skipping must show)
    for d in ATTN_DS if do_attention else []:
        nc = median([w for w, _ in attn_t[f"attention T={ATTN_T} d={d}"]])
        c = median([w for w, _ in attn_t[f"attention T={ATTN_T} d={d} causal"]])
        print(f"attn causal speed-up over non-causal, T={ATTN_T} d={d}: {nc / c:.2f}x")


if __name__ == "__main__":
    main()
