"""The ``stream`` dialect: resources with lifetimes, timepoints and the tensor/async phases.

Types: ``!stream.resource<*|external|transient|constant|variable|staging>``,
``!stream.timepoint``, ``!stream.binding``. Attribute: ``#stream.timepoint<immediate>``.
Ops (IREE's printed form): ``stream.tensor.sizeof on(#aff)? tensor<?x?xf32, #enc>{%d0, %d1} :
index``, ``stream.tensor.import/export``, ``stream.async.transfer``, ``stream.resource.size``,
``stream.timepoint.await/join/immediate``, ``stream.executable`` / ``.export`` / ``stream.return``,
``stream.binding.subspan``. The remaining async/cmd ops (async.execute, async.dispatch,
resource.alloca/dealloca/pack, cmd.*) are not defined yet: see the module report.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Stream/IR/StreamOps.td``,
``StreamTypes.td``.
"""
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, StringAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    operand_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, Pure, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._regions import parse_workgroups_region, print_workgroups_region
from rt.compiler.dialects.hal import ExecutableOp as _HalExecutable

INDEX = IndexType()
LIFETIMES = ("*", "external", "transient", "constant", "variable", "staging")


@irdl_attr_definition
class ResourceType(ParametrizedAttribute, TypeAttribute):
    """``!stream.resource<lifetime>``: a byte buffer whose lifetime is one of LIFETIMES."""

    name = "stream.resource"
    lifetime: StringAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation("*") is not None:
            lifetime = "*"
        else:
            pos = parser.pos
            lifetime = parser.parse_identifier()
            if lifetime not in LIFETIMES:
                parser.raise_error(f"unknown resource lifetime '{lifetime}'; expected one of {', '.join(LIFETIMES)}", pos)
        parser.parse_punctuation(">")
        return (StringAttr(lifetime),)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.lifetime.data}>")


@irdl_attr_definition
class TimepointType(ParametrizedAttribute, TypeAttribute):
    """``!stream.timepoint``: a point on a device timeline."""

    name = "stream.timepoint"


@irdl_attr_definition
class BindingType(ParametrizedAttribute, TypeAttribute):
    """``!stream.binding``: an opaque dispatch argument bound to a resource range."""

    name = "stream.binding"


@irdl_attr_definition
class TimepointAttr(ParametrizedAttribute):
    """``#stream.timepoint<immediate>``: an already-reached timepoint (global initializers)."""

    name = "stream.timepoint"
    value: StringAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        value = parser.parse_identifier()
        parser.parse_punctuation(">")
        if value != "immediate":
            parser.raise_error(f"#stream.timepoint<{value}>: only 'immediate' is valid")
        return (StringAttr(value),)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.value.data}>")


def _parse_resource_sized(parser):
    """``!stream.resource<x>{%size}`` -> (type, size operand)."""
    pos = parser.pos
    type_, dims = syn.parse_sized_type(parser)
    if len(dims) != 1:
        parser.raise_error(f"expected one size operand in braces after {type_}", pos)
    return type_, dims[0]


@irdl_op_definition
class TensorSizeOfOp(IRDLOperation):
    """``stream.tensor.sizeof on(#aff)? tensor<?x?xf32, #enc>{%d0, %d1} : index``: storage bytes."""

    name = "stream.tensor.sizeof"
    encoding = prop_def(Attribute)
    encoding_dims = var_operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    storage_size = result_def(INDEX)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        type_, dims = syn.parse_sized_type(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        props = {"encoding": type_}
        if affinity is not None:
            props["affinity"] = affinity
        return cls.build(operands=[dims], result_types=[parser.parse_type()], properties=props, attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        syn.print_sized_type(printer, self.encoding, self.encoding_dims)
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.storage_size.type)

    def verify_(self):
        dynamic = sum(1 for d in self.encoding.get_shape() if d == DYNAMIC_INDEX)
        if dynamic != len(self.encoding_dims):
            raise VerifyException(f"{self.encoding} has {dynamic} dynamic dims but {len(self.encoding_dims)} sizes were given")


@irdl_op_definition
class TensorImportOp(IRDLOperation):
    """``stream.tensor.import on(#aff)? %bv : !hal.buffer_view -> tensor<..>{dims} in !stream.resource<external>{%size}``."""

    name = "stream.tensor.import"
    source = operand_def()
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = syn.parse_typed_operand(parser)
        parser.parse_punctuation("->")
        enc, dims = syn.parse_sized_type(parser)
        parser.parse_keyword("in")
        type_, size = _parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict()
        props = {"result_encoding": enc} | ({"affinity": affinity} if affinity is not None else {})
        return cls.build(operands=[src, dims, size], result_types=[type_], properties=props, attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        syn.print_typed_operand(printer, self.source, "", "")
        printer.print_string(" -> ")
        syn.print_sized_type(printer, self.result_encoding, self.result_encoding_dims)
        printer.print_string(" in ")
        syn.print_sized_type(printer, self.result.type, [self.result_size])
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorExportOp(IRDLOperation):
    """``stream.tensor.export on(#aff)? %r : tensor<..>{dims} in !stream.resource<external>{%size} -> !hal.buffer_view``."""

    name = "stream.tensor.export"
    source = operand_def(ResourceType)
    source_encoding_dims = var_operand_def(INDEX)
    source_size = operand_def(INDEX)
    source_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def()

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        enc, dims = syn.parse_sized_type(parser)
        parser.parse_keyword("in")
        type_, size = _parse_resource_sized(parser)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        props = {"source_encoding": enc} | ({"affinity": affinity} if affinity is not None else {})
        return cls.build(operands=[parser.resolve_operand(src, type_), dims, size], result_types=[result_type],
                         properties=props, attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.source_encoding, self.source_encoding_dims)
        printer.print_string(" in ")
        syn.print_sized_type(printer, self.source.type, [self.source_size])
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncTransferOp(IRDLOperation):
    """``stream.async.transfer %r : !stream.resource<a>{%s} from(#aff)? -> to(#aff)? !stream.resource<b>{%s}``."""

    name = "stream.async.transfer"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    result_size = operand_def(INDEX)
    source_affinity = opt_prop_def(Attribute)
    result_affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        src_type, src_size = _parse_resource_sized(parser)
        props = {}
        if (aff := syn.parse_keyword_paren(parser, "from", parser.parse_attribute)) is not None:
            props["source_affinity"] = aff
        parser.parse_punctuation("->")
        if (aff := syn.parse_keyword_paren(parser, "to", parser.parse_attribute)) is not None:
            props["result_affinity"] = aff
        type_, size = _parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, src_type), src_size, size], result_types=[type_],
                         properties=props, attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.source.type, [self.source_size])
        if self.source_affinity is not None:
            printer.print_string(" from(")
            printer.print_attribute(self.source_affinity)
            printer.print_string(")")
        printer.print_string(" -> ")
        if self.result_affinity is not None:
            printer.print_string("to(")
            printer.print_attribute(self.result_affinity)
            printer.print_string(") ")
        syn.print_sized_type(printer, self.result.type, [self.result_size])
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class ResourceSizeOp(IRDLOperation):
    """``stream.resource.size %r : !stream.resource<constant>``: the byte size of a resource."""

    name = "stream.resource.size"
    operand = operand_def(ResourceType)
    result = result_def(INDEX)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand)"


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
    """``stream.timepoint.await %t => %a, %b : !stream.resource<x>{%s}, ...``: wait, then use the resources."""

    name = "stream.timepoint.await"
    await_timepoint = operand_def(TimepointType)
    resource_operands = var_operand_def()
    resource_operand_sizes = var_operand_def(INDEX)
    results_ = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser):
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
                         attributes=attrs)

    def print(self, printer):
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
class ExecutableOp(IRDLOperation):
    """``stream.executable private @name { stream.executable.export ...; builtin.module {...} }``."""

    name = "stream.executable"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())
    parse = _HalExecutable.parse
    print = _HalExecutable.print


@irdl_op_definition
class ExecutableExportOp(IRDLOperation):
    """``stream.executable.export public @name workgroups(%a: index) -> (index, index, index) {...}``."""

    name = "stream.executable.export"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    workgroup_count = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    @classmethod
    def parse(cls, parser):
        visibility = syn.parse_optional_visibility(parser)
        name = parser.parse_symbol_name()
        props = {"sym_name": name}
        if visibility is not None:
            props["sym_visibility"] = visibility
        region = parse_workgroups_region(parser, "workgroups")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.build(properties=props, regions=[region], attributes=attrs.data if attrs else {})

    def print(self, printer):
        syn.print_visibility(printer, self.sym_visibility)
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        print_workgroups_region(printer, "workgroups", self.workgroup_count)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``stream.return %x, %y, %z : index, index, index``."""

    name = "stream.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "attr-dict ($values^ `:` type($values))?"


@irdl_op_definition
class BindingSubspanOp(IRDLOperation):
    """``stream.binding.subspan %b[%offset] : !stream.binding -> !flow.dispatch.tensor<...>{dims}``."""

    name = "stream.binding.subspan"
    binding = operand_def(BindingType)
    byte_offset = operand_def(INDEX)
    dynamic_dims = var_operand_def(INDEX)
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        binding = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        offset = parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)
        parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        binding_type = parser.parse_type()
        parser.parse_punctuation("->")
        type_, dims = syn.parse_sized_type(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(binding, binding_type), offset, dims],
                         result_types=[type_], attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.binding)
        printer.print_string("[")
        printer.print_ssa_value(self.byte_offset)
        printer.print_string("] : ")
        printer.print_attribute(self.binding.type)
        printer.print_string(" -> ")
        syn.print_sized_type(printer, self.result.type, self.dynamic_dims)
        syn.print_attr_dict(printer, self.attributes)


STREAM_OPS = [TensorSizeOfOp, TensorImportOp, TensorExportOp, AsyncTransferOp, ResourceSizeOp,
              TimepointImmediateOp, TimepointJoinOp, TimepointAwaitOp, ExecutableOp, ExecutableExportOp,
              ReturnOp, BindingSubspanOp]


def build_dialect():
    """The ``stream`` Dialect."""
    return Dialect("stream", STREAM_OPS, [ResourceType, TimepointType, BindingType, TimepointAttr])
