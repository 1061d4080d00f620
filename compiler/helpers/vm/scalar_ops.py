"""Lowering of scalar arith/math ops to VM instructions (IREE's ArithToVM / MathToVM).

Integers: i1..i32 in i32 registers, i64/index in i64 registers; i1 values are 0 or 1, i8/i16
results zero-extended. Arithmetic on i8/i16 computes in i32 -- each operand re-extended from
its low bits (signed for the signed ops and predicates, unsigned otherwise; arguments may
arrive sign-extended) -- and truncates the result back, as IREE's VM conversion promotes
i8/i16 to i32 registers. Floats: f32 and f64, and f16 carried in f32 registers (see :mod:`half`).
Comparisons produce i32 0/1; ``arith.cmpf`` ordered predicates are false on NaN, unordered ones
true. ``arith.maximumf``/``minimumf`` propagate NaN, ``maxnumf``/``minnumf`` return the other
operand; ``arith.floordivsi`` rounds toward negative infinity.
"""
from xdsl.dialects import arith, cf, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType

from rt.compiler.dialects import arith as rt_arith, util
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.vm import half

# Ops that rt's arith dialect redefines without subclassing xDSL's class (see
# rt.compiler.dialects.arith) appear twice: parsed ops are rt's, ops built by passes xDSL's.
_INT_BINARY = OpTable({
    arith.AddiOp: "add", arith.SubiOp: "sub", arith.MuliOp: "mul",
    arith.DivSIOp: "div_{t}_s", rt_arith.DivSIOp: "div_{t}_s",
    arith.DivUIOp: "div_{t}_u", rt_arith.DivUIOp: "div_{t}_u",
    arith.RemSIOp: "rem_{t}_s", arith.RemUIOp: "rem_{t}_u",
    arith.CeilDivSIOp: "ceildiv_{t}_s", arith.CeilDivUIOp: "ceildiv_{t}_u",
    arith.MinSIOp: "min_{t}_s", arith.MinUIOp: "min_{t}_u", arith.MaxSIOp: "max_{t}_s",
    arith.MaxUIOp: "max_{t}_u", arith.AndIOp: "and", arith.OrIOp: "or", arith.XOrIOp: "xor",
    arith.ShLIOp: "shl", arith.ShRSIOp: "shr_{t}_s", rt_arith.ShRSIOp: "shr_{t}_s",
    arith.ShRUIOp: "shr_{t}_u", rt_arith.ShRUIOp: "shr_{t}_u",
})
_FLOAT_BINARY = OpTable({
    arith.AddfOp: "add", arith.SubfOp: "sub", arith.MulfOp: "mul", arith.DivfOp: "div",
    rt_arith.RemFOp: "rem", arith.MaximumfOp: "max", arith.MinimumfOp: "min", math.PowFOp: "pow",
    math.Atan2Op: "atan2",
})
_FLOAT_UNARY = OpTable({
    arith.NegfOp: "neg", math.AbsFOp: "abs", math.SqrtOp: "sqrt", math.RsqrtOp: "rsqrt",
    math.FloorOp: "floor", math.CeilOp: "ceil", math.RoundOp: "round", math.RoundEvenOp: "roundeven",
    math.ExpOp: "exp", math.Exp2Op: "exp2", math.ExpM1Op: "expm1", math.LogOp: "log",
    math.Log2Op: "log2", math.Log10Op: "log10", math.Log1pOp: "log1p", math.TanhOp: "tanh",
    math.SinOp: "sin", math.CosOp: "cos", math.ErfOp: "erf", math.AtanOp: "atan",
})
_NUM_MINMAX = OpTable({arith.MaxnumfOp: "max", arith.MinnumfOp: "min"})
_CMPI = {"eq": "eq_{t}", "ne": "ne_{t}", "slt": "lt_{t}_s", "sle": "lte_{t}_s", "sgt": "gt_{t}_s",
         "sge": "gte_{t}_s", "ult": "lt_{t}_u", "ule": "lte_{t}_u", "ugt": "gt_{t}_u", "uge": "gte_{t}_u"}
_CMPI_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CMPF_NAMES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
               "ule", "une", "uno", "true")


def _emit(e, name, *regs):
    getattr(e.fb, name)(*regs)


#: Integer ops that read their operands as signed: narrow operands are sign-extended first.
_SIGNED = (arith.DivSIOp, rt_arith.DivSIOp, arith.RemSIOp, arith.CeilDivSIOp, arith.MinSIOp,
           arith.MaxSIOp, arith.ShRSIOp, rt_arith.ShRSIOp, arith.FloorDivSIOp)


def _int_width(op, value):
    """The width of ``value`` when it is a narrow (i8/i16) integer held in an i32 register,
    else None; a located error for widths the host does not hold (i2, i4, i24, ...)."""
    t = value.type
    if isinstance(t, IntegerType) and t.width.data in (8, 16):
        return t.width.data
    if isinstance(t, IntegerType) and t.width.data not in (1, 32, 64):
        raise error_at_op(op, f"'{op.name}' on {t} scalars is not supported on the host; use i8, "
                              f"i16, i32 or i64")
    return None


def _operand(e, op, value, bits, signed):
    """Register of ``value`` for an i32 op: a narrow value sign- or zero-extended from its low
    ``bits`` (whatever the register's upper bits hold: arguments arrive either way)."""
    reg = e.get(value, op)
    if bits is None:
        return reg
    wide = e.scratch("i32")
    _emit(e, f"ext_i{bits}_i32_{'s' if signed else 'u'}", wide, reg)
    return wide


def _narrow_result(e, dst, bits):
    """Back to the canonical form of an i8/i16 register (the low bits, zero-extended)."""
    if bits is not None:
        _emit(e, f"trunc_i32_i{bits}", dst, dst)


def _constant(e, op):
    """``arith.constant`` and scalar ``util.unfoldable_constant`` -> ``const.<t>``.

    IREE expands ``util.unfoldable_constant`` into ``arith.constant`` +
    ``util.optimization_barrier`` (ExpandUnfoldableConstantOp) so no fold sees through it. The
    VM emission never folds, so a constant register keeps the intent: every op that uses the
    value computes at run time.
    """
    value, result = op.value, op.result
    t = e.type_of(result, op)
    dst = e.define(result, op)
    if isinstance(value, IntegerAttr):
        v = value.value.data
        if isinstance(value.type, IntegerType) and value.type.width.data == 1:
            v = 1 if v else 0
        elif isinstance(value.type, IntegerType) and value.type.width.data in (8, 16):
            v &= (1 << value.type.width.data) - 1
        _emit(e, f"const_{t}", dst, v)
    elif isinstance(value, FloatAttr):
        v = value.value.data
        _emit(e, f"const_{t}", dst, half.round_constant(v, result.type))
    else:
        raise error_at_op(op, f"{op.name} of {result.type} cannot live in a VM register; tensor "
                              "constants must be outlined by the stream phase")


def _optimization_barrier(e, op):
    """``util.optimization_barrier`` on host values: each result is a copy of its operand."""
    for src, dst in zip(op.operands, op.results):
        e.mov(e.define(dst, op), e.get(src, op))


def _int_binary(e, op):
    bits = _int_width(op, op.result)
    t = e.type_of(op.result, op)
    signed = isinstance(op, _SIGNED)
    a, b = (_operand(e, op, v, bits, signed) for v in (op.lhs, op.rhs))
    name = _INT_BINARY[op].format(t=t)
    if "_" not in name:
        name = f"{name}_{t}"
    dst = e.define(op.result, op)
    _emit(e, name, dst, a, b)
    if isinstance(op, _SHIFTS):
        _saturate_shift(e, op, t, dst, a, b, bits or op.result.type.width.data)
    _narrow_result(e, dst, bits)


#: shifts: the VM masks the amount (IREE's vm.shl); rt's answer for amounts >= the width is the
#: devices' (docs/ARCHITECTURE.md, "Undefined behaviour"): 0, or the sign fill for shrsi
_SHIFTS = (arith.ShLIOp, arith.ShRUIOp, rt_arith.ShRUIOp, arith.ShRSIOp, rt_arith.ShRSIOp)


def _saturate_shift(e, op, t, dst, a, amount, width):
    """``dst`` (the masked shift of ``a``) replaced by the out-of-range answer when ``amount``,
    read unsigned, is at least ``width``."""
    in_range = e.scratch("i32")
    _emit(e, f"cmp_lt_{t}_u", in_range, amount, e.const(t, width))
    fill = e.scratch(t)
    if isinstance(op, (arith.ShRSIOp, rt_arith.ShRSIOp)):
        _emit(e, f"shr_{t}_s", fill, a, e.const(t, width - 1))
    else:
        _emit(e, f"const_{t}_zero", fill)
    _emit(e, f"select_{t}", dst, in_range, dst, fill)


def _floordivsi(e, op):
    """q = a / b (toward zero), minus one when the remainder is non-zero and signs differ."""
    bits = _int_width(op, op.result)
    t = e.type_of(op.result, op)
    a, b = (_operand(e, op, v, bits, True) for v in (op.lhs, op.rhs))
    dst = e.define(op.result, op)
    rem, signs = e.scratch(t), e.scratch(t)
    nonzero, negative = e.scratch("i32"), e.scratch("i32")
    _emit(e, f"rem_{t}_s", rem, a, b)
    _emit(e, f"cmp_nz_{t}", nonzero, rem)
    _emit(e, f"xor_{t}", signs, rem, b)
    _emit(e, f"cmp_lt_{t}_s", negative, signs, e.const(t, 0))
    e.fb.and_i32(nonzero, nonzero, negative)
    _emit(e, f"div_{t}_s", dst, a, b)
    _emit(e, f"sub_{t}", dst, dst, e.as_type(nonzero, t))
    _narrow_result(e, dst, bits)


def _float_binary(e, op):
    t = e.type_of(op.results[0], op)
    a, b = (e.get(v, op) for v in op.operands)
    dst = e.define(op.results[0], op)
    _emit(e, f"{_FLOAT_BINARY[op]}_{t}", dst, a, b)
    half.round_result(e, dst, op.results[0].type)


def _num_minmax(e, op):
    """maxnumf/minnumf: the non-NaN operand when exactly one is NaN, else max/min."""
    t = e.type_of(op.result, op)
    a, b = e.get(op.lhs, op), e.get(op.rhs, op)
    dst = e.define(op.result, op)
    picked, a_nan, b_nan = e.scratch(t), e.scratch("i32"), e.scratch("i32")
    _emit(e, f"{_NUM_MINMAX[op]}_{t}", picked, a, b)
    _emit(e, f"cmp_nan_{t}", a_nan, a)
    _emit(e, f"cmp_nan_{t}", b_nan, b)
    _emit(e, f"select_{t}", picked, b_nan, a, picked)
    _emit(e, f"select_{t}", dst, a_nan, b, picked)


def _float_unary(e, op):
    src = op.operands[0]
    t = e.type_of(op.results[0], op)
    dst = e.define(op.results[0], op)
    _emit(e, f"{_FLOAT_UNARY[op]}_{t}", dst, e.get(src, op))
    half.round_result(e, dst, op.results[0].type)


def _fma(e, op):
    """``math.fma``; on f16 computed as an f64 fma of the (exact) register values, then rounded to f16."""
    t = e.type_of(op.results[0], op)
    a, b, c = (e.get(v, op) for v in op.operands)
    dst = e.define(op.results[0], op)
    _emit(e, "fma_f64" if half.is_f16(op.results[0].type) else f"fma_{t}", dst, a, b, c)
    half.round_result(e, dst, op.results[0].type)


def _predicate(op, names):
    value = op.predicate.value.data
    return names[value]


def _cmpi(e, op):
    bits = _int_width(op, op.lhs)
    t = e.type_of(op.lhs, op)
    pred = _predicate(op, _CMPI_NAMES)
    a, b = (_operand(e, op, v, bits, pred.startswith("s")) for v in (op.lhs, op.rhs))
    _emit(e, "cmp_" + _CMPI[pred].format(t=t), e.define(op.result, op), a, b)


def _cmpf(e, op):
    t = e.type_of(op.lhs, op)
    pred = _predicate(op, _CMPF_NAMES)
    dst = e.define(op.result, op)
    a, b = e.get(op.lhs, op), e.get(op.rhs, op)
    if pred in ("false", "true"):
        e.fb.const_i32(dst, 1 if pred == "true" else 0)
        return
    if pred in ("ord", "uno"):
        na, nb = e.scratch("i32"), e.scratch("i32")
        _emit(e, f"cmp_nan_{t}", na, a)
        _emit(e, f"cmp_nan_{t}", nb, b)
        e.fb.or_i32(dst, na, nb)
        if pred == "ord":
            e.fb.xor_i32(dst, dst, e.const("i32", 1))
        return
    kind = {"eq": "eq", "gt": "gt", "ge": "gte", "lt": "lt", "le": "lte", "ne": "ne"}[pred[1:]]
    _emit(e, f"cmp_{kind}_{t}_{pred[0]}", dst, a, b)


def _select(e, op):
    t = e.type_of(op.result, op)
    cond, a, b = (e.get(v, op) for v in op.operands)
    _emit(e, f"select_{t}", e.define(op.result, op), cond, a, b)


def _assert(e, op):
    """``cf.assert %ok, "msg"`` -> ``cond_fail`` when ``%ok`` is 0 (IREE StandardToVM lowers it to
    ``vm.cond_fail``); the trap carries the VM stack with the assert's location."""
    ok = e.get(op.arg, op)
    failed = e.scratch("i32")
    e.fb.cmp_eq_i32(failed, e.as_type(ok, "i32"), e.const("i32", 0))
    e.fb.cond_fail(failed, e.const("i32", 9), op.msg.data)  # 9: FAILED_PRECONDITION


def _bits(type_):
    return type_.width.data if isinstance(type_, IntegerType) else 64


def _int_cast(e, op, signed):
    src, dst_val = op.operands[0], op.results[0]
    sbits, dbits = _bits(src.type), _bits(dst_val.type)
    a = e.get(src, op)
    dst = e.define(dst_val, op)
    if a.type == dst.type:
        if sbits < dbits and sbits in (8, 16):
            _emit(e, f"ext_i{sbits}_i32_{'s' if signed else 'u'}", dst, a)
        elif sbits == 1 and dbits > 1 and signed:
            _emit(e, f"neg_{dst.type}", dst, a)
        elif dbits < sbits and dbits in (8, 16):
            _emit(e, f"trunc_i32_i{dbits}", dst, a)
        elif dbits == 1 and sbits > 1:
            getattr(e.fb, f"and_{dst.type}")(dst, a, e.const(dst.type, 1))
        else:
            e.mov(dst, a)
    elif a.type == "i32":
        if sbits == 1 and signed:
            tmp = e.scratch("i32")
            e.fb.neg_i32(tmp, a)
            a = tmp
        elif sbits in (8, 16):
            tmp = e.scratch("i32")
            _emit(e, f"ext_i{sbits}_i32_{'s' if signed else 'u'}", tmp, a)
            a = tmp
        _emit(e, f"ext_i32_i64_{'s' if signed else 'u'}", dst, a)
    else:
        e.fb.trunc_i64_i32(dst, a)
        if dbits in (8, 16):
            _emit(e, f"trunc_i32_i{dbits}", dst, dst)
        elif dbits == 1:
            e.fb.and_i32(dst, dst, e.const("i32", 1))


def _signed_cast(e, op):
    _int_cast(e, op, True)


def _unsigned_cast(e, op):
    _int_cast(e, op, False)


def _to_float(e, op, signed):
    a = _operand(e, op, op.input, _int_width(op, op.input), signed)
    t = e.type_of(op.result, op)
    prefix = "si" if signed else "ui"
    dst = e.define(op.result, op)
    _emit(e, f"cast_{prefix}{a.type[1:]}_{t}", dst, a)
    half.round_result(e, dst, op.result.type)


def _to_int(e, op, signed):
    a = e.get(op.input, op)
    t = e.type_of(op.result, op)
    prefix = "si" if signed else "ui"
    dst = e.define(op.result, op)
    _emit(e, f"cast_{a.type}_{prefix}{t[1:]}", dst, a)
    _narrow_result(e, dst, _int_width(op, op.result))


def _signed_to_float(e, op):
    _to_float(e, op, True)


def _unsigned_to_float(e, op):
    _to_float(e, op, False)


def _to_signed_int(e, op):
    _to_int(e, op, True)


def _to_unsigned_int(e, op):
    _to_int(e, op, False)


def _float_resize(e, op):
    """extf/truncf among f16, bf16, f32 and f64; truncation to f16 rounds once from the source
    value, to bf16 from its f32 value."""
    a = e.get(op.input, op)
    t = e.type_of(op.result, op)
    dst = e.define(op.result, op)
    if half.is_f16(op.result.type) and not half.is_f16(op.input.type):
        e.fb.trunc_f32_f16(dst, a)
        return
    if a.type == t:
        e.mov(dst, a)
    else:
        _emit(e, "ext_f32_f64" if t == "f64" else "trunc_f64_f32", dst, a)
    if half.is_bf16(op.result.type) and not half.is_bf16(op.input.type):
        half.round_result(e, dst, op.result.type)


def _bitcast(e, op):
    a = e.get(op.input, op)
    t = e.type_of(op.result, op)
    dst = e.define(op.result, op)
    if half.is_narrow(op.input.type):
        half.to_bits(e, dst, a, op.input.type)
    elif half.is_narrow(op.result.type):
        half.from_bits(e, dst, a, op.result.type)
    elif a.type == t:
        e.mov(dst, a)
    else:
        _emit(e, f"bitcast_{a.type}_{t}", dst, a)


_SIGNED_CASTS = (arith.IndexCastOp, rt_arith.IndexCastOp, arith.ExtSIOp, rt_arith.ExtSIOp)
_UNSIGNED_CASTS = (rt_arith.IndexCastUIOp, arith.ExtUIOp, rt_arith.ExtUIOp, arith.TruncIOp, rt_arith.TruncIOp)

#: The lowering of each scalar op class, called as ``fn(emitter, op)``.
LOWERINGS = OpTable({
    arith.ConstantOp: _constant,
    util.UnfoldableConstantOp: _constant,
    util.OptimizationBarrierOp: _optimization_barrier,
    **{cls: _int_binary for cls in _INT_BINARY},
    **{cls: _float_binary for cls in _FLOAT_BINARY},
    **{cls: _float_unary for cls in _FLOAT_UNARY},
    **{cls: _num_minmax for cls in _NUM_MINMAX},
    arith.FloorDivSIOp: _floordivsi,
    math.FmaOp: _fma,
    arith.CmpiOp: _cmpi, rt_arith.CmpIOp: _cmpi,
    arith.CmpfOp: _cmpf, rt_arith.CmpFOp: _cmpf,
    arith.SelectOp: _select, rt_arith.SelectOp: _select,
    **{cls: _signed_cast for cls in _SIGNED_CASTS},
    **{cls: _unsigned_cast for cls in _UNSIGNED_CASTS},
    arith.SIToFPOp: _signed_to_float, rt_arith.SIToFPOp: _signed_to_float,
    arith.UIToFPOp: _unsigned_to_float, rt_arith.UIToFPOp: _unsigned_to_float,
    arith.FPToSIOp: _to_signed_int, rt_arith.FPToSIOp: _to_signed_int,
    arith.FPToUIOp: _to_unsigned_int, rt_arith.FPToUIOp: _to_unsigned_int,
    arith.ExtFOp: _float_resize, rt_arith.ExtFOp: _float_resize,
    arith.TruncFOp: _float_resize, rt_arith.TruncFOp: _float_resize,
    arith.BitcastOp: _bitcast,
    cf.AssertOp: _assert,
})
