"""``arith`` as xDSL 0.74.0 defines it, completed to what MLIR (and so IREE) prints.

Changes to xDSL's dialect, op by op (MLIR ``ArithOps.td`` is the reference for every syntax):

* ``arith.constant`` accepts rt's constant handles: xDSL only admits
  ``DenseIntOrFPElementsAttr``, while large and splat tensor constants are
  :class:`~rt.compiler.frontend.elements.ElementsAttr` in rt; the result type must equal the
  value's type.
* added: ``arith.index_castui`` (zero-extending index cast) and ``arith.remf``.
* casts (``extsi extui trunci sitofp uitofp fptosi fptoui index_cast index_castui extf
  truncf``) take scalars, vectors and tensors (elementwise, as MLIR's ``Arith_CastOp``);
  xDSL's take scalars only. ``trunci`` carries ``overflow<nsw, nuw>``, ``extf`` and ``truncf``
  carry ``fastmath<...>``, ``truncf`` an optional rounding mode (``to_nearest_even``...).
* ``divui divsi shrui shrsi`` carry the ``exact`` flag.
* ``cmpi`` and ``cmpf`` on tensors and vectors give ``i1`` of the operands' shape (xDSL gives
  ``i1``); their xDSL canonicalization (which folds to a scalar ``i1``) is not carried over.
* ``arith.select`` takes an ``i1`` or a shaped ``i1`` condition:
  ``arith.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>``.

Field names stay xDSL's (``input``/``result`` for casts, ``cond``/``lhs``/``rhs`` for select)
so passes written against xDSL's classes read these ops unchanged.
"""
from typing import ClassVar

from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import (AnyFloat, IndexType, IntegerAttr, IntegerType, StringAttr,
                                   TensorType, UnitAttr, VectorType, container_of)
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (AnyOf, VarConstraint, irdl_op_definition, operand_def,
                       opt_prop_def, prop_def, result_def, traits_def)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._directives import Derived, Keyword, Params, TypedAttr
from rt.compiler.dialects._format import AttrDict, Directive, Flag, FormattedOp, Operand, OpFormat, Opt, Type
from rt.compiler.frontend.elements import ElementsAttr

_INT_LIKE = container_of(IntegerType)
_INT_OR_INDEX_LIKE = container_of(AnyOf.get(IntegerType, IndexType))
_FLOAT_LIKE = container_of(AnyFloat)
_BOOL_LIKE = container_of(IntegerType(1))

#: MLIR's arith::RoundingMode keywords.
ROUNDING_MODES = ("to_nearest_even", "downward", "upward", "toward_zero", "to_nearest_away")


class ConstantOp(FormattedOp, xarith.ConstantOp):
    """``arith.constant <value>``; ``value`` may be an ElementsAttr handle."""

    FORMAT: ClassVar = OpFormat(AttrDict(), " ", TypedAttr("value", "result"))

    def verify_(self):
        if isinstance(self.value, ElementsAttr):
            if self.value.get_type() != self.result.type:
                raise VerifyException(
                    f"arith.constant: value type {self.value.get_type()} differs from result type {self.result.type}"
                )
            return
        super().verify_()


def _element(ty):
    return ty.element_type if isinstance(ty, (TensorType, VectorType)) else ty


def _shape(ty):
    return (type(ty), tuple(ty.get_shape())) if isinstance(ty, (TensorType, VectorType)) else None


def _width(ty):
    return ty.width.data if isinstance(ty, IntegerType) else None


def _cast_format(*flags):
    """``%x <flags> {attrs}? : src to dst``: the syntax of a cast."""
    return OpFormat(" ", Operand("input"), *flags, AttrDict(), " : ", Type("input"), " to ", Type("result"))


#: `` fastmath<fast>`` when the ``fastmath`` property is set (and not its default).
_FASTMATH = Opt(" fastmath", Params("fastmath", xarith.FastMathFlagsAttr))


class _Cast(FormattedOp):
    """``$input [flags] attr-dict : type($input) to type($result)``, elementwise over shapes.

    Subclasses set the operand/result constraints and ``_check(src, dst)`` on element types
    (returns an error text or None).
    """

    traits = traits_def(Pure())
    FORMAT: ClassVar = _cast_format()

    def verify_(self):
        src, dst = self.input.type, self.result.type
        if _shape(src) != _shape(dst):
            raise VerifyException(f"operand type {src} and result type {dst} must have the "
                                  f"same shape")
        problem = self._check(_element(src), _element(dst))
        if problem:
            raise VerifyException(f"{problem} ({src} to {dst})")

    def _check(self, src, dst):
        return None


def _int_resize(relation):
    """extsi / extui (relation '>') and trunci ('<') on fixed-width integers."""
    word = "wider" if relation == ">" else "narrower"

    def check(self, src, dst):
        grows = _width(dst) > _width(src)
        if grows != (relation == ">") or _width(dst) == _width(src):
            return f"the result element type must be strictly {word} than the operand's"
        return None

    return check


@irdl_op_definition
class ExtSIOp(_Cast):
    name = "arith.extsi"
    input = operand_def(_INT_LIKE)
    result = result_def(_INT_LIKE)
    _check = _int_resize(">")


@irdl_op_definition
class ExtUIOp(_Cast):
    name = "arith.extui"
    input = operand_def(_INT_LIKE)
    result = result_def(_INT_LIKE)
    _check = _int_resize(">")


@irdl_op_definition
class TruncIOp(_Cast):
    """``arith.trunci %x [overflow<nsw, nuw>] : i32 to i8``."""

    name = "arith.trunci"
    input = operand_def(_INT_LIKE)
    result = result_def(_INT_LIKE)
    overflow_flags = prop_def(xarith.IntegerOverflowAttr,
                              default_value=xarith.IntegerOverflowAttr("none"),
                              prop_name="overflowFlags")
    FORMAT: ClassVar = _cast_format(Opt(" overflow", Params("overflow_flags", xarith.IntegerOverflowAttr)))
    _check = _int_resize("<")


def _index_check(self, src, dst):
    if isinstance(src, IndexType) == isinstance(dst, IndexType):
        return "exactly one of the operand and result element types must be index"
    return None


@irdl_op_definition
class IndexCastOp(_Cast):
    """``arith.index_cast``: sign-extends (or truncates) between index and integers."""

    name = "arith.index_cast"
    input = operand_def(_INT_OR_INDEX_LIKE)
    result = result_def(_INT_OR_INDEX_LIKE)
    _check = _index_check


@irdl_op_definition
class IndexCastUIOp(_Cast):
    """``arith.index_castui``: zero-extends (or truncates) between index and integers."""

    name = "arith.index_castui"
    input = operand_def(_INT_OR_INDEX_LIKE)
    result = result_def(_INT_OR_INDEX_LIKE)
    _check = _index_check


@irdl_op_definition
class SIToFPOp(_Cast):
    name = "arith.sitofp"
    input = operand_def(_INT_LIKE)
    result = result_def(_FLOAT_LIKE)


@irdl_op_definition
class UIToFPOp(_Cast):
    name = "arith.uitofp"
    input = operand_def(_INT_LIKE)
    result = result_def(_FLOAT_LIKE)


@irdl_op_definition
class FPToSIOp(_Cast):
    name = "arith.fptosi"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_INT_LIKE)


@irdl_op_definition
class FPToUIOp(_Cast):
    name = "arith.fptoui"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_INT_LIKE)


def _float_resize(relation):
    def check(self, src, dst):
        a, b = src.bitwidth, dst.bitwidth
        if (b > a) != (relation == ">") or a == b:
            return f"the result element type must be strictly {'wider' if relation == '>' else 'narrower'}"
        return None

    return check


@irdl_op_definition
class ExtFOp(_Cast):
    """``arith.extf %x [fastmath<...>] : f16 to f32``."""

    name = "arith.extf"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)
    fastmath = opt_prop_def(xarith.FastMathFlagsAttr)
    FORMAT: ClassVar = _cast_format(_FASTMATH)
    _check = _float_resize(">")


@irdl_op_definition
class TruncFOp(_Cast):
    """``arith.truncf %x [<rounding mode>] [fastmath<...>] : f32 to f16``."""

    name = "arith.truncf"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)
    roundingmode = opt_prop_def(StringAttr)
    fastmath = opt_prop_def(xarith.FastMathFlagsAttr)
    FORMAT: ClassVar = _cast_format(Opt(" ", Keyword("roundingmode", ROUNDING_MODES)), _FASTMATH)
    _check = _float_resize("<")

    def verify_(self):
        super().verify_()
        if self.roundingmode is not None and self.roundingmode.data not in ROUNDING_MODES:
            raise VerifyException(f"rounding mode {self.roundingmode.data!r} is "
                                  f"not one of {', '.join(ROUNDING_MODES)}")


def _binary_format(*flags):
    """``%a, %b <flags> {attrs}? : type``: the syntax of a binary op on one type."""
    return OpFormat(" ", Operand("lhs"), ", ", Operand("rhs"), *flags, AttrDict(), " : ",
                    Type(("result", "lhs", "rhs")))


class _ExactBinary(FormattedOp):
    """``$lhs, $rhs [exact] attr-dict : type`` on integers or index (MLIR's exact flag)."""

    traits = traits_def(Pure())
    is_exact = opt_prop_def(UnitAttr, prop_name="isExact")
    FORMAT: ClassVar = _binary_format(Flag(" exact", "is_exact"))


def _exact_binary(op_name, base):
    """An op class named ``op_name``: xDSL's ``base`` plus the ``exact`` flag."""
    same = VarConstraint("T", _INT_OR_INDEX_LIKE)
    ns = {"name": op_name, "T": same, "lhs": operand_def(same), "rhs": operand_def(same),
          "result": result_def(same), "__annotations__": {"T": ClassVar},
          "__doc__": f"``{op_name} %a, %b [exact] : type``."}
    return irdl_op_definition(type(base.__name__, (_ExactBinary,), ns))


DivUIOp = _exact_binary("arith.divui", xarith.DivUIOp)
DivSIOp = _exact_binary("arith.divsi", xarith.DivSIOp)
ShRUIOp = _exact_binary("arith.shrui", xarith.ShRUIOp)
ShRSIOp = _exact_binary("arith.shrsi", xarith.ShRSIOp)


@irdl_op_definition
class RemFOp(FormattedOp):
    """``arith.remf %a, %b [fastmath<...>] : f32``: remainder with the sign of ``%a`` (fmod)."""

    name = "arith.remf"
    T: ClassVar = VarConstraint("T", _FLOAT_LIKE)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    fastmath = prop_def(xarith.FastMathFlagsAttr, default_value=xarith.FastMathFlagsAttr("none"))
    traits = traits_def(Pure())
    FORMAT: ClassVar = _binary_format(_FASTMATH)


class _Scaling(FormattedOp):
    """``$input, $scale attr-dict : type($input), type($scale) to type($result)``: a float
    conversion scaled by a power of two (an f8E8M0FNU ``scale``, MX formats), elementwise."""

    input = operand_def(_FLOAT_LIKE)
    scale = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)
    fastmath = opt_prop_def(xarith.FastMathFlagsAttr)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("input"), ", ", Operand("scale"), _FASTMATH, AttrDict(), " : ",
                                Type("input"), ", ", Type("scale"), " to ", Type("result"))

    def verify_(self):
        src, scale, dst = self.input.type, self.scale.type, self.result.type
        if not _shape(src) == _shape(scale) == _shape(dst):
            raise VerifyException(f"operand types {src}, {scale} and result type {dst} must have one shape")


@irdl_op_definition
class ScalingExtFOp(_Scaling):
    """``arith.scaling_extf %x, %s : f4E2M1FN, f8E8M0FNU to f32``: ``extf(x) * extf(s)``."""

    name = "arith.scaling_extf"


@irdl_op_definition
class ScalingTruncFOp(_Scaling):
    """``arith.scaling_truncf %x, %s : f32, f8E8M0FNU to f4E2M1FN``: ``truncf(x / extf(s))``."""

    name = "arith.scaling_truncf"


def i1_same_shape(ty):
    """``i1``, or the i1 tensor/vector of ``ty``'s shape (MLIR ``getI1SameShape``)."""
    if isinstance(ty, TensorType):
        return TensorType(IntegerType(1), ty.get_shape(), ty.encoding)
    if isinstance(ty, VectorType):
        return VectorType(IntegerType(1), ty.get_shape(), ty.scalable_dims)
    return IntegerType(1)


class _Predicate(Directive):
    """``slt``: the ``predicate`` property, stored as its index in the op's ``PREDICATES``; MLIR's
    enum attributes parse as a keyword or a string (``sgt`` or ``"sgt"``)."""

    field = "predicate"

    def parse(self, state):
        parser, predicates = state.parser, state.cls.PREDICATES
        pos = parser.pos
        mnemonic = parser.parse_optional_str_literal()
        if mnemonic is None:
            mnemonic = parser.parse_identifier(" (comparison predicate)")
        if mnemonic not in predicates:
            parser.raise_error(f"unknown {state.shape.name} predicate '{mnemonic}'; expected one of "
                               f"{', '.join(predicates)}", pos)
        state.set_prop(self.field, IntegerAttr(predicates.index(mnemonic), 64))

    def print(self, op, printer):
        printer.print_string(op.PREDICATES[op.predicate.value.data])


def _compare_format(*flags):
    """``<predicate>, %a, %b <flags> {attrs}? : T``; the result is ``i1`` of ``T``'s shape."""
    return OpFormat(" ", _Predicate(), ", ", Operand("lhs"), ", ", Operand("rhs"), *flags, AttrDict(), " : ",
                    Type(("lhs", "rhs")), Derived("result", "lhs", i1_same_shape))


class _Compare(FormattedOp):
    """``arith.cmp* <predicate>, %a, %b [fastmath<...>] : T`` -> ``i1``, or the ``i1``
    tensor/vector of ``T``'s shape (MLIR's result type; xDSL 0.74.0 always gives ``i1``).

    Subclasses set ``PREDICATES`` (mnemonics, index = predicate value) and the operand
    constraint; xDSL's canonicalization (folding to a scalar ``i1``) is not carried over.
    """

    PREDICATES: ClassVar[tuple] = ()
    predicate = prop_def(IntegerAttr)
    result = result_def(_BOOL_LIKE)
    traits = traits_def(Pure())

    def __init__(self, operand1, operand2, arg, **properties):
        lhs, rhs = SSAValue.get(operand1), SSAValue.get(operand2)
        if isinstance(arg, str):
            if arg not in self.PREDICATES:
                raise VerifyException(f"unknown {self.name} predicate '{arg}'; expected one of "
                                      f"{', '.join(self.PREDICATES)}")
            arg = self.PREDICATES.index(arg)
        super().__init__(operands=[lhs, rhs], result_types=[i1_same_shape(lhs.type)],
                         properties={"predicate": IntegerAttr(arg, 64), **properties})

    def verify_(self):
        if not 0 <= self.predicate.value.data < len(self.PREDICATES):
            raise VerifyException(f"predicate {self.predicate.value.data} is out of range "
                                  f"0..{len(self.PREDICATES) - 1}")
        if self.lhs.type != self.rhs.type:
            raise VerifyException(f"operands must have one type, got {self.lhs.type} and "
                                  f"{self.rhs.type}")
        if self.result.type != i1_same_shape(self.lhs.type):
            raise VerifyException(f"result type {self.result.type} must be "
                                  f"{i1_same_shape(self.lhs.type)} for operands of type "
                                  f"{self.lhs.type}")


@irdl_op_definition
class CmpIOp(_Compare):
    """``arith.cmpi slt, %a, %b : tensor<4xi32>`` -> ``tensor<4xi1>`` (``i1`` for scalars)."""

    name = "arith.cmpi"
    PREDICATES: ClassVar = tuple(xarith.CMPI_COMPARISON_OPERATIONS)
    lhs = operand_def(_INT_OR_INDEX_LIKE)
    rhs = operand_def(_INT_OR_INDEX_LIKE)
    FORMAT: ClassVar = _compare_format()


@irdl_op_definition
class CmpFOp(_Compare):
    """``arith.cmpf olt, %a, %b [fastmath<...>] : tensor<4xf32>`` -> ``tensor<4xi1>``."""

    name = "arith.cmpf"
    PREDICATES: ClassVar = tuple(xarith.CMPF_COMPARISON_OPERATIONS)
    lhs = operand_def(_FLOAT_LIKE)
    rhs = operand_def(_FLOAT_LIKE)
    fastmath = prop_def(xarith.FastMathFlagsAttr, default_value=xarith.FastMathFlagsAttr("none"))
    FORMAT: ClassVar = _compare_format(_FASTMATH)


class _ConditionType(Directive):
    """``T`` for an ``i1`` condition, else ``C, T``: the types of ``arith.select``."""

    field = "cond"

    def parse(self, state):
        first = state.parser.parse_type()
        if state.parser.parse_optional_punctuation(",") is not None:
            cond_type, value_type = first, state.parser.parse_type()
        else:
            cond_type, value_type = IntegerType(1), first
        state.set_type(("cond",), cond_type)
        state.set_type(("lhs", "rhs", "result"), value_type)

    def print(self, op, printer):
        if op.cond.type != IntegerType(1):
            printer.print_attribute(op.cond.type)
            printer.print_string(", ")
        printer.print_attribute(op.result.type)


@irdl_op_definition
class SelectOp(FormattedOp):
    """``arith.select %c, %a, %b : T`` (i1 condition) or ``: tensor<4xi1>, tensor<4xf32>``
    (elementwise condition of the result's shape)."""

    name = "arith.select"
    cond = operand_def(_BOOL_LIKE)
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    FORMAT: ClassVar = OpFormat(" ", Operand("cond"), ", ", Operand("lhs"), ", ", Operand("rhs"), AttrDict(), " : ",
                                _ConditionType())

    def verify_(self):
        if not self.lhs.type == self.rhs.type == self.result.type:
            raise VerifyException("true value, false value and result must have one type")
        cond = self.cond.type
        if cond != IntegerType(1) and _shape(cond) != _shape(self.result.type):
            raise VerifyException(f"condition {cond} must be i1 or have the result's shape "
                                  f"({self.result.type})")


_REPLACED = {op.name: op for op in (
    ConstantOp, ExtSIOp, ExtUIOp, TruncIOp, IndexCastOp, SIToFPOp, UIToFPOp, FPToSIOp,
    FPToUIOp, ExtFOp, TruncFOp, DivUIOp, DivSIOp, ShRUIOp, ShRSIOp, CmpIOp, CmpFOp, SelectOp)}
_ADDED = (IndexCastUIOp, RemFOp, ScalingExtFOp, ScalingTruncFOp)


def build_dialect():
    """xDSL's arith Dialect with the ops above replaced or added."""
    ops = [_REPLACED.get(op.name, op) for op in xarith.Arith.operations] + list(_ADDED)
    return Dialect("arith", ops, list(xarith.Arith.attributes))
