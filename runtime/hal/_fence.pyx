# cython: language_level=3
"""Fences: a set of timepoints ``(semaphore, value)`` treated as one point in time.

Follows ``iree_hal_fence_t`` (runtime/src/iree/hal/fence.h): inserting a semaphore twice
keeps the larger value; ``join`` unions fences; a fence is *reached* when every semaphore has
reached its value and *failed* as soon as any of its semaphores failed. ``wait`` (IREE's
``await``) wakes on the first failure instead of waiting out the other timepoints; before
blocking it donates the calling thread to the queue that will signal the pending semaphores
(``Semaphore.producer``, if they share one), so work whose queue thread is not running yet
runs here. Waits release the GIL and can be interrupted by Ctrl-C (see _semaphore.pyx).
"""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint64_t

from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError
from rt.runtime.hal._semaphore cimport (Notify, Semaphore, Timepoint, Waiter, failure_error,
                                        payload_arg, wait_limit)
from rt.runtime.hal.status import StatusCode, status_code_of


cdef Fence new_fence():
    cdef Fence f = Fence.__new__(Fence)
    f._semaphores = []
    f._values = f._inline
    f._capacity = 2
    return f


cdef Fence single_fence(Semaphore semaphore, uint64_t value):
    cdef Fence f = new_fence()
    f._semaphores.append(semaphore)
    f._values[0] = value
    return f


cdef class _Settlement(Notify):
    """Counts a fence's pending timepoints down and calls ``callback`` once."""
    cdef Py_ssize_t left
    cdef object callback
    cdef list handles

    cdef int notify(self, bint failed) except -1:
        cdef Semaphore semaphore
        cdef Timepoint tp
        self.left -= 1
        callback = self.callback
        if callback is None or (self.left > 0 and not failed):
            return 0
        self.callback = None
        handles, self.handles = self.handles, []
        for semaphore, tp in handles:
            semaphore.cancel(tp)
        callback()
        return 0


cdef class Fence:
    """Timepoints ``[(semaphore, value), ...]``; payload values are uint64."""

    def __cinit__(self):
        self._semaphores = []
        self._values = self._inline
        self._capacity = 2

    def __init__(self, timepoints=()):
        for semaphore, value in timepoints:
            self.insert(semaphore, value)

    def __dealloc__(self):
        if self._values != self._inline:
            PyMem_Free(self._values)

    cdef int insert_c(self, Semaphore semaphore, uint64_t value) except -1:
        cdef Py_ssize_t i, n = len(self._semaphores)
        cdef uint64_t* grown
        for i in range(n):
            if self._semaphores[i] is semaphore:
                if value > self._values[i]:
                    self._values[i] = value
                return 0
        if n == self._capacity:
            grown = <uint64_t*>PyMem_Malloc(2 * n * sizeof(uint64_t))
            if grown == NULL:
                raise MemoryError()
            for i in range(n):
                grown[i] = self._values[i]
            if self._values != self._inline:
                PyMem_Free(self._values)
            self._values, self._capacity = grown, 2 * n
        self._semaphores.append(semaphore)
        self._values[n] = value
        return 0

    cdef int join_c(self, Fence other) except -1:
        cdef Py_ssize_t i
        for i in range(len(other._semaphores)):
            self.insert_c(<Semaphore>other._semaphores[i], other._values[i])
        return 0

    @classmethod
    def join(cls, fences):
        """A fence reached when all of ``fences`` are (None entries are skipped)."""
        cdef Fence joined = new_fence()
        for fence in fences:
            if fence is None:
                continue
            if not isinstance(fence, Fence):
                raise InvalidArgumentError(f"fence.join: expected Fence objects, got {fence!r}")
            joined.join_c(fence)
        return joined

    def insert(self, semaphore, value):
        """Add timepoint ``(semaphore, value)``; an existing semaphore keeps the max value."""
        if not isinstance(semaphore, Semaphore):
            raise InvalidArgumentError(f"fence: expected a Semaphore, got {semaphore!r}")
        self.insert_c(semaphore, payload_arg(value, "fence"))

    @property
    def timepoints(self):
        """Tuple of ``(semaphore, value)``."""
        return tuple((self._semaphores[i], self._values[i]) for i in range(len(self._semaphores)))

    cdef object failure_c(self):
        for semaphore in self._semaphores:
            failure = (<Semaphore>semaphore)._failure
            if failure is not None:
                return failure
        return None

    cdef bint reached_c(self):
        cdef Py_ssize_t i
        for i in range(len(self._semaphores)):
            if not (<Semaphore>self._semaphores[i]).reached(self._values[i]):
                return False
        return True

    cdef bint settled_c(self):
        return self.failure_c() is not None or self.reached_c()

    @property
    def failure(self):
        """The first failed semaphore's cause, or None."""
        return self.failure_c()

    @property
    def is_reached(self):
        """True when every timepoint is reached (False if any semaphore failed)."""
        return self.reached_c()

    @property
    def is_settled(self):
        """True when the fence is reached or failed: nothing more will change its outcome."""
        return self.settled_c()

    def query(self):
        """``StatusCode.OK`` if reached, ``DEFERRED`` if pending, else the failure's code."""
        failure = self.failure_c()
        if failure is not None:
            return status_code_of(failure)
        return StatusCode.OK if self.reached_c() else StatusCode.DEFERRED

    cdef int signal_c(self) except -1:
        cdef Py_ssize_t i
        for i in range(len(self._semaphores)):
            (<Semaphore>self._semaphores[i]).signal_c(self._values[i])
        return 0

    def signal(self):
        """Signal every semaphore to its timepoint value."""
        self.signal_c()

    cdef int fail_c(self, object cause) except -1:
        for semaphore in self._semaphores:
            (<Semaphore>semaphore).fail_c(cause)
        return 0

    def fail(self, cause):
        """Fail every semaphore of the fence with ``cause`` (exception or message)."""
        self.fail_c(cause)

    cdef int _raise_failure(self) except -1:
        for semaphore in self._semaphores:
            failure = (<Semaphore>semaphore)._failure
            if failure is not None:
                raise failure_error(f"fence wait failed: {(<Semaphore>semaphore).label}", failure)
        return 0

    cdef int wait_c(self, object timeout, bint timeout_status=False) except -1:
        """0 once reached; when ``timeout`` passes first, 1 if ``timeout_status`` else
        DeadlineExceededError. The calling thread's deadline passing always raises."""
        cdef Py_ssize_t i, n = len(self._semaphores)
        cdef bint by_deadline = False
        cdef list pending = []
        cdef list handles
        cdef Waiter waiter
        cdef Semaphore semaphore
        if self.failure_c() is not None:
            return self._raise_failure()
        for i in range(n):
            if not (<Semaphore>self._semaphores[i]).reached(self._values[i]):
                pending.append(i)
        if not pending:
            return 0
        if self._donate(pending):
            if self.failure_c() is not None:
                return self._raise_failure()
            pending = [i for i in pending if not (<Semaphore>self._semaphores[i]).reached(self._values[i])]
            if not pending:
                return 0
        waiter = Waiter.__new__(Waiter)
        waiter.left = len(pending)
        handles = []
        try:
            for i in pending:
                semaphore = self._semaphores[i]
                handles.append((semaphore, semaphore.acquire(self._values[i], waiter)))
            waiter.block(wait_limit(timeout, &by_deadline))
        finally:
            for semaphore, tp in handles:
                semaphore.cancel(tp)
        if self.failure_c() is not None:
            return self._raise_failure()
        if not self.reached_c():
            if timeout_status and not by_deadline:
                return 1
            waiting = ", ".join(f"{self._semaphores[i].label} at {self._semaphores[i].query()} < "
                                f"{self._values[i]}" for i in pending
                                if not (<Semaphore>self._semaphores[i]).reached(self._values[i]))
            what = ("the call's deadline passed during a fence wait" if by_deadline
                    else f"fence wait timed out after {timeout} s")
            raise DeadlineExceededError(f"{what}; still waiting on: {waiting}")
        return 0

    def wait(self, timeout=None):
        """Block until reached; ``timeout`` in seconds (None = forever). IREE's fence await.

        Raises ``DeadlineExceededError`` naming the pending timepoints on timeout or when the
        calling thread's deadline (``f(..., timeout=)``) passes, ``DeviceError`` whose message
        and ``__cause__`` carry the failure (ResourceExhaustedError / DeadlineExceededError
        if that was the failure's root cause), and ``KeyboardInterrupt`` if Ctrl-C interrupts
        the wait.
        """
        self.wait_c(timeout)

    def try_wait(self, timeout=None):
        """Like ``wait``, but False instead of DeadlineExceededError when ``timeout`` passes
        first (True once reached): the status of the hal module's ``fence.await``. The calling
        thread's deadline passing still raises."""
        return self.wait_c(timeout, True) == 0

    cdef bint _donate(self, list pending) except -1:
        """Run ready work of the queue producing ``pending`` here; True if any ran.

        Only when a single queue produces every pending timepoint: a waiter on several
        queues blocks instead, so that their queue threads run the work side by side rather
        than this thread running it one queue after the other.
        """
        producer = (<Semaphore>self._semaphores[pending[0]]).producer
        if producer is None:
            return False
        for i in pending:
            if (<Semaphore>self._semaphores[i]).producer is not producer:
                return False
        return producer.donate(lambda: self.settled_c())

    def on_settled(self, callback):
        """Call ``callback()`` once, when the fence is reached or any semaphore fails.

        Runs immediately if already settled, else on the thread that settles it.
        """
        cdef Py_ssize_t i
        cdef list pending = [i for i in range(len(self._semaphores))
                             if not (<Semaphore>self._semaphores[i]).reached(self._values[i])]
        cdef _Settlement settlement
        cdef Semaphore semaphore
        if not pending or self.failure_c() is not None:
            callback()
            return
        settlement = _Settlement.__new__(_Settlement)
        settlement.left, settlement.callback, settlement.handles = len(pending), callback, []
        for i in pending:
            semaphore = self._semaphores[i]
            tp = semaphore.acquire(self._values[i], settlement)
            if settlement.callback is None:
                break
            settlement.handles.append((semaphore, tp))

    def __repr__(self):
        points = ", ".join(f"{self._semaphores[i].label}>={self._values[i]}"
                           for i in range(len(self._semaphores)))
        return f"<Fence [{points}]>"
