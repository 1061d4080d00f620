# C-level view of rt.runtime.hal.drivers._local_queue (see _local_queue.pyx).
from libc.stdint cimport uint32_t

from rt.runtime.hal._fence cimport Fence
from rt.runtime.hal.drivers._replay cimport BindingTable

cdef extern from "<semaphore.h>" nogil:
    ctypedef struct sem_t:
        pass


cdef enum SubmissionKind:
    ACTION = 0
    EXECUTE = 1
    ALLOCA = 2
    DEALLOCA = 3


cdef class Submission:
    cdef SubmissionKind kind
    cdef object operand
    cdef public Fence wait_fence
    cdef public Fence signal_fence
    cdef public object action
    cdef public str label
    cdef public object name
    cdef public object args
    cdef tuple command_buffers
    cdef BindingTable table
    cdef uint32_t threads
    cdef object deadline
    cdef object caller

    cdef int perform(self, object sink, object lane) except -1


cdef Submission operation(Fence wait, Fence signal, object action, str label)
cdef Submission execution(Fence wait, Fence signal, tuple command_buffers, BindingTable table,
                          uint32_t threads, str label)


cdef class _Queue:
    cdef object __weakref__
    cdef readonly str label
    cdef readonly object lane
    cdef readonly object waits_lane
    cdef public object sink
    cdef object _waiting

    cdef int _execute(self, Submission submission, object sink) except -1
    cdef int _run(self, Submission submission) except -1
    cdef int _open_wait(self, Submission head) except -1
    cdef int _close_wait(self, Submission head) except -1
    cdef int submit_c(self, Submission submission) except -1


cdef class InlineQueue(_Queue):
    cdef object _pending
    cdef bint _draining
    cdef bint _recheck
    cdef Submission _armed

    cdef int _drain(self) except -1


cdef class ThreadQueue(_Queue):
    cdef object _pending
    cdef bint _busy
    cdef Submission _armed
    cdef object _closed
    cdef sem_t _wake
    cdef bint _signalled
    cdef object _thread

    cdef void _signal(self) noexcept
    cdef tuple _claim(self, bint donor)
    cdef int _finish(self) except -1
