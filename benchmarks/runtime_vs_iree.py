"""Benchmark: the runtime's per-call cost against ``iree.runtime`` 3.13, side by side (issue 9).

Rows (one process; IREE installed outside the project env by ``iree_peer.load_iree``):

* ``tiny``: ``add`` of two 4xf32 on local-sync llvm-cpu — the cost of one call (argument
  checks, upload, VM, HAL, one dispatch, result to numpy). Aim: rt ≤ 0.5× IREE.
* ``mlp_task`` / ``mlp_sync``: MLP 64×784-512-512-10 (three matmuls with bias/relu) on
  local-task and local-sync llvm-cpu; IREE compiled with ``--iree-opt-data-tiling
  --iree-llvmcpu-target-cpu=host``. Aim: rt ≤ 0.8× IREE. With ``--split`` the rt side is also
  traced once to give dispatch time (device queue zones) vs host time per call.
* ``rss``: resident set size over ``--rss-calls`` (100,000) tiny calls, rt and IREE, sampled
  after 1k, 10k and every 10% after; growth from the 10k sample to the end. Aim: flat.
* ``threads``: a small compute-bound function (exp(a*b+c) over ``--ew-n`` f32 on local-sync)
  called by one Python thread vs two threads on one module: throughput ratio, and the cores the
  process used while two threads ran (CPU time / wall time). Aim: ≥ 1.6× on 2 cores — which
  needs two idle cores: measure with ``--only threads`` at a quiet moment (the header prints
  the load average).

Ratios are medians of per-round ratios (interleaved rounds, ``iree_peer.compare``), so machine
noise hits both sides alike. Usage::

    python benchmarks/runtime_vs_iree.py [--only tiny,mlp_task,mlp_sync,rss,threads]
        [--rounds 5] [--rss-calls 100000] [--split] [--cpu-time] [--json OUT]
"""
import argparse
import json
import os
import statistics
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iree_peer import compare, iree_module, load_iree, machine  # noqa: E402

import rt  # noqa: E402

ADD = """
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""

MLP = """
func.func @mlp(%x: tensor<64x784xf32>, %w1: tensor<784x512xf32>, %b1: tensor<512xf32>, %w2: tensor<512x512xf32>, %b2: tensor<512xf32>, %w3: tensor<512x10xf32>, %b3: tensor<10xf32>) -> tensor<64x10xf32> {
  %cst = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %f1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x784xf32>, tensor<784x512xf32>) outs(%f1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %a1 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m1, %b1 : tensor<64x512xf32>, tensor<512xf32>) outs(%e1 : tensor<64x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  } -> tensor<64x512xf32>
  %m2 = linalg.matmul ins(%a1, %w2 : tensor<64x512xf32>, tensor<512x512xf32>) outs(%f1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %a2 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m2, %b2 : tensor<64x512xf32>, tensor<512xf32>) outs(%e1 : tensor<64x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  } -> tensor<64x512xf32>
  %e3 = tensor.empty() : tensor<64x10xf32>
  %f3 = linalg.fill ins(%cst : f32) outs(%e3 : tensor<64x10xf32>) -> tensor<64x10xf32>
  %m3 = linalg.matmul ins(%a2, %w3 : tensor<64x512xf32>, tensor<512x10xf32>) outs(%f3 : tensor<64x10xf32>) -> tensor<64x10xf32>
  %a3 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m3, %b3 : tensor<64x10xf32>, tensor<10xf32>) outs(%e3 : tensor<64x10xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>
  return %a3 : tensor<64x10xf32>
}
"""

EW = """
func.func @ew(%a: tensor<Nxf32>, %b: tensor<Nxf32>, %c: tensor<Nxf32>) -> tensor<Nxf32> {
  %m = arith.mulf %a, %b : tensor<Nxf32>
  %s = arith.addf %m, %c : tensor<Nxf32>
  %e = math.exp %s : tensor<Nxf32>
  return %e : tensor<Nxf32>
}
"""

MLP_SHAPES = [(64, 784), (784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
IREE_FLAGS = ["--iree-opt-data-tiling", "--iree-llvmcpu-target-cpu=host"]


def _inputs(shapes, seed=0):
    r = np.random.default_rng(seed)
    return [(r.standard_normal(s) * 0.1).astype(np.float32) for s in shapes]


def _np_mlp(x, w1, b1, w2, b2, w3, b3):
    h = np.maximum(x @ w1 + b1, 0)
    h = np.maximum(h @ w2 + b2, 0)
    return h @ w3 + b3


class Case:
    """One program compiled by both, loaded on one device kind, checked against numpy."""

    def __init__(self, ic, ireert, text, fn, uri, driver, ins, expect):
        self.rt_module = rt.load(rt.compile(text, devices=["llvm-cpu"]), devices=[uri])
        self.rt_fn = self.rt_module[fn]
        vmfb = ic.compile_str(text, target_backends=["llvm-cpu"], extra_args=IREE_FLAGS)
        self.iree_ns, self.iree_ctx = iree_module(ireert, vmfb, driver)
        self.iree_fn = self.iree_ns[fn]
        self.ins = ins
        got_rt = np.asarray(self.rt_fn(*ins))
        got_iree = np.asarray(self.iree_fn(*ins))
        for who, got in (("rt", got_rt), ("iree", got_iree)):
            if not np.allclose(got, expect, rtol=1e-3, atol=1e-3):
                raise SystemExit(f"{who} result of @{fn} on {uri} differs from numpy")

    def rt_call(self):
        return np.asarray(self.rt_fn(*self.ins))

    def iree_call(self):
        return np.asarray(self.iree_fn(*self.ins))


def _ratio_row(name, case, rounds, cpu_time=False):
    """rt and IREE timed in interleaved rounds: wall time, or with ``cpu_time`` the calling
    thread's CPU time (local-sync rows only: all their work runs on the calling thread, so
    other processes on the cores do not count)."""
    clock = time.thread_time if cpu_time else time.perf_counter
    got = compare({"rt": case.rt_call, "iree": case.iree_call}, rounds=rounds, clock=clock)
    return {"case": name + (" (CPU time)" if cpu_time else ""), "rt_us": got["rt"] * 1e6,
            "iree_us": got["iree"] * 1e6, "rt/iree": got["rt/iree"]}


def _split(case, calls=50):
    """Per call: wall time, time in dispatches (trace zones of commands naming an executable)
    and in queue_execute zones, from one traced run of ``calls`` calls (rt only)."""
    from rt.trace import Tracer

    module = case.rt_module
    fn = module[case.rt_fn.name]
    tracer = Tracer()
    traced = rt.load(module.module, devices=list(module.devices), tracer=tracer)
    tfn = traced[case.rt_fn.name]
    tfn(*case.ins)
    start = tracer.now()
    t0 = time.perf_counter()
    for _ in range(calls):
        np.asarray(tfn(*case.ins))
    traced_wall = (time.perf_counter() - t0) / calls
    events = [e for e in tracer.events if e.get("ph") == "X" and e["ts"] >= start]
    traced.close()
    dispatch = sum(e["dur"] for e in events if "executable" in (e.get("args") or {}))
    queue = sum(e["dur"] for e in events if str(e.get("name", "")).startswith("queue_execute"))
    t0 = time.perf_counter()
    for _ in range(calls):
        np.asarray(fn(*case.ins))
    wall = (time.perf_counter() - t0) / calls
    return {"wall_us": wall * 1e6, "traced_wall_us": traced_wall * 1e6,
            "dispatch_us": dispatch / calls, "queue_execute_us": queue / calls,
            "host_us": wall * 1e6 - dispatch / calls}


def _rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _rss_row(name, call, calls):
    samples = []
    marks = sorted({1000, 10000, *range(calls // 10, calls + 1, calls // 10)})
    done = 0
    t0 = time.perf_counter()
    for mark in marks:
        while done < mark:
            call()
            done += 1
        samples.append((done, _rss_kib()))
    base = dict(samples)[10000]
    return {"case": name, "calls": calls, "seconds": time.perf_counter() - t0,
            "rss_kib": samples, "growth_kib_10k_to_end": samples[-1][1] - base}


def _threads_row(name, call, n_calls, rounds):
    """Throughput of two threads (each ``n_calls`` calls) over one thread (``n_calls``), and
    the process's CPU time over wall time while one and two threads ran ("cores_used_one" /
    "_two": near 1 / 2 on an idle machine; below that, other work took the cores)."""
    def one():
        t, cpu = time.perf_counter(), time.process_time()
        for _ in range(n_calls):
            call()
        t = time.perf_counter() - t
        cores_one.append((time.process_time() - cpu) / t)
        return t

    def two():
        barrier = threading.Barrier(3)

        def work():
            barrier.wait()
            for _ in range(n_calls):
                call()

        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        barrier.wait()
        t, cpu = time.perf_counter(), time.process_time()
        for th in threads:
            th.join()
        t = time.perf_counter() - t
        cores.append((time.process_time() - cpu) / t)
        return t

    cores_one = []
    one()  # warm-up
    ratios, t1s, t2s, cores, cores_one = [], [], [], [], []
    for _ in range(rounds):
        t1, t2 = one(), two()
        t1s.append(t1 / n_calls)
        t2s.append(t2 / (2 * n_calls))
        ratios.append((2 * n_calls / t2) / (n_calls / t1))
    return {"case": name, "one_thread_us_per_call": statistics.median(t1s) * 1e6,
            "two_threads_us_per_call": statistics.median(t2s) * 1e6,
            "speedup": statistics.median(ratios), "cores_used_one": statistics.median(cores_one),
            "cores_used_two": statistics.median(cores),
            "loadavg_1min": os.getloadavg()[0]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default="", help="comma-separated rows: tiny,mlp_task,mlp_sync,rss,threads")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--rss-calls", type=int, default=100000)
    p.add_argument("--ew-n", type=int, default=65536, help="elements of the threads row's function")
    p.add_argument("--thread-calls", type=int, default=2000, help="calls per thread and round")
    p.add_argument("--split", action="store_true", help="trace the MLP rows for dispatch vs host time")
    p.add_argument("--cpu-time", action="store_true",
                   help="also time the local-sync rows by the calling thread's CPU time")
    p.add_argument("--json")
    args = p.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    want = (lambda k: not only or k in only)
    ic, ireert = load_iree()
    print(f"# rt vs IREE {ireert.__name__} 3.13 — {machine()}; load average "
          f"{'/'.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min; other work on the "
          "cores skews the threads row most)", flush=True)
    rows = []
    a4, b4 = _inputs([(4,), (4,)])
    tiny = None
    if want("tiny") or want("rss"):
        tiny = Case(ic, ireert, ADD, "add", "local-sync://llvm-cpu", "local-sync", [a4, b4], a4 + b4)
    if want("tiny"):
        rows.append(_ratio_row("add 4xf32, local-sync", tiny, args.rounds))
        print(rows[-1], flush=True)
        if args.cpu_time:
            rows.append(_ratio_row("add 4xf32, local-sync", tiny, args.rounds, True))
            print(rows[-1], flush=True)
    mlp_ins = _inputs(MLP_SHAPES)
    for key, uri, driver in (("mlp_task", "local-task://llvm-cpu", "local-task"),
                             ("mlp_sync", "local-sync://llvm-cpu", "local-sync")):
        if not want(key):
            continue
        case = Case(ic, ireert, MLP, "mlp", uri, driver, mlp_ins, _np_mlp(*mlp_ins))
        rows.append(_ratio_row(f"MLP 64x784-512-512-10, {driver}", case, args.rounds))
        if args.cpu_time and driver == "local-sync":
            print(rows[-1], flush=True)
            rows.append(_ratio_row(f"MLP 64x784-512-512-10, {driver}", case, args.rounds, True))
        if args.split:
            rows[-1].update(_split(case))
        print(rows[-1], flush=True)
        case.rt_module.close()
    if want("rss"):
        rows.append(_rss_row("rss: rt add 4xf32, local-sync", tiny.rt_call, args.rss_calls))
        print(rows[-1], flush=True)
        rows.append(_rss_row("rss: iree add 4xf32, local-sync", tiny.iree_call, args.rss_calls))
        print(rows[-1], flush=True)
    if want("threads"):
        text = EW.replace("N", str(args.ew_n))
        ins = _inputs([(args.ew_n,)] * 3)
        case = Case(ic, ireert, text, "ew", "local-sync://llvm-cpu", "local-sync", ins,
                    np.exp(ins[0] * ins[1] + ins[2]))
        rows.append(_threads_row(f"threads: rt exp(a*b+c) {args.ew_n} f32, local-sync", case.rt_call,
                                 args.thread_calls, args.rounds))
        print(rows[-1], flush=True)
        rows.append(_threads_row(f"threads: iree exp(a*b+c) {args.ew_n} f32, local-sync", case.iree_call,
                                 args.thread_calls, args.rounds))
        print(rows[-1], flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
