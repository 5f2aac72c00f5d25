#!/usr/bin/env python3
"""attn's split-K decoding against ggml's flash_attn_ext (make compare; ONLY=ggml for this alone).

ggml is not part of attn and nothing of it is kept here: get https://github.com/ggml-org/ggml
(compared at d99724f2), build it yourself as its README says (a Release build into its build/
folder, for the CPU it runs on: ggml's default) and point GGML_DIR at that tree (default
/tmp/ggml). Without it this section is skipped with a message.
The timing program (tests/perf/ggml_decode.cpp, ours) is compiled against that build into a
temporary folder.

Rounds alternate attn bench and ggml (the order reverses every round), each REPEAT timed runs
after warm-up, with THREADS threads, on the same shape and K/V element type; every figure is
the median over the rounds of per-round medians, with the range of the round medians. The
read bandwidth is attn bench's own probe, from memory (the default shape's K/V is 256 MiB: 8x
a 32 MiB last-level cache, but on a machine with 300 MiB of it much of K/V stays cached and
the fraction can pass 100%), measured in the same runs. The peer runs with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset, as every peer of make compare.
  env: GGML_DIR, THREADS (2), REPEAT (21), ROUNDS (5),
       GGML_SHAPES (H:G:Tk:d list, default 8:8:32768:128), GGML_KV (f32,f16)
"""
import csv
import glob
import io
import os
import subprocess
import sys
import tempfile

THREADS = int(os.environ.get("THREADS", "2"))
REPEAT = int(os.environ.get("REPEAT", "21"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
ARCH = os.environ.get("ARCH", "auto")
GGML_DIR = os.environ.get("GGML_DIR", "/tmp/ggml")
SHAPES = [tuple(int(x) for x in s.split(":")) for s in os.environ.get("GGML_SHAPES", "8:8:32768:128").split(",")]
KV = os.environ.get("GGML_KV", "f32,f16").split(",")


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def ggml_libraries():
    """The static or shared libraries of a ggml cmake build under GGML_DIR, or None."""
    if not os.path.isfile(os.path.join(GGML_DIR, "include", "ggml.h")):
        return None
    libs = []
    for name in ("ggml", "ggml-cpu", "ggml-base"):
        found = sorted(glob.glob(os.path.join(GGML_DIR, "build", "**", f"lib{name}.a"), recursive=True) +
                       glob.glob(os.path.join(GGML_DIR, "build", "**", f"lib{name}.so"), recursive=True))
        if not found:
            return None
        libs.append(found[0])
    return libs


def build_harness(libs, folder):
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(folder, "ggml_decode")
    rpaths = sorted({"-Wl,-rpath," + os.path.dirname(l) for l in libs if l.endswith(".so")})
    cmd = ["g++", "-std=c++17", "-O2", "-I" + os.path.join(GGML_DIR, "include"), os.path.join(here, "ggml_decode.cpp"),
           "-o", exe, *libs, *rpaths, "-lpthread", "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 and "omp" in r.stderr:  # a ggml built with OpenMP
        r = subprocess.run(cmd + ["-fopenmp"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compare_ggml: building the ggml timing program failed:\n{r.stderr[-2000:]}")
    return exe


def run_attn(attn, H, G, Tk, d, kv):
    cmd = [attn, "bench", "--op", "attention", "--sizes", f"1x{H}x1x{Tk}", "--d", str(d), "--kv-heads", str(G),
           "--kv-dtype", kv, "--threads", str(THREADS), "--repeat", str(REPEAT), "--warmup", "2", "--arch", ARCH,
           "--format", "csv"]
    rows = list(csv.DictReader(io.StringIO(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)))
    r = next(r for r in rows if r["op"] == "attention")
    bw = next((float(x["gb_per_s_moved"]) for x in rows if x["op"] == "read_bandwidth" and x["shape"] == "memory"), None)
    return float(r["median"]) * 1e3, float(r["gb_per_s_moved"]), bw, r["arch"]


def run_ggml(exe, H, G, Tk, d, kv, huge):
    args = [exe, str(H), str(G), str(Tk), str(d), kv, str(THREADS), str(REPEAT), "2"] + (["huge"] if huge else [])
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    out = subprocess.run(args, check=True, capture_output=True, text=True, env=env).stdout.split(maxsplit=3)
    return float(out[0]), out[3].strip() if len(out) > 3 else ""


def main():
    attn = sys.argv[1] if len(sys.argv) > 1 else "build/attn"
    libs = ggml_libraries()
    if libs is None:
        print(f"ggml comparison skipped: no ggml cmake build at GGML_DIR={GGML_DIR} (a clone of "
              "https://github.com/ggml-org/ggml with build/src/libggml*.a or .so; see tests/perf/compare_ggml.py)")
        return
    commit = subprocess.run(["git", "-C", GGML_DIR, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown commit"
    with tempfile.TemporaryDirectory() as folder:
        exe = build_harness(libs, folder)
        print(f"attn vs ggml flash_attn_ext (ggml {commit} at {GGML_DIR}), decoding (Tq = 1, no mask), "
              f"{THREADS} threads, {ROUNDS} alternating rounds x {REPEAT} runs; medians over the rounds [range]")
        print(f"{'case':34} {'attn ms':>20} {'ggml ms':>20} {'ggml/attn':>18} {'ggml huge ms':>20} "
              f"{'ggml huge/attn':>18} {'attn GB/s':>9} {'bw GB/s':>8} {'% bw':>5}")
        for H, G, Tk, d in SHAPES:
            for kv in KV:
                a_ms, g_ms, h_ms, ratios, h_ratios, gbps, bws = [], [], [], [], [], [], []
                arch = features = ""
                for rnd in range(ROUNDS):
                    sides = ("attn", "ggml", "huge")
                    for side in sides if rnd % 2 == 0 else sides[::-1]:
                        if side == "attn":
                            t, g, bw, arch = run_attn(attn, H, G, Tk, d, kv)
                            a_ms.append(t), gbps.append(g)
                            if bw: bws.append(bw)
                        else:
                            t, features = run_ggml(exe, H, G, Tk, d, kv, side == "huge")
                            (h_ms if side == "huge" else g_ms).append(t)
                    ratios.append(g_ms[-1] / a_ms[-1]), h_ratios.append(h_ms[-1] / a_ms[-1])
                case = f"1x{H}{'' if G == H else ':' + str(G)}x1x{Tk} d={d} {kv} K/V"
                rng = lambda xs: f"{median(xs):.2f} [{min(xs):.2f}-{max(xs):.2f}]"
                bw = median(bws) if bws else float("nan")
                print(f"{case:34} {rng(a_ms):>20} {rng(g_ms):>20} {rng(ratios):>18} {rng(h_ms):>20} {rng(h_ratios):>18} "
                      f"{median(gbps):9.1f} {bw:8.1f} {100 * median(gbps) / bw:4.0f}%")
        print(f"attn kernels: --arch {ARCH} ran {arch} (split-K decoding); ggml kernels: flash_attn_ext on its CPU "
              f"backend built for this CPU ({features}), its split-KV path for one query row")
        print("ggml/attn > 1: attn is faster. ggml: its tensors on ordinary pages, as it allocates them; ggml huge: "
              "on a buffer with madvise(MADV_HUGEPAGE), as attn's are. bw: attn bench's read-bandwidth probe from "
              "memory in the same runs; % bw: attn's GB/s over it")


if __name__ == "__main__":
    main()
