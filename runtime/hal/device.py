"""Devices: a heap, an executable cache and a queue that orders work by fences.

Follows ``iree_hal_device_t`` (runtime/src/iree/hal/device.h). Every queue operation takes a
*wait fence* (run once it is reached) and a *signal fence* (signalled when the work is done,
or failed with the error if it failed or its wait fence failed — propagation, never a hang).
Either may be None: no wait, or a fresh fence that the call returns. Bad arguments raise at
the call; failures while executing only ever reach the signal fence.
"""
import abc
import fnmatch

from rt.runtime.hal.buffer import BufferUsage, MemoryType
from rt.runtime.hal.command_buffer import CommandBufferMode, CommandCategory
from rt.runtime.hal.fence import Fence
from rt.runtime.hal.trace import Lane, check_sink
from rt.runtime.record import Record


class DeviceLimits(Record):
    """Device limits checked while recording.

    min_buffer_offset_alignment: bytes a dispatch binding's offset within its allocation must
    be a multiple of (IREE's default ``--iree-stream-resource-min-offset-alignment``, 64).
    """

    __slots__ = ("min_buffer_offset_alignment",)
    _defaults = {"min_buffer_offset_alignment": 64}


class Device(abc.ABC):
    """One device instance.

    uri: the normalized device URI (``local-task://llvm-cpu?threads=2``); label: unique name
    for errors (``local-task://llvm-cpu#0``); driver_name / device_name: the URI's parts;
    loaders: its ``ExecutableLoader`` list; allocator; executable_cache; limits; threads:
    workers a dispatch may use; transfer_domain: devices with the same domain can copy
    between their heaps (queue_copy, copy_buffer); trace_sink: the ``TraceSink`` or None.
    """

    uri = label = driver_name = device_name = ""
    loaders = ()
    allocator = None
    executable_cache = None
    limits = DeviceLimits()
    threads = 1
    transfer_domain = None
    trace_sink = None

    def set_trace_sink(self, sink):
        """Report this device's queue work to ``sink`` (a ``TraceSink``), or stop (None).

        Declares the queue lane to the sink; returns the previous sink. Work already running
        keeps the sink it started with.
        """
        previous, self.trace_sink = self.trace_sink, check_sink(sink, f"{self.label}: "
                                                                     "set_trace_sink")
        if sink is not None:
            sink.declare_lane(self.queue_lane)
        return previous

    @property
    def queue_lane(self):
        """The ``Lane`` of this device's queue in traces."""
        return Lane(self.label, "queue")

    @property
    def waits_lane(self):
        """The ``Lane`` where waits of this device's queue for wait fences appear."""
        return Lane(self.label, "waits")

    def can_transfer_with(self, other):
        """True if a copy between this device's heap and ``other``'s can be recorded here."""
        return other is self or (self.transfer_domain is not None
                                 and getattr(other, "transfer_domain", None) == self.transfer_domain)

    @abc.abstractmethod
    def create_semaphore(self, initial_value=0):
        """A new timeline semaphore with payload ``initial_value``."""

    @abc.abstractmethod
    def create_command_buffer(self, mode=CommandBufferMode.DEFAULT,
                              categories=CommandCategory.ANY, binding_capacity=0):
        """A new command buffer in the initial state (call ``begin()``)."""

    @abc.abstractmethod
    def queue_alloca(self, allocation_size, *, wait_fence=None, signal_fence=None,
                     memory_type=MemoryType.DEVICE_LOCAL, usage=BufferUsage.DEFAULT):
        """Return a buffer whose memory is committed when the queue reaches this op."""

    @abc.abstractmethod
    def queue_dealloca(self, buffer, *, wait_fence=None, signal_fence=None):
        """Release ``buffer``'s allocation when the queue reaches this op; returns the fence."""

    @abc.abstractmethod
    def queue_execute(self, command_buffers, *, wait_fence=None, signal_fence=None,
                      binding_table=None):
        """Execute finalized ``command_buffers`` in order; returns the signal fence.

        binding_table: entries ``(buffer, offset, length)`` for the binding-table slots the
        command buffers reference (IREE's indirect bindings), or None.
        """

    @abc.abstractmethod
    def queue_copy(self, source, source_offset, target, target_offset, length, *,
                   wait_fence=None, signal_fence=None):
        """Copy bytes between buffers (possibly of other local devices); returns the fence."""

    @abc.abstractmethod
    def queue_fill(self, target, target_offset, length, pattern, pattern_length, *,
                   wait_fence=None, signal_fence=None):
        """Fill a range with a 1/2/4-byte pattern; returns the signal fence."""

    @abc.abstractmethod
    def queue_update(self, source, source_offset, target, target_offset, length, *,
                     wait_fence=None, signal_fence=None):
        """Copy host bytes (captured now) into a buffer; returns the signal fence."""

    @abc.abstractmethod
    def queue_barrier(self, *, wait_fence=None, signal_fence=None):
        """Signal ``signal_fence`` once ``wait_fence`` and all earlier work are done."""

    @abc.abstractmethod
    def release(self):
        """Stop the device's queue; pending work fails its signal fences. Idempotent."""

    def create_fence(self):
        """A fence on a fresh semaphore at value 1 (``hal.fence.create``)."""
        return Fence([(self.create_semaphore(0), 1)])

    def create_executable(self, format, data, metadata=None, name=None):
        """Load one executable variant (``hal.executable.create``)."""
        return self.executable_cache.prepare_executable([(format, data, metadata or {})], name)

    def prepare_executable(self, variants, name=None):
        """Load the best of ``variants`` [(format, data, metadata)] this device can run."""
        return self.executable_cache.prepare_executable(variants, name)

    def query_i64(self, category, key):
        """``(ok, value)`` for a configuration key (``hal.device.query.i64``).

        Categories: ``hal.executable.format`` (key: format -> 1 if loadable), ``hal.device.id``
        (key: glob matched against driver and device names -> 1/0), ``hal.dispatch``
        (key ``concurrency`` -> worker threads). Unknown keys give ``(0, 0)``.
        """
        if category == "hal.executable.format":
            return 1, int(self.executable_cache.can_prepare_format(key))
        if category == "hal.device.id":
            names = (self.driver_name, self.device_name, "local")
            return 1, int(any(fnmatch.fnmatchcase(n, key) for n in names))
        if category == "hal.dispatch" and key == "concurrency":
            return 1, int(self.threads)
        return 0, 0

    def __repr__(self):
        return f"<{type(self).__name__} {self.label}>"
