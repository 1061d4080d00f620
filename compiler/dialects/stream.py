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
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Dialect
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsTerminator, Pure

from rt.compiler.dialects._format import RETURN_VALUES, AttrDict, FormattedOp, Int, Operand, OpFormat, Sized, Type
from rt.compiler.dialects._regions import SymbolContainerOp, WorkgroupsExportOp
from rt.compiler.dialects.stream_async import *  # noqa: F401,F403  (re-export)
from rt.compiler.dialects.stream_async import ASYNC_OPS
from rt.compiler.dialects.stream_cmd import *  # noqa: F401,F403
from rt.compiler.dialects.stream_cmd import CMD_OPS
from rt.compiler.dialects.stream_resource import *  # noqa: F401,F403
from rt.compiler.dialects.stream_resource import RESOURCE_OPS
from rt.compiler.dialects.stream_tensor import *  # noqa: F401,F403
from rt.compiler.dialects.stream_tensor import TENSOR_OPS
from rt.compiler.dialects.stream_types import *  # noqa: F401,F403
from rt.compiler.dialects.stream_collective import STREAM_COLLECTIVE_OPS
from rt.compiler.dialects.stream_types import (
    INDEX,
    BindingType,
    ChannelType,
    NamedParameterAttr,
    ResourceType,
    TimepointAttr,
    TimepointType,
)


@irdl_op_definition
class ExecutableOp(SymbolContainerOp):
    """``stream.executable private @name { stream.executable.export ...; builtin.module {...} }``."""

    name = "stream.executable"

    def export_ops(self):
        """The stream.executable.export ops of this executable."""
        return [op for op in self.body.block.ops if isinstance(op, ExecutableExportOp)]

    def inner_module(self):
        """The builtin.module holding the dispatch functions."""
        return next(op for op in self.body.block.ops if isinstance(op, ModuleOp))


@irdl_op_definition
class ExecutableExportOp(WorkgroupsExportOp):
    """``stream.executable.export public @name workgroups(%a: index) -> (index, index, index) {...}``."""

    name = "stream.executable.export"


@irdl_op_definition
class ReturnOp(FormattedOp):
    """``stream.return %x, %y, %z : index, index, index``."""

    name = "stream.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    FORMAT: ClassVar = OpFormat(AttrDict(), RETURN_VALUES)


@irdl_op_definition
class BindingSubspanOp(FormattedOp):
    """``stream.binding.subspan %b[%offset] : !stream.binding -> !flow.dispatch.tensor<...>{dims}``."""

    name = "stream.binding.subspan"
    binding = operand_def(BindingType)
    byte_offset = operand_def(INDEX)
    dynamic_dims = var_operand_def(INDEX)
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("binding"), "[", Operand("byte_offset"), "] : ", Type("binding"), " -> ",
                                Sized("result", "dynamic_dims"), AttrDict())


class _WorkgroupQueryOp(FormattedOp):
    dimension = prop_def(IntegerAttr)
    result = result_def(INDEX)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat("[", Int("dimension"), "]", AttrDict(), " : ", Type("result"))


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


STREAM_OPS = (TENSOR_OPS + ASYNC_OPS + CMD_OPS + RESOURCE_OPS + STREAM_COLLECTIVE_OPS
              + [ExecutableOp, ExecutableExportOp, ReturnOp, BindingSubspanOp, DispatchWorkgroupIDOp,
                 DispatchWorkgroupCountOp, DispatchWorkgroupSizeOp])


def build_dialect():
    """The ``stream`` Dialect."""
    return Dialect("stream", STREAM_OPS, [ResourceType, TimepointType, BindingType, ChannelType, TimepointAttr,
                                          NamedParameterAttr])
