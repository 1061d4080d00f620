"""f16 and bf16 scalars on the host: carried in f32 registers, rounded explicitly, converted to/from bits.

The VM has no half register bank (IREE's VM has none either). An ``f16`` (``bf16``) SSA value
lives in an ``f32`` register that always holds a value exactly representable in binary16
(bfloat16):

* producers round: ``arith.constant`` and global initial values are rounded at compile time
  (numpy ``float16``: nearest, ties to even); arithmetic results, ``arith.truncf`` and
  ``sitofp``/``uitofp`` to f16 end in ``trunc.f32.f16``; f16 function arguments are rounded at
  entry;
* consumers need nothing: ``arith.extf`` to f32 is a move, comparisons, ``select`` and
  ``fptosi`` act on the exact value.

Rounding is single where it matters: ``trunc.f32.f16`` rounds its operand as held in the float
bank (doubles), so ``arith.truncf`` from an f64 register rounds once, not through f32 (which would
round twice and differ at midpoints). f16 ``+ - * /`` and ``sqrt`` computed in f32 then rounded
equal the correctly rounded f16 result (f32 has at least 2*11+2 significand bits); ``math.fma``
on f16 runs in f64 (the product of two f16 values is exact there) and is then rounded to f16.

``arith.bitcast`` between f16 and i16 and host loads/stores of f16 (``hal.buffer.load/store``
with 2 bytes) convert with :func:`to_bits` / :func:`from_bits`, VM instruction sequences over
the f32 bit pattern (normal, subnormal, zero, inf and NaN cases).

bf16 follows the same rules, as IREE's bf16 legalization computes it (the seed
002_fcac7caf3252cf5b.txt): the op in f32, then rounded to nearest even (``bits + 0x7FFF +
lsb``, NaNs kept quiet) with integer VM instructions; ``math.fma`` and a ``truncf`` from f64
round through f32 first. ``from_bits`` is a 16-bit shift.

Source followed: IEEE 754-2008 binary16; IREE's VM has no f16 register type either (its
``Dialect/VM/Conversion`` maps floats to f32/f64 only), so host f16 is carried widened here.
"""
import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type

#: f32 bit pattern of 2**-14, the smallest normal f16
_F32_MIN_NORMAL_F16 = 0x38800000
#: f32 exponent bias minus f16 exponent bias, at the f32 exponent position
_REBIAS = 112 << 23


def is_f16(type_):
    return isinstance(type_, Float16Type)


def is_bf16(type_):
    return isinstance(type_, BFloat16Type)


def is_narrow(type_):
    """True for the float types held in f32 registers with rounding (f16, bf16)."""
    return isinstance(type_, (Float16Type, BFloat16Type))


def round_constant(value, type_):
    """A Python float rounded to the nearest f16 / bf16 value of ``type_`` (ties to even,
    overflow to inf); other types unchanged."""
    if not is_narrow(type_):
        return value
    with np.errstate(over="ignore"):
        return float(np.float16(value) if is_f16(type_) else ml_dtypes.bfloat16(value))


def round_result(e, dst, type_):
    """Round ``dst`` (an f32 register) in place when the MLIR result type is f16 or bf16."""
    if is_f16(type_):
        e.fb.trunc_f32_f16(dst, dst)
    elif is_bf16(type_):
        bits = e.scratch("i32")
        _bf16_to_bits(e, bits, dst)
        _bf16_from_bits(e, dst, bits)


def to_bits(e, dst, value, type_):
    """``dst`` (i32 register) = the 16-bit pattern (zero-extended) of f16 / bf16 register ``value``."""
    if is_bf16(type_):
        _bf16_to_bits(e, dst, value)
    else:
        _f16_to_bits(e, dst, value)


def from_bits(e, dst, bits, type_):
    """``dst`` (f32 register) = the f16 / bf16 value of the low 16 bits of i32 register ``bits``."""
    if is_bf16(type_):
        _bf16_from_bits(e, dst, bits)
    else:
        _f16_from_bits(e, dst, bits)


def _bf16_to_bits(e, dst, value):
    """Round to nearest even on the f32 bit pattern; a NaN keeps its top bits, made quiet."""
    fb = e.fb
    bits, lsb, out, nan = e.scratch("i32"), e.scratch("i32"), e.scratch("i32"), e.scratch("i32")
    fb.bitcast_f32_i32(bits, value)
    fb.shr_i32_u(lsb, bits, e.const("i32", 16))
    fb.and_i32(lsb, lsb, e.const("i32", 1))
    fb.add_i32(out, bits, e.const("i32", 0x7FFF))
    fb.add_i32(out, out, lsb)
    fb.shr_i32_u(out, out, e.const("i32", 16))
    fb.shr_i32_u(nan, bits, e.const("i32", 16))
    fb.or_i32(nan, nan, e.const("i32", 0x40))
    fb.and_i32(bits, bits, e.const("i32", 0x7FFFFFFF))
    fb.cmp_gt_i32_s(lsb, bits, e.const("i32", 0x7F800000))
    fb.select_i32(dst, lsb, nan, out)


def _bf16_from_bits(e, dst, bits):
    out = e.scratch("i32")
    e.fb.and_i32(out, bits, e.const("i32", 0xFFFF))
    e.fb.shl_i32(out, out, e.const("i32", 16))
    e.fb.bitcast_i32_f32(dst, out)


def _f16_to_bits(e, dst, value):
    fb = e.fb
    bits, mag, out = e.scratch("i32"), e.scratch("i32"), e.scratch("i32")
    fb.bitcast_f32_i32(bits, value)
    fb.and_i32(mag, bits, e.const("i32", 0x7FFFFFFF))
    fb.shr_i32_u(out, mag, e.const("i32", 13))
    fb.sub_i32(out, out, e.const("i32", _REBIAS >> 13))
    sub, flag = e.scratch("i32"), e.scratch("i32")
    scaled = e.scratch("f32")
    fb.abs_f32(scaled, value)
    fb.mul_f32(scaled, scaled, e.const("f32", 2.0 ** 24))
    fb.cast_f32_si32(sub, scaled)
    fb.cmp_lt_i32_s(flag, mag, e.const("i32", _F32_MIN_NORMAL_F16))
    fb.select_i32(out, flag, sub, out)
    special, nan = e.scratch("i32"), e.scratch("i32")
    fb.shr_i32_u(special, mag, e.const("i32", 13))
    fb.and_i32(special, special, e.const("i32", 0x3FF))
    fb.or_i32(special, special, e.const("i32", 0x7C00))
    fb.cmp_gt_i32_s(nan, mag, e.const("i32", 0x7F800000))
    fb.select_i32(nan, nan, e.const("i32", 0x200), e.const("i32", 0))
    fb.or_i32(special, special, nan)
    fb.cmp_gte_i32_s(flag, mag, e.const("i32", 0x7F800000))
    fb.select_i32(out, flag, special, out)
    fb.shr_i32_u(bits, bits, e.const("i32", 16))
    fb.and_i32(bits, bits, e.const("i32", 0x8000))
    fb.or_i32(dst, out, bits)


def _f16_from_bits(e, dst, bits):
    fb = e.fb
    mag, exp, out, flag = e.scratch("i32"), e.scratch("i32"), e.scratch("i32"), e.scratch("i32")
    fb.and_i32(mag, bits, e.const("i32", 0x7FFF))
    fb.shr_i32_u(exp, mag, e.const("i32", 10))
    fb.shl_i32(out, mag, e.const("i32", 13))
    fb.add_i32(out, out, e.const("i32", _REBIAS))
    sub, scaled = e.scratch("i32"), e.scratch("f32")
    fb.cast_si32_f32(scaled, mag)
    fb.mul_f32(scaled, scaled, e.const("f32", 2.0 ** -24))
    fb.bitcast_f32_i32(sub, scaled)
    fb.cmp_eq_i32(flag, exp, e.const("i32", 0))
    fb.select_i32(out, flag, sub, out)
    special = e.scratch("i32")
    fb.shl_i32(special, mag, e.const("i32", 13))
    fb.or_i32(special, special, e.const("i32", 0x7F800000))
    fb.cmp_eq_i32(flag, exp, e.const("i32", 0x1F))
    fb.select_i32(out, flag, special, out)
    sign = e.scratch("i32")
    fb.and_i32(sign, bits, e.const("i32", 0x8000))
    fb.shl_i32(sign, sign, e.const("i32", 16))
    fb.or_i32(out, out, sign)
    fb.bitcast_i32_f32(dst, out)
