"""Values a dispatch function computes on the host side of its tensors: sizes, scalars, maps.

Index and integer SSA values inside a hal-level dispatch function (push constants, their casts,
constants and index arithmetic) become kernel_ir Sizes (int | Constant | Expr); float and other
scalar constants become ``ScalarConst``; affine maps become tuples of kernel_ir.AffineExpr.
Source: what IREE's ``hal.interface.constant.load`` and affine index math carry into codegen.
"""
from dataclasses import dataclass

from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type, IndexType, IntegerType
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.dialects import arith
from rt.compiler.frontend import error_at_op
from rt.compiler.op_handlers import OpTable

#: arith.cmpf / arith.cmpi predicates by their integer encoding (MLIR's order).
CMPF_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                   "uge", "ult", "ule", "une", "uno", "true")
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")

#: Index arithmetic as Expr ops. rt's arith replaces some xDSL ops by classes of its own (parsed
#: IR) while passes may build xDSL's: both are listed.
_INDEX_OPS = OpTable({
    xarith.AddiOp: "add", xarith.SubiOp: "sub", xarith.MuliOp: "mul",
    arith.DivUIOp: "floordiv", xarith.DivUIOp: "floordiv", xarith.FloorDivSIOp: "floordiv",
    arith.DivSIOp: "floordiv", xarith.DivSIOp: "floordiv",
    xarith.CeilDivUIOp: "ceildiv", xarith.CeilDivSIOp: "ceildiv", xarith.RemUIOp: "rem",
    xarith.RemSIOp: "rem", xarith.MinUIOp: "min", xarith.MinSIOp: "min",
    xarith.MaxUIOp: "max", xarith.MaxSIOp: "max"})
_STATIC = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "floordiv": lambda a, b: a // b, "ceildiv": lambda a, b: -(-a // b),
           "rem": lambda a, b: a % b, "min": min, "max": max}
_CASTS = (arith.IndexCastOp, xarith.IndexCastOp, arith.IndexCastUIOp, arith.ExtUIOp, xarith.ExtUIOp,
          arith.ExtSIOp, xarith.ExtSIOp, arith.TruncIOp, xarith.TruncIOp)


@dataclass(frozen=True)
class ScalarConst:
    """A scalar constant defined outside a linalg body: Python ``value`` of kernel type ``type``."""

    value: object
    type: str


def type_name(ty, op=None):
    """Kernel IR scalar type name of an xDSL scalar type (``index`` for index)."""
    if isinstance(ty, Float32Type):
        return "f32"
    if isinstance(ty, Float64Type):
        return "f64"
    if isinstance(ty, Float16Type):
        return "f16"
    if isinstance(ty, IndexType):
        return "index"
    if isinstance(ty, IntegerType) and ty.width.data in (1, 2, 4, 8, 16, 32, 64):
        return f"i{ty.width.data}"
    if (name := getattr(ty, "name", None)) in kir.NARROW_FLOATS:
        return name
    message = (f"element type {ty} is not supported in dispatches (f16/bf16/f32/f64/"
               f"f8E5M2/f8E4M3FN/f8E5M2FNUZ/f8E4M3FNUZ/f8E8M0FNU/i1/i2/i4/i8/i16/i32/i64)")
    if op is not None:
        raise error_at_op(op, message)
    raise ValueError(message)


def fold(op, a, b):
    """``Expr(op, (a, b))`` folded when both are ints (unsigned index semantics)."""
    if isinstance(a, int) and isinstance(b, int):
        if op in ("floordiv", "ceildiv", "rem") and b == 0:
            return kir.Expr(op, (a, b))
        return _STATIC[op](a, b)
    if op == "mul" and (a == 0 or b == 0):
        return 0
    if op == "mul" and (a == 1 or b == 1):
        return b if a == 1 else a
    if op in ("add", "sub") and b == 0:
        return a
    if op == "add" and a == 0:
        return b
    if op in ("floordiv", "ceildiv") and b == 1:
        return a
    return kir.Expr(op, (a, b))


def index_value(op, operands):
    """The Size an integer/index op computes from operand Sizes, or None if ``op`` is not one."""
    if isinstance(op, _CASTS):
        return operands[0]
    kind = _INDEX_OPS.get(op)
    return None if kind is None else fold(kind, operands[0], operands[1])


def is_size(value):
    """True for ints (not bools), Constant and Expr."""
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(
        value, (kir.Constant, kir.Expr))


def affine_expr(expr, op):
    """An xDSL AffineExpr -> kernel_ir.AffineExpr (sums of dims times constants)."""
    if isinstance(expr, AffineDimExpr):
        return kir.AffineExpr(((expr.position, 1),), 0)
    if isinstance(expr, AffineConstantExpr):
        return kir.AffineExpr((), expr.value)
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = affine_expr(expr.lhs, op), affine_expr(expr.rhs, op)
        if expr.kind == AffineBinaryOpKind.Add:
            return add_affine(lhs, rhs)
        if expr.kind == AffineBinaryOpKind.Mul:
            if not rhs.terms:
                return scale_affine(lhs, rhs.constant)
            if not lhs.terms:
                return scale_affine(rhs, lhs.constant)
    raise error_at_op(op, f"indexing map expression {expr} is not a sum of dims times "
                          f"constants; rt's dispatch lowering supports only those")


def add_affine(a, b):
    """a + b with terms merged per dim."""
    terms = dict(a.terms)
    for d, c in b.terms:
        terms[d] = terms.get(d, 0) + c
    return kir.AffineExpr(tuple(sorted((d, c) for d, c in terms.items() if c)), a.constant + b.constant)


def scale_affine(a, k):
    """k * a."""
    return kir.AffineExpr(tuple((d, c * k) for d, c in a.terms if c * k), a.constant * k)


def affine_map(amap, op):
    """An xDSL AffineMap -> tuple of kernel_ir.AffineExpr."""
    return tuple(affine_expr(e, op) for e in amap.results)


def substitute(expr, values):
    """``expr`` with each dim d replaced by the AffineExpr ``values[d]``."""
    out = kir.AffineExpr((), expr.constant)
    for d, c in expr.terms:
        out = add_affine(out, scale_affine(values[d], c))
    return out


def single_dim(expr):
    """The dim of an expr that is exactly ``d``, else None."""
    if expr.constant == 0 and len(expr.terms) == 1 and expr.terms[0][1] == 1:
        return expr.terms[0][0]
    return None
