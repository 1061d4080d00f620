# C-level view of rt.runtime.hal._fence (see _fence.pyx).
from libc.stdint cimport uint64_t

from rt.runtime.hal._semaphore cimport Semaphore


cdef class Fence:
    cdef list _semaphores
    cdef uint64_t* _values
    cdef uint64_t _inline[2]
    cdef Py_ssize_t _capacity

    cdef int insert_c(self, Semaphore semaphore, uint64_t value) except -1
    cdef int join_c(self, Fence other) except -1
    cdef object failure_c(self)
    cdef bint reached_c(self)
    cdef bint settled_c(self)
    cdef int signal_c(self) except -1
    cdef int fail_c(self, object cause) except -1
    cdef int wait_c(self, object timeout, bint timeout_status=*) except -1
    cdef int _raise_failure(self) except -1
    cdef bint _donate(self, list pending) except -1


cdef Fence new_fence()
cdef Fence single_fence(Semaphore semaphore, uint64_t value)
