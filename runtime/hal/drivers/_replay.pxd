# C-level view of rt.runtime.hal.drivers._replay (see _replay.pyx).
from libc.stdint cimport uint32_t, uint64_t

from rt.runtime.hal._command_buffer cimport CommandBuffer


cdef class BindingTable:
    cdef readonly list buffers
    cdef uint64_t* offsets
    cdef uint64_t* lengths
    cdef readonly Py_ssize_t count


cdef int execute_c(CommandBuffer cb, BindingTable table, uint32_t threads, object sink,
                   object lane) except -1
cdef int execute_command_buffer(CommandBuffer cb, BindingTable table, uint32_t threads,
                                object sink, object lane, object caller=*) except -1
