# cython: language_level=3
"""Replay of a recorded command buffer: the typed records, resolved into addresses, run in order.

Modelled on IREE's inline command buffer (runtime/src/iree/hal/local/inline_command_buffer.c)
fed by a deferred recording (utils/deferred_command_buffer.c): ``execute`` runs on the thread
executing the queue operation. It first resolves every buffer the commands use — the command
buffer's own (direct references) and the submission's binding table (indirect ones) — to an
address, checking that each is live now (a queue_alloca'd buffer only becomes live when the
queue reaches the alloca). Then one loop walks the records. Commands that need no Python run
back to back with the GIL released (see "runs without the GIL" below): fills, copies and
updates in C, a dispatch through its library's C entry (``ExecutableLibrary.c_dispatch``,
rt.runtime.hal._library), a collective on an in-process channel through the C rendezvous
(rt.runtime.hal.drivers._local_rendezvous). A dispatch of a library without a C entry (vmvx,
test libraries) calls its Python ``dispatch``, and a collective on another channel (MPI, a
simulation's) calls the channel (rt.runtime.hal.collective.run_collective) with views of the
send and receive ranges, both with the GIL. Commands run one after the other, except that on
more than one thread consecutive dispatches with no barrier (nor other command) between them,
whose libraries share a C group entry (``LibraryEntry.group_fn``, llvm-cpu's pool), run side
by side as one job, as IREE's task command buffer issues the commands of a concurrent region
together (iree/hal/drivers/local_task/task_command_buffer.c); the compiler records no barrier
only between independent dispatches (iree-stream-schedule-concurrency). Traced executions run
every command alone, so that each has its own zone.

Tracing: given a sink, each command and debug group is reported as a zone on ``lane``, timed
with CLOCK_MONOTONIC (the clock behind ``time.perf_counter_ns`` on Linux); without one no
clock is read.
"""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal._buffer cimport Buffer
from rt.runtime.hal._command_buffer cimport CommandBuffer
from rt.runtime.hal._commands cimport (COMMAND_BARRIER, COMMAND_COLLECTIVE, COMMAND_COPY,
                                       COMMAND_DISPATCH, COMMAND_FILL, COMMAND_UPDATE, INDIRECT,
                                       BufferRef, CollectiveCommand, Command, DispatchCommand)
from rt.runtime.hal._executable cimport Executable
from rt.runtime.hal._library cimport (LibraryEntry, library_dispatch_fn, library_dispatch_t,
                                      library_group_fn)
from rt.runtime.hal._validation cimport Site, queue_site, size_value
from rt.runtime.hal.drivers._local_rendezvous cimport (RENDEZVOUS_OK, RENDEZVOUS_PENDING, Arrival,
                                                       CommState, Failure, NativeCommunicator,
                                                       rendezvous_arrive, rendezvous_wait,
                                                       rendezvous_wait_interruptibly,
                                                       wait_slice_ns)
from rt.runtime.hal import commands as records
from rt.runtime.hal.collective import CollectiveOp, run_collective
from rt.runtime.hal.drivers.local_channel import LocalChannel

cdef enum:
    STACK_BINDINGS = 64


class CommandFailure(Exception):
    """Raised by ``execute`` when command ``index`` failed; ``__cause__`` is the error."""

    def __init__(self, index):
        super().__init__(index)
        self.index = index


cdef class BindingTable:
    """The ``(buffer, offset, length)`` entries of one submission (checked by the queue)."""

    def __cinit__(self, list buffers):
        cdef Py_ssize_t n = len(buffers)
        self.buffers = buffers
        self.offsets = <uint64_t*>PyMem_Malloc(max(n, 1) * sizeof(uint64_t))
        self.lengths = <uint64_t*>PyMem_Malloc(max(n, 1) * sizeof(uint64_t))
        if self.offsets == NULL or self.lengths == NULL:
            raise MemoryError()
        self.count = n

    def __dealloc__(self):
        PyMem_Free(self.offsets)
        PyMem_Free(self.lengths)

    def entries(self):
        """The checked entries as a list of ``(buffer, offset, length)`` (bytes)."""
        return [(self.buffers[i], self.offsets[i], self.lengths[i]) for i in range(self.count)]


def binding_table(device, str kind, tuple command_buffers, entries):
    """The checked ``BindingTable`` of a submission of ``command_buffers`` to ``device``, or
    None when none of them uses binding-table slots and no table was given.

    entries: a sequence of ``(buffer, offset, length)`` (length None = to the end of the
    buffer), Buffer or BufferView (whole). Raises ``InvalidArgumentError`` naming the slot and
    what the commands need of it (rt.runtime.hal._validation).
    """
    cdef CommandBuffer cb
    cdef BindingTable table
    cdef Site site
    cdef Py_ssize_t i
    needed = max((cb.binding_capacity for cb in command_buffers), default=0)
    if entries is None:
        if needed:
            raise InvalidArgumentError(
                f"{kind} on {device.label}: the command buffers reference {needed} binding-table "
                "slots; pass binding_table=[(buffer, offset, length), ...]")
        return None
    site = queue_site(device)
    entries = list(entries)
    buffers = []
    for i, entry in enumerate(entries):
        form = records.binding(entry)
        if form is None or form[0] is None:
            raise InvalidArgumentError(
                f"{kind} on {device.label}: binding-table entry {i} must be a Buffer, a BufferView "
                f"or (buffer, offset, length), got {entry!r}")
        buffers.append(form[0])
    table = BindingTable(buffers)
    for i, entry in enumerate(entries):
        buffer, _, offset, length = records.binding(entry)
        table.offsets[i] = size_value(site, kind, offset, f"binding-table entry {i} offset")
        if length is None:
            length = buffer.byte_length - table.offsets[i] if table.offsets[i] < buffer.byte_length else 0
        table.lengths[i] = size_value(site, kind, length, f"binding-table entry {i} length")
    for cb in command_buffers:
        cb.check_table_c(site, kind, buffers, table.offsets, table.lengths, table.count)
    return table


cdef void _fill(uint8_t* dst, size_t length, uint32_t pattern, size_t pattern_length) noexcept nogil:
    cdef uint8_t head[4]
    cdef size_t done, chunk
    if length == 0:
        return
    if pattern_length == 1:
        for done in range(length):
            dst[done] = <uint8_t>pattern
        return
    if pattern_length == 2:
        (<uint16_t*>head)[0] = <uint16_t>pattern
    else:
        (<uint32_t*>head)[0] = pattern
    memcpy(dst, head, pattern_length)
    done = pattern_length
    while done < length:
        chunk = done if done < length - done else length - done
        memcpy(dst + done, dst, chunk)
        done += chunk


cdef inline int64_t _now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <int64_t>ts.tv_sec * 1000000000 + ts.tv_nsec


def now_ns():
    """The replay loop's clock in ns (equal to ``time.perf_counter_ns()`` on Linux)."""
    return _now_ns()


cdef class _Addresses:
    """The base address of every buffer a command buffer uses, for one execution."""
    cdef char** direct
    cdef char** slots

    def __dealloc__(self):
        PyMem_Free(self.direct)
        PyMem_Free(self.slots)

    cdef inline char* at(self, const BufferRef* r) noexcept:
        if r.buffer == INDIRECT:
            return self.slots[r.slot] + r.offset
        return self.direct[r.buffer] + r.offset


cdef int _user_of(CommandBuffer cb, int32_t buffer, int64_t slot) except -2:
    """The index of the first command referencing ``buffer`` (or table slot ``slot``)."""
    cdef Py_ssize_t i, k
    cdef Command* c
    cdef const BufferRef* refs[2]
    for i in range(cb.count()):
        c = cb.command(i)
        if c.kind == COMMAND_DISPATCH:
            for k in range(c.args.dispatch.binding_count):
                r = cb.ref(c.args.dispatch.bindings + k)
                if (r.buffer == buffer and buffer != INDIRECT) or (buffer == INDIRECT and r.buffer == INDIRECT and r.slot == slot):
                    return i
            continue
        refs[0] = refs[1] = NULL
        if c.kind == COMMAND_FILL:
            refs[0] = &c.args.fill.target
        elif c.kind == COMMAND_COPY:
            refs[0], refs[1] = &c.args.copy.source, &c.args.copy.target
        elif c.kind == COMMAND_UPDATE:
            refs[0] = &c.args.update.target
        elif c.kind == COMMAND_COLLECTIVE:
            refs[0], refs[1] = &c.args.collective.send, &c.args.collective.recv
        for k in range(2):
            if refs[k] != NULL and ((refs[k].buffer == buffer and buffer != INDIRECT) or (
                    buffer == INDIRECT and refs[k].buffer == INDIRECT and refs[k].slot == slot)):
                return i
    return 0


cdef _Addresses _resolve(CommandBuffer cb, BindingTable table):
    cdef _Addresses a = _Addresses.__new__(_Addresses)
    cdef Py_ssize_t i, n = len(cb.buffers)
    cdef Buffer b
    a.direct = <char**>PyMem_Malloc(max(n, 1) * sizeof(char*))
    if a.direct == NULL:
        raise MemoryError()
    for i in range(n):
        b = <Buffer>cb.buffers[i]
        try:
            a.direct[i] = b.address()
        except InvalidArgumentError as error:
            raise InvalidArgumentError(
                f"{cb.label}: {cb.describe_command(_user_of(cb, i, 0))} uses a buffer that is not "
                f"usable: {error}") from None
    if cb.binding_capacity:
        a.slots = <char**>PyMem_Malloc(cb.binding_capacity * sizeof(char*))
        if a.slots == NULL:
            raise MemoryError()
        for i in range(cb.binding_capacity):
            entry = table.buffers[i]
            if entry is None:
                a.slots[i] = NULL
                continue
            b = <Buffer>entry
            try:
                a.slots[i] = b.address() + table.offsets[i]
            except InvalidArgumentError as error:
                raise InvalidArgumentError(
                    f"{cb.label}: {cb.describe_command(_user_of(cb, INDIRECT, i))} uses binding-table "
                    f"slot {i}, whose buffer is not usable: {error}") from None
    return a


cdef int _dispatch_python(CommandBuffer cb, _Addresses a, DispatchCommand* d,
                          uint32_t threads) except -1:
    """A dispatch of a library without a C entry (vmvx, test libraries): its Python
    ``dispatch`` with the binding addresses."""
    cdef Executable e = <Executable>cb.executables[d.executable]
    cdef const uint32_t* constants = cb.constant_pool() + d.constants
    cdef const BufferRef* r
    cdef uint32_t i
    if not (d.workgroup_count[0] and d.workgroup_count[1] and d.workgroup_count[2]):
        return 0
    e.library.dispatch(
        d.ordinal, (d.workgroup_count[0], d.workgroup_count[1], d.workgroup_count[2]),
        [constants[i] for i in range(d.constant_count)],
        [<uintptr_t>a.at(cb.ref(d.bindings + i)) for i in range(d.binding_count)],
        [cb.ref(d.bindings + i).length for i in range(d.binding_count)], threads)
    return 0


# -- runs without the GIL --------------------------------------------------------------------
#
# The commands that need no Python (fills, copies, updates, dispatches of libraries with a C
# entry, collectives on in-process channels) run back to back with the GIL released: a queue
# thread goes from a dispatch into a collective's rendezvous and on to the next dispatch
# without taking the GIL, which the other ranks' threads of an SPMD call hold while they
# interpret their programs (each take of a contended GIL cost 15-30 us on the 2-vCPU
# development host). A command that needs Python (a Python library's dispatch, a collective on
# another channel) ends the run; the loop runs it with the GIL and starts another run after it.

cdef class _Plan:
    """What a run without the GIL needs of a command buffer, resolved once (its executables'
    C entries, its channels' in-process communicators, its host bytes)."""
    cdef library_dispatch_fn* fn
    cdef void** state
    cdef library_group_fn* group
    cdef CommState** comm
    cdef int* rank
    cdef const unsigned char* host
    cdef int most_ranks  # the largest in-process communicator's rank count

    def __dealloc__(self):
        PyMem_Free(self.fn)
        PyMem_Free(self.state)
        PyMem_Free(self.group)
        PyMem_Free(self.comm)
        PyMem_Free(self.rank)


cdef _Plan _plan(CommandBuffer cb):
    cdef _Plan p = <_Plan>cb.replay_plan
    cdef Executable e
    cdef Py_ssize_t i, ne = len(cb.executables), nc = len(cb.channels)
    if p is not None:
        return p
    p = _Plan.__new__(_Plan)
    p.fn = <library_dispatch_fn*>PyMem_Malloc(max(ne, 1) * sizeof(library_dispatch_fn))
    p.state = <void**>PyMem_Malloc(max(ne, 1) * sizeof(void*))
    p.group = <library_group_fn*>PyMem_Malloc(max(ne, 1) * sizeof(library_group_fn))
    p.comm = <CommState**>PyMem_Malloc(max(nc, 1) * sizeof(CommState*))
    p.rank = <int*>PyMem_Malloc(max(nc, 1) * sizeof(int))
    if p.fn == NULL or p.state == NULL or p.group == NULL or p.comm == NULL or p.rank == NULL:
        raise MemoryError()
    for i in range(ne):
        e = <Executable>cb.executables[i]
        p.fn[i], p.state[i], p.group[i] = NULL, NULL, NULL
        if e.entry is not None:
            p.fn[i], p.state[i], p.group[i] = e.entry.fn, e.entry.state, e.entry.group_fn
    p.most_ranks = 0
    for i in range(nc):
        channel = cb.channels[i]
        p.comm[i], p.rank[i] = NULL, 0
        if type(channel) is LocalChannel:
            # cb.channels keeps the channel, its communicator and this state alive.
            p.comm[i], p.rank[i] = (<NativeCommunicator>channel.comm.native).c, channel.rank
            p.most_ranks = max(p.most_ranks, p.comm[i].count)
    p.host = cb.host_bytes(0)
    cb.replay_plan = p
    return p


cdef enum StopKind:
    STOP_NONE = 0        # at a command that needs Python, or at the end
    STOP_DISPATCH = 1    # a dispatch failed: ``status``, ``workgroup``
    STOP_GROUP = 2       # dispatch ``index + failed_dispatch`` of a group failed
    STOP_COLLECTIVE = 3  # a collective's rendezvous failed: ``rendezvous``, ``failure``
    STOP_PENDING = 4     # a collective's wait timed out on the main thread (check signals)
    STOP_MEMORY = 5


ctypedef struct _Run:
    Command* commands
    BufferRef* refs
    const uint32_t* constants
    const unsigned char* host
    char** direct
    char** slots
    library_dispatch_fn* fn
    void** state
    library_group_fn* group
    CommState** comm
    int* rank
    uint32_t threads
    int64_t wait_ns          # a collective's wait: -1 none, else in slices (main thread)
    StopKind stop
    int32_t status
    uint64_t workgroup
    uint32_t failed_dispatch
    int rendezvous
    int64_t seq
    Failure failure


cdef inline char* _at(const _Run* r, const BufferRef* ref) noexcept nogil:
    if ref.buffer == INDIRECT:
        return r.slots[ref.slot] + ref.offset
    return r.direct[ref.buffer] + ref.offset


cdef inline bint _native(const _Run* r, const Command* c) noexcept nogil:
    if c.kind == COMMAND_DISPATCH:
        return r.fn[c.args.dispatch.executable] != NULL
    if c.kind == COMMAND_COLLECTIVE:
        return r.comm[c.args.collective.channel] != NULL
    return True


cdef inline library_group_fn _group_nogil(const _Run* r, const Command* c) noexcept nogil:
    if c.kind != COMMAND_DISPATCH:
        return NULL
    return r.group[c.args.dispatch.executable]


cdef inline void _bindings(const _Run* r, const DispatchCommand* d, void** ptrs,
                           uint64_t* lengths) noexcept nogil:
    """Dispatch ``d``'s binding addresses and lengths into ``ptrs`` / ``lengths``."""
    cdef uint32_t i
    cdef const BufferRef* ref
    for i in range(d.binding_count):
        ref = &r.refs[d.bindings + i]
        ptrs[i] = _at(r, ref)
        lengths[i] = ref.length


cdef int _dispatch_nogil(_Run* r, const DispatchCommand* d) noexcept nogil:
    cdef void* stack_ptrs[STACK_BINDINGS]
    cdef uint64_t stack_lengths[STACK_BINDINGS]
    cdef void** ptrs = stack_ptrs
    cdef uint64_t* lengths = stack_lengths
    cdef uint32_t n = d.binding_count
    if not (d.workgroup_count[0] and d.workgroup_count[1] and d.workgroup_count[2]):
        return 0
    if n > STACK_BINDINGS:
        ptrs = <void**>malloc(n * sizeof(void*))
        lengths = <uint64_t*>malloc(n * sizeof(uint64_t))
        if ptrs == NULL or lengths == NULL:
            free(ptrs)
            free(lengths)
            r.stop = STOP_MEMORY
            return -1
    _bindings(r, d, ptrs, lengths)
    r.status = r.fn[d.executable](r.state[d.executable], d.ordinal, d.workgroup_count,
                                  r.constants + d.constants, ptrs, lengths, r.threads,
                                  &r.workgroup)
    if ptrs != stack_ptrs:
        free(ptrs)
        free(lengths)
    if r.status != 0:
        r.stop = STOP_DISPATCH
        return -1
    return 0


cdef int _group_nogil_run(_Run* r, Py_ssize_t first, Py_ssize_t end) noexcept nogil:
    cdef uint32_t count = <uint32_t>(end - first), k, nb = 0
    cdef const DispatchCommand* d
    cdef library_dispatch_t* items
    cdef void** ptrs
    cdef uint64_t* lengths
    for k in range(count):
        nb += r.commands[first + k].args.dispatch.binding_count
    items = <library_dispatch_t*>malloc(count * sizeof(library_dispatch_t))
    ptrs = <void**>malloc(max(nb, 1) * sizeof(void*))
    lengths = <uint64_t*>malloc(max(nb, 1) * sizeof(uint64_t))
    if items == NULL or ptrs == NULL or lengths == NULL:
        free(items)
        free(ptrs)
        free(lengths)
        r.stop = STOP_MEMORY
        return -1
    nb = 0
    for k in range(count):
        d = &r.commands[first + k].args.dispatch
        items[k].state = r.state[d.executable]
        items[k].ordinal = d.ordinal
        items[k].workgroup_count = d.workgroup_count
        items[k].constants = r.constants + d.constants
        items[k].binding_ptrs = ptrs + nb
        items[k].binding_lengths = lengths + nb
        _bindings(r, d, ptrs + nb, lengths + nb)
        nb += d.binding_count
    r.status = r.group[r.commands[first].args.dispatch.executable](
        items, count, r.threads, &r.failed_dispatch, &r.workgroup)
    free(items)
    free(ptrs)
    free(lengths)
    if r.status != 0:
        r.stop = STOP_GROUP
        return -1
    return 0


cdef int _collective_nogil(_Run* r, const CollectiveCommand* k) noexcept nogil:
    cdef Arrival arrival
    cdef CommState* comm = r.comm[k.channel]
    arrival.op, arrival.param, arrival.count = k.op, k.param, k.element_count
    arrival.send, arrival.send_length = _at(r, &k.send), k.send.length
    arrival.recv, arrival.recv_length = _at(r, &k.recv), k.recv.length
    r.rendezvous = rendezvous_arrive(comm, r.rank[k.channel], &arrival, &r.seq)
    if r.rendezvous == RENDEZVOUS_OK:
        r.rendezvous = rendezvous_wait(comm, r.seq, r.wait_ns, &r.failure)
    if r.rendezvous == RENDEZVOUS_PENDING:
        r.stop = STOP_PENDING
        return -1
    if r.rendezvous != RENDEZVOUS_OK:
        r.stop = STOP_COLLECTIVE
        return -1
    return 0


cdef Py_ssize_t _run_nogil(_Run* r, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """Run commands from ``i`` while they need no Python; the index reached (the failing or
    pending command when ``r.stop`` is set; for a failing group, its first command)."""
    cdef Command* c
    cdef Py_ssize_t end
    cdef library_group_fn fn
    cdef size_t length
    r.stop = STOP_NONE
    while i < n:
        c = &r.commands[i]
        if not _native(r, c):
            return i
        if c.kind == COMMAND_DISPATCH:
            fn = _group_nogil(r, c) if r.threads > 1 else NULL
            end = i + 1
            if fn != NULL:
                while end < n and _group_nogil(r, &r.commands[end]) == fn:
                    end += 1
            if end - i > 1:
                if _group_nogil_run(r, i, end) != 0:
                    return i
                i = end
                continue
            if _dispatch_nogil(r, &c.args.dispatch) != 0:
                return i
        elif c.kind == COMMAND_FILL:
            _fill(<uint8_t*>_at(r, &c.args.fill.target), c.args.fill.target.length,
                  c.args.fill.pattern, c.args.fill.pattern_length)
        elif c.kind == COMMAND_COPY:
            memmove(_at(r, &c.args.copy.target), _at(r, &c.args.copy.source),
                    c.args.copy.source.length)
        elif c.kind == COMMAND_UPDATE:
            memcpy(_at(r, &c.args.update.target), r.host + c.args.update.source_offset,
                   c.args.update.target.length)
        elif c.kind == COMMAND_COLLECTIVE:
            if _collective_nogil(r, &c.args.collective) != 0:
                return i
        i += 1
    return i


cdef Py_ssize_t _finish_pending(CommandBuffer cb, _Run* r, Py_ssize_t i) except -1:
    """Wait out command ``i``'s collective on the main thread, Ctrl-C ending the wait
    (``rendezvous_wait_interruptibly``); raise its failure, if any."""
    cdef CollectiveCommand* k = &cb.command(i).args.collective
    channel = cb.channels[k.channel]
    try:
        r.rendezvous = rendezvous_wait_interruptibly(r.comm[k.channel], r.seq, r.rendezvous,
                                                     &r.failure)
    except KeyboardInterrupt:
        channel.comm.interrupted(channel.rank)
        raise
    if r.rendezvous != RENDEZVOUS_OK:
        _raise_collective(cb, r, i)
    return 0


cdef int _raise_collective(CommandBuffer cb, _Run* r, Py_ssize_t i) except -1:
    cdef CollectiveCommand* k = &cb.command(i).args.collective
    channel = cb.channels[k.channel]
    native = <NativeCommunicator>channel.comm.native
    op = CollectiveOp.unpack(k.op)
    raise channel.comm.error(channel.rank, f"collective {op.describe()} x{k.element_count}",
                             *native.outcome(r.rendezvous, &r.failure))


cdef int _raise_stop(CommandBuffer cb, _Run* r, Py_ssize_t i, Py_ssize_t* at) except -1:
    """Raise what stopped a run at command ``i`` (``at``: the failing command)."""
    cdef DispatchCommand* d
    cdef Executable e
    at[0] = i
    if r.stop == STOP_MEMORY:
        raise MemoryError()
    if r.stop == STOP_COLLECTIVE:
        _raise_collective(cb, r, i)
    if r.stop == STOP_GROUP:
        at[0] = i + r.failed_dispatch
    d = &cb.command(at[0]).args.dispatch
    e = <Executable>cb.executables[d.executable]
    raise e.entry.owner.dispatch_error(
        d.ordinal, (d.workgroup_count[0], d.workgroup_count[1], d.workgroup_count[2]),
        r.status, r.workgroup)


cdef int _run_python(CommandBuffer cb, _Addresses a, Command* c, uint32_t threads) except -1:
    """A command that needs Python (``_native`` is false for it): a dispatch of a library
    without a C entry, or a collective on a channel other than an in-process one (MPI, a
    simulation's), which gets views of its send and receive ranges
    (rt.runtime.hal.collective.run_collective)."""
    cdef CollectiveCommand* k
    if c.kind == COMMAND_DISPATCH:
        return _dispatch_python(cb, a, &c.args.dispatch, threads)
    k = &c.args.collective
    run_collective(cb.channels[k.channel], k.op, k.param,
                   _memory(a.at(&k.send), k.send.length), _memory(a.at(&k.recv), k.recv.length),
                   k.element_count)
    return 0


cdef Py_ssize_t _step(CommandBuffer cb, _Addresses a, _Run* r, Py_ssize_t i, Py_ssize_t end,
                      Py_ssize_t* at) except -1:
    """Run the commands from ``i`` (before ``end``) that need no Python in one release of the
    GIL, or command ``i`` with it if it needs Python; the index of the next command. On a
    failure ``at`` is set to the failing command before raising."""
    cdef Py_ssize_t j
    at[0] = i
    if not _native(r, &r.commands[i]):
        _run_python(cb, a, cb.command(i), r.threads)
        return i + 1
    with nogil:
        j = _run_nogil(r, i, end)
    at[0] = j
    if r.stop == STOP_PENDING:
        _finish_pending(cb, r, j)
        return j + 1
    if r.stop != STOP_NONE:
        _raise_stop(cb, r, j, at)
    return j


cdef object _memory(char* address, size_t length):
    """A writable memoryview of ``length`` bytes at ``address`` (no copy)."""
    if length == 0:
        return memoryview(bytearray())
    return memoryview(<unsigned char[:length]><unsigned char*>address)


cdef Py_ssize_t _markers(tuple markers, object sink, object lane, Py_ssize_t depth) except -1:
    for label in markers:
        if label is None:
            sink.zone_end(lane, _now_ns())
            depth -= 1
        else:
            sink.zone_begin(lane, label, _now_ns(), None)
            depth += 1
    return depth


cdef int execute_c(CommandBuffer cb, BindingTable table, uint32_t threads, object sink,
                   object lane) except -1:
    """Run every command of ``cb`` in order (``table``: the submission's binding table or
    None); raises ``CommandFailure(index)`` from the cause."""
    cdef Py_ssize_t i = 0, n = cb.count(), depth = 0, at = 0
    cdef _Addresses a = _resolve(cb, table)
    cdef list zones
    cdef tuple zone
    cdef _Plan p = _plan(cb)
    cdef _Run r
    cdef uint8_t gone_stack[256]
    r.commands, r.refs, r.constants, r.host = cb._commands, cb._refs, cb._constants, p.host
    r.direct, r.slots = a.direct, a.slots
    r.fn, r.state, r.group, r.comm, r.rank = p.fn, p.state, p.group, p.comm, p.rank
    r.threads = threads
    r.wait_ns = wait_slice_ns()
    # Where a failed rendezvous names the ranks that never joined.
    r.failure.gone = &gone_stack[0]
    if p.most_ranks > 256:
        r.failure.gone = <uint8_t*>PyMem_Malloc(p.most_ranks)
        if r.failure.gone == NULL:
            raise MemoryError()
    try:
        if sink is None:
            try:
                while i < n:
                    i = _step(cb, a, &r, i, n, &i)
            except Exception as error:
                raise CommandFailure(i) from error
            return 0
        # Traced: every command alone, in its own zone.
        zones = cb.trace_zones()
        try:
            while i < n:
                zone = <tuple>zones[i]
                depth = _markers(<tuple>zone[0], sink, lane, depth)
                sink.zone_begin(lane, zone[1], _now_ns(), zone[2])
                try:
                    _step(cb, a, &r, i, i + 1, &at)
                except Exception as error:
                    sink.zone_end(lane, _now_ns(), {"error": str(error)})
                    raise
                sink.zone_end(lane, _now_ns())
                i += 1
            _markers(<tuple>(<tuple>zones[n])[0], sink, lane, depth)
        except Exception as error:
            while depth > 0:
                sink.zone_end(lane, _now_ns())
                depth -= 1
            raise CommandFailure(i) from error
        return 0
    finally:
        if r.failure.gone != &gone_stack[0]:
            PyMem_Free(r.failure.gone)


cdef int execute_command_buffer(CommandBuffer cb, BindingTable table, uint32_t threads,
                                object sink, object lane, object caller=None) except -1:
    """``execute_c``, raising ``DeviceError`` naming the command buffer, the command (index,
    export, executable, where it was recorded as seen from ``caller``, the submitting
    ``CallSite`` or None) and the cause; ``InvalidArgumentError`` if a buffer it uses is not
    live."""
    try:
        execute_c(cb, table, threads, sink, lane)
    except CommandFailure as failure:
        cause = failure.__cause__
        raise DeviceError(f"{cb.label}: {cb.describe_command(failure.index, caller)} "
                          f"failed: {cause}") from cause
    return 0


def execute(CommandBuffer cb, BindingTable table, threads, sink=None, lane=None, caller=None):
    """Run ``cb`` with binding table ``table`` (or None) on ``threads`` workers per dispatch;
    see ``execute_command_buffer``."""
    execute_command_buffer(cb, table, threads, sink, lane, caller)
