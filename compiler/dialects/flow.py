"""The ``flow`` dialect: dispatch tensors, executables and host-side tensor ops.

Type: ``!flow.dispatch.tensor<readonly|writeonly|readwrite:tensor<...>>``.
Ops (IREE's printed form): ``flow.tensor.transfer %t : tensor<4xf32>{dims} to
#hal.device.affinity<@dev>``, ``flow.tensor.reshape %t : tensor<1x10xf32>{..} ->
tensor<10xf32>{..}``, ``flow.tensor.empty : tensor<?xf32>{%d}``,
``flow.executable private @e { flow.executable.export public @f workgroups(...) -> (...) {...};
builtin.module {...} }``, ``flow.return``, ``flow.dispatch.workgroup_count_from_slice`` /
``_from_dag_root``, ``flow.dispatch.workload.ordinal %a, 0 : index``,
``flow.dispatch.tie_shape %t : !flow.dispatch.tensor<...>{dims}``.
Not yet defined: ``flow.dispatch``, ``flow.dispatch.region``, ``flow.dispatch.workgroups``,
``flow.dispatch.tensor.load/store`` (see the module report).

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Flow/IR/FlowOps.td``, ``FlowBase.td``.
"""
from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, Pure, SymbolOpInterface, SymbolTable

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects.hal import ExecutableOp as _HalExecutable
from rt.compiler.dialects.stream import ExecutableExportOp as _StreamExport

INDEX = IndexType()
ACCESS = ("readonly", "writeonly", "readwrite")


@irdl_attr_definition
class DispatchTensorType(ParametrizedAttribute, TypeAttribute):
    """``!flow.dispatch.tensor<access:tensor<...>>``: a dispatch argument with its access mode."""

    name = "flow.dispatch.tensor"
    access: StringAttr = param_def()
    bound_type: TensorType = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        pos = parser.pos
        access = parser.parse_identifier()
        if access not in ACCESS:
            parser.raise_error(f"unknown dispatch tensor access '{access}'; expected one of {', '.join(ACCESS)}", pos)
        parser.parse_punctuation(":")
        bound = parser.parse_type()
        parser.parse_punctuation(">")
        return (StringAttr(access), bound)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.access.data}:")
        printer.print_attribute(self.bound_type)
        printer.print_string(">")

    def get_shape(self):
        return self.bound_type.get_shape()


@irdl_op_definition
class TensorTransferOp(IRDLOperation):
    """``flow.tensor.transfer %t : tensor<..>{dims} to #hal.device.affinity<@dev>``: move to a device."""

    name = "flow.tensor.transfer"
    operand = operand_def(TensorType)
    operand_dims = var_operand_def(INDEX)
    target = prop_def(Attribute)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        type_, dims = syn.parse_sized_type(parser)
        parser.parse_keyword("to")
        target = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(value, type_), dims], result_types=[type_],
                         properties={"target": target}, attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.operand)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.operand.type, self.operand_dims)
        printer.print_string(" to ")
        printer.print_attribute(self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorReshapeOp(IRDLOperation):
    """``flow.tensor.reshape %t : tensor<1x10xf32>{dims} -> tensor<10xf32>{dims}``."""

    name = "flow.tensor.reshape"
    source = operand_def(TensorType)
    source_dims = var_operand_def(INDEX)
    result_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        src_type, src_dims = syn.parse_sized_type(parser)
        parser.parse_punctuation("->")
        type_, dims = syn.parse_sized_type(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(value, src_type), src_dims, dims], result_types=[type_],
                         attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.source.type, self.source_dims)
        printer.print_string(" -> ")
        syn.print_sized_type(printer, self.result.type, self.result_dims)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorEmptyOp(IRDLOperation):
    """``flow.tensor.empty : tensor<?x4xf32>{%d}``: an uninitialized tensor."""

    name = "flow.tensor.empty"
    result_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_, dims = syn.parse_sized_type(parser)
        return cls.build(operands=[dims], result_types=[type_], attributes=attrs)

    def print(self, printer):
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.result.type, self.result_dims)


@irdl_op_definition
class ExecutableOp(IRDLOperation):
    """``flow.executable private @name { flow.executable.export ...; builtin.module {...} }``."""

    name = "flow.executable"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())
    parse = _HalExecutable.parse
    print = _HalExecutable.print


@irdl_op_definition
class ExecutableExportOp(IRDLOperation):
    """``flow.executable.export public @name workgroups(%a: index) -> (index, index, index) {...}``."""

    name = "flow.executable.export"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    workgroup_count = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())
    parse = _StreamExport.parse
    print = _StreamExport.print


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``flow.return %x, %y, %z : index, index, index``."""

    name = "flow.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "attr-dict ($values^ `:` type($values))?"


class _WorkgroupCountOp(IRDLOperation):
    workload = var_operand_def(INDEX)
    x = result_def(INDEX)
    y = result_def(INDEX)
    z = result_def(INDEX)

    @classmethod
    def parse(cls, parser):
        values = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand) or []
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[[parser.resolve_operand(v, INDEX) for v in values]],
                         result_types=[INDEX, INDEX, INDEX], attributes=attrs)

    def print(self, printer):
        if self.workload:
            printer.print_string(" ")
            printer.print_list(self.workload, printer.print_ssa_value)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class DispatchWorkgroupCountFromSliceOp(_WorkgroupCountOp):
    """``%x, %y, %z = flow.dispatch.workgroup_count_from_slice %w0, %w1``."""

    name = "flow.dispatch.workgroup_count_from_slice"


@irdl_op_definition
class DispatchWorkgroupCountFromDagRootOp(_WorkgroupCountOp):
    """``%x, %y, %z = flow.dispatch.workgroup_count_from_dag_root %w0``."""

    name = "flow.dispatch.workgroup_count_from_dag_root"


@irdl_op_definition
class DispatchWorkloadOrdinalOp(IRDLOperation):
    """``flow.dispatch.workload.ordinal %arg, 0 : index``: tags a dispatch argument as workload i."""

    name = "flow.dispatch.workload.ordinal"
    operand = operand_def(INDEX)
    ordinal = prop_def(IntegerAttr)
    result = result_def(INDEX)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        ordinal = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(value, type_)], result_types=[type_],
                         properties={"ordinal": IntegerAttr(ordinal, INDEX)}, attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.operand)
        printer.print_string(f", {self.ordinal.value.data}")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class DispatchTieShapeOp(IRDLOperation):
    """``flow.dispatch.tie_shape %t : !flow.dispatch.tensor<...>{dims}``: attaches dynamic dims."""

    name = "flow.dispatch.tie_shape"
    operand = operand_def(DispatchTensorType)
    dynamic_dims = var_operand_def(INDEX)
    result = result_def(DispatchTensorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        type_, dims = syn.parse_sized_type(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(value, type_), dims], result_types=[type_], attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.operand)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.result.type, self.dynamic_dims)
        syn.print_attr_dict(printer, self.attributes)


FLOW_OPS = [TensorTransferOp, TensorReshapeOp, TensorEmptyOp, ExecutableOp, ExecutableExportOp, ReturnOp,
            DispatchWorkgroupCountFromSliceOp, DispatchWorkgroupCountFromDagRootOp, DispatchWorkloadOrdinalOp,
            DispatchTieShapeOp]


def build_dialect():
    """The ``flow`` Dialect."""
    return Dialect("flow", FLOW_OPS, [DispatchTensorType])

