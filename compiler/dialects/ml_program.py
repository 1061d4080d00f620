"""``ml_program`` as xDSL 0.74.0 defines it, plus the mutable-global ops JAX and IREE's tests use.

xDSL has ``ml_program.global`` and ``ml_program.global_load_const``; rt adds
``ml_program.global_load @g : tensor<f32>`` and ``ml_program.global_store @g = %v : tensor<f32>``.
``iree-import-ml-program`` (``passes/input/import_ml_program.py``) turns all four into ``util``
globals in the input phase.

Source followed: MLIR ``MLProgramOps.td``.
"""
from typing import ClassVar

from xdsl.dialects import ml_program as xml_program
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def

from rt.compiler.dialects._format import AttrDict, FormattedOp, Operand, OpFormat, SymbolRef, Type


@irdl_op_definition
class GlobalLoadOp(FormattedOp):
    """``ml_program.global_load @g : tensor<f32>``: the current value of a (mutable) global."""

    name = "ml_program.global_load"
    global_ = prop_def(SymbolRefAttr, prop_name="global")
    result = result_def()
    FORMAT: ClassVar = OpFormat(" ", SymbolRef("global_"), AttrDict(), " : ", Type("result"))


@irdl_op_definition
class GlobalStoreOp(FormattedOp):
    """``ml_program.global_store @g = %v : tensor<f32>``: a new value for a mutable global."""

    name = "ml_program.global_store"
    global_ = prop_def(SymbolRefAttr, prop_name="global")
    value = operand_def()
    FORMAT: ClassVar = OpFormat(" ", SymbolRef("global_"), " = ", Operand("value"), AttrDict(), " : ", Type("value"))


GlobalOp = xml_program.GlobalOp
GlobalLoadConstantOp = xml_program.GlobalLoadConstantOp


def build_dialect():
    """xDSL's ml_program ops plus global_load and global_store."""
    return Dialect("ml_program", [GlobalOp, GlobalLoadConstantOp, GlobalLoadOp, GlobalStoreOp], [])
