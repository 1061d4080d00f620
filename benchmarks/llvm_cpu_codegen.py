"""llvm-cpu Kernel IR codegen benchmark: a matmul+bias+relu dispatch and exp(a*b+c).

Usage: python benchmarks/llvm_cpu_codegen.py [--repeats 30] [--json out.json]

Rows (best of ``repeats`` dispatches, 1 and 2 threads, host CPU):
- MLP layer 64x784x512 f32: fill + register-tiled matmul + bias/relu epilogue, one dispatch
  (the first layer of /work/shared/examples/mlp.mlir), vs numpy ``maximum(x @ w + b, 0)``.
- exp(a*b+c) over 4M f32: one elementwise Generic with the polynomial exp, vs numpy.
"""
import argparse
import json
import platform
import time

import numpy as np

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.targets import get_backend
from rt.devices.llvm_cpu import LOADER

P, R = "parallel", "reduction"


def _d(*dims):
    return tuple(kir.AffineExpr.dim(x) for x in dims)


def _op(name, operands, **attrs):
    return kir.ScalarOp(name, operands, "f32", tuple(sorted(attrs.items())))


def _best(fn, repeats):
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def kernels(backend):
    m, n, k = 64, 512, 784
    x, w = kir.View(0, "f32", (m, k)), kir.View(1, "f32", (k, n))
    b, o = kir.View(2, "f32", (n,)), kir.View(3, "f32", (m, n))
    fill = kir.Generic((m, n), (P, P), (), (o,), (_d(0, 1),), (_op("arith.constant", (), value=0.0),),
                       (1,), "fill")
    mm = kir.Generic((m, n, k), (P, P, R), (x, w), (o,), (_d(0, 2), _d(2, 1), _d(0, 1)),
                     (_op("arith.mulf", (0, 1)), _op("arith.addf", (2, 3))), (4,), "matmul")
    epi = kir.Generic((m, n), (P, P), (o, b), (o,), (_d(0, 1), _d(1), _d(0, 1)),
                      (_op("arith.addf", (0, 1)), _op("arith.constant", (), value=0.0),
                       _op("arith.maximumf", (3, 4))), (5,), "elementwise")
    tiles = backend.workgroup_tiles("matmul", None)
    layer = kir.Kernel("mlp_layer", 4, 0, (fill, mm, epi),
                       kir.Distribution((1, 0), tiles[:2], ((1, 0),) * 3))
    size = kir.Constant(0)
    v = [kir.View(i, "f32", (size,)) for i in range(4)]
    body = (_op("arith.mulf", (0, 1)), _op("arith.addf", (4, 2)), _op("math.exp", (5,)))
    tile = backend.workgroup_tiles("elementwise", None)[0]
    ew = kir.Kernel("exp_fma", 4, 1, (kir.Generic((size,), (P,), tuple(v[:3]), (v[3],),
                                                  (_d(0),) * 4, body, (6,), "elementwise"),),
                    kir.Distribution((0,), (tile,), ((0,),)))
    return layer, ew, (m, n, k), tiles, tile


def run(repeats):
    backend = get_backend("llvm-cpu")
    config = backend.target_config("")
    layer, ew, (m, n, k), tiles, tile = kernels(backend)
    fmt, data, meta = backend.serialize("bench", [layer, ew], config)
    lib = LOADER.load(fmt, data, meta)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
    b, o = rng.standard_normal(n, dtype=np.float32), np.zeros((m, n), np.float32)
    arrays = [x, w, b, o]
    grid = (-(-n // tiles[0]), -(-m // tiles[1]), 1)
    rows = []
    flops = 2.0 * m * n * k
    for threads in (1, 2):
        t = _best(lambda: lib.dispatch(0, grid, (), [a.ctypes.data for a in arrays],
                                       [a.nbytes for a in arrays], threads), repeats)
        rows.append((f"MLP layer {m}x{k}x{n} f32 (+bias,relu)", f"{threads} thread(s)",
                     t * 1e6, "us", flops / t / 1e9))
    np.testing.assert_allclose(o, np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-3)
    t = _best(lambda: np.maximum(x @ w + b, 0), repeats)
    rows.append(("numpy maximum(x @ w + b, 0)", "BLAS default", t * 1e6, "us", flops / t / 1e9))
    size = 4 * 1024 * 1024
    a, bb, c = (rng.standard_normal(size, dtype=np.float32) * 0.5 for _ in range(3))
    out = np.zeros(size, np.float32)
    arrays = [a, bb, c, out]
    for threads in (1, 2):
        t = _best(lambda: lib.dispatch(1, (-(-size // tile), 1, 1), [size],
                                       [v.ctypes.data for v in arrays], [v.nbytes for v in arrays],
                                       threads), repeats)
        rows.append(("exp(a*b+c) 4M f32", f"{threads} thread(s)", t * 1e6, "us", None))
    np.testing.assert_allclose(out, np.exp(a * bb + c), rtol=1e-5)
    t = _best(lambda: np.exp(a * bb + c), repeats)
    rows.append(("numpy exp(a*b+c) 4M f32", "1 thread", t * 1e6, "us", None))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    rows = run(args.repeats)
    print(f"{'case':<44} {'threads':<14} {'time':>10}  {'GFLOP/s':>8}")
    for case, threads, value, unit, gflops in rows:
        g = f"{gflops:8.1f}" if gflops else ""
        print(f"{case:<44} {threads:<14} {value:8.1f} {unit}  {g}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": platform.processor() or platform.machine(),
                       "date": time.strftime("%Y-%m-%d"),
                       "rows": [dict(zip(("case", "threads", "value", "unit", "gflops"), r))
                                for r in rows]}, f, indent=2)


if __name__ == "__main__":
    main()
