"""Python views of recorded commands (``CommandBuffer.commands``).

The records are defined once, as C structs in ``_commands.pxd`` (what recording writes and
replay reads); these frozen dataclasses show one record each, with the command buffer's
indices resolved into objects: a buffer reference is ``BufferRef(buffer, slot, offset,
length)`` — ``buffer`` None means binding-table slot ``slot`` (IREE's ``iree_hal_buffer_ref_t``)
— and pools become tuples. ``BufferRef`` is also how Python code passes an indirect binding to
``CommandBuffer.dispatch`` / ``fill_buffer`` / ``copy_buffer`` / ``update_buffer``.
"""
from dataclasses import dataclass

from rt.runtime.hal.collective import CollectiveOp


@dataclass(frozen=True)
class BufferRef:
    """A buffer range, or (``buffer`` None) a range of binding-table slot ``slot``.

    offset / length: bytes; length None means to the end of the buffer (direct refs only).
    """

    buffer: object = None
    slot: int = 0
    offset: int = 0
    length: int = None


@dataclass(frozen=True)
class FillCommand:
    kind = "fill_buffer"
    target: BufferRef
    pattern: int
    pattern_length: int


@dataclass(frozen=True)
class CopyCommand:
    kind = "copy_buffer"
    source: BufferRef
    target: BufferRef


@dataclass(frozen=True)
class UpdateCommand:
    kind = "update_buffer"
    source: bytes
    target: BufferRef


@dataclass(frozen=True)
class DispatchCommand:
    kind = "dispatch"
    executable: object
    ordinal: int
    workgroup_count: tuple
    constants: tuple
    bindings: tuple


@dataclass(frozen=True)
class BarrierCommand:
    kind = "execution_barrier"


@dataclass(frozen=True)
class CollectiveCommand:
    """``iree_hal_command_buffer_collective``: ``op`` is the packed ``iree_hal_collective_op_t``
    (``rt.runtime.hal.collective.CollectiveOp.unpack``), ``channel`` a ``Channel``."""

    kind = "collective"
    channel: object
    op: int
    param: int
    send: BufferRef
    recv: BufferRef
    element_count: int


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
