"""``rt-codegen-expand-arith-math``: scalar ``math``/``arith`` ops neither code generator has an
instruction for, rewritten into ops both have (MLIR's ``math-expand-ops`` and ``arith-expand``
in spirit; IREE runs those in its CPU and VMVX codegen pipelines).

On scalars (in ``linalg`` bodies and between them), every integer width up to i64::

    %y = math.fpowi %x, %n : f32, i32        -> %f = arith.sitofp %n : i32 to f32
                                                %y = math.powf %x, %f : f32
    %y = math.ipowi %x, %n : i32             -> square-and-multiply over the bits of %n; for
                                                %n < 0: 1 if %x == 1, (-1)^n if %x == -1, else 0
    %s, %c = arith.addui_extended %a, %b : i32, i1 -> %s = arith.addi; %c = arith.cmpi ult, %s, %a
    %lo, %hi = arith.mului_extended %a, %b : i32   -> extui to i64, muli, shrui 32, trunci
    %lo, %hi = arith.mulsi_extended %a, %b : i32   -> extsi to i64, muli, shrui 32, trunci
    (i64: the high word from 32-bit halves; signed: minus b where a < 0 and a where b < 0)

MLIR leaves ``ipowi`` of 0 by a negative exponent undefined; rt gives 0. Source followed:
MLIR ``math::IPowIOp`` / ``FPowIOp`` semantics (``MathOps.td``), ``arith`` extended ops
(``ArithOps.td``), the 32-bit-halves high product of Hacker's Delight §8-2.
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import arith
from rt.compiler.frontend import error_at_op
from rt.compiler.passes.base import Pass

_I64 = IntegerType(64)


class _Emitter:
    """Builds scalar arith ops before ``anchor``; each method returns the new SSA value."""

    def __init__(self, anchor):
        self.anchor = anchor

    def _add(self, op):
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def const(self, value, ty):
        width = ty.width.data
        value &= (1 << width) - 1
        if value >> (width - 1):
            value -= 1 << width
        return self._add(xarith.ConstantOp(IntegerAttr(value, ty)))

    def binary(self, cls, a, b):
        return self._add(cls.create(operands=[a, b], result_types=[a.type]))

    def cast(self, cls, x, ty):
        return self._add(cls.create(operands=[x], result_types=[ty]))

    def cmpi(self, predicate, a, b):
        return self._add(arith.CmpIOp(a, b, predicate))

    def select(self, cond, a, b):
        return self._add(arith.SelectOp.create(operands=[cond, a, b], result_types=[a.type]))


def _width(op, value):
    ty = value.type
    if not isinstance(ty, IntegerType) or ty.width.data > 64:
        raise error_at_op(op, f"'{op.name}' on {ty} is not supported in a dispatch; expected a "
                              f"scalar integer of at most 64 bits (linalg bodies hold scalars)")
    return ty.width.data


def _fpowi(op, e):
    exponent = e.cast(arith.SIToFPOp, op.rhs, op.lhs.type)
    return [e._add(xmath.PowFOp(op.lhs, exponent))]


def _ipowi(op, e):
    x, n = op.lhs, op.rhs
    ty, width = x.type, _width(op, x)
    one, zero, minus_one = e.const(1, ty), e.const(0, ty), e.const(-1, ty)
    result, base = one, x
    for k in range(width):
        bit = e.binary(xarith.AndIOp, e.binary(arith.ShRUIOp, n, e.const(k, ty)), one)
        result = e.select(e.cmpi("ne", bit, zero), e.binary(xarith.MuliOp, result, base), result)
        if k < width - 1:
            base = e.binary(xarith.MuliOp, base, base)
    odd = e.cmpi("ne", e.binary(xarith.AndIOp, n, one), zero)
    of_minus_one = e.select(odd, minus_one, one)
    negative = e.select(e.cmpi("eq", x, one), one, e.select(e.cmpi("eq", x, minus_one), of_minus_one, zero))
    return [e.select(e.cmpi("slt", n, zero), negative, result)]


def _addui_extended(op, e):
    total = e.binary(xarith.AddiOp, op.lhs, op.rhs)
    return [total, e.cmpi("ult", total, op.lhs)]


def _high_u64(e, a, b):
    """The high 64 bits of the unsigned 128-bit product of i64 ``a`` and ``b``."""
    mask, shift = e.const(0xFFFFFFFF, _I64), e.const(32, _I64)
    a0, a1 = e.binary(xarith.AndIOp, a, mask), e.binary(arith.ShRUIOp, a, shift)
    b0, b1 = e.binary(xarith.AndIOp, b, mask), e.binary(arith.ShRUIOp, b, shift)
    t = e.binary(xarith.MuliOp, a0, b0)
    k = e.binary(arith.ShRUIOp, t, shift)
    t = e.binary(xarith.AddiOp, e.binary(xarith.MuliOp, a1, b0), k)
    w1, w2 = e.binary(xarith.AndIOp, t, mask), e.binary(arith.ShRUIOp, t, shift)
    t = e.binary(xarith.AddiOp, e.binary(xarith.MuliOp, a0, b1), w1)
    k = e.binary(arith.ShRUIOp, t, shift)
    return e.binary(xarith.AddiOp, e.binary(xarith.AddiOp, e.binary(xarith.MuliOp, a1, b1), w2), k)


def _mul_extended(signed):
    def expand(op, e):
        a, b = op.lhs, op.rhs
        ty, width = a.type, _width(op, a)
        low = e.binary(xarith.MuliOp, a, b)
        if width == 64:
            high = _high_u64(e, a, b)
            if signed:
                zero = e.const(0, ty)
                high = e.binary(xarith.SubiOp, high, e.select(e.cmpi("slt", a, zero), b, zero))
                high = e.binary(xarith.SubiOp, high, e.select(e.cmpi("slt", b, zero), a, zero))
            return [low, high]
        ext = arith.ExtSIOp if signed else arith.ExtUIOp
        wide = e.binary(xarith.MuliOp, e.cast(ext, a, _I64), e.cast(ext, b, _I64))
        high = e.binary(arith.ShRUIOp, wide, e.const(width, _I64))
        return [low, e.cast(arith.TruncIOp, high, ty)]
    return expand


#: op class -> expansion(op, emitter) returning the values replacing the op's results.
EXPANSIONS = {
    xmath.FPowIOp: _fpowi,
    xmath.IPowIOp: _ipowi,
    xarith.AddUIExtendedOp: _addui_extended,
    xarith.MulUIExtendedOp: _mul_extended(False),
    xarith.MulSIExtendedOp: _mul_extended(True),
}


def expand(op):
    """Replace ``op`` (a key of EXPANSIONS, on scalars) by its expansion."""
    if any(hasattr(r.type, "get_shape") for r in op.results):
        raise error_at_op(op, f"'{op.name}' on {op.results[0].type} is not supported in a dispatch; "
                              f"expected scalars (elementwise ops on tensors become linalg bodies)")
    values = EXPANSIONS[type(op)](op, _Emitter(op))
    for result, value in zip(op.results, values):
        result.replace_all_uses_with(value)
    op.detach()
    op.erase()


def expand_all(root):
    """Expand every op of EXPANSIONS under ``root``."""
    for op in [o for o in root.walk() if type(o) in EXPANSIONS]:
        expand(op)


class ExpandArithMathPass(Pass):
    """Expand every op of EXPANSIONS (see the module docstring)."""

    name = "rt-codegen-expand-arith-math"

    def run(self, module, ctx):
        expand_all(module)
