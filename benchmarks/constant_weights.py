"""Constant weights packed once at load time vs packed on every call (llvm-cpu).

``y = x @ W + b`` with a constant ``W`` (K x N, computed by a const-expr ``linalg.generic``
from indices, so the source stays small) and ``x`` of M rows. Three configurations:
``constant W`` (iree-util-hoist-into-globals moves W's RHS pack into the module
initializer: every call runs pack LHS, mmt4d, unpack + bias), ``W as an argument`` (the same
math with W passed in: W is packed on every call, what a constant cost before hoisting) and
``no data tiling``. Figures: median of ``--calls`` calls (after one warm-up) in ms, and the
number of RHS pack dispatches seen by a trace over all calls.

    python benchmarks/constant_weights.py [--m 64] [--k 1024] [--n 1024] [--calls 20] [--json out.json]
"""
import argparse
import collections
import json
import platform
import statistics
import time

import numpy as np

import rt

_WEIGHTS = """  %e0 = tensor.empty() : tensor<{k}x{n}xf32>
  %w = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} outs(%e0 : tensor<{k}x{n}xf32>) {{
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    %r = arith.remui %s, %c7 : index
    %ri = arith.index_cast %r : index to i32
    %rf = arith.sitofp %ri : i32 to f32
    %v = arith.mulf %rf, %scale : f32
    linalg.yield %v : f32
  }} -> tensor<{k}x{n}xf32>
"""
_BODY = """  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %y = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins(%mm, %b : tensor<{m}x{n}xf32>, tensor<{n}xf32>) outs(%e : tensor<{m}x{n}xf32>) {{
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  }} -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}
"""


def sources(m, k, n):
    """(constant-W source, W-as-argument source) MLIR texts."""
    consts = "  %c7 = arith.constant 7 : index\n  %scale = arith.constant 0.125 : f32\n"
    const = (f"func.func @predict(%x: tensor<{m}x{k}xf32>, %b: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{\n"
             + consts + _WEIGHTS.format(k=k, n=n) + _BODY.format(m=m, k=k, n=n))
    arg = (f"func.func @predict(%x: tensor<{m}x{k}xf32>, %b: tensor<{n}xf32>, %w: tensor<{k}x{n}xf32>)"
           f" -> tensor<{m}x{n}xf32> {{\n" + _BODY.format(m=m, k=k, n=n))
    return const, arg


def weights(k, n):
    i, j = np.meshgrid(np.arange(k), np.arange(n), indexing="ij")
    return (((i + j) % 7) * 0.125).astype(np.float32)


def _median_seconds(fn, calls):
    fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(m, k, n, calls, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    w = weights(k, n)
    want = x @ w + b
    const, arg = sources(m, k, n)
    rows = []
    for label, src, extra, tiling in (("constant W (packed once)", const, (), True),
                                      ("W as an argument", arg, (w,), True),
                                      ("constant W, no data tiling", const, (), False)):
        tracer = rt.Tracer()
        vmfb = rt.compile(src, devices=["llvm-cpu"], data_tiling=tiling)
        with rt.load(vmfb, devices=[device], tracer=tracer) as module:
            error = float(np.abs(module.predict(x, b, *extra) - want).max())
            seconds = _median_seconds(lambda: module.predict(x, b, *extra), calls)
        counts = collections.Counter(e["name"] for e in tracer.events if e.get("ph") == "X")
        packs = sum(c for name, c in counts.items() if f"set_encoding_{k}x{n}" in name and ":" not in name)
        rows.append({"config": label, "ms": seconds * 1e3, "rhs_packs": packs, "calls": calls + 2,
                     "max_abs_err": error})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=64)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--device", default="local-task://llvm-cpu")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    rows = run(args.m, args.k, args.n, args.calls, args.device)
    print(f"y = x @ W + b, x {args.m}x{args.k}, W {args.k}x{args.n} on {args.device} "
          f"({platform.processor() or platform.machine()})")
    print(f"{'config':<28} {'median ms':>10} {'RHS packs/calls':>16} {'max |err|':>10}")
    for row in rows:
        print(f"{row['config']:<28} {row['ms']:>10.3f} {row['rhs_packs']:>8}/{row['calls']:<7} "
              f"{row['max_abs_err']:>10.2e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"m": args.m, "k": args.k, "n": args.n, "calls": args.calls, "device": args.device,
                       "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
