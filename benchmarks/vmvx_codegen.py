"""Benchmark vmvx code generation end to end: Kernel IR -> vmvx executable -> dispatch.

Each case runs with the microkernels (config "") and with scalar bytecode only
("no-ukernels"), prints a table (median of --repeat runs) and optionally writes JSON.
Usage: python benchmarks/vmvx_codegen.py [--repeat 5] [--json out.json]
"""
import argparse
import json
import time

import numpy as np

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.targets import get_backend
from rt.devices.vmvx import LOADER

D = kir.AffineExpr.dim


def _kernel_exe(kernel, config):
    backend = get_backend("vmvx")
    return LOADER.load(*backend.serialize("bench", [kernel], backend.target_config(config)))


def _matmul(n):
    g = kir.Generic((n, n, n), ("parallel", "parallel", "reduction"),
                    (kir.View(0, "f32", (n, n)), kir.View(1, "f32", (n, n))), (kir.View(2, "f32", (n, n)),),
                    ((D(0), D(2)), (D(2), D(1)), (D(0), D(1))),
                    (kir.ScalarOp("arith.mulf", (0, 1), "f32"), kir.ScalarOp("arith.addf", (2, 3), "f32")), (4,),
                    "matmul")
    tile = min(n, 256)
    kernel = kir.Kernel("mm", 3, 0, (g,), kir.Distribution((1, 0), (tile, tile), ((1, 0),)))
    arrays = [np.ones((n, n), np.float32), np.ones((n, n), np.float32), np.zeros((n, n), np.float32)]
    return kernel, arrays, (-(-n // tile), -(-n // tile), 1), 2 * n ** 3, ()


def _add(n):
    g = kir.Generic((n,), ("parallel",), (kir.View(0, "f32", (n,)), kir.View(1, "f32", (n,))),
                    (kir.View(2, "f32", (n,)),), ((D(0),),) * 3, (kir.ScalarOp("arith.addf", (0, 1), "f32"),), (3,),
                    "elementwise")
    kernel = kir.Kernel("add", 3, 0, (g,), kir.Distribution((0,), (65536,), ((0,),)))
    arrays = [np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)]
    return kernel, arrays, (-(-n // 65536), 1, 1), n, ()


def _scale(n):
    """out = in * bitcast(push constant 0): a captured f32 scalar argument."""
    body = (kir.ScalarOp("hal.interface.constant.load", (), "i32", (("ordinal", 0),)),
            kir.ScalarOp("arith.bitcast", (2,), "f32"), kir.ScalarOp("arith.mulf", (0, 3), "f32"))
    g = kir.Generic((n,), ("parallel",), (kir.View(0, "f32", (n,)),), (kir.View(1, "f32", (n,)),), ((D(0),),) * 2,
                    body, (4,), "elementwise")
    kernel = kir.Kernel("scale", 2, 1, (g,), kir.Distribution((0,), (65536,), ((0,),)))
    arrays = [np.ones(n, np.float32), np.zeros(n, np.float32)]
    return kernel, arrays, (-(-n // 65536), 1, 1), n, [int(np.array(1.5, np.float32).view(np.uint32))]


def _softmax_rows(n):
    """out = exp(x - rowmax(x)) over n x n, the row max in workgroup scratch tiled by 16 rows."""
    rows = kir.View(2, "f32", (n,))
    fill = kir.Generic((n,), ("parallel",), (), (rows,), ((D(0),),),
                       (kir.ScalarOp("arith.constant", (), "f32", (("value", float("-inf")),)),), (1,), "fill")
    red = kir.Generic((n, n), ("parallel", "reduction"), (kir.View(0, "f32", (n, n)),), (rows,),
                      ((D(0), D(1)), (D(0),)), (kir.ScalarOp("arith.maximumf", (0, 1), "f32"),), (2,), "reduction")
    sub = kir.Generic((n, n), ("parallel", "parallel"), (kir.View(0, "f32", (n, n)), rows),
                      (kir.View(1, "f32", (n, n)),), ((D(0), D(1)), (D(0),), (D(0), D(1))),
                      (kir.ScalarOp("arith.subf", (0, 1), "f32"), kir.ScalarOp("math.exp", (3,), "f32")), (4,),
                      "elementwise")
    kernel = kir.Kernel("softmax", 2, 0, (fill, red, sub), kir.Distribution((0,), (16,), ((0,),) * 3),
                        scratch=(kir.Scratch("f32", (n,), (0,)),))
    arrays = [np.ones((n, n), np.float32), np.zeros((n, n), np.float32)]
    return kernel, arrays, (-(-n // 16), 1, 1), n * n, ()


CASES = [("matmul f32 256^3", _matmul, 256, ("",)), ("matmul f32 64^3", _matmul, 64, ("", "no-ukernels")),
         ("add f32 1M", _add, 1 << 20, ("",)), ("add f32 64K", _add, 1 << 16, ("", "no-ukernels")),
         ("scale f32 1M (pc)", _scale, 1 << 20, ("", "no-ukernels")),
         ("softmax 512^2 scr", _softmax_rows, 512, ("", "no-ukernels"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    for name, make, size, configs in CASES:
        kernel, arrays, grid, work, constants = make(size)
        for config in configs:
            exe = _kernel_exe(kernel, config)
            ptrs, lens = [a.ctypes.data for a in arrays], [a.nbytes for a in arrays]
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                exe.dispatch(0, grid, list(constants), ptrs, lens)
                times.append(time.perf_counter() - t0)
            ms = float(np.median(times)) * 1e3
            rows.append({"case": name, "config": config or "ukernels", "ms": ms, "work_per_s": work / ms * 1e3})
    print(f"{'case':<20} {'config':<12} {'ms':>10} {'G(FL)OP|elem/s':>16}")
    for r in rows:
        print(f"{r['case']:<20} {r['config']:<12} {r['ms']:>10.3f} {r['work_per_s'] / 1e9:>16.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
