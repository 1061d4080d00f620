"""``math`` as xDSL 0.74.0 defines it, plus ops it lacks: ``erfc``, ``isnan``, ``isinf``, ``isfinite``.

All take a float scalar/vector/tensor (``math.erfc %x : f32``); the ``is*`` predicates return
i1 of the same shape (``math.isnan %x : f32``). Source followed: MLIR ``MathOps.td``.
"""
from typing import ClassVar

from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import TensorType, VectorType, i1
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from rt.compiler.dialects._directives import Derived
from rt.compiler.dialects._format import AttrDict, FormattedOp, Operand, OpFormat, Type


def _bool_like(type_):
    if isinstance(type_, TensorType):
        return TensorType(i1, type_.get_shape())
    if isinstance(type_, VectorType):
        return VectorType(i1, type_.get_shape())
    return i1


class _FloatPredicate(FormattedOp):
    operand = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ", Type("operand"),
                                Derived("result", "operand", _bool_like))


@irdl_op_definition
class ErfcOp(_FloatPredicate):
    """``math.erfc %x : f32``: complementary error function (result type = operand type)."""

    name = "math.erfc"
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ", Type(("operand", "result")))


@irdl_op_definition
class IsNaNOp(_FloatPredicate):
    """``math.isnan %x : f32`` -> i1."""

    name = "math.isnan"


@irdl_op_definition
class IsInfOp(_FloatPredicate):
    """``math.isinf %x : f32`` -> i1."""

    name = "math.isinf"


@irdl_op_definition
class IsFiniteOp(_FloatPredicate):
    """``math.isfinite %x : f32`` -> i1."""

    name = "math.isfinite"


def build_dialect():
    """xDSL's math Dialect plus rt's extra ops."""
    return Dialect("math", list(xmath.Math.operations) + [ErfcOp, IsNaNOp, IsInfOp, IsFiniteOp],
                   list(xmath.Math.attributes))



