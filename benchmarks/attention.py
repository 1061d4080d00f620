"""A transformer layer's attention as one ``iree_linalg_ext.attention`` dispatch: rt llvm-cpu
beside IREE 3.13 in the same process (issue 21, item 4).

Cases: ``softmax(Q K^T / sqrt(64)) V`` over B*H = 12 heads, head dim 64, f32, sequence length
128 and 512 (Q, K, V: 12 x S x 64). IREE compiles the same program with
``--iree-llvmcpu-target-cpu=host``. Both results are checked against numpy first.

Timing (``iree_peer.compare``): interleaved rounds, per round the median of N calls of rt then
of IREE, the ratio taken per round and its median reported. By default both run on local-sync
(every dispatch inline on the calling thread) and each call is timed by that thread's CPU
time (``time.thread_time``), which other processes competing for the cores do not inflate;
``--wall`` times local-task (worker threads) by wall clock instead.

Usage: python benchmarks/attention.py [--seq 128,512] [--rounds 7] [--wall]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iree_peer import compare, iree_module, load_iree, machine  # noqa: E402

import rt  # noqa: E402

HEADS, DIM = 12, 64


def program(seq):
    t = f"tensor<{HEADS}x{seq}x{DIM}xf32>"
    maps = ", ".join(f"affine_map<(d0, d1, d2, d3, d4) -> {r}>" for r in
                     ("(d0, d1, d2)", "(d0, d3, d2)", "(d0, d3, d4)", "()", "(d0, d1, d4)"))
    return f"""
func.func @attention(%q: {t}, %k: {t}, %v: {t}) -> {t} {{
  %init = tensor.empty() : {t}
  %scale = arith.constant 0.125 : f32
  %r = iree_linalg_ext.attention <indexing_maps = [{maps}]>
      ins(%q, %k, %v, %scale : {t}, {t}, {t}, f32) outs(%init : {t}) {{
  ^bb0(%s: f32):
    iree_linalg_ext.yield %s : f32
  }} -> {t}
  return %r : {t}
}}"""


def reference(q, k, v):
    s = np.einsum("bmk,bjk->bmj", q.astype(np.float64), k) * 0.125
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("bmj,bjn->bmn", p / p.sum(axis=-1, keepdims=True), v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq", default="128,512")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--wall", action="store_true", help="local-task, wall clock")
    args = ap.parse_args()
    ic, ireert = load_iree()
    driver = "local-task" if args.wall else "local-sync"
    clock = time.perf_counter if args.wall else time.thread_time
    print(f"# {machine()}; {driver}, {'wall' if args.wall else 'thread CPU'} time, {args.rounds} rounds")
    print("| case | rt ms | IREE ms | rt/IREE |")
    print("|---|---|---|---|")
    for seq in (int(s) for s in args.seq.split(",")):
        text = program(seq)
        rmod = rt.load(rt.compile(text, devices=["llvm-cpu"]), devices=[f"{driver}://llvm-cpu"])
        ivmfb = ic.compile_str(text, target_backends=["llvm-cpu"], extra_args=["--iree-llvmcpu-target-cpu=host"])
        imod, ictx = iree_module(ireert, ivmfb, driver)
        rng = np.random.default_rng(seq)
        q, k, v = (rng.standard_normal((HEADS, seq, DIM)).astype(np.float32) for _ in range(3))
        want = reference(q, k, v)
        for side, fn in (("rt", rmod.attention), ("iree", imod["attention"])):
            err = np.max(np.abs(np.asarray(fn(q, k, v)) - want))
            if err > 1e-4:
                raise SystemExit(f"seq {seq}: {side} differs from numpy by {err:.3g}")
        row = compare({"rt": lambda: rmod.attention(q, k, v), "iree": lambda: np.asarray(imod["attention"](q, k, v))},
                      rounds=args.rounds, clock=clock)
        print(f"| attention {HEADS}x{seq}x{DIM} f32 | {row['rt'] * 1e3:.3f} | {row['iree'] * 1e3:.3f} | "
              f"{row['rt/iree']:.2f}x |", flush=True)
        del ictx


if __name__ == "__main__":
    main()
