# C-level view of rt.runtime.hal._semaphore (see _semaphore.pyx).
from libc.stdint cimport uint64_t

cdef extern from "<semaphore.h>" nogil:
    ctypedef struct sem_t:
        pass


cdef class Notify:
    """Something a timepoint wakes: ``notify(failed)`` runs with the GIL held, once."""
    cdef int notify(self, bint failed) except -1


cdef class Waiter(Notify):
    """Blocks one thread until ``left`` timepoints fired or one reported a failure."""
    cdef sem_t sem
    cdef Py_ssize_t left
    cdef bint woken

    cdef int block(self, double timeout_s) except -1


cdef class Timepoint:
    cdef uint64_t value
    cdef Notify target


cdef class Semaphore:
    cdef uint64_t value
    cdef object _failure
    cdef object _label
    cdef object _device
    cdef long long _ordinal
    cdef public object producer
    cdef list _timepoints

    cdef inline bint reached(self, uint64_t value) noexcept:
        return self._failure is None and self.value >= value

    cdef int signal_c(self, uint64_t value) except -1
    cdef int fail_c(self, object cause) except -1
    cdef Timepoint acquire(self, uint64_t value, Notify target)
    cdef int cancel(self, Timepoint timepoint) except -1


cdef Semaphore device_semaphore(uint64_t value, object device, long long ordinal)
cdef object failure_error(str label, object cause)
cdef uint64_t payload_arg(object value, str where) except? 0xFFFFFFFFFFFFFFFF
cdef double timeout_arg(object timeout) except? -2.0
cdef double wait_limit(object timeout, bint* by_deadline) except? -2.0
