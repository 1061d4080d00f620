"""Small floating-point formats: bf16 and the f8 family, defined once by their parameters.

Every place that converts these types uses this table: the VM's ``ext.bits.f32`` /
``trunc.f64.bits`` ops (format = the IREE numerical type code, ``_small_float.pxi``), the
llvm-cpu code generator (``compiler/codegen/llvm_cpu/small_float.py``) and the compiler's
constants (through ml_dtypes, whose conversions agree with these semantics bit for bit).

Semantics follow LLVM's APFloat (``llvm/lib/Support/APFloat.cpp``) as MLIR's ``arith.truncf``
/ ``arith.extf`` define them, and IREE's HAL element types (``iree_hal_numerical_type_t``):

* ``ieee`` (bf16, f8E5M2): infinities, NaNs (exponent all ones, mantissa non-zero), -0;
  overflow after rounding gives +-inf.
* ``fn`` (f8E4M3FN): no infinities; NaN is S.1111.111 only; -0 exists; overflow and +-inf
  give NaN (sign kept).
* ``fnuz`` (f8E5M2FNUZ, f8E4M3FNUZ): no infinities, no -0; 0x80 is the only NaN; overflow,
  +-inf and NaN give 0x80; -0 rounds to +0.
* ``finite`` (f4E2M1FN): no infinities and no NaN; -0 exists; overflow and +-inf saturate to
  the largest finite value (sign kept); a NaN becomes -0 (as ml_dtypes converts it). Stored
  packed, two to a byte, like i4.
* ``e8m0`` (f8E8M0FNU): an unsigned power of two 2^(bits - 127); 0xFF is NaN; no zero.
  Rounding ties go up (the significand is a single, odd bit); negative values, zero, inf,
  NaN and overflow give NaN; values below 2^-127 give 2^-127 (as ml_dtypes does).

Rounding is to nearest, ties to even, with subnormals (gradual underflow) where the format
has them.
"""
from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class FloatFormat:
    """One small float format.

    name: MLIR spelling; code: ``iree_hal_numerical_type_t`` (the VM ops' format immediate;
    f4E2M1FN, which IREE's HAL has no type for, gets rt's private 0x29, never a HAL code);
    exponent_bits / mantissa_bits (explicit mantissa bits) / bias; kind: ``ieee``, ``fn``,
    ``fnuz`` or ``e8m0`` (see the module docstring); bits: storage width.
    """

    name: str
    code: int
    exponent_bits: int
    mantissa_bits: int
    bias: int
    kind: str

    @property
    def dtype(self):
        """The ml_dtypes numpy dtype holding one value."""
        return np.dtype(_DTYPES[self.name])

    @property
    def bits(self):
        return self.exponent_bits + self.mantissa_bits + (0 if self.kind == "e8m0" else 1)

    @property
    def sign_bit(self):
        """The sign bit's mask (0 for unsigned formats)."""
        return 0 if self.kind == "e8m0" else 1 << (self.exponent_bits + self.mantissa_bits)

    @property
    def max_bits(self):
        """Bit pattern of the largest finite value."""
        e, m = (1 << self.exponent_bits) - 1, (1 << self.mantissa_bits) - 1
        if self.kind == "ieee":
            return ((e - 1) << self.mantissa_bits) | m
        if self.kind == "fn":
            return (e << self.mantissa_bits) | (m - 1)
        if self.kind in ("fnuz", "finite"):
            return (e << self.mantissa_bits) | m
        return e - 1

    @property
    def nan_bits(self):
        """The (positive, quiet) NaN a conversion produces."""
        e, m = (1 << self.exponent_bits) - 1, (1 << self.mantissa_bits) - 1
        if self.kind == "ieee":
            return (e << self.mantissa_bits) | (1 << (self.mantissa_bits - 1))
        if self.kind == "fn":
            return (e << self.mantissa_bits) | m
        if self.kind == "fnuz":
            return 0x80
        if self.kind == "finite":
            return self.sign_bit  # no NaN: -0
        return 0xFF

    @property
    def overflow_bits(self):
        """What a finite value too large for the format becomes (before the sign)."""
        if self.kind == "ieee":
            return ((1 << self.exponent_bits) - 1) << self.mantissa_bits
        if self.kind == "finite":
            return self.max_bits  # saturate (the sign is added after)
        return self.nan_bits


FORMATS = {f.name: f for f in (
    FloatFormat("bf16", 0x22, 8, 7, 127, "ieee"),
    FloatFormat("f8E5M2", 0x24, 5, 2, 15, "ieee"),
    FloatFormat("f8E4M3FN", 0x25, 4, 3, 7, "fn"),
    FloatFormat("f8E5M2FNUZ", 0x26, 5, 2, 16, "fnuz"),
    FloatFormat("f8E4M3FNUZ", 0x27, 4, 3, 8, "fnuz"),
    FloatFormat("f8E8M0FNU", 0x28, 8, 0, 127, "e8m0"),
    FloatFormat("f4E2M1FN", 0x29, 2, 1, 1, "finite"),
)}

_DTYPES = {"bf16": ml_dtypes.bfloat16, "f8E5M2": ml_dtypes.float8_e5m2,
           "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
           "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
           "f4E2M1FN": ml_dtypes.float4_e2m1fn}


def from_float64(values, name):
    """float64 ``values`` rounded once to format ``name`` (an ml_dtypes array).

    ml_dtypes converts a float64 through float32 (rounding twice: 431.99999999999994 would
    become 448, not 416, in f8E4M3FN); rounding to float32 *to odd* first keeps the single
    correctly rounded result, since float32 has at least two more bits than every format here.
    """
    x = np.asarray(values, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype(np.float32)
        inexact = np.isfinite(x) & (t.astype(np.float64) != x)
        toward_zero = np.where(np.abs(t.astype(np.float64)) > np.abs(x), np.nextafter(t, np.float32(0)), t)
        odd = (toward_zero.view(np.uint32) | np.uint32(1)).view(np.float32)
        t = np.where(inexact, odd, t)
        return t.astype(FORMATS[name].dtype)
