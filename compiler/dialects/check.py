"""The ``check`` dialect: IREE's e2e test assertions.

``check.expect_true(%i32)``, ``check.expect_false(%i32)``, ``check.expect_eq(%a, %b) : t``,
``check.expect_eq_const(%a, dense<...> : t) : t``, ``check.expect_almost_eq(%a, %b
(, atol 1.0e-04)?) : t``, ``check.expect_almost_eq_const(%a, dense<...> : t) : t``.
Each reads a tensor (or scalar) and fails the test with a located message when it differs.

Source followed: IREE ``compiler/src/iree/compiler/Modules/Check/IR/CheckOps.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerType, f32
from xdsl.ir import Attribute, Dialect, TypedAttribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import AttrDict, Directive, FormattedOp, Operand, OpFormat, Type


class _ExpectBool(FormattedOp):
    operand = operand_def(IntegerType)
    FORMAT: ClassVar = OpFormat("(", Operand("operand"), ")", AttrDict(), " : ", Type("operand"))


@irdl_op_definition
class ExpectTrueOp(_ExpectBool):
    """``check.expect_true(%cond) : i32``: fails when the value is zero."""

    name = "check.expect_true"


@irdl_op_definition
class ExpectFalseOp(_ExpectBool):
    """``check.expect_false(%cond) : i32``: fails when the value is non-zero."""

    name = "check.expect_false"


class _Tolerances(Directive):
    """``, atol 1.0e-04, rtol 0.0e+00``: the optional ``atol``/``rtol`` f32 properties."""

    KEYS = ("atol", "rtol")

    def parse(self, state):
        parser = state.parser
        while parser.parse_optional_punctuation(","):
            key = parser.parse_identifier()
            if key not in self.KEYS:
                parser.raise_error(f"expected 'atol' or 'rtol', got '{key}'")
            state.set_prop(key, FloatAttr(float(parser.parse_number()), f32))

    def print(self, op, printer):
        for key in self.KEYS:
            value = op.properties.get(key)
            if value is not None:
                printer.print_string(f", {key} {value.value.data:.6e}")


class _Expected(Directive):
    """A typed constant (``dense<...> : tensor<4xf32>``) for the ``value`` property."""

    field = "value"

    def parse(self, state):
        pos = state.parser.pos
        value = state.parser.parse_attribute()
        if not isinstance(value, TypedAttribute):
            state.parser.raise_error(f"{state.shape.name}: expected a typed constant like dense<...> : tensor<4xf32>",
                                     pos)
        state.set_prop(self.field, value)

    def print(self, op, printer):
        printer.print_attribute(op.value)


class _ExpectPair(FormattedOp):
    lhs = operand_def()
    rhs = operand_def()
    atol = opt_prop_def(FloatAttr)
    rtol = opt_prop_def(FloatAttr)
    FORMAT: ClassVar = OpFormat("(", Operand("lhs"), ", ", Operand("rhs"), _Tolerances(), ")", AttrDict(), " : ",
                                Type(("lhs", "rhs")))


class _ExpectConst(FormattedOp):
    lhs = operand_def()
    value = prop_def(Attribute)
    atol = opt_prop_def(FloatAttr)
    rtol = opt_prop_def(FloatAttr)
    FORMAT: ClassVar = OpFormat("(", Operand("lhs"), ", ", _Expected(), _Tolerances(), ")", AttrDict(), " : ",
                                Type("lhs"))

    def verify_(self):
        if self.value.get_type() != self.lhs.type:
            raise VerifyException(
                f"{self.name}: expected value has type {self.value.get_type()} but the operand is {self.lhs.type}"
            )


@irdl_op_definition
class ExpectEqOp(_ExpectPair):
    """``check.expect_eq(%lhs, %rhs) : t``: exact equality."""

    name = "check.expect_eq"


@irdl_op_definition
class ExpectAlmostEqOp(_ExpectPair):
    """``check.expect_almost_eq(%lhs, %rhs, atol 1.0e-04?) : t``: |a-b| <= atol + rtol*|b|."""

    name = "check.expect_almost_eq"


@irdl_op_definition
class ExpectEqConstOp(_ExpectConst):
    """``check.expect_eq_const(%lhs, dense<...> : t) : t``."""

    name = "check.expect_eq_const"


@irdl_op_definition
class ExpectAlmostEqConstOp(_ExpectConst):
    """``check.expect_almost_eq_const(%lhs, dense<...> : t) : t``."""

    name = "check.expect_almost_eq_const"


def build_dialect():
    """The ``check`` Dialect."""
    return Dialect("check", [ExpectTrueOp, ExpectFalseOp, ExpectEqOp, ExpectAlmostEqOp,
                             ExpectEqConstOp, ExpectAlmostEqConstOp], [])
