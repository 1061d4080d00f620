"""Benchmark: ns per VM instruction on a 10M-iteration bytecode loop.

The loop body is 4 simple instructions (add.i64, add.i64, cmp.lt.i64.s, cond_br), so 10M
iterations run 40M instructions. Usage: ``python benchmarks/vm_interp.py [--iterations N] [--json OUT]``.
"""
import argparse
import json
import platform
import time

from rt.runtime.vm import Context, Instance, Module, ModuleBuilder


def build_loop():
    mb = ModuleBuilder("bench")
    fb = mb.function("loop", "0I_I", export=True)
    (n,) = fb.args
    i, acc, one, c = fb.reg("i64"), fb.reg("i64"), fb.reg("i64"), fb.reg("i32")
    head, out = fb.label(), fb.label()
    fb.const_i64_zero(i)
    fb.const_i64_zero(acc)
    fb.const_i64(one, 1)
    fb.bind(head)
    fb.add_i64(acc, acc, i)
    fb.add_i64(i, i, one)
    fb.cmp_lt_i64_s(c, i, n)
    fb.cond_br(c, head, out)
    fb.bind(out)
    fb.return_([acc])
    return Context(Instance(), [Module.from_bytes(mb.build())]).lookup_function("bench.loop")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--iterations", type=int, default=10_000_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", help="write results to this JSON file")
    args = p.parse_args(argv)
    f = build_loop()
    n = args.iterations
    assert f(1000) == 999 * 1000 // 2
    best = float("inf")
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        result = f(n)
        best = min(best, time.perf_counter() - t0)
    assert result == n * (n - 1) // 2
    instructions = 4 * n
    row = {"benchmark": "vm_interp", "iterations": n, "instructions": instructions, "seconds": best,
           "ns_per_instruction": best / instructions * 1e9, "machine": platform.processor() or platform.machine()}
    print(f"{'benchmark':<12} {'iterations':>12} {'instructions':>14} {'best s':>9} {'ns/instr':>9}")
    print(f"{'vm_interp':<12} {n:>12} {instructions:>14} {best:>9.4f} {row['ns_per_instruction']:>9.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(row, fh, indent=2)


if __name__ == "__main__":
    main()
