"""Benchmark: two independent matmuls on two devices vs on one (examples/multi_device/twin_matmuls.mlir).

The program multiplies one 512x512x512 f32 pair on device @a and another on @b (plus the
transfers of @b's inputs and result). Rows (median of ``--calls`` calls, ms per call):

* ``two devices``: @a and @b bound to two local-task llvm-cpu devices, each with
  ``threads=T`` workers: both queues run at once;
* ``one device``: one such device bound to both globals: its single queue runs the two
  matmuls one after the other.

With ``threads=1`` the two-device row can use two cores where the one-device row uses one; the
ratio is the concurrency the compiled schedule exposes. ``--trace=FILE`` also writes the
trace of the last two-device call (both dispatch zones overlap).
Usage: ``python benchmarks/multi_device.py [--calls N] [--threads T...] [--json OUT]``.
"""
import argparse
import json
import pathlib
import statistics
import time

import numpy as np

import rt
from rt.runtime.hal import create_device

SOURCE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "multi_device" / "twin_matmuls.mlir"


def _median_ms(fn, calls):
    fn()
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--trace", help="write the trace of the last two-device call here")
    p.add_argument("--json", help="write results to this JSON file")
    args = p.parse_args(argv)
    vmfb = rt.compile(SOURCE, devices=["a=llvm-cpu", "b=llvm-cpu"])
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((512, 512), np.float32) for _ in range(4)]
    rows = []
    for threads in args.threads:
        uri = f"local-task://llvm-cpu?threads={threads}"
        with rt.load(vmfb, devices=[uri, uri]) as m:
            two = _median_ms(lambda: m.twin(*inputs), args.calls)
        device = create_device(uri)
        try:
            with rt.load(vmfb, devices=[device, device]) as m:
                one = _median_ms(lambda: m.twin(*inputs), args.calls)
        finally:
            device.release()
        rows.append({"threads": threads, "two_devices_ms": two, "one_device_ms": one,
                     "speedup": one / two})
    if args.trace:
        tracer = rt.Tracer()
        with rt.load(vmfb, devices=[uri, uri], tracer=tracer) as m:
            m.twin(*inputs)
        tracer.write(args.trace)
    print(f"{'threads/device':>15}{'two devices ms':>16}{'one device ms':>15}{'speedup':>9}")
    for r in rows:
        print(f"{r['threads']:>15}{r['two_devices_ms']:>16.2f}{r['one_device_ms']:>15.2f}{r['speedup']:>9.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
