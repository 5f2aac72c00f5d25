#!/usr/bin/env python3
"""Side-by-side timing of attn against NumPy/OpenBLAS and PyTorch eager (make compare).

Every contender runs in this same invocation, on the same shapes, with the same number of
threads (OMP/OPENBLAS/torch threads = attn --threads), and is summarised by its median.
FLOPs: sgemm 2·M·N·K; attention 4·d per visible cell (both products): 4·Tq·Tk·d, half when causal.
Peers run in child processes so that each gets its own thread settings and OpenBLAS core
type (OpenBLAS 0.3.21 does not know every new CPU and then falls back to generic kernels:
the default is timed as installed, and the Haswell/SkylakeX kernels are timed too; Debian's
PyTorch multiplies through the same OpenBLAS).
"""
import json
import os
import platform
import resource
import subprocess
import sys
import time

THREADS = int(os.environ.get("THREADS", "2"))
REPEAT = int(os.environ.get("REPEAT", "7"))
ARCH = os.environ.get("ARCH", "auto")          # attn --arch
ONLY = os.environ.get("ONLY", "all")           # all, sgemm, attention, heads, decode, additive, io or model
ROUNDS = int(os.environ.get("ROUNDS", "3"))     # interleaved rounds of attn and peers
SGEMM_SIZES = [1024, 2048]
ATTN_T = 4096
ATTN_DS = [64, 128]
HEADS_SHAPE = (4, 8, 1024, 64)                  # batch, heads, T, d: attention and nn.MultiheadAttention
DECODE_TK, DECODE_D = 32768, 128                # one query row against a K/V cache (a decoding step)
IO_T, IO_D = 4096, 64                           # whole-process attend, npy in and out
IO_CSV_SHAPE = (1024, 1024)                     # csv round trips (about 12.7 MB of text)
ADDITIVE_SHAPE = (1024, 1024, 64, 128)          # Tq, Tk, d, h: --score additive vs d2l's AdditiveAttention


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


def peer_numpy_decode(Tk, d):
    import numpy as np
    rng = np.random.default_rng(7)
    q = rng.uniform(-1, 1, (1, d)).astype(np.float32)
    k, v = (rng.uniform(-1, 1, (Tk, d)).astype(np.float32) for _ in range(2))
    scale = np.float32(1 / np.sqrt(d))

    def run():
        s = (q @ k.T) * scale
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        return s @ v
    return timeit(run)


def peer_torch_decode(Tk, d):
    """PyTorch eager, as 1.13 has no public scaled_dot_product_attention."""
    import torch
    torch.set_num_threads(THREADS)
    g = torch.Generator().manual_seed(8)
    q = torch.rand(1, d, generator=g) * 2 - 1
    k, v = (torch.rand(Tk, d, generator=g) * 2 - 1 for _ in range(2))
    scale = 1 / d ** 0.5

    def run():
        with torch.no_grad():
            return torch.softmax(q @ k.T * scale, dim=-1) @ v
    return timeit(run)


def peer_torch_batched_attention(B, H, T, d):
    import torch
    torch.set_num_threads(THREADS)
    g = torch.Generator().manual_seed(5)
    q, k, v = (torch.rand(B, H, T, d, generator=g) * 2 - 1 for _ in range(3))
    scale = 1 / d ** 0.5

    def run():
        with torch.no_grad():
            return torch.softmax(q @ k.transpose(-1, -2) * scale, dim=-1) @ v
    return timeit(run)


def peer_torch_mha(B, H, T, d):
    """nn.MultiheadAttention as a model calls it at inference: eval, no_grad, no weights
    returned (PyTorch then takes its fused fast path when it can)."""
    import torch
    torch.set_num_threads(THREADS)
    torch.manual_seed(6)
    mha = torch.nn.MultiheadAttention(H * d, H, batch_first=True).eval()
    x = torch.rand(B, T, H * d) * 2 - 1

    def run():
        with torch.no_grad():
            return mha(x, x, x, need_weights=False)[0]
    return timeit(run)


def peer_torch_additive(folder):
    """d2l's AdditiveAttention (its own code, from data/scores/generate.py) in PyTorch eager, eval and
    no_grad, on the same npy inputs and weights as attn (loaded once, outside the timing)."""
    import importlib.util
    import numpy as np
    import torch
    torch.set_num_threads(THREADS)
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("scores", os.path.join(here, "..", "..", "data", "scores", "generate.py"))
    d2l = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(d2l)
    torch.set_num_threads(THREADS)
    q, k, v = (torch.from_numpy(np.load(f"{folder}/{n}.npy"))[None] for n in "qkv")
    h = np.load(f"{folder}/va.npy").shape[0]
    m = d2l.AdditiveAttention(h, 0.0).eval()
    with torch.no_grad():
        m(q, k, v, None)  # materialises the lazy layers, then their weights are attn's
        m.W_q.weight.copy_(torch.from_numpy(np.load(f"{folder}/wa_q.npy")).T)
        m.W_k.weight.copy_(torch.from_numpy(np.load(f"{folder}/wa_k.npy")).T)
        m.w_v.weight.copy_(torch.from_numpy(np.load(f"{folder}/va.npy"))[None])
        np.save(f"{folder}/torch_context.npy", m(q, k, v, None)[0].numpy())

    def run():
        with torch.no_grad():
            return m(q, k, v, None)
    return timeit(run, warmup=1, repeat=min(REPEAT, 5))


def additive_section(attn):
    """attn attend --score additive as a whole process (start-up, npy in and out) against d2l's
    AdditiveAttention in PyTorch eager timed inside its process, on the same inputs and weights."""
    import tempfile
    import numpy as np
    Tq, Tk, d, h = ADDITIVE_SHAPE
    folder = tempfile.mkdtemp(prefix="attn-compare-additive-")
    try:
        rng = np.random.default_rng(11)
        for n, shape, sd in (("q", (Tq, d), 1), ("k", (Tk, d), 1), ("v", (Tk, d), 1), ("wa_q", (d, h), d ** -0.5),
                             ("wa_k", (d, h), d ** -0.5), ("va", (h,), h ** -0.5)):
            np.save(f"{folder}/{n}.npy", (rng.standard_normal(shape) * sd).astype(np.float32))
        cmd = [attn, "attend", "-q", f"{folder}/q.npy", "-k", f"{folder}/k.npy", "-v", f"{folder}/v.npy",
               "--score", "additive", "--wa-q", f"{folder}/wa_q.npy", "--wa-k", f"{folder}/wa_k.npy",
               "--va", f"{folder}/va.npy", "--threads", str(THREADS), "--arch", ARCH, "--format", "npy",
               "-o", f"{folder}/attn_context.npy"]
        a, p = [], []
        for _ in range(ROUNDS):
            a.append(process_time(cmd, repeat=min(REPEAT, 5)))
            p.append(run_peer("torch-additive", [folder], label="PyTorch 1.13 (additive), as installed"))
        diff = float(np.max(np.abs(np.load(f"{folder}/attn_context.npy") - np.load(f"{folder}/torch_context.npy"))))
        wa, wp = median([x for x, _ in a]), median([x for x, _ in p])
        ca, cp = median([y for _, y in a]), median([y for _, y in p])
        print(f"\nadditive attention Tq={Tq} Tk={Tk} d={d} h={h}, {THREADS} threads, medians of "
              f"{min(REPEAT, 5)} runs x {ROUNDS} rounds (attn: whole process; PyTorch: in-process)")
        print(f"| {'contender':<44} | {'ms':>8} | {'CPU ms':>8} |")
        print(f"|{'-' * 46}|{'-' * 10}|{'-' * 10}|")
        print(f"| {'attn attend --score additive (npy in/out)':<44} | {wa * 1e3:8.1f} | {ca * 1e3:8.1f} |")
        print(f"| {'d2l AdditiveAttention, PyTorch 1.13 eager':<44} | {wp * 1e3:8.1f} | {cp * 1e3:8.1f} |")
        print(f"attn speed-up over d2l's AdditiveAttention: {wp / wa:.1f}x wall, {cp / ca:.1f}x CPU; "
              f"max |context difference| {diff:.2g}")
        print_kernels(attn, ["PyTorch 1.13 (additive), as installed"])
    finally:
        subprocess.run(["rm", "-rf", folder], check=False)


def print_kernels(attn, labels):
    """The kernels a section ran: attn's (its --version under --arch) and its peers' BLAS."""
    out = subprocess.run([attn, "--version"], capture_output=True, text=True,
                         env=dict(os.environ, ATTN_ARCH=ARCH)).stdout.strip()
    print(f"attn: {out}")
    for label in labels:
        print(f"  {label}: {blas_kernels.get(label, 'not run')}")


def blas_info():
    """Which OpenBLAS kernel this process loaded, as threadpoolctl reports it."""
    try:
        import numpy  # noqa: F401  (loads OpenBLAS)
        from threadpoolctl import threadpool_info
        return ", ".join(f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}"
                         for i in threadpool_info() if i.get("user_api") == "blas") or "no BLAS"
    except ImportError:
        return "threadpoolctl missing"


# Set by this workplace for old OpenBLAS builds; unset for the peers so each runs as a user's
# would, unless a peer variant asks for a core type explicitly.
OPENBLAS_WORKAROUNDS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
blas_kernels = {}  # peer label -> what threadpoolctl said


def run_peer(kind, args, extra_env=None, label=None):
    env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_WORKAROUNDS}
    env.update(OMP_NUM_THREADS=str(THREADS), OPENBLAS_NUM_THREADS=str(THREADS), MKL_NUM_THREADS=str(THREADS))
    env.update(extra_env or {})
    out = subprocess.run([sys.executable, __file__, "--peer", kind] + [str(a) for a in args],
                         env=env, check=True, capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    if label:
        blas_kernels[label] = lines[-2]
    wall, cpu = lines[-1].split()
    return float(wall), float(cpu)


# ---- attn -------------------------------------------------------------------------------

def attn_bench(attn, *args, repeat=REPEAT):
    cmd = [attn, "bench", "--format", "json", "--threads", str(THREADS), "--repeat", str(repeat), "--warmup", "2",
           "--arch", ARCH]
    out = subprocess.run(cmd + list(args), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


# ---- whole-process I/O (ONLY=io) ----------------------------------------------------------
# attn runs as a whole process (start-up, reading, computing, writing) as a user meets it;
# NumPy runs in one Python process, timed inside it around the same work (so without the
# interpreter's start-up and import, which favours NumPy).

def peer_numpy_npy_attention(folder):
    import numpy as np

    def run():
        q, k, v = (np.load(f"{folder}/{n}.npy") for n in "qkv")
        s = (q @ k.T) / np.float32(np.sqrt(q.shape[1]))
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        np.save(f"{folder}/numpy_out.npy", s @ v)
    return timeit(run, warmup=1)


def peer_numpy_csv(folder, direction):
    import numpy as np
    if direction == "read":  # text -> array -> .npy, as `attn concat X.csv --format npy -o Y.npy`
        return timeit(lambda: np.save(f"{folder}/numpy_m.npy", np.loadtxt(f"{folder}/m.csv", delimiter=",",
                                                                         dtype=np.float32)), warmup=0, repeat=3)
    # .npy -> text, as `attn concat X.npy --format csv -o Y.csv`
    return timeit(lambda: np.savetxt(f"{folder}/numpy_m.csv", np.load(f"{folder}/m.npy"), fmt="%.9g", delimiter=","),
                  warmup=0, repeat=3)


def process_time(cmd, repeat=REPEAT):
    """Median wall seconds of a whole process, and its median CPU seconds (user + system)."""
    walls, cpus = [], []
    # getrusage counts microseconds; os.times() counts clock ticks (10 ms here), too coarse.
    cpu_of = lambda r: r.ru_utime + r.ru_stime
    for i in range(repeat + 1):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i:  # the first run warms the page cache
            walls.append(wall)
            cpus.append(cpu_of(r1) - cpu_of(r0))
    return median(walls), median(cpus)


def io_section(attn):
    import tempfile
    folder = tempfile.mkdtemp(prefix="attn-compare-io-")
    try:
        for i, n in enumerate("qkv"):
            subprocess.run([attn, "random", "--shape", f"{IO_T},{IO_D}", "--seed", str(i + 1), "--format", "npy",
                            "-o", f"{folder}/{n}.npy"], check=True)
        r, c = IO_CSV_SHAPE
        subprocess.run([attn, "random", "--shape", f"{r},{c}", "--seed", "9", "--format", "npy", "-o",
                        f"{folder}/m.npy"], check=True)
        with open(f"{folder}/m.csv", "w") as f:  # bare rows: what numpy.loadtxt reads
            subprocess.run([attn, "concat", f"{folder}/m.npy", "--format", "csv"], check=True, stdout=f)
        csv_mb = os.path.getsize(f"{folder}/m.csv") / 1e6
        attend = [attn, "attend", "-q", f"{folder}/q.npy", "-k", f"{folder}/k.npy", "-v", f"{folder}/v.npy",
                  "--threads", str(THREADS), "--arch", ARCH, "--format", "npy", "-o", f"{folder}/attn_out.npy"]
        read = [attn, "concat", f"{folder}/m.csv", "--format", "npy", "-o", f"{folder}/attn_m.npy"]
        write = [attn, "concat", f"{folder}/m.npy", "--format", "csv", "-o", f"{folder}/attn_m.csv"]
        t = {}
        for rnd in range(ROUNDS):
            kernel = attn_bench(attn, "--op", "attention", "--sizes", str(IO_T), "--d", str(IO_D))["results"][0]
            t.setdefault("kernel", []).append((kernel["median"], kernel["user"] + kernel["system"]))
            t.setdefault("attend", []).append(process_time(attend))
            t.setdefault("numpy attend", []).append(run_peer("numpy-npy-attention", [folder], label="NumPy (I/O), as installed"))
            t.setdefault("read", []).append(process_time(read))
            t.setdefault("numpy read", []).append(run_peer("numpy-csv", [folder, "read"]))
            t.setdefault("write", []).append(process_time(write))
            t.setdefault("numpy write", []).append(run_peer("numpy-csv", [folder, "write"]))
        w = {k: median([x for x, _ in v]) for k, v in t.items()}
        cpu = {k: median([y for _, y in v]) for k, v in t.items()}
        print(f"\nI/O — whole processes for attn, in-process timing for NumPy (no interpreter start-up), "
              f"{THREADS} threads, medians of {REPEAT} runs x {ROUNDS} rounds")
        print(f"| {'case':<44} | {'attn ms':>8} | {'attn CPU ms':>11} | {'NumPy ms':>8} | {'attn speed-up':>14} |")
        print(f"|{'-' * 46}|{'-' * 10}|{'-' * 13}|{'-' * 10}|{'-' * 16}|")
        print(f"| {'attention kernel T=%d d=%d (attn bench)' % (IO_T, IO_D):<44} | {w['kernel'] * 1e3:8.1f} | "
              f"{cpu['kernel'] * 1e3:11.1f} | {'-':>8} | {'-':>14} |")
        for case, key, peer in ((f"attend -q -k -v npy -> npy T={IO_T} d={IO_D}", "attend", "numpy attend"),
                                (f"csv -> npy {r}x{c} ({csv_mb:.1f} MB)", "read", "numpy read"),
                                (f"npy -> csv {r}x{c} ({csv_mb:.1f} MB)", "write", "numpy write")):
            print(f"| {case:<44} | {w[key] * 1e3:8.1f} | {cpu[key] * 1e3:11.1f} | {w[peer] * 1e3:8.1f} | "
                  f"{w[peer] / w[key]:13.2f}x |")
        print(f"whole process / kernel (attend npy -> npy): {w['attend'] / w['kernel']:.2f}x wall")
        print_kernels(attn, ["NumPy (I/O), as installed"])
        print(f"text throughput (whole process, start-up included): read {csv_mb / w['read']:.0f} MB/s, "
              f"write {csv_mb / w['write']:.0f} MB/s; per CPU-second: read {csv_mb / cpu['read']:.0f} MB/s, "
              f"write {csv_mb / cpu['write']:.0f} MB/s")
    finally:
        subprocess.run(["rm", "-rf", folder], check=False)


# ---- whole models (ONLY=model) -----------------------------------------------------------
# (make_tiny.py flag, T): random checkpoints shaped as BERT-base, GPT-2 small and a Llama (bf16,
# grouped-query heads); make_tiny.py writes them and times its torch forward (written from
# transformers' modeling code) with output_attentions on THREADS threads.
MODEL_CASES = (("--bert-base", "BERT-base (L=12 E=768 H=12)", 128),
               ("--gpt2-small", "GPT-2 small (L=12 E=768 H=12)", 256),
               ("--llama-shaped", "Llama-shaped bf16 (L=4 E=2048 H=32 G=8)", 512))


def process_time_rss(cmd, repeat):
    """Median wall seconds of a whole process and its largest peak resident set (bytes)."""
    walls, rss = [], 0
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(cmd)} failed")
        if i:  # the first run maps the weights into the page cache
            walls.append(wall)
            rss = max(rss, usage.ru_maxrss * 1024)
    return median(walls), rss


def model_section(attn):
    """attn model FOLDER --ids ... --show attentions -o x.npy, whole process, against the torch
    forward with output_attentions timed inside its process; peak memory against the weights'
    size on disk; the attentions' largest difference."""
    import re
    import tempfile
    import numpy as np
    here = os.path.dirname(os.path.abspath(__file__))
    make_tiny = os.path.join(here, "..", "..", "data", "models", "make_tiny.py")
    print(f"\nwhole models, {THREADS} threads: attn model as a whole process (median of {REPEAT}), "
          f"the torch forward in-process (make_tiny.py: bert median of 3, others one run)")
    print(f"| {'model':<42} | {'T':>4} | {'attn ms':>8} | {'torch ms':>9} | {'attn/torch':>10} | "
          f"{'peak MiB':>8} | {'weights MiB':>11} | {'max |diff|':>10} |")
    print(f"|{'-' * 44}|{'-' * 6}|{'-' * 10}|{'-' * 11}|{'-' * 12}|{'-' * 10}|{'-' * 13}|{'-' * 12}|")
    for flag, name, T in MODEL_CASES:
        folder = tempfile.mkdtemp(prefix="attn-compare-model-")
        try:
            env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_WORKAROUNDS}
            out = subprocess.run([sys.executable, make_tiny, flag, folder], env=env, check=True,
                                 capture_output=True, text=True).stdout
            found = re.findall(r"(?:median|forward \(output_attentions\):) ([0-9.]+) ms", out)
            torch_ms = float(found[-1])
            cmd = [attn, "model", folder, "--ids", f"{folder}/ids.txt", "--show", "attentions", "--threads",
                   str(THREADS), "--arch", ARCH, "--format", "npy", "-o", f"{folder}/attn.npy"]
            wall, rss = process_time_rss(cmd, REPEAT)
            weights = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)
                          if f.endswith(".safetensors"))
            diff = float(np.max(np.abs(np.load(f"{folder}/attn.npy") - np.load(f"{folder}/attentions.npy"))))
            print(f"| {name:<42} | {T:>4} | {wall * 1e3:8.0f} | {torch_ms:9.0f} | {wall * 1e3 / torch_ms:9.3f}x | "
                  f"{rss / 2 ** 20:8.0f} | {weights / 2 ** 20:11.0f} | {diff:10.2g} |")
        finally:
            subprocess.run(["rm", "-rf", folder], check=False)
    print("torch: Debian's PyTorch 1.13 as installed (its BLAS: OpenBLAS's default kernels; OPENBLAS_* unset)")
    print_kernels(attn, [])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--peer":
        kind, args = sys.argv[2], sys.argv[3:]
        if kind == "sgemm":
            t = peer_sgemm(int(args[0]))
        elif kind == "numpy-attention":
            t = peer_numpy_attention(int(args[0]), int(args[1]), args[2] == "1")
        elif kind == "torch-batched-attention":
            t = peer_torch_batched_attention(*map(int, args))
        elif kind == "torch-mha":
            t = peer_torch_mha(*map(int, args))
        elif kind == "numpy-decode":
            t = peer_numpy_decode(*map(int, args))
        elif kind == "torch-decode":
            t = peer_torch_decode(*map(int, args))
        elif kind == "numpy-npy-attention":
            t = peer_numpy_npy_attention(args[0])
        elif kind == "numpy-csv":
            t = peer_numpy_csv(args[0], args[1])
        elif kind == "torch-additive":
            t = peer_torch_additive(args[0])
        else:
            t = peer_torch_attention(int(args[0]), int(args[1]), args[2] == "1")
        print(blas_info())
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
    do_heads = ONLY in ("all", "heads")
    do_decode = ONLY in ("all", "decode")
    if ONLY == "io":
        io_section(attn)
        return
    if ONLY == "additive":
        additive_section(attn)
        return
    if ONLY == "model":
        model_section(attn)
        return
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
    heads_flops = {}  # case -> FLOPs as attn bench counts them (its flops_note)
    decode_info = {}  # case -> (GB/s moved, fraction of the bandwidth, which bandwidth), last round
    f16_ratios = []  # per round: float16 over float32 decoding time, timed in turn by attn bench
    for rnd in range(ROUNDS):
        measure_peak()
        if do_sgemm:
            say(f"round {rnd + 1}/{ROUNDS}: sgemm ...")
            for r in attn_bench(attn, "--op", "matmul", "--sizes", sizes)["results"]:
                attn_t.setdefault(f"sgemm {r['shape'].split('x')[0]}^3", []).append((r["median"], r["user"] + r["system"]))
            for n in SGEMM_SIZES:
                for label, env in blas:
                    peer_t.setdefault((f"sgemm {n}^3", label), []).append(run_peer("sgemm", [n], env, label))
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
                        peer_t.setdefault((case, label), []).append(run_peer(kind, [ATTN_T, d, int(causal)], env, label))
        if do_heads:
            B, H, T, d = HEADS_SHAPE
            sizes_bhtt = f"{B}x{H}x{T}x{T}"
            for op, case, kind, label in (
                    ("attention", f"attention {B}x{H}x{T} d={d}", "torch-batched-attention", "PyTorch eager (B,H,T,d)"),
                    ("mha", f"mha {B}x{H}x{T} d={d}", "torch-mha", "nn.MultiheadAttention eval")):
                say(f"round {rnd + 1}/{ROUNDS}: {case} ...")
                r = attn_bench(attn, "--op", op, "--sizes", sizes_bhtt, "--d", str(d))["results"][0]
                heads_flops[case] = r["gflops"] * 1e9 * r["median"]
                attn_t.setdefault(case, []).append((r["median"], r["user"] + r["system"]))
                for env, suffix in (({}, ""), (skx, ", OpenBLAS SkylakeX")):
                    peer_t.setdefault((case, label + suffix), []).append(run_peer(kind, [B, H, T, d], env, label + suffix))
        if do_decode:
            # attn with float32 and with float16 K/V against the float32 peers on the same shape,
            # both in one bench run, timed in turn (so their ratio is from the same rounds);
            # --peak so that attn reports its GB/s as a fraction of the measured read bandwidth.
            say(f"round {rnd + 1}/{ROUNDS}: decode 1x{DECODE_TK} d={DECODE_D}, float32 and float16 K/V ...")
            out = attn_bench(attn, "--op", "attention", "--sizes", f"1x{DECODE_TK}", "--d", str(DECODE_D),
                             "--kv-dtype", "f32,f16", "--peak", repeat=max(REPEAT, 20))
            f16_ratios.append(out["results"][1]["ratio_to_first_of_shape"])
            for kv, r in zip(("f32", "f16"), out["results"]):
                case = f"decode 1x{DECODE_TK} d={DECODE_D}" + (" f16 K/V" if kv == "f16" else "")
                heads_flops[case] = 4.0 * DECODE_TK * DECODE_D
                attn_t.setdefault(case, []).append((r["median"], r["user"] + r["system"]))
                decode_info[case] = (r.get("gb_per_s_moved"), r.get("fraction_of_bandwidth"),
                                     r.get("bandwidth_compared"))
                for label, kind, env in (("PyTorch 1.13 eager (float32)", "torch-decode", {}),
                                         ("PyTorch eager, OpenBLAS SkylakeX", "torch-decode", skx),
                                         ("NumPy (float32)", "numpy-decode", {}),
                                         ("NumPy, OpenBLAS SkylakeX", "numpy-decode", skx)):
                    peer_t.setdefault((case, label), []).append(run_peer(kind, [DECODE_TK, DECODE_D], env, label))

    rows = []  # (case, attn median, flops, peer name, peer median)
    for (case, label), times in peer_t.items():
        if case.startswith("sgemm"):
            n = int(case.split()[1].rstrip("^3"))
            flops = 2.0 * n ** 3
        elif case in heads_flops:
            flops = heads_flops[case]
        else:  # 4*d per visible cell, as attn bench counts: T(T+1)/2 cells when causal
            d = int(case.split("d=")[1].split()[0])
            flops = 4.0 * d * (ATTN_T * (ATTN_T + 1) / 2 if "causal" in case else ATTN_T * ATTN_T)
        a, p = attn_t[case], times
        rows.append((case, median([w for w, _ in a]), median([c for _, c in a]), flops, label,
                     median([w for w, _ in p]), median([c for _, c in p])))

    print(f"attn vs peers — {platform.node()} ({os.cpu_count()} CPUs), {time.strftime('%Y-%m-%d %H:%M %Z')}, "
          f"arch {arch}, {THREADS} threads everywhere, medians of {REPEAT} runs x {ROUNDS} interleaved rounds")
    if peak_gflops:
        print(f"FMA peak ({arch}, {THREADS} threads, best of {ROUNDS}): {peak_gflops:.0f} GFLOP/s")
    print("FLOPs: sgemm 2n^3; attention 4*d per visible cell: 4*T^2*d, 4*d*T(T+1)/2 when causal (attn bench's count)\n")
    head = (f"| {'case':<30} | {'attn ms':>8} | {'attn GFLOP/s':>12} | {'% peak':>6} | {'peer':<32} | {'peer ms':>8} "
            f"| {'peer GFLOP/s':>12} | {'attn speed-up':>13} | {'per CPU-s':>9} |")
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for case, t, cpu, flops, peer, tp, cpup in rows:
        g, gp = flops / t * 1e-9, flops / tp * 1e-9
        frac = (f"{100 * g / peak_gflops:.0f}%" if peak_gflops and not any(w in case for w in ("mha", "decode"))
                else "-")
        print(f"| {case:<30} | {t * 1e3:8.1f} | {g:12.1f} | {frac:>6} | {peer:<32} | {tp * 1e3:8.1f} | {gp:12.1f} "
              f"| {tp / t:12.2f}x | {cpup / cpu:8.2f}x |")
    print("\nattn speed-up = peer median / attn median (wall clock). per CPU-s = the same ratio in CPU time of all")
    print("threads: steadier on a shared machine, but it charges busy-waiting threads (OpenBLAS spins) as work.")
    print("mha FLOPs count the projections too (attn bench's flops_note); no % of peak for them.")
    print("BLAS each peer loaded (threadpoolctl; OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset unless the label says):")
    for label, info in blas_kernels.items():
        print(f"  {label}: {info}")
    for case, (gbps, frac, which) in decode_info.items():
        if gbps:
            print(f"attn {case}: {gbps:.1f} GB/s moved (K, V, q, output; last round)" +
                  (f", {100 * frac:.0f}% of the measured read bandwidth ({which})" if frac else ""))
    if f16_ratios:
        print(f"attn float16 K/V speed-up over float32, decode 1x{DECODE_TK} d={DECODE_D}: "
              f"{1 / median(f16_ratios):.2f}x (timed in turn in each bench run; per round: "
              + ", ".join(f"{1 / x:.2f}x" for x in f16_ratios) + ")")
    # causal vs non-causal for attn itself (skipping must show)
    for d in ATTN_DS if do_attention else []:
        nc = median([w for w, _ in attn_t[f"attention T={ATTN_T} d={d}"]])
        c = median([w for w, _ in attn_t[f"attention T={ATTN_T} d={d} causal"]])
        print(f"attn causal speed-up over non-causal, T={ATTN_T} d={d}: {nc / c:.2f}x")
    if ONLY == "all":
        io_section(attn)
        additive_section(attn)


# ONLY's values (ggml: compare_ggml.py alone, which compare.sh runs).
SECTIONS = ("all", "sgemm", "attention", "heads", "decode", "additive", "io", "model", "ggml")

if __name__ == "__main__":
    if ONLY not in SECTIONS:
        sys.exit(f"ONLY={ONLY}: expected one of {', '.join(SECTIONS)}")
    if sys.argv[1:] != ["--check-only"]:  # compare.sh checks ONLY so before it installs the peers
        main()
