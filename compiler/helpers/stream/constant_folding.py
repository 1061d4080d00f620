"""Fold the scalar conversions that unpack dispatch operands once their inputs are constants.

iree-stream-pack-dispatch-operands rebuilds each original argument from i32 words
(``arith.index_cast``, ``bitcast``, ``trunci``, ``extui`` and, for 64-bit values,
``ori``/``shli``); when iree-stream-fold-uniform-operands inlines a constant word, those ops
fold to one ``arith.constant`` of the original type, as MLIR's ``createOrFold`` and the
canonicalizer do in IREE::

    %c = arith.constant 1073741824 : i32
    %a = arith.bitcast %c : i32 to f32
    // ->
    %a = arith.constant 2.000000e+00 : f32

Source followed: MLIR ``arith`` folders (ArithOps.cpp: IndexCastOp, BitcastOp, TruncIOp,
ExtUIOp, ExtSIOp, OrIOp, ShLIOp ::fold).
"""
import struct

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import arith as rt_arith

# rt's arith redefines the casts without subclassing xDSL's: parsed casts are rt's, built ones xDSL's.
_SIGN_EXTENDING = (arith.IndexCastOp, rt_arith.IndexCastOp, arith.ExtSIOp, rt_arith.ExtSIOp)
_ZERO_EXTENDING = (rt_arith.IndexCastUIOp, arith.ExtUIOp, rt_arith.ExtUIOp)
_TRUNCS = (arith.TruncIOp, rt_arith.TruncIOp)
_FLOAT_FORMATS = {Float16Type: ("<e", "<H"), Float32Type: ("<f", "<I"), Float64Type: ("<d", "<Q")}


def _bits(type_):
    return 64 if isinstance(type_, IndexType) else type_.width.data


def _unsigned(value, width):
    return value & ((1 << width) - 1)


def _signed(value, width):
    value = _unsigned(value, width)
    return value - (1 << width) if value >= 1 << (width - 1) else value


def _constant(value):
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, (IntegerAttr, FloatAttr)):
        return op.value.value.data
    return None


def _fold(op, values):
    """The folded Python value of ``op`` over constant ``values``, or None."""
    src = op.operands[0].type
    dst = op.results[0].type
    if isinstance(op, _SIGN_EXTENDING):
        return _signed(values[0], _bits(src))
    if isinstance(op, _ZERO_EXTENDING):
        return _unsigned(values[0], _bits(src))
    if isinstance(op, _TRUNCS):
        return _signed(values[0], _bits(dst))
    if isinstance(op, arith.OrIOp):
        return _signed(values[0] | values[1], _bits(dst))
    if isinstance(op, arith.ShLIOp):
        return _signed(values[0] << values[1], _bits(dst)) if 0 <= values[1] < _bits(dst) else None
    if isinstance(op, arith.BitcastOp):
        if isinstance(src, IntegerType) and type(dst) in _FLOAT_FORMATS:
            float_fmt, int_fmt = _FLOAT_FORMATS[type(dst)]
            return struct.unpack(float_fmt, struct.pack(int_fmt, _unsigned(values[0], _bits(src))))[0]
        if isinstance(src, IntegerType) and isinstance(dst, IntegerType):
            return values[0]
    return None


def _attr(value, type_):
    if isinstance(type_, (IntegerType, IndexType)):
        return IntegerAttr(value, type_)
    if type(type_) not in _FLOAT_FORMATS:  # bf16, f8: no host folding (rounding rules differ)
        return None
    return FloatAttr(value, type_)


def fold_constant_users(constant):
    """Fold the conversion ops fed by ``constant`` (an arith.constant op), transitively."""
    work = [constant]
    while work:
        op = work.pop()
        for use in list(op.results[0].uses):
            user = use.operation
            if user.parent is None or len(user.results) != 1:
                continue
            values = [_constant(v) for v in user.operands]
            if not values or any(v is None for v in values):
                continue
            folded = _fold(user, values)
            attr = None if folded is None else _attr(folded, user.results[0].type)
            if attr is None:
                continue
            new = arith.ConstantOp(attr)
            Rewriter.replace_op(user, new)
            work.append(new)
        if op.parent is not None and not op.results[0].uses:
            Rewriter.erase_op(op)
