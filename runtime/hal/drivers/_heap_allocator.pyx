# cython: language_level=3
"""The local drivers' allocator: 64-byte aligned host heap allocations with statistics.

Modelled on IREE's runtime/src/iree/hal/utils/heap_allocator.c and heap_buffer.c. Memory comes
from ``posix_memalign``; a capacity, when set, simulates a device memory size: committing past
it raises ``ResourceExhaustedError``.

Allocations are reference counted like IREE's buffers: one is counted as freed by ``release()``
/ ``queue_dealloca`` or when its last reference dies, and its memory comes back to the heap
when the ``Allocation`` object dies (so a numpy view of it, whose base is the allocation, keeps
its bytes). Freed memory goes to a per-allocator cache (exact sizes, at most ``cache_bytes``
in all, oldest evicted first) and is reused by the next allocation of that size: warm pages
instead of a fresh mapping that page-faults on first touch (a 16 MiB upload: ~9 ms cold,
~1.5 ms warm on ci-2c). The cache is a C structure: blocks are linked through their own
first bytes into one list per size bucket and one age list, so freeing and reusing take no
Python objects (it runs inside ``Allocation.__dealloc__``). Every operation runs with the GIL
held, which is what serializes them.
"""
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

import numpy as np

from rt.runtime.errors import InvalidArgumentError, ResourceExhaustedError
from rt.runtime.hal._buffer cimport (ALLOCATION_LIVE, ALLOCATION_RELEASED, ALLOCATION_RESERVED,
                                     Allocation, Buffer, describe, new_allocation, new_buffer,
                                     size_arg)
from rt.runtime.hal._buffer import AllocationState, BufferUsage, MemoryType
from rt.runtime.hal.allocator import Allocator, AllocatorStatistics

#: Byte alignment of every heap allocation.
ALIGNMENT = HEAP_ALIGNMENT
#: Default upper bound of the bytes a heap keeps cached for reuse after they were freed.
CACHE_BYTES = 256 << 20


cdef inline size_t _bucket(size_t size) noexcept nogil:
    return (size // HEAP_ALIGNMENT * 2654435761U) % HEAP_BUCKETS


cdef void _recycle(object heap, void* block, size_t block_size, uint64_t byte_length,
                   bint counted) noexcept:
    (<HeapAllocator>heap).put(block, block_size, byte_length, counted)


cdef class HeapAllocator:
    """Host heap of ``device``; ``capacity`` bytes (None = unlimited).

    cache_bytes: how many freed bytes the heap keeps for reuse (settable; 0 disables).
    Implements ``rt.runtime.hal.Allocator``.
    """

    def __init__(self, device, capacity=None):
        self.device = device
        self.capacity = None if capacity is None else size_arg(capacity, "capacity", "allocator")
        self._bounded = capacity is not None
        self._capacity = 0 if capacity is None else self.capacity
        self.cache_bytes = CACHE_BYTES

    def __dealloc__(self):
        self._drop_cache()

    # -- the cache -------------------------------------------------------------------------

    cdef void put(self, void* block, size_t block_size, uint64_t byte_length, bint counted) noexcept:
        """Take back a dead allocation's memory (counting it as freed unless ``counted``)."""
        cdef FreeBlock* b = <FreeBlock*>block
        cdef size_t k
        if not counted:
            self._count_free(byte_length)
        if block_size > self.cache_bytes:
            free(block)
            return
        while self._cached_bytes + block_size > self.cache_bytes and self._oldest != NULL:
            self._evict_oldest()
        k = _bucket(block_size)
        b.size = block_size
        b.bucket_next = self._buckets[k]
        self._buckets[k] = b
        b.newer = NULL
        b.older = self._newest
        if self._newest != NULL:
            self._newest.newer = b
        else:
            self._oldest = b
        self._newest = b
        self._cached_bytes += block_size

    cdef void _unlink(self, FreeBlock* b) noexcept:
        cdef FreeBlock** link = &self._buckets[_bucket(b.size)]
        while link[0] != b:
            link = &link[0].bucket_next
        link[0] = b.bucket_next
        if b.older != NULL:
            b.older.newer = b.newer
        else:
            self._oldest = b.newer
        if b.newer != NULL:
            b.newer.older = b.older
        else:
            self._newest = b.older
        self._cached_bytes -= b.size

    cdef void _evict_oldest(self) noexcept:
        cdef FreeBlock* b = self._oldest
        self._unlink(b)
        free(b)

    cdef void* _take(self, size_t block_size) noexcept:
        cdef FreeBlock* b = self._buckets[_bucket(block_size)]
        while b != NULL and b.size != block_size:
            b = b.bucket_next
        if b != NULL:
            self._unlink(b)
        return b

    cdef size_t _drop_cache(self) noexcept:
        cdef size_t dropped = self._cached_bytes
        while self._oldest != NULL:
            self._evict_oldest()
        return dropped

    def trim(self):
        """Drop the cached free memory (returns the bytes dropped)."""
        return self._drop_cache()

    # -- statistics --------------------------------------------------------------------------

    cdef void _count_free(self, uint64_t n) noexcept:
        self._freed += n
        self._live -= n
        self._frees += 1

    def query_statistics(self):
        """An ``AllocatorStatistics`` snapshot."""
        return AllocatorStatistics(
            bytes_allocated=self._allocated, bytes_freed=self._freed, bytes_live=self._live,
            bytes_peak=self._peak, allocation_count=self._allocations, free_count=self._frees,
            capacity=self.capacity)

    # -- allocation --------------------------------------------------------------------------

    cdef Buffer new_reserved(self, uint64_t byte_length, uint32_t memory_type, uint32_t usage):
        """A buffer whose memory ``commit_allocation`` commits later (C entry)."""
        return new_buffer(new_allocation(self, byte_length), 0, byte_length, memory_type, usage)

    cdef int commit_allocation(self, Allocation allocation) except -1:
        """Commit a reserved allocation's memory (counts against capacity)."""
        cdef uint64_t n = allocation.byte_length
        cdef size_t block_size = n if n > HEAP_ALIGNMENT else HEAP_ALIGNMENT
        cdef void* block
        if allocation.state != ALLOCATION_RESERVED:
            raise InvalidArgumentError(f"allocation #{allocation.id} is already "
                                       f"{AllocationState.RELEASED.value if allocation.state == ALLOCATION_RELEASED else AllocationState.LIVE.value}")
        self.check_capacity(allocation, n)
        block = self._take(block_size)
        if block == NULL and posix_memalign(&block, HEAP_ALIGNMENT, block_size) != 0:
            self._drop_cache()
            if posix_memalign(&block, HEAP_ALIGNMENT, block_size) != 0:
                error = ResourceExhaustedError(
                    f"{self.device.label}: host memory exhausted allocating {n} bytes")
                allocation.failure = error
                raise error
        allocation.commit(block, block_size, self, _recycle)
        self._count_commit(n)
        return 0

    cdef int check_capacity(self, Allocation allocation, uint64_t n) except -1:
        """ResourceExhaustedError (also recorded as the allocation's failure) when ``n`` more
        bytes would exceed the capacity."""
        if self._bounded and <uint64_t>self._live + n > self._capacity:
            error = ResourceExhaustedError(
                f"{self.device.label}: allocating {n} bytes would exceed the heap capacity of "
                f"{self._capacity} bytes ({self._live} bytes live); release buffers or create "
                "the device with a larger heap_capacity")
            allocation.failure = error
            raise error
        return 0

    cdef void _count_commit(self, uint64_t n) noexcept:
        self._allocated += n
        self._live += n
        if self._live > self._peak:
            self._peak = self._live
        self._allocations += 1

    cdef Buffer allocate(self, uint64_t byte_length, uint32_t memory_type, uint32_t usage):
        """Allocate and commit a live buffer (C entry of ``allocate_buffer``)."""
        cdef Buffer buffer = self.new_reserved(byte_length, memory_type, usage)
        self.commit_allocation(buffer.allocation)
        return buffer

    cdef Buffer import_host(self, char* data, uint64_t byte_length, object owner, uint32_t memory_type,
                            uint32_t usage):
        """A live buffer over host memory kept alive by ``owner`` (not counted, never recycled)."""
        cdef Allocation allocation = new_allocation(self, byte_length)
        allocation.import_host(data, owner)
        return new_buffer(allocation, 0, byte_length, memory_type, usage)

    def _args(self, byte_length, memory_type, usage, where):
        n = size_arg(byte_length, "allocation size", where)
        for value, kind in ((memory_type, "memory type"), (usage, "buffer usage")):
            if not isinstance(value, (int, np.integer)) or int(value) < 0 or int(value) >= 1 << 32:
                raise InvalidArgumentError(f"{where}: {kind} {value!r} is not a 32-bit mask")
        return n, int(memory_type), int(usage)

    def allocate_buffer(self, byte_length, memory_type=MemoryType.DEVICE_LOCAL,
                        usage=BufferUsage.DEFAULT):
        """Allocate and commit a live buffer of ``byte_length`` bytes.

        Raises ``InvalidArgumentError`` for a negative/oversized length or unknown bits and
        ``ResourceExhaustedError`` when the heap's capacity would be exceeded.
        """
        n, t, u = self._args(byte_length, memory_type, usage, f"allocate on {self.device.label}")
        return self.allocate(n, t, u)

    def reserve_buffer(self, byte_length, memory_type=MemoryType.DEVICE_LOCAL,
                       usage=BufferUsage.DEFAULT):
        """Return a buffer whose memory is committed later by ``commit`` (queue_alloca)."""
        n, t, u = self._args(byte_length, memory_type, usage, f"queue_alloca on {self.device.label}")
        return self.new_reserved(n, t, u)

    def commit(self, Buffer buffer):
        """Commit a reserved buffer's memory (counts against capacity)."""
        self.commit_allocation(buffer.allocation)

    def import_buffer(self, array, memory_type=MemoryType.DEVICE_LOCAL | MemoryType.HOST_VISIBLE,
                      usage=BufferUsage.DEFAULT):
        """A buffer over the memory of numpy ``array`` itself (no copy; IREE's
        ``iree_hal_allocator_import_buffer`` of a host allocation). The buffer keeps the array
        alive; the heap neither counts nor recycles it.

        Raises ``InvalidArgumentError`` unless the array is C-contiguous and writeable.
        """
        cdef uint64_t n
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous or not array.flags.writeable:
            raise InvalidArgumentError(f"import_buffer on {self.device.label}: expected a "
                                       "C-contiguous writeable numpy array")
        n = array.nbytes
        return self.import_host(<char*><size_t>array.ctypes.data, n, array, int(memory_type), int(usage))

    def allocate_from(self, data, memory_type=MemoryType.DEVICE_LOCAL, usage=BufferUsage.DEFAULT):
        """Allocate a buffer holding a copy of ``data`` (numpy array or bytes-like)."""
        view = memoryview(data)
        buffer = self.allocate_buffer(view.nbytes, memory_type, usage)
        buffer.write(0, view if view.c_contiguous else memoryview(bytes(view)))
        return buffer

    def release(self, buffer):
        """Release the allocation behind root buffer ``buffer`` (release()/queue_dealloca)."""
        if not isinstance(buffer, Buffer) or (<Buffer>buffer).allocator is not self:
            raise InvalidArgumentError(
                f"release on {self.device.label}: {buffer!r} was not allocated by this device")
        self.release_buffer(buffer)

    cdef int release_buffer(self, Buffer buffer) except -1:
        cdef Allocation allocation = buffer.allocation
        if not buffer.is_root:
            raise InvalidArgumentError(f"release: {describe(buffer)} is a subspan; release the "
                                       "buffer it was allocated as")
        if allocation.state == ALLOCATION_RELEASED:
            raise InvalidArgumentError(f"release: {describe(buffer)} is already released")
        if allocation.state == ALLOCATION_LIVE and allocation.block != NULL:
            self._count_free(allocation.byte_length)
        allocation.mark_released()
        return 0

    def __repr__(self):
        return f"<HeapAllocator of {self.device.label}>"


Allocator.register(HeapAllocator)


#: The block every virtual allocation points at (never dereferenced: its data is NULL).
cdef char _VIRTUAL_BLOCK[HEAP_ALIGNMENT]


cdef class VirtualHeapAllocator(HeapAllocator):
    """A heap whose allocations have no memory: the simulator's dry run (rt.runtime.sim).

    Allocations, releases, capacity and statistics behave exactly as ``HeapAllocator``'s (the
    same capacity rule, the same ``ResourceExhaustedError`` naming the device), but no host
    memory is taken: a buffer has no address, and reading or writing it raises
    ``InvalidArgumentError`` ("has no memory"). ``allocate_from`` counts the bytes without
    copying them; ``import_buffer`` and the call path's imports of numpy arrays keep the
    array's memory, uncounted, as on a real heap; ``import_virtual`` imports nothing.
    """

    cdef int commit_allocation(self, Allocation allocation) except -1:
        cdef uint64_t n = allocation.byte_length
        if allocation.state != ALLOCATION_RESERVED:
            raise InvalidArgumentError(f"allocation #{allocation.id} is already "
                                       f"{AllocationState.RELEASED.value if allocation.state == ALLOCATION_RELEASED else AllocationState.LIVE.value}")
        self.check_capacity(allocation, n)
        allocation.commit(<void*>_VIRTUAL_BLOCK, 0, self, _recycle)
        allocation.data = NULL
        self._count_commit(n)
        return 0

    cdef void put(self, void* block, size_t block_size, uint64_t byte_length, bint counted) noexcept:
        if not counted:
            self._count_free(byte_length)

    def allocate_from(self, data, memory_type=MemoryType.DEVICE_LOCAL, usage=BufferUsage.DEFAULT):
        """A counted buffer of ``data``'s size; the bytes are not copied (there is no memory)."""
        return self.allocate_buffer(memoryview(data).nbytes, memory_type, usage)

    def import_virtual(self, byte_length, memory_type=MemoryType.DEVICE_LOCAL | MemoryType.HOST_VISIBLE,
                       usage=BufferUsage.DEFAULT):
        """A live, uncounted buffer of ``byte_length`` bytes without memory: the import of an
        input whose contents are not computed (``rt.NotComputed``)."""
        n, t, u = self._args(byte_length, memory_type, usage, f"import on {self.device.label}")
        return self.import_host(NULL, n, None, t, u)

    def __repr__(self):
        return f"<VirtualHeapAllocator of {self.device.label}>"


Allocator.register(VirtualHeapAllocator)
