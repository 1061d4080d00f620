"""End-to-end figures of issue 4: compile times, and run times beside numpy in the same run.

* compile time of examples/matmul_f32.mlir and examples/mlp.mlir (``rt.compile``, host llvm-cpu)
* run time of the MLP (batch 64, 784-512-512-10, bias + relu) on local-task://llvm-cpu
* run time of exp(a*b+c) over 4M f32 (benchmarks/programs/exp_fma.mlir) on local-task://llvm-cpu

Each run time is the median (and best) of ``--repeat`` calls after a warm-up call (numpy arrays
in, numpy out: the figure includes argument upload and result download, as a user of
``rt.load`` sees it). The ``dispatches (trace)`` rows add up the time the program's dispatches
took inside the device queue per call (``rt.Tracer``), without the host side of the call.

Usage: python benchmarks/compiler_e2e.py [--repeat N] [--json OUT]
"""
import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

import rt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ms(fn, repeat):
    """(median, best) milliseconds of ``repeat`` calls after a warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, min(times) * 1e3


def _dispatch_ms(tracer, calls):
    """(median, best) over the last ``calls`` calls of the summed dispatch times per call."""
    per_call, current = [], 0.0
    for event in tracer.events:  # each call's EXEC zone completes after its dispatches
        if event.get("ph") != "X":
            continue
        if event["name"].startswith("EXEC @"):
            per_call.append(current)
            current = 0.0
        elif "_dispatch_" in event["name"] and ":" not in event["name"]:
            current += event["dur"] / 1e3
    tail = per_call[-calls:]
    return statistics.median(tail), min(tail)


def _compile_s(path, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        vmfb = rt.compile(path, devices=["llvm-cpu"])
        times.append(time.perf_counter() - t0)
    return statistics.median(times), vmfb


def _mlp_numpy(x, w1, b1, w2, b2, w3, b3):
    h = np.maximum(x @ w1 + b1, 0)
    h = np.maximum(h @ w2 + b2, 0)
    return h @ w3 + b3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = []
    rng = np.random.default_rng(0)

    for name in ("matmul_f32", "mlp"):
        secs, _ = _compile_s(os.path.join(ROOT, "examples", f"{name}.mlir"), 3)
        rows.append((f"compile {name}.mlir", "rt.compile llvm-cpu", secs * 1e3, None, "ms"))

    _, vmfb = _compile_s(os.path.join(ROOT, "examples", "mlp.mlir"), 1)
    tracer = rt.Tracer()
    m = rt.load(vmfb, devices=["local-task://llvm-cpu"], tracer=tracer)
    shapes = [(64, 784), (784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
    mlp_args = [rng.standard_normal(s, dtype=np.float32) * 0.05 for s in shapes]
    got = m.mlp(*mlp_args)
    want = _mlp_numpy(*mlp_args)
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4), "MLP result differs from numpy"
    rows.append(("MLP 64x784-512-512-10", "rt local-task://llvm-cpu",
                 *_ms(lambda: m.mlp(*mlp_args), args.repeat), "ms"))
    rows.append(("MLP 64x784-512-512-10", "rt dispatches (trace)",
                 *_dispatch_ms(tracer, args.repeat), "ms"))
    rows.append(("MLP 64x784-512-512-10", "numpy", *_ms(lambda: _mlp_numpy(*mlp_args), args.repeat),
                 "ms"))
    m.close()

    _, vmfb = _compile_s(os.path.join(ROOT, "benchmarks", "programs", "exp_fma.mlir"), 1)
    tracer = rt.Tracer()
    m = rt.load(vmfb, devices=["local-task://llvm-cpu"], tracer=tracer)
    n = 4 * 1024 * 1024
    a, b, c = (rng.standard_normal(n, dtype=np.float32) * 0.5 for _ in range(3))
    got = m.exp_fma(a, b, c)
    want = np.exp(a * b + c)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6), "exp(a*b+c) differs from numpy"
    rows.append(("exp(a*b+c) 4M f32", "rt local-task://llvm-cpu",
                 *_ms(lambda: m.exp_fma(a, b, c), args.repeat), "ms"))
    rows.append(("exp(a*b+c) 4M f32", "rt dispatches (trace)", *_dispatch_ms(tracer, args.repeat),
                 "ms"))
    rows.append(("exp(a*b+c) 4M f32", "numpy", *_ms(lambda: np.exp(a * b + c), args.repeat), "ms"))
    m.close()

    print(f"rt end-to-end benchmark ({platform.machine()}, {time.strftime('%Y-%m-%d')}, "
          f"median and best of {args.repeat})")
    print(f"{'case':32s} {'setting':28s} {'median':>10s} {'best':>10s}  unit")
    for case, setting, value, best, unit in rows:
        best_text = f"{best:10.3f}" if best is not None else f"{'':10s}"
        print(f"{case:32s} {setting:28s} {value:10.3f} {best_text}  {unit}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(case=c, setting=s, value=v, best=b, unit=u) for c, s, v, b, u in rows],
                      f, indent=1)


if __name__ == "__main__":
    main()
