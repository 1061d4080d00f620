"""Channels and collectives of the ``stream`` dialect.

Printed forms (IREE's)::

    %ch = stream.channel.create on(#hal.device.affinity<@dev>) group("g") : !stream.channel
    %sub = stream.channel.split %ch, %color, %key : !stream.channel -> !stream.channel
    %r = stream.channel.rank %ch : index
    %n = stream.channel.count %ch : index
    %t = stream.async.collective<all_reduce with sum : f32>[%count] on(#aff) channel(%ch)
           %send[%c0 to %ss for %ss], %recv[%c0 to %rs for %rs] :
           !stream.resource<*>{%ss} -> %recv as !stream.resource<*>{%rs}
    stream.cmd.collective<all_reduce with sum : f32>[%count] channel(%ch) {
      ro %send[%c0 for %ss] : !stream.resource<transient>{%ss},
      wo %recv[%c0 for %rs] : !stream.resource<transient>{%rs}
    }

The ``<kind (with reduction)? : element type>`` description (IREE's ``#stream.collective``) is
kept as three string properties: ``collective_kind``, ``reduction`` (absent for non-reducing
kinds) and ``element_type`` (si8 ... bf16, see rt.compiler.dialects.flow_collective).
send_recv carries its packed ``(recv << 16) | send`` rank pair as ``source_target_pair(%p)``.

Source followed: IREE ``Dialect/Stream/IR/StreamOps.td`` (Stream_AsyncCollectiveOp,
Stream_CmdCollectiveOp, Stream_Channel*Op) and ``StreamAttrs.td`` (CollectiveAttr).
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, StringAttr, i32
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import (
    AFFINITY,
    AttrDict,
    Custom,
    Directive,
    FormattedOp,
    Operand,
    OpFormat,
    Opt,
    Sized,
    Str,
    Tied,
    Type,
)
from rt.compiler.dialects.flow_collective import ELEMENT_TYPES, REDUCTIONS
from rt.compiler.dialects.stream_cmd import parse_bindings, print_bindings, verify_bindings
from rt.compiler.dialects.stream_types import INDEX, ChannelType, ResourceType

KINDS = ("all_gather", "all_reduce", "all_to_all", "broadcast", "reduce", "reduce_scatter", "send", "recv",
         "send_recv")
REDUCING = ("all_reduce", "reduce", "reduce_scatter")


class Collective(Directive):
    """``<kind (with reduction)? : element_type>`` into three string properties."""

    field = "collective_kind"

    def parse(self, state):
        parser = state.parser
        parser.parse_punctuation("<")
        pos = parser.pos
        kind = parser.parse_identifier()
        if kind not in KINDS:
            parser.raise_error(f"unknown collective '{kind}'; expected one of {', '.join(KINDS)}", pos)
        state.set_prop("collective_kind", StringAttr(kind))
        if parser.parse_optional_keyword("with") is not None:
            pos = parser.pos
            reduction = parser.parse_identifier()
            if reduction not in REDUCTIONS:
                parser.raise_error(f"unknown reduction '{reduction}'; expected one of {', '.join(REDUCTIONS)}", pos)
            state.set_prop("reduction", StringAttr(reduction))
        parser.parse_punctuation(":")
        pos = parser.pos
        element = parser.parse_identifier()
        if element not in ELEMENT_TYPES:
            parser.raise_error(f"unknown collective element type '{element}'; expected one of "
                               f"{', '.join(ELEMENT_TYPES)}", pos)
        state.set_prop("element_type", StringAttr(element))
        parser.parse_punctuation(">")

    def print(self, op, printer):
        printer.print_string(f"<{describe(op)}>")


def describe(op):
    """``all_reduce with sum : f32`` for any op with the three collective properties."""
    reduction = f" with {op.reduction.data}" if op.reduction is not None else ""
    return f"{op.collective_kind.data}{reduction} : {op.element_type.data}"


def collective_props(kind, reduction, element_type):
    """The three properties of a collective description."""
    props = {"collective_kind": StringAttr(kind), "element_type": StringAttr(element_type)}
    if reduction is not None:
        props["reduction"] = StringAttr(reduction)
    return props


def _verify_collective(op):
    kind = op.collective_kind.data
    if (kind in REDUCING) != (op.reduction is not None):
        need = "needs a reduction (with sum|product|minimum|maximum|average)" if kind in REDUCING else \
            "takes no reduction"
        raise VerifyException(f"{op.name}: {kind} {need}")


@irdl_op_definition
class ChannelCreateOp(FormattedOp):
    """``stream.channel.create on(#aff)? group("g")? : !stream.channel`` (rank/count from the
    runtime's channel provider)."""

    name = "stream.channel.create"
    group = opt_prop_def(StringAttr)
    affinity = opt_prop_def(Attribute)
    result = result_def(ChannelType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(AFFINITY, Opt(" group(", Str("group"), ")"), " : ", Type("result"), AttrDict())


@irdl_op_definition
class ChannelSplitOp(FormattedOp):
    """``stream.channel.split %ch, %color, %key : !stream.channel -> !stream.channel``."""

    name = "stream.channel.split"
    channel = operand_def(ChannelType)
    color = operand_def(INDEX)
    key = operand_def(INDEX)
    result = result_def(ChannelType)
    FORMAT: ClassVar = OpFormat(" ", Operand("channel"), ", ", Operand("color"), ", ", Operand("key"), " : ",
                                Type("channel"), " -> ", Type("result"), AttrDict())


class _ChannelQueryOp(FormattedOp):
    channel = operand_def(ChannelType)
    result = result_def(INDEX)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("channel"), " : index", AttrDict())


@irdl_op_definition
class ChannelRankOp(_ChannelQueryOp):
    """``stream.channel.rank %ch : index``."""

    name = "stream.channel.rank"


@irdl_op_definition
class ChannelCountOp(_ChannelQueryOp):
    """``stream.channel.count %ch : index``."""

    name = "stream.channel.count"


def _range(prefix):
    return ("[", Operand(f"{prefix}_offset"), " to ", Operand(f"{prefix}_end"), " for ",
            Operand(f"{prefix}_length"), "]")


@irdl_op_definition
class AsyncCollectiveOp(FormattedOp):
    """``stream.async.collective<desc>[%count] on(#aff)? channel(%ch) %send[..], %recv[..] :
    T{%ss} -> %recv as T{%rs}``: the result is ``target`` written in place."""

    name = "stream.async.collective"
    collective_kind = prop_def(StringAttr)
    reduction = opt_prop_def(StringAttr)
    element_type = prop_def(StringAttr)
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_end = operand_def(INDEX)
    target_length = operand_def(INDEX)
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    source_end = operand_def(INDEX)
    source_length = operand_def(INDEX)
    element_count = operand_def(INDEX)
    channel = operand_def(ChannelType)
    param = opt_operand_def(i32)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(Collective(), "[", Operand("element_count"), "]", AFFINITY, " channel(",
                                Operand("channel"), ")", Opt(" source_target_pair(", Operand("param"), ")"),
                                " ", Operand("source"), *_range("source"), ", ", Operand("target"),
                                *_range("target"), " : ", Sized("source", "source_size"), " -> ",
                                Tied("target", "target_size"), AttrDict())

    def verify_(self):
        _verify_collective(self)


@irdl_op_definition
class CmdCollectiveOp(FormattedOp):
    """``stream.cmd.collective<desc>[%count] channel(%ch) param(%p : i32)? { ro %s[%o for %l] :
    T{%size}, wo %r[...] : T{%size} }``: the collective as a command of an execute region."""

    name = "stream.cmd.collective"
    collective_kind = prop_def(StringAttr)
    reduction = opt_prop_def(StringAttr)
    element_type = prop_def(StringAttr)
    channel = operand_def(ChannelType)
    element_count = operand_def(INDEX)
    param = opt_operand_def(i32)
    resources = var_operand_def(ResourceType)
    resource_sizes = var_operand_def(INDEX)
    resource_offsets = var_operand_def(INDEX)
    resource_lengths = var_operand_def(INDEX)
    resource_accesses = prop_def(ArrayAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        class _State:
            props = {}

            def set_prop(self, name, value):
                self.props[name] = value

        state = _State()
        state.parser = parser
        Collective().parse(state)
        parser.parse_punctuation("[")
        count = parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)
        parser.parse_punctuation("]")
        parser.parse_keyword("channel")
        parser.parse_punctuation("(")
        channel = parser.resolve_operand(parser.parse_unresolved_operand(), ChannelType())
        parser.parse_punctuation(")")
        param = []
        if parser.parse_optional_keyword("param") is not None:
            parser.parse_punctuation("(")
            name = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            param = [parser.resolve_operand(name, parser.parse_type())]
            parser.parse_punctuation(")")
        columns, accesses, attrs = parse_bindings(parser)
        return cls.build(operands=[channel, count, param, *columns],
                         properties=dict(state.props, resource_accesses=accesses), attributes=attrs)

    def print_syntax(self, printer):
        printer.print_string(f"<{describe(self)}>[")
        printer.print_ssa_value(self.element_count)
        printer.print_string("] channel(")
        printer.print_ssa_value(self.channel)
        printer.print_string(")")
        if self.param is not None:
            printer.print_string(" param(")
            printer.print_ssa_value(self.param)
            printer.print_string(" : i32)")
        print_bindings(printer, self)

    def verify_(self):
        _verify_collective(self)
        verify_bindings(self)

    def accesses(self):
        """Access keyword per binding ("ro", "wo" or "rw")."""
        return [a.data for a in self.resource_accesses.data]


STREAM_COLLECTIVE_OPS = [ChannelCreateOp, ChannelSplitOp, ChannelRankOp, ChannelCountOp, AsyncCollectiveOp,
                         CmdCollectiveOp]
