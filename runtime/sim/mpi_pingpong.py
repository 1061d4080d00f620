"""MPI loopback ping-pong, run by ``rt calibrate --mpi`` as ``mpiexec -n 2 python -m
rt.runtime.sim.mpi_pingpong REPS SIZE...``: rank 0 sends SIZE bytes to rank 1, which sends
them back, REPS times after a warm-up; rank 0 prints ``{"SIZE": fastest round trip µs, ...}``
as one JSON line. The two-sided exchange of the OSU and Intel MPI benchmarks (PingPong).
"""
import json
import sys
import time

import numpy as np


def main(argv):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if comm.Get_size() != 2:
        raise SystemExit("mpi_pingpong runs on exactly 2 ranks (mpiexec -n 2)")
    rank, reps = comm.Get_rank(), int(argv[0])
    result = {}
    for size in (int(s) for s in argv[1:]):
        data = np.zeros(size, np.uint8)
        times = []
        for i in range(reps + 1):
            comm.Barrier()
            start = time.perf_counter()
            if rank == 0:
                comm.Send(data, dest=1)
                comm.Recv(data, source=1)
            else:
                comm.Recv(data, source=0)
                comm.Send(data, dest=0)
            if i:
                times.append((time.perf_counter() - start) * 1e6)
        result[str(size)] = min(times)
    if rank == 0:
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
