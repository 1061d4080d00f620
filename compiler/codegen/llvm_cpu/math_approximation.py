"""Polynomial approximations of math functions on f32 scalars or vectors, in portable LLVM IR.

LLVM does not vectorize ``math.exp`` by itself (it would call ``expf`` per lane), so kernels
inline these instead, as MLIR's ``math-polynomial-approximation`` pass does for IREE's CPU
backend. Only plain IR plus ``llvm.fmuladd`` is used: no SSE4.1 rounding, no FMA requirement,
no libm calls, so the same code runs on every x86-64 level.

exp: Cody-Waite range reduction ``x = n*ln2 + r`` with |r| <= ln2/2, a degree-6 minimax
polynomial for e^r (Cephes ``expf`` coefficients), and 2^n applied as two exact power-of-two
factors so results that are subnormal or near FLT_MAX round correctly. Max error ~1 ulp on
normal results; exp(+inf) = inf, exp(-inf) = 0, NaN in gives NaN out.

log: Cephes ``logf``: split x = m * 2**e with m in [sqrt(1/2), sqrt(2)) by bit manipulation
(subnormals pre-scaled by 2**23), a degree-8 polynomial in m - 1, and e*ln2 added in two
parts. ~1 ulp; log(0) = -inf, log(x < 0) = NaN, log(inf) = inf.

tanh: Cephes ``tanhf``: x + x**3 * P(x**2) for |x| < 0.625, else sign(x) * (1 - 2/(e**(2|x|)+1))
with the exp above. A few ulp; saturates to +-1, NaN in gives NaN out.
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


_SQRT_HALF = 0.707106781186547524
_LOG_POLY = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
             1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
             3.3333331174e-1)
_TANH_POLY = (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
              -3.33332819422e-1)


def emit_log(builder, x):
    """Emit the natural log of ``x`` (float or <N x float>); returns a value of the same type."""
    b, ty = builder, x.type
    ity = _int_type_like(ty)
    tiny = b.fcmp_ordered("<", x, _const(ty, 1.17549435e-38))
    xs = b.select(tiny, b.fmul(x, _const(ty, 8388608.0)), x)
    bits = b.bitcast(xs, ity)
    exponent = b.sub(b.lshr(bits, _const(ity, 23)), _const(ity, 126))
    exponent = b.select(tiny, b.sub(exponent, _const(ity, 23)), exponent)
    m = b.bitcast(b.or_(b.and_(bits, _const(ity, 0x807FFFFF)), _const(ity, 0x3F000000)), ty)
    e = b.sitofp(exponent, ty)
    small = b.fcmp_ordered("<", m, _const(ty, _SQRT_HALF))
    e = b.select(small, b.fsub(e, _const(ty, 1.0)), e)
    m = b.fsub(b.select(small, b.fadd(m, m), m), _const(ty, 1.0))
    z = b.fmul(m, m)
    p = _const(ty, _LOG_POLY[0])
    for c in _LOG_POLY[1:]:
        p = intrinsics.call(b, "fmuladd", p, m, _const(ty, c))
    y = b.fmul(b.fmul(p, z), m)
    y = intrinsics.call(b, "fmuladd", e, _const(ty, _LN2_LO), y)
    y = intrinsics.call(b, "fmuladd", z, _const(ty, -0.5), y)
    result = intrinsics.call(b, "fmuladd", e, _const(ty, _LN2_HI), b.fadd(m, y))
    inf = _const(ty, float("inf"))
    result = b.select(b.fcmp_ordered("==", x, inf), inf, result)
    result = b.select(b.fcmp_ordered("==", x, _const(ty, 0.0)), _const(ty, float("-inf")), result)
    nan = _const(ty, float("nan"))
    return b.select(b.fcmp_unordered("<", x, _const(ty, 0.0)), b.select(
        b.fcmp_ordered("<", x, _const(ty, 0.0)), nan, x), result)


def emit_tanh(builder, x):
    """Emit tanh(``x``) for float or <N x float>; returns a value of the same type."""
    b, ty = builder, x.type
    ax = intrinsics.call(b, "fabs", x)
    z = b.fmul(x, x)
    p = _const(ty, _TANH_POLY[0])
    for c in _TANH_POLY[1:]:
        p = intrinsics.call(b, "fmuladd", p, z, _const(ty, c))
    small = intrinsics.call(b, "fmuladd", b.fmul(x, z), p, x)
    e = emit_exp(b, b.fadd(ax, ax))
    large = b.fsub(_const(ty, 1.0), b.fdiv(_const(ty, 2.0), b.fadd(e, _const(ty, 1.0))))
    large = intrinsics.call(b, "copysign", large, x)
    return b.select(b.fcmp_ordered("<", ax, _const(ty, 0.625)), small, large)
