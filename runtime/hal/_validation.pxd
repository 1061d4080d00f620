# The one validation module of commands and queue operations (see _validation.pyx).
from libc.stdint cimport int64_t, uint32_t, uint64_t

from rt.runtime.hal._buffer cimport Buffer
from rt.runtime.hal._executable cimport Executable


cdef class Site:
    """Where a command or queue operation is checked: its device and how errors name it."""
    cdef readonly object device
    cdef object allocator
    cdef readonly uint64_t alignment

    cdef str where(self, str kind)


cdef class QueueSite(Site):
    pass


cdef QueueSite queue_site(object device)
cdef Buffer buffer_arg(Site site, str kind, object buffer, str role, uint32_t usage, bint transfer)
cdef int check_range(Site site, str kind, Buffer buffer, uint64_t offset, uint64_t length,
                     str what) except -1
cdef int check_fill(Site site, str kind, uint64_t offset, uint64_t length,
                    uint32_t pattern_length) except -1
cdef int check_copy(Site site, str kind, Buffer source, uint64_t source_offset, Buffer target,
                    uint64_t target_offset, uint64_t length) except -1
cdef bytes host_source(Site site, str kind, object source, uint64_t source_offset,
                       uint64_t length)
cdef int check_executable(Site site, str kind, object executable, int64_t ordinal) except -1
cdef int64_t dispatch_int_arg(Site site, str kind, object value, str what) except? -1
cdef enum:
    DISPATCH_OK = 0
    DISPATCH_NEGATIVE_COUNT
    DISPATCH_COUNT_OVER_32_BITS
    DISPATCH_TOO_MANY_WORKGROUPS
    DISPATCH_CONSTANT_COUNT
    DISPATCH_BINDING_COUNT
    DISPATCH_CONSTANT_OVER_32_BITS

cdef int dispatch_fault(int64_t x, int64_t y, int64_t z, const int64_t* constants,
                        Py_ssize_t constant_count, Py_ssize_t want_constants,
                        Py_ssize_t binding_count, Py_ssize_t want_bindings) noexcept nogil
cdef int raise_dispatch_fault(int fault, str where, int64_t x, int64_t y, int64_t z,
                              const int64_t* constants, Py_ssize_t constant_count,
                              Py_ssize_t want_constants, Py_ssize_t binding_count,
                              Py_ssize_t want_bindings) except -1
cdef int64_t int64_arg(str where, object value, str what) except? -1
cdef int check_dispatch(Site site, str kind, Executable executable, uint32_t ordinal,
                        int64_t x, int64_t y, int64_t z, const int64_t* constants,
                        Py_ssize_t constant_count, Py_ssize_t binding_count) except -1
cdef int check_binding(Site site, str kind, Py_ssize_t index, Buffer buffer, uint64_t offset,
                       uint64_t length, object want_encoding) except -1
cdef int check_slot(Site site, str kind, str role, int64_t slot, uint64_t offset, uint32_t capacity,
                    bint aligned) except -1
cdef int64_t size_value(Site site, str kind, object value, str what) except? -1
cdef int check_table_entry(Site site, str kind, str role, Buffer buffer, uint64_t offset,
                           uint64_t length, uint32_t usage, uint64_t end, bint aligned,
                           object want_encoding) except -1
cdef object check_collective(Site site, str kind, object channel, object op)
cdef int check_collective_range(Site site, str kind, str role, uint64_t length, object op,
                                int64_t count, uint64_t need, int64_t ranks) except -1
