"""rt beside PyTorch CPU, JAX XLA:CPU and IREE 3.13 at 1, 2, 4, 8, 16 threads (issue 22).

Cases (f32): ``matmul1024`` / ``matmul2048`` (N^3), ``bmm`` batch_matmul 16x256^3, ``mlp``
64x784-512-512-10 (bias + relu), ``conv`` 3x3 56x56x64->64 (NHWC input pre-padded to 58x58,
HWCF filter), ``encoder`` a transformer encoder layer (sequence 128, model 256, 4 heads, FFN
512, post-norm, exact GELU), ``encoder_ffn1024`` the same with FFN 1024 and ``encoder_s512``
with 512 tokens and FFN 1024. rt and IREE compile the linalg programs of
``benchmarks/programs`` and ``examples`` (IREE with ``--iree-opt-data-tiling
--iree-llvmcpu-target-cpu=host``), and the encoder from the StableHLO JAX exports of it; PyTorch
and JAX run the same math with their own kernels.

For each thread count N (1, 2, 4, ... up to the CPUs this process may use, or ``--threads``)
one worker process per runtime is started, pinned to the first N of those CPUs
(``sched_setaffinity``) and told to use N threads: rt ``local-task://llvm-cpu?threads=N``,
IREE ``--task_topology_group_count=N``, ``torch.set_num_threads(N)``, XLA
``intra_op_parallelism_threads=N``. Every rt result is checked against PyTorch's. Timing
rounds are interleaved across the workers (per round: the median of ``--calls`` calls of each
runtime); a figure is the median over ``--rounds`` rounds and a ratio is taken per round, so
on a shared machine the ratios come from the same moments.

PyTorch (CPU wheel) and JAX 0.10.2 are installed by this script into a throwaway virtual
environment (``--venv``, default ``~/.cache/rt-cpu-scaling-venv``), never rt dependencies;
IREE 3.13 comes from ``benchmarks/iree_peer.py`` and is skipped when it cannot be installed
(``--no-iree`` skips it always).

    python benchmarks/cpu_scaling.py [--threads 1,2] [--only mlp,bmm] [--rounds 5] [--calls 5]
        [--json OUT] [--venv DIR] [--torch-spec torch] [--no-iree]
"""
import argparse
import functools
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
JAX_PINS = ["jax==0.10.2", "jaxlib==0.10.2"]
#: the encoder layers: sequence, model width, heads, FFN width
ENCODERS = {"encoder": dict(seq=128, d=256, heads=4, ffn=512),
            "encoder_ffn1024": dict(seq=128, d=256, heads=4, ffn=1024),
            "encoder_s512": dict(seq=512, d=256, heads=4, ffn=1024)}


def _encoder_shapes(seq, d, heads, ffn):
    return [(seq, d)] + [(d, d)] * 4 + [(d,)] * 2 + [(d, ffn), (ffn, d)]


#: case: (rt/IREE program or None for the JAX export, function, input shapes)
CASES = {
    "matmul1024": ("examples/matmul_f32.mlir", "foo", [(1024, 1024), (1024, 1024)]),
    "matmul2048": ("examples/matmul_f32.mlir", "foo", [(2048, 2048), (2048, 2048)]),
    "bmm": ("benchmarks/programs/batch_matmul_16x256.mlir", "bmm", [(16, 256, 256)] * 2),
    "mlp": ("examples/mlp.mlir", "mlp", [(64, 784), (784, 512), (512,), (512, 512), (512,),
                                         (512, 10), (10,)]),
    "conv": ("benchmarks/programs/conv_3x3_56x56x64.mlir", "conv", [(1, 58, 58, 64), (3, 3, 64, 64)]),
    **{name: (None, "main", _encoder_shapes(**cfg)) for name, cfg in ENCODERS.items()},
}


def inputs(case):
    """The case's inputs (the same arrays in every worker: fixed seed, scaled normals)."""
    rng = np.random.default_rng(22)
    return [(rng.standard_normal(s) * 0.1).astype(np.float32) for s in CASES[case][2]]


# -- the math of each case, for PyTorch and JAX ---------------------------------------------------

def _torch_fns(torch):
    F = torch.nn.functional

    def conv(x, w):  # NHWC x HWCF -> NHWC, as the rt program computes it
        y = F.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1))
        return y.permute(0, 2, 3, 1)

    def norm(x, g, b):
        return F.layer_norm(x, x.shape[-1:], g, b, 1e-5)

    def encoder(cfg, x, wq, wk, wv, wo, g, b, w1, w2):
        s, d, h = cfg["seq"], cfg["d"], cfg["heads"]
        q, k, v = ((x @ w).reshape(s, h, d // h).transpose(0, 1) for w in (wq, wk, wv))
        att = torch.softmax(q @ k.transpose(1, 2) / (d // h) ** 0.5, dim=-1) @ v
        y = norm(x + att.transpose(0, 1).reshape(s, d) @ wo, g, b)
        return norm(y + F.gelu(y @ w1) @ w2, g, b)

    return {
        "matmul1024": lambda a, b: a @ b, "matmul2048": lambda a, b: a @ b,
        "bmm": torch.bmm, "conv": conv,
        **{name: functools.partial(encoder, cfg) for name, cfg in ENCODERS.items()},
        "mlp": lambda x, w1, b1, w2, b2, w3, b3: (
            torch.relu(torch.relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3),
    }


def _jax_fns(jax):
    jnp = jax.numpy

    def norm(x, g, b):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / jnp.sqrt(var + 1e-5) * g + b

    def encoder(cfg, x, wq, wk, wv, wo, g, b, w1, w2):
        s, d, h = cfg["seq"], cfg["d"], cfg["heads"]
        q, k, v = (jnp.transpose((x @ w).reshape(s, h, d // h), (1, 0, 2)) for w in (wq, wk, wv))
        scores = q @ jnp.transpose(k, (0, 2, 1)) / np.float32((d // h) ** 0.5)
        att = jax.nn.softmax(scores, axis=-1) @ v
        y = norm(x + jnp.transpose(att, (1, 0, 2)).reshape(s, d) @ wo, g, b)
        return norm(y + jax.nn.gelu(y @ w1, approximate=False) @ w2, g, b)

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "VALID",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    return {
        "matmul1024": jnp.matmul, "matmul2048": jnp.matmul, "bmm": jnp.matmul, "conv": conv,
        **{name: functools.partial(encoder, cfg) for name, cfg in ENCODERS.items()},
        "mlp": lambda x, w1, b1, w2, b2, w3, b3: (
            jax.nn.relu(jax.nn.relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3),
    }


# -- workers: one process per runtime, pinned to N CPUs, driven line by line over stdin --------

def _engine(name, threads, work):
    """{case: callable()} builder for ``name`` in this worker process."""
    if name == "torch":
        import torch

        torch.set_num_threads(threads)
        fns = _torch_fns(torch)

        def build(case):
            args = [torch.from_numpy(a) for a in inputs(case)]
            fn = fns[case]
            return lambda: fn(*args).numpy()
        return build, f"torch {torch.__version__}"
    if name == "jax":
        import jax

        fns = _jax_fns(jax)

        def build(case):
            args = [jax.device_put(a) for a in inputs(case)]
            fn = jax.jit(fns[case])
            if case in ENCODERS:  # rt and IREE compile the same program from its StableHLO
                (work / f"{case}.mlir").write_text(fn.lower(*args).as_text())
            return lambda: np.asarray(fn(*args).block_until_ready())
        return build, f"jax {jax.__version__}"
    sys.path.insert(0, str(HERE))
    if name == "rt":
        import rt

        def build(case):
            path, fn, _ = CASES[case]
            text = (work / f"{case}.mlir").read_text() if path is None else (ROOT / path).read_text()
            module = rt.load(rt.compile(text, devices=["llvm-cpu"]),
                             devices=[f"local-task://llvm-cpu?threads={threads}"])
            f, args = getattr(module, fn), inputs(case)
            return lambda: np.asarray(f(*args))
        return build, f"rt {getattr(rt, '__version__', '')}".strip()
    from iree_peer import iree_module, load_iree

    ic, ireert = load_iree()
    ireert.flags.parse_flags(f"--task_topology_group_count={threads}")
    keep = []

    def build(case):
        path, fn, _ = CASES[case]
        text = (work / f"{case}.mlir").read_text() if path is None else (ROOT / path).read_text()
        text = text.replace("module @jit_encoder", "module @module", 1)  # iree_module's name
        vmfb = ic.compile_str(text, target_backends=["llvm-cpu"],
                              input_type="stablehlo" if path is None else "auto",
                              extra_args=["--iree-opt-data-tiling", "--iree-llvmcpu-target-cpu=host"])
        module, ctx = iree_module(ireert, vmfb, "local-task")
        keep.append(ctx)
        f, args = module[fn], inputs(case)
        return lambda: np.asarray(f(*args))
    return build, "iree 3.13"


def worker(name, threads, work):
    """Serve ``build CASE`` (run once, save the result to WORK/<name>.<case>.npy) and
    ``time CASE CALLS`` (median seconds of CALLS calls) until stdin closes."""
    builder, version = _engine(name, threads, pathlib.Path(work))
    print(json.dumps({"version": version}), flush=True)
    built = {}
    for line in sys.stdin:
        cmd, case, *rest = line.split()
        try:
            if cmd == "build":
                built[case] = builder(case)
                np.save(os.path.join(work, f"{name}.{case}.npy"), built[case]())
                print(json.dumps({"ok": True}), flush=True)
            else:
                fn, times = built[case], []
                for _ in range(int(rest[0])):
                    start = time.perf_counter()
                    fn()
                    times.append(time.perf_counter() - start)
                print(json.dumps({"s": statistics.median(times)}), flush=True)
        except Exception as e:  # noqa: BLE001 - reported to the coordinator as this case's failure
            print(json.dumps({"error": f"{type(e).__name__}: {e}"[:400]}), flush=True)


# -- the coordinator ------------------------------------------------------------------------------

def venv_python(path, torch_spec):
    """The throwaway environment's python with torch (CPU) and JAX 0.10.2, installed if needed."""
    python = os.path.join(path, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", path], check=True)
    probe = "import torch, jax; assert jax.__version__ == '0.10.2'"
    if subprocess.run([python, "-c", probe], capture_output=True).returncode == 0:
        return python
    pip = [python, "-m", "pip", "install", "-q"]
    if subprocess.run(pip + ["--timeout", "20", "--retries", "0", "--index-url", CPU_INDEX,
                             torch_spec], capture_output=True).returncode != 0:
        subprocess.run(pip + [torch_spec], check=True)
    subprocess.run(pip + JAX_PINS, check=True)
    return python


class Worker:
    def __init__(self, name, python, cpus, work):
        env = dict(os.environ, XLA_FLAGS=f"--xla_cpu_multi_thread_eigen=true "
                                         f"intra_op_parallelism_threads={len(cpus)}",
                   OMP_NUM_THREADS=str(len(cpus)), OMP_WAIT_POLICY="PASSIVE")
        self.name = name
        self.proc = subprocess.Popen(
            [python, __file__, "--worker", name, "--worker-threads", str(len(cpus)), "--work", work],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=str(ROOT),
            preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        self.version = self._reply().get("version", "?")

    def _reply(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} worker exited (rc {self.proc.wait()})")
        return json.loads(line)

    def ask(self, *words):
        self.proc.stdin.write(" ".join(map(str, words)) + "\n")
        self.proc.stdin.flush()
        reply = self._reply()
        if "error" in reply:
            raise RuntimeError(f"{self.name} {words[0]} {words[1]}: {reply['error']}")
        return reply

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def measure(threads, cases, engines, python, args, work):
    """{case: {engine: [seconds per round]}} at ``threads`` threads; results checked."""
    cpus = sorted(os.sched_getaffinity(0))[:threads]
    workers = {}
    for name in engines:
        try:
            workers[name] = Worker(name, sys.executable if name in ("rt", "iree") else python,
                                   cpus, work)
        except RuntimeError as e:
            print(f"# {name} unavailable at {threads} threads: {e}", flush=True)
    order = [n for n in ("jax", "torch", "rt", "iree") if n in workers]  # jax writes the encoder
    rows = {}
    for case in cases:
        ok = []
        for name in order:
            try:
                workers[name].ask("build", case)
                ok.append(name)
            except RuntimeError as e:
                print(f"# {e}", flush=True)
        want = np.load(os.path.join(work, f"torch.{case}.npy"))
        for name in ok:
            got = np.load(os.path.join(work, f"{name}.{case}.npy"))
            err = float(np.max(np.abs(got - want)) / max(1.0, float(np.max(np.abs(want)))))
            if err > 1e-3:
                raise SystemExit(f"{case}: {name} differs from torch by {err:.2e} (relative)")
        rows[case] = {name: [] for name in ok}
        for _ in range(args.rounds):
            for name in ok:
                rows[case][name].append(workers[name].ask("time", case, args.calls)["s"])
    versions = {name: w.version for name, w in workers.items()}
    for w in workers.values():
        w.close()
    return rows, versions


def _ratio(rounds, a, b):
    if a not in rounds or b not in rounds:
        return None
    return statistics.median(x / y for x, y in zip(rounds[a], rounds[b]))


def report(results, engines):
    counts = sorted(results)
    print(f"\n# cpu_scaling: {platform.processor() or platform.machine()}, "
          f"{len(os.sched_getaffinity(0))} CPUs, {time.strftime('%Y-%m-%d')}; ms per call "
          f"(median of rounds), rt/peer ratios per round (median)")
    head = ["case", "threads"] + [f"{e} ms" for e in engines] + [f"rt/{e}" for e in engines if e != "rt"]
    print("  ".join(f"{h:>11}" for h in head))
    for case in results[counts[0]][0]:
        for n in counts:
            rounds = results[n][0].get(case, {})
            cells = [f"{statistics.median(rounds[e]) * 1e3:.3f}" if e in rounds else "-" for e in engines]
            cells += [f"{r:.2f}" if (r := _ratio(rounds, "rt", e)) is not None else "-"
                      for e in engines if e != "rt"]
            print("  ".join(f"{c:>11}" for c in [case, str(n)] + cells))
        if len(counts) > 1:
            first, last = results[counts[0]][0].get(case, {}), results[counts[-1]][0].get(case, {})
            ups = [f"{e} {statistics.median(first[e]) / statistics.median(last[e]):.2f}x"
                   for e in engines if e in first and e in last]
            print(f"{'':>11}  speed-up {counts[0]}->{counts[-1]} threads: {', '.join(ups)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="", help="comma-separated thread counts (default 1, 2, "
                    "4, 8, 16 up to this process's CPUs)")
    ap.add_argument("--only", default="", help="comma-separated cases: " + ",".join(CASES))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=5, help="calls per round per runtime")
    ap.add_argument("--json", default=None)
    ap.add_argument("--venv", default=os.path.expanduser("~/.cache/rt-cpu-scaling-venv"))
    ap.add_argument("--torch-spec", default="torch", help="pip requirement for PyTorch")
    ap.add_argument("--no-iree", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.worker_threads, args.work)
    ncpu = len(os.sched_getaffinity(0))
    counts = ([int(t) for t in args.threads.split(",")] if args.threads
              else [n for n in (1, 2, 4, 8, 16) if n <= ncpu])
    cases = [c for c in args.only.split(",") if c] or list(CASES)
    unknown = sorted(set(cases) - set(CASES)) + [n for n in counts if not 1 <= n <= ncpu]
    if unknown:
        raise SystemExit(f"unknown case or thread count {unknown}; cases {list(CASES)}, "
                         f"threads 1..{ncpu}")
    python = venv_python(args.venv, args.torch_spec)
    engines = ["rt", "torch", "jax"] + ([] if args.no_iree else ["iree"])
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for n in counts:
            results[n] = measure(n, cases, engines, python, args, work)
            print(f"# {n} threads done: {results[n][1]}", flush=True)
    report(results, engines)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": platform.processor(), "cpus": ncpu, "date": time.strftime("%Y-%m-%d"),
                       "results": {n: {"rounds": r, "versions": v} for n, (r, v) in results.items()}},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
