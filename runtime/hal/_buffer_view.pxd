# C-level view of rt.runtime.hal._buffer_view (see _buffer_view.pyx).
from libc.stdint cimport int32_t, uint32_t, uint64_t

from rt.runtime.hal._buffer cimport Buffer


cdef class BufferView:
    cdef readonly Buffer buffer
    cdef readonly tuple shape
    cdef uint32_t element_type_code
    cdef readonly int32_t encoding_type

    cdef uint64_t dense_byte_length(self)


cdef uint64_t packed_byte_count(uint32_t element_type, uint64_t count) noexcept
cdef BufferView new_view(Buffer buffer, tuple shape, uint32_t element_type, int32_t encoding_type)
