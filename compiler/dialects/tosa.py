"""The ``tosa`` dialect (TOSA 1.0 as MLIR prints it), input only.

Every op reads ``tosa.OP %a, %b {attrs} : (tA, tB) -> tR`` (and the generic form, whose
``<{...}>`` properties are read as attributes); ``tosa.while_loop (%x = %init) : (t) -> t
{ cond } do { body }`` and ``tosa.cond_if %c : tensor<i1> -> t { then } else { else }`` carry
regions ending in ``tosa.yield``; ``!tosa.shape<N>`` is the type of ``tosa.const_shape``.
``tosa-to-linalg`` (``passes/input/tosa_to_linalg.py``) converts every op.

Source followed: MLIR ``TosaOps.td`` / ``TosaTypesBase.td`` (TOSA 1.0 operand order: zero
points and shifts as operands).
"""
from typing import ClassVar

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (irdl_attr_definition, irdl_op_definition, operand_def, region_def, traits_def,
                       var_operand_def, var_result_def)
from xdsl.traits import IsTerminator

from rt.compiler.dialects._format import AttrDict, Operands, OpFormat, Opt, Types
from rt.compiler.dialects._stablehlo_forms import Generic
from rt.compiler.dialects._stablehlo_syntax import HloOp, LoopOp
from rt.compiler.dialects._tosa_syntax import CondIfForm, WhileLoopForm


@irdl_attr_definition
class ShapeType(ParametrizedAttribute, TypeAttribute):
    """``!tosa.shape<N>``: a list of N sizes known at compile time (``tosa.const_shape``)."""

    name = "tosa.shape"
    rank: IntAttr

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        rank = parser.parse_integer()
        parser.parse_punctuation(">")
        return (IntAttr(rank),)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.rank.data}>")


class _Op(Generic):
    """``tosa.OP %operands {attrs} : (types) -> types``."""


def _define(name, doc):
    cls = type("".join(p.capitalize() for p in name.split("_")) + "Op", (_Op,), {"name": f"tosa.{name}",
                                                                                  "__doc__": doc})
    return irdl_op_definition(cls)


#: op name -> one line of TOSA semantics; every op has the generic operand/attribute form
_OPS = {
    "abs": "|x|", "add": "a + b (broadcast)", "sub": "a - b", "mul": "a * b, integers then >> shift (operand 3)",
    "maximum": "max(a, b)", "minimum": "min(a, b)", "pow": "a ** b", "intdiv": "a / b truncated (integers)",
    "bitwise_and": "a & b", "bitwise_or": "a | b", "bitwise_xor": "a ^ b", "bitwise_not": "~x",
    "logical_and": "a && b (i1)", "logical_or": "a || b (i1)", "logical_xor": "a != b (i1)", "logical_not": "!x",
    "logical_left_shift": "a << b", "logical_right_shift": "a >>> b",
    "arithmetic_right_shift": "a >> b, rounding with round = true",
    "equal": "a == b", "greater": "a > b", "greater_equal": "a >= b", "select": "c ? a : b",
    "ceil": "ceil(x)", "floor": "floor(x)", "clz": "leading zeros", "exp": "e^x", "log": "ln x",
    "negate": "-x (zero points 0)", "reciprocal": "1 / x", "rsqrt": "1 / sqrt(x)", "sigmoid": "1 / (1 + e^-x)",
    "tanh": "tanh x", "sin": "sin x", "cos": "cos x", "erf": "erf x",
    "clamp": "min(max(x, min_val), max_val)", "const": "the constant `values`",
    "const_shape": "a !tosa.shape of the constant `values`", "reshape": "x with the shape operand's sizes",
    "transpose": "x with dims permuted by `perms`", "pad": "x padded by the shape operand, with the pad constant",
    "matmul": "batched a @ b (zero points 0)", "gather": "values[n, indices[n, w], c]",
    "reduce_sum": "sum over `axis`, kept as size 1", "reduce_max": "max over `axis`",
    "reduce_min": "min over `axis`", "reduce_product": "product over `axis`", "reduce_all": "and over `axis`",
    "reduce_any": "or over `axis`", "max_pool2d": "NHWC max pooling (`kernel`, `stride`, `pad`)",
    "avg_pool2d": "NHWC average pooling", "concat": "operands joined along `axis`", "reverse": "x reversed on `axis`",
    "slice": "x[start : start + size]", "tile": "x repeated by `multiples`", "cast": "x converted",
    "table": "table lookup",
}
TOSA_OPS = {name: _define(name, f"``tosa.{name}``: {doc}.") for name, doc in _OPS.items()}


@irdl_op_definition
class YieldOp(HloOp):
    """``tosa.yield %v : t``: the terminator of tosa.cond_if and tosa.while_loop regions."""

    name = "tosa.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    FORMAT: ClassVar = OpFormat(Opt(" ", Operands("values"), " : ", Types("values")), AttrDict())


@irdl_op_definition
class WhileLoopOp(LoopOp):
    """``tosa.while_loop (%x = %init) : (t) -> t { cond } do { body }``."""

    name = "tosa.while_loop"
    FORMAT: ClassVar = OpFormat(WhileLoopForm())


@irdl_op_definition
class CondIfOp(HloOp):
    """``tosa.cond_if %c : tensor<i1> -> t { then } else { else }``."""

    name = "tosa.cond_if"
    condition = operand_def()
    inputs = var_operand_def()
    outputs = var_result_def()
    then_branch = region_def()
    else_branch = region_def()
    FORMAT: ClassVar = OpFormat(CondIfForm())


def build_dialect():
    """The ``tosa`` Dialect (input only)."""
    return Dialect("tosa", [*TOSA_OPS.values(), YieldOp, WhileLoopOp, CondIfOp], [ShapeType])

