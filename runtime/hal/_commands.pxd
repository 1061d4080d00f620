# The commands a command buffer records, defined once as typed C records.
#
# After IREE's iree_hal_command_buffer_* recording API (runtime/src/iree/hal/command_buffer.h)
# and its deferred command buffer (runtime/src/iree/hal/utils/deferred_command_buffer.c): a
# command names buffers by BufferRef, either directly (an index into the command buffer's
# retained buffers) or indirectly (a slot of the binding table given at submission, IREE's
# iree_hal_buffer_ref_t with a null buffer). Variable-length parts (push constants, dispatch
# bindings, update bytes) live in pools of the command buffer and are referenced by index.
# _commands.pyx gives Python views of the records (CommandBuffer.commands); the replay loop
# (drivers/_replay.pyx) resolves them into addresses per execution.
from libc.stdint cimport int32_t, uint32_t, uint64_t

cdef enum CommandKind:
    COMMAND_FILL = 0
    COMMAND_COPY = 1
    COMMAND_UPDATE = 2
    COMMAND_DISPATCH = 3
    COMMAND_BARRIER = 4
    COMMAND_COLLECTIVE = 5
    COMMAND_KIND_COUNT = 6

cdef enum:
    # BufferRef.buffer of a ref that names a binding-table slot instead of a buffer.
    INDIRECT = -1

ctypedef struct BufferRef:
    int32_t buffer          # index into CommandBuffer.buffers, or INDIRECT
    uint32_t slot           # binding-table slot when buffer == INDIRECT
    uint64_t offset         # bytes from the start of the buffer (or of the table entry)
    uint64_t length         # bytes

ctypedef struct FillCommand:
    BufferRef target
    uint32_t pattern        # the low pattern_length bytes, little-endian
    uint32_t pattern_length # 1, 2 or 4

ctypedef struct CopyCommand:
    BufferRef source
    BufferRef target        # target.length == source.length

ctypedef struct UpdateCommand:
    uint64_t source_offset  # into CommandBuffer's captured host bytes
    BufferRef target

ctypedef struct DispatchCommand:
    uint32_t executable     # index into CommandBuffer.executables
    uint32_t ordinal        # export ordinal
    uint32_t workgroup_count[3]
    uint32_t constants      # first index into the push-constant pool
    uint32_t constant_count
    uint32_t bindings       # first index into the BufferRef pool
    uint32_t binding_count

ctypedef struct CollectiveCommand:
    # iree_hal_command_buffer_collective: reserved for channels/collectives (helper
    # `simulation`); recorded and validated like the others once a driver implements it.
    uint32_t channel        # index into CommandBuffer.channels
    uint32_t op             # iree_hal_collective_op_t bits (kind, reduction, element type)
    uint32_t param          # op parameter (e.g. the root rank of a broadcast)
    BufferRef send
    BufferRef recv
    uint64_t element_count

ctypedef union CommandArgs:
    FillCommand fill
    CopyCommand copy
    UpdateCommand update
    DispatchCommand dispatch
    CollectiveCommand collective

ctypedef struct Command:
    CommandKind kind
    CommandArgs args
