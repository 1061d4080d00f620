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
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, UnitAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects.stream_types import (
    INDEX,
    ResourceType,
    TimepointType,
    int_list,
    parse_optional_await,
    parse_resource_sized,
    print_await,
    print_resource_sized,
)

SEGMENTS = (AttrSizedOperandSegments(as_property=True),)


def _props(affinity, **extra):
    props = dict(extra)
    if affinity is not None:
        props["affinity"] = affinity
    return props


@irdl_op_definition
class ResourceAllocOp(IRDLOperation):
    """``stream.resource.alloc uninitialized? on(#aff)? : !stream.resource<x>{%size}``."""

    name = "stream.resource.alloc"
    storage_size = operand_def(INDEX)
    uninitialized = opt_prop_def(UnitAttr)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        props = {}
        if parser.parse_optional_keyword("uninitialized") is not None:
            props["uninitialized"] = UnitAttr()
        affinity = syn.parse_optional_affinity(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_, size = parse_resource_sized(parser)
        return cls.build(operands=[size], result_types=[type_], properties=_props(affinity, **props), attributes=attrs)

    def print(self, printer):
        if self.uninitialized is not None:
            printer.print_string(" uninitialized")
        syn.print_affinity(printer, self.affinity)
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        print_resource_sized(printer, self.result.type, self.storage_size)


@irdl_op_definition
class ResourceAllocaOp(IRDLOperation):
    """``stream.resource.alloca uninitialized on(#aff)? (await(%t) =>|:) T{%s} => !stream.timepoint``."""

    name = "stream.resource.alloca"
    storage_size = operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    indeterminate_lifetime = opt_prop_def(UnitAttr)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    result_timepoint = result_def(TimepointType)

    @classmethod
    def parse(cls, parser):
        parser.parse_keyword("uninitialized")
        props = {}
        if parser.parse_optional_keyword("indeterminate") is not None:
            props["indeterminate_lifetime"] = UnitAttr()
        affinity = syn.parse_optional_affinity(parser)
        awaits = parse_optional_await(parser)
        if not awaits:
            parser.parse_punctuation(":")
        attrs = parser.parse_optional_attr_dict()
        type_, size = parse_resource_sized(parser)
        syn.parse_fat_arrow(parser)
        tp_type = parser.parse_type()
        return cls.build(operands=[size, awaits], result_types=[type_, tp_type], properties=_props(affinity, **props),
                         attributes=attrs)

    def print(self, printer):
        printer.print_string(" uninitialized")
        if self.indeterminate_lifetime is not None:
            printer.print_string(" indeterminate")
        syn.print_affinity(printer, self.affinity)
        if self.await_timepoint:
            print_await(printer, self.await_timepoint)
        else:
            printer.print_string(" :")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" ")
        print_resource_sized(printer, self.result.type, self.storage_size)
        printer.print_string(" => ")
        printer.print_attribute(self.result_timepoint.type)


@irdl_op_definition
class ResourceDeallocaOp(IRDLOperation):
    """``stream.resource.dealloca origin? on(#aff)? await(%t)? => %r : T{%s} => !stream.timepoint``."""

    name = "stream.resource.dealloca"
    operand = operand_def(ResourceType)
    operand_size = operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    prefer_origin = opt_prop_def(UnitAttr)
    affinity = opt_prop_def(Attribute)
    result_timepoint = result_def(TimepointType)

    @classmethod
    def parse(cls, parser):
        props = {}
        if parser.parse_optional_keyword("origin") is not None:
            props["prefer_origin"] = UnitAttr()
        affinity = syn.parse_optional_affinity(parser)
        awaits = parse_optional_await(parser)
        name = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        type_, size = parse_resource_sized(parser)
        syn.parse_fat_arrow(parser)
        tp_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(name, type_), size, awaits], result_types=[tp_type],
                         properties=_props(affinity, **props), attributes=attrs)

    def print(self, printer):
        if self.prefer_origin is not None:
            printer.print_string(" origin")
        syn.print_affinity(printer, self.affinity)
        print_await(printer, self.await_timepoint)
        printer.print_string(" ")
        printer.print_ssa_value(self.operand)
        printer.print_string(" : ")
        print_resource_sized(printer, self.operand.type, self.operand_size)
        printer.print_string(" => ")
        printer.print_attribute(self.result_timepoint.type)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class ResourcePackOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        offset = []
        if parser.parse_optional_keyword("offset") is not None:
            parser.parse_punctuation("(")
            offset = [parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)]
            parser.parse_punctuation(")")
        parser.parse_keyword("slices")
        parser.parse_punctuation("(")
        parser.parse_punctuation("{")
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
        parser.parse_punctuation("}")
        parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        parser.parse_type()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[offset, sizes], result_types=[INDEX, [INDEX] * len(sizes)],
                         properties=_props(affinity, lifetime_intervals=ArrayAttr(intervals)),
                         attributes=attrs.data if attrs else {})

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        if self.offset:
            printer.print_string(" offset(")
            printer.print_ssa_value(self.offset[0])
            printer.print_string(")")
        printer.print_string(" slices({")
        bounds = self.intervals()
        with printer.indented():
            for i, ((start, end), size) in enumerate(zip(bounds, self.dynamic_slice_sizes)):
                printer.print_string(f"\n[{start}, {end}] = ")
                printer.print_ssa_value(size)
                if i < len(bounds) - 1:
                    printer.print_string(",")
        printer.print_string("\n}) : index")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)

    def intervals(self):
        """[(start, end), ...] lifetime interval per slice."""
        flat = int_list(self.lifetime_intervals)
        return list(zip(flat[0::2], flat[1::2]))

    def verify_(self):
        if len(self.lifetime_intervals.data) != 2 * len(self.dynamic_slice_sizes):
            raise VerifyException("stream.resource.pack needs one [start, end] interval per slice size")
        if len(self.packed_offsets) != len(self.dynamic_slice_sizes):
            raise VerifyException("stream.resource.pack needs one offset result per slice")


@irdl_op_definition
class ResourceConstantsOp(IRDLOperation):
    """``%r..., %tp = stream.resource.constants on(#aff)? : T{%s} = #value, ... => !stream.timepoint``."""

    name = "stream.resource.constants"
    result_sizes = var_operand_def(INDEX)
    values = prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    result_timepoint = result_def(TimepointType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
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
        tp_type = parser.parse_type()
        return cls.build(operands=[sizes], result_types=[types, tp_type],
                         properties=_props(affinity, values=ArrayAttr(values)), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" :")
        with printer.indented():
            for i, (result, size, value) in enumerate(zip(self.results_, self.result_sizes, self.values.data)):
                printer.print_string("\n")
                print_resource_sized(printer, result.type, size)
                printer.print_string(" = ")
                printer.print_attribute(value)
                if i < len(self.results_) - 1:
                    printer.print_string(",")
            printer.print_string("\n=> ")
        printer.print_attribute(self.result_timepoint.type)


@irdl_op_definition
class ResourceSubviewOp(IRDLOperation):
    """``stream.resource.subview %r[%o] : T{%s} -> T{%l}``: a byte range of a resource."""

    name = "stream.resource.subview"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    result_size = operand_def(INDEX)
    result = result_def(ResourceType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        stype, ssize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(src, stype), ssize, offset, size], result_types=[type_],
                         attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        syn.print_operand_list(printer, [self.source_offset])
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        printer.print_string(" -> ")
        print_resource_sized(printer, self.result.type, self.result_size)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ResourceSizeOp(IRDLOperation):
    """``stream.resource.size %r : !stream.resource<constant>``: the byte size of a resource."""

    name = "stream.resource.size"
    operand = operand_def(ResourceType)
    result = result_def(INDEX)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand)"


@irdl_op_definition
class ResourceMapOp(IRDLOperation):
    """``stream.resource.map %buf[%o] : !util.buffer -> !stream.resource<staging>{%s}``: wrap host memory."""

    name = "stream.resource.map"
    source = operand_def()
    source_offset = operand_def(INDEX)
    result_size = operand_def(INDEX)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        stype = parser.parse_type()
        parser.parse_punctuation("->")
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(src, stype), offset, size], result_types=[type_],
                         attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        syn.print_operand_list(printer, [self.source_offset])
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        print_resource_sized(printer, self.result.type, self.result_size)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ResourceTryMapOp(IRDLOperation):
    """``%ok, %r = stream.resource.try_map on(#aff)? %buf[%o] : !util.buffer -> i1, T{%s}``."""

    name = "stream.resource.try_map"
    source = operand_def()
    source_offset = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    did_map = result_def()
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        stype = parser.parse_type()
        parser.parse_punctuation("->")
        flag = parser.parse_type()
        parser.parse_punctuation(",")
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(src, stype), offset, size], result_types=[flag, type_],
                         properties=_props(affinity), attributes=attrs.data if attrs else {})

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        syn.print_operand_list(printer, [self.source_offset])
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.did_map.type)
        printer.print_string(", ")
        print_resource_sized(printer, self.result.type, self.result_size)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ResourceLoadOp(IRDLOperation):
    """``stream.resource.load %r[%o] : !stream.resource<staging>{%s} -> f32``."""

    name = "stream.resource.load"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    result = result_def()

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        stype, ssize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        type_ = parser.parse_type()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(src, stype), ssize, offset], result_types=[type_],
                         attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        syn.print_operand_list(printer, [self.source_offset])
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ResourceStoreOp(IRDLOperation):
    """``stream.resource.store %v, %r[%o] : f32 -> !stream.resource<staging>{%s}``."""

    name = "stream.resource.store"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(value, vtype), parser.resolve_operand(tgt, type_), size,
                                   offset], attributes=attrs.data if attrs else {})

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        syn.print_operand_list(printer, [self.target_offset])
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        print_resource_sized(printer, self.target.type, self.target_size)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class TimepointImmediateOp(IRDLOperation):
    """``stream.timepoint.immediate => !stream.timepoint``."""

    name = "stream.timepoint.immediate"
    result = result_def(TimepointType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        attrs = parser.parse_optional_attr_dict()
        syn.parse_fat_arrow(parser)
        return cls.build(result_types=[parser.parse_type()], attributes=attrs)

    def print(self, printer):
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" => ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class TimepointJoinOp(IRDLOperation):
    """``stream.timepoint.join max(%a, %b) => !stream.timepoint``."""

    name = "stream.timepoint.join"
    await_timepoints = var_operand_def(TimepointType)
    result = result_def(TimepointType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        parser.parse_keyword("max")
        names = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        syn.parse_fat_arrow(parser)
        type_ = parser.parse_type()
        return cls.build(operands=[[parser.resolve_operand(n, type_) for n in names]], result_types=[type_],
                         attributes=attrs)

    def print(self, printer):
        printer.print_string(" max")
        syn.print_operand_list(printer, self.await_timepoints, "(", ")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" => ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class TimepointAwaitOp(IRDLOperation):
    """``stream.timepoint.await sync? %t => %a, %b : T{%s}, T{%t}``: wait, then use the resources."""

    name = "stream.timepoint.await"
    await_timepoint = operand_def(TimepointType)
    resource_operands = var_operand_def()
    resource_operand_sizes = var_operand_def(INDEX)
    sync = opt_prop_def(UnitAttr)
    results_ = var_result_def()
    irdl_options = SEGMENTS

    @classmethod
    def parse(cls, parser):
        props = {"sync": UnitAttr()} if parser.parse_optional_keyword("sync") is not None else {}
        tp = parser.resolve_operand(parser.parse_unresolved_operand(), TimepointType())
        syn.parse_fat_arrow(parser)
        names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types, sizes = [], []
        for _ in names:
            if types:
                parser.parse_punctuation(",")
            type_, dims = syn.parse_sized_type(parser)
            types.append(type_)
            sizes.extend(dims)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[tp, syn.resolve_by_types(parser, names, types), sizes], result_types=[types],
                         properties=props, attributes=attrs)

    def print(self, printer):
        if self.sync is not None:
            printer.print_string(" sync")
        printer.print_string(" ")
        printer.print_ssa_value(self.await_timepoint)
        printer.print_string(" => ")
        printer.print_list(self.resource_operands, printer.print_ssa_value)
        printer.print_string(" : ")
        sizes = iter(self.resource_operand_sizes)
        printer.print_list(self.resource_operands, lambda v: syn.print_sized_type(
            printer, v.type, [next(sizes)] if isinstance(v.type, ResourceType) else []))
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TimepointBarrierOp(IRDLOperation):
    """``%r, %tp = stream.timepoint.barrier on(#aff)? %r : T{%s} => !stream.timepoint``."""

    name = "stream.timepoint.barrier"
    resource = operand_def(ResourceType)
    resource_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    result_timepoint = result_def(TimepointType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        name = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        type_, size = parse_resource_sized(parser)
        syn.parse_fat_arrow(parser)
        tp_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(operands=[parser.resolve_operand(name, type_), size], result_types=[type_, tp_type],
                         properties=_props(affinity), attributes=attrs.data if attrs else {})

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.resource)
        printer.print_string(" : ")
        print_resource_sized(printer, self.resource.type, self.resource_size)
        printer.print_string(" => ")
        printer.print_attribute(self.result_timepoint.type)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


RESOURCE_OPS = [ResourceAllocOp, ResourceAllocaOp, ResourceDeallocaOp, ResourcePackOp, ResourceConstantsOp,
                ResourceSubviewOp, ResourceSizeOp, ResourceMapOp, ResourceTryMapOp, ResourceLoadOp, ResourceStoreOp,
                TimepointImmediateOp, TimepointJoinOp, TimepointAwaitOp, TimepointBarrierOp]
