# cython: language_level=3
"""The validation rules of commands and queue operations, in one place.

After IREE's runtime/src/iree/hal/command_buffer_validation.c: every path that takes a
command — recording into a command buffer (from Python or from the ``hal`` VM module's C
entries), the queue operations (``queue_fill``/``copy``/``update`` and binding tables given to
``queue_execute``) and the device libraries' Python dispatch — checks it with these functions,
so a rule is written once and its error reads the same everywhere. Each error names where the
check ran (``Site.where``: ``command_buffer.dispatch (command 3) of <cb>`` or
``queue_copy on <device>``), what was wrong and what would be right.

Cross-device rules (docs/ARCHITECTURE.md §6): devices own separate heaps. A dispatch binding, a fill
target and an update target must live on the site's device; a copy is the transfer command:
one of its buffers must be the device's, the other may belong to any device the device can
transfer with (``Device.can_transfer_with``, a shared transfer domain). A dispatch binding
tagged with an encoding (``Buffer.encoding``) must carry the encoding the export expects for
it (``Executable.binding_encodings``), if the export declares one.
"""
from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int64_t, uint32_t, uint64_t, uintptr_t

import numpy as np

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.channel import Channel
from rt.runtime.hal.collective import CollectiveOp
from rt.runtime.hal._buffer cimport ALLOCATION_RELEASED, Buffer, describe, range_check, size_arg
from rt.runtime.hal._buffer import BufferUsage
from rt.runtime.hal._executable cimport Executable

cdef int64_t _U32_MAX = 0xFFFFFFFF
# Usage bits a binding-table entry needs one of, per kind of use of its slot.
_USAGE_GROUPS = (int(BufferUsage.TRANSFER_SOURCE), int(BufferUsage.TRANSFER_TARGET),
                 int(BufferUsage.DISPATCH_STORAGE))
cdef int64_t _I32_MIN = -0x80000000
cdef int64_t _I64_MAX = 0x7FFFFFFFFFFFFFFF


cdef extern from "Python.h":
    long long PyLong_AsLongLongAndOverflow(object obj, int* overflow) except? -1


cdef class Site:
    """Where checks run: ``device`` (the one the command or operation targets), its heap and
    its minimum binding offset alignment; ``where(kind)`` names the site in errors."""

    def __init__(self, device):
        self.device = device
        self.allocator = device.allocator
        self.alignment = device.limits.min_buffer_offset_alignment

    cdef str where(self, str kind):
        return f"{kind} on {self.device.label}"


cdef class QueueSite(Site):
    """A queue operation of ``device`` (``queue_copy on local-task://vmvx#0``)."""


cdef QueueSite queue_site(object device):
    return QueueSite(device)


cdef Buffer buffer_arg(Site site, str kind, object buffer, str role, uint32_t usage, bint transfer):
    """``buffer`` as a Buffer the site may use: not released, reachable (its own device, or
    one sharing a transfer domain when ``transfer``), allocated with one of ``usage``'s bits."""
    cdef Buffer b
    if not isinstance(buffer, Buffer):
        raise InvalidArgumentError(f"{site.where(kind)}: {role} must be a Buffer, got {buffer!r}")
    b = <Buffer>buffer
    if b.allocation.state == ALLOCATION_RELEASED:
        raise InvalidArgumentError(f"{site.where(kind)}: {role} {describe(b)} is {b.state.value}")
    if b.allocator is not site.allocator:
        owner = b.allocator.device
        if owner is not site.device and not (transfer and site.device.can_transfer_with(owner)):
            how = ("no transfer path connects the two devices" if transfer else
                   "devices own separate heaps; transfer it with queue_copy first")
            raise InvalidArgumentError(
                f"{site.where(kind)}: {role} {describe(b)} lives on {owner.label}, which "
                f"{site.device.label} cannot reach: {how}")
    if not b.usage_bits & usage:
        raise InvalidArgumentError(
            f"{site.where(kind)}: {role} {describe(b)} was allocated with usage "
            f"{b.allowed_usage!r}, which lacks {BufferUsage(usage)!r}")
    return b


cdef int64_t size_value(Site site, str kind, object value, str what) except? -1:
    """A Python byte size/offset in [0, 2**63) (``check_size``'s rules; where built on error)."""
    if type(value) is int and 0 <= value <= 0x7FFFFFFFFFFFFFFF:
        return value
    return size_arg(value, what, site.where(kind))


cdef int check_range(Site site, str kind, Buffer buffer, uint64_t offset, uint64_t length,
                     str what) except -1:
    """``[offset, offset + length)`` inside ``buffer``."""
    if offset > buffer.byte_length or length > buffer.byte_length - offset:
        range_check(buffer, offset, length, site.where(kind), what)
    return 0


cdef int check_fill(Site site, str kind, uint64_t offset, uint64_t length,
                    uint32_t pattern_length) except -1:
    """A fill pattern of 1, 2 or 4 bytes; offset and length multiples of it."""
    if pattern_length != 1 and pattern_length != 2 and pattern_length != 4:
        raise InvalidArgumentError(f"{site.where(kind)}: pattern_length must be 1, 2 or 4 bytes, "
                                   f"got {pattern_length!r}")
    if offset % pattern_length or length % pattern_length:
        raise InvalidArgumentError(
            f"{site.where(kind)}: target offset {offset} and length {length} must be multiples of "
            f"the {pattern_length}-byte pattern")
    return 0


cdef int check_copy(Site site, str kind, Buffer source, uint64_t source_offset, Buffer target,
                    uint64_t target_offset, uint64_t length) except -1:
    """One side on the site's device; both ranges inside their buffers; no overlap."""
    cdef uint64_t a, b
    if source.allocator is not site.allocator and target.allocator is not site.allocator:
        raise InvalidArgumentError(
            f"{site.where(kind)}: neither source {describe(source)} nor target {describe(target)} "
            f"lives on this device; submit the copy on one of theirs")
    check_range(site, kind, source, source_offset, length, "source")
    check_range(site, kind, target, target_offset, length, "target")
    if source.allocation is target.allocation:
        a = source.byte_offset + source_offset
        b = target.byte_offset + target_offset
        if a < b + length and b < a + length:
            raise InvalidArgumentError(
                f"{site.where(kind)}: source [{a}, {a + length}) and target [{b}, {b + length}) "
                "overlap in the same allocation; copy through a temporary buffer")
    return 0


cdef bytes host_source(Site site, str kind, object source, uint64_t source_offset,
                       uint64_t length):
    """``length`` host bytes at ``source_offset`` of bytes-like ``source``, captured (the
    caller may reuse ``source``)."""
    cdef Py_buffer view
    cdef Py_ssize_t n
    try:
        PyObject_GetBuffer(source, &view, PyBUF_SIMPLE)
    except (TypeError, BufferError):
        try:
            view_object = memoryview(source).cast("B")
        except TypeError:
            raise InvalidArgumentError(f"{site.where(kind)}: source must be bytes-like, got "
                                       f"{type(source).__name__}") from None
        PyObject_GetBuffer(view_object.tobytes(), &view, PyBUF_SIMPLE)
    try:
        n = view.len
        if source_offset > <uint64_t>n or length > <uint64_t>n - source_offset:
            raise InvalidArgumentError(
                f"{site.where(kind)}: source range [{source_offset}, {source_offset + length}) "
                f"exceeds the {n}-byte host source")
        return (<char*>view.buf)[source_offset:source_offset + length]
    finally:
        PyBuffer_Release(&view)


cdef int check_executable(Site site, str kind, object executable, int64_t ordinal) except -1:
    """An Executable of the site's device with an export at ``ordinal``."""
    cdef Executable e
    if not isinstance(executable, Executable):
        raise InvalidArgumentError(f"{site.where(kind)}: expected an Executable, got {executable!r}")
    e = <Executable>executable
    if e.device is not site.device:
        raise InvalidArgumentError(
            f"{site.where(kind)}: executable {e.name} was created on {e.device.label}; create it "
            f"on {site.device.label}")
    if ordinal < 0 or ordinal >= e.export_count:
        e.export(ordinal, site.where(kind))
    return 0


cdef int64_t dispatch_int_arg(Site site, str kind, object value, str what) except? -1:
    """``int64_arg`` at the site (the where built only on error): an integer count or push
    constant, whose range ``dispatch_fault`` checks."""
    cdef int overflow = 0
    cdef long long v
    if type(value) is int:
        v = PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow == 0:
            return v
    return int64_arg(site.where(kind), value, what)


cdef int dispatch_fault(int64_t x, int64_t y, int64_t z, const int64_t* constants,
                        Py_ssize_t constant_count, Py_ssize_t want_constants,
                        Py_ssize_t binding_count, Py_ssize_t want_bindings) noexcept nogil:
    """The dispatch rule, without the GIL: 0 when the dispatch is well formed, else the
    ``DISPATCH_*`` fault that ``raise_dispatch_fault`` explains. Workgroup counts in
    [0, 2**32) (IREE's uint32 counts) and fewer than 2**63 workgroups in all (the launcher
    numbers them x-fastest in 64 bits); exactly ``want_constants`` push constants, each in
    [-2**31, 2**32) (IREE stores their uint32 bits; the VM passes them sign-extended);
    exactly ``want_bindings`` bindings. ``constants`` is read only when the counts match."""
    cdef Py_ssize_t i
    cdef uint64_t xy
    if x < 0 or y < 0 or z < 0:
        return DISPATCH_NEGATIVE_COUNT
    if x > _U32_MAX or y > _U32_MAX or z > _U32_MAX:
        return DISPATCH_COUNT_OVER_32_BITS
    xy = <uint64_t>x * <uint64_t>y
    if z != 0 and xy > <uint64_t>_I64_MAX / <uint64_t>z:
        return DISPATCH_TOO_MANY_WORKGROUPS
    if constant_count != want_constants:
        return DISPATCH_CONSTANT_COUNT
    if binding_count != want_bindings:
        return DISPATCH_BINDING_COUNT
    for i in range(constant_count):
        if constants[i] < _I32_MIN or constants[i] > _U32_MAX:
            return DISPATCH_CONSTANT_OVER_32_BITS
    return DISPATCH_OK


cdef int raise_dispatch_fault(int fault, str where, int64_t x, int64_t y, int64_t z,
                              const int64_t* constants, Py_ssize_t constant_count,
                              Py_ssize_t want_constants, Py_ssize_t binding_count,
                              Py_ssize_t want_bindings) except -1:
    """``InvalidArgumentError`` at ``where`` explaining ``fault`` (from ``dispatch_fault``
    with the same arguments)."""
    cdef Py_ssize_t i
    if fault == DISPATCH_NEGATIVE_COUNT:
        raise InvalidArgumentError(f"{where}: workgroup count {(x, y, z)} has a negative entry")
    if fault == DISPATCH_COUNT_OVER_32_BITS:
        c = x if x > _U32_MAX else (y if y > _U32_MAX else z)
        raise InvalidArgumentError(f"{where}: workgroup count {c} does not fit in 32 bits")
    if fault == DISPATCH_TOO_MANY_WORKGROUPS:
        raise InvalidArgumentError(f"{where}: workgroup count {(x, y, z)} has 2**63 or more "
                                   "workgroups; split the dispatch")
    if fault == DISPATCH_CONSTANT_COUNT:
        raise InvalidArgumentError(f"{where}: {constant_count} push constants given, the export "
                                   f"takes {want_constants}")
    if fault == DISPATCH_BINDING_COUNT:
        raise InvalidArgumentError(f"{where}: {binding_count} bindings given, the export takes "
                                   f"{want_bindings}")
    for i in range(constant_count):
        if constants[i] < _I32_MIN or constants[i] > _U32_MAX:
            raise InvalidArgumentError(f"{where}: push constant {i} {constants[i]} does not fit "
                                       "in 32 bits")
    return 0


cdef int check_dispatch(Site site, str kind, Executable executable, uint32_t ordinal,
                        int64_t x, int64_t y, int64_t z, const int64_t* constants,
                        Py_ssize_t constant_count, Py_ssize_t binding_count) except -1:
    """``dispatch_fault``'s rule against export ``ordinal`` of ``executable``; the message
    names the site (built only on error)."""
    cdef int fault = dispatch_fault(x, y, z, constants, constant_count,
                                    executable.constant_counts[ordinal], binding_count,
                                    executable.binding_counts[ordinal])
    if fault != DISPATCH_OK:
        raise_dispatch_fault(fault, site.where(kind), x, y, z, constants, constant_count,
                             executable.constant_counts[ordinal], binding_count,
                             executable.binding_counts[ordinal])
    return 0


cdef int64_t int64_arg(str where, object value, str what) except? -1:
    """A Python or numpy integer (not bool or float) as int64; one beyond int64 is reported
    as not fitting in 32 bits, like every 32-bit dispatch argument."""
    cdef int overflow = 0
    cdef long long v
    if type(value) is not int:
        if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
            raise InvalidArgumentError(f"{where}: {what} must be an integer, got {value!r}")
        value = int(value)
    v = PyLong_AsLongLongAndOverflow(value, &overflow)
    if overflow != 0:
        raise InvalidArgumentError(f"{where}: {what} {value} does not fit in 32 bits")
    return v


def check_library_dispatch(str where, export, workgroup_count, constants, Py_ssize_t binding_count):
    """The dispatch rule for a device library's Python ``dispatch`` (``ExecutableLibrary``):
    ``workgroup_count`` (x, y, z), ``constants`` and ``binding_count`` against ``export`` (an
    ``ExportInfo``). Returns ``((x, y, z), constants)`` as Python ints, the constants as
    their uint32 bits. Raises ``InvalidArgumentError`` at ``where`` with the HAL's message."""
    cdef int64_t xyz[3]
    cdef int64_t* values = NULL
    cdef Py_ssize_t i, nc
    cdef int fault
    counts = tuple(workgroup_count)
    if len(counts) != 3:
        raise InvalidArgumentError(f"{where}: workgroup_count must be (x, y, z), got {counts}")
    for i in range(3):
        xyz[i] = int64_arg(where, counts[i], "workgroup count")
    constants = tuple(constants)
    nc = len(constants)
    values = <int64_t*>PyMem_Malloc(max(nc, 1) * sizeof(int64_t))
    if values == NULL:
        raise MemoryError()
    try:
        for i in range(nc):
            values[i] = int64_arg(where, constants[i], f"push constant {i}")
        fault = dispatch_fault(xyz[0], xyz[1], xyz[2], values, nc, export.constant_count,
                               binding_count, export.binding_count)
        if fault != DISPATCH_OK:
            raise_dispatch_fault(fault, where, xyz[0], xyz[1], xyz[2], values, nc,
                                 export.constant_count, binding_count, export.binding_count)
        return ((xyz[0], xyz[1], xyz[2]),
                tuple(<uint32_t>(values[i] & 0xFFFFFFFF) for i in range(nc)))
    finally:
        PyMem_Free(values)


cdef int check_binding(Site site, str kind, Py_ssize_t index, Buffer buffer, uint64_t offset,
                       uint64_t length, object want_encoding) except -1:
    """Dispatch binding ``index``: inside its buffer, at an aligned offset of the allocation,
    with the encoding the export declares for it (if it declares one and the buffer is
    tagged). ``buffer`` already passed ``buffer_arg``."""
    cdef uint64_t start
    if offset > buffer.byte_length or length > buffer.byte_length - offset:
        range_check(buffer, offset, length, site.where(kind), f"binding {index}")
    start = buffer.byte_offset + offset
    if site.alignment > 1 and start % site.alignment:
        raise InvalidArgumentError(
            f"{site.where(kind)}: binding {index} starts at byte {start} of its allocation, which "
            f"is not a multiple of {site.alignment}")
    if want_encoding is not None and buffer.encoding is not None and buffer.encoding != want_encoding:
        raise InvalidArgumentError(
            f"{site.where(kind)}: binding {index} expects encoding {want_encoding!r} but "
            f"{describe(buffer)} holds encoding {buffer.encoding!r}; pass a tensor laid out with "
            f"{want_encoding!r} (specialize-encodings per device) or re-encode it first")
    return 0


cdef int check_slot(Site site, str kind, str role, int64_t slot, uint64_t offset, uint32_t capacity,
                    bint aligned) except -1:
    """An indirect reference names a slot below the command buffer's binding capacity (and,
    for a dispatch binding, an aligned offset within the slot)."""
    if slot < 0 or slot >= capacity:
        raise InvalidArgumentError(
            f"{site.where(kind)}: {role} uses binding-table slot {slot} but the command buffer "
            f"was created with binding_capacity {capacity}; create it with a larger capacity or "
            "pass the buffer")
    if aligned and site.alignment > 1 and offset % site.alignment:
        raise InvalidArgumentError(
            f"{site.where(kind)}: {role} starts at byte {offset} of binding-table slot {slot}, "
            f"which is not a multiple of {site.alignment}")
    return 0


cdef int check_table_entry(Site site, str kind, str role, Buffer buffer, uint64_t offset,
                           uint64_t length, uint32_t usage, uint64_t end, bint aligned,
                           object want_encoding) except -1:
    """Binding-table entry ``(buffer, offset, length)`` given at submission (``role`` names its
    slot and, when a dispatch binds it, the dispatch and binding): inside its
    buffer, at least ``end`` bytes long (the furthest byte any command reads or writes
    through the slot), with a usage bit of each kind the commands need (transfer source,
    transfer target, dispatch storage) and, when ``aligned`` (a dispatch binds it), an aligned
    offset and the declared encoding. ``buffer`` already passed ``buffer_arg``."""
    cdef uint64_t start
    if offset > buffer.byte_length or length > buffer.byte_length - offset:
        range_check(buffer, offset, length, site.where(kind), role)
    if end > length:
        raise InvalidArgumentError(
            f"{site.where(kind)}: {role} holds {length} bytes of {describe(buffer)} "
            f"but the command buffer uses {end} bytes of it; pass a larger range")
    for group in _USAGE_GROUPS:
        if usage & group and not buffer.usage_bits & group:
            raise InvalidArgumentError(
                f"{site.where(kind)}: {role} {describe(buffer)} was allocated "
                f"with usage {buffer.allowed_usage!r}, which lacks {BufferUsage(group)!r}")
    if aligned:
        start = buffer.byte_offset + offset
        if site.alignment > 1 and start % site.alignment:
            raise InvalidArgumentError(
                f"{site.where(kind)}: {role} starts at byte {start} of its "
                f"allocation, which is not a multiple of {site.alignment}")
        if (want_encoding is not None and buffer.encoding is not None
                and buffer.encoding != want_encoding):
            raise InvalidArgumentError(
                f"{site.where(kind)}: {role} expects encoding {want_encoding!r} "
                f"but {describe(buffer)} holds encoding {buffer.encoding!r}")
    return 0


cdef object check_collective(Site site, str kind, object channel, object op):
    """The ``CollectiveOp`` of a collective command on ``channel`` (``op`` packed or decoded);
    ``InvalidArgumentError`` for a non-channel or an op IREE does not define."""
    if not isinstance(channel, Channel):
        raise InvalidArgumentError(f"{site.where(kind)}: channel must be an "
                                   f"rt.runtime.hal.channel.Channel, got {channel!r}")
    if isinstance(op, CollectiveOp):
        return op
    if type(op) is int:
        decoded = _DECODED_OPS.get(op)
        if decoded is not None:
            return decoded
    decoded = CollectiveOp.unpack(op, site.where(kind))
    if type(op) is int:
        _DECODED_OPS[op] = decoded
    return decoded


# Packed ops already decoded (only valid ones: at most 9 kinds x 6 reductions x 12 types).
# A compiled function records the same few ops on every call; decoding one takes ~3 us.
cdef dict _DECODED_OPS = {}


cdef int check_collective_range(Site site, str kind, str role, uint64_t length, object op,
                                int64_t count, uint64_t need, int64_t ranks) except -1:
    """A send/recv range holds the bytes ``op`` over ``count`` elements and ``ranks`` ranks needs."""
    if length < need:
        raise InvalidArgumentError(
            f"{site.where(kind)}: {role} range of {length} bytes is too small for {op.describe()} "
            f"of {count} elements over {ranks} ranks ({need} bytes)")
    return 0
