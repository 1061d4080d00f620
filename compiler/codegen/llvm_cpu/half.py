"""IEEE binary16 <-> binary32 conversions in plain integer IR (scalars or vectors).

f16 is a storage type in Kernel IR: loads widen to f32 and stores narrow with round to
nearest even. LLVM's own ``fpext``/``fptrunc`` on ``half`` call compiler-rt helpers
(``__extendhfsf2``, ``__truncsfhf2``) on targets without F16C, which llvm-cpu objects may not
import, so both directions are written out with integer ops and selects; they vectorize on
every x86-64 level. Exact for every input: subnormals, infinities and NaN (quieted) included.

Source: the branch-free float <-> half conversions of F. Giesen's public-domain notes
("half_float": float_to_half_fast3_rtne / half_to_float_fast).
"""
from llvmlite import ir


def _like(ty, bits):
    scalar = ir.IntType(bits)
    return ir.VectorType(scalar, ty.count) if isinstance(ty, ir.VectorType) else scalar


def _c(ty, value):
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [ir.Constant(ty.element, value)] * ty.count)
    return ir.Constant(ty, value)


def f16_bits_to_f32(builder, h):
    """i16 (or <N x i16>) f16 bit patterns -> float (or <N x float>) values."""
    b = builder
    i32 = _like(h.type, 32)
    f32 = ir.VectorType(ir.FloatType(), h.type.count) if isinstance(h.type, ir.VectorType) \
        else ir.FloatType()
    h = b.zext(h, i32)
    o = b.shl(b.and_(h, _c(i32, 0x7FFF)), _c(i32, 13))
    exponent = b.and_(o, _c(i32, 0x7C00 << 13))
    o = b.add(o, _c(i32, (127 - 15) << 23))
    is_special = b.icmp_unsigned("==", exponent, _c(i32, 0x7C00 << 13))
    o_special = b.add(o, _c(i32, (128 - 16) << 23))
    is_sub = b.icmp_unsigned("==", exponent, _c(i32, 0))
    magic = b.bitcast(_c(i32, 113 << 23), f32)
    o_sub = b.bitcast(b.fsub(b.bitcast(b.add(o, _c(i32, 1 << 23)), f32), magic), i32)
    o = b.select(is_special, o_special, b.select(is_sub, o_sub, o))
    o = b.or_(o, b.shl(b.and_(h, _c(i32, 0x8000)), _c(i32, 16)))
    return b.bitcast(o, f32)


def f32_to_f16_bits(builder, x):
    """float (or <N x float>) values -> i16 (or <N x i16>) f16 bit patterns, ties to even."""
    b = builder
    i32 = _like(x.type, 32)
    f = b.bitcast(x, i32)
    sign = b.and_(f, _c(i32, 0x80000000))
    f = b.xor(f, sign)
    # Overflow to inf, or NaN (kept quiet).
    big = b.icmp_unsigned(">=", f, _c(i32, (127 + 16) << 23))
    o_big = b.select(b.icmp_unsigned(">", f, _c(i32, 255 << 23)), _c(i32, 0x7E00), _c(i32, 0x7C00))
    # Subnormal f16: let the FPU round by adding a magic number.
    small = b.icmp_unsigned("<", f, _c(i32, 113 << 23))
    denorm_magic = ((127 - 15) + (23 - 10) + 1) << 23
    sum_ = b.fadd(b.bitcast(f, x.type), b.bitcast(_c(i32, denorm_magic), x.type))
    o_small = b.sub(b.bitcast(sum_, i32), _c(i32, denorm_magic))
    # Normal: rebias the exponent and round the mantissa to nearest even.
    mant_odd = b.and_(b.lshr(f, _c(i32, 13)), _c(i32, 1))
    n = b.add(f, _c(i32, (((15 - 127) << 23) + 0xFFF) & 0xFFFFFFFF))
    o_normal = b.lshr(b.add(n, mant_odd), _c(i32, 13))
    o = b.select(big, o_big, b.select(small, o_small, o_normal))
    o = b.or_(o, b.lshr(sign, _c(i32, 16)))
    return b.trunc(o, _like(x.type, 16))
