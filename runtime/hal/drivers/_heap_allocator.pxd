# C-level view of rt.runtime.hal.drivers._heap_allocator (see _heap_allocator.pyx).
from libc.stdint cimport int64_t, uint32_t, uint64_t

from rt.runtime.hal._buffer cimport Allocation, Buffer

cdef enum:
    HEAP_ALIGNMENT = 64
    HEAP_BUCKETS = 1024

cdef struct FreeBlock:
    FreeBlock* older
    FreeBlock* newer
    FreeBlock* bucket_next
    size_t size


cdef class HeapAllocator:
    cdef readonly object device
    cdef readonly object capacity
    cdef uint64_t _capacity
    cdef bint _bounded
    cdef int64_t _allocated, _freed, _live, _peak, _allocations, _frees
    cdef FreeBlock* _buckets[HEAP_BUCKETS]
    cdef FreeBlock* _oldest
    cdef FreeBlock* _newest
    cdef size_t _cached_bytes
    cdef public size_t cache_bytes

    cdef void put(self, void* block, size_t block_size, uint64_t byte_length, bint counted) noexcept
    cdef void _unlink(self, FreeBlock* b) noexcept
    cdef void _evict_oldest(self) noexcept
    cdef void* _take(self, size_t block_size) noexcept
    cdef size_t _drop_cache(self) noexcept
    cdef void _count_free(self, uint64_t n) noexcept
    cdef Buffer new_reserved(self, uint64_t byte_length, uint32_t memory_type, uint32_t usage)
    cdef int commit_allocation(self, Allocation allocation) except -1
    cdef int check_capacity(self, Allocation allocation, uint64_t n) except -1
    cdef void _count_commit(self, uint64_t n) noexcept
    cdef Buffer allocate(self, uint64_t byte_length, uint32_t memory_type, uint32_t usage)
    cdef Buffer import_host(self, char* data, uint64_t byte_length, object owner, uint32_t memory_type,
                            uint32_t usage)
    cdef int release_buffer(self, Buffer buffer) except -1


cdef class VirtualHeapAllocator(HeapAllocator):
    pass
