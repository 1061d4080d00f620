"""The ``check`` dialect: IREE's e2e test assertions.

``check.expect_true(%i32)``, ``check.expect_false(%i32)``, ``check.expect_eq(%a, %b) : t``,
``check.expect_eq_const(%a, dense<...> : t) : t``, ``check.expect_almost_eq(%a, %b
(, atol 1.0e-04)?) : t``, ``check.expect_almost_eq_const(%a, dense<...> : t) : t``.
Each reads a tensor (or scalar) and fails the test with a located message when it differs.

Source followed: IREE ``compiler/src/iree/compiler/Modules/Check/IR/CheckOps.td``.
"""
from xdsl.dialects.builtin import FloatAttr, IntegerType, f32
from xdsl.ir import Attribute, Dialect, TypedAttribute
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn


class _ExpectBool(IRDLOperation):
    operand = operand_def(IntegerType)
    assembly_format = "`(` $operand `)` attr-dict `:` type($operand)"


@irdl_op_definition
class ExpectTrueOp(_ExpectBool):
    """``check.expect_true(%cond) : i32``: fails when the value is zero."""

    name = "check.expect_true"


@irdl_op_definition
class ExpectFalseOp(_ExpectBool):
    """``check.expect_false(%cond) : i32``: fails when the value is non-zero."""

    name = "check.expect_false"


def _parse_tolerances(parser):
    props = {}
    while parser.parse_optional_punctuation(","):
        key = parser.parse_identifier()
        if key not in ("atol", "rtol"):
            parser.raise_error(f"expected 'atol' or 'rtol', got '{key}'")
        props[key] = FloatAttr(float(parser.parse_number()), f32)
    return props


def _print_tolerances(printer, op):
    for key in ("atol", "rtol"):
        value = op.properties.get(key)
        if value is not None:
            printer.print_string(f", {key} {value.value.data:.6e}")


class _ExpectPair(IRDLOperation):
    lhs = operand_def()
    rhs = operand_def()
    atol = opt_prop_def(FloatAttr)
    rtol = opt_prop_def(FloatAttr)

    @classmethod
    def parse(cls, parser):
        parser.parse_punctuation("(")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        props = _parse_tolerances(parser)
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(lhs, type_), parser.resolve_operand(rhs, type_)],
                         properties=props, attributes=attrs)

    def print(self, printer):
        printer.print_string("(")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        _print_tolerances(printer, self)
        printer.print_string(")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


class _ExpectConst(IRDLOperation):
    lhs = operand_def()
    value = prop_def(Attribute)
    atol = opt_prop_def(FloatAttr)
    rtol = opt_prop_def(FloatAttr)

    @classmethod
    def parse(cls, parser):
        parser.parse_punctuation("(")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, TypedAttribute):
            parser.raise_error(f"{cls.name}: expected a typed constant like dense<...> : tensor<4xf32>", pos)
        props = _parse_tolerances(parser)
        props["value"] = value
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(lhs, type_)], properties=props, attributes=attrs)

    def print(self, printer):
        printer.print_string("(")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_attribute(self.value)
        _print_tolerances(printer, self)
        printer.print_string(")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)

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
