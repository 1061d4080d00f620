"""Lowering of the index arithmetic IREE's importers leave on the host -- ``affine.apply`` and
``affine.min`` on ``index`` values -- to VM i64 instructions (MLIR's lower-affine, then
ArithToVM).

``%r = affine.apply affine_map<(d0)[s0] -> (d0 * 4 + s0 floordiv 2)>(%i)[%n]``: the map's
dims, then its symbols, are the operands; ``affine.min`` takes the minimum of the map's results.
``floordiv`` rounds toward negative infinity, ``mod`` is non-negative and ``ceildiv`` rounds
up, for the positive constant divisors MLIR's affine maps allow.
Source followed: MLIR ``AffineOps.td`` and ``lib/Conversion/AffineToStandard``.
"""
from xdsl.dialects import affine
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineSymExpr

from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable


def _floordiv(e, dst, a, b):
    """dst = floor(a / b): the truncated quotient, minus 1 where the remainder is negative."""
    fb, rem, negative = e.fb, e.scratch("i64"), e.scratch("i32")
    fb.div_i64_s(dst, a, b)
    fb.rem_i64_s(rem, a, b)
    fb.cmp_lt_i64_s(negative, rem, e.const("i64", 0))
    fb.select_i64(rem, negative, e.const("i64", 1), e.const("i64", 0))
    fb.sub_i64(dst, dst, rem)


def _mod(e, dst, a, b):
    """dst = a mod b in [0, b): the remainder, plus b where it is negative."""
    fb, negative, shift = e.fb, e.scratch("i32"), e.scratch("i64")
    fb.rem_i64_s(dst, a, b)
    fb.cmp_lt_i64_s(negative, dst, e.const("i64", 0))
    fb.select_i64(shift, negative, b, e.const("i64", 0))
    fb.add_i64(dst, dst, shift)


_BINARY = {AffineBinaryOpKind.Add: lambda e, d, a, b: e.fb.add_i64(d, a, b),
           AffineBinaryOpKind.Mul: lambda e, d, a, b: e.fb.mul_i64(d, a, b),
           AffineBinaryOpKind.CeilDiv: lambda e, d, a, b: e.fb.ceildiv_i64_s(d, a, b),
           AffineBinaryOpKind.FloorDiv: _floordiv, AffineBinaryOpKind.Mod: _mod}


def _expr(e, op, expr, operands, num_dims):
    """A register holding affine ``expr`` over the registers ``operands`` (dims, then symbols)."""
    if isinstance(expr, AffineConstantExpr):
        return e.const("i64", expr.value)
    if isinstance(expr, AffineDimExpr):
        return operands[expr.position]
    if isinstance(expr, AffineSymExpr):
        return operands[num_dims + expr.position]
    if isinstance(expr, AffineBinaryOpExpr):
        lhs = _expr(e, op, expr.lhs, operands, num_dims)
        rhs = _expr(e, op, expr.rhs, operands, num_dims)
        dst = e.scratch("i64")
        _BINARY[expr.kind](e, dst, lhs, rhs)
        return dst
    raise error_at_op(op, f"'{op.name}': affine expression {expr} is not supported; expected "
                          f"constants, dims, symbols, +, *, floordiv, ceildiv, mod")


def _results(e, op):
    amap = op.map.data
    operands = [e.get(v, op) for v in op.operands]
    return [_expr(e, op, r, operands, amap.num_dims) for r in amap.results]


def _apply(e, op):
    (value,) = _results(e, op)
    e.fb.mov_i64(e.define(op.result, op), value)


def _min(e, op):
    values = _results(e, op)
    dst = e.define(op.result, op)
    e.fb.mov_i64(dst, values[0])
    for value in values[1:]:
        e.fb.min_i64_s(dst, dst, value)


#: The lowering of each affine op class, called as ``fn(emitter, op)``.
LOWERINGS = OpTable({affine.ApplyOp: _apply, affine.MinOp: _min})
