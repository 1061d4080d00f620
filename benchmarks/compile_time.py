"""Compile time and module size against iree-compile 3.13, side by side in one run (issue 8).

The program: an N-layer chain ``x = tanh(x @ W_i + b_i)`` with 64x256 f32 activations and the
256x256 weights and 256 biases as function arguments (so nothing is constant-folded), for
N = 10, 20, 40, 80, 160. rt compiles with ``rt.compile(text, devices=["llvm-cpu"])`` (data
tiling on, host CPU) in this process; IREE with ``iree.compiler.compile_str(text,
target_backends=["llvm-cpu"], extra_args=["--iree-opt-data-tiling",
"--iree-llvmcpu-target-cpu=host"])``, which runs iree-compile. Each N is timed in interleaved
rounds (benchmarks/iree_peer.compare: the median of per-round ratios), and the CPU seconds of
each side are reported too (rt: this process and its children, i.e. the translation workers;
IREE: the iree-compile child), since wall time on a shared machine is noisy.

Columns: wall seconds (median), CPU seconds (best), module bytes, and rt/IREE ratios; the
``growth`` columns give t(N) / t(N / 2) (2.0 is linear). The smallest N's module is run once
on local-sync://llvm-cpu against numpy.

Usage: python benchmarks/compile_time.py [--layers 10,20,40,80,160] [--rounds 3] [--json OUT]
"""
import argparse
import json
import os
import resource
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iree_peer import compare, load_iree, machine  # noqa: E402

import rt  # noqa: E402

M, K = 64, 256


def chain(layers):
    """The N-layer matmul + bias + tanh chain as MLIR text."""
    args = [f"%x: tensor<{M}x{K}xf32>"] + [f"%w{i}: tensor<{K}x{K}xf32>, %b{i}: tensor<{K}xf32>"
                                          for i in range(layers)]
    lines = [f"func.func @chain({', '.join(args)}) -> tensor<{M}x{K}xf32> {{", "  %zero = arith.constant 0.0 : f32"]
    current = "%x"
    for i in range(layers):
        t = f"tensor<{M}x{K}xf32>"
        lines += [
            f"  %e{i} = tensor.empty() : {t}",
            f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {t}) -> {t}",
            f"  %m{i} = linalg.matmul ins({current}, %w{i} : {t}, tensor<{K}x{K}xf32>) outs(%f{i} : {t}) -> {t}",
            f"  %g{i} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
            "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} ins(%m{i}, %b{i} : {t}, tensor<{K}xf32>) "
            f"outs(%e{i} : {t}) {{",
            "  ^bb0(%a: f32, %b: f32, %o: f32):",
            "    %s = arith.addf %a, %b : f32",
            "    %h = math.tanh %s : f32",
            "    linalg.yield %h : f32",
            f"  }} -> {t}",
        ]
        current = f"%g{i}"
    lines += [f"  return {current} : tensor<{M}x{K}xf32>", "}"]
    return "\n".join(lines) + "\n"


def _cpu(fn, children):
    """(result, CPU seconds) of ``fn()``: this process's CPU time plus its children's, or only
    the children's (``children="only"``)."""
    before_self, before_children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    result = fn()
    after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after_children.ru_utime - before_children.ru_utime) + (after_children.ru_stime - before_children.ru_stime)
    own = time.process_time() - before_self
    return result, child if children == "only" else own + child


def _check(vmfb, layers):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((M, K)).astype(np.float32)
    params = [(rng.standard_normal((K, K)).astype(np.float32) / 16, rng.standard_normal(K).astype(np.float32))
              for _ in range(layers)]
    want = x
    for w, b in params:
        want = np.tanh(want @ w + b)
    with rt.load(vmfb, devices=["local-sync://llvm-cpu"]) as module:
        got = module.chain(x, *[a for pair in params for a in pair])
    return float(np.max(np.abs(got - want)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", default="10,20,40,80,160")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    ic, _ = load_iree()
    iree_args = ["--iree-opt-data-tiling", "--iree-llvmcpu-target-cpu=host"]
    rows = []
    for layers in [int(n) for n in args.layers.split(",")]:
        text = chain(layers)
        sides = {"rt": lambda: rt.compile(text, devices=["llvm-cpu"]),
                 "iree": lambda: ic.compile_str(text, target_backends=["llvm-cpu"], extra_args=iree_args)}
        times = compare(sides, rounds=args.rounds, n=1)
        rt_vmfb, rt_cpu = min((_cpu(sides["rt"], "all") for _ in range(2)), key=lambda r: r[1])
        iree_vmfb, iree_cpu = min((_cpu(sides["iree"], "only") for _ in range(2)), key=lambda r: r[1])
        row = {"layers": layers, "rt_s": times["rt"], "iree_s": times["iree"], "wall_ratio": times["rt/iree"],
               "rt_cpu_s": rt_cpu, "iree_cpu_s": iree_cpu, "cpu_ratio": rt_cpu / iree_cpu,
               "rt_bytes": len(rt_vmfb), "iree_bytes": len(iree_vmfb), "size_ratio": len(rt_vmfb) / len(iree_vmfb)}
        if not rows:
            row["max_abs_error"] = _check(rt_vmfb, layers)
        rows.append(row)
        print(f"  N={layers}: rt {row['rt_s']:.2f} s, IREE {row['iree_s']:.2f} s", file=sys.stderr)
    previous = {}
    for row in rows:
        half = previous.get(row["layers"] // 2) if row["layers"] % 2 == 0 else None
        row["rt_growth"] = row["rt_cpu_s"] / half["rt_cpu_s"] if half else None
        row["iree_growth"] = row["iree_cpu_s"] / half["iree_cpu_s"] if half else None
        previous[row["layers"]] = row
    print(f"compile time, {machine()}, load {os.getloadavg()[0]:.1f}, median of {args.rounds} interleaved rounds")
    print("| N | rt wall s | IREE wall s | wall rt/IREE | rt CPU s | IREE CPU s | CPU rt/IREE "
          "| growth rt / IREE | rt bytes | IREE bytes | size rt/IREE |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        growth = f"{r['rt_growth']:.2f} / {r['iree_growth']:.2f}" if r["rt_growth"] else ""
        print(f"| {r['layers']} | {r['rt_s']:.2f} | {r['iree_s']:.2f} | {r['wall_ratio']:.2f} | "
              f"{r['rt_cpu_s']:.2f} | {r['iree_cpu_s']:.2f} | {r['cpu_ratio']:.2f} | {growth} | "
              f"{r['rt_bytes']} | {r['iree_bytes']} | {r['size_ratio']:.2f} |")
    print(f"rt result of N={rows[0]['layers']} vs numpy: max abs error {rows[0]['max_abs_error']:.2e}")
    print(f"per-layer CPU slope (least squares): rt {1e3 * _slope(rows, 'rt_cpu_s'):.1f} ms, "
          f"IREE {1e3 * _slope(rows, 'iree_cpu_s'):.1f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


def _slope(rows, key):
    xs = [r["layers"] for r in rows]
    ys = [r[key] for r in rows]
    if len(xs) < 2:
        return 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


if __name__ == "__main__":
    main()
