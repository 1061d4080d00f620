"""The ``io_parameters`` dialect: loads of named parameters into HAL buffers.

``%b:2 = io_parameters.load<%device : !hal.device> affinity(%a) wait(%w) signal(%s) type(%mt)
usage(%bu) { %scope::%key[%offset] : !hal.buffer{%length}, ... }`` reads each parameter
(``!util.buffer`` scope and key strings, ``i64`` byte offset) into a new buffer of the given
memory types and usage once ``%w`` is reached, and signals ``%s``. The vm phase turns it into a
call of the ``io_parameters.load`` import (rt.runtime.io.parameters_module) with IREE's key
table and span buffers.

Source followed: IREE ``compiler/src/iree/compiler/Modules/IO/Parameters/IR/IOParametersOps.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, i32, i64
from xdsl.ir import Dialect
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, operand_def, opt_operand_def
from xdsl.irdl import var_operand_def, var_result_def
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import AttrDict, FormattedOp, Operand, OpFormat, Type
from rt.compiler.dialects._parameters import ParameterEntries
from rt.compiler.dialects.hal_types import BufferType, DeviceType, FenceType
from rt.compiler.dialects.util import BufferType as UtilBufferType


@irdl_op_definition
class LoadOp(FormattedOp):
    """``io_parameters.load<%dev : !hal.device> affinity(..) wait(..) signal(..) type(..) usage(..) {...}``."""

    name = "io_parameters.load"
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    wait_fence = operand_def(FenceType)
    signal_fence = operand_def(FenceType)
    source_scope = opt_operand_def(UtilBufferType)
    source_keys = var_operand_def(UtilBufferType)
    source_offsets = var_operand_def(i64)
    memory_types = operand_def(i32)
    buffer_usage = operand_def(i32)
    lengths = var_operand_def(IndexType())
    results_ = var_result_def(BufferType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat("<", Operand("device"), " : ", Type("device"), "> affinity(", Operand("queue_affinity"),
                                ") wait(", Operand("wait_fence"), ") signal(", Operand("signal_fence"), ") type(",
                                Operand("memory_types"), ") usage(", Operand("buffer_usage"), ")",
                                ParameterEntries("source_scope", "source_keys", "source_offsets", "results_",
                                                 "lengths"), AttrDict(keyword=True))

    def verify_(self):
        n = len(self.source_keys)
        if not n or len(self.source_offsets) != n or len(self.lengths) != n or len(self.results_) != n:
            raise VerifyException(f"needs one key, offset, length and result per parameter, got {n} keys, "
                                  f"{len(self.source_offsets)} offsets, {len(self.lengths)} lengths and "
                                  f"{len(self.results_)} results")


def build_dialect():
    """The ``io_parameters`` Dialect."""
    return Dialect("io_parameters", [LoadOp], [])
