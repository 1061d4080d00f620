"""Scalar ops of a Kernel IR body (arith, math, linalg.index) as LLVM IR on scalars or vectors.

Every op is emitted on values of one "lane shape": plain scalars (lanes == 1) or
``<lanes x T>`` vectors, so the same body serves the vector loop and its scalar tail. Types
follow kernel_ir: the narrow floats are storage only and computed as f32 (f16 and f8 rounded
after every op, bf16 only where kernel_ir says: truncf, bitcast, stores and yields); ``i1`` is
an LLVM i1; ``index`` is i64.

Math: exp, log and tanh on f32 are the polynomials of ``math_approximation`` (vectorizable);
the other math ops, and all f64 math, use LLVM intrinsics or libm calls (scalarized per lane),
which the llvm-cpu loader resolves. Integer division (and remainder) by zero never traps:
the lane divides by 1 instead and sets the function's division-by-zero flag
(``division_by_zero_flag``), which makes the workgroup return ``abi.STATUS_DIVISION_BY_ZERO``
when it is done, so the dispatch fails as vmvx's does (MLIR leaves it undefined; rt reports
it rather than returning a value). Signed INT_MIN / -1 wraps (quotient INT_MIN, remainder 0).
A ``cf.assert`` whose operand is false stores its index in the function's assertion flag
(``assertion_flag``); the workgroup then returns ``abi.STATUS_ASSERTION_BASE`` + index and the
launcher reports the assert's location and message (the library metadata's ``assertions``).
Shifts by the bit width or more give 0 (``shli``, ``shrui``) or the sign fill (``shrsi``);
``fptosi`` / ``fptoui`` saturate to the result type's range, NaN giving 0 (``llvm.fpto*i.sat``).
The table of these definitions is docs/ARCHITECTURE.md "Undefined behaviour".

Source: MLIR's arith-to-llvm / math-to-llvm conversions and math-polynomial-approximation.
"""
from llvmlite import ir

from rt.compiler.codegen.kernel_ir import NARROW_FLOATS, ROUNDED_EVERY_OP, Opcode, element_bits
from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.half import f16_bits_to_f32, f32_to_f16_bits
from rt.compiler.codegen.llvm_cpu.small_float import from_float, round_f32_to_bf16, to_f32
from rt.compiler.codegen.llvm_cpu.math_approximation import emit_exp, emit_log, emit_tanh
from rt.runtime.errors import CompileError

FLOAT_TYPES = NARROW_FLOATS + ("f32", "f64")
INT_WIDTHS = {"i1": 1, "i2": 2, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}

_FCMP = {"oeq": ("o", "=="), "ogt": ("o", ">"), "oge": ("o", ">="), "olt": ("o", "<"),
         "ole": ("o", "<="), "one": ("o", "!="), "ord": ("o", "ord"), "ueq": ("u", "=="),
         "ugt": ("u", ">"), "uge": ("u", ">="), "ult": ("u", "<"), "ule": ("u", "<="),
         "une": ("u", "!="), "uno": ("u", "uno")}
_ICMP = {"eq": ("s", "=="), "ne": ("s", "!="), "slt": ("s", "<"), "sle": ("s", "<="),
         "sgt": ("s", ">"), "sge": ("s", ">="), "ult": ("u", "<"), "ule": ("u", "<="),
         "ugt": ("u", ">"), "uge": ("u", ">=")}
_B = ir.IRBuilder
#: Ops that are one IRBuilder instruction: op -> unbound IRBuilder method.
_FLOAT_BINARY = {Opcode.ADDF: _B.fadd, Opcode.SUBF: _B.fsub, Opcode.MULF: _B.fmul,
                 Opcode.DIVF: _B.fdiv, Opcode.REMF: _B.frem,
                 # MX scaling: the operands are f32 values already (the scale an f8E8M0FNU).
                 Opcode.SCALING_EXTF: _B.fmul, Opcode.SCALING_TRUNCF: _B.fdiv}
_INT_BINARY = {Opcode.ADDI: _B.add, Opcode.SUBI: _B.sub, Opcode.MULI: _B.mul,
               Opcode.ANDI: _B.and_, Opcode.ORI: _B.or_, Opcode.XORI: _B.xor}
_INTRINSIC_BINARY = {Opcode.MAXIMUMF: "maximum", Opcode.MINIMUMF: "minimum",
                     Opcode.MAXNUMF: "maxnum", Opcode.MINNUMF: "minnum", Opcode.POWF: "pow",
                     Opcode.COPYSIGN: "copysign", Opcode.MAXSI: "smax", Opcode.MINSI: "smin",
                     Opcode.MAXUI: "umax", Opcode.MINUI: "umin"}
_INTRINSIC_UNARY = {Opcode.ABSF: "fabs", Opcode.SQRT: "sqrt", Opcode.FLOOR: "floor",
                    Opcode.CEIL: "ceil", Opcode.ROUND: "round", Opcode.ROUNDEVEN: "roundeven",
                    Opcode.TRUNC: "trunc", Opcode.EXP2: "exp2", Opcode.LOG2: "log2",
                    Opcode.LOG10: "log10", Opcode.SIN: "sin", Opcode.COS: "cos",
                    Opcode.CTPOP: "ctpop"}
#: Math ops computed by a libm call per lane: op -> (f32 name, f64 name).
_LIBM_UNARY = {Opcode.ERF: ("erff", "erf"), Opcode.ERFC: ("erfcf", "erfc"),
               Opcode.TAN: ("tanf", "tan"), Opcode.ATAN: ("atanf", "atan"),
               Opcode.ASIN: ("asinf", "asin"), Opcode.ACOS: ("acosf", "acos"),
               Opcode.SINH: ("sinhf", "sinh"), Opcode.COSH: ("coshf", "cosh"),
               Opcode.ASINH: ("asinhf", "asinh"), Opcode.ACOSH: ("acoshf", "acosh"),
               Opcode.ATANH: ("atanhf", "atanh"), Opcode.CBRT: ("cbrtf", "cbrt"),
               Opcode.LOG1P: ("log1pf", "log1p"), Opcode.EXPM1: ("expm1f", "expm1"),
               Opcode.TANH: ("tanhf", "tanh"), Opcode.EXP: ("expf", "exp"),
               Opcode.LOG: ("logf", "log")}
_LIBM_BINARY = {Opcode.ATAN2: ("atan2f", "atan2")}
_INT_DIVISION = frozenset({Opcode.DIVSI, Opcode.DIVUI, Opcode.REMSI, Opcode.REMUI, Opcode.FLOORDIVSI,
                           Opcode.CEILDIVSI, Opcode.CEILDIVUI})
_SHIFTS = frozenset({Opcode.SHLI, Opcode.SHRSI, Opcode.SHRUI})
_CLASSIFY = frozenset({Opcode.ISNAN, Opcode.ISINF, Opcode.ISFINITE})
_F32_POLYNOMIAL = {Opcode.EXP: emit_exp, Opcode.LOG: emit_log, Opcode.TANH: emit_tanh}


def compute_type(name):
    """The LLVM scalar type a value of kernel type ``name`` is computed in."""
    if name in NARROW_FLOATS or name == "f32":
        return ir.FloatType()
    if name == "f64":
        return ir.DoubleType()
    if name in INT_WIDTHS:
        return ir.IntType(INT_WIDTHS[name])
    raise CompileError(f"llvm-cpu codegen: unsupported element type {name!r}; expected one of "
                       f"{', '.join(FLOAT_TYPES)}, i1, i8, i16, i32, i64, index")


def lane_type(ty, lanes):
    """``ty`` or ``<lanes x ty>``."""
    return ty if lanes == 1 else ir.VectorType(ty, lanes)


def splat(builder, value, lanes):
    """Broadcast scalar ``value`` to ``lanes`` lanes (no-op for lanes == 1)."""
    if lanes == 1 or isinstance(value.type, ir.VectorType):
        return value
    vty = ir.VectorType(value.type, lanes)
    if isinstance(value, ir.Constant):
        return ir.Constant(vty, [value] * lanes)
    v = builder.insert_element(ir.Constant(vty, ir.Undefined), value, ir.IntType(32)(0))
    return builder.shuffle_vector(v, ir.Constant(vty, ir.Undefined),
                                  ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes))


def constant(name, value, lanes):
    """An LLVM constant of kernel type ``name`` (bools and ints for integers)."""
    ty = compute_type(name)
    if name in FLOAT_TYPES:
        scalar = ir.Constant(ty, float(value))
    else:
        width = INT_WIDTHS[name]
        scalar = ir.Constant(ty, int(value) & ((1 << width) - 1))
    return scalar if lanes == 1 else ir.Constant(ir.VectorType(ty, lanes), [scalar] * lanes)


def to_bits(builder, value, name):
    """Bit pattern (iN) of f32 ``value`` rounded to narrow float ``name`` (f32 or f64 source)."""
    if name == "f16":
        if value.type != ir.FloatType() and getattr(value.type, "element", None) != ir.FloatType():
            raise CompileError("llvm-cpu codegen: f16 is rounded from f32 values only")
        return f32_to_f16_bits(builder, value)
    return from_float(builder, value, name)


def from_bits(builder, bits, name):
    """f32 value of narrow float bit pattern ``bits`` of type ``name`` (exact)."""
    return f16_bits_to_f32(builder, bits) if name == "f16" else to_f32(builder, bits, name)


def round_to(builder, value, name):
    """f32 ``value`` rounded to the nearest value of narrow float ``name``, still as f32."""
    scalar = value.type.element if isinstance(value.type, ir.VectorType) else value.type
    if name == "bf16" and scalar == ir.FloatType():
        return round_f32_to_bf16(builder, value)
    return from_bits(builder, to_bits(builder, value, name), name)


def _entry_flag(builder, attribute, width, name):
    """An i``width`` slot in an alloca at the start of ``builder``'s function, zeroed there;
    made on first use and kept on the function as ``attribute``."""
    fn = builder.function
    flag = getattr(fn, attribute, None)
    if flag is None:
        entry = ir.IRBuilder(fn.entry_basic_block)
        entry.position_at_start(fn.entry_basic_block)
        flag = entry.alloca(ir.IntType(width), name=name)
        entry.store(ir.Constant(ir.IntType(width), 0), flag)
        setattr(fn, attribute, flag)
    return flag


def assertion_flag(builder):
    """The i32 slot where a failing ``cf.assert`` of ``builder``'s function stores its index in
    the module's ``rt_assertions`` plus 1 (0: none failed)."""
    return _entry_flag(builder, "rt_assertion", 32, "failed_assertion")


def assertion_index(module, message):
    """The index of ``message`` in ``module.rt_assertions`` (the messages of the library's
    asserts, in the object's metadata), appended on first use."""
    messages = module.__dict__.setdefault("rt_assertions", [])
    if message not in messages:
        messages.append(message)
    return messages.index(message)


def division_by_zero_flag(builder):
    """The i1 flag of ``builder``'s function that integer divisions set when a divisor is 0."""
    return _entry_flag(builder, "rt_division_by_zero", 1, "division_by_zero")


class BodyEmitter:
    """Emits the ScalarOps of one body with ``builder`` on values of ``lanes`` lanes.

    index_values: per loop dim the i64 index (scalar; for the vectorized dim its first lane)
    and vector_dim: the dim whose lanes are consecutive indices (None when lanes == 1);
    push_constants: ordinal -> i32 value, for ``hal.interface.constant.load``.
    """

    def __init__(self, builder, lanes, index_values=(), vector_dim=None, push_constants=None):
        self.b = builder
        self.lanes = lanes
        self.index_values = index_values
        self.vector_dim = vector_dim
        self.push_constants = push_constants or {}

    def emit(self, op, args, arg_types):
        """Value of ``op`` (a kernel_ir.ScalarOp) given operand values and type names."""
        try:
            value = self._emit(op, args, arg_types)
        except (ValueError, TypeError, AttributeError) as e:
            raise CompileError(f"llvm-cpu codegen: '{op.opcode}' on operands of types "
                               f"{list(arg_types)} -> {op.result_type}: {e}") from None
        if op.result_type in ROUNDED_EVERY_OP and op.opcode not in _EXACT_NARROW:
            value = round_to(self.b, value, op.result_type)
        return value

    def _emit(self, op, args, types):
        b, opcode, rt = self.b, op.opcode, op.result_type
        if opcode is Opcode.CONSTANT:
            return constant(rt, op.attr("value"), self.lanes)
        if opcode is Opcode.INDEX:
            return self._index(op.attr("dim"))
        if opcode is Opcode.ASSERT:
            return self._assert(op.attr("message"), args[0])
        if opcode is Opcode.CONSTANT_LOAD:
            if op.attr("ordinal") not in self.push_constants or rt != "i32":
                raise CompileError(f"llvm-cpu codegen: push constant {op.attr('ordinal')} read "
                                   f"as {rt} is not available (i32 push constants only)")
            return splat(b, self.push_constants[op.attr("ordinal")], self.lanes)
        if opcode in _FLOAT_BINARY:
            return _FLOAT_BINARY[opcode](b, *args)
        if opcode in _INT_BINARY:
            return _INT_BINARY[opcode](b, *args)
        if opcode in _INTRINSIC_BINARY:
            return intrinsics.call(b, _INTRINSIC_BINARY[opcode], *args)
        if opcode is Opcode.NEGF:
            return b.fneg(args[0])
        if opcode in _INT_DIVISION:
            return self._int_division(opcode, *args)
        if opcode in _SHIFTS:
            return self._shift(opcode, *args)
        if opcode is Opcode.CMPF:
            return self._cmpf(op.attr("predicate"), *args)
        if opcode is Opcode.CMPI:
            kind, pred = self._predicate(_ICMP, op.attr("predicate"), opcode)
            return (b.icmp_signed if kind == "s" else b.icmp_unsigned)(pred, *args)
        if opcode is Opcode.SELECT:
            return b.select(*args)
        if opcode is Opcode.ABSI:
            return b.select(b.icmp_signed("<", args[0], self._zero(args[0].type)),
                            b.sub(self._zero(args[0].type), args[0]), args[0])
        if opcode is Opcode.FMA:
            return intrinsics.call(b, "fma", *args)
        if opcode is Opcode.RSQRT:
            one = ir.Constant(args[0].type, 1.0) if self.lanes == 1 else splat(
                b, ir.Constant(args[0].type.element, 1.0), self.lanes)
            return b.fdiv(one, intrinsics.call(b, "sqrt", args[0]))
        if opcode in (Opcode.CTLZ, Opcode.CTTZ):
            return intrinsics.count_zeros(b, "ctlz" if opcode is Opcode.CTLZ else "cttz", args[0])
        if opcode in _CLASSIFY:
            return self._classify(opcode, args[0])
        if opcode in _INTRINSIC_UNARY:
            return intrinsics.call(b, _INTRINSIC_UNARY[opcode], args[0])
        if opcode in _F32_POLYNOMIAL and types[0] in NARROW_FLOATS + ("f32",):
            return _F32_POLYNOMIAL[opcode](b, args[0])
        if opcode in _LIBM_UNARY or opcode in _LIBM_BINARY:
            table = _LIBM_UNARY if opcode in _LIBM_UNARY else _LIBM_BINARY
            return self._libm(table[opcode][1 if types[0] == "f64" else 0], args)
        if opcode in _CASTS:
            return _CASTS[opcode](self, args[0], types[0], rt)
        raise CompileError(f"llvm-cpu codegen: scalar op '{opcode}' is not supported in a "
                           f"kernel body; supported: arith and math ops on f16/f32/f64/i1-i64")

    def _zero(self, ty):
        return ir.Constant(ty, None)

    def _lanes_of(self, ty):
        return lane_type(ty, self.lanes)

    def _index(self, dim):
        if dim is None or not 0 <= dim < len(self.index_values):
            raise CompileError(f"llvm-cpu codegen: linalg.index dim {dim} is outside the "
                               f"{len(self.index_values)}-d iteration domain")
        value = splat(self.b, self.index_values[dim], self.lanes)
        if dim == self.vector_dim and self.lanes > 1:
            step = ir.Constant(ir.VectorType(ir.IntType(64), self.lanes), list(range(self.lanes)))
            value = self.b.add(value, step)
        return value

    @staticmethod
    def _predicate(table, predicate, opcode):
        if predicate not in table:
            raise CompileError(f"llvm-cpu codegen: {opcode} predicate {predicate!r} is not one of "
                               f"{sorted(table)}")
        return table[predicate]

    def _cmpf(self, predicate, x, y):
        b = self.b
        if predicate in ("false", "true"):
            ty = lane_type(ir.IntType(1), self.lanes)
            bit = ir.Constant(ir.IntType(1), int(predicate == "true"))
            return bit if self.lanes == 1 else ir.Constant(ty, [bit] * self.lanes)
        kind, pred = self._predicate(_FCMP, predicate, Opcode.CMPF)
        return (b.fcmp_ordered if kind == "o" else b.fcmp_unordered)(pred, x, y)

    def _classify(self, opcode, x):
        b = self.b
        scalar_ty = x.type.element if isinstance(x.type, ir.VectorType) else x.type
        inf = splat(b, ir.Constant(scalar_ty, float("inf")), self.lanes)
        ax = intrinsics.call(b, "fabs", x)
        if opcode is Opcode.ISNAN:
            return b.fcmp_unordered("uno", x, x)
        if opcode is Opcode.ISINF:
            return b.fcmp_ordered("==", ax, inf)
        return b.fcmp_ordered("<", ax, inf)

    def _int_division(self, opcode, x, y):
        b, ty = self.b, x.type
        zero, one = self._zero(ty), self._const_int(ty, 1)
        by_zero = b.icmp_unsigned("==", y, zero)
        any_zero = by_zero
        if isinstance(ty, ir.VectorType):
            any_zero = b.icmp_unsigned("!=", b.bitcast(by_zero, ir.IntType(self.lanes)),
                                       ir.Constant(ir.IntType(self.lanes), 0))
        flag = division_by_zero_flag(b)
        b.store(b.or_(b.load(flag), any_zero), flag)
        safe = b.select(by_zero, one, y)
        if opcode is Opcode.DIVUI:
            result = b.udiv(x, safe)
        elif opcode is Opcode.REMUI:
            result = b.urem(x, safe)
        elif opcode is Opcode.CEILDIVUI:
            inexact = b.icmp_unsigned("!=", b.urem(x, safe), zero)
            result = b.add(b.udiv(x, safe), b.zext(inexact, ty))
        else:
            # INT_MIN / -1 overflows (and traps on x86): divide by 1 instead, giving the
            # wrapped quotient INT_MIN and remainder 0.
            width = (ty.element if isinstance(ty, ir.VectorType) else ty).width
            overflow = b.and_(b.icmp_unsigned("==", x, self._const_int(ty, 1 << (width - 1))),
                              b.icmp_signed("==", y, self._const_int(ty, -1)))
            safe = b.select(overflow, one, safe)
            q, r = b.sdiv(x, safe), b.srem(x, safe)
            inexact = b.icmp_signed("!=", r, zero)
            same_sign = b.icmp_signed(">=", b.xor(x, safe), zero)
            if opcode is Opcode.DIVSI:
                result = q
            elif opcode is Opcode.REMSI:
                result = r
            elif opcode is Opcode.FLOORDIVSI:
                result = b.select(b.and_(inexact, b.not_(same_sign)), b.sub(q, one), q)
            else:
                result = b.select(b.and_(inexact, same_sign), b.add(q, one), q)
        return b.select(by_zero, zero, result)

    def _assert(self, message, ok):
        """Record a failing ``cf.assert`` (any lane false) in the function's assertion flag."""
        b = self.b
        failed = b.not_(ok)
        if isinstance(ok.type, ir.VectorType):
            failed = b.icmp_unsigned("!=", b.bitcast(failed, ir.IntType(self.lanes)),
                                     ir.Constant(ir.IntType(self.lanes), 0))
        flag = assertion_flag(b)
        code = ir.Constant(ir.IntType(32), assertion_index(b.module, message) + 1)
        b.store(b.select(failed, code, b.load(flag)), flag)
        return ok

    def _const_int(self, ty, value):
        scalar = ty.element if isinstance(ty, ir.VectorType) else ty
        c = ir.Constant(scalar, value & ((1 << scalar.width) - 1))
        return c if self.lanes == 1 else ir.Constant(ty, [c] * self.lanes)

    def _shift(self, opcode, x, y):
        b, ty = self.b, x.type
        width = (ty.element if isinstance(ty, ir.VectorType) else ty).width
        too_far = b.icmp_unsigned(">=", y, self._const_int(ty, width))
        safe = b.select(too_far, self._zero(ty), y)
        if opcode is Opcode.SHLI:
            return b.select(too_far, self._zero(ty), b.shl(x, safe))
        if opcode is Opcode.SHRUI:
            return b.select(too_far, self._zero(ty), b.lshr(x, safe))
        return b.ashr(x, b.select(too_far, self._const_int(ty, width - 1), y))

    def _libm(self, symbol, args):
        b = self.b
        module = b.module
        scalar_ty = args[0].type.element if isinstance(args[0].type, ir.VectorType) else args[0].type
        fn = module.globals.get(symbol)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(scalar_ty, [scalar_ty] * len(args)), symbol)
            fn.attributes.add("nounwind")
        if self.lanes == 1:
            return b.call(fn, args)
        result = ir.Constant(args[0].type, ir.Undefined)
        for lane in range(self.lanes):
            i = ir.IntType(32)(lane)
            result = b.insert_element(result, b.call(fn, [b.extract_element(a, i) for a in args]), i)
        return result


def _extf(em, x, src, dst):
    if dst != "f64":
        return x
    return em.b.fpext(x, em._lanes_of(compute_type(dst)))


def _truncf(em, x, src, dst):
    """Rounds to ``dst`` (an explicit truncf always does); f64 -> bf16/f8 rounds once (no double
    rounding through f32)."""
    if src == "f64" and dst in NARROW_FLOATS and dst != "f16":
        return from_bits(em.b, from_float(em.b, x, dst), dst)
    if src == "f64":
        x = em.b.fptrunc(x, em._lanes_of(compute_type("f32")))
    return round_to(em.b, x, dst) if dst in NARROW_FLOATS else x


def _int_resize(signed):
    def cast(em, x, src, dst):
        sw, dw = INT_WIDTHS[src], INT_WIDTHS[dst]
        ty = em._lanes_of(compute_type(dst))
        if sw == dw:
            return x
        if sw > dw:
            return em.b.trunc(x, ty)
        return em.b.sext(x, ty) if signed else em.b.zext(x, ty)
    return cast


def _to_float(signed):
    def cast(em, x, src, dst):
        ty = em._lanes_of(compute_type(dst))
        value = em.b.sitofp(x, ty) if signed else em.b.uitofp(x, ty)
        return round_to(em.b, value, dst) if dst in ROUNDED_EVERY_OP else value
    return cast


def _to_int(signed):
    """fptosi / fptoui, saturating: out of range -> the nearest bound, NaN -> 0 (vmvx's VM casts
    compute the same)."""
    def cast(em, x, src, dst):
        return intrinsics.float_to_int_sat(em.b, signed, x, em._lanes_of(compute_type(dst)))
    return cast


def _bitcast(em, x, src, dst):
    b = em.b
    if src == dst:
        return x
    if src in NARROW_FLOATS:
        x = to_bits(b, x, src)
    narrow = dst in NARROW_FLOATS
    value = b.bitcast(x, em._lanes_of(ir.IntType(element_bits(dst)) if narrow else compute_type(dst)))
    return from_bits(b, value, dst) if narrow else value


#: Ops whose narrow result is exact or rounded already (emit() does not round it again).
_EXACT_NARROW = frozenset({Opcode.EXTF, Opcode.BITCAST, Opcode.TRUNCF, Opcode.SITOFP, Opcode.UITOFP})

_CASTS = {
    Opcode.EXTF: _extf, Opcode.TRUNCF: _truncf, Opcode.EXTSI: _int_resize(True),
    Opcode.EXTUI: _int_resize(False), Opcode.TRUNCI: _int_resize(False),
    Opcode.INDEX_CAST: _int_resize(True), Opcode.INDEX_CASTUI: _int_resize(False),
    Opcode.SITOFP: _to_float(True), Opcode.UITOFP: _to_float(False), Opcode.FPTOSI: _to_int(True),
    Opcode.FPTOUI: _to_int(False), Opcode.BITCAST: _bitcast,
}
