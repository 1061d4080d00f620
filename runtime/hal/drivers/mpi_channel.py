"""The MPI channel provider: SPMD ranks as processes, collectives as MPI operations.

One rt process per rank (``mpiexec -n N python -m rt run ... --channel=mpi``); the compiled
module is the one the in-process ``--ranks=N`` run uses. ``hal.channel.create`` with the
default rank and count is ``MPI_COMM_WORLD`` (a duplicate per channel group, so programs' and
rt's own traffic never match each other's messages); ``hal.channel.split`` is
``MPI_Comm_split``. Follows IREE's MPI channel provider
(runtime/src/iree/hal/utils/mpi_channel_provider.h) and its collective element counts
(rt.runtime.hal.collective).

Every collective is a nonblocking MPI operation (``MPI_Iallreduce``, ``MPI_Iallgather``,
``MPI_Ireduce_scatter_block``, ``MPI_Ialltoall``, ``MPI_Ibcast``, ``MPI_Ireduce``,
``MPI_Isend``/``MPI_Irecv``) waited on by polling, so a wait can end for three reasons besides
completion:

* a mismatch: before the data moves, ranks exchange ``(op, count, param, sequence)``; ranks
  that disagree (different collectives, shapes or a send without its receive) all raise the
  same ``DeviceError`` naming each rank's operation;
* an abort: a rank whose call failed calls ``abort(cause)``, which posts the cause to every
  other rank on a control communicator; their pending and later collectives raise
  ``DeviceError("rank R failed: cause")`` (the channel's ``abort`` is what the local provider
  does for threads);
* the deadline: a collective no peer joins within ``timeout`` seconds raises
  ``DeadlineExceededError`` (a peer that hangs or ran a different program). A peer killed by a
  signal is reported by ``mpiexec`` itself, which ends every rank.

Ending the job. A job whose peers stopped answering cannot finish (``MPI_Finalize`` would wait
for them forever), so after a deadline the rank posts the cause to the others as an abort that
says so, and every rank that saw it ends the job with ``MPI_Abort`` when its process exits:
``mpiexec`` stops every rank, a frozen one included, and exits with ``UNRESPONSIVE_EXIT_CODE``
(4, IREE's DEADLINE_EXCEEDED). An exception nothing caught on a rank posts its cause to the
others and ends the job at once with ``FAILED_EXIT_CODE`` (1), as ``python -m mpi4py`` does; a
failed ``rt run --channel=mpi`` ends it the same way. A failure the program handles (a rejected
input, a peer's error caught by the caller) leaves the job to finish normally.

Results are bit-identical to the in-process provider's: integer reductions and float
minimum/maximum use MPI's own operations (their order cannot change the result), as do float
sums, products and averages over two ranks (commutative); over more ranks float sums depend on
the order, and MPI's reduction trees differ from the reference's rank order ``((r0 + r1) + r2)
...``, so those gather every rank's elements and reduce them in rank order with
rt.runtime.hal.collective.compute (n times the traffic, the same numbers on every deployment).
f16 and bf16 reductions on MPI run in f32 and round once (MPI has no 16-bit float types).
"""
import atexit
import os
import shutil
import sys
import sysconfig
import time

import numpy as np

from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError, UnimplementedError
from rt.runtime.hal.channel import COUNT_DEFAULT, NO_COLOR, RANK_DEFAULT, Channel, ChannelProvider
from rt.runtime.hal.collective import (CollectiveElementType, CollectiveKind, CollectiveReduction,
                                       bf16_to_f32, compute, f32_to_bf16, send_recv_ranks)

#: Default seconds a collective waits for its peers (``RT_MPI_TIMEOUT`` overrides it in the CLI).
DEFAULT_TIMEOUT = 300.0
_ABORT, _ACK, _OUTPUT = 1, 2, 3
#: Seconds a failing rank waits for its peers to acknowledge its abort before it exits.
_ACK_WAIT = 2.0
#: Seconds it then leaves the peers to report the cause before it exits.
_REPORT_GRACE = 0.5
_NO_PEER = 0xFFFF
#: Exit codes of a job rt ends with ``MPI_Abort`` (mpiexec exits with them; module docstring).
FAILED_EXIT_CODE, UNRESPONSIVE_EXIT_CODE = 1, 4
#: First byte of an abort message whose job cannot finish normally (a peer stopped answering).
_UNRESPONSIVE = b"\x01"
#: The cause of the first deadline this process saw or heard of (None: none), for end_job.
_unresponsive = None


def end_job(code, comm=None):
    """End the MPI job from this rank: flush stdout and stderr, then ``MPI_Abort(comm, code)``
    (default ``MPI_COMM_WORLD``); mpiexec stops every rank and exits with ``code``, or with
    ``UNRESPONSIVE_EXIT_CODE`` when a peer of this process stopped answering. Returns (there is
    no job to end) when MPI is not running or this process is its only rank."""
    MPI = sys.modules.get("mpi4py.MPI")
    if MPI is None or not MPI.Is_initialized() or MPI.Is_finalized():
        return
    comm = comm or MPI.COMM_WORLD
    if comm.Get_size() == 1:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    comm.Abort(UNRESPONSIVE_EXIT_CODE if _unresponsive is not None else code)


def _note_unresponsive(cause):
    """Record that this job cannot finish normally; at exit, end it with MPI_Abort."""
    global _unresponsive
    if _unresponsive is None:
        _unresponsive = cause
        atexit.register(_end_unresponsive_job)


def _end_unresponsive_job():
    print(f"rt: ending the MPI job (MPI_Abort, exit code {UNRESPONSIVE_EXIT_CODE}): "
          f"{_unresponsive}", file=sys.stderr)
    end_job(UNRESPONSIVE_EXIT_CODE)


def _install_excepthook(provider):
    """An uncaught exception on this rank posts its cause to the peers, then ends the job."""
    previous = sys.excepthook

    def excepthook(kind, value, traceback):
        previous(kind, value, traceback)
        provider.abort(f"uncaught {kind.__name__}: {value}")
        end_job(FAILED_EXIT_CODE, provider.comm)

    sys.excepthook = excepthook


def import_mpi():
    """``mpi4py.MPI``, or UnimplementedError saying how to install it."""
    try:
        from mpi4py import MPI
    except ImportError:
        raise UnimplementedError("the MPI channel needs mpi4py and an MPI runtime: "
                                 "pip install -e '.[mpi]' (mpi4py with the mpich wheel)") from None
    return MPI


def mpiexec_path():
    """The ``mpiexec`` of the MPI runtime mpi4py uses: the one installed beside this
    interpreter's scripts by the ``mpich`` wheel (the ``mpi`` extra), else the PATH's.
    Raises NotFoundError naming the places looked at."""
    from rt.runtime.errors import NotFoundError

    places = [os.path.dirname(sys.executable), sysconfig.get_path("scripts"),
              sysconfig.get_path("scripts", f"{os.name}_user")]
    for place in places:
        candidate = os.path.join(place, "mpiexec")
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("mpiexec")
    if found is None:
        raise NotFoundError(f"no mpiexec in {', '.join(places)} or on PATH: pip install -e '.[mpi]'")
    return found


class MpiChannelProvider(ChannelProvider):
    """Channels over ``comm`` (default ``MPI_COMM_WORLD``), one process per rank.

    timeout: seconds a collective waits for its peers (DeadlineExceededError after it).
    Every rank must construct its provider (it duplicates ``comm`` for control messages).
    """

    def __init__(self, comm=None, timeout=DEFAULT_TIMEOUT):
        MPI = self.MPI = import_mpi()
        if not timeout or timeout <= 0:
            raise InvalidArgumentError(f"MPI channel timeout must be > 0 seconds, got {timeout!r}")
        self.comm = comm if comm is not None else MPI.COMM_WORLD
        self.timeout = float(timeout)
        self.rank, self.count = self.comm.Get_rank(), self.comm.Get_size()
        self.failure = None
        self._sent = []
        self._control = None
        self._control = self.duplicate(self.comm, "starting the MPI channel provider")
        self._channels = {}
        _install_excepthook(self)

    def query_default_rank_and_count(self):
        return self.rank, self.count

    def create_channel(self, device, group, rank, count):
        rank = self.rank if rank == RANK_DEFAULT else rank
        count = self.count if count == COUNT_DEFAULT else count
        if (rank, count) != (self.rank, self.count):
            raise InvalidArgumentError(
                f"hal.channel.create asked for rank {rank} of {count}, but this process is MPI rank "
                f"{self.rank} of {self.count}: an MPI channel spans the communicator (use "
                "hal.channel.split for sub-groups)")
        channel = self._channels.get(group)
        if channel is None:
            comm = self.duplicate(self.comm, "hal.channel.create")
            channel = self._channels[group] = MpiChannel(self, comm, f"mpi:{group or ''}")
        return channel

    # -- failures ------------------------------------------------------------------------------

    def abort(self, cause, unresponsive=False):
        """Tell every other rank that this one failed with ``cause``; wait (briefly) until they
        have seen it, so their errors name the cause before ``mpiexec`` tears the job down.
        ``unresponsive``: a peer stopped answering, so every rank ends the job at exit."""
        if self.failure is not None:
            return
        self.failure = f"rank {self.rank} failed: {cause}"
        message = (_UNRESPONSIVE if unresponsive else b"") + str(cause).encode()[:4096]
        peers = [r for r in range(self.count) if r != self.rank]
        for r in peers:
            self._sent.append(self._control.Isend(message, dest=r, tag=_ABORT))
        deadline = time.monotonic() + _ACK_WAIT
        acked = set()
        while len(acked) < len(peers) and time.monotonic() < deadline:
            status = self.MPI.Status()
            if self._control.Iprobe(source=self.MPI.ANY_SOURCE, tag=_ACK, status=status):
                self._control.Recv([bytearray(0), self.MPI.BYTE], source=status.Get_source(), tag=_ACK)
                acked.add(status.Get_source())
            else:
                time.sleep(0.001)
        if acked:
            time.sleep(_REPORT_GRACE)

    def duplicate(self, comm, what):
        """``MPI_Comm_idup(comm)``, waited on like a collective (every rank must call it)."""
        copy, request = comm.Idup()
        self.poll(request.Test, what)
        return copy

    def poll_failure(self):
        """The cause a peer posted, if any (acknowledged to that peer)."""
        if self.failure is None and self._control is not None:
            status = self.MPI.Status()
            if self._control.Iprobe(source=self.MPI.ANY_SOURCE, tag=_ABORT, status=status):
                source = status.Get_source()
                buf = bytearray(status.Get_count(self.MPI.BYTE))
                self._control.Recv([buf, self.MPI.BYTE], source=source, tag=_ABORT)
                if buf[:1] == _UNRESPONSIVE:
                    buf = buf[1:]
                    _note_unresponsive(f"rank {source}: {buf.decode(errors='replace')}")
                self.failure = f"rank {source} failed: {buf.decode(errors='replace')}"
                self._sent.append(self._control.Isend(b"", dest=source, tag=_ACK))
        return self.failure


    def poll(self, done, what):
        """Call ``done()`` until it is true; DeviceError when a peer aborts, DeadlineExceededError
        after ``timeout`` seconds. ``done()`` drives MPI's progress, so it runs back to back at
        first; peers' aborts and the clock are checked every 64 calls, and after ~4000 calls
        the loop sleeps between them in growing steps (at most 1 ms)."""
        if done():
            return
        start = time.monotonic()
        spins, pause = 0, 0.0
        while not done():
            spins += 1
            if spins & 63:
                continue
            failure = self.poll_failure()
            if failure is not None:
                raise DeviceError(f"{what}: {failure}")
            if time.monotonic() - start > self.timeout:
                error = DeadlineExceededError(
                    f"{what}: peers did not complete it within {self.timeout:g} s (a rank hangs, "
                    "died, or runs a different program; RT_MPI_TIMEOUT sets the limit)")
                _note_unresponsive(f"rank {self.rank}: {error}")
                self.abort(error, unresponsive=True)
                raise error
            if spins > 4096:
                pause = min(0.001, pause * 2 or 0.00002)
                time.sleep(pause)

    def gather_text(self, text):
        """Every rank's ``text``, in rank order, on rank 0 (None on the others): how ``rt run
        --channel=mpi`` prints one ordered report instead of interleaved lines."""
        if self.rank != 0:
            request = self._control.isend(text, dest=0, tag=_OUTPUT)
            self.poll(lambda: request.test()[0], f"rank {self.rank} sending its results to rank 0")
            return None
        parts = [text]
        for r in range(1, self.count):
            request, got = self._control.irecv(source=r, tag=_OUTPUT), []

            def done(request=request, got=got):
                flag, value = request.test()
                if flag:
                    got.append(value)
                return flag

            self.poll(done, f"rank 0 receiving the results of rank {r}")
            parts.append(got[0])
        return parts


class MpiChannel(Channel):
    """Rank ``comm.rank`` of the MPI communicator ``comm``."""

    def __init__(self, provider, comm, group):
        self.provider, self.comm, self.group = provider, comm, group
        self.rank, self.count = comm.Get_rank(), comm.Get_size()
        self._sequence = 0

    def split(self, color, key):
        MPI = self.provider.MPI
        color, key = int(color), int(key)
        # MPI has no nonblocking split: agree first (a failed or absent peer ends it here)
        table = np.empty(2 * self.count, np.int64)
        self.wait([self.comm.Iallgather(np.array([color, key], np.int64), table)],
                  f"channel split on {self.group!r} rank {self.rank}")
        comm = self.comm.Split(MPI.UNDEFINED if color == NO_COLOR else color, key)
        if color == NO_COLOR or comm == MPI.COMM_NULL:
            return None
        return MpiChannel(self.provider, comm, (self.group, "split", color))

    def abort(self, cause):
        self.provider.abort(cause)

    def collective(self, op, param, send, recv, count):
        what = f"collective {op.describe()} x{count} on channel {self.group!r} rank {self.rank} of {self.count}"
        self.check_agreement(op, param, count, what)
        _run(self, op, param, send, recv, count, what)

    # -- waiting -------------------------------------------------------------------------------

    def wait(self, requests, what):
        """Wait for MPI ``requests`` (see ``MpiChannelProvider.poll``). Requests a failure leaves
        pending stay so (MPI cannot cancel collectives); ``MPI_Finalize`` does not wait for them."""
        MPI = self.provider.MPI
        self.provider.poll(lambda: MPI.Request.Testall(requests), what)

    def check_agreement(self, op, param, count, what, check_params=True):
        """Every rank runs the same collective: exchange ``(op, count, param, sequence)``
        (``check_params``: roots and send/recv pairs too)."""
        if self.provider.failure is not None:
            raise DeviceError(f"{what}: {self.provider.failure}")
        mine = np.array([op.pack(), count, int(param) & 0xFFFFFFFF, self._sequence], np.int64)
        self._sequence += 1
        table = np.empty((self.count, 4), np.int64)
        self.wait([self.comm.Iallgather(mine, table)], what)
        ops, counts, params, sequences = table.T
        if (ops != ops[0]).any() or (counts != counts[0]).any() or (sequences != sequences[0]).any():
            from rt.runtime.hal.collective import CollectiveOp

            ranks = "; ".join(f"rank {r} runs #{s} {CollectiveOp.unpack(o).describe()} x{c}"
                              for r, (o, c, _, s) in enumerate(table))
            raise DeviceError(f"collectives on channel {self.group!r} do not match: {ranks}")
        if not check_params:
            return
        if op.kind in (CollectiveKind.BROADCAST, CollectiveKind.REDUCE) and (params != params[0]).any():
            raise DeviceError(f"{what}: ranks name different roots: {list(map(int, params))}")
        if op.kind == CollectiveKind.SEND_RECV:
            pairs = [send_recv_ranks(p) for p in params]
            for r, (_, source) in enumerate(pairs):
                if source is not None and (not 0 <= source < self.count or pairs[source][0] != r):
                    raise DeviceError(f"{what}: send_recv: rank {r} receives from rank {source}, "
                                      "which does not send to it; every receive needs the matching send")


def _mpi_op(MPI, reduction):
    return {CollectiveReduction.SUM: MPI.SUM, CollectiveReduction.AVERAGE: MPI.SUM,
            CollectiveReduction.PRODUCT: MPI.PROD, CollectiveReduction.MINIMUM: MPI.MIN,
            CollectiveReduction.MAXIMUM: MPI.MAX}[reduction]


def _widen(op, values):
    """Values MPI can reduce: f16 / bf16 as f32."""
    if op.element_type == CollectiveElementType.BFLOAT_16:
        return bf16_to_f32(values)
    if op.element_type == CollectiveElementType.FLOAT_16:
        return values.astype(np.float32)
    return values


def _narrow(op, values, out, ranks):
    """Store reduced ``values`` into ``out`` in the op's type (AVERAGE divided by ``ranks`` as
    rt.runtime.hal.collective does)."""
    if op.reduction == CollectiveReduction.AVERAGE:
        if values.dtype.kind == "f":
            values = values / ranks
        else:
            values = np.sign(values) * (np.abs(values) // ranks)
    if op.element_type == CollectiveElementType.BFLOAT_16:
        values = f32_to_bf16(values.astype(np.float32))
    with np.errstate(over="ignore", invalid="ignore"):
        out[...] = values.astype(out.dtype)


def _order_matters(op):
    """Float sums, products and averages: the reduction order changes the rounding."""
    floating = op.dtype.kind == "f" or op.element_type == CollectiveElementType.BFLOAT_16
    return floating and op.reduction in (CollectiveReduction.SUM, CollectiveReduction.PRODUCT,
                                         CollectiveReduction.AVERAGE)


def _rank_ordered(channel, op, param, send, recv, count, what):
    """Gather every rank's send elements and reduce them in rank order (the reference)."""
    n = channel.count
    length = count * n if op.kind == CollectiveKind.REDUCE_SCATTER else count
    table = np.empty((n, length), send.dtype)
    channel.wait([channel.comm.Iallgather(np.ascontiguousarray(send[:length]), table)], what)
    result = compute(op, count, list(table), [int(param)] * n)[channel.rank]
    if result is not None:
        recv[:result.size] = result


def _run(channel, op, param, send, recv, count, what):
    MPI, comm, n, kind = channel.provider.MPI, channel.comm, channel.count, op.kind
    wait = channel.wait
    reduces = kind in (CollectiveKind.ALL_REDUCE, CollectiveKind.REDUCE, CollectiveKind.REDUCE_SCATTER)
    if reduces and n > 2 and _order_matters(op):
        _rank_ordered(channel, op, param, send, recv, count, what)
    elif reduces:
        source = _widen(op, send[:count * n if kind == CollectiveKind.REDUCE_SCATTER else count])
        root = int(param)
        mpi_op = _mpi_op(MPI, op.reduction)
        if kind == CollectiveKind.REDUCE and channel.rank != root:
            wait([comm.Ireduce(source, None, mpi_op, root)], what)
            return
        direct = source.dtype == recv.dtype and op.reduction != CollectiveReduction.AVERAGE
        result = recv[:count] if direct else np.empty(count, source.dtype)
        if np.may_share_memory(source, result):
            source = source.copy()
        if kind == CollectiveKind.ALL_REDUCE:
            wait([comm.Iallreduce(source, result, mpi_op)], what)
        elif kind == CollectiveKind.REDUCE:
            wait([comm.Ireduce(source, result, mpi_op, root)], what)
        else:
            wait([comm.Ireduce_scatter_block(source, result, mpi_op)], what)
        if not direct:
            _narrow(op, result, recv[:count], n)
    elif kind == CollectiveKind.ALL_GATHER:
        wait([comm.Iallgather(send[:count], recv[:count * n])], what)
    elif kind == CollectiveKind.ALL_TO_ALL:
        if count % n:
            raise InvalidArgumentError(f"{what}: all_to_all of {count} elements over {n} ranks: "
                                       "the count must be a multiple of the rank count")
        wait([comm.Ialltoall(send[:count], recv[:count])], what)
    elif kind == CollectiveKind.BROADCAST:
        root = int(param)
        buffer = send[:count] if channel.rank == root else recv[:count]
        wait([comm.Ibcast(buffer, root)], what)
    elif kind == CollectiveKind.SEND_RECV:
        target, source = send_recv_ranks(param)
        requests = []
        if target is not None:
            requests.append(comm.Isend(send[:count], dest=target))
        if source is not None:
            requests.append(comm.Irecv(recv[:count], source=source))
        else:
            recv[:count] = 0
        wait(requests, what)
    else:
        raise UnimplementedError(f"{what}: {kind.name.lower()} is not supported (point-to-point "
                                 "send and recv: use send_recv, which every rank joins)")
