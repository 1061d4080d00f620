"""StableHLO elementwise ops as arith/math ops, on tensors or on scalars (helper, not a pass).

``emit_elementwise(b, op_class, args, result_type)`` builds the arith/math ops computing one
StableHLO elementwise op (``stablehlo.add``, ``compare``, ``convert``, ...) on ``args`` of the
result's shape: on tensors (``convert-elementwise-to-linalg`` later wraps them into
``linalg.generic``) or on scalars (the bodies of ``stablehlo.reduce``). ``b`` is an
:class:`OpSink` collecting the new ops. Integer types are signless and read as signed, ``i1``
as unsigned (StableHLO's ``pred``), as IREE's ``MapStableHLOToScalarOp.h`` does; shifts by the
bit width or more give StableHLO's results (0, or the sign for ``shift_right_arithmetic``)
instead of arith's poison.

Raises CompileError (at the op) for element types an op does not take (``stablehlo.sine`` of an
integer, ``stablehlo.power`` of integers).

Source followed: the StableHLO spec (``docs/spec.md``, each op's semantics) and IREE's
``compiler/plugins/input/StableHLO/Conversion/MapStableHLOToScalarOp.h`` (which arith/math op
each StableHLO op and element type becomes).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (AnyFloat, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, IntegerType,
                                   TensorType, i1)

from rt.compiler.dialects import arith, chlo, stablehlo as hlo
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable


class OpSink:
    """Collects the ops a conversion builds, located at the op they replace."""

    def __init__(self, location):
        self.location, self.ops = location, []

    def add(self, op):
        """Append ``op``; return its first result (or the op when it has none)."""
        op.location = self.location
        self.ops.append(op)
        return op.results[0] if op.results else op


def element_type(type_):
    return type_.get_element_type() if isinstance(type_, TensorType) else type_


def with_element(type_, element):
    return TensorType(element, type_.get_shape()) if isinstance(type_, TensorType) else element


def is_float(type_):
    return isinstance(element_type(type_), AnyFloat)


def is_bool(type_):
    return element_type(type_) == i1


def constant(b, value, type_):
    """A splat constant of ``type_`` (tensor or scalar) holding ``value``."""
    element = element_type(type_)
    scalar = FloatAttr(float(value), element) if isinstance(element, AnyFloat) else IntegerAttr(int(value), element)
    if isinstance(type_, TensorType):
        attr = DenseIntOrFPElementsAttr.from_list(type_, [scalar.value.data])
    else:
        attr = scalar
    return b.add(arith.ConstantOp.create(result_types=[type_], properties={"value": attr}))


def _binary(b, cls, lhs, rhs, type_):
    return b.add(cls.build(operands=[lhs, rhs], result_types=[type_]))


def _unary(b, cls, x, type_):
    return b.add(cls.build(operands=[x], result_types=[type_]))


def _by_kind(float_cls, int_cls, bool_cls=None):
    """A binary emitter choosing the arith op by the element type (float, integer, i1)."""
    def emit(b, op, args, type_):
        if is_float(type_):
            cls = float_cls
        elif is_bool(type_) and bool_cls is not None:
            cls = bool_cls
        else:
            cls = int_cls
        if cls is None:
            raise error_at_op(op, f"'{op.name}' does not take element type {element_type(type_)}")
        return _binary(b, cls, args[0], args[1], type_)
    return emit


def _float_unary(cls):
    def emit(b, op, args, type_):
        if not is_float(type_):
            raise error_at_op(op, f"'{op.name}' takes a float element type, got {element_type(type_)}")
        return _unary(b, cls, args[0], type_)
    return emit


def _abs(b, op, args, type_):
    return _unary(b, xmath.AbsFOp if is_float(type_) else xmath.AbsIOp, args[0], type_)


def _negate(b, op, args, type_):
    if is_float(type_):
        return _unary(b, xarith.NegfOp, args[0], type_)
    return _binary(b, xarith.SubiOp, constant(b, 0, type_), args[0], type_)


def _not(b, op, args, type_):
    if is_float(type_):
        raise error_at_op(op, f"'{op.name}' takes an integer or i1 element type, got {element_type(type_)}")
    return _binary(b, xarith.XOrIOp, args[0], constant(b, -1 if not is_bool(type_) else 1, type_), type_)


def _logistic(b, op, args, type_):
    """1 / (1 + exp(-x))."""
    if not is_float(type_):
        raise error_at_op(op, f"'{op.name}' takes a float element type, got {element_type(type_)}")
    one = constant(b, 1.0, type_)
    neg = _unary(b, xarith.NegfOp, args[0], type_)
    exp = _unary(b, xmath.ExpOp, neg, type_)
    return _binary(b, xarith.DivfOp, one, _binary(b, xarith.AddfOp, one, exp, type_), type_)


def _sign(b, op, args, type_):
    """-1, 0 or 1 by the sign of x (floats: ±0 and NaN are returned as they are)."""
    x = args[0]
    zero = constant(b, 0, type_)
    if is_float(type_):
        positive, negative = b.add(arith.CmpFOp(x, zero, "ogt")), b.add(arith.CmpFOp(x, zero, "olt"))
        rest = x
    else:
        positive, negative = b.add(arith.CmpIOp(x, zero, "sgt")), b.add(arith.CmpIOp(x, zero, "slt"))
        rest = zero
    minus = b.add(arith.SelectOp.build(operands=[negative, constant(b, -1, type_), rest], result_types=[type_]))
    return b.add(arith.SelectOp.build(operands=[positive, constant(b, 1, type_), minus], result_types=[type_]))


def _shift(kind):
    """shift_left / shift_right_logical / shift_right_arithmetic with StableHLO's large shifts."""
    def emit(b, op, args, type_):
        if is_float(type_):
            raise error_at_op(op, f"'{op.name}' takes an integer element type, got {element_type(type_)}")
        value, amount = args
        width = element_type(type_).width.data
        too_far = b.add(arith.CmpIOp(amount, constant(b, width, type_), "uge"))
        if kind == "arithmetic":
            clamped = b.add(arith.SelectOp.build(operands=[too_far, constant(b, width - 1, type_), amount],
                                                 result_types=[type_]))
            return _binary(b, arith.ShRSIOp, value, clamped, type_)
        cls = xarith.ShLIOp if kind == "left" else arith.ShRUIOp
        shifted = _binary(b, cls, value, amount, type_)
        return b.add(arith.SelectOp.build(operands=[too_far, constant(b, 0, type_), shifted], result_types=[type_]))
    return emit


def _power(b, op, args, type_):
    if not is_float(type_):
        raise error_at_op(op, f"'{op.name}' of integers is not supported by rt; convert to a float type first")
    return _binary(b, xmath.PowFOp, args[0], args[1], type_)


_FLOAT_PREDICATES = {"EQ": "oeq", "NE": "une", "GE": "oge", "GT": "ogt", "LE": "ole", "LT": "olt"}
_SIGNED_PREDICATES = {"EQ": "eq", "NE": "ne", "GE": "sge", "GT": "sgt", "LE": "sle", "LT": "slt"}
_UNSIGNED_PREDICATES = {"EQ": "eq", "NE": "ne", "GE": "uge", "GT": "ugt", "LE": "ule", "LT": "ult"}


def _compare(b, op, args, type_):
    direction = op.attributes.get("comparison_direction")
    if direction is None:
        raise error_at_op(op, "'stablehlo.compare' needs comparison_direction "
                              "(#stablehlo<comparison_direction EQ|NE|GE|GT|LE|LT>)")
    word = direction.value.data
    lhs, rhs = args
    operand_type = lhs.type
    if is_float(operand_type):
        return b.add(arith.CmpFOp(lhs, rhs, _FLOAT_PREDICATES[word]))
    compare_type = op.attributes.get("compare_type")
    unsigned = is_bool(operand_type) or (compare_type is not None and compare_type.value.data == "UNSIGNED")
    return b.add(arith.CmpIOp(lhs, rhs, (_UNSIGNED_PREDICATES if unsigned else _SIGNED_PREDICATES)[word]))


def _select(b, op, args, type_):
    pred, *values = args
    if isinstance(pred.type, TensorType) and pred.type.get_num_dims() == 0 and isinstance(type_, TensorType) \
            and type_.get_num_dims():  # the spec's 0-d predicate choosing whole tensors: broadcast it
        from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, empty, generic  # (a cycle)
        rank = type_.get_num_dims()
        shape = TensorType(i1, type_.get_shape())
        pred = generic(b, [pred], [empty(b, shape, [(values[0], i) for i in range(rank)])],
                       affine_maps(rank, [], dim_exprs(rank)), ["parallel"] * rank, [shape], lambda s, a: [a[0]])[0]
    return b.add(arith.SelectOp.build(operands=[pred, *values], result_types=[type_]))


def convert(b, op, x, type_):
    """``x`` converted to ``type_``'s element type as ``stablehlo.convert`` does (to i1: x != 0)."""
    src, dst = element_type(x.type), element_type(type_)
    if src == dst:
        return x
    if dst == i1:
        zero = constant(b, 0, x.type)
        return b.add(arith.CmpFOp(x, zero, "une") if isinstance(src, AnyFloat) else arith.CmpIOp(x, zero, "ne"))
    if isinstance(src, AnyFloat) and isinstance(dst, AnyFloat):
        cls = arith.ExtFOp if dst.bitwidth > src.bitwidth else arith.TruncFOp
    elif isinstance(src, AnyFloat):
        cls = arith.FPToSIOp
    elif isinstance(dst, AnyFloat):
        cls = arith.UIToFPOp if src == i1 else arith.SIToFPOp
    elif isinstance(src, IntegerType) and isinstance(dst, IntegerType):
        if dst.width.data > src.width.data:
            cls = arith.ExtUIOp if src == i1 else arith.ExtSIOp
        else:
            cls = arith.TruncIOp
    else:
        raise error_at_op(op, f"'{op.name}' from {src} to {dst} is not supported by rt")
    return _unary(b, cls, x, type_)


def _convert(b, op, args, type_):
    return convert(b, op, args[0], type_)


def _exp_pair(b, x, type_):
    return _unary(b, xmath.ExpOp, x, type_), _unary(b, xmath.ExpOp, _unary(b, xarith.NegfOp, x, type_), type_)


def _hyperbolic(combine):
    """sinh (``combine`` = subf) and cosh (addf) as (exp(x) -+ exp(-x)) / 2 (both devices have exp)."""
    def emit(b, op, args, type_):
        _require_float(op, type_)
        up, down = _exp_pair(b, args[0], type_)
        return _binary(b, xarith.MulfOp, _binary(b, combine, up, down, type_), constant(b, 0.5, type_), type_)
    return emit


def _require_float(op, type_):
    if not is_float(type_):
        raise error_at_op(op, f"'{op.name}' takes a float element type, got {element_type(type_)}")


def _inverse_hyperbolic(kind):
    """asinh = log(x + sqrt(x*x + 1)), acosh = log(x + sqrt(x*x - 1)), atanh = log((1+x)/(1-x)) / 2."""
    def emit(b, op, args, type_):
        _require_float(op, type_)
        x, one = args[0], constant(b, 1.0, type_)
        if kind == "atanh":
            ratio = _binary(b, xarith.DivfOp, _binary(b, xarith.AddfOp, one, x, type_),
                            _binary(b, xarith.SubfOp, one, x, type_), type_)
            return _binary(b, xarith.MulfOp, _unary(b, xmath.LogOp, ratio, type_), constant(b, 0.5, type_), type_)
        square = _binary(b, xarith.MulfOp, x, x, type_)
        inner = _binary(b, xarith.AddfOp if kind == "asinh" else xarith.SubfOp, square, one, type_)
        return _unary(b, xmath.LogOp, _binary(b, xarith.AddfOp, x, _unary(b, xmath.SqrtOp, inner, type_), type_),
                      type_)
    return emit


def _inverse_trig(kind):
    """asin = atan2(x, sqrt(1 - x*x)), acos = atan2(sqrt(1 - x*x), x), atan = atan2(x, 1)."""
    def emit(b, op, args, type_):
        _require_float(op, type_)
        x, one = args[0], constant(b, 1.0, type_)
        if kind == "atan":
            return _binary(b, xmath.Atan2Op, x, one, type_)
        root = _unary(b, xmath.SqrtOp, _binary(b, xarith.SubfOp, one, _binary(b, xarith.MulfOp, x, x, type_), type_),
                      type_)
        lhs, rhs = (x, root) if kind == "asin" else (root, x)
        return _binary(b, xmath.Atan2Op, lhs, rhs, type_)
    return emit


def _wrapped(value, width):
    """``value`` (an unsigned bit pattern) as the signed integer of ``width`` bits with those bits."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _popcount_bits(b, x, type_):
    """The number of set bits of each element of ``x`` (SWAR: pairs, nibbles, bytes, then a multiply)."""
    width = element_type(type_).width.data

    def mask(byte):
        """``byte`` repeated in every byte of the element."""
        return constant(b, _wrapped(sum(byte << (8 * k) for k in range((width + 7) // 8)), width), type_)

    def shr(v, n):
        return _binary(b, arith.ShRUIOp, v, constant(b, n, type_), type_)
    if width == 1:
        return x
    x = _binary(b, xarith.SubiOp, x, _binary(b, xarith.AndIOp, shr(x, 1), mask(0x55), type_), type_)
    if width > 2:
        x = _binary(b, xarith.AddiOp, _binary(b, xarith.AndIOp, x, mask(0x33), type_),
                    _binary(b, xarith.AndIOp, shr(x, 2), mask(0x33), type_), type_)
    if width > 4:
        x = _binary(b, xarith.AndIOp, _binary(b, xarith.AddiOp, x, shr(x, 4), type_), mask(0x0F), type_)
    if width > 8:
        x = shr(_binary(b, xarith.MuliOp, x, mask(0x01), type_), width - 8)
    return x


def _popcount(b, op, args, type_):
    if is_float(type_):
        raise error_at_op(op, f"'{op.name}' takes an integer element type, got {element_type(type_)}")
    return _popcount_bits(b, args[0], type_)


def _count_leading_zeros(b, op, args, type_):
    """width - popcount(x with every bit below its highest set bit set)."""
    if is_float(type_):
        raise error_at_op(op, f"'{op.name}' takes an integer element type, got {element_type(type_)}")
    width = element_type(type_).width.data
    x = args[0]
    step = 1
    while step < width:
        x = _binary(b, xarith.OrIOp, x, _binary(b, arith.ShRUIOp, x, constant(b, step, type_), type_), type_)
        step *= 2
    return _binary(b, xarith.SubiOp, constant(b, width, type_), _popcount_bits(b, x, type_), type_)


#: erfc's rational Chebyshev fit: erfc(|x|) = t exp(-x^2 + P(t)), t = 1 / (1 + |x| / 2), relative error
#: below 1.2e-7 everywhere (Numerical Recipes' erfcc, after W. J. Cody); coefficients of P from t^0 up
_ERFC_COEFFICIENTS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398,
                      1.48851587, -0.82215223, 0.17087277)


def _erfc(b, op, args, type_):
    """erfc from exp alone (both devices): the fit above for |x|, and 2 - erfc(|x|) for x < 0."""
    _require_float(op, type_)
    x = args[0]
    one, half = constant(b, 1.0, type_), constant(b, 0.5, type_)
    z = _unary(b, xmath.AbsFOp, x, type_)
    t = _binary(b, xarith.DivfOp, one, _binary(b, xarith.AddfOp, one, _binary(b, xarith.MulfOp, half, z, type_),
                                               type_), type_)
    poly = constant(b, _ERFC_COEFFICIENTS[-1], type_)
    for c in reversed(_ERFC_COEFFICIENTS[:-1]):
        poly = _binary(b, xarith.AddfOp, constant(b, c, type_), _binary(b, xarith.MulfOp, t, poly, type_), type_)
    exponent = _binary(b, xarith.SubfOp, poly, _binary(b, xarith.MulfOp, z, z, type_), type_)
    y = _binary(b, xarith.MulfOp, t, _unary(b, xmath.ExpOp, exponent, type_), type_)
    negative = b.add(arith.CmpFOp(x, constant(b, 0.0, type_), "olt"))
    mirrored = _binary(b, xarith.SubfOp, constant(b, 2.0, type_), y, type_)
    return b.add(arith.SelectOp.build(operands=[negative, mirrored, y], result_types=[type_]))


#: StableHLO elementwise op class -> emitter(b, op, args, result_type) -> result value
ELEMENTWISE = OpTable({
    hlo.AddOp: _by_kind(xarith.AddfOp, xarith.AddiOp, xarith.OrIOp),
    hlo.SubtractOp: _by_kind(xarith.SubfOp, xarith.SubiOp, xarith.XOrIOp),
    hlo.MulOp: _by_kind(xarith.MulfOp, xarith.MuliOp, xarith.AndIOp),
    hlo.DivOp: _by_kind(xarith.DivfOp, arith.DivSIOp, arith.DivUIOp),
    hlo.RemOp: _by_kind(arith.RemFOp, xarith.RemSIOp, xarith.RemUIOp),
    hlo.MaxOp: _by_kind(xarith.MaximumfOp, xarith.MaxSIOp, xarith.OrIOp),
    hlo.MinOp: _by_kind(xarith.MinimumfOp, xarith.MinSIOp, xarith.AndIOp),
    hlo.AndOp: _by_kind(None, xarith.AndIOp),
    hlo.OrOp: _by_kind(None, xarith.OrIOp),
    hlo.XorOp: _by_kind(None, xarith.XOrIOp),
    hlo.Atan2Op: _by_kind(xmath.Atan2Op, None),
    hlo.PowOp: _power,
    hlo.ShiftLeftOp: _shift("left"),
    hlo.ShiftRightLogicalOp: _shift("logical"),
    hlo.ShiftRightArithmeticOp: _shift("arithmetic"),
    hlo.AbsOp: _abs,
    hlo.NegOp: _negate,
    hlo.NotOp: _not,
    hlo.SignOp: _sign,
    hlo.LogisticOp: _logistic,
    hlo.CbrtOp: _float_unary(xmath.CbrtOp),
    hlo.CeilOp: _float_unary(xmath.CeilOp),
    hlo.CosineOp: _float_unary(xmath.CosOp),
    hlo.ExpOp: _float_unary(xmath.ExpOp),
    hlo.Expm1Op: _float_unary(xmath.ExpM1Op),
    hlo.FloorOp: _float_unary(xmath.FloorOp),
    hlo.LogOp: _float_unary(xmath.LogOp),
    hlo.Log1pOp: _float_unary(xmath.Log1pOp),
    hlo.RoundOp: _float_unary(xmath.RoundOp),
    hlo.RoundNearestEvenOp: _float_unary(xmath.RoundEvenOp),
    hlo.RsqrtOp: _float_unary(xmath.RsqrtOp),
    hlo.SineOp: _float_unary(xmath.SinOp),
    hlo.SqrtOp: _float_unary(xmath.SqrtOp),
    hlo.TanOp: _float_unary(xmath.TanOp),
    hlo.TanhOp: _float_unary(xmath.TanhOp),
    hlo.CountLeadingZerosOp: _count_leading_zeros,
    hlo.PopulationCountOp: _popcount,
    hlo.CompareOp: _compare,
    hlo.SelectOp: _select,
    hlo.ConvertOp: _convert,
    chlo.ErfOp: _float_unary(xmath.ErfOp),
    chlo.ErfcOp: _erfc,
    chlo.TanOp: _float_unary(xmath.TanOp),
    chlo.SinhOp: _hyperbolic(xarith.SubfOp),
    chlo.CoshOp: _hyperbolic(xarith.AddfOp),
    chlo.AsinhOp: _inverse_hyperbolic("asinh"),
    chlo.AcoshOp: _inverse_hyperbolic("acosh"),
    chlo.AtanhOp: _inverse_hyperbolic("atanh"),
    chlo.AsinOp: _inverse_trig("asin"),
    chlo.AcosOp: _inverse_trig("acos"),
    chlo.AtanOp: _inverse_trig("atan"),
})


def emit_elementwise(b, op, args, result_type, kind=None):
    """The value of elementwise ``op`` (or of the op class ``kind``, for ops built from others such
    as ``clamp``; errors are located at ``op``) applied to ``args`` (values of ``result_type``'s shape)."""
    kind = kind or type(op)
    if issubclass(kind, hlo.IsFiniteOp):  # x - x is 0 for finite x, NaN for inf and NaN (both devices)
        difference = _binary(b, xarith.SubfOp, args[0], args[0], args[0].type)
        return b.add(arith.CmpFOp(difference, constant(b, 0.0, args[0].type), "oeq"))
    return ELEMENTWISE[kind](b, op, args, result_type)


def is_elementwise(op):
    return op in ELEMENTWISE or isinstance(op, hlo.IsFiniteOp)
