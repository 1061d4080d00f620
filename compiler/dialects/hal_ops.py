"""HAL runtime ops: buffer views, command buffers, fences and device queue operations.

IREE prints these as a receiver plus keyword clauses, e.g.
``hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%o]
workgroups([%x, %y, %z]) bindings([...]) flags(None)``. Each op declares its clauses as an op
format (:class:`~rt.compiler.dialects._syntax.OpFormat`) built from:

* ``receiver(field)``          ``<%v : type>``
* ``_typed(kw, field)``        ``kw(%v : type)`` (optionally followed by an index list)
* ``_value(kw, field)``        ``kw(%v)`` with the operand type fixed by the op definition
* ``_list(kw, field)``         ``kw([%a, %b])`` index/i32/fence operands
* ``_enum(kw, field)``         ``kw("A|B")`` or ``kw(None)``: a StringAttr property
Results are printed ``: type`` (``: type{%size}`` for ``queue.alloca``).

The command-buffer dispatch ``bindings`` clause uses IREE's ``(%buffer : !hal.buffer)[%offset,
%length]`` entries. Source followed: IREE ``Dialect/HAL/IR/HALOps.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerType, StringAttr, SymbolRefAttr, i32, i64
from xdsl.irdl import (
    AnyOf,
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import (
    Attr,
    AttrDict,
    Directive,
    Enum,
    FormattedOp,
    Operand,
    Operands,
    OpFormat,
    Opt,
    Sized,
    Str,
    Type,
    Types,
)
from rt.compiler.dialects.hal_types import (
    AllocatorType,
    BufferType,
    BufferViewType,
    CommandBufferType,
    DeviceType,
    ExecutableType,
    FenceType,
    receiver,
)

INDEX = IndexType()
#: A command's buffer operand: a ``!hal.buffer`` or, in a command buffer created with
#: ``bindings(%capacity)``, the ``index`` of a binding-table slot (IREE's indirect bindings).
BUFFER_OR_SLOT = AnyOf.get(BufferType, IndexType)


def _typed(keyword, field, range_=None):
    """`` keyword(%x : type)`` (then ``[%a, %b]`` into operand group ``range_`` when given)."""
    tail = (Operands(range_, "[]"),) if range_ else ()
    return Opt(f" {keyword}(", Operand(field), " : ", Type(field), ")", *tail)


def _value(keyword, field):
    """`` keyword(%x)``: an operand whose type the op definition fixes."""
    return Opt(f" {keyword}(", Operand(field), ")")


def _list(keyword, field, always=True):
    """`` keyword([%a, %b])``: an operand group whose type the op definition fixes (printed even
    when empty unless ``always`` is False)."""
    return Opt(f" {keyword}(", Operands(field, "[]"), ")", always=always)


def _enum(keyword, field):
    """`` keyword(None)`` / `` keyword("A|B")``: a string property."""
    return Opt(f" {keyword}(", Enum(field), ")")


def _result(field="result"):
    """`` : type`` then the attribute dictionary."""
    return " : ", Type(field), AttrDict()


@irdl_op_definition
class BufferViewCreateOp(FormattedOp):
    """``hal.buffer_view.create buffer(%b : !hal.buffer)[%off, %len] shape([..]) type(%t) encoding(%e) : !hal.buffer_view``."""

    name = "hal.buffer_view.create"
    source_buffer = operand_def(BufferType)
    source_range = var_operand_def(INDEX)
    shape = var_operand_def(INDEX)
    element_type = operand_def(i32)
    encoding_type = operand_def(i32)
    result = result_def(BufferViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(_typed("buffer", "source_buffer", "source_range"), _list("shape", "shape"),
                                _value("type", "element_type"), _value("encoding", "encoding_type"), *_result())


@irdl_op_definition
class BufferViewBufferOp(FormattedOp):
    """``hal.buffer_view.buffer<%bv : !hal.buffer_view> : !hal.buffer``."""

    name = "hal.buffer_view.buffer"
    buffer_view = operand_def(BufferViewType)
    result = result_def(BufferType)
    FORMAT: ClassVar = OpFormat(*receiver("buffer_view"), *_result())


@irdl_op_definition
class BufferViewTraceOp(FormattedOp):
    """``hal.buffer_view.trace "key" = %a, %b : !hal.buffer_view, !hal.buffer_view``: print views at run time.

    Calls the ``hal.buffer_view.trace`` import, which hands the key and views to the runtime's
    trace sink (stderr by default). Lowered from ``flow.tensor.trace``.
    """

    name = "hal.buffer_view.trace"
    key = prop_def(StringAttr)
    operands_ = var_operand_def(BufferViewType)
    FORMAT: ClassVar = OpFormat(" ", Str("key"), Opt(" = ", Operands("operands_"), " : ", Types("operands_")),
                                AttrDict(keyword=True))


@irdl_op_definition
class CommandBufferCreateOp(FormattedOp):
    """``hal.command_buffer.create device(%d : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%a) [bindings(%capacity)] : !hal.command_buffer``.

    ``bindings``: how many binding-table slots the commands may name (reusable command buffers
    replayed with per-call buffers, ``hal.device.queue.execute.indirect``)."""

    name = "hal.command_buffer.create"
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    binding_capacity = opt_operand_def(INDEX)
    modes = opt_prop_def(StringAttr)
    command_categories = opt_prop_def(StringAttr)
    result = result_def(CommandBufferType)
    FORMAT: ClassVar = OpFormat(_typed("device", "device"), _enum("mode", "modes"),
                                _enum("categories", "command_categories"), _value("affinity", "queue_affinity"),
                                _value("bindings", "binding_capacity"), *_result())


@irdl_op_definition
class CommandBufferFinalizeOp(FormattedOp):
    """``hal.command_buffer.finalize<%cmd : !hal.command_buffer>``."""

    name = "hal.command_buffer.finalize"
    command_buffer = operand_def(CommandBufferType)
    FORMAT: ClassVar = OpFormat(*receiver("command_buffer"), AttrDict())


@irdl_op_definition
class CommandBufferExecutionBarrierOp(FormattedOp):
    """``hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source(..) target(..) flags(..)``."""

    name = "hal.command_buffer.execution_barrier"
    command_buffer = operand_def(CommandBufferType)
    source_stage_mask = opt_prop_def(StringAttr)
    target_stage_mask = opt_prop_def(StringAttr)
    flags = opt_prop_def(StringAttr)
    FORMAT: ClassVar = OpFormat(*receiver("command_buffer"), _enum("source", "source_stage_mask"),
                                _enum("target", "target_stage_mask"), _enum("flags", "flags"), AttrDict())


@irdl_op_definition
class CommandBufferFillBufferOp(FormattedOp):
    """``hal.command_buffer.fill_buffer<%cmd : ..> target(%b : !hal.buffer)[%off, %len] pattern(%p : i32) flags(None)``."""

    name = "hal.command_buffer.fill_buffer"
    command_buffer = operand_def(CommandBufferType)
    target_buffer = operand_def(BUFFER_OR_SLOT)
    target_range = var_operand_def(INDEX)
    pattern = operand_def(IntegerType)
    flags = opt_prop_def(StringAttr)
    FORMAT: ClassVar = OpFormat(*receiver("command_buffer"), _typed("target", "target_buffer", "target_range"),
                                _typed("pattern", "pattern"), _enum("flags", "flags"), AttrDict())


@irdl_op_definition
class CommandBufferCopyBufferOp(FormattedOp):
    """``hal.command_buffer.copy_buffer<%cmd : ..> source(%s : !hal.buffer)[%off] target(%t : !hal.buffer)[%off] length(%len) flags(None)``."""

    name = "hal.command_buffer.copy_buffer"
    command_buffer = operand_def(CommandBufferType)
    source_buffer = operand_def(BUFFER_OR_SLOT)
    source_offset = var_operand_def(INDEX)
    target_buffer = operand_def(BUFFER_OR_SLOT)
    target_offset = var_operand_def(INDEX)
    length = operand_def(INDEX)
    flags = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(*receiver("command_buffer"), _typed("source", "source_buffer", "source_offset"),
                                _typed("target", "target_buffer", "target_offset"), _value("length", "length"),
                                _enum("flags", "flags"), AttrDict())


class _Bindings(Directive):
    """``[(%buffer : !hal.buffer)[%offset, %length], ...]``, one entry per line (dispatch bindings)."""

    field = "binding_buffers"

    def parse(self, state):
        parser, buffers, ranges = state.parser, [], []

        def binding():
            parser.parse_punctuation("(")
            buffers.append(syn.parse_typed_operand(parser))
            parser.parse_punctuation(")")
            ranges.append(syn.parse_index_list(parser))

        parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, binding)
        if any(len(r) != 2 for r in ranges):
            parser.raise_error("hal.command_buffer.dispatch: each binding needs [%offset, %length]")
        state.values |= {"binding_buffers": buffers, "binding_offsets": [r[0] for r in ranges],
                         "binding_lengths": [r[1] for r in ranges]}

    def print(self, op, printer):
        printer.print_string("[")
        for i, buf in enumerate(op.binding_buffers):
            printer.print_string(",\n    " if i else "\n    ")
            syn.print_typed_operand(printer, buf, "(", ")")
            syn.print_operand_list(printer, [op.binding_offsets[i], op.binding_lengths[i]])
        printer.print_string("\n  ]")


@irdl_op_definition
class CommandBufferDispatchOp(FormattedOp):
    """``hal.command_buffer.dispatch<%cmd : ..> target(%exe : !hal.executable)[%ordinal] workgroups([%x, %y, %z]) constants([..]) bindings([..]) flags(None)``.

    ``bindings`` entries are ``(%buffer : !hal.buffer)[%offset, %length]`` or, for a binding-table
    slot, ``(%slot : index)[%offset, %length]``; they are stored as three parallel operand groups
    (binding_buffers, binding_offsets, binding_lengths).
    """

    name = "hal.command_buffer.dispatch"
    command_buffer = operand_def(CommandBufferType)
    executable = operand_def(ExecutableType)
    entry_point = operand_def(INDEX)
    workgroup_count = var_operand_def(INDEX)
    constants = var_operand_def(i32)
    binding_buffers = var_operand_def(BUFFER_OR_SLOT)
    binding_offsets = var_operand_def(INDEX)
    binding_lengths = var_operand_def(INDEX)
    flags = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(*receiver("command_buffer"), " target(", Operand("executable"), " : ", Type("executable"),
                                ")[", Operand("entry_point"), "] workgroups(", Operands("workgroup_count", "[]"), ")",
                                _list("constants", "constants", always=False), " bindings(", _Bindings(), ")", _enum("flags", "flags"))


@irdl_op_definition
class FenceCreateOp(FormattedOp):
    """``hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence``."""

    name = "hal.fence.create"
    device = operand_def(DeviceType)
    flags = opt_prop_def(StringAttr)
    result = result_def(FenceType)
    FORMAT: ClassVar = OpFormat(_typed("device", "device"), _enum("flags", "flags"), *_result())


@irdl_op_definition
class FenceAwaitOp(FormattedOp):
    """``hal.fence.await until([%f]) timeout_millis(%t) flags("None") : i32``."""

    name = "hal.fence.await"
    fences = var_operand_def(FenceType)
    timeout_millis = operand_def(i32)
    flags = opt_prop_def(StringAttr)
    status = result_def(i32)
    FORMAT: ClassVar = OpFormat(_list("until", "fences"), _value("timeout_millis", "timeout_millis"),
                                _enum("flags", "flags"), *_result("status"))


class _QueueOp(FormattedOp):
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    wait_fence = operand_def(FenceType)
    signal_fence = operand_def(FenceType)


#: ``<%device : !hal.device> affinity(%a) wait(%w) signal(%s)``: the head of every queue op.
QUEUE = (*receiver("device"), _value("affinity", "queue_affinity"), _value("wait", "wait_fence"),
         _value("signal", "signal_fence"))


@irdl_op_definition
class DeviceQueueAllocaOp(_QueueOp):
    """``hal.device.queue.alloca<%d : !hal.device> affinity(%a) wait(%w) signal(%s) pool(%p) type(%t) usage(%u) flags(None) : !hal.buffer{%size}``."""

    name = "hal.device.queue.alloca"
    pool = operand_def(i64)
    memory_types = operand_def(i32)
    buffer_usage = operand_def(i32)
    result_size = operand_def(INDEX)
    flags = opt_prop_def(StringAttr)
    result = result_def(BufferType)
    FORMAT: ClassVar = OpFormat(*QUEUE, _value("pool", "pool"),
                                _value("type", "memory_types"), _value("usage", "buffer_usage"),
                                _enum("flags", "flags"), " : ", Sized("result", "result_size"), AttrDict())


@irdl_op_definition
class DeviceQueueDeallocaOp(_QueueOp):
    """``hal.device.queue.dealloca<%d : !hal.device> affinity(%a) wait(%w) signal(%s) buffer(%b : !hal.buffer) flags(None)``."""

    name = "hal.device.queue.dealloca"
    buffer = operand_def(BufferType)
    flags = opt_prop_def(StringAttr)
    FORMAT: ClassVar = OpFormat(*QUEUE, _typed("buffer", "buffer"), _enum("flags", "flags"),
                                AttrDict())


@irdl_op_definition
class DeviceQueueExecuteOp(_QueueOp):
    """``hal.device.queue.execute<%d : !hal.device> affinity(%a) wait(%w) signal(%s) commands(%cmd) flags(None)``."""

    name = "hal.device.queue.execute"
    command_buffer = operand_def(CommandBufferType)
    flags = opt_prop_def(StringAttr)
    FORMAT: ClassVar = OpFormat(*QUEUE, _value("commands", "command_buffer"),
                                _enum("flags", "flags"), AttrDict())


@irdl_op_definition
class DeviceQueueExecuteIndirectOp(_QueueOp):
    """``hal.device.queue.execute.indirect<%d : !hal.device> affinity(%a) wait(%w) signal(%s) commands(%cmd) bindings([(%b : !hal.buffer)[%off, %len], ...]) flags(None)``.

    Runs a reusable command buffer with binding table entry ``k`` standing for slot ``k``."""

    name = "hal.device.queue.execute.indirect"
    command_buffer = operand_def(CommandBufferType)
    binding_buffers = var_operand_def(BufferType)
    binding_offsets = var_operand_def(INDEX)
    binding_lengths = var_operand_def(INDEX)
    flags = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(*QUEUE, _value("commands", "command_buffer"), " bindings(", _Bindings(), ")",
                                _enum("flags", "flags"), AttrDict())


@irdl_op_definition
class DevicesGetOp(FormattedOp):
    """``hal.devices.get %index : !hal.device``: the device the runtime bound at ``index``."""

    name = "hal.devices.get"
    index = operand_def(INDEX)
    result = result_def(DeviceType)
    FORMAT: ClassVar = OpFormat(" ", Operand("index"), AttrDict(), " : ", Type("result"))


@irdl_op_definition
class DeviceAllocatorOp(FormattedOp):
    """``hal.device.allocator<%d : !hal.device> : !hal.allocator``."""

    name = "hal.device.allocator"
    device = operand_def(DeviceType)
    result = result_def(AllocatorType)
    FORMAT: ClassVar = OpFormat(*receiver("device"), *_result())


@irdl_op_definition
class AllocatorAllocateOp(FormattedOp):
    """``hal.allocator.allocate<%a : !hal.allocator> affinity(%q) type(%t) usage(%u) : !hal.buffer{%size}``."""

    name = "hal.allocator.allocate"
    allocator = operand_def(AllocatorType)
    queue_affinity = operand_def(i64)
    memory_types = operand_def(i32)
    buffer_usage = operand_def(i32)
    result_size = operand_def(INDEX)
    result = result_def(BufferType)
    FORMAT: ClassVar = OpFormat(*receiver("allocator"), _value("affinity", "queue_affinity"),
                                _value("type", "memory_types"), _value("usage", "buffer_usage"),
                                " : ", Sized("result", "result_size"), AttrDict())


@irdl_op_definition
class AllocatorImportOp(FormattedOp):
    """``hal.allocator.import<%a : !hal.allocator> source(%b : !util.buffer)[%off, %len] affinity(%q) type(%t) usage(%u) : !hal.buffer``.

    Copies host bytes (module rodata) into a new device buffer. IREE's op also returns an
    ``i1`` success flag; rt's import always succeeds (it copies), so the flag is dropped.
    """

    name = "hal.allocator.import"
    allocator = operand_def(AllocatorType)
    source = operand_def()
    source_range = var_operand_def(INDEX)
    queue_affinity = operand_def(i64)
    memory_types = operand_def(i32)
    buffer_usage = operand_def(i32)
    result = result_def(BufferType)
    FORMAT: ClassVar = OpFormat(*receiver("allocator"), _typed("source", "source", "source_range"),
                                _value("affinity", "queue_affinity"), _value("type", "memory_types"),
                                _value("usage", "buffer_usage"), *_result())


@irdl_op_definition
class BufferLengthOp(FormattedOp):
    """``hal.buffer.length<%b : !hal.buffer> : index``."""

    name = "hal.buffer.length"
    buffer = operand_def(BufferType)
    result = result_def(INDEX)
    FORMAT: ClassVar = OpFormat(*receiver("buffer"), *_result())


@irdl_op_definition
class BufferSubspanOp(FormattedOp):
    """``hal.buffer.subspan<%b : !hal.buffer>[%offset, %length] : !hal.buffer``."""

    name = "hal.buffer.subspan"
    source_buffer = operand_def(BufferType)
    source_range = var_operand_def(INDEX)
    result = result_def(BufferType)
    FORMAT: ClassVar = OpFormat(*receiver("source_buffer"), Operands("source_range", "[]"), " : ", Type("result"))


@irdl_op_definition
class BufferLoadOp(FormattedOp):
    """``hal.buffer.load<%b : !hal.buffer>[%offset] : i32``: a host read of one scalar."""

    name = "hal.buffer.load"
    source_buffer = operand_def(BufferType)
    source_offset = operand_def(INDEX)
    result = result_def()
    FORMAT: ClassVar = OpFormat(*receiver("source_buffer"), "[", Operand("source_offset"), "] : ", Type("result"))


@irdl_op_definition
class BufferStoreOp(FormattedOp):
    """``hal.buffer.store<%b : !hal.buffer>[%offset] value(%v : i32)``: a host write of one scalar."""

    name = "hal.buffer.store"
    value = operand_def()
    target_buffer = operand_def(BufferType)
    target_offset = operand_def(INDEX)
    FORMAT: ClassVar = OpFormat(*receiver("target_buffer"), "[", Operand("target_offset"), "] value(", Operand("value"),
                                " : ", Type("value"), ")")


@irdl_op_definition
class ExecutableCreateOp(FormattedOp):
    """``hal.executable.create device(%d : !hal.device) affinity(%q) target(@exe::@variant) : !hal.executable``."""

    name = "hal.executable.create"
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    executable_target = prop_def(SymbolRefAttr)
    result = result_def(ExecutableType)
    FORMAT: ClassVar = OpFormat(" device(", Operand("device"), " : ", Type("device"), ") affinity(",
                                Operand("queue_affinity"), ") target(", Attr("executable_target"), ") : ", Type("result"))


@irdl_op_definition
class FenceJoinOp(FormattedOp):
    """``hal.fence.join at([%a, %b]) flags("None") : !hal.fence``."""

    name = "hal.fence.join"
    fences = var_operand_def(FenceType)
    flags = opt_prop_def(StringAttr)
    result = result_def(FenceType)
    FORMAT: ClassVar = OpFormat(_list("at", "fences"), _enum("flags", "flags"), *_result())


@irdl_op_definition
class FenceSignalOp(FormattedOp):
    """``hal.fence.signal<%f : !hal.fence>``: marks the fence reached (immediate timepoints)."""

    name = "hal.fence.signal"
    fence = operand_def(FenceType)
    FORMAT: ClassVar = OpFormat(*receiver("fence"), AttrDict())


HAL_RUNTIME_OPS = [
    DevicesGetOp,
    DeviceAllocatorOp,
    AllocatorAllocateOp,
    AllocatorImportOp,
    BufferLengthOp,
    BufferSubspanOp,
    BufferLoadOp,
    BufferStoreOp,
    ExecutableCreateOp,
    FenceJoinOp,
    FenceSignalOp,
    BufferViewCreateOp,
    BufferViewBufferOp,
    BufferViewTraceOp,
    CommandBufferCreateOp,
    CommandBufferFinalizeOp,
    CommandBufferExecutionBarrierOp,
    CommandBufferFillBufferOp,
    CommandBufferCopyBufferOp,
    CommandBufferDispatchOp,
    FenceCreateOp,
    FenceAwaitOp,
    DeviceQueueAllocaOp,
    DeviceQueueDeallocaOp,
    DeviceQueueExecuteOp,
    DeviceQueueExecuteIndirectOp,
]

