# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The in-process collective rendezvous in C: ranks meet, the last computes, without the GIL.

rt.runtime.hal.drivers.local_channel's communicators run every collective through a
``NativeCommunicator``. Ranks (queue threads, or a thread that donates itself to its queue)
join collective ``seq`` of their communicator in order: each deposits its ``Arrival`` (op,
param, send and receive byte ranges), polls for a while (``_poll``) and then sleeps on the
world's condition variable; the last to arrive checks that every rank asked for the same op
and count, computes every rank's result and wakes them. Arriving, waiting, waking and
computing take no GIL, so a rank's queue thread goes from a dispatch (also run without the
GIL) into the collective and out again while other ranks' threads interpret Python; the
numpy rendezvous it replaces took the GIL for each of those steps, and on the 2-vCPU
development host every cross-thread handoff of the GIL cost 15-30 us.

What it computes follows ``rt.runtime.hal.collective.compute`` (the reference semantics)
bit for bit: reductions in rank order (``((r0 op r1) op r2) ...``), sum and product of
integers wrapping as numpy's do, of f32/f64 rounded per step as numpy's are. Kinds and
element types it does not compute in C (average; f16 and bf16 reductions; float minimum and
maximum, where numpy's NaN and signed-zero rules would have to be matched; sizes the
reference refuses) go to ``fallback(arrivals)`` with the GIL, which is the reference itself.

Epochs, aborts and finished ranks mirror ``LocalWorld``: ``NativeWorld.new_epoch`` forgets
every rendezvous, ``abort`` fails waiting and later ones until the next epoch, ``finish(rank)``
fails those the rank will never join.
"""
from cpython.buffer cimport PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.exc cimport PyErr_CheckSignals
from libc.errno cimport ETIMEDOUT
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memmove, memset
from posix.time cimport CLOCK_MONOTONIC, CLOCK_REALTIME, clock_gettime, timespec

import os
import threading

cdef extern from "<pthread.h>" nogil:
    int pthread_mutex_init(pthread_mutex_t* mutex, const void* attr)
    int pthread_mutex_destroy(pthread_mutex_t* mutex)
    int pthread_mutex_lock(pthread_mutex_t* mutex)
    int pthread_mutex_unlock(pthread_mutex_t* mutex)
    int pthread_cond_init(pthread_cond_t* cond, const void* attr)
    int pthread_cond_destroy(pthread_cond_t* cond)
    int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex)
    int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex, const timespec* t)
    int pthread_cond_broadcast(pthread_cond_t* cond)

cdef extern from "pythread.h":
    unsigned long PyThread_get_thread_ident() nogil

cdef extern from "<sched.h>" nogil:
    int sched_yield()

cdef extern from *:
    """
    static inline int rt_rendezvous_load(const int* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline long long rt_rendezvous_load64(const long long* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    """
    int rt_rendezvous_load(const int* p) nogil
    long long rt_rendezvous_load64(const long long* p) nogil

# iree_hal_collective_kind_e / _reduction_e / _element_type_e (rt.runtime.hal.collective).
cdef enum:
    ALL_GATHER = 0
    ALL_REDUCE = 1
    ALL_TO_ALL = 2
    BROADCAST = 3
    REDUCE = 4
    REDUCE_SCATTER = 5
    SEND_RECV = 8
    SUM = 1
    PRODUCT = 2
    MINIMUM = 3
    MAXIMUM = 4
    SINT_8 = 0
    UINT_8 = 1
    SINT_16 = 2
    UINT_16 = 3
    SINT_32 = 4
    UINT_32 = 5
    SINT_64 = 6
    UINT_64 = 7
    FLOAT_32 = 9
    FLOAT_64 = 10
    ELEMENT_TYPES = 12
    NO_RANK = 0xFFFF

cdef unsigned long _MAIN_THREAD = threading.main_thread().ident
# How long the main thread (the one signals reach) waits before it checks for Ctrl-C.
cdef int64_t _SLICE_NS = 50000000
#: How long a rank that reached a rendezvous before the last polls for its completion before
#: it sleeps, in ns (``_poll``), where every rank of the world can have a core of its own.
SPIN_NS = 100000

cdef uint64_t ELEMENT_SIZE[ELEMENT_TYPES]
ELEMENT_SIZE[:] = [1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8, 2]


# -- the computation ----------------------------------------------------------------------

ctypedef fused wrapping_t:  # sum and product: integers as unsigned (two's complement wraps)
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double

ctypedef fused ordered_t:  # minimum and maximum of integers
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    int64_t
    uint64_t


cdef void _arith(wrapping_t* out, const wrapping_t* other, uint64_t n, bint product) noexcept nogil:
    cdef uint64_t i
    if wrapping_t is float or wrapping_t is double:
        if product:
            for i in range(n):
                out[i] = out[i] * other[i]
        else:
            for i in range(n):
                out[i] = out[i] + other[i]
    else:
        # Widened to 64 bits first: C promotes narrow unsigned operands to (signed) int.
        if product:
            for i in range(n):
                out[i] = <wrapping_t>(<uint64_t>out[i] * <uint64_t>other[i])
        else:
            for i in range(n):
                out[i] = <wrapping_t>(<uint64_t>out[i] + <uint64_t>other[i])


cdef void _order(ordered_t* out, const ordered_t* other, uint64_t n, bint maximum) noexcept nogil:
    cdef uint64_t i
    if maximum:
        for i in range(n):
            if other[i] > out[i]:
                out[i] = other[i]
    else:
        for i in range(n):
            if other[i] < out[i]:
                out[i] = other[i]


cdef bint _reducible(uint32_t reduction, uint32_t element) noexcept nogil:
    """Whether C reduces ``element`` with ``reduction`` as numpy does."""
    if reduction == SUM or reduction == PRODUCT:
        return element <= UINT_64 or element == FLOAT_32 or element == FLOAT_64
    if reduction == MINIMUM or reduction == MAXIMUM:
        return element <= UINT_64
    return False


cdef void _accumulate(char* out, const char* other, uint64_t n, uint32_t reduction,
                      uint32_t element) noexcept nogil:
    """``out = out op other`` over ``n`` elements (``_reducible`` holds)."""
    cdef bint flag
    if reduction == SUM or reduction == PRODUCT:
        flag = reduction == PRODUCT
        if element == FLOAT_32:
            _arith(<float*>out, <const float*>other, n, flag)
        elif element == FLOAT_64:
            _arith(<double*>out, <const double*>other, n, flag)
        elif element <= UINT_8:
            _arith(<uint8_t*>out, <const uint8_t*>other, n, flag)
        elif element <= UINT_16:
            _arith(<uint16_t*>out, <const uint16_t*>other, n, flag)
        elif element <= UINT_32:
            _arith(<uint32_t*>out, <const uint32_t*>other, n, flag)
        else:
            _arith(<uint64_t*>out, <const uint64_t*>other, n, flag)
        return
    flag = reduction == MAXIMUM
    if element == SINT_8:
        _order(<int8_t*>out, <const int8_t*>other, n, flag)
    elif element == UINT_8:
        _order(<uint8_t*>out, <const uint8_t*>other, n, flag)
    elif element == SINT_16:
        _order(<int16_t*>out, <const int16_t*>other, n, flag)
    elif element == UINT_16:
        _order(<uint16_t*>out, <const uint16_t*>other, n, flag)
    elif element == SINT_32:
        _order(<int32_t*>out, <const int32_t*>other, n, flag)
    elif element == UINT_32:
        _order(<uint32_t*>out, <const uint32_t*>other, n, flag)
    elif element == SINT_64:
        _order(<int64_t*>out, <const int64_t*>other, n, flag)
    else:
        _order(<uint64_t*>out, <const uint64_t*>other, n, flag)


cdef inline bint _overlap(const char* a, uint64_t a_length, const char* b,
                          uint64_t b_length) noexcept nogil:
    return a_length != 0 and b_length != 0 and a < b + b_length and b < a + a_length


cdef bint _recv_overlaps_send(const Arrival* a, int n) noexcept nogil:
    cdef int r, s
    for r in range(n):
        for s in range(n):
            if _overlap(a[r].recv, a[r].recv_length, a[s].send, a[s].send_length):
                return True
    return False


cdef int _send_recv_source(const Arrival* a, int n, int r) noexcept nogil:
    """Rank ``r``'s source (-1: none), or -2 when the pairing is one the reference refuses."""
    cdef uint32_t source = a[r].param >> 16
    cdef uint32_t target
    if source == NO_RANK:
        return -1
    if source >= <uint32_t>n:
        return -2
    target = a[source].param & 0xFFFF
    if target != <uint32_t>r:
        return -2
    return <int>source


cdef int _compute(const Arrival* arrivals, int n) noexcept nogil:
    """Every rank's result written into its receive range: 0, or 1 when C does not compute
    this case (the caller runs the reference) — decided before anything is written."""
    cdef uint32_t op = arrivals[0].op
    cdef uint32_t kind = op & 0xFF, reduction = (op >> 8) & 0xFF, element = (op >> 16) & 0xFF
    cdef uint64_t size, count = arrivals[0].count, length, block = 0, total, at
    cdef const Arrival* a = arrivals
    cdef Arrival* snapshot = NULL
    cdef char* scratch = NULL
    cdef char* result
    cdef int r, s, root = 0, source
    if element >= ELEMENT_TYPES:
        return 1
    size = ELEMENT_SIZE[element]
    length = a[0].send_length
    # Checks first: the reference's refusals and shapes numpy would reject go to it.
    if kind == ALL_REDUCE or kind == REDUCE or kind == REDUCE_SCATTER:
        if not _reducible(reduction, element) or length % size:
            return 1
        for r in range(n):
            if a[r].send_length != length:
                return 1
        if kind == ALL_REDUCE:
            for r in range(n):
                if a[r].recv_length < length:
                    return 1
        elif kind == REDUCE:
            root = <int>a[0].param
            if root < 0 or root >= n or a[root].recv_length < length:
                return 1
        else:
            if count * n * size > length:
                return 1
            for r in range(n):
                if a[r].recv_length < count * size:
                    return 1
    elif kind == ALL_GATHER:
        total = 0
        for r in range(n):
            total += a[r].send_length
        for r in range(n):
            if a[r].recv_length < total:
                return 1
    elif kind == ALL_TO_ALL:
        if count % n:
            return 1
        block = (count // n) * size
        for r in range(n):
            if a[r].send_length < count * size or a[r].recv_length < block * n:
                return 1
    elif kind == BROADCAST:
        root = <int>a[0].param
        if root < 0 or root >= n:
            return 1
        for r in range(n):
            if r != root and a[r].recv_length < a[root].send_length:
                return 1
    elif kind == SEND_RECV:
        for r in range(n):
            source = _send_recv_source(a, n, r)
            if source == -2:
                return 1
            if source == -1 and a[r].recv_length < count * size:
                return 1
            if source >= 0 and a[r].recv_length < a[source].send_length:
                return 1
    else:
        return 1
    # A receive range that overlaps a send range (an in-place collective) is written only
    # after every send has been read: the sends are copied aside first.
    if _recv_overlaps_send(a, n):
        total = 0
        for r in range(n):
            total += a[r].send_length
        snapshot = <Arrival*>malloc(n * sizeof(Arrival))
        scratch = <char*>malloc(total if total else 1)
        if snapshot == NULL or scratch == NULL:
            free(snapshot)
            free(scratch)
            return 1
        at = 0
        for r in range(n):
            snapshot[r] = a[r]
            snapshot[r].send = scratch + at
            memcpy(scratch + at, a[r].send, a[r].send_length)
            at += a[r].send_length
        a = snapshot
    if kind == ALL_REDUCE or kind == REDUCE or kind == REDUCE_SCATTER:
        if kind == REDUCE:
            result = a[root].recv
        else:
            # Reduce into rank 0's receive range when it holds the whole result, else aside.
            result = a[0].recv if kind == ALL_REDUCE else <char*>malloc(length if length else 1)
            if result == NULL:
                free(snapshot)
                free(scratch)
                return 1
        memmove(result, a[0].send, length)
        for r in range(1, n):
            _accumulate(result, a[r].send, length // size, reduction, element)
        if kind == ALL_REDUCE:
            for r in range(1, n):
                memcpy(a[r].recv, result, length)
        elif kind == REDUCE_SCATTER:
            for r in range(n):
                memcpy(a[r].recv, result + r * count * size, count * size)
            free(result)
    elif kind == ALL_GATHER:
        for r in range(n):
            at = 0
            for s in range(n):
                memcpy(a[r].recv + at, a[s].send, a[s].send_length)
                at += a[s].send_length
    elif kind == ALL_TO_ALL:
        for r in range(n):
            for s in range(n):
                memcpy(a[r].recv + s * block, a[s].send + r * block, block)
    elif kind == BROADCAST:
        for r in range(n):
            if r != root:
                memcpy(a[r].recv, a[root].send, a[root].send_length)
    else:
        for r in range(n):
            source = _send_recv_source(a, n, r)
            if source == -1:
                memset(a[r].recv, 0, count * size)
            else:
                memcpy(a[r].recv, a[source].send, a[source].send_length)
    free(snapshot)
    free(scratch)
    return 0


# -- the world and its communicators ------------------------------------------------------

cdef class NativeWorld:
    """The shared state of a ``LocalWorld`` of ``count`` ranks (see the module docstring).
    ``spin_ns``: how long a waiting rank polls before it sleeps (``_poll``); default
    ``SPIN_NS`` where the ranks are no more than the cores this process may run on, else 0."""

    def __cinit__(self, int count, spin_ns=None):
        self.state = <WorldState*>calloc(1, sizeof(WorldState))
        if self.state == NULL:
            raise MemoryError()
        self.state.finished = <uint8_t*>calloc(count, 1)
        if self.state.finished == NULL:
            free(self.state)
            self.state = NULL
            raise MemoryError()
        pthread_mutex_init(&self.state.mutex, NULL)
        pthread_cond_init(&self.state.cond, NULL)
        self.state.count = count
        if spin_ns is None:
            spin_ns = SPIN_NS if count <= len(os.sched_getaffinity(0)) else 0
        self.state.spin_ns = spin_ns
        self.communicators = []

    @property
    def spin_ns(self):
        """How long a rank waiting at a rendezvous polls before it sleeps (ns; ``_poll``)."""
        return self.state.spin_ns

    def __dealloc__(self):
        # Communicators keep their world alive, so none is left using this state.
        if self.state != NULL:
            pthread_mutex_destroy(&self.state.mutex)
            pthread_cond_destroy(&self.state.cond)
            free(self.state.finished)
            free(self.state)

    def communicator(self, int count, members, fallback):
        """A new communicator of ``count`` ranks, rank r being world rank ``members[r]``;
        ``fallback(arrivals)`` computes what C does not (see NativeCommunicator)."""
        comm = NativeCommunicator(self, count, members, fallback)
        self.communicators.append(comm)
        return comm

    # The methods below take the mutex with the GIL held: no thread ever waits for the GIL
    # while it holds the mutex (arrivals compute a fallback only after unlocking), so this
    # cannot deadlock, and it spares a call the GIL handoffs that releasing it would cost.

    def new_epoch(self):
        """Forget every rendezvous (a new call starts): numbering restarts, an abort ends."""
        cdef NativeCommunicator comm
        cdef WorldState* w = self.state
        pthread_mutex_lock(&w.mutex)
        w.epoch += 1
        w.failed = 0
        memset(w.finished, 0, w.count)
        for comm in self.communicators:
            _reset(comm.c)
        pthread_cond_broadcast(&w.cond)
        pthread_mutex_unlock(&w.mutex)

    def finish(self, int rank):
        """World rank ``rank``'s call is over: rendezvous it did not join fail."""
        cdef WorldState* w = self.state
        if not 0 <= rank < w.count:
            return
        pthread_mutex_lock(&w.mutex)
        w.finished[rank] = 1
        pthread_cond_broadcast(&w.cond)
        pthread_mutex_unlock(&w.mutex)

    def abort(self):
        """Fail every waiting and later rendezvous until the next epoch."""
        _abort(self.state)


cdef void _abort(WorldState* w) noexcept nogil:
    pthread_mutex_lock(&w.mutex)
    w.failed = 1
    pthread_cond_broadcast(&w.cond)
    pthread_mutex_unlock(&w.mutex)


cdef void _reset(CommState* c) noexcept nogil:
    """Forget every rendezvous (the world's mutex is held)."""
    memset(c.next_seq, 0, c.count * sizeof(int64_t))
    c.entries[0].seq = c.entries[1].seq = -1


cdef int rendezvous_arrive(CommState* c, int rank, const Arrival* arrival,
                           int64_t* seq) noexcept nogil:
    cdef WorldState* w = c.world
    cdef Entry* e
    cdef int r, status
    cdef int64_t s
    pthread_mutex_lock(&w.mutex)
    if w.failed:
        pthread_mutex_unlock(&w.mutex)
        return RENDEZVOUS_ABORTED
    s = c.next_seq[rank]
    c.next_seq[rank] += 1
    seq[0] = s
    e = &c.entries[s & 1]
    if e.seq != s:
        e.seq, e.epoch, e.arrived, e.left = s, w.epoch, 0, c.count
        e.computing = e.done = e.status = e.mismatch = 0
        memset(e.present, 0, c.count)
        memset(e.gone, 0, c.count)
    e.arrivals[rank] = arrival[0]
    e.present[rank] = 1
    e.arrived += 1
    if e.arrived < c.count:
        pthread_mutex_unlock(&w.mutex)
        return RENDEZVOUS_OK
    # The last arrival: check, then compute with the mutex released (every rank is here and
    # waits for ``done``; nothing else touches this entry meanwhile).
    for r in range(1, c.count):
        if e.arrivals[r].op != e.arrivals[0].op or e.arrivals[r].count != e.arrivals[0].count:
            e.mismatch = r
            e.status, e.done = RENDEZVOUS_MISMATCH, 1
            pthread_cond_broadcast(&w.cond)
            pthread_mutex_unlock(&w.mutex)
            return RENDEZVOUS_OK
    e.computing = 1
    pthread_mutex_unlock(&w.mutex)
    status = RENDEZVOUS_OK
    if _compute(e.arrivals, c.count) != 0:
        status = _fallback(c, e)
    pthread_mutex_lock(&w.mutex)
    e.computing = 0
    if e.seq == s:
        e.status, e.done = status, 1
    pthread_cond_broadcast(&w.cond)
    pthread_mutex_unlock(&w.mutex)
    return RENDEZVOUS_OK


cdef int _fallback(CommState* c, Entry* e) noexcept nogil:
    """The reference computation, with the GIL; RENDEZVOUS_FAILED keeps its error."""
    cdef int r, slot = <int>(e.seq & 1)
    with gil:
        owner = <NativeCommunicator>c.owner
        owner.errors[slot] = None
        try:
            owner.fallback([
                (e.arrivals[r].op, e.arrivals[r].param,
                 _view(e.arrivals[r].send, e.arrivals[r].send_length),
                 _view(e.arrivals[r].recv, e.arrivals[r].recv_length),
                 e.arrivals[r].count) for r in range(c.count)])
        except BaseException as error:
            owner.errors[slot] = error
            return RENDEZVOUS_FAILED
    return RENDEZVOUS_OK


cdef void _poll(CommState* c, int64_t seq) noexcept nogil:
    """Poll collective ``seq`` for up to the world's ``spin_ns`` (until it is done, fails or
    is forgotten), reading without the mutex and yielding the core between polls. Why: a rank
    that sleeps on the condition variable wakes 25-40 µs after the last rank computed (2-vCPU
    development host), on the critical path of every collective inside a call: a 2-rank
    transformer layer's two 32 KiB all_reduces took 150 µs of its 360 µs call, against 23 µs
    beyond ``@nop`` for one such all_reduce alone. NCCL and MPI poll likewise. Polls yield
    (``sched_yield``) rather than pause: the caller's thread, which hands the call to the
    ranks, may share the poller's core, and busy polls on the 2-vCPU host slowed a 2-rank
    all_reduce call by 20 µs and the TP MLP's matmuls on the other core. Interleaved A/B there
    (2026-11-29), µs per call, sleeping at once -> polling: transformer layer 360-364 ->
    325-341, 32 KiB all_reduce 92-95 -> 77, TP MLP 427-431 -> 402-424. Only where every rank
    can have a core of its own (``NativeWorld``): a poller sharing a core with a rank still
    computing would delay it."""
    cdef WorldState* w = c.world
    cdef Entry* e = &c.entries[seq & 1]
    cdef int64_t deadline, spins = 0
    if w.spin_ns <= 0:
        return
    deadline = _monotonic_ns() + w.spin_ns
    while (not rt_rendezvous_load(&e.done) and not rt_rendezvous_load(&w.failed)
           and rt_rendezvous_load64(<long long*>&e.seq) == seq):
        sched_yield()
        spins += 1
        if spins & 15 == 0 and _monotonic_ns() >= deadline:
            return


cdef inline int64_t _monotonic_ns() noexcept nogil:
    cdef timespec now
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1000000000 + now.tv_nsec


cdef int rendezvous_wait(CommState* c, int64_t seq, int64_t timeout_ns,
                         Failure* failure) noexcept nogil:
    """Any outcome but RENDEZVOUS_PENDING leaves the rendezvous (after ``_poll``)."""
    cdef WorldState* w = c.world
    cdef Entry* e = &c.entries[seq & 1]
    cdef timespec deadline
    cdef int r, status, gone
    _poll(c, seq)
    if timeout_ns >= 0:
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += (deadline.tv_nsec + timeout_ns) // 1000000000
        deadline.tv_nsec = (deadline.tv_nsec + timeout_ns) % 1000000000
    pthread_mutex_lock(&w.mutex)
    while True:
        if e.seq != seq or e.epoch != w.epoch:
            status = RENDEZVOUS_ABORTED  # a new epoch forgot it
            break
        if e.done:
            status = e.status
            break
        if w.failed and not e.computing:
            status = RENDEZVOUS_ABORTED
            break
        gone = 0
        for r in range(c.count):
            if not e.present[r] and w.finished[c.members[r]]:
                e.gone[r] = 1
                gone = 1
        if gone:
            e.status, e.done = RENDEZVOUS_GONE, 1
            pthread_cond_broadcast(&w.cond)
            continue
        if timeout_ns < 0:
            pthread_cond_wait(&w.cond, &w.mutex)
        elif pthread_cond_timedwait(&w.cond, &w.mutex, &deadline) == ETIMEDOUT:
            pthread_mutex_unlock(&w.mutex)
            return RENDEZVOUS_PENDING
    if e.seq == seq:
        failure.rank = e.mismatch
        failure.op0, failure.count0 = e.arrivals[0].op, e.arrivals[0].count
        failure.op, failure.count = e.arrivals[e.mismatch].op, e.arrivals[e.mismatch].count
        failure.slot = <int>(seq & 1)
        if failure.gone != NULL:
            memcpy(failure.gone, e.gone, c.count)
        e.left -= 1
        if e.left == 0:
            e.seq = -1
    pthread_mutex_unlock(&w.mutex)
    return status


cdef void rendezvous_leave(CommState* c, int64_t seq) noexcept nogil:
    """Give up on collective ``seq`` (its waiter was interrupted and the world aborted):
    returns once no computation reads or writes the ranks' buffers."""
    cdef WorldState* w = c.world
    cdef Entry* e = &c.entries[seq & 1]
    pthread_mutex_lock(&w.mutex)
    while e.seq == seq and e.computing:
        pthread_cond_wait(&w.cond, &w.mutex)
    pthread_mutex_unlock(&w.mutex)


cdef int64_t wait_slice_ns() noexcept nogil:
    """How long a rendezvous wait may block before its thread checks for Ctrl-C: 50 ms on
    the main thread (the only one signals reach), without end on any other."""
    return _SLICE_NS if PyThread_get_thread_ident() == _MAIN_THREAD else -1


cdef int rendezvous_wait_interruptibly(CommState* c, int64_t seq, int status,
                                       Failure* failure) except -1:
    """Go on waiting for collective ``seq`` while ``status`` (the last wait's) is
    RENDEZVOUS_PENDING, in slices, checking for Ctrl-C between them; the outcome. On Ctrl-C
    the world is aborted (nobody computes this rendezvous any more) and the waiter leaves once
    no computation in progress still uses its buffers, then the KeyboardInterrupt goes on."""
    while status == RENDEZVOUS_PENDING:
        try:
            PyErr_CheckSignals()
        except BaseException:
            _abort(c.world)
            with nogil:
                rendezvous_leave(c, seq)
            raise
        with nogil:
            status = rendezvous_wait(c, seq, _SLICE_NS, failure)
    return status


cdef class NativeCommunicator:
    """``count`` ranks joining collectives in order. ``fallback(arrivals)`` runs with the GIL
    for what C does not compute: ``arrivals`` is a list of ``(op, param, send, recv, count)``
    per rank (op packed, send/recv writable memoryviews of the ranges); it writes every
    rank's result or raises, and every rank then raises that error."""

    def __cinit__(self, NativeWorld world, int count, members, fallback):
        cdef int r, slot
        cdef CommState* c
        self.world, self.fallback, self.errors = world, fallback, [None, None]
        c = self.c = <CommState*>calloc(1, sizeof(CommState))
        if c == NULL:
            raise MemoryError()
        c.world, c.count, c.owner = world.state, count, <void*>self
        c.members = <int*>malloc(count * sizeof(int))
        c.next_seq = <int64_t*>calloc(count, sizeof(int64_t))
        if c.members == NULL or c.next_seq == NULL:
            raise MemoryError()
        for r in range(count):
            c.members[r] = members[r]
        for slot in range(2):
            c.entries[slot].seq = -1
            c.entries[slot].present = <uint8_t*>calloc(count, 1)
            c.entries[slot].gone = <uint8_t*>calloc(count, 1)
            c.entries[slot].arrivals = <Arrival*>calloc(count, sizeof(Arrival))
            if (c.entries[slot].present == NULL or c.entries[slot].gone == NULL
                    or c.entries[slot].arrivals == NULL):
                raise MemoryError()

    def __dealloc__(self):
        cdef int slot
        if self.c == NULL:
            return
        free(self.c.members)
        free(self.c.next_seq)
        for slot in range(2):
            free(self.c.entries[slot].present)
            free(self.c.entries[slot].gone)
            free(self.c.entries[slot].arrivals)
        free(self.c)

    @property
    def count(self):
        return self.c.count

    def collective(self, int rank, uint32_t op, uint32_t param, send, recv, uint64_t count):
        """Run ``rank``'s part of the next collective: ``send`` / ``recv`` objects exposing
        contiguous buffers (recv writable). Returns None, or ``(status, details)`` when it
        failed: mismatch ``(rank, op0, count0, op, count)``, gone ``[ranks]``, failed the
        error kept, aborted None. On the main thread a Ctrl-C ends the wait
        (``rendezvous_wait_interruptibly``)."""
        cdef Py_buffer sb, rb
        cdef Arrival a
        cdef Failure f
        cdef int64_t seq = -1
        cdef int status
        if not 0 <= rank < self.c.count:
            raise ValueError(f"rank {rank} is not in [0, {self.c.count})")
        PyObject_GetBuffer(send, &sb, PyBUF_ANY_CONTIGUOUS)
        try:
            PyObject_GetBuffer(recv, &rb, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE)
        except BaseException:
            PyBuffer_Release(&sb)
            raise
        gone = bytearray(self.c.count)
        f.gone = <uint8_t*><char*>gone
        a.op, a.param, a.count = op, param, count
        a.send, a.send_length = <char*>sb.buf, <uint64_t>sb.len
        a.recv, a.recv_length = <char*>rb.buf, <uint64_t>rb.len
        try:
            with nogil:
                status = rendezvous_arrive(self.c, rank, &a, &seq)
                if status == RENDEZVOUS_OK:
                    status = rendezvous_wait(self.c, seq, wait_slice_ns(), &f)
            status = rendezvous_wait_interruptibly(self.c, seq, status, &f)
        finally:
            PyBuffer_Release(&sb)
            PyBuffer_Release(&rb)
        return self.outcome(status, &f)

    cdef object outcome(self, int status, Failure* f):
        """``collective``'s return value for ``status`` (``f`` filled by the wait)."""
        if status == RENDEZVOUS_OK:
            return None
        if status == RENDEZVOUS_MISMATCH:
            return status, (f.rank, f.op0, f.count0, f.op, f.count)
        if status == RENDEZVOUS_GONE:
            return status, [r for r in range(self.c.count) if f.gone[r]]
        if status == RENDEZVOUS_FAILED:
            return status, self.errors[f.slot]
        return status, None


cdef object _view(char* address, uint64_t length):
    if length == 0:
        return memoryview(bytearray())
    return memoryview(<unsigned char[:length]><unsigned char*>address)
