"""``stream.async.*`` ops: value-semantics resource work and the execution regions holding it.

IREE's printed form (every op may carry ``on(#hal.device.affinity<@dev>)``)::

    %a = stream.async.alloca : !stream.resource<transient>{%s}
    %c = stream.async.constant : !stream.resource<constant>{%s} = dense<...> : tensor<4xf32>
    %p = stream.async.splat %v : f32 -> !stream.resource<*>{%s}
    %k = stream.async.clone %r : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
    %l = stream.async.slice %r[%o to %e] : !stream.resource<*>{%s} -> !stream.resource<*>{%n}
    %f = stream.async.fill %v, %r[%o to %e for %n] : f32 -> %r as !stream.resource<*>{%s}
    %u = stream.async.update %l, %r[%o to %e] : !stream.resource<*>{%n} -> %r as !stream.resource<*>{%s}
    %y = stream.async.copy %a[%o to %e], %b[%o2 to %e2], %n : !stream.resource<*>{%s} -> %b as !stream.resource<*>{%t}
    %t = stream.async.transfer %r : !stream.resource<*>{%s} from(#a) -> to(#b) !stream.resource<*>{%s}
    %x = stream.async.load %r[%o] : !stream.resource<staging>{%s} -> f32
    %w = stream.async.store %x, %r[%o] : f32 -> %r as !stream.resource<staging>{%s}
    %d = stream.async.dispatch @exe::@fn[%w](%r[%c0 to %s for %s], %n) : (!stream.resource<*>{%s}, index) -> !stream.resource<*>{%s}
    %res, %tp = stream.async.execute await(%t0) => with(%r as %arg0: !stream.resource<external>{%s})
                    -> !stream.resource<external>{%s} { ... stream.yield %v : !stream.resource<external>{%s} } => !stream.timepoint
    %c:2 = stream.async.concurrent with(%a as %x: !stream.resource<transient>{%s}) -> (...) { ... stream.yield ... }

Result-to-operand ties (in-place results) are ``tied_operands`` properties: one index per result
into the op's operands, -1 when the result is a new resource.

Source followed: IREE ``Dialect/Stream/IR/StreamOps.td`` (Stream_Async* ops, custom<ResourceRegion>).
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import IsTerminator, Pure

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import (
    AFFINITY,
    Attr,
    AttrDict,
    Custom,
    FormattedOp,
    Operand,
    Operands,
    OpFormat,
    Opt,
    Sized,
    Tied,
    Type,
)
from rt.compiler.dialects._regions import Body
from rt.compiler.dialects.stream_types import (
    AWAIT,
    INDEX,
    Captures,
    ResourceType,
    ShapedResults,
    SizedTypes,
    TimepointType,
    entry_point_parts,
    int_list,
    parse_entry_points,
    parse_shaped_results,
    print_entry_points,
    print_shaped_results,
    print_sized_types,
    tied_props,
)

SEGMENTS = (AttrSizedOperandSegments(as_property=True),)


def _range(prefix, length=False):
    """``[%<prefix>_offset to %<prefix>_end (for %<prefix>_length)?]`` directives."""
    tail = (" for ", Operand(f"{prefix}_length"), "]") if length else ("]",)
    return ("[", Operand(f"{prefix}_offset"), " to ", Operand(f"{prefix}_end"), *tail)


def _sized(field):
    """``T{%<field>_size}`` for operand/result ``field``."""
    return Sized(field, f"{field}_size")


def _parse_range(parser):
    """``[%o to %e for %l]`` -> resolved index operands."""
    parser.parse_punctuation("[")
    values = [parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)]
    for keyword in ("to", "for"):
        parser.parse_keyword(keyword)
        values.append(parser.resolve_operand(parser.parse_unresolved_operand(), INDEX))
    parser.parse_punctuation("]")
    return values


def _print_range(printer, offset, end, length):
    printer.print_string("[")
    printer.print_ssa_value(offset)
    printer.print_string(" to ")
    printer.print_ssa_value(end)
    printer.print_string(" for ")
    printer.print_ssa_value(length)
    printer.print_string("]")


#: IREE's ``custom<ResourceRegion>``: `` with(%r as %a: T{%s}) -> T{%s} { ... }``.
RESOURCE_REGION = (Captures("resource_operands", "resource_operand_sizes"),
                   Opt(" -> ", ShapedResults("results_", "result_sizes", "resource_operands")), " ", Body())


@irdl_op_definition
class AsyncAllocaOp(FormattedOp):
    """``stream.async.alloca on(#aff)? : !stream.resource<x>{%size}``: an uninitialized resource."""

    name = "stream.async.alloca"
    storage_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, AttrDict(), " : ", Sized("result", "storage_size"))


@irdl_op_definition
class AsyncConstantOp(FormattedOp):
    """``stream.async.constant on(#aff)? await(%t)? : !stream.resource<constant>{%s} = dense<..>``."""

    name = "stream.async.constant"
    await_timepoint = var_operand_def(TimepointType)
    result_size = operand_def(INDEX)
    value = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, Opt(" await(", Operands("await_timepoint"), ")"), " : ",
                                _sized("result"), " = ", Attr("value"), AttrDict())


@irdl_op_definition
class AsyncSplatOp(FormattedOp):
    """``stream.async.splat on(#aff)? %v : f32 -> !stream.resource<*>{%s}``: a resource filled with %v."""

    name = "stream.async.splat"
    value = operand_def()
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("value"), " : ", Type("value"), " -> ", _sized("result"),
                                AttrDict())


@irdl_op_definition
class AsyncCloneOp(FormattedOp):
    """``stream.async.clone on(#aff)? %r : !stream.resource<a>{%s} -> !stream.resource<b>{%s}``: a copy."""

    name = "stream.async.clone"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), " : ", _sized("source"), " -> ", _sized("result"),
                                AttrDict())


@irdl_op_definition
class AsyncSliceOp(FormattedOp):
    """``stream.async.slice on(#aff)? %r[%o to %e] : !stream.resource<*>{%s} -> !stream.resource<*>{%n}``."""

    name = "stream.async.slice"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    source_end = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), *_range("source"), " : ", _sized("source"), " -> ",
                                _sized("result"), AttrDict())


@irdl_op_definition
class AsyncFillOp(FormattedOp):
    """``stream.async.fill on(#aff)? %v, %t[%o to %e for %n] : f32 -> %t as !stream.resource<*>{%s}`` (in place)."""

    name = "stream.async.fill"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_end = operand_def(INDEX)
    target_length = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("value"), ", ", Operand("target"), *_range("target", True),
                                " : ", Type("value"), " -> ", Tied("target", "target_size"), AttrDict())


@irdl_op_definition
class AsyncUpdateOp(FormattedOp):
    """``stream.async.update on(#aff)? %u, %t[%o to %e] : !stream.resource<*>{%n} -> %t as !stream.resource<*>{%s}``."""

    name = "stream.async.update"
    update = operand_def(ResourceType)
    update_size = operand_def(INDEX)
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_end = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("update"), ", ", Operand("target"), *_range("target"), " : ",
                                _sized("update"), " -> ", Tied("target", "target_size"), AttrDict())


@irdl_op_definition
class AsyncCopyOp(FormattedOp):
    """``stream.async.copy on(#aff)? %s[%o to %e], %t[%o2 to %e2], %n : T{%ss} -> %t as T{%ts}`` (in place)."""

    name = "stream.async.copy"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    source_end = operand_def(INDEX)
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_end = operand_def(INDEX)
    length = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), *_range("source"), ", ", Operand("target"),
                                *_range("target"), ", ", Operand("length"), " : ", _sized("source"), " -> ",
                                Tied("target", "target_size"), AttrDict())


@irdl_op_definition
class AsyncTransferOp(FormattedOp):
    """``stream.async.transfer on(#x)? %r : T{%s} from(#a)? -> to(#b)? T2{%s}``: move/copy between affinities."""

    name = "stream.async.transfer"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    source_affinity = opt_prop_def(Attribute)
    result_affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), " : ", _sized("source"),
                                Opt(" from(", Attr("source_affinity"), ")"), " -> ",
                                Opt("to(", Attr("result_affinity"), ") "), _sized("result"), AttrDict())


@irdl_op_definition
class AsyncLoadOp(FormattedOp):
    """``stream.async.load %r[%o] : !stream.resource<staging>{%s} -> f32``."""

    name = "stream.async.load"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    result = result_def()
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), "[", Operand("source_offset"), "] : ", _sized("source"),
                                " -> ", Type("result"), AttrDict())


@irdl_op_definition
class AsyncStoreOp(FormattedOp):
    """``stream.async.store %v, %r[%o] : f32 -> %r as !stream.resource<staging>{%s}`` (in place)."""

    name = "stream.async.store"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(" ", Operand("value"), ", ", Operand("target"), "[", Operand("target_offset"), "] : ",
                                Type("value"), " -> ", Tied("target", "target_size"), AttrDict())


@irdl_op_definition
class AsyncDispatchOp(FormattedOp):
    """``stream.async.dispatch on(#aff)? @exe::@fn[%w](%r[%o to %e for %l], %n) : (T{%s}, index) -> T{%s}``.

    ``resource_operands`` mixes resources (each with an offset/end/length range, in order) and
    scalar operands. Results are new resources unless ``tied_operands`` names an operand.
    """

    name = "stream.async.dispatch"
    workload = var_operand_def(INDEX)
    resource_operands = var_operand_def()
    resource_operand_sizes = var_operand_def(INDEX)
    resource_operand_offsets = var_operand_def(INDEX)
    resource_operand_ends = var_operand_def(INDEX)
    resource_operand_lengths = var_operand_def(INDEX)
    result_sizes = var_operand_def(INDEX)
    entry_points = prop_def(ArrayAttr)
    tied_operands = opt_prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    irdl_options = SEGMENTS

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        entry_points = parse_entry_points(parser)
        workload = syn.parse_optional_workload(parser)
        names, ranges = [], []

        def operand():
            names.append(parser.parse_unresolved_operand())
            if parser._current_token.text == "[":
                ranges.append(_parse_range(parser))

        parser.parse_comma_separated_list(Parser.Delimiter.PAREN, operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        entries = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, lambda: syn.parse_sized_type(parser))
        types, sizes = [t for t, _ in entries], [d for _, ds in entries for d in ds]
        parser.parse_punctuation("->")
        rtypes, rsizes, tied = parse_shaped_results(parser, names, types)
        offsets, ends, lengths = ([r[k] for r in ranges] for k in range(3))
        return cls.build(operands=[workload, syn.resolve_by_types(parser, names, types), sizes, offsets, ends, lengths,
                                   rsizes], result_types=[rtypes], attributes=attrs,
                         properties=tied_props(syn.props_with_affinity(affinity, entry_points=entry_points), tied))

    def print_syntax(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        print_entry_points(printer, self.entry_points)
        syn.print_workload(printer, self.workload)
        ranges = iter(zip(self.resource_operand_offsets, self.resource_operand_ends, self.resource_operand_lengths))

        def operand(value):
            printer.print_ssa_value(value)
            if isinstance(value.type, ResourceType):
                _print_range(printer, *next(ranges))

        printer.print_string("(")
        printer.print_list(self.resource_operands, operand)
        printer.print_string(")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : (")
        print_sized_types(printer, self.resource_operands, self.resource_operand_sizes)
        printer.print_string(") -> ")
        print_shaped_results(printer, self.resource_operands, self.results_, self.result_sizes,
                             int_list(self.tied_operands))

    def entry_point(self):
        """(executable name, export name) of the first entry point."""
        return entry_point_parts(self.entry_points.data[0])


@irdl_op_definition
class AsyncExecuteOp(FormattedOp):
    """``%r, %tp = stream.async.execute on(#aff)? await(%t)? => with(...) -> T{%s} {...} => !stream.timepoint``."""

    name = "stream.async.execute"
    resource_operands = var_operand_def(ResourceType)
    resource_operand_sizes = var_operand_def(INDEX)
    result_sizes = var_operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    tied_operands = opt_prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    result_timepoint = result_def(TimepointType)
    body = region_def("single_block")
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, AWAIT, *RESOURCE_REGION, " => ", Type("result_timepoint"),
                                AttrDict(keyword=True))


@irdl_op_definition
class AsyncConcurrentOp(FormattedOp):
    """``%r = stream.async.concurrent on(#aff)? with(...) -> T{%s} { ... stream.yield ... }``: independent work."""

    name = "stream.async.concurrent"
    resource_operands = var_operand_def(ResourceType)
    resource_operand_sizes = var_operand_def(INDEX)
    result_sizes = var_operand_def(INDEX)
    tied_operands = opt_prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    body = region_def("single_block")
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, *RESOURCE_REGION, AttrDict(keyword=True))


@irdl_op_definition
class YieldOp(FormattedOp):
    """``stream.yield %a, %b : !stream.resource<x>{%s}, !stream.resource<y>{%t}``: region results."""

    name = "stream.yield"
    resource_operands = var_operand_def()
    resource_operand_sizes = var_operand_def(INDEX)
    traits = traits_def(IsTerminator(), Pure())
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AttrDict(), Opt(" ", Operands("resource_operands"), " : ",
                                                    SizedTypes("resource_operands", "resource_operand_sizes")))


ASYNC_OPS = [AsyncAllocaOp, AsyncConstantOp, AsyncSplatOp, AsyncCloneOp, AsyncSliceOp, AsyncFillOp, AsyncUpdateOp,
             AsyncCopyOp, AsyncTransferOp, AsyncLoadOp, AsyncStoreOp, AsyncDispatchOp, AsyncExecuteOp,
             AsyncConcurrentOp, YieldOp]
