"""Python views of recorded commands (``CommandBuffer.commands``).

The records are defined once, as C structs in ``_commands.pxd`` (what recording writes and
replay reads); these immutable records show one record each, with the command buffer's
indices resolved into objects: a buffer reference is ``BufferRef(buffer, slot, offset,
length)`` — ``buffer`` None means binding-table slot ``slot`` (IREE's ``iree_hal_buffer_ref_t``)
— and pools become tuples. ``BufferRef`` is also how Python code passes an indirect binding to
``CommandBuffer.dispatch`` / ``fill_buffer`` / ``copy_buffer`` / ``update_buffer``.

The records are ``rt.runtime.record.Record`` classes (they behave as frozen dataclasses, which
cost a run's start ~3 ms to declare); each spells out its ``__init__``, as some are built for
every dispatch.
"""
from rt.runtime.hal.collective import CollectiveOp
from rt.runtime.record import Record

_set = object.__setattr__


class BufferRef(Record):
    """A buffer range, or (``buffer`` None) a range of binding-table slot ``slot``.

    offset / length: bytes; length None means to the end of the buffer (direct refs only).
    """

    __slots__ = ("buffer", "slot", "offset", "length")

    def __init__(self, buffer=None, slot=0, offset=0, length=None):
        _set(self, "buffer", buffer)
        _set(self, "slot", slot)
        _set(self, "offset", offset)
        _set(self, "length", length)


class FillCommand(Record):
    """Fill ``target`` (a BufferRef) with the ``pattern_length``-byte ``pattern``."""

    kind = "fill_buffer"
    __slots__ = ("target", "pattern", "pattern_length")

    def __init__(self, target, pattern, pattern_length):
        _set(self, "target", target)
        _set(self, "pattern", pattern)
        _set(self, "pattern_length", pattern_length)


class CopyCommand(Record):
    """Copy ``source`` to ``target`` (BufferRefs of the same length)."""

    kind = "copy_buffer"
    __slots__ = ("source", "target")

    def __init__(self, source, target):
        _set(self, "source", source)
        _set(self, "target", target)


class UpdateCommand(Record):
    """Write the host bytes ``source`` into ``target`` (a BufferRef)."""

    kind = "update_buffer"
    __slots__ = ("source", "target")

    def __init__(self, source, target):
        _set(self, "source", source)
        _set(self, "target", target)


class DispatchCommand(Record):
    """Run export ``ordinal`` of ``executable`` over ``workgroup_count`` (x, y, z) with the
    push ``constants`` (tuple of int) and ``bindings`` (tuple of BufferRef)."""

    kind = "dispatch"
    __slots__ = ("executable", "ordinal", "workgroup_count", "constants", "bindings")

    def __init__(self, executable, ordinal, workgroup_count, constants, bindings):
        _set(self, "executable", executable)
        _set(self, "ordinal", ordinal)
        _set(self, "workgroup_count", workgroup_count)
        _set(self, "constants", constants)
        _set(self, "bindings", bindings)


class BarrierCommand(Record):
    """An execution barrier: later commands see the effects of earlier ones."""

    kind = "execution_barrier"
    __slots__ = ()


class CollectiveCommand(Record):
    """``iree_hal_command_buffer_collective``: ``op`` is the packed ``iree_hal_collective_op_t``
    (``rt.runtime.hal.collective.CollectiveOp.unpack``), ``channel`` a ``Channel``."""

    kind = "collective"
    __slots__ = ("channel", "op", "param", "send", "recv", "element_count")

    def __init__(self, channel, op, param, send, recv, element_count):
        _set(self, "channel", channel)
        _set(self, "op", op)
        _set(self, "param", param)
        _set(self, "send", send)
        _set(self, "recv", recv)
        _set(self, "element_count", element_count)


def operand(value):
    """(buffer or None, slot, base offset) of a transfer command's buffer argument: a Buffer,
    or a BufferRef whose offset the command's own offset is relative to."""
    if isinstance(value, BufferRef):
        return value.buffer, value.slot, value.offset
    return value, 0, 0


def binding(value):
    """(buffer or None, slot, offset, length or None) of a dispatch binding given from Python
    (Buffer, BufferView, (buffer, offset, length) or BufferRef); None for any other form."""
    from rt.runtime.hal._buffer import Buffer
    from rt.runtime.hal._buffer_view import BufferView

    if isinstance(value, BufferView):
        value = value.buffer
    if isinstance(value, Buffer):
        return value, 0, 0, value.byte_length
    if isinstance(value, BufferRef):
        return value.buffer, value.slot, value.offset, value.length
    if isinstance(value, (tuple, list)) and len(value) == 3:
        return value[0], 0, value[1], value[2]
    return None


def command_text(record):
    """A short text for a command record, as traces show it."""
    if record.kind == "dispatch":
        x, y, z = record.workgroup_count
        return f"dispatch {record.executable.exports[record.ordinal].name}[{x},{y},{z}]"
    if record.kind in ("fill_buffer", "update_buffer", "copy_buffer"):
        return f"{record.kind} {record.target.length} B"
    if record.kind == "collective":
        return f"collective {CollectiveOp.unpack(record.op).describe()} x{record.element_count}"
    return record.kind


def zone(index, record):
    """(name, args) of the trace zone of command ``index`` (a record); a dispatch's args carry
    its ``flops`` when the compiler estimated them (``Executable.costs``)."""
    if record.kind == "dispatch":
        args = {"command": index, "executable": record.executable.name, "ordinal": record.ordinal,
                "workgroups": list(record.workgroup_count), "bindings": [b.length for b in record.bindings]}
        cost = record.executable.costs.get(record.ordinal)
        if cost is not None:
            args["flops"] = cost["flops"]
        return record.executable.exports[record.ordinal].name, args
    if record.kind == "fill_buffer":
        return record.kind, {"command": index, "bytes": record.target.length,
                             "pattern": f"0x{record.pattern:0{2 * record.pattern_length}x}"}
    if record.kind in ("copy_buffer", "update_buffer"):
        return record.kind, {"command": index, "bytes": record.target.length}
    if record.kind == "collective":
        return record.kind, {"command": index, "op": CollectiveOp.unpack(record.op).describe(),
                             "count": record.element_count, "rank": record.channel.rank,
                             "ranks": record.channel.count}
    return record.kind, {"command": index}
