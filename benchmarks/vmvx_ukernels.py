"""Benchmark the vmvx device: microkernels called directly, and dispatch through the VM.

    python benchmarks/vmvx_ukernels.py [--json out.json] [--repeat 5]

Prints one row per case: best-of-N wall time and a rate (GFLOP/s for mmt4d, GB/s moved for
elementwise/copy/pack, microseconds per workgroup for dispatch), with numpy's time for the
same computation where one exists. Single thread (vmvx runs workgroups on the calling thread).
"""
import argparse
import json
import platform
import time

import numpy as np

from rt.devices.vmvx import _ukernels as uk


def _best(fn, repeat):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _wrap(a, writable=True):
    return uk.BindingBuffer.wrap(a.reshape(-1).view(np.uint8), writable, "bench")


def bench_kernels(repeat):
    rows = []
    n = 4 * 1024 * 1024
    a, b, o = (np.random.default_rng(0).standard_normal(n).astype(np.float32) for _ in range(3))
    A, B, O = _wrap(a, False), _wrap(b, False), _wrap(o)
    add = uk.BINARY_F32_OPS.index("add")
    t = _best(lambda: uk.binary_2d(False, add, A, 0, 1024, 1, B, 0, 1024, 1, O, 0, 1024, 1, n // 1024, 1024), repeat)
    tn = _best(lambda: np.add(a, b, out=o), repeat)
    rows.append(("add.2d.f32 4M", t, 12 * n / t / 1e9, "GB/s", tn))
    exp = uk.UNARY_F32_OPS.index("exp")
    t = _best(lambda: uk.unary_2d(False, exp, A, 0, 1024, 1, O, 0, 1024, 1, n // 1024, 1024), repeat)
    tn = _best(lambda: np.exp(a, out=o), repeat)
    rows.append(("exp.2d.f32 4M", t, 8 * n / t / 1e9, "GB/s", tn))
    t = _best(lambda: uk.copy_2d(4, A, 0, 1, 2048, O, 0, 2048, 1, 2048, 2048), repeat)
    tn = _best(lambda: np.copyto(o.reshape(2048, 2048), a.reshape(2048, 2048).T), repeat)
    rows.append(("copy.2d.x32 transpose 2048^2", t, 8 * n / t / 1e9, "GB/s", tn))
    t = _best(lambda: uk.reduce_2d(False, 0, A, 0, 1024, 1, O, 0, 1, n // 1024, 1024, 0), repeat)
    tn = _best(lambda: a.reshape(-1, 1024).sum(axis=1), repeat)
    rows.append(("reduce.sum.2d.f32 4M", t, 4 * n / t / 1e9, "GB/s", tn))

    M = N = 32
    K, M0, N0, K0 = 256, 16, 16, 1
    lhs = np.random.default_rng(1).standard_normal((M, K, M0, K0)).astype(np.float32)
    rhs = np.random.default_rng(2).standard_normal((N, K, N0, K0)).astype(np.float32)
    out = np.zeros((M, N, M0, N0), np.float32)
    L, R, Ot = _wrap(lhs, False), _wrap(rhs, False), _wrap(out)
    t = _best(lambda: uk.mmt4d(0, L, 0, K * M0 * K0, R, 0, K * N0 * K0, Ot, 0, N * M0 * N0,
                               M, N, K, M0, N0, K0, 0), repeat)
    lm, rm = lhs.reshape(M, K, M0).transpose(0, 2, 1).reshape(M * M0, K), rhs.reshape(N, K, N0).transpose(1, 0, 2).reshape(K, N * N0)
    tn = _best(lambda: lm @ rm, repeat)
    flops = 2.0 * M * M0 * N * N0 * K * K0
    rows.append(("mmt4d.f32 512x512x256 16x16x1", t, flops / t / 1e9, "GFLOP/s", tn))

    li = np.random.default_rng(3).integers(-128, 128, (M, K, M0, 2)).astype(np.int8)
    ri = np.random.default_rng(4).integers(-128, 128, (N, K, N0, 2)).astype(np.int8)
    oi = np.zeros((M, N, M0, N0), np.int32)
    t = _best(lambda: uk.mmt4d(1, _wrap(li, False), 0, K * M0 * 2, _wrap(ri, False), 0, K * N0 * 2,
                               _wrap(oi), 0, N * M0 * N0, M, N, K, M0, N0, 2, 0), repeat)
    rows.append(("mmt4d.i8i8i32 512x512x512 16x16x2", t, 2.0 * M * M0 * N * N0 * K * 2 / t / 1e9, "GOP/s", None))

    src = np.random.default_rng(5).standard_normal((1000, 1000)).astype(np.float32)
    packed = np.zeros((63, 63, 16, 16), np.float32)
    t = _best(lambda: uk.pack(4, _wrap(src, False), 0, 1000, _wrap(packed), 0, 63 * 256,
                              1000, 1000, 63, 63, 16, 16, 0, 0), repeat)
    rows.append(("pack.x32 1000^2 -> 16x16 tiles", t, 8 * packed.size / t / 1e9, "GB/s", None))
    return rows


def bench_dispatch(repeat):
    from rt.devices.vmvx import LOADER, testing

    rows = []
    exe = LOADER.load(*testing.empty(binding_count=3, constant_count=1))
    buf = np.zeros(16, np.float32)
    args = ([1], [buf.ctypes.data] * 3, [buf.nbytes] * 3)
    t = _best(lambda: exe.dispatch(0, (1000, 1, 1), *args), repeat)
    rows.append(("dispatch empty x1000 workgroups", t, t / 1000 * 1e6, "us/workgroup", None))
    n, tile = 4 * 1024 * 1024, 64 * 1024
    exe = LOADER.load(*testing.elementwise_add_f32(tile))
    a, b, o = (np.ones(n, np.float32) for _ in range(3))
    ptrs = ([a.ctypes.data, b.ctypes.data, o.ctypes.data], [a.nbytes] * 3)
    t = _best(lambda: exe.dispatch(0, (n // tile, 1, 1), [n], *ptrs), repeat)
    rows.append(("dispatch add 4M f32 (64 workgroups)", t, 12 * n / t / 1e9, "GB/s", None))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", help="write the rows to this JSON file")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    rows = bench_kernels(args.repeat) + bench_dispatch(args.repeat)
    print(f"vmvx microkernels on {platform.processor() or platform.machine()}, 1 thread")
    print(f"{'case':40s} {'time ms':>9s} {'rate':>10s} {'unit':12s} {'numpy ms':>9s}")
    for name, t, rate, unit, tn in rows:
        print(f"{name:40s} {t * 1e3:9.3f} {rate:10.2f} {unit:12s} {'' if tn is None else f'{tn * 1e3:9.3f}':>9s}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"case": n, "seconds": t, "rate": r, "unit": u, "numpy_seconds": tn}
                       for n, t, r, u, tn in rows], f, indent=1)


if __name__ == "__main__":
    main()
