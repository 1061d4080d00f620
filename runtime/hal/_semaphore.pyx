# cython: language_level=3
"""Timeline semaphores: a monotonically increasing uint64 payload, or a sticky failure.

Follows ``iree_hal_semaphore_t`` (runtime/src/iree/hal/semaphore.h) and the host semaphore of
IREE's local drivers (runtime/src/iree/hal/drivers/local_sync/sync_semaphore.c):
``signal(value)`` raises the payload (a value not above the current one is ignored),
``fail(cause)`` records a failure that every current and future waiter sees,
``wait(value, timeout)`` blocks until the payload reaches ``value``, the semaphore fails, or the
timeout passes. ``acquire_timepoint`` registers a callback for when a value is reached (or the
semaphore fails): it is how queues learn that a wait fence is satisfied without a thread per
wait.

Threading: the payload, the failure and the timepoint list change only with the GIL held,
which is the lock that orders them (no Python code runs between reading and updating them;
callbacks run after the update). A blocked waiter holds a POSIX semaphore of its own and
sleeps on it with the GIL released, in slices of ``WAIT_SLICE_S``: between slices it takes the
GIL to run pending signal handlers, so Ctrl-C interrupts a wait (``KeyboardInterrupt``) instead
of hanging it. A wait never outlasts the call that waits: it is bounded by the calling
thread's deadline (``f(..., timeout=)``, ``rt.runtime.vm.set_thread_deadline``), so a fence
nobody signals cannot hang a call. A failure keeps its original exception (its type and
message) as the cause of what waiters raise; out-of-memory and out-of-time failures keep their
class too (``ResourceExhaustedError``, ``DeadlineExceededError``), wherever in the chain of
propagated failures they arose.
"""
from cpython.exc cimport PyErr_CheckSignals
from libc.errno cimport EINTR, errno
from libc.stdint cimport uint64_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

import threading
import time

import numpy as np

from rt.runtime.errors import (DeadlineExceededError, DeviceError, InvalidArgumentError,
                               ResourceExhaustedError)
from rt.runtime.vm._interp import release_held_wakes, thread_deadline

cdef extern from "<semaphore.h>" nogil:
    int sem_init(sem_t* sem, int pshared, unsigned int value)
    int sem_destroy(sem_t* sem)
    int sem_post(sem_t* sem)
    int sem_clockwait(sem_t* sem, int clock, const timespec* abstime)

#: The largest payload a timeline semaphore can hold.
MAX_PAYLOAD = (1 << 64) - 1
#: Seconds a blocked wait sleeps before it looks for pending signals (Ctrl-C) again.
WAIT_SLICE_S = 0.1
cdef double _TIMEOUT_MAX = threading.TIMEOUT_MAX


cdef uint64_t payload_arg(object value, str where) except? 0xFFFFFFFFFFFFFFFF:
    """``value`` as a uint64 payload; InvalidArgumentError otherwise."""
    if type(value) is not int:
        if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
            raise InvalidArgumentError(f"{where}: payload must be an integer, got {value!r}")
        value = int(value)
    if not 0 <= value <= MAX_PAYLOAD:
        raise InvalidArgumentError(f"{where}: payload {value} is outside [0, 2**64)")
    return <uint64_t>value


def check_payload(value, where):
    """Return ``value`` as int if it is a uint64 payload; else raise InvalidArgumentError."""
    return payload_arg(value, where)


cdef double timeout_arg(object timeout) except? -2.0:
    """Seconds to wait (``None``: forever, as -1)."""
    if timeout is None:
        return -1.0
    return min(max(0.0, float(timeout)), _TIMEOUT_MAX)


cdef double wait_limit(object timeout, bint* by_deadline) except? -2.0:
    """Seconds a wait may block (-1: forever): ``timeout`` (seconds, None = forever) bounded by
    the calling thread's deadline; ``by_deadline[0]`` says whether the deadline set the bound."""
    cdef double limit = timeout_arg(timeout), remaining
    by_deadline[0] = False
    deadline = thread_deadline()
    if deadline is not None:
        remaining = max(0.0, deadline - time.monotonic())
        if limit < 0 or remaining < limit:
            by_deadline[0] = True
            return remaining
    return limit


def _without_tracebacks(error):
    """Drop the tracebacks along ``error``'s cause/context chain and return it.

    A failure lives as long as its semaphore; a traceback would pin every frame of the
    failing call stack (and what they reference, e.g. a whole VM context) with it. The
    messages keep the chain.
    """
    seen, pending = set(), [error]
    while pending:
        item = pending.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        item.__traceback__ = None
        pending += (item.__cause__, item.__context__)
    return error


#: Failure classes a waiter raises as themselves, not as DeviceError: what they mean (out of
#: memory, out of time) is what the caller acts on (``except ResourceExhaustedError``).
cdef tuple _PRESERVED = (ResourceExhaustedError, DeadlineExceededError)


cdef object failure_error(str label, object cause):
    """The error a waiter on a failed semaphore raises: of the root cause's class if that is
    ResourceExhaustedError or DeadlineExceededError, else ``DeviceError``; its __cause__ is
    ``cause``."""
    cdef int depth = 0
    root = cause
    while root.__cause__ is not None and depth < 64:
        root, depth = root.__cause__, depth + 1
    error = (type(root) if type(root) in _PRESERVED else DeviceError)(f"{label} failed: {cause}")
    error.__cause__ = cause
    return error


def semaphore_failure_error(label, cause):
    """Python form of the error a waiter on a failed semaphore raises."""
    return failure_error(label, cause)


cdef class Notify:
    """Base of what timepoints wake (waiters, fence settlements, Python callbacks)."""

    cdef int notify(self, bint failed) except -1:
        return 0


cdef class _Callback(Notify):
    cdef object callback

    cdef int notify(self, bint failed) except -1:
        self.callback()
        return 0


cdef class Waiter(Notify):
    """One blocked thread: released when ``left`` timepoints fired, or at the first failure."""

    def __cinit__(self):
        sem_init(&self.sem, 0, 0)

    def __dealloc__(self):
        sem_destroy(&self.sem)

    cdef int notify(self, bint failed) except -1:
        if self.woken:
            return 0
        self.left -= 1
        if self.left <= 0 or failed:
            self.woken = True
            sem_post(&self.sem)
        return 0

    cdef int block(self, double timeout_s) except -1:
        """Sleep (GIL released) until woken or ``timeout_s`` passed (< 0: forever), checking
        for signals every slice; returns 1 if woken, 0 on timeout. A signal handler's
        exception (KeyboardInterrupt) propagates."""
        cdef timespec now, until
        cdef double deadline = -1.0, t, step
        cdef int rc
        release_held_wakes()  # what this thread waits for may be work it held back (_interp)
        clock_gettime(CLOCK_MONOTONIC, &now)
        t = now.tv_sec + now.tv_nsec * 1e-9
        if timeout_s >= 0:
            deadline = t + timeout_s
        while True:
            step = WAIT_SLICE_S if deadline < 0 or deadline - t > WAIT_SLICE_S else deadline - t
            if step < 0:
                step = 0
            t += step
            until.tv_sec = <long>t
            until.tv_nsec = <long>((t - <long>t) * 1e9)
            with nogil:
                rc = sem_clockwait(&self.sem, CLOCK_MONOTONIC, &until)
                if rc != 0:
                    rc = errno
            if rc == 0:
                # Woken by a failure that Ctrl-C caused (a stopped dispatch): the interrupt
                # is what the caller sees, not the failed fence.
                PyErr_CheckSignals()
                return 1
            PyErr_CheckSignals()
            clock_gettime(CLOCK_MONOTONIC, &now)
            t = now.tv_sec + now.tv_nsec * 1e-9
            if rc != EINTR and deadline >= 0 and t >= deadline:
                return 0


cdef class Timepoint:
    """A registered wait for a payload value (the handle ``acquire_timepoint`` returns)."""

    @property
    def value(self):
        return self.value


cdef Semaphore device_semaphore(uint64_t value, object device, long long ordinal):
    """Semaphore number ``ordinal`` of ``device`` at payload ``value`` (its label is made
    when first needed)."""
    cdef Semaphore s = Semaphore.__new__(Semaphore)
    s.value, s._device, s._ordinal = value, device, ordinal
    s._timepoints = []
    return s


cdef class Semaphore:
    """Timeline semaphore with payload ``initial_value``; ``label`` names it in errors.

    producer: the device queue that last accepted work signalling this semaphore (set by
    the queue), or None; a waiter may ``producer.donate(done)`` its thread to that queue
    before blocking (see rt.runtime.hal.drivers.local_queue).
    """

    def __init__(self, initial_value=0, label="semaphore"):
        self._label = label
        self.value = payload_arg(initial_value, f"{label}: create")
        self._timepoints = []

    @property
    def label(self):
        """Names the semaphore in errors (``semaphore 3 of local-task://vmvx#0``)."""
        if self._label is None:
            self._label = f"semaphore {self._ordinal} of {self._device.label}"
        return self._label

    @label.setter
    def label(self, value):
        self._label = value

    @property
    def failure(self):
        """The exception the semaphore failed with, or None."""
        return self._failure

    def query(self):
        """Return the current payload (int). Raises ``DeviceError`` (with the cause) if failed."""
        if self._failure is not None:
            raise failure_error(self.label, self._failure)
        return self.value

    def is_reached(self, value):
        """True if the payload is >= ``value`` (False if failed)."""
        return self.reached(payload_arg(value, f"{self.label}: is_reached"))

    cdef int signal_c(self, uint64_t value) except -1:
        cdef list fired = None
        cdef Timepoint tp
        if self._failure is not None:
            raise failure_error(self.label, self._failure)
        if value <= self.value:
            return 0
        self.value = value
        if self._timepoints:
            fired = [tp for tp in self._timepoints if tp.value <= value]
            if fired:
                self._timepoints = [tp for tp in self._timepoints if tp.value > value]
                for tp in fired:
                    tp.target.notify(False)
        return 0

    def signal(self, value):
        """Raise the payload to ``value`` in [0, 2**64) and wake waiters that it satisfies.

        Raises ``InvalidArgumentError`` for a value outside the uint64 range and
        ``DeviceError`` if the semaphore has failed.
        """
        self.signal_c(payload_arg(value, f"{self.label}: signal"))

    cdef int fail_c(self, object cause) except -1:
        cdef list fired
        cdef Timepoint tp
        if not isinstance(cause, BaseException):
            cause = DeviceError(str(cause))
        _without_tracebacks(cause)
        if self._failure is not None:
            return 0
        self._failure = cause
        fired, self._timepoints = self._timepoints, []
        for tp in fired:
            tp.target.notify(True)
        return 0

    def fail(self, cause):
        """Fail the semaphore with ``cause`` (exception or message); wakes every waiter.

        A second failure keeps the first cause. The cause's traceback chain is dropped (its
        messages and types are kept).
        """
        self.fail_c(cause)

    cdef Timepoint acquire(self, uint64_t value, Notify target):
        """Register ``target`` for ``value``; notifies it now if already reached or failed."""
        cdef Timepoint tp = Timepoint.__new__(Timepoint)
        tp.value, tp.target = value, target
        if self._failure is None and self.value < value:
            self._timepoints.append(tp)
        else:
            target.notify(self._failure is not None)
        return tp

    cdef int cancel(self, Timepoint timepoint) except -1:
        cdef Py_ssize_t i
        for i in range(len(self._timepoints)):
            if self._timepoints[i] is timepoint:
                del self._timepoints[i]
                break
        return 0

    def acquire_timepoint(self, value, callback):
        """Call ``callback()`` once the payload is >= ``value`` or the semaphore fails.

        Calls it immediately (on this thread) if that is already true; otherwise later, on
        the signalling thread. Returns a handle for ``cancel_timepoint``.
        """
        cdef _Callback target = _Callback.__new__(_Callback)
        target.callback = callback
        return self.acquire(payload_arg(value, f"{self.label}: acquire_timepoint"), target)

    def cancel_timepoint(self, Timepoint handle):
        """Forget a pending timepoint (no effect if it already fired)."""
        self.cancel(handle)

    def wait(self, value, timeout=None):
        """Block until the payload is >= ``value``; ``timeout`` in seconds (None = forever).

        Raises ``DeadlineExceededError`` on timeout or when the calling thread's deadline
        passes, and ``DeviceError`` (whose ``__cause__`` is the failure; see
        ``failure_error`` for the classes kept) if the semaphore failed; a Ctrl-C while blocked raises
        ``KeyboardInterrupt``.
        """
        cdef uint64_t v = payload_arg(value, f"{self.label}: wait")
        cdef bint by_deadline
        cdef double limit = wait_limit(timeout, &by_deadline)
        cdef Waiter waiter
        cdef Timepoint tp
        if self._failure is None and self.value < v and self.producer is not None:
            self.producer.donate(lambda: self._failure is not None or self.value >= v)
        if self._failure is None and self.value < v:
            waiter = Waiter.__new__(Waiter)
            waiter.left = 1
            tp = self.acquire(v, waiter)
            try:
                waiter.block(limit)
            finally:
                self.cancel(tp)
            if self._failure is None and self.value < v:
                what = "passed the call's deadline" if by_deadline else f"timed out after {timeout} s"
                raise DeadlineExceededError(
                    f"{self.label}: wait for payload {v} {what} (payload is {self.value}); "
                    f"signal it or wait longer")
        if self._failure is not None:
            raise failure_error(self.label, self._failure)

    def __repr__(self):
        state = f"failed: {self._failure}" if self._failure is not None else f"payload {self.value}"
        return f"<Semaphore {self.label} {state}>"
