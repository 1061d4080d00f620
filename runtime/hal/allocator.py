"""Allocators: each device's own heap of buffers, with statistics.

Follows ``iree_hal_allocator_t`` (runtime/src/iree/hal/allocator.h): ``allocate_buffer`` with
memory type and usage bits, ``query_statistics``. rt adds an optional capacity (a simulated
device memory size) past which allocation raises ``ResourceExhaustedError``.
"""
import abc

from rt.runtime.hal.buffer import BufferUsage, MemoryType
from rt.runtime.record import Record


class AllocatorStatistics(Record):
    """A snapshot of one allocator's heap, in bytes and counts.

    bytes_allocated: total ever allocated; bytes_freed: total ever released; bytes_live:
    currently allocated; bytes_peak: high-water mark of bytes_live; allocation_count /
    free_count: number of allocations / releases; capacity: heap limit (None = unlimited).
    """

    __slots__ = ("bytes_allocated", "bytes_freed", "bytes_live", "bytes_peak", "allocation_count", "free_count",
                 "capacity")


class Allocator(abc.ABC):
    """Allocates buffers in one device's memory.

    device: the owning device. capacity: byte limit of the heap, or None.
    """

    device = None
    capacity = None

    @abc.abstractmethod
    def allocate_buffer(self, byte_length, memory_type=MemoryType.DEVICE_LOCAL,
                        usage=BufferUsage.DEFAULT):
        """Allocate and commit a live buffer of ``byte_length`` bytes.

        Raises ``InvalidArgumentError`` for a negative/oversized length or unknown bits and
        ``ResourceExhaustedError`` when the heap's capacity would be exceeded.
        """

    @abc.abstractmethod
    def reserve_buffer(self, byte_length, memory_type=MemoryType.DEVICE_LOCAL,
                       usage=BufferUsage.DEFAULT):
        """Return a buffer whose memory is committed later by ``commit`` (queue_alloca)."""

    @abc.abstractmethod
    def commit(self, buffer):
        """Commit a reserved buffer's memory (counts against capacity)."""

    @abc.abstractmethod
    def query_statistics(self):
        """Return an ``AllocatorStatistics`` snapshot."""

    def allocate_from(self, data, memory_type=MemoryType.DEVICE_LOCAL, usage=BufferUsage.DEFAULT):
        """Allocate a buffer holding a copy of ``data`` (numpy array or bytes-like)."""
        view = memoryview(data)
        buffer = self.allocate_buffer(view.nbytes, memory_type, usage)
        buffer.write(0, view if view.c_contiguous else memoryview(bytes(view)))
        return buffer
