# cython: language_level=3
"""C entries of the ``hal`` VM module: the per-call imports, reading VM registers directly.

``HalModule`` (module.py) is the module as Python sees it (names, calling conventions, a
Python method per import). For the imports a compiled function calls on every invocation the
context binds these C functions instead (rt.runtime.vm._native): they take their arguments
from the interpreter's register banks and call the HAL's C-level methods — buffer views,
allocation, command buffer recording (rt.runtime.hal._command_buffer, checked by
rt.runtime.hal._validation), the local queues (rt.runtime.hal.drivers._local_device) and
fences — with no Python frame or argument list. A device whose queue operations a Python
subclass overrides (``direct_queue`` False), or any object that is not a local device, goes
through the Python method instead, so hooks on the queue operations keep working.
"""
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal._buffer cimport Buffer, new_buffer, range_check, describe
from rt.runtime.hal._buffer_view cimport BufferView, new_view
from rt.runtime.hal._command_buffer cimport BindingArg, CommandBuffer
from rt.runtime.hal._fence cimport Fence, new_fence
from rt.runtime.hal.drivers._heap_allocator cimport HeapAllocator
from rt.runtime.hal.drivers._local_device cimport LocalDeviceCore
from rt.runtime.hal.drivers._replay cimport BindingTable
from rt.runtime.hal._validation cimport QueueSite, queue_site
from rt.runtime.hal.status import StatusCode
from rt.runtime.vm._native cimport (ImportCall, NativeFunction, import_fn, int_arg, native_function,
                                    ref_arg, set_i32, set_i64, set_ref)

include "_generated/imports.pxi"

cdef uint32_t _INFINITE_MS = 0xFFFFFFFF
cdef int32_t _DEADLINE_EXCEEDED = int(StatusCode.DEADLINE_EXCEEDED)
cdef enum:
    STACK_ITEMS = 64


cdef class HalState:
    """What the C entries of one ``HalModule`` share: the module (for Python fallbacks)."""
    cdef object module

    def __init__(self, module):
        self.module = module


cdef object _typed(ImportCall* c, Py_ssize_t k, type cls, str what):
    value = ref_arg(c, k)
    if isinstance(value, cls):
        return value
    raise InvalidArgumentError(f"hal.{what}: expected a {cls.__name__}, got "
                               f"{'null' if value is None else type(value).__name__}")


cdef Fence _fence(ImportCall* c, Py_ssize_t k, str what):
    value = ref_arg(c, k)
    if value is None or isinstance(value, Fence):
        return value
    raise InvalidArgumentError(f"hal.{what}: expected a Fence, got {type(value).__name__}")


cdef LocalDeviceCore _direct(ImportCall* c, Py_ssize_t k):
    """The local device argument ``k`` whose queue operations run in C, or None."""
    value = ref_arg(c, k)
    if isinstance(value, LocalDeviceCore) and (<LocalDeviceCore>value).direct_queue:
        return value
    return None


cdef tuple _shape(ImportCall* c, Py_ssize_t first, Py_ssize_t rank):
    cdef tuple shape = PyTuple_New(rank)
    cdef Py_ssize_t k
    cdef object d
    for k in range(rank):
        d = int_arg(c, first + k)
        Py_INCREF(d)
        PyTuple_SET_ITEM(shape, k, d)
    return shape


# -- buffers and views ---------------------------------------------------------------------------

cdef int buffer_view_buffer(object state, ImportCall* c) except -1:
    return set_ref(c, 0, (<BufferView>_typed(c, BUFFER_VIEW_BUFFER__VIEW, BufferView, "buffer_view.buffer")).buffer)


cdef int buffer_view_create(object state, ImportCall* c) except -1:
    cdef Buffer b = _typed(c, BUFFER_VIEW_CREATE__BUFFER, Buffer, "buffer_view.create")
    cdef int64_t offset = int_arg(c, BUFFER_VIEW_CREATE__OFFSET)
    cdef int64_t length = int_arg(c, BUFFER_VIEW_CREATE__LENGTH)
    cdef int64_t element_type = int_arg(c, BUFFER_VIEW_CREATE__ELEMENT_TYPE)
    cdef int64_t encoding_type = int_arg(c, BUFFER_VIEW_CREATE__ENCODING_TYPE)
    cdef tuple shape = _shape(c, BUFFER_VIEW_CREATE__SHAPE, c.spans[BUFFER_VIEW_CREATE__SHAPE__SPAN])
    cdef Buffer span
    for d in shape:
        if d < 0:
            return set_ref(c, 0, (<HalState>state).module.buffer_view_create(
                b, offset, length, element_type, encoding_type, list(shape)))
    if offset < 0 or length < 0:
        return set_ref(c, 0, (<HalState>state).module.buffer_view_create(
            b, offset, length, element_type, encoding_type, list(shape)))
    if <uint64_t>offset > b.byte_length or <uint64_t>length > b.byte_length - <uint64_t>offset:
        range_check(b, offset, length, f"subspan of {describe(b)}", "range")
    if offset == 0 and <uint64_t>length == b.byte_length:
        return set_ref(c, 0, new_view(b, shape, <uint32_t>element_type, <int32_t>encoding_type))
    span = new_buffer(b.allocation, b.byte_offset + offset, length, b.memory_type_bits, b.usage_bits)
    span.encoding = b.encoding
    return set_ref(c, 0, new_view(span, shape, <uint32_t>element_type, <int32_t>encoding_type))


cdef int buffer_view_dim(object state, ImportCall* c) except -1:
    cdef BufferView v = _typed(c, BUFFER_VIEW_DIM__VIEW, BufferView, "buffer_view.dim")
    cdef int64_t index = int_arg(c, BUFFER_VIEW_DIM__INDEX)
    if not 0 <= index < len(v.shape):
        v.dim(index)
    set_i64(c, 0, v.shape[index])
    return 0


cdef int buffer_view_rank(object state, ImportCall* c) except -1:
    set_i32(c, 0, len((<BufferView>_typed(c, BUFFER_VIEW_RANK__VIEW, BufferView, "buffer_view.rank")).shape))
    return 0


cdef int buffer_view_element_type(object state, ImportCall* c) except -1:
    set_i32(c, 0, <int32_t>(<BufferView>_typed(c, BUFFER_VIEW_ELEMENT_TYPE__VIEW, BufferView, "buffer_view.element_type")).element_type_code)
    return 0


cdef int buffer_view_encoding_type(object state, ImportCall* c) except -1:
    set_i32(c, 0, (<BufferView>_typed(c, BUFFER_VIEW_ENCODING_TYPE__VIEW, BufferView, "buffer_view.encoding_type")).encoding_type)
    return 0


cdef int buffer_view_assert(object state, ImportCall* c) except -1:
    cdef Py_ssize_t k, rank = c.spans[BUFFER_VIEW_ASSERT__SHAPE__SPAN]
    cdef int64_t element_type = int_arg(c, BUFFER_VIEW_ASSERT__ELEMENT_TYPE)
    cdef int64_t encoding_type = int_arg(c, BUFFER_VIEW_ASSERT__ENCODING_TYPE)
    view = ref_arg(c, BUFFER_VIEW_ASSERT__VIEW)
    if isinstance(view, BufferView):
        v = <BufferView>view
        if (v.element_type_code == <uint32_t>element_type and v.encoding_type == <int32_t>encoding_type
                and len(v.shape) == rank):
            for k in range(rank):
                if v.shape[k] != int_arg(c, BUFFER_VIEW_ASSERT__SHAPE + k):
                    break
            else:
                return 0
    (<HalState>state).module.buffer_view_assert(
        view, ref_arg(c, BUFFER_VIEW_ASSERT__MESSAGE), element_type, encoding_type,
        [int_arg(c, BUFFER_VIEW_ASSERT__SHAPE + k) for k in range(rank)])
    return 0


cdef int buffer_length(object state, ImportCall* c) except -1:
    set_i64(c, 0, (<Buffer>_typed(c, BUFFER_LENGTH__BUFFER, Buffer, "buffer.length")).byte_length)
    return 0


cdef int device_allocator(object state, ImportCall* c) except -1:
    device = ref_arg(c, DEVICE_ALLOCATOR__DEVICE)
    if isinstance(device, LocalDeviceCore):
        return set_ref(c, 0, (<LocalDeviceCore>device).allocator)
    return set_ref(c, 0, (<HalState>state).module.device_allocator(device))


cdef int allocator_allocate(object state, ImportCall* c) except -1:
    allocator = ref_arg(c, ALLOCATOR_ALLOCATE__ALLOCATOR)
    cdef int64_t size = int_arg(c, ALLOCATOR_ALLOCATE__SIZE)
    cdef int64_t memory_types = int_arg(c, ALLOCATOR_ALLOCATE__MEMORY_TYPES)
    cdef int64_t usage = int_arg(c, ALLOCATOR_ALLOCATE__USAGE)
    if type(allocator) is HeapAllocator and size >= 0:
        return set_ref(c, 0, (<HeapAllocator>allocator).allocate(
            size, <uint32_t>memory_types, <uint32_t>usage))
    return set_ref(c, 0, (<HalState>state).module.allocator_allocate(
        allocator, int_arg(c, ALLOCATOR_ALLOCATE__AFFINITY), memory_types, usage, size))


# -- command buffers ---------------------------------------------------------------------------

cdef int command_buffer_create(object state, ImportCall* c) except -1:
    cdef LocalDeviceCore device = _direct(c, COMMAND_BUFFER_CREATE__DEVICE)
    cdef CommandBuffer cb
    cdef int64_t modes = int_arg(c, COMMAND_BUFFER_CREATE__MODES)
    cdef int64_t categories = int_arg(c, COMMAND_BUFFER_CREATE__CATEGORIES)
    cdef int64_t capacity = int_arg(c, COMMAND_BUFFER_CREATE__BINDING_CAPACITY)
    if device is None:
        return set_ref(c, 0, (<HalState>state).module.command_buffer_create(
            ref_arg(c, COMMAND_BUFFER_CREATE__DEVICE), modes, categories,
            int_arg(c, COMMAND_BUFFER_CREATE__AFFINITY), capacity))
    cb = CommandBuffer(device, modes, categories, capacity)
    cb.begin_c()
    return set_ref(c, 0, cb)


cdef int command_buffer_finalize(object state, ImportCall* c) except -1:
    return (<CommandBuffer>_typed(c, COMMAND_BUFFER_FINALIZE__CB, CommandBuffer, "command_buffer.finalize")).finalize_c()


cdef int command_buffer_execution_barrier(object state, ImportCall* c) except -1:
    return (<CommandBuffer>_typed(c, COMMAND_BUFFER_EXECUTION_BARRIER__CB, CommandBuffer,
                                    "command_buffer.execution_barrier")).barrier_c()


cdef int command_buffer_fill_buffer(object state, ImportCall* c) except -1:
    cdef CommandBuffer cb = _typed(c, COMMAND_BUFFER_FILL_BUFFER__CB, CommandBuffer,
                                   "command_buffer.fill_buffer")
    return cb.fill_c(ref_arg(c, COMMAND_BUFFER_FILL_BUFFER__TARGET),
                     int_arg(c, COMMAND_BUFFER_FILL_BUFFER__SLOT),
                     int_arg(c, COMMAND_BUFFER_FILL_BUFFER__OFFSET),
                     int_arg(c, COMMAND_BUFFER_FILL_BUFFER__LENGTH),
                     int_arg(c, COMMAND_BUFFER_FILL_BUFFER__PATTERN) & 0xFFFFFFFF,
                     int_arg(c, COMMAND_BUFFER_FILL_BUFFER__PATTERN_LENGTH))


cdef int command_buffer_copy_buffer(object state, ImportCall* c) except -1:
    cdef CommandBuffer cb = _typed(c, COMMAND_BUFFER_COPY_BUFFER__CB, CommandBuffer,
                                   "command_buffer.copy_buffer")
    return cb.copy_c(ref_arg(c, COMMAND_BUFFER_COPY_BUFFER__SOURCE),
                     int_arg(c, COMMAND_BUFFER_COPY_BUFFER__SOURCE_SLOT),
                     int_arg(c, COMMAND_BUFFER_COPY_BUFFER__SOURCE_OFFSET),
                     ref_arg(c, COMMAND_BUFFER_COPY_BUFFER__TARGET),
                     int_arg(c, COMMAND_BUFFER_COPY_BUFFER__TARGET_SLOT),
                     int_arg(c, COMMAND_BUFFER_COPY_BUFFER__TARGET_OFFSET),
                     int_arg(c, COMMAND_BUFFER_COPY_BUFFER__LENGTH))


cdef int command_buffer_dispatch(object state, ImportCall* c) except -1:
    """(cb, executable, ordinal, x, y, z, flags, constants..., (reserved, slot, buffer,
    offset, length)...)."""
    cdef CommandBuffer cb = _typed(c, COMMAND_BUFFER_DISPATCH__CB, CommandBuffer, "command_buffer.dispatch")
    cdef Py_ssize_t k, at
    cdef Py_ssize_t nc = c.spans[COMMAND_BUFFER_DISPATCH__CONSTANTS__SPAN]
    cdef Py_ssize_t nb = c.spans[COMMAND_BUFFER_DISPATCH__BINDINGS__SPAN]
    cdef Py_ssize_t first_binding = COMMAND_BUFFER_DISPATCH__CONSTANTS + nc + COMMAND_BUFFER_DISPATCH__BINDINGS
    cdef int64_t constants[STACK_ITEMS]
    cdef BindingArg bindings[STACK_ITEMS]
    cdef list keep
    if nc > STACK_ITEMS or nb > STACK_ITEMS:
        raise InvalidArgumentError(f"hal.command_buffer.dispatch: {nc} push constants and {nb} "
                                   f"bindings; at most {STACK_ITEMS} of each are supported")
    for k in range(nc):
        constants[k] = int_arg(c, COMMAND_BUFFER_DISPATCH__CONSTANTS + k)
    keep = [None] * nb
    for k in range(nb):
        at = first_binding + COMMAND_BUFFER_DISPATCH__BINDINGS__STRIDE * k
        buffer = ref_arg(c, at + COMMAND_BUFFER_DISPATCH__BINDINGS__BUFFER)
        keep[k] = buffer
        bindings[k].buffer = NULL if buffer is None else <void*>buffer
        bindings[k].slot = int_arg(c, at + COMMAND_BUFFER_DISPATCH__BINDINGS__SLOT)
        bindings[k].offset = int_arg(c, at + COMMAND_BUFFER_DISPATCH__BINDINGS__OFFSET)
        bindings[k].length = int_arg(c, at + COMMAND_BUFFER_DISPATCH__BINDINGS__LENGTH)
    return cb.dispatch_c(ref_arg(c, COMMAND_BUFFER_DISPATCH__EXECUTABLE),
                         int_arg(c, COMMAND_BUFFER_DISPATCH__ORDINAL),
                         int_arg(c, COMMAND_BUFFER_DISPATCH__X), int_arg(c, COMMAND_BUFFER_DISPATCH__Y),
                         int_arg(c, COMMAND_BUFFER_DISPATCH__Z), constants, nc, bindings, nb)


cdef int command_buffer_collective(object state, ImportCall* c) except -1:
    """(cb, channel, op, param, send_slot, recv_slot, send, recv, send_offset, send_length,
    recv_offset, recv_length, element_count); a null send/recv buffer names its binding-table
    slot."""
    cdef CommandBuffer cb = _typed(c, COMMAND_BUFFER_COLLECTIVE__CB, CommandBuffer,
                                   "command_buffer.collective")
    return cb.collective_c(ref_arg(c, COMMAND_BUFFER_COLLECTIVE__CHANNEL),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__OP) & 0xFFFFFFFF,
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__PARAM) & 0xFFFFFFFF,
                           ref_arg(c, COMMAND_BUFFER_COLLECTIVE__SEND),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__SEND_SLOT),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__SEND_OFFSET),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__SEND_LENGTH),
                           ref_arg(c, COMMAND_BUFFER_COLLECTIVE__RECV),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__RECV_SLOT),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__RECV_OFFSET),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__RECV_LENGTH),
                           int_arg(c, COMMAND_BUFFER_COLLECTIVE__ELEMENT_COUNT))


# -- queue operations ----------------------------------------------------------------------------

cdef int device_queue_alloca(object state, ImportCall* c) except -1:
    cdef LocalDeviceCore device = _direct(c, DEVICE_QUEUE_ALLOCA__DEVICE)
    cdef int64_t size = int_arg(c, DEVICE_QUEUE_ALLOCA__SIZE)
    cdef int64_t memory_types = int_arg(c, DEVICE_QUEUE_ALLOCA__MEMORY_TYPES)
    cdef int64_t usage = int_arg(c, DEVICE_QUEUE_ALLOCA__USAGE)
    if device is None or size < 0:
        return set_ref(c, 0, (<HalState>state).module.device_queue_alloca(
            ref_arg(c, DEVICE_QUEUE_ALLOCA__DEVICE), int_arg(c, DEVICE_QUEUE_ALLOCA__AFFINITY),
            ref_arg(c, DEVICE_QUEUE_ALLOCA__WAIT), ref_arg(c, DEVICE_QUEUE_ALLOCA__SIGNAL),
            int_arg(c, DEVICE_QUEUE_ALLOCA__POOL), memory_types, usage, size,
            int_arg(c, DEVICE_QUEUE_ALLOCA__FLAGS)))
    return set_ref(c, 0, device.alloca_c(
        _fence(c, DEVICE_QUEUE_ALLOCA__WAIT, "device.queue.alloca wait fence"),
        _fence(c, DEVICE_QUEUE_ALLOCA__SIGNAL, "device.queue.alloca signal fence"), size,
        <uint32_t>memory_types, <uint32_t>usage))


cdef int device_queue_dealloca(object state, ImportCall* c) except -1:
    cdef LocalDeviceCore device = _direct(c, DEVICE_QUEUE_DEALLOCA__DEVICE)
    if device is None:
        (<HalState>state).module.device_queue_dealloca(
            ref_arg(c, DEVICE_QUEUE_DEALLOCA__DEVICE), int_arg(c, DEVICE_QUEUE_DEALLOCA__AFFINITY),
            ref_arg(c, DEVICE_QUEUE_DEALLOCA__WAIT), ref_arg(c, DEVICE_QUEUE_DEALLOCA__SIGNAL),
            ref_arg(c, DEVICE_QUEUE_DEALLOCA__BUFFER), int_arg(c, DEVICE_QUEUE_DEALLOCA__FLAGS))
        return 0
    device.dealloca_c(_fence(c, DEVICE_QUEUE_DEALLOCA__WAIT, "device.queue.dealloca wait fence"),
                      _fence(c, DEVICE_QUEUE_DEALLOCA__SIGNAL, "device.queue.dealloca signal fence"),
                      ref_arg(c, DEVICE_QUEUE_DEALLOCA__BUFFER))
    return 0


cdef BindingTable _table(LocalDeviceCore device, CommandBuffer cb, ImportCall* c, Py_ssize_t first,
                         Py_ssize_t count):
    cdef Py_ssize_t k, at
    cdef BindingTable table = BindingTable([
        ref_arg(c, first + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__STRIDE * k
                + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__BUFFER) for k in range(count)])
    cdef int64_t offset, length
    for k in range(count):
        at = first + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__STRIDE * k
        offset = int_arg(c, at + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__OFFSET)
        length = int_arg(c, at + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__LENGTH)
        if offset < 0 or length < 0:
            raise InvalidArgumentError(
                f"hal.device.queue.execute.indirect: binding-table entry {k} has offset {offset} "
                f"and length {length}; expected both >= 0")
        table.offsets[k], table.lengths[k] = offset, length
    cb.check_table_c(device.site_c(), "queue_execute", table.buffers, table.offsets, table.lengths,
                     count)
    return table


# device.queue.execute and .indirect share their leading arguments (tests/hal/test_hal_imports.py).
cdef int _execute(object state, ImportCall* c, bint indirect) except -1:
    cdef LocalDeviceCore device = _direct(c, DEVICE_QUEUE_EXECUTE__DEVICE)
    cdef CommandBuffer cb
    cdef BindingTable table = None
    cdef Py_ssize_t first = DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE, k, at
    cdef Py_ssize_t count = c.spans[DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__SPAN] if indirect else 0
    if device is None:
        args = (ref_arg(c, DEVICE_QUEUE_EXECUTE__DEVICE), int_arg(c, DEVICE_QUEUE_EXECUTE__AFFINITY),
                ref_arg(c, DEVICE_QUEUE_EXECUTE__WAIT), ref_arg(c, DEVICE_QUEUE_EXECUTE__SIGNAL),
                ref_arg(c, DEVICE_QUEUE_EXECUTE__CB), int_arg(c, DEVICE_QUEUE_EXECUTE__FLAGS))
        if indirect:
            entries = []
            for k in range(count):
                at = first + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__STRIDE * k
                entries.append((ref_arg(c, at + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__BUFFER),
                                int_arg(c, at + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__OFFSET),
                                int_arg(c, at + DEVICE_QUEUE_EXECUTE_INDIRECT__TABLE__LENGTH)))
            (<HalState>state).module.device_queue_execute_indirect(*args, entries)
        else:
            (<HalState>state).module.device_queue_execute(*args)
        return 0
    device.check_command_buffer(ref_arg(c, DEVICE_QUEUE_EXECUTE__CB), 0)
    cb = <CommandBuffer>ref_arg(c, DEVICE_QUEUE_EXECUTE__CB)
    if indirect:
        table = _table(device, cb, c, first, count)
    elif cb.binding_capacity:
        raise InvalidArgumentError(
            f"hal.device.queue.execute on {device.label}: {cb.label} references "
            f"{cb.binding_capacity} binding-table slots; use device.queue.execute.indirect")
    device.execute_c(_fence(c, DEVICE_QUEUE_EXECUTE__WAIT, "device.queue.execute wait fence"),
                     _fence(c, DEVICE_QUEUE_EXECUTE__SIGNAL, "device.queue.execute signal fence"),
                     (cb,), table)
    return 0


cdef int device_queue_execute(object state, ImportCall* c) except -1:
    return _execute(state, c, False)


cdef int device_queue_execute_indirect(object state, ImportCall* c) except -1:
    return _execute(state, c, True)


# -- fences --------------------------------------------------------------------------------------

cdef int fence_create(object state, ImportCall* c) except -1:
    device = ref_arg(c, FENCE_CREATE__DEVICE)
    if isinstance(device, LocalDeviceCore):
        return set_ref(c, 0, (<LocalDeviceCore>device).fence_c())
    return set_ref(c, 0, (<HalState>state).module.fence_create(device, int_arg(c, FENCE_CREATE__FLAGS)))


cdef int fence_signal(object state, ImportCall* c) except -1:
    return (<Fence>_typed(c, FENCE_SIGNAL__FENCE, Fence, "fence.signal")).signal_c()


cdef Fence _joined(ImportCall* c, Py_ssize_t first, Py_ssize_t count, str what):
    cdef Fence joined, f
    cdef Py_ssize_t k
    if count == 1:
        f = _fence(c, first, what)
        return new_fence() if f is None else f
    joined = new_fence()
    for k in range(count):
        f = _fence(c, first + k, what)
        if f is not None:
            joined.join_c(f)
    return joined


cdef int fence_join(object state, ImportCall* c) except -1:
    return set_ref(c, 0, _joined(c, FENCE_JOIN__FENCES, c.spans[FENCE_JOIN__FENCES__SPAN], "fence.join"))


cdef int fence_await(object state, ImportCall* c) except -1:
    """(timeout_ms, flags, fences...) -> 0, or DEADLINE_EXCEEDED when the timeout passed."""
    cdef uint32_t timeout_ms = <uint32_t>int_arg(c, FENCE_AWAIT__TIMEOUT_MS)
    cdef Py_ssize_t count = c.spans[FENCE_AWAIT__FENCES__SPAN]
    cdef Fence joined
    cdef int timed_out
    if (<HalState>state).module.trace_sink is not None:
        set_i32(c, 0, (<HalState>state).module.fence_await(
            int_arg(c, FENCE_AWAIT__TIMEOUT_MS), int_arg(c, FENCE_AWAIT__FLAGS),
            [ref_arg(c, FENCE_AWAIT__FENCES + k) for k in range(count)]))
        return 0
    joined = _joined(c, FENCE_AWAIT__FENCES, count, "fence.await")
    if joined.reached_c():
        set_i32(c, 0, 0)
        return 0
    timed_out = joined.wait_c(None if timeout_ms == _INFINITE_MS else timeout_ms / 1000.0, True)
    set_i32(c, 0, _DEADLINE_EXCEEDED if timed_out else 0)
    return 0


def native_functions(module):
    """{import name: NativeFunction} of the C entries of HalModule ``module``."""
    cdef HalState state = HalState(module)
    cdef list entries = [
        native_function("buffer_view.buffer", buffer_view_buffer, state),
        native_function("buffer_view.create", buffer_view_create, state),
        native_function("buffer_view.dim", buffer_view_dim, state),
        native_function("buffer_view.rank", buffer_view_rank, state),
        native_function("buffer_view.element_type", buffer_view_element_type, state),
        native_function("buffer_view.encoding_type", buffer_view_encoding_type, state),
        native_function("buffer_view.assert", buffer_view_assert, state),
        native_function("buffer.length", buffer_length, state),
        native_function("device.allocator", device_allocator, state),
        native_function("allocator.allocate", allocator_allocate, state),
        native_function("command_buffer.create", command_buffer_create, state),
        native_function("command_buffer.finalize", command_buffer_finalize, state),
        native_function("command_buffer.execution_barrier", command_buffer_execution_barrier, state),
        native_function("command_buffer.fill_buffer", command_buffer_fill_buffer, state),
        native_function("command_buffer.copy_buffer", command_buffer_copy_buffer, state),
        native_function("command_buffer.dispatch", command_buffer_dispatch, state),
        native_function("command_buffer.collective", command_buffer_collective, state),
        native_function("device.queue.alloca", device_queue_alloca, state),
        native_function("device.queue.dealloca", device_queue_dealloca, state),
        native_function("device.queue.execute", device_queue_execute, state),
        native_function("device.queue.execute.indirect", device_queue_execute_indirect, state),
        native_function("fence.create", fence_create, state),
        native_function("fence.signal", fence_signal, state),
        native_function("fence.join", fence_join, state),
        native_function("fence.await", fence_await, state),
    ]
    return {(<NativeFunction>f).name: f for f in entries}
