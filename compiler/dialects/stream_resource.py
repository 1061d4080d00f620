"""``stream.resource.*`` and ``stream.timepoint.*`` ops (IREE's printed form).

::

    %r = stream.resource.alloc uninitialized on(#aff)? : !stream.resource<external>{%s}
    %t, %tp = stream.resource.alloca uninitialized on(#aff)? await(%w) => !stream.resource<transient>{%s} => !stream.timepoint
    %d = stream.resource.dealloca on(#aff)? await(%w) => %t : !stream.resource<transient>{%s} => !stream.timepoint
    %p:3 = stream.resource.pack on(#aff)? slices({
      [0, 2] = %c40,
      [1, 2] = %c4
    }) : index                                  // results: total length, then one offset per slice
    %c, %ctp = stream.resource.constants on(#aff)? :
      !stream.resource<constant>{%c40} = dense<...> : tensor<10xf32>
      => !stream.timepoint
    %v = stream.resource.subview %r[%o] : !stream.resource<constant>{%s} -> !stream.resource<constant>{%l}
    %n = stream.resource.size %r : !stream.resource<constant>
    %m = stream.resource.map %buf[%c0] : !util.buffer -> !stream.resource<staging>{%s}
    %ok, %m2 = stream.resource.try_map on(#aff)? %buf[%c0] : !util.buffer -> i1, !stream.resource<constant>{%s}
    %x = stream.resource.load %r[%o] : !stream.resource<staging>{%s} -> f32
    stream.resource.store %x, %r[%o] : f32 -> !stream.resource<staging>{%s}
    %i = stream.timepoint.immediate => !stream.timepoint
    %j = stream.timepoint.join max(%a, %b) => !stream.timepoint
    %y = stream.timepoint.await sync? %j => %r : !stream.resource<external>{%s}
    %b, %btp = stream.timepoint.barrier on(#aff)? %r : !stream.resource<external>{%s} => !stream.timepoint

Source followed: IREE ``Dialect/Stream/IR/StreamOps.td`` (Stream_Resource* / Stream_Timepoint*).
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, UnitAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import (
    AFFINITY,
    AttrDict,
    Directive,
    Either,
    Flag,
    FormattedOp,
    Operand,
    Operands,
    OpFormat,
    Opt,
    Sized,
    Type,
)
from rt.compiler.dialects.stream_types import (
    AWAIT,
    INDEX,
    ResourceType,
    SizedTypes,
    TimepointType,
    int_list,
    parse_resource_sized,
    print_resource_sized,
)

SEGMENTS = (AttrSizedOperandSegments(as_property=True),)
#: ``%x[%<prefix>_offset]``
OFFSET = "[", Operand("source_offset"), "]"


@irdl_op_definition
class ResourceAllocOp(FormattedOp):
    """``stream.resource.alloc uninitialized? on(#aff)? : !stream.resource<x>{%size}``."""

    name = "stream.resource.alloc"
    storage_size = operand_def(INDEX)
    uninitialized = opt_prop_def(UnitAttr)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(Flag(" uninitialized", "uninitialized"), AFFINITY, AttrDict(), " : ",
                                Sized("result", "storage_size"))


@irdl_op_definition
class ResourceAllocaOp(FormattedOp):
    """``stream.resource.alloca uninitialized on(#aff)? (await(%t) =>|:) T{%s} => !stream.timepoint``."""

    name = "stream.resource.alloca"
    storage_size = operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    indeterminate_lifetime = opt_prop_def(UnitAttr)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    result_timepoint = result_def(TimepointType)
    FORMAT: ClassVar = OpFormat(" uninitialized", Flag(" indeterminate", "indeterminate_lifetime"), AFFINITY,
                                Either(AWAIT, " :"), AttrDict(), " ", Sized("result", "storage_size"), " => ",
                                Type("result_timepoint"))


@irdl_op_definition
class ResourceDeallocaOp(FormattedOp):
    """``stream.resource.dealloca origin? on(#aff)? await(%t)? => %r : T{%s} => !stream.timepoint``."""

    name = "stream.resource.dealloca"
    operand = operand_def(ResourceType)
    operand_size = operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    prefer_origin = opt_prop_def(UnitAttr)
    affinity = opt_prop_def(Attribute)
    result_timepoint = result_def(TimepointType)
    FORMAT: ClassVar = OpFormat(Flag(" origin", "prefer_origin"), AFFINITY, AWAIT, " ", Operand("operand"), " : ",
                                Sized("operand", "operand_size"), " => ", Type("result_timepoint"), AttrDict())


class _Slices(Directive):
    """One indented line ``[start, end] = %size`` per slice: its lifetime interval and byte size."""

    field = "lifetime_intervals"

    def parse(self, state):
        parser = state.parser
        intervals, sizes = [], []
        while parser.parse_optional_punctuation("[") is not None:
            start = parser.parse_integer()
            parser.parse_punctuation(",")
            end = parser.parse_integer()
            parser.parse_punctuation("]")
            parser.parse_punctuation("=")
            sizes.append(parser.resolve_operand(parser.parse_unresolved_operand(), INDEX))
            intervals += [IntegerAttr(start, INDEX), IntegerAttr(end, INDEX)]
            if parser.parse_optional_punctuation(",") is None:
                break
        state.values["dynamic_slice_sizes"] = sizes
        state.set_type(("packed_offsets",), [INDEX] * len(sizes))
        state.set_prop(self.field, ArrayAttr(intervals))

    def print(self, op, printer):
        bounds = op.intervals()
        with printer.indented():
            for i, ((start, end), size) in enumerate(zip(bounds, op.dynamic_slice_sizes)):
                printer.print_string(f"\n[{start}, {end}] = ")
                printer.print_ssa_value(size)
                if i < len(bounds) - 1:
                    printer.print_string(",")


@irdl_op_definition
class ResourcePackOp(FormattedOp):
    """``%p:N+1 = stream.resource.pack on(#aff)? offset(%o)? slices({[s, e] = %size, ...}) : index``.

    ``lifetime_intervals`` holds [start0, end0, start1, end1, ...] (op indices, inclusive);
    result 0 is the total length, result i+1 the offset of slice i.
    """

    name = "stream.resource.pack"
    offset = var_operand_def(INDEX)
    dynamic_slice_sizes = var_operand_def(INDEX)
    lifetime_intervals = prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    total_length = result_def(INDEX)
    packed_offsets = var_result_def(INDEX)
    traits = traits_def(Pure())
    irdl_options = SEGMENTS

    FORMAT: ClassVar = OpFormat(AFFINITY, Opt(" offset(", Operands("offset"), ")"), " slices({", _Slices(), "\n}) : ",
                                Type("total_length"), AttrDict(keyword=True))

    def intervals(self):
        """[(start, end), ...] lifetime interval per slice."""
        flat = int_list(self.lifetime_intervals)
        return list(zip(flat[0::2], flat[1::2]))

    def verify_(self):
        if len(self.lifetime_intervals.data) != 2 * len(self.dynamic_slice_sizes):
            raise VerifyException("stream.resource.pack needs one [start, end] interval per slice size")
        if len(self.packed_offsets) != len(self.dynamic_slice_sizes):
            raise VerifyException("stream.resource.pack needs one offset result per slice")


class _ConstantValues(Directive):
    """One indented line ``T{%size} = #value`` per constant resource, then ``=>`` on its own line."""

    field = "values"

    def parse(self, state):
        parser = state.parser
        types, sizes, values = [], [], []
        while True:
            type_, size = parse_resource_sized(parser)
            parser.parse_punctuation("=")
            values.append(parser.parse_attribute())
            types.append(type_)
            sizes.append(size)
            if parser.parse_optional_punctuation(",") is None:
                break
        syn.parse_fat_arrow(parser)
        state.set_type(("results_",), types)
        state.values["result_sizes"] = sizes
        state.set_prop(self.field, ArrayAttr(values))

    def print(self, op, printer):
        with printer.indented():
            for i, (result, size, value) in enumerate(zip(op.results_, op.result_sizes, op.values.data)):
                printer.print_string("\n")
                print_resource_sized(printer, result.type, size)
                printer.print_string(" = ")
                printer.print_attribute(value)
                if i < len(op.results_) - 1:
                    printer.print_string(",")
            printer.print_string("\n=> ")


@irdl_op_definition
class ResourceConstantsOp(FormattedOp):
    """``%r..., %tp = stream.resource.constants on(#aff)? : T{%s} = #value, ... => !stream.timepoint``."""

    name = "stream.resource.constants"
    result_sizes = var_operand_def(INDEX)
    values = prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    result_timepoint = result_def(TimepointType)

    FORMAT: ClassVar = OpFormat(AFFINITY, AttrDict(), " :", _ConstantValues(), Type("result_timepoint"))


@irdl_op_definition
class ResourceSubviewOp(FormattedOp):
    """``stream.resource.subview %r[%o] : T{%s} -> T{%l}``: a byte range of a resource."""

    name = "stream.resource.subview"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    result_size = operand_def(INDEX)
    result = result_def(ResourceType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), *OFFSET, " : ", Sized("source", "source_size"), " -> ",
                                Sized("result", "result_size"), AttrDict(keyword=True))


@irdl_op_definition
class ResourceSizeOp(FormattedOp):
    """``stream.resource.size %r : !stream.resource<constant>``: the byte size of a resource."""

    name = "stream.resource.size"
    operand = operand_def(ResourceType)
    result = result_def(INDEX)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ", Type("operand"))


@irdl_op_definition
class ResourceMapOp(FormattedOp):
    """``stream.resource.map %buf[%o] : !util.buffer -> !stream.resource<staging>{%s}``: wrap host memory."""

    name = "stream.resource.map"
    source = operand_def()
    source_offset = operand_def(INDEX)
    result_size = operand_def(INDEX)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), *OFFSET, " : ", Type("source"), " -> ",
                                Sized("result", "result_size"), AttrDict(keyword=True))


@irdl_op_definition
class ResourceTryMapOp(FormattedOp):
    """``%ok, %r = stream.resource.try_map on(#aff)? %buf[%o] : !util.buffer -> i1, T{%s}``."""

    name = "stream.resource.try_map"
    source = operand_def()
    source_offset = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    did_map = result_def()
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), *OFFSET, " : ", Type("source"), " -> ",
                                Type("did_map"), ", ", Sized("result", "result_size"), AttrDict(keyword=True))


@irdl_op_definition
class ResourceLoadOp(FormattedOp):
    """``stream.resource.load %r[%o] : !stream.resource<staging>{%s} -> f32``."""

    name = "stream.resource.load"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    result = result_def()
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), *OFFSET, " : ", Sized("source", "source_size"), " -> ",
                                Type("result"), AttrDict(keyword=True))


@irdl_op_definition
class ResourceStoreOp(FormattedOp):
    """``stream.resource.store %v, %r[%o] : f32 -> !stream.resource<staging>{%s}``."""

    name = "stream.resource.store"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    FORMAT: ClassVar = OpFormat(" ", Operand("value"), ", ", Operand("target"), "[", Operand("target_offset"), "] : ",
                                Type("value"), " -> ", Sized("target", "target_size"), AttrDict(keyword=True))


@irdl_op_definition
class TimepointImmediateOp(FormattedOp):
    """``stream.timepoint.immediate => !stream.timepoint``."""

    name = "stream.timepoint.immediate"
    result = result_def(TimepointType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(AttrDict(), " => ", Type("result"))


@irdl_op_definition
class TimepointJoinOp(FormattedOp):
    """``stream.timepoint.join max(%a, %b) => !stream.timepoint``."""

    name = "stream.timepoint.join"
    await_timepoints = var_operand_def(TimepointType)
    result = result_def(TimepointType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" max", Operands("await_timepoints", "()"), AttrDict(), " => ", Type("result"))


@irdl_op_definition
class TimepointAwaitOp(FormattedOp):
    """``stream.timepoint.await sync? %t => %a, %b : T{%s}, T{%t}``: wait, then use the resources."""

    name = "stream.timepoint.await"
    await_timepoint = operand_def(TimepointType)
    resource_operands = var_operand_def()
    resource_operand_sizes = var_operand_def(INDEX)
    sync = opt_prop_def(UnitAttr)
    results_ = var_result_def()
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(Flag(" sync", "sync"), " ", Operand("await_timepoint"), " => ",
                                Operands("resource_operands"), " : ",
                                SizedTypes(("resource_operands", "results_"), "resource_operand_sizes"), AttrDict())


@irdl_op_definition
class TimepointBarrierOp(FormattedOp):
    """``%r, %tp = stream.timepoint.barrier on(#aff)? %r : T{%s} => !stream.timepoint``."""

    name = "stream.timepoint.barrier"
    resource = operand_def(ResourceType)
    resource_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    result_timepoint = result_def(TimepointType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("resource"), " : ", Sized(("resource", "result"), "resource_size"),
                                " => ", Type("result_timepoint"), AttrDict(keyword=True))


RESOURCE_OPS = [ResourceAllocOp, ResourceAllocaOp, ResourceDeallocaOp, ResourcePackOp, ResourceConstantsOp,
                ResourceSubviewOp, ResourceSizeOp, ResourceMapOp, ResourceTryMapOp, ResourceLoadOp, ResourceStoreOp,
                TimepointImmediateOp, TimepointJoinOp, TimepointAwaitOp, TimepointBarrierOp]
