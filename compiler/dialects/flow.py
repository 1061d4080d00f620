"""The ``flow`` dialect: host tensor ops, dispatch regions/workgroups/dispatches and executables.

This module holds the executable-level ops and builds the Dialect; the type lives in
``flow_types``, the host tensor ops in ``flow_tensor`` (data movement) and ``flow_tensor_shape``
(constants, reshape, bitcast, tie_shape) and the dispatch ops in ``flow_dispatch``
(all re-exported here). Ops defined here (IREE's printed form):
``flow.executable private @e { flow.executable.export public @f workgroups(...) -> (...) {...};
builtin.module {...} }``, ``flow.return``, ``flow.dispatch.workgroup_count_from_slice`` /
``_from_dag_root``, ``flow.dispatch.workload.ordinal %a, 0 : index``,
``flow.dispatch.tie_shape %t : !flow.dispatch.tensor<...>{dims}``.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Flow/IR/FlowOps.td``, ``FlowBase.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Dialect
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from rt.compiler.dialects._format import AttrDict, FormattedOp, Int, Operand, Operands, OpFormat, Opt, Sized, Type
from rt.compiler.dialects._regions import SymbolContainerOp, WorkgroupsExportOp
from rt.compiler.dialects.flow_dispatch import (  # noqa: F401  (re-exported)
    DispatchOp,
    DispatchRegionOp,
    DispatchTensorLoadOp,
    DispatchTensorStoreOp,
    DispatchWorkgroupsOp,
    ReturnOp,
    full_slice,
)
from rt.compiler.dialects.flow_tensor import (  # noqa: F401  (re-exported)
    TensorAllocaOp,
    TensorCloneOp,
    TensorEmptyOp,
    TensorLoadOp,
    TensorSliceOp,
    TensorSplatOp,
    TensorStoreOp,
    TensorTraceOp,
    TensorTransferOp,
    TensorUpdateOp,
)
from rt.compiler.dialects.flow_collective import FLOW_COLLECTIVE_OPS, ChannelType
from rt.compiler.dialects.flow_tensor_shape import (  # noqa: F401  (re-exported)
    TensorBitCastOp,
    TensorConstantOp,
    TensorDynamicConstantOp,
    TensorReshapeOp,
    TensorTieShapeOp,
)
from rt.compiler.dialects.flow_types import (  # noqa: F401  (re-exported)
    ACCESS,
    DispatchTensorType,
    NamedParameterAttr,
    check_dims,
    dynamic_rank,
    split_dims,
)

INDEX = IndexType()


@irdl_op_definition
class ExecutableOp(SymbolContainerOp):
    """``flow.executable private @name { flow.executable.export ...; builtin.module {...} }``."""

    name = "flow.executable"


@irdl_op_definition
class ExecutableExportOp(WorkgroupsExportOp):
    """``flow.executable.export public @name workgroups(%a: index) -> (index, index, index) {...}``."""

    name = "flow.executable.export"


class _WorkgroupCountOp(FormattedOp):
    workload = var_operand_def(INDEX)
    x = result_def(INDEX)
    y = result_def(INDEX)
    z = result_def(INDEX)
    FORMAT: ClassVar = OpFormat(Opt(" ", Operands("workload")), AttrDict())


@irdl_op_definition
class DispatchWorkgroupCountFromSliceOp(_WorkgroupCountOp):
    """``%x, %y, %z = flow.dispatch.workgroup_count_from_slice %w0, %w1``."""

    name = "flow.dispatch.workgroup_count_from_slice"


@irdl_op_definition
class DispatchWorkgroupCountFromDagRootOp(_WorkgroupCountOp):
    """``%x, %y, %z = flow.dispatch.workgroup_count_from_dag_root %w0``."""

    name = "flow.dispatch.workgroup_count_from_dag_root"


@irdl_op_definition
class DispatchWorkloadOrdinalOp(FormattedOp):
    """``flow.dispatch.workload.ordinal %arg, 0 : index``: tags a dispatch argument as workload i."""

    name = "flow.dispatch.workload.ordinal"
    operand = operand_def(INDEX)
    ordinal = prop_def(IntegerAttr)
    result = result_def(INDEX)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), ", ", Int("ordinal"), AttrDict(), " : ",
                                Type(("result", "operand")))


@irdl_op_definition
class DispatchTieShapeOp(FormattedOp):
    """``flow.dispatch.tie_shape %t : !flow.dispatch.tensor<...>{dims}``: attaches dynamic dims."""

    name = "flow.dispatch.tie_shape"
    operand = operand_def(DispatchTensorType)
    dynamic_dims = var_operand_def(INDEX)
    result = result_def(DispatchTensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), " : ", Sized(("result", "operand"), "dynamic_dims"),
                                AttrDict())


FLOW_OPS = [
    TensorTransferOp, TensorReshapeOp, TensorEmptyOp, TensorAllocaOp, TensorSplatOp, TensorCloneOp, TensorConstantOp,
    TensorSliceOp, TensorUpdateOp, TensorLoadOp, TensorStoreOp, TensorDynamicConstantOp, TensorBitCastOp,
    TensorTieShapeOp, TensorTraceOp,
    DispatchOp, DispatchRegionOp, DispatchWorkgroupsOp, DispatchTensorLoadOp, DispatchTensorStoreOp,
    ExecutableOp, ExecutableExportOp, ReturnOp, DispatchWorkgroupCountFromSliceOp, DispatchWorkgroupCountFromDagRootOp,
    DispatchWorkloadOrdinalOp, DispatchTieShapeOp, *FLOW_COLLECTIVE_OPS,
]


def build_dialect():
    """The ``flow`` Dialect."""
    return Dialect("flow", FLOW_OPS, [DispatchTensorType, NamedParameterAttr, ChannelType])
