"""The ``stream`` dialect: resources with lifetimes, timepoints, and the tensor/async/cmd phases.

This module holds the executable-side ops and assembles the dialect; the rest live next to it:
``stream_types`` (``!stream.resource<lifetime>``, ``!stream.timepoint``, ``!stream.binding``,
``#stream.timepoint<immediate>``), ``stream_tensor`` (``stream.tensor.*``), ``stream_async``
(``stream.async.*``, ``stream.yield``), ``stream_cmd`` (``stream.cmd.*``) and ``stream_resource``
(``stream.resource.*``, ``stream.timepoint.*``). Every op class is re-exported here.

Executable side (IREE's printed form)::

    stream.executable private @ex {
      stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
        %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
        stream.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @fn(%arg0: !stream.binding, %arg1: index) {
          %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%arg1}
          %i = stream.dispatch.workgroup.id[0] : index
          ...

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Stream/IR/StreamOps.td``,
``StreamTypes.td``.
"""
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Block, Dialect
from xdsl.irdl import (
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
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, Pure, SymbolOpInterface, SymbolTable

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._regions import parse_workgroups_region, print_workgroups_region
from rt.compiler.dialects.stream_async import *  # noqa: F401,F403  (re-export)
from rt.compiler.dialects.stream_async import ASYNC_OPS
from rt.compiler.dialects.stream_cmd import *  # noqa: F401,F403
from rt.compiler.dialects.stream_cmd import CMD_OPS
from rt.compiler.dialects.stream_resource import *  # noqa: F401,F403
from rt.compiler.dialects.stream_resource import RESOURCE_OPS
from rt.compiler.dialects.stream_tensor import *  # noqa: F401,F403
from rt.compiler.dialects.stream_tensor import TENSOR_OPS
from rt.compiler.dialects.stream_types import *  # noqa: F401,F403
from rt.compiler.dialects.stream_types import INDEX, BindingType, ChannelType, ResourceType, TimepointAttr, TimepointType


@irdl_op_definition
class ExecutableOp(IRDLOperation):
    """``stream.executable private @name { stream.executable.export ...; builtin.module {...} }``."""

    name = "stream.executable"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())

    @classmethod
    def parse(cls, parser):
        visibility = syn.parse_optional_visibility(parser)
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        props = {"sym_name": name} | ({"sym_visibility": visibility} if visibility is not None else {})
        return cls.build(properties=props, attributes=attrs.data if attrs else {}, regions=[region])

    def print(self, printer):
        syn.print_visibility(printer, self.sym_visibility)
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    def export_ops(self):
        """The stream.executable.export ops of this executable."""
        return [op for op in self.body.block.ops if isinstance(op, ExecutableExportOp)]

    def inner_module(self):
        """The builtin.module holding the dispatch functions."""
        return next(op for op in self.body.block.ops if op.name == "builtin.module")


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


class _WorkgroupQueryOp(IRDLOperation):
    dimension = prop_def(IntegerAttr)
    result = result_def(INDEX)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        parser.parse_punctuation("[")
        dim = parser.parse_integer()
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.build(result_types=[parser.parse_type()], properties={"dimension": IntegerAttr(dim, INDEX)},
                         attributes=attrs)

    def print(self, printer):
        printer.print_string(f"[{self.dimension.value.data}]")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class DispatchWorkgroupIDOp(_WorkgroupQueryOp):
    """``stream.dispatch.workgroup.id[0] : index``."""

    name = "stream.dispatch.workgroup.id"


@irdl_op_definition
class DispatchWorkgroupCountOp(_WorkgroupQueryOp):
    """``stream.dispatch.workgroup.count[0] : index``."""

    name = "stream.dispatch.workgroup.count"


@irdl_op_definition
class DispatchWorkgroupSizeOp(_WorkgroupQueryOp):
    """``stream.dispatch.workgroup.size[0] : index``."""

    name = "stream.dispatch.workgroup.size"


STREAM_OPS = (TENSOR_OPS + ASYNC_OPS + CMD_OPS + RESOURCE_OPS
              + [ExecutableOp, ExecutableExportOp, ReturnOp, BindingSubspanOp, DispatchWorkgroupIDOp,
                 DispatchWorkgroupCountOp, DispatchWorkgroupSizeOp])


def build_dialect():
    """The ``stream`` Dialect."""
    return Dialect("stream", STREAM_OPS, [ResourceType, TimepointType, BindingType, ChannelType, TimepointAttr])
