"""llvm-cpu Kernel IR codegen benchmark: a matmul+bias+relu dispatch and exp(a*b+c).

Usage: python benchmarks/llvm_cpu_codegen.py [--repeats 30] [--json out.json]

Rows (best of ``repeats`` dispatches, 1 and 2 threads, host CPU):
- MLP layer 64x784x512 f32: fill + register-tiled matmul + bias/relu epilogue, one dispatch
  (the first layer of /work/shared/examples/mlp.mlir), vs numpy ``maximum(x @ w + b, 0)``.
- exp(a*b+c) over 4M f32: one elementwise Generic with the polynomial exp, vs numpy.
- row sums 2048x4096 f32 and matvec 4096x4096 f32 (accumulating into the output; GB/s of
  the matrix read): the vectorized inner reduction
  (``reduction.ReductionPlan``) vs the sequential per-element loop it replaced (the same
  Kernel compiled with the reduction fast path switched off) vs numpy.
- softmax 512x4096 f32 in one dispatch: a hal-level dispatch lowered by the dispatch lowering
  (row max and sum kept in tiled workgroup scratch), vs numpy.
"""
import argparse
import json
import platform
import time

import numpy as np

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import reduction
from rt.compiler.codegen.lowering import lower_dispatch_function
from rt.compiler.frontend import parse_module
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
    return rows + reduction_rows(backend, config, repeats) + softmax_rows(backend, config, repeats)


def _reduction_kernels():
    C = kir.Constant
    x, rows = kir.View(0, "f32", (C(0), C(1))), kir.View(1, "f32", (C(0),))
    total = kir.Generic((C(0), C(1)), ("parallel", "reduction"), (x,), (rows,), (_d(0, 1), _d(0)),
                        (_op("arith.addf", (0, 1)),), (2,), "reduction")
    vec = kir.View(1, "f32", (C(1),))
    out = kir.View(2, "f32", (C(0),))
    mv = kir.Generic((C(0), C(1)), ("parallel", "reduction"), (x, vec), (out,),
                     (_d(0, 1), _d(1), _d(0)),
                     (_op("arith.mulf", (0, 1)), _op("arith.addf", (2, 3))), (4,), "matvec")
    dist = kir.Distribution((0,), (8,), ((0,),), extents=(C(0),))
    return [kir.Kernel("row_sum", 2, 2, (total,), dist), kir.Kernel("matvec", 3, 2, (mv,), dist)]


def _load_reductions(backend, config, vectorized):
    plan = reduction.plan
    if not vectorized:
        reduction.plan = lambda ctx, op, where: None
    try:
        fmt, data, meta = backend.serialize("reductions", _reduction_kernels(), config)
    finally:
        reduction.plan = plan
    return LOADER.load(fmt, data, meta)


def reduction_rows(backend, config, repeats):
    rng = np.random.default_rng(1)
    rows = []
    m, n = 2048, 4096
    x = rng.standard_normal((m, n), dtype=np.float32)
    sums = np.zeros(m, np.float32)
    a = rng.standard_normal((4096, 4096), dtype=np.float32)
    v, y = rng.standard_normal(4096, dtype=np.float32), np.zeros(4096, np.float32)
    for vectorized in (True, False):
        lib = _load_reductions(backend, config, vectorized)
        label = "vectorized" if vectorized else "sequential"
        for threads in (1, 2):
            t = _best(lambda: lib.dispatch(0, (m // 8, 1, 1), [m, n], [x.ctypes.data, sums.ctypes.data],
                                           [x.nbytes, sums.nbytes], threads), repeats)
            rows.append((f"row sums {m}x{n} f32 ({label})", f"{threads} thread(s)", t * 1e6, "us",
                         x.nbytes / t / 1e9))
            t = _best(lambda: lib.dispatch(1, (4096 // 8, 1, 1), [4096, 4096],
                                           [a.ctypes.data, v.ctypes.data, y.ctypes.data],
                                           [a.nbytes, v.nbytes, y.nbytes], threads), repeats)
            rows.append((f"matvec 4096x4096 f32 ({label})", f"{threads} thread(s)", t * 1e6, "us",
                         a.nbytes / t / 1e9))
        sums[:], y[:] = 0, 0
        lib.dispatch(0, (m // 8, 1, 1), [m, n], [x.ctypes.data, sums.ctypes.data],
                     [x.nbytes, sums.nbytes], 2)
        lib.dispatch(1, (4096 // 8, 1, 1), [4096, 4096], [a.ctypes.data, v.ctypes.data, y.ctypes.data],
                     [a.nbytes, v.nbytes, y.nbytes], 2)
        np.testing.assert_allclose(sums, x.sum(1), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(y, a @ v, rtol=1e-3, atol=1e-2)
    t = _best(lambda: x.sum(1), repeats)
    rows.append((f"numpy x.sum(1) {m}x{n} f32", "1 thread", t * 1e6, "us", x.nbytes / t / 1e9))
    t = _best(lambda: a @ v, repeats)
    rows.append(("numpy a @ v 4096x4096 f32", "BLAS default", t * 1e6, "us", a.nbytes / t / 1e9))
    return rows


SOFTMAX = """
#l = #hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
func.func @softmax() {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %0 = hal.interface.constant.load layout(#l) ordinal(0) : i32
  %1 = hal.interface.constant.load layout(#l) ordinal(1) : i32
  %m = arith.index_castui %0 : i32 to index
  %n = arith.index_castui %1 : i32 to index
  %b0 = hal.interface.binding.subspan layout(#l) binding(0) alignment(64) offset(%c0) : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%m, %n}
  %b1 = hal.interface.binding.subspan layout(#l) binding(1) alignment(64) offset(%c0) : !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>{%m, %n}
  %x = flow.dispatch.tensor.load %b0, offsets = [0, 0], sizes = [%m, %n], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%m, %n} -> tensor<?x?xf32>
  %er = tensor.empty(%m) : tensor<?xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf32>) outs(%fm : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %y = math.exp %s : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<?x?xf32>) outs(%fs : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %res = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  flow.dispatch.tensor.store %res, %b1, offsets = [0, 0], sizes = [%m, %n], strides = [1, 1] : tensor<?x?xf32> -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>{%m, %n}
  return
}
"""


def softmax_rows(backend, config, repeats):
    func = next(op for op in parse_module(SOFTMAX, "softmax.mlir").walk() if op.name == "func.func")
    kernel = lower_dispatch_function(func, backend, config)
    fmt, data, meta = backend.serialize("softmax", [kernel], config)
    lib = LOADER.load(fmt, data, meta)
    m, n = 512, 4096
    x = np.random.default_rng(2).standard_normal((m, n), dtype=np.float32)
    out = np.zeros_like(x)
    dist = kernel.distribution
    sizes = {kir.Constant(0): m, kir.Constant(1): n}
    counts = [-(-sizes[e] // t) for e, t in zip(dist.extents, dist.tiles)]
    grid = tuple(counts + [1] * (3 - len(counts)))
    rows = []
    for threads in (1, 2):
        t = _best(lambda: lib.dispatch(0, grid, [m, n], [x.ctypes.data, out.ctypes.data],
                                       [x.nbytes, out.nbytes], threads), repeats)
        rows.append((f"softmax {m}x{n} f32, one dispatch", f"{threads} thread(s)", t * 1e6, "us",
                     None))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-7)

    def numpy_softmax():
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    t = _best(numpy_softmax, repeats)
    rows.append((f"numpy softmax {m}x{n} f32", "1 thread", t * 1e6, "us", None))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    rows = run(args.repeats)
    print(f"{'case':<48} {'threads':<14} {'time':>10}  {'GFLOP/s|GB/s':>12}")
    for case, threads, value, unit, gflops in rows:
        g = f"{gflops:12.1f}" if gflops else ""
        print(f"{case:<48} {threads:<14} {value:8.1f} {unit}  {g}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": platform.processor() or platform.machine(),
                       "date": time.strftime("%Y-%m-%d"),
                       "rows": [dict(zip(("case", "threads", "value", "unit", "gflops"), r))
                                for r in rows]}, f, indent=2)


if __name__ == "__main__":
    main()
