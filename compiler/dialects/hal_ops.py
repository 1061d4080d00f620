"""HAL runtime ops: buffer views, command buffers, fences and device queue operations.

IREE prints these as a receiver plus keyword clauses, e.g.
``hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%o]
workgroups([%x, %y, %z]) bindings([...]) flags(None)``. Each op here declares its clauses in
``CLAUSES`` and shares one parser/printer (:class:`ClauseOp`):

* ``("<>", field)``            receiver ``<%v : type>``
* ``(kw, field, "typed")``     ``kw(%v : type)``
* ``(kw, field, "value")``     ``kw(%v)`` with the operand type fixed by the op definition
* ``(kw, field, "list")``      ``kw([%a, %b])`` index/i32 operands
* ``(kw, field, "enum")``      ``kw("A|B")`` or ``kw(None)``: a StringAttr property
Results are printed ``: type`` (``: type{%size}`` for ``queue.alloca``).

The command-buffer dispatch ``bindings`` clause uses IREE's ``(%buffer : !hal.buffer)[%offset,
%length]`` entries. Source followed: IREE ``Dialect/HAL/IR/HALOps.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerType, StringAttr, SymbolRefAttr, i32, i64
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects.hal_types import (
    AllocatorType,
    BufferType,
    BufferViewType,
    CommandBufferType,
    DeviceType,
    ExecutableType,
    FenceType,
)

INDEX = IndexType()


class ClauseOp(IRDLOperation):
    """Base for ops written as ``<receiver> kw(...) kw(...) (: result-type)?``."""

    CLAUSES: ClassVar = ()
    RESULT_SIZED: ClassVar = False

    @classmethod
    def _operand_type(cls, field):
        constraint = cls.get_irdl_definition()
        for name, odef in constraint.operands:
            if name == field:
                constr = odef.constr
                for step in ("constraint", "constr"):
                    constr = getattr(constr, step, constr)
                attr = getattr(constr, "attr", None)
                return attr() if isinstance(attr, type) else attr
        return None

    @classmethod
    def parse(cls, parser):
        operands, props = {}, {}
        for clause in cls.CLAUSES:
            keyword, field = clause[0], clause[1]
            kind = clause[2] if len(clause) > 2 else "typed"
            if keyword == "<>":
                operands[field] = syn.parse_typed_operand_in_angles(parser)
                continue
            if parser.parse_optional_keyword(keyword) is None:
                continue
            parser.parse_punctuation("(")
            if kind == "typed":
                operands[field] = syn.parse_typed_operand(parser)
            elif kind == "value":
                operands[field] = parser.resolve_operand(
                    parser.parse_unresolved_operand(), cls._operand_type(field) or INDEX
                )
            elif kind == "list":
                elem_type = cls._operand_type(field) or INDEX
                values = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
                operands[field] = [parser.resolve_operand(v, elem_type) for v in values]
            elif kind == "enum":
                props[field] = StringAttr(parser.parse_optional_str_literal() or parser.parse_identifier())
            parser.parse_punctuation(")")
            if kind == "typed" and len(clause) > 3:
                operands[clause[3]] = syn.parse_index_list(parser)
        result_types, size = [], []
        if parser.parse_optional_punctuation(":"):
            result_types.append(parser.parse_type())
            if cls.RESULT_SIZED:
                size = [parser.resolve_operand(d, INDEX) for d in syn.parse_optional_dims(parser)]
        attrs = parser.parse_optional_attr_dict()
        defs = cls.get_irdl_definition()
        ordered = []
        for name, odef in defs.operands:
            value = operands.get(name, size if name == "result_size" else None)
            if value is None:
                value = []
            ordered.append(value)
        return cls.build(operands=ordered, result_types=result_types,
                         properties=props, attributes=attrs)

    def print(self, printer):
        for clause in self.CLAUSES:
            keyword, field = clause[0], clause[1]
            kind = clause[2] if len(clause) > 2 else "typed"
            if keyword == "<>":
                syn.print_typed_operand(printer, getattr(self, field))
                continue
            value = getattr(self, field)
            if value is None:
                continue
            if kind in ("typed", "value") and not isinstance(value, IRDLOperation) and hasattr(value, "__len__"):
                if not len(value):
                    continue
                value = value[0]
            printer.print_string(f" {keyword}(")
            if kind == "typed":
                syn.print_typed_operand(printer, value, "", "")
            elif kind == "value":
                printer.print_ssa_value(value)
            elif kind == "list":
                syn.print_operand_list(printer, value)
            elif kind == "enum" and value.data.isidentifier():
                printer.print_string(value.data)
            elif kind == "enum":
                printer.print_string_literal(value.data)
            printer.print_string(")")
            if kind == "typed" and len(clause) > 3:
                syn.print_operand_list(printer, getattr(self, clause[3]))
        if self.results:
            printer.print_string(" : ")
            printer.print_attribute(self.results[0].type)
            if self.RESULT_SIZED:
                size = self.result_size
                sizes = list(size) if isinstance(size, (list, tuple)) or hasattr(size, "__len__") else [size]
                if sizes:
                    printer.print_string("{")
                    printer.print_list(sizes, printer.print_ssa_value)
                    printer.print_string("}")
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class BufferViewCreateOp(ClauseOp):
    """``hal.buffer_view.create buffer(%b : !hal.buffer)[%off, %len] shape([..]) type(%t) encoding(%e) : !hal.buffer_view``."""

    name = "hal.buffer_view.create"
    source_buffer = operand_def(BufferType)
    source_range = var_operand_def(INDEX)
    shape = var_operand_def(INDEX)
    element_type = operand_def(i32)
    encoding_type = operand_def(i32)
    result = result_def(BufferViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    CLAUSES: ClassVar = (("buffer", "source_buffer", "typed", "source_range"), ("shape", "shape", "list"),
               ("type", "element_type", "value"), ("encoding", "encoding_type", "value"))


@irdl_op_definition
class BufferViewBufferOp(ClauseOp):
    """``hal.buffer_view.buffer<%bv : !hal.buffer_view> : !hal.buffer``."""

    name = "hal.buffer_view.buffer"
    buffer_view = operand_def(BufferViewType)
    result = result_def(BufferType)
    CLAUSES: ClassVar = (("<>", "buffer_view"),)


@irdl_op_definition
class CommandBufferCreateOp(ClauseOp):
    """``hal.command_buffer.create device(%d : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%a) : !hal.command_buffer``."""

    name = "hal.command_buffer.create"
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    modes = opt_prop_def(StringAttr)
    command_categories = opt_prop_def(StringAttr)
    result = result_def(CommandBufferType)
    CLAUSES: ClassVar = (("device", "device"), ("mode", "modes", "enum"), ("categories", "command_categories", "enum"),
               ("affinity", "queue_affinity", "value"))


@irdl_op_definition
class CommandBufferFinalizeOp(ClauseOp):
    """``hal.command_buffer.finalize<%cmd : !hal.command_buffer>``."""

    name = "hal.command_buffer.finalize"
    command_buffer = operand_def(CommandBufferType)
    CLAUSES: ClassVar = (("<>", "command_buffer"),)


@irdl_op_definition
class CommandBufferExecutionBarrierOp(ClauseOp):
    """``hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source(..) target(..) flags(..)``."""

    name = "hal.command_buffer.execution_barrier"
    command_buffer = operand_def(CommandBufferType)
    source_stage_mask = opt_prop_def(StringAttr)
    target_stage_mask = opt_prop_def(StringAttr)
    flags = opt_prop_def(StringAttr)
    CLAUSES: ClassVar = (("<>", "command_buffer"), ("source", "source_stage_mask", "enum"),
               ("target", "target_stage_mask", "enum"), ("flags", "flags", "enum"))


@irdl_op_definition
class CommandBufferFillBufferOp(ClauseOp):
    """``hal.command_buffer.fill_buffer<%cmd : ..> target(%b : !hal.buffer)[%off, %len] pattern(%p : i32) flags(None)``."""

    name = "hal.command_buffer.fill_buffer"
    command_buffer = operand_def(CommandBufferType)
    target_buffer = operand_def(BufferType)
    target_range = var_operand_def(INDEX)
    pattern = operand_def(IntegerType)
    flags = opt_prop_def(StringAttr)
    CLAUSES: ClassVar = (("<>", "command_buffer"), ("target", "target_buffer", "typed", "target_range"),
               ("pattern", "pattern"), ("flags", "flags", "enum"))


@irdl_op_definition
class CommandBufferCopyBufferOp(ClauseOp):
    """``hal.command_buffer.copy_buffer<%cmd : ..> source(%s : !hal.buffer)[%off] target(%t : !hal.buffer)[%off] length(%len) flags(None)``."""

    name = "hal.command_buffer.copy_buffer"
    command_buffer = operand_def(CommandBufferType)
    source_buffer = operand_def(BufferType)
    source_offset = var_operand_def(INDEX)
    target_buffer = operand_def(BufferType)
    target_offset = var_operand_def(INDEX)
    length = operand_def(INDEX)
    flags = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    CLAUSES: ClassVar = (("<>", "command_buffer"), ("source", "source_buffer", "typed", "source_offset"),
               ("target", "target_buffer", "typed", "target_offset"), ("length", "length", "value"),
               ("flags", "flags", "enum"))


@irdl_op_definition
class CommandBufferDispatchOp(ClauseOp):
    """``hal.command_buffer.dispatch<%cmd : ..> target(%exe : !hal.executable)[%ordinal] workgroups([%x, %y, %z]) constants([..]) bindings([..]) flags(None)``.

    ``bindings`` entries are ``(%buffer : !hal.buffer)[%offset, %length]``; they are stored as
    three parallel operand groups (binding_buffers, binding_offsets, binding_lengths).
    """

    name = "hal.command_buffer.dispatch"
    command_buffer = operand_def(CommandBufferType)
    executable = operand_def(ExecutableType)
    entry_point = operand_def(INDEX)
    workgroup_count = var_operand_def(INDEX)
    constants = var_operand_def(i32)
    binding_buffers = var_operand_def(BufferType)
    binding_offsets = var_operand_def(INDEX)
    binding_lengths = var_operand_def(INDEX)
    flags = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser):
        cmd = syn.parse_typed_operand_in_angles(parser)
        exe = syn.parse_keyword_paren(parser, "target", lambda: syn.parse_typed_operand(parser))
        ordinal = syn.parse_index_list(parser)
        counts = syn.parse_keyword_paren(parser, "workgroups", lambda: syn.parse_index_list(parser)) or []
        constants = syn.parse_keyword_paren(
            parser, "constants",
            lambda: [parser.resolve_operand(v, i32) for v in parser.parse_comma_separated_list(
                Parser.Delimiter.SQUARE, parser.parse_unresolved_operand)]) or []
        buffers, offsets, lengths = [], [], []

        def binding():
            parser.parse_punctuation("(")
            buffers.append(syn.parse_typed_operand(parser))
            parser.parse_punctuation(")")
            off, length = syn.parse_index_list(parser)
            offsets.append(off)
            lengths.append(length)

        syn.parse_keyword_paren(parser, "bindings", lambda: parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, binding))
        flags = syn.parse_keyword_paren(parser, "flags", lambda: parser.parse_optional_str_literal() or parser.parse_identifier())
        props = {"flags": StringAttr(flags)} if flags is not None else {}
        return cls.build(operands=[cmd, exe, ordinal[0], counts, constants, buffers, offsets, lengths], properties=props)

    def print(self, printer):
        syn.print_typed_operand(printer, self.command_buffer)
        printer.print_string(" target(")
        syn.print_typed_operand(printer, self.executable, "", "")
        printer.print_string(")")
        syn.print_operand_list(printer, [self.entry_point])
        printer.print_string(" workgroups(")
        syn.print_operand_list(printer, self.workgroup_count)
        printer.print_string(")")
        if self.constants:
            printer.print_string(" constants(")
            syn.print_operand_list(printer, self.constants)
            printer.print_string(")")
        printer.print_string(" bindings([")
        for i, buf in enumerate(self.binding_buffers):
            printer.print_string(",\n    " if i else "\n    ")
            printer.print_string("(")
            syn.print_typed_operand(printer, buf, "", "")
            printer.print_string(")")
            syn.print_operand_list(printer, [self.binding_offsets[i], self.binding_lengths[i]])
        printer.print_string("\n  ])")
        if self.flags is not None:
            printer.print_string(f" flags({self.flags.data})")


@irdl_op_definition
class FenceCreateOp(ClauseOp):
    """``hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence``."""

    name = "hal.fence.create"
    device = operand_def(DeviceType)
    flags = opt_prop_def(StringAttr)
    result = result_def(FenceType)
    CLAUSES: ClassVar = (("device", "device"), ("flags", "flags", "enum"))


@irdl_op_definition
class FenceAwaitOp(ClauseOp):
    """``hal.fence.await until([%f]) timeout_millis(%t) flags("None") : i32``."""

    name = "hal.fence.await"
    fences = var_operand_def(FenceType)
    timeout_millis = operand_def(i32)
    flags = opt_prop_def(StringAttr)
    status = result_def(i32)
    CLAUSES: ClassVar = (("until", "fences", "list"), ("timeout_millis", "timeout_millis", "value"), ("flags", "flags", "enum"))


class _QueueOp(ClauseOp):
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    wait_fence = operand_def(FenceType)
    signal_fence = operand_def(FenceType)


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
    RESULT_SIZED: ClassVar = True
    CLAUSES: ClassVar = (("<>", "device"), ("affinity", "queue_affinity", "value"), ("wait", "wait_fence", "value"),
               ("signal", "signal_fence", "value"), ("pool", "pool", "value"), ("type", "memory_types", "value"),
               ("usage", "buffer_usage", "value"), ("flags", "flags", "enum"))


@irdl_op_definition
class DeviceQueueDeallocaOp(_QueueOp):
    """``hal.device.queue.dealloca<%d : !hal.device> affinity(%a) wait(%w) signal(%s) buffer(%b : !hal.buffer) flags(None)``."""

    name = "hal.device.queue.dealloca"
    buffer = operand_def(BufferType)
    flags = opt_prop_def(StringAttr)
    CLAUSES: ClassVar = (("<>", "device"), ("affinity", "queue_affinity", "value"), ("wait", "wait_fence", "value"),
               ("signal", "signal_fence", "value"), ("buffer", "buffer"), ("flags", "flags", "enum"))


@irdl_op_definition
class DeviceQueueExecuteOp(_QueueOp):
    """``hal.device.queue.execute<%d : !hal.device> affinity(%a) wait(%w) signal(%s) commands(%cmd) flags(None)``."""

    name = "hal.device.queue.execute"
    command_buffer = operand_def(CommandBufferType)
    flags = opt_prop_def(StringAttr)
    CLAUSES: ClassVar = (("<>", "device"), ("affinity", "queue_affinity", "value"), ("wait", "wait_fence", "value"),
               ("signal", "signal_fence", "value"), ("commands", "command_buffer", "value"), ("flags", "flags", "enum"))


@irdl_op_definition
class DevicesGetOp(IRDLOperation):
    """``hal.devices.get %index : !hal.device``: the device the runtime bound at ``index``."""

    name = "hal.devices.get"
    index = operand_def(INDEX)
    result = result_def(DeviceType)
    assembly_format = "$index attr-dict `:` type($result)"


@irdl_op_definition
class DeviceAllocatorOp(ClauseOp):
    """``hal.device.allocator<%d : !hal.device> : !hal.allocator``."""

    name = "hal.device.allocator"
    device = operand_def(DeviceType)
    result = result_def(AllocatorType)
    CLAUSES: ClassVar = (("<>", "device"),)


@irdl_op_definition
class AllocatorAllocateOp(ClauseOp):
    """``hal.allocator.allocate<%a : !hal.allocator> affinity(%q) type(%t) usage(%u) : !hal.buffer{%size}``."""

    name = "hal.allocator.allocate"
    allocator = operand_def(AllocatorType)
    queue_affinity = operand_def(i64)
    memory_types = operand_def(i32)
    buffer_usage = operand_def(i32)
    result_size = operand_def(INDEX)
    result = result_def(BufferType)
    RESULT_SIZED: ClassVar = True
    CLAUSES: ClassVar = (("<>", "allocator"), ("affinity", "queue_affinity", "value"),
                         ("type", "memory_types", "value"), ("usage", "buffer_usage", "value"))


@irdl_op_definition
class AllocatorImportOp(ClauseOp):
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
    CLAUSES: ClassVar = (("<>", "allocator"), ("source", "source", "typed", "source_range"),
                         ("affinity", "queue_affinity", "value"), ("type", "memory_types", "value"),
                         ("usage", "buffer_usage", "value"))


@irdl_op_definition
class BufferLengthOp(ClauseOp):
    """``hal.buffer.length<%b : !hal.buffer> : index``."""

    name = "hal.buffer.length"
    buffer = operand_def(BufferType)
    result = result_def(INDEX)
    CLAUSES: ClassVar = (("<>", "buffer"),)


@irdl_op_definition
class BufferSubspanOp(ClauseOp):
    """``hal.buffer.subspan<%b : !hal.buffer>[%offset, %length] : !hal.buffer``."""

    name = "hal.buffer.subspan"
    source_buffer = operand_def(BufferType)
    source_range = var_operand_def(INDEX)
    result = result_def(BufferType)

    @classmethod
    def parse(cls, parser):
        buf = syn.parse_typed_operand_in_angles(parser)
        span = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        return cls.build(operands=[buf, span], result_types=[parser.parse_type()])

    def print(self, printer):
        syn.print_typed_operand(printer, self.source_buffer)
        syn.print_operand_list(printer, self.source_range)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class BufferLoadOp(IRDLOperation):
    """``hal.buffer.load<%b : !hal.buffer>[%offset] : i32``: a host read of one scalar."""

    name = "hal.buffer.load"
    source_buffer = operand_def(BufferType)
    source_offset = operand_def(INDEX)
    result = result_def()

    @classmethod
    def parse(cls, parser):
        buf = syn.parse_typed_operand_in_angles(parser)
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        return cls.build(operands=[buf, offset], result_types=[parser.parse_type()])

    def print(self, printer):
        syn.print_typed_operand(printer, self.source_buffer)
        syn.print_operand_list(printer, [self.source_offset])
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class BufferStoreOp(IRDLOperation):
    """``hal.buffer.store<%b : !hal.buffer>[%offset] value(%v : i32)``: a host write of one scalar."""

    name = "hal.buffer.store"
    value = operand_def()
    target_buffer = operand_def(BufferType)
    target_offset = operand_def(INDEX)

    @classmethod
    def parse(cls, parser):
        buf = syn.parse_typed_operand_in_angles(parser)
        (offset,) = syn.parse_index_list(parser)
        parser.parse_keyword("value")
        parser.parse_punctuation("(")
        value = syn.parse_typed_operand(parser)
        parser.parse_punctuation(")")
        return cls.build(operands=[value, buf, offset])

    def print(self, printer):
        syn.print_typed_operand(printer, self.target_buffer)
        syn.print_operand_list(printer, [self.target_offset])
        printer.print_string(" value(")
        syn.print_typed_operand(printer, self.value, "", "")
        printer.print_string(")")


@irdl_op_definition
class ExecutableCreateOp(ClauseOp):
    """``hal.executable.create device(%d : !hal.device) affinity(%q) target(@exe::@variant) : !hal.executable``."""

    name = "hal.executable.create"
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    executable_target = prop_def(SymbolRefAttr)
    result = result_def(ExecutableType)

    @classmethod
    def parse(cls, parser):
        device = syn.parse_keyword_paren(parser, "device", lambda: syn.parse_typed_operand(parser))
        affinity = syn.parse_keyword_paren(
            parser, "affinity", lambda: parser.resolve_operand(parser.parse_unresolved_operand(), i64))
        target = syn.parse_keyword_paren(parser, "target", lambda: syn.parse_entry_point(parser))
        parser.parse_punctuation(":")
        return cls.build(operands=[device, affinity], result_types=[parser.parse_type()],
                         properties={"executable_target": target})

    def print(self, printer):
        printer.print_string(" device(")
        syn.print_typed_operand(printer, self.device, "", "")
        printer.print_string(") affinity(")
        printer.print_ssa_value(self.queue_affinity)
        printer.print_string(") target(")
        printer.print_attribute(self.executable_target)
        printer.print_string(") : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class FenceJoinOp(ClauseOp):
    """``hal.fence.join at([%a, %b]) flags("None") : !hal.fence``."""

    name = "hal.fence.join"
    fences = var_operand_def(FenceType)
    flags = opt_prop_def(StringAttr)
    result = result_def(FenceType)
    CLAUSES: ClassVar = (("at", "fences", "list"), ("flags", "flags", "enum"))


@irdl_op_definition
class FenceSignalOp(ClauseOp):
    """``hal.fence.signal<%f : !hal.fence>``: marks the fence reached (immediate timepoints)."""

    name = "hal.fence.signal"
    fence = operand_def(FenceType)
    CLAUSES: ClassVar = (("<>", "fence"),)


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
]

