# C-level view of rt.runtime.hal._command_buffer (see _command_buffer.pyx).
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from rt.runtime.hal._buffer cimport Buffer
from rt.runtime.hal._commands cimport BufferRef, Command, CommandKind
from rt.runtime.hal._executable cimport Executable
from rt.runtime.hal._validation cimport Site

cdef enum CommandBufferStateCode:
    CB_INITIAL = 0
    CB_RECORDING = 1
    CB_EXECUTABLE = 2

# One dispatch binding as the recording entry points receive it: a buffer (or None for a
# binding-table slot), the slot, and offset/length as given (checked while recording).
ctypedef struct BindingArg:
    void* buffer
    int64_t slot
    int64_t offset
    int64_t length


cdef class CommandBuffer(Site):
    cdef uint32_t _mode
    cdef uint32_t _categories
    cdef readonly uint32_t binding_capacity
    cdef int _state
    cdef Command* _commands
    cdef Py_ssize_t _count, _capacity
    cdef BufferRef* _refs
    cdef uint32_t _ref_count, _ref_capacity
    cdef uint32_t* _constants
    cdef uint32_t _constant_count, _constant_capacity
    cdef bytearray _host
    cdef readonly list buffers
    cdef dict _buffer_index
    cdef readonly list executables
    cdef dict _executable_index
    cdef readonly list channels
    cdef dict _channel_index
    cdef public dict debug_markers
    cdef public dict sources
    cdef list _debug_groups
    cdef public Py_ssize_t submitted
    cdef list _zones
    cdef uint64_t* _slot_end
    cdef uint32_t* _slot_usage
    cdef uint8_t* _slot_dispatch
    cdef dict _slot_encodings
    cdef dict _slot_users
    cdef list _slot_roles
    cdef Executable _dispatching
    cdef str _queue_operation
    cdef uint32_t _dispatching_ordinal
    # What the replay loop resolved once for runs without the GIL (drivers/_replay.pyx).
    cdef object replay_plan

    cdef Command* command(self, Py_ssize_t index) noexcept
    cdef BufferRef* ref(self, uint32_t index) noexcept
    cdef const uint32_t* constant_pool(self) noexcept
    cdef const unsigned char* host_bytes(self, uint64_t offset) noexcept
    cdef Py_ssize_t count(self) noexcept
    cdef int begin_c(self) except -1
    cdef int finalize_c(self) except -1
    cdef int fill_c(self, object target, int64_t slot, int64_t offset, int64_t length,
                    int64_t pattern, int64_t pattern_length) except -1
    cdef int copy_c(self, object source, int64_t source_slot, int64_t source_offset, object target,
                    int64_t target_slot, int64_t target_offset, int64_t length) except -1
    cdef int update_c(self, object source, int64_t source_offset, object target, int64_t slot,
                      int64_t target_offset, int64_t length) except -1
    cdef int dispatch_c(self, object executable, int64_t ordinal, int64_t x, int64_t y, int64_t z,
                        const int64_t* constants, Py_ssize_t constant_count,
                        const BindingArg* bindings, Py_ssize_t binding_count) except -1
    cdef int collective_c(self, object channel, object op, uint32_t param, object send,
                          int64_t send_slot, int64_t send_offset, int64_t send_length, object recv,
                          int64_t recv_slot, int64_t recv_offset, int64_t recv_length,
                          int64_t count) except -1
    cdef int barrier_c(self) except -1
    cdef int check_submittable_c(self, str where) except -1
    cdef int _recording(self, str kind, bint counted=*) except -1
    cdef int _category(self, str kind, uint32_t category) except -1
    cdef Command* _new_command(self, CommandKind kind) except NULL
    cdef int32_t _index(self, Buffer buffer) except -2
    cdef uint32_t _executable_of(self, Executable e) except? 0xFFFFFFFF
    cdef Buffer _operand(self, str kind, str role, object buffer, int64_t slot, int64_t offset,
                         int64_t* length, uint32_t usage, bint transfer)
    cdef BufferRef _commit_ref(self, Buffer buffer, int64_t slot, uint64_t offset, uint64_t length,
                               uint32_t usage, bint dispatch, object encoding) except *
    cdef str _slot_role(self, uint32_t slot)
    cdef object _ref_record(self, BufferRef* r)
    cdef object _record(self, Command* c)
    cdef int check_table_c(self, Site site, str kind, list buffers, const uint64_t* offsets,
                           const uint64_t* lengths, Py_ssize_t count) except -1
