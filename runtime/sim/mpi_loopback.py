"""MPI loopback measurements, run by ``rt calibrate --mpi`` under ``mpiexec -n 2``:

* ``python -m rt.runtime.sim.mpi_loopback pingpong REPS SIZE...``: rank 0 sends SIZE bytes to
  rank 1, which sends them back (the two-sided exchange of the OSU and Intel MPI benchmarks'
  PingPong); rank 0 prints ``{"SIZE": median round trip µs, ...}`` as one JSON line.
* ``python -m rt.runtime.sim.mpi_loopback collectives REPS MODULE.vmfb URI SIZE...``: the
  module (rt.runtime.sim.calibration_programs.collective_module) loaded with ``channel="mpi"``
  on device ``URI`` (the calibrated one): ``@nop`` and ``@ar_SIZE`` per size, every call after
  a barrier, taking turns of rt.runtime.sim.calibration.WARM_RUNS untimed calls and RUNS
  timed ones (as ``interleaved_samples`` with ``warm``, ``runs`` and ``warm_runs``); rank 0
  prints ``{"nop": µs, "SIZE": µs, ...}``: the median of ``@nop`` minus the barrier, and per
  size the median of ``@ar_SIZE`` minus the ``@nop`` turn of the same round.
"""
import json
import statistics
import sys
import time

import numpy as np


def _samples(calls, reps, barrier, runs=1, warm_runs=1):
    """Per call, ``reps`` timed samples in µs (after a warm-up round): a sample is the median of
    ``runs`` timed calls in a row, each started after ``barrier()``, right after ``warm_runs``
    untimed calls of the same call (its data warm, what the call before left to do done); the
    calls take turns round by round (rt.runtime.sim.calibration.interleaved_samples, ``warm``,
    ``runs`` and ``warm_runs``)."""
    samples = [[] for _ in calls]
    for i in range(reps + 1):
        for k, call in enumerate(calls):
            for _ in range(warm_runs):
                barrier()
                call()
            times = []
            for _ in range(runs):
                barrier()
                start = time.perf_counter()
                call()
                times.append((time.perf_counter() - start) * 1e6)
            if i:
                samples[k].append(statistics.median(times))
    return samples


def pingpong(comm, reps, sizes):
    rank = comm.Get_rank()

    def exchange(size):
        data = np.zeros(size, np.uint8)

        def run():
            if rank == 0:
                comm.Send(data, dest=1)
                comm.Recv(data, source=1)
            else:
                comm.Recv(data, source=0)
                comm.Send(data, dest=0)
        return run
    samples = _samples([exchange(s) for s in sizes], reps, comm.Barrier)
    return {str(s): statistics.median(t) for s, t in zip(sizes, samples)}


def collectives(comm, reps, path, uri, sizes):
    import rt
    from rt.runtime.sim.calibration import RUNS, WARM_RUNS, mpi_collective_times

    def call(name, count):
        x, f = np.ones(count, np.float32), getattr(module, name)
        return lambda: f(x, to_host=False)
    with rt.load(path, channel="mpi", devices=[uri]) as module:
        calls = [lambda: None, call("nop", 4)] + [call(f"ar_{s}", s // 4) for s in sizes]
        barrier, nop, *times = _samples(calls, reps, comm.Barrier, RUNS, WARM_RUNS)
    return mpi_collective_times(barrier, nop, times, sizes)


def main(argv):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if comm.Get_size() != 2:
        raise SystemExit("mpi_loopback runs on exactly 2 ranks (mpiexec -n 2)")
    mode, reps = argv[0], int(argv[1])
    if mode == "pingpong":
        result = pingpong(comm, reps, [int(s) for s in argv[2:]])
    else:
        result = collectives(comm, reps, argv[2], argv[3], [int(s) for s in argv[4:]])
    if comm.Get_rank() == 0:
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
