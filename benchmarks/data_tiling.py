"""matmul_f32 (examples/matmul_f32.mlir) with and without data tiling, beside numpy.

Compiles the bundled dynamic-shape matmul twice for ``llvm-cpu`` (this host's CPU):
with data tiling (set-encoding -> pack LHS, pack RHS, mmt4d, unpack: four dispatches)
and with ``data_tiling=False`` (one matmul dispatch), runs both on ``local-task://llvm-cpu``
and times ``numpy.matmul`` on the same inputs in the same process (last, as OpenBLAS threads
keep spinning after a call). Figures: median and best of ``--calls`` calls (after one warm-up
call) in milliseconds and GFLOP/s (2*M*N*K / time).
A second table gives each dispatch of the data-tiled program (median and best over the
same number of calls, from the HAL trace: ``rt.Tracer``), the time inside the device queue.

    python benchmarks/data_tiling.py [--size 1024] [--calls 20] [--json out.json]
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
CONFIGS = (("rt data-tiled (mmt4d)", True), ("rt no data tiling", False))


def _dispatch_rows(tracer, calls):
    """(name, median ms, best ms) per dispatch over the last ``calls`` calls of the trace."""
    times = {}
    for event in tracer.events:
        if event.get("ph") == "X" and "_dispatch_" in event["name"] and ":" not in event["name"]:
            times.setdefault(event["name"], []).append(event["dur"] / 1e3)
    return [(name, statistics.median(ts[-calls:]), min(ts[-calls:])) for name, ts in times.items()]


def _times(fn, a, b, calls):
    """Seconds of ``calls`` calls after one warm-up call; the last result."""
    result = fn(a, b)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        result = fn(a, b)
        times.append(time.perf_counter() - start)
    return times, result


def run(size, calls, device):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = rng.standard_normal((size, size)).astype(np.float32)
    flops = 2.0 * size ** 3
    tracer = rt.Tracer()
    times, results = {}, {}
    for label, tiling in CONFIGS:
        vmfb = rt.compile(str(EXAMPLE), devices=["llvm-cpu"], data_tiling=tiling)
        with rt.load(vmfb, devices=[device], tracer=tracer if tiling else None) as module:
            times[label], results[label] = _times(module.foo, a, b, calls)
    # numpy last: OpenBLAS threads spin for a while after each call and would slow rt down.
    times["numpy.matmul"], want = _times(lambda x, y: x @ y, a, b, calls)
    results["numpy.matmul"] = want
    rows = [{"config": label, "ms": statistics.median(ts) * 1e3, "best_ms": min(ts) * 1e3,
             "gflops": flops / statistics.median(ts) / 1e9, "best_gflops": flops / min(ts) / 1e9,
             "max_abs_err": float(np.abs(results[label] - want).max())}
            for label, ts in times.items()]
    dispatches = [{"dispatch": name, "ms": med, "best_ms": best}
                  for name, med, best in _dispatch_rows(tracer, calls)]
    return rows, dispatches


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="M = N = K (default 1024)")
    parser.add_argument("--calls", type=int, default=20, help="timed calls per configuration")
    parser.add_argument("--device", default="local-task://llvm-cpu")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    rows, dispatches = run(args.size, args.calls, args.device)
    print(f"matmul_f32 {args.size}x{args.size}x{args.size} on {args.device} "
          f"({platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')})")
    print(f"{'config':<24} {'median ms':>10} {'best ms':>8} {'GFLOP/s':>8} {'best':>7} "
          f"{'max |err|':>10}")
    for row in rows:
        print(f"{row['config']:<24} {row['ms']:>10.2f} {row['best_ms']:>8.2f} "
              f"{row['gflops']:>8.1f} {row['best_gflops']:>7.1f} {row['max_abs_err']:>10.2e}")
    print(f"\n{'data-tiled dispatch':<40} {'median ms':>10} {'best ms':>8}")
    for row in dispatches:
        print(f"{row['dispatch']:<40} {row['ms']:>10.3f} {row['best_ms']:>8.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"size": args.size, "calls": args.calls, "device": args.device,
                       "date": time.strftime("%Y-%m-%d"), "rows": rows, "dispatches": dispatches},
                      f, indent=2)


if __name__ == "__main__":
    main()
