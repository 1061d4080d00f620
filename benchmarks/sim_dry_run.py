"""Dry-run simulation at scale (issue 23): how long rt takes to simulate many devices.

Rows (wall seconds on this host, each case loaded and called once, ``rt.load(...,
dry_run=True)``: no kernels, no device memory, docs/MULTI_DEVICE.md §8):

* ``ring all_reduce N ranks``: one ``shard.all_reduce`` of 16 KiB (4096 f32) over N ranks on
  a ring of N devices (50 GB/s, 2 µs links); its simulated makespan is the ring formula
  2(N-1)(L + 16 KiB/N / W). With ``--computed`` the same program also runs computed (every
  rank's executor and the in-process channel really reduce) at the smallest N, for the ratio.
* ``tp_mlp N ranks``: examples/multi_device/tp_mlp.mlir's Megatron MLP at a real layer's size
  (2048 tokens, d_model 4096, d_ff 16384 split over N ranks, f32) on N devices of 80 GiB,
  300 TFLOP/s and 3 TB/s in a ring of 450 GB/s links; prints the simulated step time and the
  peak bytes per device from the report.

    python benchmarks/sim_dry_run.py [--ring=64,1024] [--tp=64] [--computed]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import rt  # noqa: E402
from iree_peer import machine  # noqa: E402

RING = """
shard.grid @grid(shape = {n})
func.func @ar(%x: tensor<4096xf32>) -> tensor<4096xf32> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4096xf32> -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}}
"""
TOKENS, MODEL, HIDDEN = 2048, 4096, 16384


def ring_topology(n, device, link):
    """N devices (``device`` fields) in a ring of ``link`` links."""
    return {"name": f"ring{n}",
            "devices": [dict(name=f"g{r}", uri="local-sync://llvm-cpu", **device) for r in range(n)],
            "links": [dict(between=[f"g{r}", f"g{(r + 1) % n}"], **link) for r in range(n)]}


def tp_mlp_text(n):
    """examples/multi_device/tp_mlp.mlir with the grid and shapes of the benchmark."""
    with open(os.path.join(os.path.dirname(__file__), "..", "examples", "multi_device", "tp_mlp.mlir"),
              encoding="utf-8") as f:
        text = f.read()
    h = HIDDEN // n
    for old, new in (("shape = 4", f"shape = {n}"), ("8x64", f"{TOKENS}x{MODEL}"), ("64x32", f"{MODEL}x{h}"),
                     ("8x32", f"{TOKENS}x{h}"), ("32x16", f"{h}x{MODEL}"), ("8x16", f"{TOKENS}x{MODEL}"),
                     ("<32xf32>", f"<{h}xf32>"), ("<16xf32>", f"<{MODEL}xf32>")):
        text = text.replace(old, new)
    return text, [(TOKENS, MODEL), (MODEL, h), (h,), (h, MODEL), (MODEL,)]


def timed(vmfb, topology, n, args, dry_run):
    """(load s, call s, report) of one SPMD call."""
    start = time.perf_counter()
    with rt.load(vmfb, topology=topology, ranks=n, deterministic=True, dry_run=dry_run) as m:
        loaded = time.perf_counter()
        m[m.functions[0]].spmd(args)
        called = time.perf_counter()
        report = m.report()
    return loaded - start, called - loaded, report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ring", default="64,1024")
    parser.add_argument("--tp", default="64")
    parser.add_argument("--computed", action="store_true")
    args = parser.parse_args()
    print(machine())
    rings = [int(n) for n in args.ring.split(",") if n]
    for n in rings:
        vmfb = rt.compile(RING.format(n=n), devices=["llvm-cpu"])
        topo = ring_topology(n, {"memory": "1GiB"}, {"bandwidth_gbps": 50, "latency_us": 2})
        cases = [("dry run", True, [[rt.NotComputed((4096,), np.float32)]] * n)]
        if args.computed and n == rings[0]:
            cases.append(("computed", False, [[np.ones(4096, np.float32)] for _ in range(n)]))
        for name, dry, inputs in cases:
            load_s, call_s, report = timed(vmfb, topo, n, inputs, dry)
            print(f"ring all_reduce 16 KiB, {n} ranks, {name}: load {load_s:.2f} s, call {call_s:.2f} s; "
                  f"simulated makespan {report['makespan_us']:.3f} us, formula "
                  f"{2 * (n - 1) * (2 + 16384 / n / 50e3):.3f} us")
    for n in [int(n) for n in args.tp.split(",") if n]:
        text, shapes = tp_mlp_text(n)
        vmfb = rt.compile(text, devices=["llvm-cpu"])
        topo = ring_topology(n, {"memory": "80GiB", "peak_gflops": 300000, "memory_gbps": 3000},
                             {"bandwidth_gbps": 450, "latency_us": 3})
        inputs = [[rt.NotComputed(s, np.float32) for s in shapes]] * n
        load_s, call_s, report = timed(vmfb, topo, n, inputs, True)
        peaks = {d["peak_bytes"] for d in report["devices"].values()}
        print(f"tp_mlp {TOKENS}x{MODEL}x{HIDDEN}, {n} ranks, dry run: load {load_s:.2f} s, call {call_s:.2f} s; "
              f"simulated step {report['makespan_us']:.3f} us, peak bytes per device "
              f"{', '.join(str(p) for p in sorted(peaks))}")


if __name__ == "__main__":
    main()
