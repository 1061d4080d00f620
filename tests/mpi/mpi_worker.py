"""One rank of the MPI tests: ``mpiexec -n N python mpi_worker.py SCENARIO DIR``.

Each scenario writes what this rank saw into DIR (``{scenario}_{rank}.npz`` or ``.txt``); the
pytest side (test_mpi.py) checks it against numpy and the in-process provider. Scenarios:

hal        every collective kind over every element type, straight on the HAL channel
nested     the same with 2 local ranks (threads) per process: a local x MPI group
            (files named by global rank)
split      hal.channel.split (MPI_Comm_split) by rank parity, then an all_reduce per sub-group
module     each function of DIR/program.vmfb on this rank's DIR/inputs_{rank}.npz
mismatch   rank 0 all_reduces 8 elements, the others 4: every rank must fail, naming both
timeout    rank 0 joins an all_reduce nobody else joins: it must fail after RT_MPI_TIMEOUT
kill       the last rank kills itself with SIGKILL before an all_reduce
"""
import os
import signal
import sys
import traceback

import numpy as np

from rt.runtime.hal.collective import CollectiveElementType as E
from rt.runtime.hal.collective import CollectiveKind as K
from rt.runtime.hal.collective import CollectiveOp
from rt.runtime.hal.collective import CollectiveReduction as R
from rt.runtime.hal.drivers.mpi_channel import MpiChannelProvider

#: (kind, reduction) pairs the hal scenario runs; every element type runs each.
CASES = [(K.ALL_REDUCE, R.SUM), (K.ALL_REDUCE, R.PRODUCT), (K.ALL_REDUCE, R.MINIMUM),
         (K.ALL_REDUCE, R.MAXIMUM), (K.ALL_REDUCE, R.AVERAGE), (K.ALL_GATHER, R.NONE),
         (K.REDUCE_SCATTER, R.SUM), (K.ALL_TO_ALL, R.NONE), (K.BROADCAST, R.NONE),
         (K.REDUCE, R.SUM), (K.SEND_RECV, R.NONE)]
COUNT = 8


def send_values(op, rank, n):
    """This rank's send elements for ``op`` (small integers: every type and order is exact)."""
    length = op.byte_lengths(COUNT, n)[0] // op.element_size
    rng = np.random.default_rng(1000 * rank + op.pack() % 997)
    values = rng.integers(1, 4, length)
    if op.element_type == E.BFLOAT_16:
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return values.astype(op.dtype)


def param(op, rank, n):
    if op.kind == K.SEND_RECV:
        return ((rank + 1) % n) | ((rank - 1) % n) << 16
    if op.kind in (K.BROADCAST, K.REDUCE):
        return n - 1
    return 0


def _hal(provider, out, channel=None):
    channel = channel or provider.create_channel(None, None, -1, -1)
    n = channel.count
    for kind, reduction in CASES:
        for element_type in E:
            op = CollectiveOp(kind, reduction, element_type)
            send = send_values(op, channel.rank, n)
            recv = np.full(op.byte_lengths(COUNT, n)[1] // op.element_size, 77, op.dtype)
            channel.collective(op, param(op, channel.rank, n), send, recv, COUNT)
            out[f"{kind.name}.{reduction.name}.{element_type.name}"] = recv


def _nested(provider, directory, local=2):
    import threading

    from rt.runtime.hal.drivers.hierarchical_channel import HierarchicalWorld

    world = HierarchicalWorld(local, provider)
    errors = []

    def rank(r):
        try:
            p = world.provider(r)
            channel = p.create_channel(None, None, -1, -1)
            out = {}
            _hal(provider, out, channel)
            np.savez(os.path.join(directory, f"nested_{channel.rank}.npz"), **out)
        except Exception as error:
            errors.append(error)
            world.abort(error)

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(local)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _split(provider, out):
    world = provider.create_channel(None, None, -1, -1)
    sub = world.split(world.rank % 2, -world.rank)
    op = CollectiveOp(K.ALL_REDUCE, R.SUM, E.SINT_32)
    recv = np.zeros(1, np.int32)
    sub.collective(op, 0, np.array([world.rank], np.int32), recv, 1)
    out["sub_rank"], out["sub_count"], out["sum"] = np.array(sub.rank), np.array(sub.count), recv


def _module(provider, out, directory):
    import rt

    inputs = np.load(os.path.join(directory, f"inputs_{provider.rank}.npz"))
    with rt.load(os.path.join(directory, "program.vmfb"), channel=provider) as m:
        for name in inputs.files:
            out[name] = m[name](inputs[name])
        out["rank"] = np.array(int(m.rank()))


def _mismatch(provider, out):
    channel = provider.create_channel(None, None, -1, -1)
    count = 8 if channel.rank == 0 else 4
    op = CollectiveOp(K.ALL_REDUCE, R.SUM, E.FLOAT_32)
    channel.collective(op, 0, np.ones(count, np.float32), np.zeros(count, np.float32), count)


def _timeout(provider, out):
    channel = provider.create_channel(None, None, -1, -1)
    if channel.rank == 0:
        op = CollectiveOp(K.ALL_REDUCE, R.SUM, E.FLOAT_32)
        channel.collective(op, 0, np.ones(4, np.float32), np.zeros(4, np.float32), 4)


def _kill(provider, out):
    channel = provider.create_channel(None, None, -1, -1)
    if channel.rank == channel.count - 1:
        os.kill(os.getpid(), signal.SIGKILL)
    op = CollectiveOp(K.ALL_REDUCE, R.SUM, E.FLOAT_32)
    channel.collective(op, 0, np.ones(4, np.float32), np.zeros(4, np.float32), 4)


def main(scenario, directory):
    provider = MpiChannelProvider(timeout=float(os.environ.get("RT_MPI_TIMEOUT", 60)))
    out = {}
    base = os.path.join(directory, f"{scenario}_{provider.rank}")
    try:
        if scenario == "module":
            _module(provider, out, directory)
        elif scenario == "nested":
            _nested(provider, directory)
            return 0
        else:
            {"hal": _hal, "split": _split, "mismatch": _mismatch, "timeout": _timeout,
             "kill": _kill}[scenario](provider, out)
    except Exception as error:  # the failure scenarios' result: the error each rank saw
        with open(base + ".txt", "w") as f:
            f.write(f"{type(error).__name__}: {error}")
        traceback.print_exc()
        return 0
    np.savez(base + ".npz", **out)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
