"""Benchmark: µs per call of an empty exported VM function from Python.

Measures ``f()`` for an empty ``0v_v`` function and ``f(x)`` for a ``0i_i`` identity.
Usage: ``python benchmarks/vm_call.py [--calls N] [--json OUT]``.
"""
import argparse
import json
import time

from rt.runtime.vm import Context, Instance, Module, ModuleBuilder


def build():
    mb = ModuleBuilder("bench")
    fb = mb.function("empty", "0v_v", export=True)
    fb.return_([])
    fb = mb.function("ident", "0i_i", export=True)
    fb.return_(list(fb.args))
    ctx = Context(Instance(), [Module.from_bytes(mb.build())])
    return ctx.lookup_function("bench.empty"), ctx.lookup_function("bench.ident")


def _time(fn, args, calls, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e6


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--calls", type=int, default=200_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", help="write results to this JSON file")
    args = p.parse_args(argv)
    empty, ident = build()
    assert empty() is None and ident(7) == 7
    rows = [
        {"benchmark": "vm_call empty 0v_v", "us_per_call": _time(empty, (), args.calls, args.repeats)},
        {"benchmark": "vm_call ident 0i_i", "us_per_call": _time(ident, (7,), args.calls, args.repeats)},
    ]
    print(f"{'benchmark':<22} {'µs/call':>9}")
    for r in rows:
        print(f"{r['benchmark']:<22} {r['us_per_call']:>9.3f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
