"""MPI loopback measurements, run by ``rt calibrate --mpi`` under ``mpiexec -n 2``:

* ``python -m rt.runtime.sim.mpi_loopback pingpong REPS SIZE...``: rank 0 sends SIZE bytes to
  rank 1, which sends them back (the two-sided exchange of the OSU and Intel MPI benchmarks'
  PingPong); rank 0 prints ``{"SIZE": fastest round trip µs, ...}`` as one JSON line.
* ``python -m rt.runtime.sim.mpi_loopback collectives REPS MODULE.vmfb SIZE...``: the module
  (rt.runtime.sim.calibration's ``@id`` and ``@ar_SIZE``) loaded with ``channel="mpi"``; every
  call starts after a barrier; rank 0 prints ``{"id": µs, "SIZE": µs, ...}`` (fastest of REPS,
  the barrier's own time taken off).
"""
import json
import sys
import time

import numpy as np


def _fastest(call, reps, barrier):
    times = []
    for i in range(reps + 1):
        barrier()
        start = time.perf_counter()
        call()
        if i:
            times.append((time.perf_counter() - start) * 1e6)
    return min(times)


def pingpong(comm, reps, sizes):
    rank = comm.Get_rank()
    result = {}
    for size in sizes:
        data = np.zeros(size, np.uint8)

        def exchange():
            if rank == 0:
                comm.Send(data, dest=1)
                comm.Recv(data, source=1)
            else:
                comm.Recv(data, source=0)
                comm.Send(data, dest=0)
        result[str(size)] = _fastest(exchange, reps, comm.Barrier)
    return result


def collectives(comm, reps, path, sizes):
    import rt

    barrier = _fastest(lambda: None, reps, comm.Barrier)
    with rt.load(path, channel="mpi") as module:
        small = np.ones(4, np.float32)
        result = {"id": _fastest(lambda: module.id(small, to_host=False), reps, comm.Barrier) - barrier}
        for size in sizes:
            x, f = np.ones(size // 4, np.float32), getattr(module, f"ar_{size}")
            result[str(size)] = _fastest(lambda: f(x, to_host=False), reps, comm.Barrier) - barrier
    return result


def main(argv):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if comm.Get_size() != 2:
        raise SystemExit("mpi_loopback runs on exactly 2 ranks (mpiexec -n 2)")
    mode, reps = argv[0], int(argv[1])
    if mode == "pingpong":
        result = pingpong(comm, reps, [int(s) for s in argv[2:]])
    else:
        result = collectives(comm, reps, argv[2], [int(s) for s in argv[3:]])
    if comm.Get_rank() == 0:
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
