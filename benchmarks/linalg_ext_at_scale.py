"""``iree_linalg_ext`` ops at scale on rt llvm-cpu and vmvx beside numpy (issue 21): sort, scatter,
topk, arg_compare and scan at sizes where an O(n^2) lowering would take minutes.

Cases (each result checked against numpy before it is timed):

* ``sort_1d_static`` / ``sort_1d_dynamic``: 10^5 f32 ascending (``tensor<100000xf32>`` and
  ``tensor<?xf32>``); numpy ``np.sort(kind="stable")``;
* ``sort_2d``: 256 x 1024 f32 along the last dim;
* ``sort_pairs``: 10^5 f32 keys with their i32 positions (multi-operand); numpy ``argsort``;
* ``scatter_add_embedding``: the embedding backward pass, 8192 x 512 f32 updates added into a
  32000 x 512 table at repeated row indices; numpy ``np.add.at``;
* ``scatter_unique``: 10^5 unique indices into a 10^5 f32 vector (replacing region); numpy
  ``out[idx] = upd``;
* ``topk``: k = 8 of 10^6 f32; numpy ``argpartition`` + ``argsort``;
* ``argmax``: 1024 x 4096 f32 along the last dim; ``arg_compare``; numpy ``argmax``;
* ``cumsum``: 10^6 f32 inclusive ``scan``; numpy ``cumsum``.

Each case runs in its own subprocess with a time limit (``--timeout``, a case past it is
reported as such), compiles once, calls once to warm up and check, then reports the median of
``--repeat`` calls (results read back as numpy arrays) by wall clock (local-task).
``--vmvx-scale`` divides the sizes for vmvx (its scalar loops), reported in the size column.

Usage: python benchmarks/linalg_ext_at_scale.py [--devices llvm-cpu,vmvx] [--cases a,b]
       [--timeout 120] [--repeat 5] [--vmvx-scale 10]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np


def _sort_program(shape, dim, pairs=False):
    t = "tensor<" + "x".join("?" if s is None else str(s) for s in shape) + "xf32>"
    if not pairs:
        return f"""
func.func @run(%x: {t}) -> {t} {{
  %r = iree_linalg_ext.sort dimension({dim}) outs(%x : {t}) {{
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  }} -> {t}
  return %r : {t}
}}"""
    ti = t.replace("f32>", "i32>")
    return f"""
func.func @run(%x: {t}, %i: {ti}) -> ({t}, {ti}) {{
  %r:2 = iree_linalg_ext.sort dimension({dim}) outs(%x, %i : {t}, {ti}) {{
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  }} -> {t}, {ti}
  return %r#0, %r#1 : {t}, {ti}
}}"""


def _scatter_program(rows, cols, batch, add):
    table = f"tensor<{rows}x{cols}xf32>" if cols else f"tensor<{rows}xf32>"
    upd = f"tensor<{batch}x{cols}xf32>" if cols else f"tensor<{batch}xf32>"
    body = "%s = arith.addf %u, %o : f32\n    iree_linalg_ext.yield %s : f32" if add else \
        "iree_linalg_ext.yield %u : f32"
    return f"""
func.func @run(%orig: {table}, %upd: {upd}, %idx: tensor<{batch}x1xi32>) -> {table} {{
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices({"false" if add else "true"})
      ins(%upd, %idx : {upd}, tensor<{batch}x1xi32>) outs(%orig : {table}) {{
  ^bb0(%u: f32, %o: f32):
    {body}
  }} -> {table}
  return %r : {table}
}}"""


def _topk_program(n, k):
    return f"""
func.func @run(%x: tensor<{n}xf32>) -> (tensor<{k}xf32>, tensor<{k}xi32>) {{
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<{k}xf32>
  %ei = tensor.empty() : tensor<{k}xi32>
  %v = linalg.fill ins(%ninf : f32) outs(%ev : tensor<{k}xf32>) -> tensor<{k}xf32>
  %i = linalg.fill ins(%z : i32) outs(%ei : tensor<{k}xi32>) -> tensor<{k}xi32>
  %r:2 = iree_linalg_ext.topk dimension(0) ins(%x : tensor<{n}xf32>)
      outs(%v, %i : tensor<{k}xf32>, tensor<{k}xi32>) {{
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  }} -> tensor<{k}xf32>, tensor<{k}xi32>
  return %r#0, %r#1 : tensor<{k}xf32>, tensor<{k}xi32>
}}"""


def _argmax_program(rows, cols):
    return f"""
func.func @run(%x: tensor<{rows}x{cols}xf32>) -> (tensor<{rows}xf32>, tensor<{rows}xi32>) {{
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<{rows}xf32>
  %ei = tensor.empty() : tensor<{rows}xi32>
  %v = linalg.fill ins(%ninf : f32) outs(%ev : tensor<{rows}xf32>) -> tensor<{rows}xf32>
  %i = linalg.fill ins(%z : i32) outs(%ei : tensor<{rows}xi32>) -> tensor<{rows}xi32>
  %r:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x : tensor<{rows}x{cols}xf32>)
      outs(%v, %i : tensor<{rows}xf32>, tensor<{rows}xi32>) {{
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  }} -> tensor<{rows}xf32>, tensor<{rows}xi32>
  return %r#0, %r#1 : tensor<{rows}xf32>, tensor<{rows}xi32>
}}"""


def _cumsum_program(n):
    return f"""
func.func @run(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{n}xf32>
  %ea = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%z : f32) outs(%ea : tensor<f32>) -> tensor<f32>
  %r:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : tensor<{n}xf32>)
      outs(%e, %acc : tensor<{n}xf32>, tensor<f32>) {{
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  }} -> tensor<{n}xf32>, tensor<f32>
  return %r#0 : tensor<{n}xf32>
}}"""


def _case(name, scale):
    """(size label, program, inputs, numpy function, checker) of case ``name`` at 1/``scale``."""
    rng = np.random.default_rng(0)

    def same(got, want):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-3)
    if name in ("sort_1d_static", "sort_1d_dynamic", "sort_pairs"):
        n = 100000 // scale
        x = rng.standard_normal(n).astype(np.float32)
        if name == "sort_pairs":
            pos = np.arange(n, dtype=np.int32)
            return (f"{n}", _sort_program([n], 0, pairs=True), [x, pos],
                    lambda: (x[np.argsort(x, kind="stable")], np.argsort(x, kind="stable")), same)
        shape = [None] if name == "sort_1d_dynamic" else [n]
        return f"{n}", _sort_program(shape, 0), [x], lambda: (np.sort(x, kind="stable"),), same
    if name == "sort_2d":
        rows = 256 // scale
        x = rng.standard_normal((rows, 1024)).astype(np.float32)
        return f"{rows}x1024", _sort_program([rows, 1024], 1), [x], lambda: (np.sort(x, axis=1, kind="stable"),), same
    if name == "scatter_add_embedding":
        rows, batch, cols = 32000 // scale, 8192 // scale, 512
        table = rng.standard_normal((rows, cols)).astype(np.float32)
        upd = rng.standard_normal((batch, cols)).astype(np.float32)
        idx = rng.integers(0, rows // 8, (batch, 1)).astype(np.int32)

        def want():
            out = table.copy()
            np.add.at(out, idx[:, 0], upd)
            return (out,)
        return f"{batch}x{cols} into {rows}x{cols}", _scatter_program(rows, cols, batch, True), [table, upd, idx], \
            want, same
    if name == "scatter_unique":
        n = 100000 // scale
        orig = rng.standard_normal(n).astype(np.float32)
        upd = rng.standard_normal(n).astype(np.float32)
        idx = rng.permutation(n).astype(np.int32).reshape(n, 1)

        def want():
            out = orig.copy()
            out[idx[:, 0]] = upd
            return (out,)
        return f"{n}", _scatter_program(n, 0, n, False), [orig, upd, idx], want, same
    if name == "topk":
        n, k = 1000000 // scale, 8
        x = rng.standard_normal(n).astype(np.float32)

        def want():
            part = np.argpartition(-x, k)[:k]
            order = part[np.argsort(-x[part], kind="stable")]
            return x[order], order.astype(np.int32)
        return f"k={k} of {n}", _topk_program(n, k), [x], want, same
    if name == "argmax":
        rows = 1024 // scale
        x = rng.standard_normal((rows, 4096)).astype(np.float32)
        return (f"{rows}x4096", _argmax_program(rows, 4096), [x], lambda: (x.max(axis=1), x.argmax(axis=1)),
                same)
    if name == "cumsum":
        n = 1000000 // scale
        x = rng.random(n).astype(np.float32)
        return f"{n}", _cumsum_program(n), [x], lambda: (np.cumsum(x),), \
            lambda got, want: np.testing.assert_allclose(np.asarray(got[0]), np.cumsum(x, dtype=np.float64), rtol=1e-3)
    raise ValueError(f"unknown case {name!r}; expected one of {', '.join(CASES)}")


CASES = ("sort_1d_static", "sort_1d_dynamic", "sort_2d", "sort_pairs", "scatter_add_embedding", "scatter_unique",
         "topk", "argmax", "cumsum")


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _child(name, device, scale, repeat):
    """Run one case in this process; print a JSON line."""
    import rt
    size, program, inputs, want, check = _case(name, scale)
    start = time.perf_counter()
    module = rt.load(rt.compile(program, devices=[device]), devices=[f"local-task://{device}"])
    compile_s = time.perf_counter() - start
    expected = want()

    def call():
        got = module.run(*inputs)
        return [np.asarray(g) for g in (got if isinstance(got, (tuple, list)) else (got,))]
    check(call(), expected)
    print(json.dumps({"size": size, "compile_s": compile_s, "rt_s": _median_time(call, repeat),
                      "numpy_s": _median_time(want, repeat)}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", default="llvm-cpu,vmvx")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--vmvx-scale", type=int, default=10)
    ap.add_argument("--child", nargs=3, metavar=("CASE", "DEVICE", "SCALE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], args.child[1], int(args.child[2]), args.repeat)
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| case | device | size | compile s | rt ms | numpy ms | rt / numpy |")
    print("|---|---|---|---|---|---|---|")
    for name in args.cases.split(","):
        for device in args.devices.split(","):
            scale = args.vmvx_scale if device == "vmvx" else 1
            cmd = [sys.executable, __file__, "--repeat", str(args.repeat), "--child", name, device, str(scale)]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"| {name} | {device} | 1/{scale} | | > {args.timeout:.0f} s (timed out) | | |", flush=True)
                continue
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["?"])[-1]
                print(f"| {name} | {device} | 1/{scale} | | failed: {last[:120]} | | |", flush=True)
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"| {name} | {device} | {r['size']} | {r['compile_s']:.1f} | {r['rt_s'] * 1e3:.1f} | "
                  f"{r['numpy_s'] * 1e3:.2f} | {r['rt_s'] / r['numpy_s']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
