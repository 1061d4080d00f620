"""Hierarchical groups: several local ranks (threads) in each of several MPI processes.

``mpiexec -n P python -m rt run ... --channel=mpi --ranks=L`` runs ``L`` ranks in each of ``P``
processes: ``P * L`` ranks in all, global rank ``p * L + l`` for local rank ``l`` of process
``p`` (the local group × the MPI group, as IREE's hierarchical channels nest a node's devices
inside an MPI world). A ``HierarchicalWorld`` is a ``LocalWorld`` (the SPMD runner of
rt.multi_device drives it unchanged) whose channels span every process:

* a collective first meets the process's other local ranks (the local rendezvous); the last
  to arrive gathers their elements and parameters, exchanges them with the other processes
  (one ``MPI_Iallgather`` each, after the MPI channel's agreement check), computes every
  rank's result with rt.runtime.hal.collective.compute (rank order: bit-identical to one
  process running all ``P * L`` ranks) and hands each local rank its own;
* a failure on a local rank aborts the local rendezvous and posts the cause to the other
  processes (their pending collectives fail naming it), as the two providers do alone.

``hal.channel.split`` is not supported across processes here (UnimplementedError naming the
alternatives).
"""
import numpy as np

from rt.runtime.errors import DeviceError, InvalidArgumentError, UnimplementedError
from rt.runtime.hal.channel import COUNT_DEFAULT, RANK_DEFAULT, Channel, ChannelProvider
from rt.runtime.hal.collective import compute
from rt.runtime.hal.drivers.local_channel import LocalWorld


class HierarchicalWorld(LocalWorld):
    """``count`` local ranks of this process inside ``mpi`` (an MpiChannelProvider)."""

    def __init__(self, count, mpi):
        super().__init__(count)
        self.mpi = mpi
        #: Global rank of local rank 0 (``--input=@x_{rank}.npy`` expands to the global rank).
        self.rank_offset = mpi.rank * count
        self.global_count = mpi.count * count

    def provider(self, rank):
        if not 0 <= rank < self.count:
            raise InvalidArgumentError(f"rank {rank} is not in [0, {self.count})")
        return HierarchicalChannelProvider(self, rank)

    def abort(self, cause):
        super().abort(cause)
        self.mpi.abort(cause)


class HierarchicalChannelProvider(ChannelProvider):
    """Local rank ``rank`` of ``world``."""

    def __init__(self, world, rank):
        self.world, self.rank = world, rank

    def query_default_rank_and_count(self):
        return self.world.rank_offset + self.rank, self.world.global_count

    def create_channel(self, device, group, rank, count):
        world = self.world
        mine = world.rank_offset + self.rank
        rank = mine if rank == RANK_DEFAULT else rank
        count = world.global_count if count == COUNT_DEFAULT else count
        if (rank, count) != (mine, world.global_count):
            raise InvalidArgumentError(
                f"hal.channel.create asked for rank {rank} of {count}, but this is rank {mine} of "
                f"{world.global_count} ({world.count} local x {world.mpi.count} MPI)")
        local = world.communicator(("hierarchical", group or "", world.count), world.count)
        mpi = local._join(self.rank, "hal.channel.create", None,
                          lambda arrivals: world.mpi.create_channel(device, group, -1, -1))
        return HierarchicalChannel(local, self.rank, mpi, mine, world.global_count)


class HierarchicalChannel(Channel):
    """Global rank ``rank`` of ``count``: local rank ``local_rank`` of ``local`` × ``mpi``."""

    def __init__(self, local, local_rank, mpi, rank, count):
        self.local, self.local_rank, self.mpi = local, local_rank, mpi
        self.rank, self.count = rank, count
        self.group = ("hierarchical", mpi.group)

    def split(self, color, key):
        raise UnimplementedError("hal.channel.split across local ranks and MPI processes is not "
                                 "supported: split with --channel=mpi alone (one rank per process) "
                                 "or with --ranks alone (one process)")

    def abort(self, cause):
        self.local.world.abort(cause)

    def collective(self, op, param, send, recv, count):
        what = f"collective {op.describe()} x{count} on channel {self.group!r}"
        mpi, n = self.mpi, self.count

        def complete(arrivals):
            local_count = len(arrivals)
            for r, (o, _, _, _, c) in sorted(arrivals.items()):
                if (o, c) != (op, count):
                    raise DeviceError(f"collectives do not match: local rank 0 runs {what}, local "
                                      f"rank {r} runs {o.describe()} x{c}")
            length = op.byte_lengths(count, n)[0] // op.element_size
            sends = np.stack([np.ascontiguousarray(arrivals[r][2][:length]) for r in range(local_count)])
            params = np.array([int(arrivals[r][1]) for r in range(local_count)], np.int64)
            mpi.check_agreement(op, 0, count, what, check_params=False)
            all_sends = np.empty((mpi.count, local_count, length), sends.dtype)
            all_params = np.empty((mpi.count, local_count), np.int64)
            mpi.wait([mpi.comm.Iallgather(sends, all_sends), mpi.comm.Iallgather(params, all_params)], what)
            try:
                results = compute(op, count, list(all_sends.reshape(n, length)), list(all_params.reshape(n)))
            except InvalidArgumentError as error:
                raise DeviceError(f"{what}: {error}") from None
            base = mpi.rank * local_count
            for r in range(local_count):
                result, target = results[base + r], arrivals[r][3]
                if result is not None and target is not None:
                    np.copyto(target[:result.size], result)
            return True

        self.local._join(self.local_rank, what, (op, param, send, recv, count), complete)
