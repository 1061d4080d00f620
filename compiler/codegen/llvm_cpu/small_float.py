"""bf16 and the f8 types <-> f32 in plain integer IR (scalars or vectors; they vectorize).

Kernel IR keeps these floats as storage types (compiler/codegen/kernel_ir.py): loads widen the
bits to f32 exactly, every op yielding one rounds its f32 (or f64) result back, and stores
narrow. The conversions follow ``rt.runtime.small_float`` (APFloat's semantics: ties to even,
subnormals, overflow to inf or NaN as the format defines) bit for bit, like the VM's
``ext.bits.f32`` / ``trunc.f64.bits`` that vmvx uses; f16 keeps its own ``half.py``.

Narrowing (``from_float``) is the branch-free scheme of ``half.py`` generalized: round the
source's mantissa to the format's width in integer arithmetic (the carry bumps the exponent),
let the FPU round subnormals by adding a float whose ulp is the format's subnormal quantum,
then select overflow, NaN and the sign. It reads f32 or f64 sources, so an f64 rounds once.
"""
from llvmlite import ir

from rt.runtime.small_float import FORMATS

_SOURCES = {"float": (32, 23, 127), "double": (64, 52, 1023)}


def _int_like(ty, bits):
    scalar = ir.IntType(bits)
    return ir.VectorType(scalar, ty.count) if isinstance(ty, ir.VectorType) else scalar


def _float_like(ty):
    return ir.VectorType(ir.FloatType(), ty.count) if isinstance(ty, ir.VectorType) else ir.FloatType()


def _c(ty, value):
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [ir.Constant(ty.element, value)] * ty.count)
    return ir.Constant(ty, value)


def to_f32(builder, bits, name):
    """iN (or <K x iN>) bit patterns of format ``name`` -> float (or <K x float>), exactly."""
    b, fmt = builder, FORMATS[name]
    i32 = _int_like(bits.type, 32)
    f32 = _float_like(bits.type)
    h = b.zext(bits, i32)
    if name == "bf16":
        return b.bitcast(b.shl(h, _c(i32, 16)), f32)
    if fmt.kind == "e8m0":
        normal = b.shl(h, _c(i32, 23))
        value = b.select(b.icmp_unsigned("==", h, _c(i32, 0)), _c(i32, 0x00400000), normal)
        value = b.select(b.icmp_unsigned("==", h, _c(i32, 0xFF)), _c(i32, 0x7FC00000), value)
        return b.bitcast(value, f32)
    e_bits, m_bits = fmt.exponent_bits, fmt.mantissa_bits
    mag = b.and_(h, _c(i32, (1 << (e_bits + m_bits)) - 1))
    exponent = b.lshr(mag, _c(i32, m_bits))
    normal = b.add(b.shl(mag, _c(i32, 23 - m_bits)), _c(i32, (127 - fmt.bias) << 23))
    quantum = float(2.0 ** (1 - fmt.bias - m_bits))
    sub = b.bitcast(b.fmul(b.uitofp(mag, f32), _c(f32, quantum)), i32)
    value = b.select(b.icmp_unsigned("==", exponent, _c(i32, 0)), sub, normal)
    emask = (1 << e_bits) - 1
    if fmt.kind == "ieee":
        special = b.or_(_c(i32, 0x7F800000), b.shl(b.and_(mag, _c(i32, (1 << m_bits) - 1)), _c(i32, 23 - m_bits)))
        value = b.select(b.icmp_unsigned("==", exponent, _c(i32, emask)), special, value)
    elif fmt.kind == "fn":
        value = b.select(b.icmp_unsigned("==", mag, _c(i32, (1 << (e_bits + m_bits)) - 1)),
                         _c(i32, 0x7FC00000), value)
    value = b.or_(value, b.shl(b.and_(h, _c(i32, fmt.sign_bit)), _c(i32, 31 - e_bits - m_bits)))
    if fmt.kind == "fnuz":
        value = b.select(b.icmp_unsigned("==", h, _c(i32, 0x80)), _c(i32, 0x7FC00000), value)
    return b.bitcast(value, f32)


def round_f32_to_bf16(builder, x):
    """float (or <K x float>) ``x`` rounded to the nearest bf16, still as f32: the bits of
    ``from_float`` + ``to_f32`` in six integer ops (hot loops: a bf16 accumulator)."""
    b = builder
    i32 = _int_like(x.type, 32)
    f = b.bitcast(x, i32)
    rounded = b.add(b.add(f, _c(i32, 0x7FFF)), b.and_(b.lshr(f, _c(i32, 16)), _c(i32, 1)))
    rounded = b.and_(rounded, _c(i32, 0xFFFF0000))
    quiet = b.or_(b.and_(f, _c(i32, 0x80000000)), _c(i32, 0x7FC00000))
    return b.bitcast(b.select(b.fcmp_unordered("uno", x, x), quiet, rounded), x.type)


def from_float(builder, x, name):
    """float/double (or vectors) ``x`` rounded to format ``name`` -> iN bit patterns."""
    b, fmt = builder, FORMATS[name]
    scalar = x.type.element if isinstance(x.type, ir.VectorType) else x.type
    width, src_m, src_bias = _SOURCES[str(scalar)]
    ity = _int_like(x.type, width)
    f = b.bitcast(x, ity)
    sign = b.and_(f, _c(ity, 1 << (width - 1)))
    a = b.xor(f, sign)
    inf_bits = ((1 << (width - src_m - 1)) - 1) << src_m
    nan = b.icmp_unsigned(">", a, _c(ity, inf_bits))
    if fmt.kind == "e8m0":
        out = _e8m0(b, a, ity, width, src_m, src_bias)
        bad = b.or_(b.or_(nan, b.icmp_unsigned("!=", sign, _c(ity, 0))),
                    b.or_(b.icmp_unsigned("==", a, _c(ity, 0)), b.icmp_signed(">", out, _c(ity, 254))))
        return b.trunc(b.select(bad, _c(ity, 0xFF), out), _int_like(x.type, 8))
    m_bits = fmt.mantissa_bits
    shift = src_m - m_bits
    rounded = b.add(b.add(a, _c(ity, (1 << (shift - 1)) - 1)), b.and_(b.lshr(a, _c(ity, shift)), _c(ity, 1)))
    normal = b.sub(b.lshr(rounded, _c(ity, shift)), _c(ity, (src_bias - fmt.bias) << m_bits))
    small = b.icmp_unsigned("<", a, _c(ity, (src_bias + 1 - fmt.bias) << src_m))
    magic = ((src_bias - fmt.bias) + shift + 1) << src_m
    summed = b.fadd(b.bitcast(a, x.type), b.bitcast(_c(ity, magic), x.type))
    sub = b.sub(b.bitcast(summed, ity), _c(ity, magic))
    out = b.select(small, sub, normal)
    out = b.select(b.icmp_signed(">", out, _c(ity, fmt.max_bits)), _c(ity, fmt.overflow_bits), out)
    out = b.select(nan, _c(ity, fmt.nan_bits), out)
    if fmt.kind == "fnuz":  # no -0; the NaN 0x80 carries the sign bit already
        signed = b.or_(out, b.lshr(sign, _c(ity, width - fmt.bits)))
        out = b.select(b.icmp_unsigned("==", out, _c(ity, 0)), out, signed)
    else:
        out = b.or_(out, b.lshr(sign, _c(ity, width - fmt.bits)))
    return b.trunc(out, _int_like(x.type, fmt.bits))


def _e8m0(b, a, ity, width, src_m, src_bias):
    """Biased e8m0 exponent of magnitude bits ``a`` (ties up; below 2^-127 -> 0), unclamped above."""
    exponent = b.lshr(b.add(a, _c(ity, 1 << (src_m - 1))), _c(ity, src_m))
    out = b.add(exponent, _c(ity, (127 - src_bias) & ((1 << width) - 1)))
    out = b.select(b.icmp_signed("<", out, _c(ity, 0)), _c(ity, 0), out)
    if src_bias == 127:  # f32 subnormals: 2^-127 is one; 1.5 * 2^-127 ties up to 2^-126
        tiny = b.select(b.icmp_unsigned(">=", a, _c(ity, 0x00600000)), _c(ity, 1), _c(ity, 0))
        out = b.select(b.icmp_unsigned("<", a, _c(ity, 1 << src_m)), tiny, out)
    return out
