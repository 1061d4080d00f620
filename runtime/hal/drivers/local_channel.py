"""The in-process channel provider: SPMD ranks as threads of one process.

A ``LocalWorld`` of ``count`` ranks hands rank ``r`` its ``ChannelProvider``
(``world.provider(r)``). Channels of the same communicator share a ``_Communicator``; a
collective is a rendezvous: each rank's queue thread deposits its send and receive ranges and
blocks, the last rank to arrive checks that everyone asked for the same operation and size,
computes every rank's result (rank-ordered reductions, rt.runtime.hal.collective.compute's
semantics) into each receive range, then all return. The rendezvous and the common
computations run in C without the GIL (rt.runtime.hal.drivers._local_rendezvous; the command
buffer replay enters it directly); what C does not compute goes to ``compute`` with the GIL.
``split`` is a rendezvous of the same kind, in Python (``MPI_Comm_split``: ranks of one
color, ordered by key then old rank).

Rendezvous are numbered per communicator and rank within an *epoch*; ``new_epoch()`` (the
SPMD runner calls it before every call) restarts the numbering, ``abort(cause)`` fails
every pending rendezvous and every later one of the epoch (a rank died: nobody waits for it;
the next call starts clean), and ``finish(rank)`` fails the rendezvous a rank whose call is
over never joined (the ranks ran different collectives). The provider interface is
rt.runtime.hal.channel's; an MPI communicator implements the same one.
"""
import threading

import numpy as np

from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal.channel import COUNT_DEFAULT, NO_COLOR, RANK_DEFAULT, Channel, ChannelProvider
from rt.runtime.hal.collective import CollectiveOp, compute
from rt.runtime.hal.drivers._local_rendezvous import NativeWorld

# _local_rendezvous's outcomes.
_MISMATCH, _ABORTED, _GONE, _FAILED = 1, 2, 3, 4


class LocalWorld:
    """``count`` ranks in this process."""

    def __init__(self, count):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidArgumentError(f"a local world needs a positive rank count, got {count!r}")
        self.count = count
        self._cond = threading.Condition()
        self._comms = {}
        self.epoch = 0
        self._failure = None
        self._finished = set()
        self.native = NativeWorld(count)

    def provider(self, rank):
        """The ``ChannelProvider`` of ``rank``."""
        if not 0 <= rank < self.count:
            raise InvalidArgumentError(f"rank {rank} is not in [0, {self.count})")
        return LocalChannelProvider(self, rank)

    def communicator(self, key, count, members=None):
        with self._cond:
            comm = self._comms.get(key)
            if comm is None:
                comm = self._comms[key] = _Communicator(self, key, count, members)
            elif comm.count != count:
                raise InvalidArgumentError(f"channel {key!r}: created with {count} ranks here "
                                           f"but {comm.count} on another rank")
            return comm

    def new_epoch(self):
        """Start a new call: rendezvous numbering restarts, an earlier abort is forgotten."""
        with self._cond:
            self.epoch += 1
            self._failure = None
            self._finished = set()
            for comm in self._comms.values():
                comm.reset()
            self.native.new_epoch()
            self._cond.notify_all()

    def finish(self, rank):
        """``rank``'s call of this epoch is over: rendezvous still waiting for it fail."""
        with self._cond:
            self._finished.add(rank)
            self.native.finish(rank)
            self._cond.notify_all()

    def abort(self, cause):
        """Fail every pending and later rendezvous of this epoch with ``cause``."""
        with self._cond:
            if self._failure is None:
                self._failure = cause
            self.native.abort()
            self._cond.notify_all()


class LocalChannelProvider(ChannelProvider):
    """Rank ``rank`` of ``world``."""

    def __init__(self, world, rank):
        self.world, self.rank = world, rank

    def query_default_rank_and_count(self):
        return self.rank, self.world.count

    def create_channel(self, device, group, rank, count):
        if rank == RANK_DEFAULT:
            rank = self.rank
        if count == COUNT_DEFAULT:
            count = self.world.count
        if not 0 <= rank < count:
            raise InvalidArgumentError(f"hal.channel.create: rank {rank} is not in [0, {count})")
        comm = self.world.communicator(("group", group or "", count), count)
        return LocalChannel(comm, rank)


class LocalChannel(Channel):
    """Rank ``rank`` of communicator ``comm``."""

    def __init__(self, comm, rank):
        self.comm, self.rank, self.count = comm, rank, comm.count
        self.group = comm.key

    def split(self, color, key):
        return self.comm.split(self.rank, int(color), int(key))

    def collective(self, op, param, send, recv, count):
        self.comm.collective(self.rank, op, param, send, recv, count)

    def abort(self, cause):
        self.comm.world.abort(cause)


class _Rendezvous:
    __slots__ = ("arrivals", "result", "error", "left")

    def __init__(self, count):
        self.arrivals, self.result, self.error, self.left = {}, None, None, count


class _Communicator:
    def __init__(self, world, key, count, members=None):
        self.world, self.key, self.count = world, key, count
        self.members = tuple(members) if members is not None else tuple(range(count))
        self._next = [0] * count
        self._pending = {}
        self.native = world.native.communicator(count, self.members, self._compute)

    def reset(self):
        self._next = [0] * self.count
        self._pending = {}

    def _join(self, rank, what, payload, complete):
        """Rendezvous ``what`` of ``rank``; the last arrival runs ``complete(arrivals)``."""
        world = self.world
        with world._cond:
            seq = self._next[rank]
            self._next[rank] += 1
            entry = self._pending.setdefault(seq, _Rendezvous(self.count))
            entry.arrivals[rank] = payload
            if len(entry.arrivals) == self.count:
                try:
                    entry.result = complete(entry.arrivals)
                except Exception as error:  # a mismatch: every rank gets the same error
                    entry.error = error
                world._cond.notify_all()
            while entry.result is None and entry.error is None and world._failure is None:
                gone = [r for r in range(self.count)
                        if r not in entry.arrivals and self.members[r] in world._finished]
                if gone:
                    entry.error = DeviceError(
                        f"{what} on channel {self.key!r}: rank(s) {', '.join(map(str, gone))} of "
                        f"{self.count} finished their call without joining it (the ranks ran "
                        "different collectives)")
                    break
                world._cond.wait()
            if entry.error is None and entry.result is None:
                entry.error = DeviceError(f"{what} on channel {self.key!r} rank {rank} of "
                                          f"{self.count} aborted: {world._failure}")
            entry.left -= 1
            if entry.left == 0 and self._pending.get(seq) is entry:
                del self._pending[seq]
            if entry.error is not None:
                raise entry.error
            return entry.result

    def collective(self, rank, op, param, send, recv, count):
        """Rank ``rank``'s part of collective ``op`` (a CollectiveOp): ``send`` / ``recv``
        contiguous arrays (recv writable, ``op.dtype``'s bytes). Raises DeviceError when the
        ranks' collectives do not match, a rank finished without joining, the world was
        aborted or the computation failed."""
        try:
            outcome = self.native.collective(rank, op.pack(), int(param) & 0xFFFFFFFF, send, recv,
                                             count)
        except KeyboardInterrupt:
            self.interrupted(rank)
            raise
        if outcome is not None:
            raise self.error(rank, f"collective {op.describe()} x{count}", *outcome)

    def interrupted(self, rank):
        """Ctrl-C ended ``rank``'s wait: the world is aborted, naming it."""
        self.world.abort(DeviceError(f"rank {self.members[rank]} was interrupted"))

    def error(self, rank, what, status, details):
        """The DeviceError of a failed rendezvous (``details`` as NativeCommunicator gives)."""
        if status == _MISMATCH:
            r, op0, count0, op, count = details
            return DeviceError(
                f"collectives on channel {self.key!r} do not match: rank 0 runs "
                f"{CollectiveOp.unpack(op0).describe()} x{count0}, rank {r} runs "
                f"{CollectiveOp.unpack(op).describe()} x{count}")
        if status == _GONE:
            return DeviceError(
                f"{what} on channel {self.key!r}: rank(s) {', '.join(map(str, details))} of "
                f"{self.count} finished their call without joining it (the ranks ran "
                "different collectives)")
        if status == _FAILED:
            return details
        failure = self.world._failure or "a rank was interrupted"
        return DeviceError(f"{what} on channel {self.key!r} rank {rank} of {self.count} "
                           f"aborted: {failure}")

    def _compute(self, arrivals):
        """What C does not compute: ``arrivals`` per rank ``(op, param, send, recv, count)``
        (op packed, byte views); every receive range written, or a DeviceError raised."""
        op = CollectiveOp.unpack(arrivals[0][0])
        count = arrivals[0][4]
        sends = [np.frombuffer(a[2], op.dtype) for a in arrivals]
        try:
            results = compute(op, count, sends, [a[1] for a in arrivals])
        except InvalidArgumentError as error:
            raise DeviceError(f"collective {op.describe()} x{count} on channel {self.key!r}: "
                              f"{error}") from None
        for (_, _, _, recv, _), result in zip(arrivals, results):
            if result is not None:
                target = np.frombuffer(recv, op.dtype)
                np.copyto(target[:result.size], result)

    def split(self, rank, color, key):
        def complete(arrivals):
            groups = {}
            for r, (c, k) in sorted(arrivals.items()):
                if c != NO_COLOR:
                    groups.setdefault(c, []).append((k, r))
            return {c: sorted(members) for c, members in groups.items()}

        groups = self._join(rank, "channel split", (color, key), complete)
        if color == NO_COLOR:
            return None
        members = [r for _, r in groups[color]]
        count = len(members)
        world_ranks = tuple(self.members[r] for r in members)
        comm = self.world.communicator((self.key, "split", color, world_ranks), count, world_ranks)
        return LocalChannel(comm, members.index(rank))
