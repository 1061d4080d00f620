"""``stream.cmd.*`` ops: explicitly-allocated command recording (IREE's printed form).

::

    %tp = stream.cmd.execute on(#aff)? await(%t) => with(%r as %a: !stream.resource<transient>{%s}) {
      stream.cmd.concurrent {
        stream.cmd.dispatch @exe::@fn[%c1](%n : index) {
          ro %a[%c0 for %c40] : !stream.resource<transient>{%s},
          wo %a[%c64 for %c40] : !stream.resource<transient>{%s}
        }
        stream.cmd.fill %v, %a[%c128 for %c4] : f32 -> !stream.resource<transient>{%s}
      }
      stream.cmd.copy %a[%c0], %a[%c64], %c40 : !stream.resource<transient>{%s} -> !stream.resource<transient>{%s}
    } => !stream.timepoint

``stream.cmd.flush/invalidate/discard %a[%o for %l] : T{%s}`` manage coherency.
``stream.cmd.parameter.load await(%t) => { %scope::%key[%off] : !stream.resource<constant>{%s} }
=> !stream.timepoint`` reads parameters (IREE's Stream_CmdParameterLoadOp). Regions of
execute/serial/concurrent have no terminator.

Source followed: IREE ``Dialect/Stream/IR/StreamOps.td`` (Stream_Cmd* ops, custom<DispatchResources>).
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, StringAttr, UnitAttr, i64
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import (
    AFFINITY,
    Attr,
    AttrDict,
    Custom,
    Flag,
    FormattedOp,
    Operand,
    OpFormat,
    Opt,
    Sized,
    Type,
)
from rt.compiler.dialects._parameters import ParameterEntries
from rt.compiler.dialects.util import BufferType as UtilBufferType
from rt.compiler.dialects._regions import Body
from rt.compiler.dialects.stream_types import (
    ACCESS_KEYWORDS,
    AWAIT,
    INDEX,
    Captures,
    ResourceType,
    TimepointType,
    entry_point_parts,
    parse_entry_points,
    parse_resource_sized,
    print_entry_points,
    print_resource_sized,
)

SEGMENTS = (AttrSizedOperandSegments(as_property=True),)


def _parse_range(parser):
    """``[%o for %l]`` -> (offset, length)."""
    parser.parse_punctuation("[")
    offset = parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)
    parser.parse_keyword("for")
    length = parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)
    parser.parse_punctuation("]")
    return offset, length


#: `` %target[%target_offset for %target_length] : T{%target_size}`` (fill/flush/invalidate/discard).
TARGET_RANGE = (" ", Operand("target"), "[", Operand("target_offset"), " for ", Operand("target_length"), "] : ")
#: ``{ commands }``: an execute/serial/concurrent body (no block arguments or terminator shown).
COMMANDS = Body(print_empty_block=False, print_block_terminators=False)


@irdl_op_definition
class CmdExecuteOp(FormattedOp):
    """``stream.cmd.execute once? on(#aff)? await(%t)? => with(%r as %a: T{%s}, ...) {...} => !stream.timepoint``."""

    name = "stream.cmd.execute"
    resource_operands = var_operand_def(ResourceType)
    resource_operand_sizes = var_operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    once = opt_prop_def(UnitAttr)
    affinity = opt_prop_def(Attribute)
    result_timepoint = result_def(TimepointType)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(Flag(" once", "once"), AFFINITY, AWAIT,
                                Captures("resource_operands", "resource_operand_sizes"), " ", COMMANDS, " => ",
                                Type("result_timepoint"), AttrDict(keyword=True))


class _CmdRegionOp(FormattedOp):
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    FORMAT: ClassVar = OpFormat(" ", COMMANDS, AttrDict(keyword=True))


@irdl_op_definition
class CmdSerialOp(_CmdRegionOp):
    """``stream.cmd.serial { ... }``: commands executed in order."""

    name = "stream.cmd.serial"


@irdl_op_definition
class CmdConcurrentOp(_CmdRegionOp):
    """``stream.cmd.concurrent { ... }``: commands that may execute concurrently."""

    name = "stream.cmd.concurrent"


@irdl_op_definition
class CmdDispatchOp(FormattedOp):
    """``stream.cmd.dispatch @exe::@fn[%w](%a : i32) { ro %r[%o for %l] : T{%s}, wo ... }``.

    ``resource_accesses`` holds one of "ro"/"wo"/"rw" per binding (IREE's access bitfield).
    """

    name = "stream.cmd.dispatch"
    workload = var_operand_def(INDEX)
    uniform_operands = var_operand_def()
    resources = var_operand_def(ResourceType)
    resource_sizes = var_operand_def(INDEX)
    resource_offsets = var_operand_def(INDEX)
    resource_lengths = var_operand_def(INDEX)
    entry_points = prop_def(ArrayAttr)
    resource_accesses = prop_def(ArrayAttr)
    irdl_options = SEGMENTS

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        entry_points = parse_entry_points(parser)
        workload = syn.parse_optional_workload(parser)
        operands = []
        if parser.parse_optional_punctuation("(") is not None:
            names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            operands = syn.resolve_by_types(parser, names, types)
        columns, accesses, attrs = parse_bindings(parser)
        return cls.build(operands=[workload, operands, *columns],
                         properties={"entry_points": entry_points, "resource_accesses": accesses},
                         attributes=attrs)

    def print_syntax(self, printer):
        printer.print_string(" ")
        print_entry_points(printer, self.entry_points)
        syn.print_workload(printer, self.workload)
        if self.uniform_operands:
            printer.print_string("(")
            printer.print_list(self.uniform_operands, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.uniform_operands], printer.print_attribute)
            printer.print_string(")")
        print_bindings(printer, self)

    def verify_(self):
        verify_bindings(self)

    def entry_point(self):
        """(executable name, export name) of the first entry point."""
        return entry_point_parts(self.entry_points.data[0])

    def accesses(self):
        """Access keyword per binding ("ro", "wo" or "rw")."""
        return [a.data for a in self.resource_accesses.data]


@irdl_op_definition
class CmdCopyOp(FormattedOp):
    """``stream.cmd.copy %s[%so], %t[%to], %len : T{%ss} -> T{%ts}``: byte copy."""

    name = "stream.cmd.copy"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    length = operand_def(INDEX)
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), "[", Operand("source_offset"), "], ", Operand("target"), "[",
                                Operand("target_offset"), "], ", Operand("length"), " : ", Sized("source", "source_size"),
                                " -> ", Sized("target", "target_size"), AttrDict(keyword=True))


@irdl_op_definition
class CmdFillOp(FormattedOp):
    """``stream.cmd.fill %v, %t[%o for %l] : i32 -> T{%s}``: repeat a 1/2/4/8-byte pattern."""

    name = "stream.cmd.fill"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_length = operand_def(INDEX)
    FORMAT: ClassVar = OpFormat(" ", Operand("value"), ",", *TARGET_RANGE, Type("value"), " -> ",
                                Sized("target", "target_size"), AttrDict(keyword=True))


def parse_bindings(parser):
    """The ``{ro %r[%offset for %length] : !stream.resource<*>{%size}, ...}`` block and the
    optional attribute dict of ``stream.cmd.dispatch`` / ``stream.cmd.collective``. Returns the
    operand columns (resources, sizes, offsets, lengths), the access ArrayAttr and the attributes."""
    bindings = []

    def binding():
        pos = parser.pos
        access = parser.parse_identifier()
        if access not in ACCESS_KEYWORDS:
            parser.raise_error(f"expected a binding access ro/wo/rw, got '{access}'", pos)
        name = parser.parse_unresolved_operand()
        offset, length = _parse_range(parser)
        parser.parse_punctuation(":")
        type_, size = parse_resource_sized(parser)
        bindings.append((parser.resolve_operand(name, type_), size, offset, length, StringAttr(access)))

    parser.parse_comma_separated_list(Parser.Delimiter.BRACES, binding)
    attrs = parser.parse_optional_attr_dict_with_keyword()
    columns = [list(column) for column in zip(*bindings)] or [[]] * 5
    return columns[:4], ArrayAttr(columns[4]), attrs.data if attrs else {}


def print_bindings(printer, op):
    """Print ``op``'s binding block and attributes (the form ``parse_bindings`` reads)."""
    printer.print_string(" {")
    bindings = list(zip(op.resource_accesses.data, op.resources, op.resource_offsets,
                        op.resource_lengths, op.resource_sizes))
    with printer.indented():
        for i, (access, value, offset, length, size) in enumerate(bindings):
            printer.print_string(f"\n{access.data} ")
            printer.print_ssa_value(value)
            printer.print_string("[")
            printer.print_ssa_value(offset)
            printer.print_string(" for ")
            printer.print_ssa_value(length)
            printer.print_string("] : ")
            print_resource_sized(printer, value.type, size)
            if i < len(bindings) - 1:
                printer.print_string(",")
    printer.print_string("\n}")
    if op.attributes:
        printer.print_op_attributes(op.attributes, print_keyword=True)


def verify_bindings(op):
    if len(op.resource_accesses.data) != len(op.resources):
        raise VerifyException(f"{op.name} has {len(op.resources)} bindings but "
                              f"{len(op.resource_accesses.data)} access modes")


def _range_format(keyword=None):
    """``keyword(#aff)? %t[%o for %l] : T{%s}`` (the affinity is the ``source_affinity`` property)."""
    head = (Opt(f" {keyword}(", Attr("source_affinity"), ")"),) if keyword else ()
    return OpFormat(*head, *TARGET_RANGE, Sized("target", "target_size"), AttrDict(keyword=True))


class _CmdRangeOp(FormattedOp):
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_length = operand_def(INDEX)
    FORMAT: ClassVar = _range_format()


@irdl_op_definition
class CmdFlushOp(_CmdRangeOp):
    """``stream.cmd.flush to(#aff)? %r[%o for %l] : T{%s}``: make host writes visible to a device."""

    name = "stream.cmd.flush"
    source_affinity = opt_prop_def(Attribute)
    FORMAT: ClassVar = _range_format("to")


@irdl_op_definition
class CmdInvalidateOp(_CmdRangeOp):
    """``stream.cmd.invalidate from(#aff)? %r[%o for %l] : T{%s}``: make device writes visible to the host."""

    name = "stream.cmd.invalidate"
    source_affinity = opt_prop_def(Attribute)
    FORMAT: ClassVar = _range_format("from")


@irdl_op_definition
class CmdDiscardOp(_CmdRangeOp):
    """``stream.cmd.discard %r[%o for %l] : T{%s}``: the range's contents are no longer needed."""

    name = "stream.cmd.discard"


@irdl_op_definition
class CmdParameterLoadOp(FormattedOp):
    """``stream.cmd.parameter.load on(#aff)? await(%t)? => { %scope::%key[%offset] : T{%size}, ... }
    => !stream.timepoint``: new resources read from a parameter provider (scope and keys are
    ``!util.buffer`` strings; one scope, or none, per op)."""

    name = "stream.cmd.parameter.load"
    source_scope = opt_operand_def(UtilBufferType)
    source_keys = var_operand_def(UtilBufferType)
    source_offsets = var_operand_def(i64)
    result_sizes = var_operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    result_timepoint = result_def(TimepointType)
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, AWAIT, ParameterEntries("source_scope", "source_keys", "source_offsets",
                                                                 "results_", "result_sizes"),
                                " => ", Type("result_timepoint"), AttrDict(keyword=True))

    def verify_(self):
        n = len(self.source_keys)
        if not n or len(self.source_offsets) != n or len(self.result_sizes) != n or len(self.results_) != n:
            raise VerifyException(f"needs one key, offset, size and result per parameter, got {n} keys, "
                                  f"{len(self.source_offsets)} offsets, {len(self.result_sizes)} sizes and "
                                  f"{len(self.results_)} results")


CMD_OPS = [CmdExecuteOp, CmdSerialOp, CmdConcurrentOp, CmdDispatchOp, CmdCopyOp, CmdFillOp, CmdFlushOp,
           CmdInvalidateOp, CmdDiscardOp, CmdParameterLoadOp]
