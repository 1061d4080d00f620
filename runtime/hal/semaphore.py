"""Timeline semaphores: a monotonically increasing uint64 payload, or a sticky failure.

Follows ``iree_hal_semaphore_t`` (runtime/src/iree/hal/semaphore.h): ``signal(value)`` raises
the payload (a value not above the current one is ignored), ``fail(cause)`` records a failure
that every current and future waiter sees, ``wait(value, timeout)`` blocks (releasing the GIL)
until the payload reaches ``value``, the semaphore fails, or the timeout passes.
``acquire_timepoint`` registers a callback for when a value is reached (or the semaphore
fails): it is how queues learn that a wait fence is satisfied without a thread per wait.
"""
import abc

# The largest payload a timeline semaphore can hold.
MAX_PAYLOAD = (1 << 64) - 1


class Semaphore(abc.ABC):
    """A timeline semaphore. ``label`` names it in errors (device and ordinal).

    producer: the device queue that last accepted work signalling this semaphore (set by
    the queue), or None; a waiter may ``producer.donate(done)`` its thread to that queue
    before blocking (see rt.runtime.hal.drivers.local_queue).
    """

    label = "semaphore"
    producer = None

    @property
    @abc.abstractmethod
    def failure(self):
        """The exception the semaphore failed with, or None."""

    @abc.abstractmethod
    def query(self):
        """Return the current payload (int). Raises ``DeviceError`` (with the cause) if failed."""

    @abc.abstractmethod
    def signal(self, value):
        """Raise the payload to ``value`` in [0, 2**64) and wake waiters that it satisfies.

        Raises ``InvalidArgumentError`` for a value outside the uint64 range and
        ``DeviceError`` if the semaphore has failed.
        """

    @abc.abstractmethod
    def fail(self, cause):
        """Fail the semaphore with ``cause`` (exception or message); wakes every waiter.

        A second failure keeps the first cause.
        """

    @abc.abstractmethod
    def wait(self, value, timeout=None):
        """Block until the payload is >= ``value``; ``timeout`` in seconds (None = forever).

        Raises ``DeadlineExceededError`` on timeout and ``DeviceError`` (whose ``__cause__``
        is the failure) if the semaphore failed.
        """

    @abc.abstractmethod
    def acquire_timepoint(self, value, callback):
        """Call ``callback()`` once the payload is >= ``value`` or the semaphore fails.

        Calls it immediately (on this thread) if that is already true; otherwise later, on
        the signalling thread, outside any lock. Returns a handle for ``cancel_timepoint``.
        """

    @abc.abstractmethod
    def cancel_timepoint(self, handle):
        """Forget a pending timepoint (no effect if it already fired)."""

    def is_reached(self, value):
        """True if the payload is >= ``value`` (False if failed)."""
        return self.failure is None and self.query() >= value
