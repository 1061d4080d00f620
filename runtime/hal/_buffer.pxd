# C-level view of rt.runtime.hal._buffer: allocations and buffers (see _buffer.pyx).
from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef enum AllocationStateCode:
    ALLOCATION_RESERVED = 0
    ALLOCATION_LIVE = 1
    ALLOCATION_RELEASED = 2

# Gives the heap memory of a dying allocation back to its heap. ``counted``: the allocation
# was already counted as freed (it was released before it died).
ctypedef void (*recycle_fn)(object heap, void* block, size_t block_size, uint64_t byte_length,
                            bint counted) noexcept

cdef class Buffer


cdef class Allocation:
    """The memory behind one buffer and its subspans (IREE's allocated buffer storage)."""
    cdef readonly object allocator
    cdef char* data
    cdef void* block
    cdef size_t block_size
    cdef readonly uint64_t byte_length
    cdef int state
    cdef object owner
    cdef object heap
    cdef recycle_fn recycle
    cdef public object failure
    cdef readonly int64_t id

    cdef int commit(self, void* block, size_t block_size, object heap, recycle_fn recycle) except -1
    cdef int import_host(self, char* data, object owner) except -1
    cdef int mark_released(self) except -1


cdef class Buffer:
    """A byte range of one allocation (see _buffer.pyx)."""
    cdef readonly Allocation allocation
    cdef readonly object allocator
    cdef readonly uint64_t byte_offset
    cdef readonly uint64_t byte_length
    cdef readonly uint32_t memory_type_bits
    cdef readonly uint32_t usage_bits
    cdef public object encoding
    cdef object _view

    cdef char* address(self) except NULL
    cdef object not_live_error(self)


cdef Allocation new_allocation(object allocator, uint64_t byte_length)
cdef Buffer new_buffer(Allocation allocation, uint64_t offset, uint64_t length, uint32_t memory_type,
                       uint32_t usage)
cdef uint64_t size_arg(object value, str what, str where) except? 0xFFFFFFFFFFFFFFFF
cdef int range_check(Buffer buffer, uint64_t offset, uint64_t length, str where, str what) except -1
cdef str describe(Buffer buffer)
