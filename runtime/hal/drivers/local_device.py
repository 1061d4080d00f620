"""The device shared by the local drivers: host heap, host semaphores, in-order queues.

After IREE's runtime/src/iree/hal/drivers/local_sync/sync_device.c and
local_task/task_device.c: the two differ only in who runs the queues (``InlineQueue`` on the
submitting thread, one per thread; or a ``ThreadQueue`` on a device thread) and how many worker
threads a dispatch may use. The queue operations are C-level (``LocalDeviceCore`` in
``_local_device.pyx``, whose docstring gives their semantics, the transfer rules and tracing).
"""
import itertools

from rt.runtime.hal.device import Device, DeviceLimits
from rt.runtime.hal.drivers._local_device import NAMED_DISPATCHES, LocalDeviceCore  # noqa: F401
from rt.runtime.hal.drivers.heap_allocator import HeapAllocator
from rt.runtime.hal.drivers.local_queue import InlineQueue
from rt.runtime.hal.executable_cache import ExecutableCache

_ordinals = itertools.count()


class LocalDevice(LocalDeviceCore, Device):
    """A local device. ``queue_type``: InlineQueue (one per submitting thread) or ThreadQueue;
    ``threads``: workers per dispatch; ``heap_capacity``: bytes or None."""

    transfer_domain = "host"

    def __init__(self, driver_name, device_name, uri, loaders, queue_type, threads=1,
                 heap_capacity=None):
        self.driver_name, self.device_name, self.uri = driver_name, device_name, uri
        self.label = f"{driver_name}://{device_name}#{next(_ordinals)}"
        self.loaders = tuple(loaders)
        self.threads = threads
        self.limits = DeviceLimits()
        self.allocator = HeapAllocator(self, heap_capacity)
        self.executable_cache = ExecutableCache(self)
        self._init_queues(per_thread=queue_type is InlineQueue)

    def set_trace_sink(self, sink):
        previous = super().set_trace_sink(sink)
        self._sink_changed()
        return previous
