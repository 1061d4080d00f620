"""Issue 10's kernels side by side with IREE 3.13, in one process.

Cases (IREE compiled with ``--iree-opt-data-tiling --iree-llvmcpu-target-cpu=host`` and run on
local-task; rt on ``local-task://llvm-cpu``, 2 threads, data tiling on):

* ``conv3x3``   conv_2d_nhwc_hwcf 1x58x58x64 * 3x3x64x64 -> 1x56x56x64 (f32)
* ``resblock``  conv+bias+relu, conv+bias+residual+relu at 28x28x64 (two 3x3x64x64 filters)
* ``bmm``       batch_matmul 16x256x256x256
* ``matmul``    matmul 1024^3 f32
* ``mlp``       64x784-512-512-10 with bias + relu: whole call, and the dispatch time (below)
* ``heads``     four independent heads x @ w_i (32x256 * 256x64) summed: small dispatches that
  a command buffer runs side by side (concurrency inside a command buffer)
* ``vmvx_exp``  exp(a*b+c) over 256k f32 on vmvx (IREE's vmvx backend), local-sync on both

Every case is checked against numpy on both sides, then timed in interleaved rounds
(``iree_peer.compare``: per round the median of N calls of rt, then of IREE; the ratio is
taken per round, median over rounds). Inputs are numpy arrays, outputs come back as numpy
arrays on both sides, so a figure is what a Python user of either runtime sees.

MLP dispatch time. IREE's Python runtime cannot record dispatch timings (its HAL profiling
needs a profile sink the bindings do not expose), so both runtimes are measured the same way:
the *device time of a call* = time of the MLP call minus time of an "empty" call with the same
seven arguments and the same 64x10 result that dispatches nothing (``@mlp_empty`` returns a
constant). What remains is the work that the dispatches (and the queue submissions/waits that
carry them) add to a call. rt's figure from its own trace (sum of dispatch zones per call) is
printed beside it as a cross-check, and with ``--iree-profile`` the script also runs
``iree-benchmark-module --device_profiling_mode=host-execution`` (IREE's per-dispatch host
execution stats, a separate process) for IREE's sum of dispatch times.

``--cpu-time``: both runtimes on local-sync (every dispatch inline on the calling thread) and
each call timed by the CPU time of that thread (``time.thread_time``): the work a call does on
one core, which other processes competing for the cores do not inflate. Use it on a busy
machine, where wall-clock ratios between two runtimes with different thread pools are noise.
It also prints each case's user / system CPU time per call and page faults (getrusage): IREE's
Python runtime on local-sync can fault in its large result and transient buffers on every call
(system time), depending on the process's malloc state, which the user time leaves out.

Usage: python benchmarks/kernels_vs_iree.py [--only conv3x3,bmm] [--rounds 5] [--json OUT]
       [--iree-profile] [--cpu-time]
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iree_peer import compare, iree_dir, iree_module, load_iree, machine  # noqa: E402

import rt  # noqa: E402
from rt.devices.llvm_cpu import _launcher  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "benchmarks", "programs")


def program(name):
    with open(os.path.join(PROGRAMS, name)) as f:
        return f.read()


def np_conv(x, w):
    from numpy.lib.stride_tricks import sliding_window_view

    win = sliding_window_view(x, w.shape[:2], axis=(1, 2))  # n h w c kh kw
    return np.einsum("nhwcij,ijcf->nhwf", win, w, optimize=True)


def np_resblock(x, w1, b1, w2, b2):
    r1 = np.maximum(np_conv(x, w1) + b1, 0)
    return np.maximum(np_conv(r1, w2) + b2 + x[:, 2:28, 2:28, :], 0)


def np_mlp(x, w1, b1, w2, b2, w3, b3):
    h = np.maximum(x @ w1 + b1, 0)
    h = np.maximum(h @ w2 + b2, 0)
    return h @ w3 + b3


MLP_SHAPES = [(64, 784), (784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]

# name: (program, function, input shapes, numpy reference, vmvx?)
CASES = {
    "conv3x3": ("conv_3x3_56x56x64.mlir", "conv", [(1, 58, 58, 64), (3, 3, 64, 64)], np_conv, False),
    "resblock": ("resblock_28x28x64.mlir", "resblock",
                 [(1, 30, 30, 64), (3, 3, 64, 64), (64,), (3, 3, 64, 64), (64,)], np_resblock, False),
    "bmm": ("batch_matmul_16x256.mlir", "bmm", [(16, 256, 256), (16, 256, 256)], lambda a, b: a @ b, False),
    "matmul": ("../../examples/matmul_f32.mlir", "foo", [(1024, 1024), (1024, 1024)], lambda a, b: a @ b, False),
    "mlp": ("../../examples/mlp.mlir", "mlp", MLP_SHAPES, np_mlp, False),
    "heads": ("heads_4x32x256.mlir", "heads", [(32, 256)] + [(256, 64)] * 4,
              lambda x, *ws: sum(x @ w for w in ws), False),
    "vmvx_exp": ("exp_fma.mlir", "exp_fma", [(262144,)] * 3, lambda a, b, c: np.exp(a * b + c), True),
}

MLP_EMPTY = """
func.func @mlp_empty(%x: tensor<64x784xf32>, %w1: tensor<784x512xf32>, %b1: tensor<512xf32>,
    %w2: tensor<512x512xf32>, %b2: tensor<512xf32>, %w3: tensor<512x10xf32>, %b3: tensor<10xf32>)
    -> tensor<64x10xf32> {
  %c = arith.constant dense<0.0> : tensor<64x10xf32>
  return %c : tensor<64x10xf32>
}
"""


def inputs(shapes, seed=0):
    r = np.random.default_rng(seed)
    return [(r.standard_normal(s) * 0.1).astype(np.float32) for s in shapes]


def source(name):
    text = program(CASES[name][0])
    if name == "vmvx_exp":
        text = text.replace("4194304", "262144")
    return text


def build(ic, ireert, name, driver="local-task"):
    """(rt callable, IREE callable, keep-alive objects) for one case, results checked;
    ``driver``: the llvm-cpu cases' driver on both sides (vmvx runs local-sync)."""
    _, fn, shapes, ref, vmvx = CASES[name]
    text = source(name)
    if vmvx:
        rvmfb = rt.compile(text, devices=["vmvx"])
        rmod = rt.load(rvmfb, devices=["local-sync://vmvx"])
        ivmfb = ic.compile_str(text, target_backends=["vmvx"])
        imod, ictx = iree_module(ireert, ivmfb, "local-sync")
    else:
        rvmfb = rt.compile(text, devices=["llvm-cpu"])
        rmod = rt.load(rvmfb, devices=[f"{driver}://llvm-cpu"])
        ivmfb = ic.compile_str(text, target_backends=["llvm-cpu"],
                               extra_args=["--iree-opt-data-tiling", "--iree-llvmcpu-target-cpu=host"])
        imod, ictx = iree_module(ireert, ivmfb, driver)
    rfn, ifn = getattr(rmod, fn), imod[fn]
    args = inputs(shapes)
    want = ref(*args)
    for side, f in (("rt", rfn), ("iree", ifn)):
        got = np.asarray(f(*args))
        if not np.allclose(got, want, rtol=1e-3, atol=1e-3):
            raise SystemExit(f"{name}: {side} differs from numpy (max abs err "
                             f"{np.max(np.abs(got - want)):.3g})")
    return (lambda: np.asarray(rfn(*args))), (lambda: np.asarray(ifn(*args))), (rmod, ictx, imod)


def user_sys_ms(fn, budget_s=1.0):
    """(user ms, system ms, minor page faults) per call of ``fn`` on this thread
    (getrusage(RUSAGE_THREAD) over at least 20 calls and ``budget_s`` seconds, since the kernel
    splits user and system time by ticks): where a call's CPU time goes, e.g. the page faults
    of a runtime whose allocator returns large buffers to the OS every call."""
    fn()
    a = resource.getrusage(resource.RUSAGE_THREAD)
    start, calls = time.perf_counter(), 0
    while calls < 20 or time.perf_counter() - start < budget_s:
        fn()
        calls += 1
    b = resource.getrusage(resource.RUSAGE_THREAD)
    return ((b.ru_utime - a.ru_utime) * 1e3 / calls, (b.ru_stime - a.ru_stime) * 1e3 / calls,
            (b.ru_minflt - a.ru_minflt) / calls)


def rt_trace_dispatch_ms(text, fn, args, calls=50):
    """Median over ``calls`` calls of the summed dispatch zones of one call, from rt's trace."""
    tracer = rt.Tracer()
    m = rt.load(rt.compile(text, devices=["llvm-cpu"]), devices=["local-task://llvm-cpu"], tracer=tracer)
    f = getattr(m, fn)
    for _ in range(calls + 1):
        f(*args)
    per_call, current = [], 0.0
    for event in tracer.events:
        if event.get("ph") != "X":
            continue
        if event["name"].startswith("EXEC @"):
            per_call.append(current)
            current = 0.0
        elif "_dispatch_" in event["name"] and ":" not in event["name"]:
            current += event["dur"] / 1e3
    m.close()
    return statistics.median(per_call[-calls:])


def iree_profile_dispatch_ms(ic, text, fn, shapes, calls=50):
    """IREE's summed per-dispatch host execution time per call, from iree-benchmark-module's
    HAL profile (``--device_profiling_mode=host-execution``), run as a separate process."""
    bindir = os.path.join(iree_dir(), "bin")
    env = dict(os.environ, PYTHONPATH=iree_dir())
    with tempfile.TemporaryDirectory() as tmp:
        vmfb = os.path.join(tmp, "m.vmfb")
        with open(vmfb, "wb") as f:
            f.write(ic.compile_str(text, target_backends=["llvm-cpu"],
                                   extra_args=["--iree-opt-data-tiling", "--iree-llvmcpu-target-cpu=host"]))
        prof = os.path.join(tmp, "m.ireeprof")
        cmd = [os.path.join(bindir, "iree-benchmark-module"), f"--module={vmfb}", "--device=local-task",
               f"--function={fn}", f"--benchmark_min_time={calls}x",
               "--device_profiling_mode=host-execution", f"--device_profiling_output={prof}"]
        cmd += ["--input=" + "x".join(map(str, s)) + "xf32" for s in shapes]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        out = subprocess.run([os.path.join(bindir, "iree-profile"), "dispatch", prof], env=env,
                             check=True, capture_output=True, text=True).stdout
    total_ns = sum(int(t) for t in re.findall(r"\btotal=(\d+) tile_count", out))
    return total_ns / 1e6 / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated case names: " + ",".join(CASES))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", default=None)
    ap.add_argument("--iree-profile", action="store_true",
                    help="also measure IREE's MLP dispatch time with iree-benchmark-module's HAL profile")
    ap.add_argument("--cpu-time", action="store_true",
                    help="local-sync on both sides, calls timed by the calling thread's CPU time")
    args = ap.parse_args()
    only = [n for n in args.only.split(",") if n] or list(CASES)
    ic, ireert = load_iree()
    driver = "local-sync" if args.cpu_time else "local-task"
    clock = time.thread_time if args.cpu_time else time.perf_counter
    print(f"# rt vs IREE 3.13, one process; {machine()}; {driver}; ms per call "
          f"({'thread CPU time' if args.cpu_time else 'wall time'}, median of {args.rounds} "
          f"interleaved rounds)")
    print(f"{'case':26} {'rt ms':>9} {'iree ms':>9} {'rt/iree':>8}")
    results = {}
    for name in only:
        rfn, ifn, keep = build(ic, ireert, name, driver)
        if name == "mlp":
            text = source("mlp")
            rempty = getattr(rt.load(rt.compile(MLP_EMPTY, devices=["llvm-cpu"]),
                                     devices=[f"{driver}://llvm-cpu"]), "mlp_empty")
            iempty, ictx = iree_module(ireert, ic.compile_str(MLP_EMPTY, target_backends=["llvm-cpu"]),
                                       driver)
            a = inputs(MLP_SHAPES)
            sides = {"rt": rfn, "iree": ifn,
                     "rt_empty": lambda: np.asarray(rempty(*a)),
                     "iree_empty": lambda: np.asarray(iempty["mlp_empty"](*a))}
            r = compare(sides, rounds=args.rounds, clock=clock)
            rows = {"mlp": (r["rt"], r["iree"], r["rt/iree"]),
                    "mlp device time": (r["rt"] - r["rt_empty"], r["iree"] - r["iree_empty"],
                                        (r["rt"] - r["rt_empty"]) / (r["iree"] - r["iree_empty"]))}
            trace_ms = rt_trace_dispatch_ms(text, "mlp", a)
            print(f"#   mlp empty call: rt {r['rt_empty'] * 1e3:.3f} ms, iree {r['iree_empty'] * 1e3:.3f} ms;"
                  f" rt dispatches from its trace: {trace_ms:.3f} ms")
            results["mlp_rt_trace_dispatch_ms"] = trace_ms
            if args.iree_profile:
                prof_ms = iree_profile_dispatch_ms(ic, text, "mlp", MLP_SHAPES)
                print(f"#   iree dispatches from iree-benchmark-module host-execution profile: {prof_ms:.3f} ms")
                results["mlp_iree_profile_dispatch_ms"] = prof_ms
            del ictx
        elif name == "heads":
            def serial():
                _launcher.set_concurrent_dispatches(False)
                try:
                    return rfn()
                finally:
                    _launcher.set_concurrent_dispatches(True)

            r = compare({"rt": rfn, "iree": ifn, "rt_serial": serial}, rounds=args.rounds, clock=clock)
            rows = {"heads": (r["rt"], r["iree"], r["rt/iree"]),
                    "heads, dispatches one by one": (r["rt_serial"], r["iree"], r["rt_serial"] / r["iree"])}
            print(f"#   heads: rt side by side / one by one {r['rt/rt_serial']:.2f}")
        else:
            r = compare({"rt": rfn, "iree": ifn}, rounds=args.rounds, clock=clock)
            rows = {name: (r["rt"], r["iree"], r["rt/iree"])}
        for row, (rs, i_s, ratio) in rows.items():
            print(f"{row:26} {rs * 1e3:9.3f} {i_s * 1e3:9.3f} {ratio:8.2f}", flush=True)
            results[row] = {"rt_ms": rs * 1e3, "iree_ms": i_s * 1e3, "rt_over_iree": ratio}
        if args.cpu_time:
            split = {side: user_sys_ms(fn) for side, fn in (("rt", rfn), ("iree", ifn))}
            print(f"#   {name}: user / system CPU ms per call (page faults per call): "
                  + "; ".join(f"{side} {u:.3f} / {s:.3f} ({f:.0f})" for side, (u, s, f) in split.items()))
            results[f"{name} user/sys"] = split
        del keep
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
