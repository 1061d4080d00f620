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

``stream.cmd.flush/invalidate/discard %a[%o for %l] : T{%s}`` manage coherency. Regions of
execute/serial/concurrent have no terminator.

Source followed: IREE ``Dialect/Stream/IR/StreamOps.td`` (Stream_Cmd* ops, custom<DispatchResources>).
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, StringAttr, UnitAttr
from xdsl.ir import Attribute, Block
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects.stream_types import (
    ACCESS_KEYWORDS,
    INDEX,
    ResourceType,
    TimepointType,
    entry_point_parts,
    parse_entry_points,
    parse_optional_await,
    parse_optional_workload,
    parse_resource_sized,
    print_await,
    print_entry_points,
    print_resource_sized,
    print_workload,
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


def _print_range(printer, offset, length):
    printer.print_string("[")
    printer.print_ssa_value(offset)
    printer.print_string(" for ")
    printer.print_ssa_value(length)
    printer.print_string("]")


@irdl_op_definition
class CmdExecuteOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        props = {}
        if parser.parse_optional_keyword("once") is not None:
            props["once"] = UnitAttr()
        affinity = syn.parse_optional_affinity(parser)
        if affinity is not None:
            props["affinity"] = affinity
        awaits = parse_optional_await(parser)
        parser.parse_keyword("with")
        names, args, types, sizes = [], [], [], []
        parser.parse_punctuation("(")
        if parser.parse_optional_punctuation(")") is None:
            while True:
                names.append(parser.parse_unresolved_operand())
                parser.parse_keyword("as")
                arg = parser.parse_argument(expect_type=False)
                parser.parse_punctuation(":")
                type_, size = parse_resource_sized(parser)
                args.append(arg.resolve(type_))
                types.append(type_)
                sizes.append(size)
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
        region = parser.parse_region(args)
        if not region.blocks:
            region.add_block(Block())
        syn.parse_fat_arrow(parser)
        tp_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[syn.resolve_by_types(parser, names, types), sizes, awaits], result_types=[tp_type],
                         properties=props, regions=[region], attributes=attrs.data if attrs else {})

    def print(self, printer):
        if self.once is not None:
            printer.print_string(" once")
        syn.print_affinity(printer, self.affinity)
        print_await(printer, self.await_timepoint)
        printer.print_string(" with(")
        for i, (value, arg, size) in enumerate(zip(self.resource_operands, self.body.blocks[0].args,
                                                   self.resource_operand_sizes)):
            if i:
                printer.print_string(", ")
            printer.print_ssa_value(value)
            printer.print_string(" as ")
            printer.print_block_argument(arg, print_type=False)
            printer.print_string(": ")
            print_resource_sized(printer, arg.type, size)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False,
                             print_block_terminators=False)
        printer.print_string(" => ")
        printer.print_attribute(self.result_timepoint.type)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


class _CmdRegionOp(IRDLOperation):
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    @classmethod
    def parse(cls, parser):
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(regions=[region], attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        printer.print_region(self.body, print_empty_block=False, print_block_terminators=False)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class CmdSerialOp(_CmdRegionOp):
    """``stream.cmd.serial { ... }``: commands executed in order."""

    name = "stream.cmd.serial"


@irdl_op_definition
class CmdConcurrentOp(_CmdRegionOp):
    """``stream.cmd.concurrent { ... }``: commands that may execute concurrently."""

    name = "stream.cmd.concurrent"


@irdl_op_definition
class CmdDispatchOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        entry_points = parse_entry_points(parser)
        workload = parse_optional_workload(parser)
        operands = []
        if parser.parse_optional_punctuation("(") is not None:
            names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            operands = syn.resolve_by_types(parser, names, types)
        parser.parse_punctuation("{")
        resources, sizes, offsets, lengths, accesses = [], [], [], [], []
        if parser.parse_optional_punctuation("}") is None:
            while True:
                pos = parser.pos
                access = parser.parse_identifier()
                if access not in ACCESS_KEYWORDS:
                    parser.raise_error(f"expected a binding access ro/wo/rw, got '{access}'", pos)
                name = parser.parse_unresolved_operand()
                offset, length = _parse_range(parser)
                parser.parse_punctuation(":")
                type_, size = parse_resource_sized(parser)
                resources.append(parser.resolve_operand(name, type_))
                sizes.append(size)
                offsets.append(offset)
                lengths.append(length)
                accesses.append(StringAttr(access))
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation("}")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[workload, operands, resources, sizes, offsets, lengths],
                         properties={"entry_points": entry_points, "resource_accesses": ArrayAttr(accesses)},
                         attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        print_entry_points(printer, self.entry_points)
        print_workload(printer, self.workload)
        if self.uniform_operands:
            printer.print_string("(")
            printer.print_list(self.uniform_operands, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.uniform_operands], printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" {")
        bindings = list(zip(self.resource_accesses.data, self.resources, self.resource_offsets,
                            self.resource_lengths, self.resource_sizes))
        with printer.indented():
            for i, (access, value, offset, length, size) in enumerate(bindings):
                printer.print_string(f"\n{access.data} ")
                printer.print_ssa_value(value)
                _print_range(printer, offset, length)
                printer.print_string(" : ")
                print_resource_sized(printer, value.type, size)
                if i < len(bindings) - 1:
                    printer.print_string(",")
        printer.print_string("\n}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)

    def verify_(self):
        if len(self.resource_accesses.data) != len(self.resources):
            raise VerifyException(f"stream.cmd.dispatch has {len(self.resources)} bindings but "
                                  f"{len(self.resource_accesses.data)} access modes")

    def entry_point(self):
        """(executable name, export name) of the first entry point."""
        return entry_point_parts(self.entry_points.data[0])

    def accesses(self):
        """Access keyword per binding ("ro", "wo" or "rw")."""
        return [a.data for a in self.resource_accesses.data]


@irdl_op_definition
class CmdCopyOp(IRDLOperation):
    """``stream.cmd.copy %s[%so], %t[%to], %len : T{%ss} -> T{%ts}``: byte copy."""

    name = "stream.cmd.copy"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    length = operand_def(INDEX)

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        (soff,) = syn.parse_index_list(parser)
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        (toff,) = syn.parse_index_list(parser)
        parser.parse_punctuation(",")
        length = parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)
        parser.parse_punctuation(":")
        stype, ssize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        ttype, tsize = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(src, stype), ssize, soff, parser.resolve_operand(tgt, ttype),
                                   tsize, toff, length], attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        syn.print_operand_list(printer, [self.source_offset])
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        syn.print_operand_list(printer, [self.target_offset])
        printer.print_string(", ")
        printer.print_ssa_value(self.length)
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        printer.print_string(" -> ")
        print_resource_sized(printer, self.target.type, self.target_size)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class CmdFillOp(IRDLOperation):
    """``stream.cmd.fill %v, %t[%o for %l] : i32 -> T{%s}``: repeat a 1/2/4/8-byte pattern."""

    name = "stream.cmd.fill"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_length = operand_def(INDEX)

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        offset, length = _parse_range(parser)
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        ttype, tsize = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(value, vtype), parser.resolve_operand(tgt, ttype), tsize,
                                   offset, length], attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        _print_range(printer, self.target_offset, self.target_length)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        print_resource_sized(printer, self.target.type, self.target_size)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


class _CmdRangeOp(IRDLOperation):
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_length = operand_def(INDEX)
    KEYWORD: ClassVar[str | None] = None

    @classmethod
    def parse(cls, parser):
        props = {}
        if cls.KEYWORD is not None:
            aff = syn.parse_keyword_paren(parser, cls.KEYWORD, parser.parse_attribute)
            if aff is not None:
                props["source_affinity"] = aff
        tgt = parser.parse_unresolved_operand()
        offset, length = _parse_range(parser)
        parser.parse_punctuation(":")
        ttype, tsize = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(tgt, ttype), tsize, offset, length], properties=props,
                         attributes=attrs.data if attrs else {})

    def print(self, printer):
        aff = self.properties.get("source_affinity")
        if aff is not None:
            printer.print_string(f" {self.KEYWORD}(")
            printer.print_attribute(aff)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_ssa_value(self.target)
        _print_range(printer, self.target_offset, self.target_length)
        printer.print_string(" : ")
        print_resource_sized(printer, self.target.type, self.target_size)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class CmdFlushOp(_CmdRangeOp):
    """``stream.cmd.flush to(#aff)? %r[%o for %l] : T{%s}``: make host writes visible to a device."""

    name = "stream.cmd.flush"
    source_affinity = opt_prop_def(Attribute)
    KEYWORD: ClassVar[str] = "to"


@irdl_op_definition
class CmdInvalidateOp(_CmdRangeOp):
    """``stream.cmd.invalidate from(#aff)? %r[%o for %l] : T{%s}``: make device writes visible to the host."""

    name = "stream.cmd.invalidate"
    source_affinity = opt_prop_def(Attribute)
    KEYWORD: ClassVar[str] = "from"


@irdl_op_definition
class CmdDiscardOp(_CmdRangeOp):
    """``stream.cmd.discard %r[%o for %l] : T{%s}``: the range's contents are no longer needed."""

    name = "stream.cmd.discard"


CMD_OPS = [CmdExecuteOp, CmdSerialOp, CmdConcurrentOp, CmdDispatchOp, CmdCopyOp, CmdFillOp, CmdFlushOp,
           CmdInvalidateOp, CmdDiscardOp]
