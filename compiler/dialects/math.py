"""``math`` as xDSL 0.74.0 defines it, plus ops it lacks: ``erfc``, ``isnan``, ``isinf``, ``isfinite``.

All take a float scalar/vector/tensor (``math.erfc %x : f32``); the ``is*`` predicates return
i1 of the same shape (``math.isnan %x : f32``). Source followed: MLIR ``MathOps.td``.
"""
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import TensorType, VectorType, i1
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from rt.compiler.dialects import _syntax as syn


def _bool_like(type_):
    if isinstance(type_, TensorType):
        return TensorType(i1, type_.get_shape())
    if isinstance(type_, VectorType):
        return VectorType(i1, type_.get_shape())
    return i1


class _FloatPredicate(IRDLOperation):
    operand = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    @staticmethod
    def result_type(type_):
        return _bool_like(type_)

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(value, type_)], result_types=[cls.result_type(type_)],
                         attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.operand)
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)


@irdl_op_definition
class ErfcOp(_FloatPredicate):
    """``math.erfc %x : f32``: complementary error function (result type = operand type)."""

    name = "math.erfc"

    @staticmethod
    def result_type(type_):
        return type_


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



