"""llvm-cpu device benchmark: f32 mmt4d GFLOP/s, empty-dispatch overhead, vector exp.

Usage: python benchmarks/llvm_cpu_mmt4d.py [--size 1024] [--repeats 20] [--json out.json]

Rows:
- mmt4d: an M=N=K=size f32 mmt4d with the host's default tile (16x16x1 on AVX-512) on 1 and
  2 threads, best of ``repeats`` dispatches; numpy ``A @ B`` (its BLAS, default threads) on
  the same sizes in the same run.
- mmt4d f16 -> f32 (16x16x1), i8 -> i32 (16x16x2, pmaddwd / vpdpwssd), bf16 -> f32 (16x16x1
  widened to f32 FMAs; 16x16x2 vdpbf16ps with AVX512-BF16) and i8 -> i32 16x16x4 (vpdpbusd
  with AVX512-VNNI; ``mmt4d_dot``): the same sizes through Kernel IR (``kernel_ir.Mmt4d`` compiled by ``kernel_codegen.emit_kernel``, 4 x 4
  tiles per workgroup as the compiler distributes them), GFLOP/s or GOP/s.
- empty dispatch: Python ``library.dispatch`` of an export that returns at once
  (1 workgroup on 1 thread; 2 workgroups on 2 threads), mean over many calls.
- exp: ``out = exp(a)`` over 4M f32 (polynomial exp in IR) on 1 and 2 threads vs numpy.
"""
import argparse
import json
import platform
import time

import ml_dtypes
import numpy as np

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu.elementwise import emit_elementwise
from rt.compiler.codegen.llvm_cpu.kernel_codegen import emit_kernel
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.mmt4d import default_tile, emit_mmt4d
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.devices.llvm_cpu import LOADER
from rt.devices.llvm_cpu.testing import emit_empty


def _best(fn, repeats):
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _mean(fn, calls):
    fn()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


#: (input, output, K0) of the Kernel IR mmt4d rows (exports 3, 4, ...).
TYPED = (("f16", "f32", 1), ("i8", "i32", 2), ("bf16", "f32", 1), ("bf16", "f32", 2),
         ("i8", "i32", 4))
NUMPY = {"f16": np.float16, "i8": np.int8, "f32": np.float32, "i32": np.int32,
         "bf16": ml_dtypes.bfloat16}


def build_library():
    target = cpu_target("host")
    lb = LibraryBuilder("bench", target)
    tile = default_tile(target)
    emit_mmt4d(lb, "mmt4d", *tile)
    emit_empty(lb)
    emit_elementwise(lb, "exp", "exp")
    for in_type, out_type, k0 in TYPED:
        views = (kir.View(0, in_type, (kir.Constant(0), kir.Constant(2), tile[0], k0)),
                 kir.View(1, in_type, (kir.Constant(1), kir.Constant(2), tile[1], k0)),
                 kir.View(2, out_type, (kir.Constant(0), kir.Constant(1), tile[0], tile[1])))
        emit_kernel(lb, kir.Kernel(f"mmt4d_{in_type}_{k0}", 3, 3, (kir.Mmt4d(*views),),
                                   kir.Distribution((1, 0), (4, 4), ((1, 0),))))
    obj = lb.build()
    return target, tile, LOADER.load(obj.format, obj.data, obj.metadata)


def run(size, repeats):
    target, (m0, n0, k0), lib = build_library()
    rows = []
    m1, n1, k1 = size // m0, size // n0, size // k0
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((m1, k1, m0, k0), dtype=np.float32)
    rhs = rng.standard_normal((n1, k1, n0, k0), dtype=np.float32)
    out = np.zeros((m1, n1, m0, n0), np.float32)
    ptrs = [x.ctypes.data for x in (lhs, rhs, out)]
    lens = [x.nbytes for x in (lhs, rhs, out)]
    flops = 2.0 * m1 * m0 * n1 * n0 * k1 * k0
    for threads in (1, 2):
        grid = (n1, m1, 1)
        t = _best(lambda: lib.dispatch(0, grid, [m1, n1, k1, 0], ptrs, lens, threads), repeats)
        rows.append((f"mmt4d {size}^3 f32 {m0}x{n0}x{k0}", f"{threads} thread(s)",
                     flops / t / 1e9, "GFLOP/s"))
    for ordinal, (in_type, out_type, kk) in enumerate(TYPED, start=3):
        m1, n1, k1 = size // m0, size // n0, size // kk
        ops = [rng.integers(-100, 100, shape).astype(NUMPY[in_type])
               for shape in ((m1, k1, m0, kk), (n1, k1, n0, kk))]
        ops.append(np.zeros((m1, n1, m0, n0), NUMPY[out_type]))
        ptrs, lens = [x.ctypes.data for x in ops], [x.nbytes for x in ops]
        grid = (-(-n1 // 4), -(-m1 // 4), 1)
        for threads in (1, 2):
            t = _best(lambda: lib.dispatch(ordinal, grid, [m1, n1, k1], ptrs, lens, threads),
                      repeats)
            unit = "GFLOP/s" if out_type.startswith("f") else "GOP/s"
            rows.append((f"mmt4d {size}^3 {in_type}->{out_type} {m0}x{n0}x{kk}",
                         f"{threads} thread(s)", flops / t / 1e9, unit))
    a = rng.standard_normal((size, size), dtype=np.float32)
    b = rng.standard_normal((size, size), dtype=np.float32)
    t = _best(lambda: a @ b, repeats)
    rows.append((f"numpy matmul {size}^3 f32", "BLAS default", flops / t / 1e9, "GFLOP/s"))
    rows.append(("empty dispatch, 1 workgroup", "1 thread",
                 _mean(lambda: lib.dispatch(1, (1, 1, 1), (), (), (), 1), 200_000) * 1e6, "us"))
    rows.append(("empty dispatch, 2 workgroups", "2 threads",
                 _mean(lambda: lib.dispatch(1, (2, 1, 1), (), (), (), 2), 50_000) * 1e6, "us"))
    x = rng.standard_normal(1 << 22, dtype=np.float32)
    y = np.empty_like(x)
    for threads in (1, 2):
        t = _best(lambda: lib.dispatch(2, (64, 1, 1), [x.size], [x.ctypes.data, y.ctypes.data],
                                       [x.nbytes, y.nbytes], threads), repeats)
        rows.append(("exp 4M f32", f"{threads} thread(s)", t * 1e3, "ms"))
    rows.append(("numpy exp 4M f32", "1 thread", _best(lambda: np.exp(x, out=y), repeats) * 1e3,
                 "ms"))
    return target, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    target, rows = run(args.size, args.repeats)
    machine = f"{target.cpu}, {platform.machine()}, vector {target.vector_bytes * 8} bit"
    print(f"llvm-cpu benchmark ({machine}, {time.strftime('%Y-%m-%d')})")
    print(f"{'case':<34} {'setting':<14} {'value':>10}  unit")
    for case, setting, value, unit in rows:
        print(f"{case:<34} {setting:<14} {value:>10.2f}  {unit}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine, "date": time.strftime("%Y-%m-%d"),
                       "rows": [dict(case=c, setting=s, value=v, unit=u) for c, s, v, u in rows]},
                      f, indent=2)


if __name__ == "__main__":
    main()
