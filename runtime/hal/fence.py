"""Fences: a set of timepoints ``(semaphore, value)`` treated as one point in time.

Follows ``iree_hal_fence_t`` (runtime/src/iree/hal/fence.h): inserting a semaphore twice
keeps the larger value; ``join`` unions fences; a fence is *reached* when every semaphore has
reached its value and *failed* as soon as any of its semaphores failed. ``wait`` (IREE's
``await``) wakes on the first failure instead of waiting out the other timepoints; before
blocking it donates the calling thread to the queue that will signal the pending semaphores
(``Semaphore.producer``, if they share one), so work whose queue thread is not running yet
runs here.
"""
import threading

from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError
from rt.runtime.hal.semaphore import Semaphore
from rt.runtime.hal.status import StatusCode, status_code_of


class Fence:
    """Timepoints ``[(semaphore, value), ...]``; payload values are uint64."""

    __slots__ = ("_timepoints",)

    def __init__(self, timepoints=()):
        self._timepoints = {}
        for semaphore, value in timepoints:
            self.insert(semaphore, value)

    @classmethod
    def join(cls, fences):
        """A fence reached when all of ``fences`` are (None entries are skipped)."""
        joined = cls()
        for fence in fences:
            if fence is None:
                continue
            if not isinstance(fence, Fence):
                raise InvalidArgumentError(f"fence.join: expected Fence objects, got {fence!r}")
            for semaphore, value in fence._timepoints.items():
                joined.insert(semaphore, value)
        return joined

    def insert(self, semaphore, value):
        """Add timepoint ``(semaphore, value)``; an existing semaphore keeps the max value."""
        if not isinstance(semaphore, Semaphore):
            raise InvalidArgumentError(f"fence: expected a Semaphore, got {semaphore!r}")
        value = int(value)
        if value > self._timepoints.get(semaphore, -1):
            self._timepoints[semaphore] = value

    @property
    def timepoints(self):
        """Tuple of ``(semaphore, value)``."""
        return tuple(self._timepoints.items())

    @property
    def failure(self):
        """The first failed semaphore's cause, or None."""
        for semaphore in self._timepoints:
            failure = semaphore.failure
            if failure is not None:
                return failure
        return None

    def _failed_semaphore(self):
        for semaphore in self._timepoints:
            if semaphore.failure is not None:
                return semaphore
        return None

    @property
    def is_reached(self):
        """True when every timepoint is reached (False if any semaphore failed)."""
        for semaphore, value in self._timepoints.items():
            if not semaphore.is_reached(value):
                return False
        return True

    @property
    def is_settled(self):
        """True when the fence is reached or failed: nothing more will change its outcome."""
        return self.failure is not None or self.is_reached

    def query(self):
        """``StatusCode.OK`` if reached, ``DEFERRED`` if pending, else the failure's code."""
        failure = self.failure
        if failure is not None:
            return status_code_of(failure)
        return StatusCode.OK if self.is_reached else StatusCode.DEFERRED

    def signal(self):
        """Signal every semaphore to its timepoint value."""
        for semaphore, value in self._timepoints.items():
            semaphore.signal(value)

    def fail(self, cause):
        """Fail every semaphore of the fence with ``cause`` (exception or message)."""
        for semaphore in self._timepoints:
            semaphore.fail(cause)

    def _raise_failure(self):
        semaphore = self._failed_semaphore()
        raise DeviceError(
            f"fence wait failed: {semaphore.label} failed: {semaphore.failure}"
        ) from semaphore.failure

    def wait(self, timeout=None):
        """Block until reached; ``timeout`` in seconds (None = forever). IREE's fence await.

        Raises ``DeadlineExceededError`` naming the pending timepoints on timeout and
        ``DeviceError`` whose message and ``__cause__`` carry the failure.
        """
        if self.failure is not None:
            self._raise_failure()
        pending = [(s, v) for s, v in self._timepoints.items() if not s.is_reached(v)]
        if not pending:
            return
        if self._donate(pending):
            if self.failure is not None:
                self._raise_failure()
            pending = [(s, v) for s, v in pending if not s.is_reached(v)]
            if not pending:
                return
        woken = threading.Lock()
        woken.acquire()
        waiter = _Waiter(self, len(pending), woken)
        handles = [(s, s.acquire_timepoint(v, waiter.fired)) for s, v in pending]
        limit = -1 if timeout is None else min(max(0.0, float(timeout)), threading.TIMEOUT_MAX)
        woken.acquire(timeout=limit)
        for semaphore, handle in handles:
            semaphore.cancel_timepoint(handle)
        if self.failure is not None:
            self._raise_failure()
        if not self.is_reached:
            waiting = ", ".join(
                f"{s.label} at {s.query()} < {v}" for s, v in pending if not s.is_reached(v)
            )
            raise DeadlineExceededError(
                f"fence wait timed out after {timeout} s; still waiting on: {waiting}"
            )

    def _donate(self, pending):
        """Run ready work of the queue producing ``pending`` here; True if any ran.

        Only when a single queue produces every pending timepoint: a waiter on several
        queues blocks instead, so that their queue threads run the work side by side rather
        than this thread running it one queue after the other.
        """
        producers = {semaphore.producer for semaphore, _ in pending}
        if len(producers) != 1 or None in producers:
            return False
        (queue,) = producers
        return queue.donate(lambda: self.is_settled)

    def on_settled(self, callback):
        """Call ``callback()`` once, when the fence is reached or any semaphore fails.

        Runs immediately if already settled, else on the thread that settles it.
        """
        pending = [(s, v) for s, v in self._timepoints.items() if not s.is_reached(v)]
        if not pending or self.failure is not None:
            callback()
            return
        _Settlement(self, pending, callback)

    def __repr__(self):
        points = ", ".join(f"{s.label}>={v}" for s, v in self._timepoints.items())
        return f"<Fence [{points}]>"


class _Waiter:
    """Releases ``woken`` once every pending timepoint fired or the fence failed."""

    __slots__ = ("fence", "left", "woken", "lock")

    def __init__(self, fence, left, woken):
        self.fence, self.left, self.woken = fence, left, woken
        self.lock = threading.Lock()

    def fired(self):
        with self.lock:
            if self.left <= 0:
                return
            self.left -= 1
            if self.left > 0 and self.fence.failure is None:
                return
            self.left = 0
        self.woken.release()


class _Settlement:
    """Counts a fence's pending timepoints down and fires its callback once."""

    __slots__ = ("fence", "left", "callback", "lock", "handles")

    def __init__(self, fence, pending, callback):
        self.fence, self.callback = fence, callback
        self.left = len(pending)
        self.lock = threading.Lock()
        self.handles = []
        for semaphore, value in pending:
            handle = semaphore.acquire_timepoint(value, self._fired)
            if self.callback is None:
                break
            self.handles.append((semaphore, handle))

    def _fired(self):
        with self.lock:
            self.left -= 1
            callback = self.callback
            if callback is None or (self.left > 0 and self.fence.failure is None):
                return
            self.callback = None
            handles, self.handles = self.handles, []
        for semaphore, handle in handles:
            semaphore.cancel_timepoint(handle)
        callback()
