"""Polynomial approximations of math functions on f32 scalars or vectors, in portable LLVM IR.

LLVM does not vectorize ``math.exp`` by itself (it would call ``expf`` per lane), so kernels
inline these instead, as MLIR's ``math-polynomial-approximation`` pass does for IREE's CPU
backend. Only plain IR plus ``llvm.fmuladd`` is used: no SSE4.1 rounding, no FMA requirement,
no libm calls, so the same code runs on every x86-64 level.

exp: Cody-Waite range reduction ``x = n*ln2 + r`` with |r| <= ln2/2, a degree-6 minimax
polynomial for e^r (Cephes ``expf`` coefficients), and 2^n applied as two exact power-of-two
factors so results that are subnormal or near FLT_MAX round correctly. Max error ~1 ulp on
normal results; exp(+inf) = inf, exp(-inf) = 0, NaN in gives NaN out.
"""
from llvmlite import ir

from rt.compiler.codegen.llvm_cpu import intrinsics

_LOG2E = 1.44269504088896341
_LN2_HI = 0.693359375          # 8 significant bits: n * _LN2_HI is exact for |n| < 2**15
_LN2_LO = -2.12194440e-4
_ROUND_MAGIC = 12582912.0      # 1.5 * 2**23: (v + magic) - magic rounds v to nearest
_EXP_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
             1.6666665459e-1, 5.0000001201e-1)
_X_MIN, _X_MAX = -104.0, 89.0  # below: rounds to 0; above: overflows to inf


def _const(ty, value):
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [ir.Constant(ty.element, value)] * ty.count)
    return ir.Constant(ty, value)


def _int_type_like(ty):
    i32 = ir.IntType(32)
    return ir.VectorType(i32, ty.count) if isinstance(ty, ir.VectorType) else i32


def emit_exp(builder, x):
    """Emit e**x for ``x`` of type float or <N x float>; returns a value of the same type."""
    b, ty = builder, x.type
    ity = _int_type_like(ty)
    is_nan = b.fcmp_unordered("uno", x, x)
    # NaN -> 0 so no poison reaches fptosi; the NaN itself is restored at the end.
    xs = b.select(is_nan, _const(ty, 0.0), x)
    xs = b.select(b.fcmp_ordered("<", xs, _const(ty, _X_MIN)), _const(ty, _X_MIN), xs)
    xs = b.select(b.fcmp_ordered(">", xs, _const(ty, _X_MAX)), _const(ty, _X_MAX), xs)
    magic = _const(ty, _ROUND_MAGIC)
    n = b.fsub(b.fadd(b.fmul(xs, _const(ty, _LOG2E)), magic), magic)
    r = intrinsics.call(b, "fmuladd", n, _const(ty, -_LN2_HI), xs)
    r = intrinsics.call(b, "fmuladd", n, _const(ty, -_LN2_LO), r)
    p = _const(ty, _EXP_POLY[0])
    for c in _EXP_POLY[1:]:
        p = intrinsics.call(b, "fmuladd", p, r, _const(ty, c))
    r2 = b.fmul(r, r)
    p = intrinsics.call(b, "fmuladd", p, r2, b.fadd(r, _const(ty, 1.0)))
    ni = b.fptosi(n, ity)
    half = b.ashr(ni, _const(ity, 1))
    rest = b.sub(ni, half)
    bias, shift = _const(ity, 127), _const(ity, 23)
    scale1 = b.bitcast(b.shl(b.add(half, bias), shift), ty)
    scale2 = b.bitcast(b.shl(b.add(rest, bias), shift), ty)
    result = b.fmul(b.fmul(p, scale1), scale2)
    return b.select(is_nan, x, result)
