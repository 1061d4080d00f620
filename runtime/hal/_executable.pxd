# C-level view of rt.runtime.hal._executable (see _executable.pyx).
from libc.stdint cimport uint32_t

from rt.runtime.hal._library cimport LibraryEntry


cdef class Executable:
    cdef readonly object device
    cdef readonly object library
    cdef readonly object format
    cdef readonly object name
    cdef readonly tuple exports
    cdef dict _encodings
    cdef readonly dict costs
    cdef uint32_t* binding_counts
    cdef uint32_t* constant_counts
    cdef readonly uint32_t export_count
    cdef LibraryEntry entry
    cdef public object source

    cdef object encodings_of(self, uint32_t ordinal)
