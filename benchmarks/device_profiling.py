"""Benchmark: device profiling and HAL replay of the MLP (examples/mlp.mlir, llvm-cpu).

Rows:

* ``profile vs trace``: the MLP called ``--calls`` times with a Tracer and a DeviceProfiler
  both installed (``--trace`` and ``--device_profiling_output`` together); the total dispatch
  time of the profile against the total of the trace's dispatch zones (the issue's aim: within
  5%), and per dispatch entry the largest difference;
* ``call, plain / traced+profiled``: median ms per call without a sink and with both;
* ``replay``: median ms of a replay pass (``rt replay benchmark``: upload of the recorded host
  contents + the queue work) against the call it recorded; and the recording's size.

Usage: ``python benchmarks/device_profiling.py [--calls N] [--device URI] [--json OUT]``.
"""
import argparse
import json
import pathlib
import statistics
import tempfile
import time

import numpy as np

import rt
from rt.runtime.hal.profiling import DeviceProfiler, TeeSink
from rt.runtime.hal.replay_format import ReplayFile
from rt.runtime.hal.replay_player import ReplayPlayer
from rt.runtime.hal.replay_recorder import ReplayRecorder
from rt.trace import Tracer

SOURCE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "mlp.mlir"
SHAPES = [(64, 784), (784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]


def _median_ms(fn, calls):
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=50)
    p.add_argument("--device", default="local-task://llvm-cpu")
    p.add_argument("--json", help="write the results to this JSON file")
    args = p.parse_args(argv)
    vmfb = rt.compile(str(SOURCE), devices=["llvm-cpu"])
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    results = {"device": args.device, "calls": args.calls}

    with rt.load(vmfb, devices=[args.device]) as m:
        f = m.lookup("mlp")
        prepared = f.prepare(*inputs)
        f.invoke(prepared)
        results["call_ms"] = _median_ms(lambda: f.invoke(prepared), args.calls)
        with tempfile.TemporaryDirectory() as tmp:
            recorder = ReplayRecorder(m.devices)
            recorder.add_outputs(f.invoke(prepared))
            recorder.detach()
            path = pathlib.Path(tmp) / "mlp.rtreplay"
            recorder.write(path)
            results["replay_bytes"] = path.stat().st_size
            player = ReplayPlayer(ReplayFile(str(path)))
            try:
                player.verify(player.run())
                results["replay_pass_ms"] = _median_ms(player.run, args.calls)
            finally:
                player.close()

    tracer, profiler = Tracer(), DeviceProfiler()
    with rt.load(vmfb, devices=[args.device], tracer=TeeSink([tracer, profiler])) as m:
        f = m.lookup("mlp")
        prepared = f.prepare(*inputs)
        results["traced_profiled_call_ms"] = _median_ms(lambda: f.invoke(prepared), args.calls)
    zones = {}
    for e in tracer.events:
        if e.get("ph") == "X" and "ordinal" in e.get("args", {}):
            zones.setdefault(e["name"], []).append(e["dur"] * 1e3)
    profiled = {}
    for d in profiler.dispatches:
        profiled.setdefault(d["entry"], []).append(d["end_ns"] - d["start_ns"])
    trace_total, profile_total = sum(map(sum, zones.values())), sum(map(sum, profiled.values()))
    results["trace_dispatch_ms"], results["profile_dispatch_ms"] = trace_total / 1e6, profile_total / 1e6
    results["profile_vs_trace"] = abs(profile_total - trace_total) / trace_total
    results["worst_entry_difference"] = max(abs(sum(profiled[k]) - sum(zones[k])) / sum(zones[k]) for k in zones)
    print(f"profile vs trace, {args.calls} MLP calls on {args.device}: dispatch time "
          f"{results['profile_dispatch_ms']:.3f} ms vs {results['trace_dispatch_ms']:.3f} ms "
          f"({results['profile_vs_trace']:.2%}; worst entry {results['worst_entry_difference']:.2%})")
    print(f"call, plain / traced+profiled: {results['call_ms']:.3f} / {results['traced_profiled_call_ms']:.3f} ms")
    print(f"replay pass / recorded call: {results['replay_pass_ms']:.3f} / {results['call_ms']:.3f} ms; "
          f"recording {results['replay_bytes'] / 1e6:.2f} MB")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
