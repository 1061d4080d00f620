"""The ``flow`` dialect: host tensor ops, dispatch regions/workgroups/dispatches and executables.

This module holds the executable-level ops and builds the Dialect; the type lives in
``flow_types``, the host tensor ops in ``flow_tensor`` and the dispatch ops in ``flow_dispatch``
(all re-exported here). Ops defined here (IREE's printed form):
``flow.executable private @e { flow.executable.export public @f workgroups(...) -> (...) {...};
builtin.module {...} }``, ``flow.return``, ``flow.dispatch.workgroup_count_from_slice`` /
``_from_dag_root``, ``flow.dispatch.workload.ordinal %a, 0 : index``,
``flow.dispatch.tie_shape %t : !flow.dispatch.tensor<...>{dims}``.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Flow/IR/FlowOps.td``, ``FlowBase.td``.
"""
from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr
from xdsl.ir import Dialect
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
from rt.compiler.dialects.flow_dispatch import (  # noqa: F401  (re-exported)
    DispatchOp,
    DispatchRegionOp,
    DispatchTensorLoadOp,
    DispatchTensorStoreOp,
    DispatchWorkgroupsOp,
    full_slice,
)
from rt.compiler.dialects.flow_tensor import (  # noqa: F401  (re-exported)
    TensorAllocaOp,
    TensorCloneOp,
    TensorConstantOp,
    TensorEmptyOp,
    TensorLoadOp,
    TensorReshapeOp,
    TensorSliceOp,
    TensorSplatOp,
    TensorStoreOp,
    TensorTransferOp,
    TensorUpdateOp,
)
from rt.compiler.dialects.flow_types import ACCESS, DispatchTensorType, check_dims, dynamic_rank, split_dims  # noqa: F401
from rt.compiler.dialects.hal import ExecutableOp as _HalExecutable
from rt.compiler.dialects.stream import ExecutableExportOp as _StreamExport

INDEX = IndexType()


@irdl_op_definition
class ExecutableOp(IRDLOperation):
    """``flow.executable private @name { flow.executable.export ...; builtin.module {...} }``."""

    name = "flow.executable"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())
    parse = classmethod(_HalExecutable.parse.__func__)
    print = _HalExecutable.print


@irdl_op_definition
class ExecutableExportOp(IRDLOperation):
    """``flow.executable.export public @name workgroups(%a: index) -> (index, index, index) {...}``."""

    name = "flow.executable.export"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    workgroup_count = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())
    parse = classmethod(_StreamExport.parse.__func__)
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


FLOW_OPS = [
    TensorTransferOp, TensorReshapeOp, TensorEmptyOp, TensorAllocaOp, TensorSplatOp, TensorCloneOp, TensorConstantOp,
    TensorSliceOp, TensorUpdateOp, TensorLoadOp, TensorStoreOp,
    DispatchOp, DispatchRegionOp, DispatchWorkgroupsOp, DispatchTensorLoadOp, DispatchTensorStoreOp,
    ExecutableOp, ExecutableExportOp, ReturnOp, DispatchWorkgroupCountFromSliceOp, DispatchWorkgroupCountFromDagRootOp,
    DispatchWorkloadOrdinalOp, DispatchTieShapeOp,
]


def build_dialect():
    """The ``flow`` Dialect."""
    return Dialect("flow", FLOW_OPS, [DispatchTensorType])
