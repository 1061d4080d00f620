# The C entry through which the HAL dispatches a device library's exports (no Python frames).
#
# After IREE's iree_hal_executable_library_t dispatch (runtime/src/iree/hal/local/
# executable_library.h): the command buffer replay calls ``fn`` with the GIL released. The
# arguments were validated when the command was recorded (rt.runtime.hal._validation): the
# counts match the export, ``binding_ptrs``/``binding_lengths`` hold the export's
# binding_count entries and ``constants`` its constant_count. A non-zero return is the
# failing status; ``failed_workgroup`` gets the linear index of the workgroup that failed, and
# ``owner.dispatch_error(ordinal, workgroup_count, status, failed_workgroup)`` (with the GIL)
# turns it into the DeviceError to raise.
from libc.stdint cimport int32_t, uint32_t, uint64_t

ctypedef int32_t (*library_dispatch_fn)(void* state, uint32_t ordinal,
                                        const uint32_t* workgroup_count,
                                        const uint32_t* constants, void** binding_ptrs,
                                        const uint64_t* binding_lengths, uint32_t threads,
                                        uint64_t* failed_workgroup) noexcept nogil

# One dispatch of a group handed to ``group_fn`` at once (pointers as for ``fn``).
ctypedef struct library_dispatch_t:
    void* state
    uint32_t ordinal
    const uint32_t* workgroup_count
    const uint32_t* constants
    void** binding_ptrs
    const uint64_t* binding_lengths

# Runs ``count`` independent dispatches (of libraries sharing this ``group_fn``) side by side
# on ``threads`` workers (IREE's task command buffer running the commands between two
# barriers as one concurrent region). A non-zero return is the failing status of dispatch
# ``failed_dispatch``, workgroup ``failed_workgroup`` of it. NULL: the library has none, and
# its dispatches run one at a time through ``fn``.
ctypedef int32_t (*library_group_fn)(const library_dispatch_t* dispatches, uint32_t count,
                                     uint32_t threads, uint32_t* failed_dispatch,
                                     uint64_t* failed_workgroup) noexcept nogil


cdef class LibraryEntry:
    cdef library_dispatch_fn fn
    cdef library_group_fn group_fn
    cdef void* state
    cdef object owner
