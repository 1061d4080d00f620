"""Benchmark: cost of the Python API (rt.load'ed modules) over the raw VM call.

Rows (best of ``--repeats``, µs per call):
* scalar ``add_i32``: ``m.add_i32(2, 3)`` (ABI checks + VM call) vs the raw VM Function;
* tensor ``identity`` with N f32 elements: 64-byte aligned input (zero-copy upload) vs an
  unaligned one (copied), result copied out because it aliases the input;
* ``add`` dispatching the vmvx elementwise add over N elements, on local-sync and local-task.
Usage: ``python benchmarks/api_call.py [--calls N] [--repeats R] [--json OUT]``.
"""
import argparse
import json
import time

import numpy as np

import rt
from rt import testing


def _time(fn, calls, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e6


def _aligned(n, offset=0):
    raw = np.zeros(n * 4 + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    return raw[start:start + n * 4].view(np.float32).reshape(-1, 4)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", help="write results to this JSON file")
    args = p.parse_args(argv)
    rows = []

    def row(name, fn, calls=args.calls):
        rows.append({"benchmark": name, "us_per_call": _time(fn, calls, args.repeats)})

    with rt.load(testing.basic_module()) as m:
        raw = m.context.lookup_function("basic.add_i32")
        assert m.add_i32(2, 3) == raw(2, 3) == 5
        row("scalar add_i32: rt API", lambda: m.add_i32(2, 3))
        row("scalar add_i32: raw VM call", lambda: raw(2, 3))
        for n in (1024, 1 << 20):
            calls = max(10, args.calls * 1024 // n)
            aligned, unaligned = _aligned(n), _aligned(n, offset=16)
            row(f"identity {n} f32, aligned input", lambda: m.identity(aligned), calls)
            row(f"identity {n} f32, unaligned input", lambda: m.identity(unaligned), calls)
    for uri in ("local-sync://vmvx", "local-task://vmvx"):
        with rt.load(testing.add_module(), devices=[uri]) as m:
            for n in (64, 1 << 16):
                a, b = np.ones(n, np.float32), np.ones(n, np.float32)
                assert m.add(a, b)[0] == 2.0
                row(f"add {n} f32 on {uri}", lambda: m.add(a, b), max(10, args.calls // 4))

    print(f"{'benchmark':<46} {'µs/call':>10}")
    for r in rows:
        print(f"{r['benchmark']:<46} {r['us_per_call']:>10.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
