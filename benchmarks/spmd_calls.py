"""What one in-process SPMD call costs: collectives, tensor-parallel programs, an empty call.

    python benchmarks/spmd_calls.py [--samples=5] [--runs=15] [--json=out.json]

Loads every case at once (in-process ranks, ``rt.load(..., ranks=N)``, each rank on
``local-task://llvm-cpu?threads=1``, the device sim_accuracy calibrates) and times them taking
turns (rt.runtime.sim.calibration ``interleaved_samples``: ``--samples`` turns per case, a
turn being ``--runs`` calls in a row after one untimed call); prints the median µs per call.
The cases: the calibration's ``@nop`` on 2 and 4 ranks, all_reduce of 64 KiB, 1 MiB and 4 MiB
on 2 ranks and of 1 MiB on 4, and benchmarks/sim_accuracy_programs.py's tensor-parallel MLP
(2 and 4 ranks) and transformer layer (2 ranks).

There is no peer in this process: IREE 3.13 runs collectives only across MPI processes. To
compare two rt trees (before and after a runtime change), run this script alternately with
each tree's interpreter, several times each, and compare the medians of the same case
(BENCHMARKS.md, "In-process collectives without the GIL").
"""
import argparse
import json
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import rt  # noqa: E402
import sim_accuracy_programs as programs  # noqa: E402
from rt.runtime.sim import calibration_programs  # noqa: E402
from rt.runtime.sim.calibration import interleaved_samples  # noqa: E402

URI = "local-task://llvm-cpu?threads=1"


def cases():
    """``{name: (mlir text, function, inputs per rank)}``."""
    def nop(ranks):
        return (calibration_programs.collective_module(ranks, [4096]), "nop",
                [[np.ones(4, np.float32)] for _ in range(ranks)])
    return {
        "nop 2 ranks": nop(2),
        "nop 4 ranks": nop(4),
        "all_reduce 64 KiB 2 ranks": programs.collective("all_reduce", 2, 64 << 10),
        "all_reduce 1 MiB 2 ranks": programs.collective("all_reduce", 2, 1 << 20),
        "all_reduce 4 MiB 2 ranks": programs.collective("all_reduce", 2, 4 << 20),
        "all_reduce 1 MiB 4 ranks": programs.collective("all_reduce", 4, 1 << 20),
        "tp_mlp 2 ranks": programs.tp_mlp(2),
        "tp_mlp 4 ranks": programs.tp_mlp(4),
        "transformer layer 2 ranks": programs.tp_transformer(2),
    }


def measure(samples, runs):
    """``{case: median µs per call}``."""
    modules, calls = [], []
    try:
        for text, function, inputs in cases().values():
            module = rt.load(rt.compile(text, devices=["llvm-cpu"]), ranks=len(inputs), devices=[URI])
            modules.append(module)
            f = getattr(module, function)
            calls.append(lambda f=f, inputs=inputs: f.spmd(inputs, to_host=False))
        found = interleaved_samples(calls, samples, warm=True, runs=runs)
    finally:
        for module in modules:
            module.close()
    return {name: statistics.median(s) for name, s in zip(cases(), found)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=5, help="turns per case (default 5)")
    parser.add_argument("--runs", type=int, default=15, help="calls per turn (default 15)")
    parser.add_argument("--json", help="also write {case: µs} here")
    args = parser.parse_args()
    if args.samples < 1 or args.runs < 1:
        parser.error("--samples and --runs must be at least 1")
    found = measure(args.samples, args.runs)
    for name, us in found.items():
        print(f"{name:28s} {us:8.0f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(found, f, indent=1)


if __name__ == "__main__":
    main()
