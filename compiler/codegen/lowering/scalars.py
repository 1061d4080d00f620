"""Scalar ops of a dispatch function as kernel_ir.ScalarOps, inside bodies and outside them.

``scalar_op`` converts one arith/math/linalg.index op of a linalg body. ``scalar_program``
turns a scalar SSA value computed *outside* every body -- from ``arith.constant`` and
``hal.interface.constant.load`` through arith/math ops, as IREE's materialize-interfaces
leaves them (``%c = hal.interface.constant.load ordinal(0) : i32``, ``%f = arith.bitcast %c
: i32 to f32``) -- into a short program of ScalarOps that a body can run (a push constant
read is the ScalarOp ``hal.interface.constant.load`` with attr ``ordinal``). So fill values,
pad values and captured scalars may be dynamic. Exact semantics are kept (sign- vs
zero-extension, bitcasts), unlike kernel_ir Sizes which are unsigned index arithmetic.

``OPCODES`` is the one place MLIR op classes meet Kernel IR opcodes. Where rt's dialect
replaces an xDSL op with a class of its own (not a subclass), both classes are listed: parsed
IR holds rt's, and passes may build xDSL's (``arith.IndexCastOp`` in materialize-interfaces).

Source: MLIR arith/math op semantics; IREE's ``hal.interface.constant.load``.
"""
from dataclasses import replace

from xdsl.dialects import arith as xarith
from xdsl.dialects import cf
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import BlockArgument

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.kernel_ir import Opcode
from rt.compiler.codegen.lowering.symbols import CMPF_PREDICATES, CMPI_PREDICATES, type_name
from rt.compiler.dialects import arith, flow, hal, math
from rt.compiler.frontend import error_at_op
from rt.compiler.frontend.diagnostics import op_location
from rt.compiler.op_handlers import OpTable

#: Ops whose result is their first operand (IREE annotations on index values).
PASS_THROUGH = (flow.DispatchWorkloadOrdinalOp,)

#: The Kernel IR opcode of each scalar MLIR op a dispatch body may hold (``arith``, ``math``:
#: rt's dialects; ``xarith``, ``xmath``: xDSL's).
OPCODES = OpTable({
    xarith.ConstantOp: Opcode.CONSTANT,
    IndexOp: Opcode.INDEX,
    hal.InterfaceConstantLoadOp: Opcode.CONSTANT_LOAD,
    cf.AssertOp: Opcode.ASSERT,
    arith.SelectOp: Opcode.SELECT, xarith.SelectOp: Opcode.SELECT,
    arith.CmpFOp: Opcode.CMPF, xarith.CmpfOp: Opcode.CMPF,
    arith.CmpIOp: Opcode.CMPI, xarith.CmpiOp: Opcode.CMPI,
    xarith.AddfOp: Opcode.ADDF,
    xarith.SubfOp: Opcode.SUBF,
    xarith.MulfOp: Opcode.MULF,
    xarith.DivfOp: Opcode.DIVF,
    arith.RemFOp: Opcode.REMF,
    xarith.NegfOp: Opcode.NEGF,
    xarith.MaximumfOp: Opcode.MAXIMUMF,
    xarith.MinimumfOp: Opcode.MINIMUMF,
    xarith.MaxnumfOp: Opcode.MAXNUMF,
    xarith.MinnumfOp: Opcode.MINNUMF,
    arith.ScalingExtFOp: Opcode.SCALING_EXTF,
    arith.ScalingTruncFOp: Opcode.SCALING_TRUNCF,
    xarith.AddiOp: Opcode.ADDI,
    xarith.SubiOp: Opcode.SUBI,
    xarith.MuliOp: Opcode.MULI,
    arith.DivSIOp: Opcode.DIVSI, xarith.DivSIOp: Opcode.DIVSI,
    arith.DivUIOp: Opcode.DIVUI, xarith.DivUIOp: Opcode.DIVUI,
    xarith.RemSIOp: Opcode.REMSI,
    xarith.RemUIOp: Opcode.REMUI,
    xarith.FloorDivSIOp: Opcode.FLOORDIVSI,
    xarith.CeilDivSIOp: Opcode.CEILDIVSI,
    xarith.CeilDivUIOp: Opcode.CEILDIVUI,
    xarith.MaxSIOp: Opcode.MAXSI,
    xarith.MinSIOp: Opcode.MINSI,
    xarith.MaxUIOp: Opcode.MAXUI,
    xarith.MinUIOp: Opcode.MINUI,
    xarith.AndIOp: Opcode.ANDI,
    xarith.OrIOp: Opcode.ORI,
    xarith.XOrIOp: Opcode.XORI,
    xarith.ShLIOp: Opcode.SHLI,
    arith.ShRSIOp: Opcode.SHRSI, xarith.ShRSIOp: Opcode.SHRSI,
    arith.ShRUIOp: Opcode.SHRUI, xarith.ShRUIOp: Opcode.SHRUI,
    arith.ExtFOp: Opcode.EXTF, xarith.ExtFOp: Opcode.EXTF,
    arith.TruncFOp: Opcode.TRUNCF, xarith.TruncFOp: Opcode.TRUNCF,
    arith.ExtSIOp: Opcode.EXTSI, xarith.ExtSIOp: Opcode.EXTSI,
    arith.ExtUIOp: Opcode.EXTUI, xarith.ExtUIOp: Opcode.EXTUI,
    arith.TruncIOp: Opcode.TRUNCI, xarith.TruncIOp: Opcode.TRUNCI,
    arith.IndexCastOp: Opcode.INDEX_CAST, xarith.IndexCastOp: Opcode.INDEX_CAST,
    arith.IndexCastUIOp: Opcode.INDEX_CASTUI,
    arith.SIToFPOp: Opcode.SITOFP, xarith.SIToFPOp: Opcode.SITOFP,
    arith.UIToFPOp: Opcode.UITOFP, xarith.UIToFPOp: Opcode.UITOFP,
    arith.FPToSIOp: Opcode.FPTOSI, xarith.FPToSIOp: Opcode.FPTOSI,
    arith.FPToUIOp: Opcode.FPTOUI, xarith.FPToUIOp: Opcode.FPTOUI,
    xarith.BitcastOp: Opcode.BITCAST,
    xmath.AbsFOp: Opcode.ABSF,
    xmath.AbsIOp: Opcode.ABSI,
    xmath.FmaOp: Opcode.FMA,
    xmath.PowFOp: Opcode.POWF,
    xmath.Atan2Op: Opcode.ATAN2,
    xmath.CopySignOp: Opcode.COPYSIGN,
    xmath.SqrtOp: Opcode.SQRT,
    xmath.RsqrtOp: Opcode.RSQRT,
    xmath.CbrtOp: Opcode.CBRT,
    xmath.ExpOp: Opcode.EXP,
    xmath.Exp2Op: Opcode.EXP2,
    xmath.ExpM1Op: Opcode.EXPM1,
    xmath.LogOp: Opcode.LOG,
    xmath.Log2Op: Opcode.LOG2,
    xmath.Log10Op: Opcode.LOG10,
    xmath.Log1pOp: Opcode.LOG1P,
    xmath.FloorOp: Opcode.FLOOR,
    xmath.CeilOp: Opcode.CEIL,
    xmath.RoundOp: Opcode.ROUND,
    xmath.RoundEvenOp: Opcode.ROUNDEVEN,
    xmath.TruncOp: Opcode.TRUNC,
    xmath.SinOp: Opcode.SIN,
    xmath.CosOp: Opcode.COS,
    xmath.TanOp: Opcode.TAN,
    xmath.AsinOp: Opcode.ASIN,
    xmath.AcosOp: Opcode.ACOS,
    xmath.AtanOp: Opcode.ATAN,
    xmath.SinhOp: Opcode.SINH,
    xmath.CoshOp: Opcode.COSH,
    xmath.TanhOp: Opcode.TANH,
    xmath.AsinhOp: Opcode.ASINH,
    xmath.AcoshOp: Opcode.ACOSH,
    xmath.AtanhOp: Opcode.ATANH,
    xmath.ErfOp: Opcode.ERF,
    math.ErfcOp: Opcode.ERFC,
    xmath.CtPopOp: Opcode.CTPOP,
    xmath.CountLeadingZerosOp: Opcode.CTLZ,
    xmath.CountTrailingZerosOp: Opcode.CTTZ,
    math.IsNaNOp: Opcode.ISNAN,
    math.IsInfOp: Opcode.ISINF,
    math.IsFiniteOp: Opcode.ISFINITE,
})


def assertion_message(op):
    """``file:line:col: cf.assert failed: <msg>`` of ``cf.assert`` ``op`` (its nearest located
    ancestor's location when it has none)."""
    current = op
    while current is not None and op_location(current) is None:
        current = current.parent_op()
    where = "{}:{}:{}: ".format(*op_location(current)) if current is not None else ""
    return f"{where}cf.assert failed: {op.msg.data}"


def attr_value(attr):
    """Python value of a scalar FloatAttr / IntegerAttr, else None."""
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    return None


def scalar_op(op, operand_ids):
    """kernel_ir.ScalarOp for xDSL scalar ``op`` whose operands have ids ``operand_ids``."""
    attrs = {}
    opcode = OPCODES.get(op)
    if opcode is Opcode.CONSTANT:
        value = attr_value(op.value)
        if value is None:
            raise error_at_op(op, "only scalar constants are supported here")
        attrs["value"] = value
    elif opcode is Opcode.CMPF:
        attrs["predicate"] = CMPF_PREDICATES[op.predicate.value.data]
    elif opcode is Opcode.CMPI:
        attrs["predicate"] = CMPI_PREDICATES[op.predicate.value.data]
    elif opcode is Opcode.INDEX:
        attrs["dim"] = op.dim.value.data
    elif opcode is Opcode.CONSTANT_LOAD:
        attrs["ordinal"] = op.ordinal.value.data
    elif opcode is Opcode.ASSERT:
        return kir.ScalarOp(opcode, tuple(operand_ids), "i1", (("message", assertion_message(op)),))
    if len(op.results) != 1:
        raise error_at_op(op, f"'{op.name}' with {len(op.results)} results is not supported "
                              f"on scalars in a dispatch")
    if opcode is None:
        raise error_at_op(op, f"'{op.name}' is not supported on scalars in a dispatch by rt's "
                              f"llvm-cpu/vmvx codegen; supported: {', '.join(Opcode)}")
    return kir.ScalarOp(opcode, tuple(operand_ids), type_name(op.results[0].type, op),
                        tuple(sorted(attrs.items())))


def scalar_program(value, user):
    """ScalarOps computing scalar ``value`` (defined outside any body); the last one is it.

    Operand ids are local to the program (0 = its first op). Raises CompileError at ``user``
    when ``value`` depends on something else than constants and push constants.
    """
    ops, ids = [], {}

    def visit(v):
        while not isinstance(v, BlockArgument) and isinstance(v.owner, PASS_THROUGH):
            v = v.owner.operands[0]
        if v in ids:
            return ids[v]
        op = v.owner
        # any arith/math op is accepted here; scalar_op rejects those without an opcode
        if isinstance(v, BlockArgument) or hasattr(v.type, "get_shape") or not (
                op.dialect_name() in ("arith", "math") or isinstance(op, hal.InterfaceConstantLoadOp)):
            raise error_at_op(user, "uses a scalar the dispatch lowering cannot compute: only "
                                    "constants, push constants and arith/math ops on them are "
                                    "supported")
        operand_ids = [visit(o) for o in op.operands]
        ops.append(scalar_op(op, operand_ids))
        ids[v] = len(ops) - 1
        return ids[v]

    visit(value)
    return ops


def splice(program, base):
    """``program`` with local ids shifted by ``base`` (to append it to a body whose next id is
    ``base``)."""
    return [replace(s, operands=tuple(o + base for o in s.operands)) for s in program]
