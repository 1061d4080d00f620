"""What simulation and SPMD cost on the host: wall time per call, simulated vs real devices.

Rows (medians of interleaved rounds, ``compare`` from iree_peer):

* ``add 4xf32``: one tiny call on ``local-sync://llvm-cpu`` vs the same call on a one-device
  deterministic topology (the simulator's per-call overhead: gates, scheduler, virtual clocks),
  and IREE 3.13's call of the same program on its ``local-sync`` driver in the same rounds.
* ``tp_mlp 4 ranks``: examples/multi_device/tp_mlp.mlir's SPMD call on 4 real local devices vs
  on the 4 simulated GPUs of tp4.yaml (deterministic).
* ``all_reduce 1 MiB``: an all_reduce of 262144 f32 over 4 in-process ranks (LocalWorld) vs
  numpy summing the same four arrays (the in-process channel's data path).

IREE 3.13 has no simulator nor in-process collectives (its collectives need MPI processes), so
the SPMD rows have no peer; their ratios are against rt's own real-device path and numpy.

    python benchmarks/simulation.py [--rounds=5]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import rt  # noqa: E402
from iree_peer import compare, iree_module, load_iree, machine  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples", "multi_device")
ADD = """
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
ALL_REDUCE = """
shard.grid @grid(shape = 4)
func.func @ar(%x: tensor<262144xf32>) -> tensor<262144xf32> {
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<262144xf32> -> tensor<262144xf32>
  return %r : tensor<262144xf32>
}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    a = np.ones(4, np.float32)
    add = rt.compile(ADD, devices=["llvm-cpu"])
    real = rt.load(add, devices=["local-sync://llvm-cpu"])
    sim = rt.load(add, topology={"devices": [{"name": "d", "uri": "local-sync://llvm-cpu"}]}, deterministic=True)
    ic, ireert = load_iree()
    peer, _ctx = iree_module(ireert, ic.compile_str(ADD, target_backends=["llvm-cpu"]), "local-sync")
    np.testing.assert_array_equal(np.asarray(peer.add(a, a)), sim.add(a, a))
    row = compare({"simulated": lambda: sim.add(a, a), "real": lambda: real.add(a, a),
                   "iree": lambda: np.asarray(peer.add(a, a))}, rounds=args.rounds)
    print(machine())
    print(f"add 4xf32 (per call): real {row['real'] * 1e6:.1f} us, simulated "
          f"{row['simulated'] * 1e6:.1f} us, IREE {row['iree'] * 1e6:.1f} us; simulated/real "
          f"{row['simulated/real']:.2f}x, simulated/IREE {row['simulated/iree']:.2f}x")

    with open(os.path.join(EXAMPLES, "tp_mlp.mlir"), encoding="utf-8") as f:
        tp = rt.compile(f.read(), devices=["llvm-cpu"])
    rng = np.random.default_rng(0)
    args_tp = [[rng.standard_normal(s).astype(np.float32) for s in ((8, 64), (64, 32), (32,), (32, 16), (16,))]
               for _ in range(4)]
    tp_real = rt.load(tp, ranks=4, devices=["local-sync://llvm-cpu"])
    tp_sim = rt.load(tp, topology=os.path.join(EXAMPLES, "tp4.yaml"), ranks=4, deterministic=True)
    row = compare({"simulated": lambda: tp_sim.mlp.spmd(args_tp), "real": lambda: tp_real.mlp.spmd(args_tp)},
                  rounds=args.rounds)
    print(f"tp_mlp 4 ranks (per call): real {row['real'] * 1e3:.2f} ms, simulated "
          f"{row['simulated'] * 1e3:.2f} ms, simulated/real {row['simulated/real']:.2f}x")

    ar = rt.load(rt.compile(ALL_REDUCE, devices=["llvm-cpu"]), ranks=4, devices=["local-sync://llvm-cpu"])
    xs = [[rng.standard_normal(262144).astype(np.float32)] for _ in range(4)]
    row = compare({"rt": lambda: ar.ar.spmd(xs), "numpy": lambda: xs[0][0] + xs[1][0] + xs[2][0] + xs[3][0]},
                  rounds=args.rounds)
    print(f"all_reduce 1 MiB x 4 ranks (per call): rt {row['rt'] * 1e3:.2f} ms, numpy sum "
          f"{row['numpy'] * 1e3:.2f} ms, rt/numpy {row['rt/numpy']:.2f}x")
    for m in (real, sim, tp_real, tp_sim, ar):
        m.close()


if __name__ == "__main__":
    main()
