"""all_reduce bandwidth across processes: rt's MPI channel beside mpi4py's own ``Allreduce``.

    python benchmarks/mpi_allreduce.py [--ranks=2] [--sizes=4K,64K,1M,16M,64M]

starts ``mpiexec -n RANKS`` on itself (the ``mpi`` or ``test`` extra's mpiexec,
rt.runtime.hal.drivers.mpi_channel.mpiexec_path). Each size is an f32 sum measured three ways in the same run, interleaved
round by round (the median of each round's median, as benchmarks/iree_peer.py times):

* ``mpi4py``   ``comm.Allreduce(send, recv, op=MPI.SUM)``: the peer, MPI's own cost;
* ``rt hal``   ``channel.collective(all_reduce sum f32)`` on rt's MPI channel: the agreement
  check, the nonblocking ``MPI_Iallreduce`` and the polling wait;
* ``rt call``  a compiled ``shard.all_reduce`` module called with a device-resident input
  (``rt.load(..., channel="mpi")``): the HAL queue, command buffer and fences on top.

Bandwidth is the algorithm bandwidth (bytes of one rank's buffer / time, GB/s) as NCCL's tests
report it; ``rt/mpi4py`` is the time ratio (1.0 = no overhead).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    text = text.strip().upper()
    return int(text[:-1]) * UNITS[text[-1]] if text[-1] in UNITS else int(text)


def median_time(fn, calls):
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def worker(sizes, rounds):
    from mpi4py import MPI

    import rt
    from rt.runtime.hal.collective import CollectiveElementType, CollectiveKind, CollectiveOp, CollectiveReduction
    from rt.runtime.hal.drivers.mpi_channel import MpiChannelProvider

    comm = MPI.COMM_WORLD
    n, rank = comm.Get_size(), comm.Get_rank()
    provider = MpiChannelProvider()
    channel = provider.create_channel(None, None, -1, -1)
    op = CollectiveOp(CollectiveKind.ALL_REDUCE, CollectiveReduction.SUM, CollectiveElementType.FLOAT_32)
    rows = []
    for size in sizes:
        count = size // 4
        send = np.ones(count, np.float32)
        recv = np.empty_like(send)
        calls = max(3, min(200, (64 << 20) // size))
        text = (f"shard.grid @g(shape = {n})\nfunc.func @f(%x: tensor<{count}xf32>) -> tensor<{count}xf32> {{\n"
                f"  %r = shard.all_reduce %x on @g grid_axes = [0] : tensor<{count}xf32> -> tensor<{count}xf32>\n"
                f"  return %r : tensor<{count}xf32>\n}}\n")
        module = rt.load(rt.compile(text, devices=["llvm-cpu"]), channel=provider)
        x = module.f.prepare(send)[0]

        sides = {
            "mpi4py": lambda: comm.Allreduce(send, recv, op=MPI.SUM),
            "rt hal": lambda: channel.collective(op, 0, send, recv, count),
            "rt call": lambda: module.f(x, to_host=False),
        }
        per_round = {name: [] for name in sides}
        for _ in range(rounds):
            for name, fn in sides.items():
                comm.Barrier()
                fn()
                comm.Barrier()
                per_round[name].append(median_time(fn, calls))
        module.close()
        times = {name: statistics.median(values) for name, values in per_round.items()}
        rows.append((size, times, {name: statistics.median(v / m for v, m in zip(values, per_round["mpi4py"]))
                                   for name, values in per_round.items()}))
    if rank == 0:
        print(f"all_reduce f32 sum on {n} MPI ranks ({MPI.Get_library_version().splitlines()[0].strip()}), "
              f"{os.cpu_count()} cpus, {time.strftime('%Y-%m-%d')}")
        print(f"{'bytes':>10} | {'mpi4py GB/s':>11} | {'rt hal GB/s':>11} | {'rt call GB/s':>12} | "
              f"{'hal/mpi4py':>10} | {'call/mpi4py':>11}")
        for size, times, ratios in rows:
            gbps = {name: size / t / 1e9 for name, t in times.items()}
            print(f"{size:>10} | {gbps['mpi4py']:>11.2f} | {gbps['rt hal']:>11.2f} | {gbps['rt call']:>12.2f} | "
                  f"{ratios['rt hal']:>10.2f} | {ratios['rt call']:>11.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--sizes", default="4K,64K,1M,16M,64M")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    if args.worker:
        worker(sizes, args.rounds)
        return 0
    from rt.runtime.hal.drivers.mpi_channel import mpiexec_path

    mpiexec = mpiexec_path()
    return subprocess.call([mpiexec, "-n", str(args.ranks), sys.executable, os.path.abspath(__file__),
                            "--worker", f"--sizes={args.sizes}", f"--rounds={args.rounds}"])


if __name__ == "__main__":
    sys.exit(main())
