"""A timeline semaphore in host memory, shared by the local drivers.

Modelled on IREE's runtime/src/iree/hal/drivers/local_sync/sync_semaphore.c: a mutex-guarded
payload plus a list of timepoints. A blocking wait is one more timepoint whose callback
releases a lock the waiter blocks on (the acquire releases the GIL), so a Python thread
waiting never stalls the queue threads, and signalling a semaphore nobody waits on costs no
wake-up. Before blocking, a waiter donates its thread to the semaphore's producer queue.
"""
import threading

import numpy as np

from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError
from rt.runtime.hal.semaphore import MAX_PAYLOAD, Semaphore


def check_payload(value, where):
    """Return ``value`` as int if it is a uint64 payload; else raise InvalidArgumentError."""
    if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentError(f"{where}: payload must be an integer, got {value!r}")
    value = int(value)
    if not 0 <= value <= MAX_PAYLOAD:
        raise InvalidArgumentError(f"{where}: payload {value} is outside [0, 2**64)")
    return value


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


def failure_error(label, cause):
    """The ``DeviceError`` a waiter on a failed semaphore raises; its __cause__ is ``cause``."""
    error = DeviceError(f"{label} failed: {cause}")
    error.__cause__ = cause
    return error


class HostSemaphore(Semaphore):
    """Timeline semaphore with payload ``initial_value``; ``label`` names it in errors."""

    __slots__ = ("_value", "label", "producer", "_lock", "_failure", "_timepoints")

    def __init__(self, initial_value=0, label="semaphore"):
        self._value = check_payload(initial_value, f"{label}: create")
        self.label = label
        self.producer = None
        self._lock = threading.Lock()
        self._failure = None
        self._timepoints = []

    @property
    def failure(self):
        return self._failure

    def query(self):
        failure = self._failure
        if failure is not None:
            raise failure_error(self.label, failure)
        return self._value

    def is_reached(self, value):
        return self._failure is None and self._value >= value

    def signal(self, value):
        if value.__class__ is not int or not 0 <= value <= MAX_PAYLOAD:
            value = check_payload(value, f"{self.label}: signal")
        with self._lock:
            if self._failure is not None:
                raise failure_error(self.label, self._failure)
            if value <= self._value:
                return
            self._value = value
            timepoints = self._timepoints
            if not timepoints:
                return
            fired = [tp for tp in timepoints if tp[0] <= value]
            if fired:
                self._timepoints = [tp for tp in timepoints if tp[0] > value]
        for tp in fired:
            tp[1]()

    def fail(self, cause):
        """Fail with ``cause``; its traceback chain is dropped (the messages are kept)."""
        if not isinstance(cause, BaseException):
            cause = DeviceError(str(cause))
        _without_tracebacks(cause)
        with self._lock:
            if self._failure is not None:
                return
            self._failure = cause
            fired, self._timepoints = self._timepoints, []
        for tp in fired:
            tp[1]()

    def wait(self, value, timeout=None):
        value = check_payload(value, f"{self.label}: wait")
        if self._failure is None and self._value >= value:
            return
        producer = self.producer
        if producer is not None:
            producer.donate(lambda: self._failure is not None or self._value >= value)
        if self._failure is None and self._value < value:
            woken = threading.Lock()
            woken.acquire()
            handle = self.acquire_timepoint(value, woken.release)
            limit = -1 if timeout is None else min(max(0.0, float(timeout)), threading.TIMEOUT_MAX)
            woken.acquire(timeout=limit)
            self.cancel_timepoint(handle)
            if self._failure is None and self._value < value:
                raise DeadlineExceededError(
                    f"{self.label}: wait for payload {value} timed out after {timeout} s "
                    f"(payload is {self._value}); signal it or wait longer"
                )
        if self._failure is not None:
            raise failure_error(self.label, self._failure)

    def acquire_timepoint(self, value, callback):
        value = check_payload(value, f"{self.label}: acquire_timepoint")
        handle = [value, callback]
        with self._lock:
            if self._failure is None and self._value < value:
                self._timepoints.append(handle)
                return handle
        callback()
        return handle

    def cancel_timepoint(self, handle):
        with self._lock:
            self._timepoints = [tp for tp in self._timepoints if tp is not handle]

    def __repr__(self):
        state = f"failed: {self._failure}" if self._failure is not None else f"payload {self._value}"
        return f"<HostSemaphore {self.label} {state}>"
