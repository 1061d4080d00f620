# C-level view of rt.runtime.hal.drivers._local_device (see _local_device.pyx).
from libc.stdint cimport uint32_t, uint64_t

from rt.runtime.hal._buffer cimport Buffer
from rt.runtime.hal._fence cimport Fence
from rt.runtime.hal._semaphore cimport Semaphore
from rt.runtime.hal.drivers._heap_allocator cimport HeapAllocator
from rt.runtime.hal.drivers._local_queue cimport Submission, _Queue
from rt.runtime.hal.drivers._replay cimport BindingTable
from rt.runtime.hal._validation cimport Site


cdef class LocalDeviceCore:
    cdef public str label
    cdef public HeapAllocator allocator
    cdef public uint32_t threads
    cdef public object trace_sink
    cdef public object recorder
    cdef public bint released
    cdef public bint direct_queue
    cdef object _local
    cdef _Queue _shared
    cdef object _queues
    cdef int _queue_count
    cdef long long _semaphore_count
    cdef Site _site

    cdef _Queue queue_c(self)
    cdef Site site_c(self)
    cdef Semaphore semaphore_c(self, uint64_t initial_value)
    cdef Fence fence_c(self)
    cdef int _check_live(self, str where) except -1
    cdef Fence _fence_arg(self, object fence, str name, str where)
    cdef Fence submit_c(self, Submission submission, object args, object name) except *
    cdef Buffer alloca_c(self, Fence wait, Fence signal, uint64_t size, uint32_t memory_type,
                         uint32_t usage)
    cdef Fence dealloca_c(self, Fence wait, Fence signal, object buffer) except *
    cdef Fence execute_c(self, Fence wait, Fence signal, tuple command_buffers,
                         BindingTable table) except *
    cdef int check_command_buffer(self, object cb, Py_ssize_t index) except -1
