"""matmul_f32 (examples/matmul_f32.mlir) with and without data tiling, beside numpy.

Compiles the bundled dynamic-shape matmul twice for ``llvm-cpu`` (this host's CPU):
with data tiling (set-encoding -> pack LHS, pack RHS, fill + mmt4d, unpack: four dispatches)
and with ``data_tiling=False`` (one matmul dispatch), runs both on ``local-task://llvm-cpu``
and times ``numpy.matmul`` on the same inputs in the same process. Figures: median of
``--calls`` calls (after one warm-up call) in milliseconds and GFLOP/s (2*M*N*K / time).

    python benchmarks/data_tiling.py [--size 1024] [--calls 10] [--json out.json]
"""
import argparse
import json
import pathlib
import platform
import statistics
import time

import numpy as np

import rt

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "matmul_f32.mlir"


def _median_seconds(fn, calls):
    fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(size, calls, device):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = rng.standard_normal((size, size)).astype(np.float32)
    flops = 2.0 * size ** 3
    rows = []
    for label, tiling in (("rt data-tiled (mmt4d)", True), ("rt no data tiling", False)):
        vmfb = rt.compile(str(EXAMPLE), devices=["llvm-cpu"], data_tiling=tiling)
        with rt.load(vmfb, devices=[device]) as module:
            result = module.foo(a, b)
            error = float(np.abs(result - a @ b).max())
            seconds = _median_seconds(lambda: module.foo(a, b), calls)
        rows.append({"config": label, "ms": seconds * 1e3, "gflops": flops / seconds / 1e9, "max_abs_err": error})
    seconds = _median_seconds(lambda: a @ b, calls)
    rows.append({"config": "numpy.matmul", "ms": seconds * 1e3, "gflops": flops / seconds / 1e9, "max_abs_err": 0.0})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="M = N = K (default 1024)")
    parser.add_argument("--calls", type=int, default=10, help="timed calls per configuration")
    parser.add_argument("--device", default="local-task://llvm-cpu")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    rows = run(args.size, args.calls, args.device)
    print(f"matmul_f32 {args.size}x{args.size}x{args.size} on {args.device} ({platform.processor() or platform.machine()})")
    print(f"{'config':<24} {'median ms':>10} {'GFLOP/s':>9} {'max |err|':>10}")
    for row in rows:
        print(f"{row['config']:<24} {row['ms']:>10.2f} {row['gflops']:>9.1f} {row['max_abs_err']:>10.2e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"size": args.size, "calls": args.calls, "device": args.device, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
