"""Scalar arith/math ops of a Generic body as VM bytecode.

Register conventions (what every value id of a body holds):

* ``f32`` and the narrow floats live in f32 registers, rounded as kernel_ir says: every f16
  result with ``trunc.f32.f16``, every f8 result with ``trunc.f64.bits`` + ``ext.bits.f32``;
  bf16 values stay f32 until stored, yielded into an output, truncf'd or bitcast; ``f64`` in
  f64 registers.
* ``i2``/``i4``/``i8``/``i16``/``i32`` live in i32 registers sign-extended from their width; ``i1`` is 0 or
  1; ``i64`` and ``index`` live in i64 registers. Results are re-normalised after every op
  that can leave the canonical form (wrapping adds, shifts, truncations).

``hal.interface.constant.load`` (attr ``ordinal``, result i32) reads a push constant: the raw
32 bits, as IREE dispatch bodies receive scalar operands (an f32 argument arrives through
``arith.bitcast``). Body ops that read no block argument and no loop index are *invariant*
(``invariant_ids``): they are emitted once per workgroup, before the loops.

Semantics follow MLIR's arith and math dialects; where MLIR leaves a case undefined, integer
division by zero traps (an error naming the dispatch, as on llvm-cpu), signed INT_MIN / -1
wraps (quotient INT_MIN, remainder 0, as llvm-cpu and the microkernels compute it), shifts by
the bit width or more give 0 (``shli``, ``shrui``) or the sign fill (``shrsi``), and
``fptosi`` / ``fptoui`` saturate to the result type's range with NaN -> 0 (docs/ARCHITECTURE.md,
"Undefined behaviour"). ``arith.maxnumf`` /
``minnumf`` ignore a NaN operand, ``maximumf`` / ``minimumf`` propagate it.
Source: MLIR arith/math op definitions; IREE's arith -> vm conversion
(compiler/src/iree/compiler/Dialect/VM/Conversion/ArithToVM, MathToVM).
"""
import numpy as np

from rt.compiler.codegen.kernel_ir import NARROW_FLOATS, ROUNDED_EVERY_OP, Opcode, element_bits
from rt.runtime.errors import CompileError
from rt.runtime.small_float import FORMATS as SMALL_FLOATS, from_float64

FLOAT_TYPES = NARROW_FLOATS + ("f32", "f64")
INT_BITS = {"i1": 1, "i2": 2, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}


def reg_type(t):
    """The VM register type holding scalar type ``t``."""
    if t in NARROW_FLOATS or t == "f32":
        return "f32"
    if t == "f64":
        return "f64"
    if t in ("i64", "index"):
        return "i64"
    if t in INT_BITS:
        return "i32"
    raise CompileError(f"vmvx codegen: scalar type {t!r} is not supported; expected one of "
                       f"{', '.join(FLOAT_TYPES + tuple(INT_BITS))}")


class Val:
    """A body value: register ``reg`` holding scalar type ``type``."""

    __slots__ = ("reg", "type")

    def __init__(self, reg, type_):
        self.reg, self.type = reg, type_


_FLOAT_BINARY = {Opcode.SCALING_EXTF: "mul", Opcode.SCALING_TRUNCF: "div",  # MX scales, f32 values
                 Opcode.ADDF: "add", Opcode.SUBF: "sub", Opcode.MULF: "mul", Opcode.DIVF: "div",
                 Opcode.REMF: "rem", Opcode.MAXIMUMF: "max", Opcode.MINIMUMF: "min", Opcode.POWF: "pow",
                 Opcode.ATAN2: "atan2", Opcode.COPYSIGN: "copysign"}
_FLOAT_UNARY = {Opcode.NEGF: "neg", Opcode.ABSF: "abs", Opcode.EXP: "exp", Opcode.LOG: "log",
                Opcode.SQRT: "sqrt", Opcode.RSQRT: "rsqrt", Opcode.TANH: "tanh", Opcode.FLOOR: "floor",
                Opcode.CEIL: "ceil", Opcode.ROUND: "round", Opcode.ROUNDEVEN: "roundeven", Opcode.SIN: "sin",
                Opcode.COS: "cos", Opcode.ERF: "erf", Opcode.ATAN: "atan", Opcode.EXP2: "exp2",
                Opcode.EXPM1: "expm1", Opcode.LOG2: "log2", Opcode.LOG10: "log10", Opcode.LOG1P: "log1p",
                Opcode.TAN: "tan", Opcode.ASIN: "asin", Opcode.ACOS: "acos", Opcode.SINH: "sinh",
                Opcode.COSH: "cosh", Opcode.ASINH: "asinh", Opcode.ACOSH: "acosh", Opcode.ATANH: "atanh",
                Opcode.CBRT: "cbrt", Opcode.ERFC: "erfc", Opcode.TRUNC: "trunc"}
_INT_BINARY = {Opcode.ADDI: "add", Opcode.SUBI: "sub", Opcode.MULI: "mul", Opcode.ANDI: "and",
               Opcode.ORI: "or", Opcode.XORI: "xor", Opcode.DIVSI: "div.s", Opcode.REMSI: "rem.s",
               Opcode.CEILDIVSI: "ceildiv.s", Opcode.MAXSI: "max.s", Opcode.MINSI: "min.s",
               Opcode.SHLI: "shl", Opcode.SHRSI: "shr.s"}
# Ops that read their operands as unsigned: narrow operands are zero-extended first.
_UINT_BINARY = {Opcode.DIVUI: "div.u", Opcode.REMUI: "rem.u", Opcode.CEILDIVUI: "ceildiv.u",
                Opcode.MAXUI: "max.u", Opcode.MINUI: "min.u", Opcode.SHRUI: "shr.u"}
#: Bit counts, on the operand zero-extended from its width.
_BIT_COUNTS = {Opcode.CTPOP: "ctpop", Opcode.CTLZ: "ctlz", Opcode.CTTZ: "cttz"}
_SHIFTS = frozenset({Opcode.SHLI, Opcode.SHRSI, Opcode.SHRUI})
_CMPF = {"oeq": ("eq", "o"), "one": ("ne", "o"), "olt": ("lt", "o"), "ole": ("lte", "o"), "ogt": ("gt", "o"),
         "oge": ("gte", "o"), "ueq": ("eq", "u"), "une": ("ne", "u"), "ult": ("lt", "u"), "ule": ("lte", "u"),
         "ugt": ("gt", "u"), "uge": ("gte", "u")}
_CMPI = {"eq": ("eq", ""), "ne": ("ne", ""), "slt": ("lt", ".s"), "sle": ("lte", ".s"), "sgt": ("gt", ".s"),
         "sge": ("gte", ".s"), "ult": ("lt", ".u"), "ule": ("lte", ".u"), "ugt": ("gt", ".u"),
         "uge": ("gte", ".u")}


#: Ops that may trap (division by zero): never hoisted above loops that might not run.
_TRAPPING = frozenset({Opcode.DIVSI, Opcode.DIVUI, Opcode.REMSI, Opcode.REMUI, Opcode.CEILDIVSI,
                       Opcode.CEILDIVUI, Opcode.FLOORDIVSI, Opcode.ASSERT})


def load_element(fb, t, dst, buf, offset):
    """``dst`` = the element of type ``t`` at byte ``offset`` (i64 reg) of ``buf`` (narrow
    floats widened exactly to f32; i1 as 0/1)."""
    if t in SMALL_FLOATS:
        bits = fb.reg("i32")
        (fb.buffer_load_i16_u if SMALL_FLOATS[t].bits == 16 else fb.buffer_load_i8_u)(bits, buf, offset)
        fb.ext_bits_f32(dst, bits, SMALL_FLOATS[t].code)
        return
    getattr(fb, _LOAD[t])(dst, buf, offset)
    if t == "i1":
        fb.cmp_nz_i32(dst, dst)


def store_element(fb, t, buf, offset, value):
    """Store register ``value`` as an element of type ``t`` at byte ``offset`` of ``buf``."""
    if t in SMALL_FLOATS:
        bits = fb.reg("i32")
        fb.trunc_f64_bits(bits, value, SMALL_FLOATS[t].code)
        (fb.buffer_store_i16 if SMALL_FLOATS[t].bits == 16 else fb.buffer_store_i8)(buf, offset, bits)
        return
    getattr(fb, _STORE[t])(buf, offset, value)


_LOAD = {"i1": "buffer_load_i8_u", "i8": "buffer_load_i8_s", "i16": "buffer_load_i16_s", "i32": "buffer_load_i32",
         "i64": "buffer_load_i64", "f16": "buffer_load_f16", "f32": "buffer_load_f32", "f64": "buffer_load_f64"}
_STORE = {"i1": "buffer_store_i8", "i8": "buffer_store_i8", "i16": "buffer_store_i16", "i32": "buffer_store_i32",
          "i64": "buffer_store_i64", "f16": "buffer_store_f16", "f32": "buffer_store_f32", "f64": "buffer_store_f64"}


def _packed_position(em, t, offset):
    """(byte offset i64 reg, bit shift i32 reg) of element ``offset`` (i64 reg) of packed type ``t``."""
    fb, bits = em.fb, element_bits(t)
    per_log2 = {4: 1, 2: 2}[bits]
    byte, lane, shift = fb.reg("i64"), fb.reg("i64"), fb.reg("i32")
    fb.shr_i64_u(byte, offset, em.reg(per_log2))
    fb.and_i64(lane, offset, em.reg((1 << per_log2) - 1))
    fb.trunc_i64_i32(shift, lane)
    fb.mul_i32(shift, shift, em.i32(bits))
    return byte, shift


def load_packed(em, t, dst, buf, offset, signed=True):
    """``dst`` = element ``offset`` (i64 reg, an element index) of packed view data in ``buf``:
    element k at bit k * bits (IREE's packing), sign-extended as the register convention
    wants (``signed=False``: the raw bits, zero-extended)."""
    fb, bits = em.fb, element_bits(t)
    byte, shift = _packed_position(em, t, offset)
    fb.buffer_load_i8_u(dst, buf, byte)
    fb.shr_i32_u(dst, dst, shift)
    fb.shl_i32(dst, dst, em.i32(32 - bits))
    (fb.shr_i32_s if signed else fb.shr_i32_u)(dst, dst, em.i32(32 - bits))


def store_packed(em, t, buf, offset, value):
    """Store register ``value`` as element ``offset`` of packed i2/i4 data in ``buf`` (the other
    elements of its byte kept; vmvx runs workgroups one at a time, so no race)."""
    fb, bits = em.fb, element_bits(t)
    byte, shift = _packed_position(em, t, offset)
    old, bitsv, mask = fb.reg("i32"), fb.reg("i32"), fb.reg("i32")
    fb.buffer_load_i8_u(old, buf, byte)
    fb.shl_i32(mask, em.i32((1 << bits) - 1), shift)
    fb.not_i32(mask, mask)
    fb.and_i32(old, old, mask)
    fb.and_i32(bitsv, value, em.i32((1 << bits) - 1))
    fb.shl_i32(bitsv, bitsv, shift)
    fb.or_i32(old, old, bitsv)
    fb.buffer_store_i8(buf, byte, old)


#: Ops never computed before the loops: loop indices and gathers (memory reads).
_NOT_HOISTED = frozenset({Opcode.INDEX, Opcode.EXTRACT})


def invariant_ids(body, n_args):
    """Value ids of the ops of ``body`` (ids numbered from ``n_args``) that depend on no block
    argument and no ``linalg.index``: constants, push constants and non-trapping ops on them."""
    inv = set()
    for k, op in enumerate(body):
        if op.opcode not in _NOT_HOISTED and op.opcode not in _TRAPPING and all(v in inv for v in op.operands):
            inv.add(n_args + k)
    return inv


def emit_invariants(sc, body, n_args, ids):
    """Emit the ops of ``body`` whose value ids are in ``ids`` (see invariant_ids) with
    ScalarEmitter ``sc``; returns {value id: Val}."""
    values = {}
    for k, op in enumerate(body):
        if n_args + k in ids:
            values[n_args + k] = sc.emit(op, [values[v] for v in op.operands])
    return values


def _vm(fb, mnemonic):
    """The FunctionBuilder emitter of VM instruction ``mnemonic`` (its isa.yaml name, e.g.
    ``add.f32``, ``cmp.lt.i64.s``): a VM instruction, chosen by operation and register type as
    IREE's ArithToVM patterns choose ``vm.add.i32`` / ``vm.add.f32``; never an op of a body."""
    return getattr(fb, mnemonic.replace(".", "_"))


class ScalarEmitter:
    """Emits body ops into ``fb``; ``where`` prefixes error messages (kernel and op);
    ``push_constant(ordinal)`` returns the i32 register holding a push constant (None: the
    body may not read push constants)."""

    def __init__(self, fb, where, push_constant=None):
        self.fb, self.where, self.push_constant = fb, where, push_constant

    def _err(self, op, what):
        raise CompileError(f"vmvx codegen: {self.where}: {op.opcode} {what}")

    def new(self, t):
        return Val(self.fb.reg(reg_type(t)), t)

    # -- canonical forms -------------------------------------------------------------------
    def normalize(self, v):
        """Re-canonicalise an integer value after a wrapping op (in place)."""
        bits = INT_BITS.get(v.type)
        if bits == 1:
            one = self.fb.reg("i32")
            self.fb.const_i32(one, 1)
            self.fb.and_i32(v.reg, v.reg, one)
        elif bits in (2, 4):
            width = self.fb.reg("i32")
            self.fb.const_i32(width, 32 - bits)
            self.fb.shl_i32(v.reg, v.reg, width)
            self.fb.shr_i32_s(v.reg, v.reg, width)
        elif bits == 8:
            self.fb.ext_i8_i32_s(v.reg, v.reg)
        elif bits == 16:
            self.fb.ext_i16_i32_s(v.reg, v.reg)
        elif v.type == "f16":
            self.fb.trunc_f32_f16(v.reg, v.reg)
        elif v.type in ROUNDED_EVERY_OP:
            self.round_small(v.reg, v.reg, v.type)
        return v

    def round_small(self, dst, src, t):
        """``dst`` = float register ``src`` (f32 or f64 value) rounded once to bf16/f8 ``t``."""
        bits = self.fb.reg("i32")
        self.fb.trunc_f64_bits(bits, src, SMALL_FLOATS[t].code)
        self.fb.ext_bits_f32(dst, bits, SMALL_FLOATS[t].code)

    def unsigned(self, v):
        """A register holding ``v`` zero-extended from its width (narrow ints only)."""
        bits = INT_BITS[v.type]
        if bits >= 32:
            return v.reg
        r = self.fb.reg("i32")
        if bits in (2, 4):
            mask = self.fb.reg("i32")
            self.fb.const_i32(mask, (1 << bits) - 1)
            self.fb.and_i32(r, v.reg, mask)
        elif bits == 8:
            self.fb.trunc_i32_i8(r, v.reg)
        elif bits == 16:
            self.fb.trunc_i32_i16(r, v.reg)
        else:
            self.fb.mov_i32(r, v.reg)
        return r

    def signed(self, v):
        """A register holding ``v`` sign-extended (i1: 0 / -1)."""
        if v.type != "i1":
            return v.reg
        r = self.fb.reg("i32")
        self.fb.neg_i32(r, v.reg)
        return r

    # -- constants -------------------------------------------------------------------------
    def constant(self, t, value):
        out = self.new(t)
        rt = reg_type(t)
        if t in FLOAT_TYPES:
            value = float(value)
            with np.errstate(over="ignore"):
                if t in SMALL_FLOATS:
                    value = float(from_float64([value], t).astype(np.float64)[0])
                else:
                    value = float({"f16": np.float16, "f32": np.float32, "f64": np.float64}[t](value))
            if rt == "f32":
                self.fb.const_f32(out.reg, value)
            else:
                self.fb.const_f64(out.reg, value)
            return out
        bits = INT_BITS[t]
        value = int(value) & ((1 << bits) - 1)
        if bits > 1 and value >> (bits - 1):
            value -= 1 << bits
        if rt == "i32":
            self.fb.const_i32(out.reg, value)
        else:
            self.fb.const_i64(out.reg, value)
        return out

    # -- one op ----------------------------------------------------------------------------
    def emit(self, op, args):
        """Emit ScalarOp ``op`` over operand Vals ``args``; returns the result Val."""
        opcode, t = op.opcode, op.result_type
        fb = self.fb
        if opcode is Opcode.CONSTANT:
            return self.constant(t, op.attr("value"))
        if opcode is Opcode.CONSTANT_LOAD:
            if t != "i32" or args or self.push_constant is None:
                self._err(op, f"with result type {t} and {len(args)} operands; expected an i32 push "
                              f"constant read without operands inside a kernel")
            return Val(self.push_constant(op.attr("ordinal")), "i32")
        if opcode is Opcode.ASSERT:
            (ok,) = args
            failed = fb.reg("i32")
            fb.cmp_eq_i32(failed, ok.reg, self.constant("i32", 0).reg)
            fb.cond_fail(failed, self.constant("i32", 9).reg, op.attr("message"))  # FAILED_PRECONDITION
            return ok
        if opcode is Opcode.SELECT:
            cond, a, b = args
            out = self.new(t)
            _vm(fb, f"select.{reg_type(t)}")(out.reg, cond.reg, a.reg, b.reg)
            return out
        if opcode in _FLOAT_BINARY or opcode in _FLOAT_UNARY or opcode in (Opcode.FMA, Opcode.MAXNUMF,
                                                                     Opcode.MINNUMF):
            return self._float(op, args)
        if opcode in _INT_BINARY or opcode in _UINT_BINARY or opcode in (Opcode.FLOORDIVSI, Opcode.ABSI):
            return self._int(op, args)
        if opcode in _BIT_COUNTS:
            return self._bit_count(op, args[0])
        if opcode in (Opcode.ISINF, Opcode.ISFINITE):
            return self._classify(opcode, args[0])
        if opcode is Opcode.CMPF:
            return self._cmpf(op, args)
        if opcode is Opcode.CMPI:
            return self._cmpi(op, args)
        if opcode is Opcode.ISNAN:
            out = self.new("i1")
            _vm(fb, f"cmp.nan.{reg_type(args[0].type)}")(out.reg, args[0].reg)
            return out
        return self._convert(op, args)

    def _float(self, op, args):
        opcode, t = op.opcode, op.result_type
        if t not in FLOAT_TYPES:
            self._err(op, f"has result type {t}; expected a float type")
        fb, rt = self.fb, reg_type(t)
        out = self.new(t)
        if opcode in _FLOAT_BINARY:
            _vm(fb, f"{_FLOAT_BINARY[opcode]}.{rt}")(out.reg, args[0].reg, args[1].reg)
        elif opcode in _FLOAT_UNARY:
            _vm(fb, f"{_FLOAT_UNARY[opcode]}.{rt}")(out.reg, args[0].reg)
        elif opcode is Opcode.FMA:
            _vm(fb, f"fma.{rt}")(out.reg, args[0].reg, args[1].reg, args[2].reg)
        else:
            a, b = args
            nan = fb.reg("i32")
            _vm(fb, f"{'max' if opcode is Opcode.MAXNUMF else 'min'}.{rt}")(out.reg, a.reg, b.reg)
            _vm(fb, f"cmp.nan.{rt}")(nan, a.reg)
            _vm(fb, f"select.{rt}")(out.reg, nan, b.reg, out.reg)
            _vm(fb, f"cmp.nan.{rt}")(nan, b.reg)
            _vm(fb, f"select.{rt}")(out.reg, nan, a.reg, out.reg)
        return self.normalize(out)

    def _int(self, op, args):
        opcode, t = op.opcode, op.result_type
        if t not in INT_BITS:
            self._err(op, f"has result type {t}; expected an integer type")
        fb, rt = self.fb, reg_type(t)
        out = self.new(t)
        if opcode is Opcode.ABSI:
            _vm(fb, f"abs.{rt}")(out.reg, self.signed(args[0]))
        elif opcode is Opcode.FLOORDIVSI:
            a, b = self.signed(args[0]), self.signed(args[1])
            b = self._wrapping_divisor(a, b, t)
            rem, zero, c1, c2 = fb.reg(rt), fb.reg(rt), fb.reg("i32"), fb.reg("i32")
            one = fb.reg(rt)
            _vm(fb, f"div.{rt}.s")(out.reg, a, b)
            _vm(fb, f"rem.{rt}.s")(rem, a, b)
            _vm(fb, f"const.{rt}.zero")(zero)
            _vm(fb, f"cmp.ne.{rt}")(c1, rem, zero)
            _vm(fb, f"xor.{rt}")(rem, rem, b)
            _vm(fb, f"cmp.lt.{rt}.s")(c2, rem, zero)
            _vm(fb, "and.i32")(c1, c1, c2)
            _vm(fb, f"const.{rt}")(one, 1)
            _vm(fb, f"select.{rt}")(one, c1, one, zero)
            _vm(fb, f"sub.{rt}")(out.reg, out.reg, one)
        elif opcode in _INT_BINARY:
            kind = _INT_BINARY[opcode]
            base, _, sign = kind.partition(".")
            a, b = (self.signed(x) for x in args) if sign else (args[0].reg, args[1].reg)
            if base in ("div", "rem", "ceildiv") and sign == "s":
                b = self._wrapping_divisor(a, b, t)
            _vm(fb, f"{base}.{rt}{'.' + sign if sign else ''}")(out.reg, a, b)
        else:
            base, _, sign = _UINT_BINARY[opcode].partition(".")
            a, b = self.unsigned(args[0]), self.unsigned(args[1])
            _vm(fb, f"{base}.{rt}.{sign}")(out.reg, a, b)
        if opcode in _SHIFTS:
            self._shift_too_far(opcode, out, args)
        return self.normalize(out)

    def _shift_too_far(self, opcode, out, args):
        """Shifts by the bit width or more (the amount read unsigned): 0 for ``shli`` /
        ``shrui``, the sign fill for ``shrsi``, as llvm-cpu computes them (the VM's shift
        instructions mask the amount, as IREE's vm.shl does)."""
        fb, t = self.fb, out.type
        rt, bits = reg_type(t), INT_BITS[t]
        width, too_far = fb.reg(rt), fb.reg("i32")
        _vm(fb, f"const.{rt}")(width, bits)
        _vm(fb, f"cmp.gte.{rt}.u")(too_far, self.unsigned(args[1]), width)
        fill = fb.reg(rt)
        if opcode is Opcode.SHRSI:
            _vm(fb, f"const.{rt}")(width, 63 if rt == "i64" else 31)
            _vm(fb, f"shr.{rt}.s")(fill, self.signed(args[0]), width)
        else:
            _vm(fb, f"const.{rt}.zero")(fill)
        _vm(fb, f"select.{rt}")(out.reg, too_far, fill, out.reg)

    def _bit_count(self, op, a):
        """``math.ctpop`` / ``ctlz`` / ``cttz`` of ``a`` read as a ``width``-bit unsigned value."""
        fb, t = self.fb, a.type
        if t not in INT_BITS:
            self._err(op, f"has operand type {t}; expected an integer type")
        rt, bits = reg_type(t), INT_BITS[t]
        reg_bits = 64 if rt == "i64" else 32
        out, x = self.new(t), self.unsigned(a)
        kind = _BIT_COUNTS[op.opcode]
        if kind == "cttz" and bits < reg_bits:  # a zero operand counts its own width
            guarded = fb.reg(rt)
            _vm(fb, f"or.{rt}")(guarded, x, self.constant("i64" if rt == "i64" else "i32", 1 << bits).reg)
            x = guarded
        _vm(fb, f"{kind}.{rt}")(out.reg, x)
        if kind == "ctlz" and bits < reg_bits:
            _vm(fb, f"sub.{rt}")(out.reg, out.reg, self.constant(t if rt == "i32" else "i64", reg_bits - bits).reg)
        return self.normalize(out)

    def _classify(self, opcode, a):
        """``math.isinf`` (|a| == inf) and ``math.isfinite`` (|a| < inf, false for NaN)."""
        fb, rt = self.fb, reg_type(a.type)
        magnitude, inf, out = fb.reg(rt), fb.reg(rt), self.new("i1")
        _vm(fb, f"abs.{rt}")(magnitude, a.reg)
        _vm(fb, f"const.{rt}")(inf, float("inf"))
        _vm(fb, f"cmp.{'eq' if opcode is Opcode.ISINF else 'lt'}.{rt}.o")(out.reg, magnitude, inf)
        return out

    def _wrapping_divisor(self, a, b, t):
        """``b``, or 1 where ``a / b`` is MIN / -1 of a full-width (i32, i64) type, which the
        VM traps as an overflow: dividing by 1 gives the wrapped quotient MIN and remainder 0,
        as llvm-cpu and the vmvx microkernels compute them. Narrow types cannot overflow their
        i32 registers (``normalize`` wraps the result). A zero divisor still traps."""
        bits = INT_BITS[t]
        if bits not in (32, 64):
            return b
        fb, rt = self.fb, reg_type(t)
        lowest, minus_one, one, safe = fb.reg(rt), fb.reg(rt), fb.reg(rt), fb.reg(rt)
        hit, c = fb.reg("i32"), fb.reg("i32")
        _vm(fb, f"const.{rt}")(lowest, -(1 << (bits - 1)))
        _vm(fb, f"const.{rt}")(minus_one, -1)
        _vm(fb, f"const.{rt}")(one, 1)
        _vm(fb, f"cmp.eq.{rt}")(hit, a, lowest)
        _vm(fb, f"cmp.eq.{rt}")(c, b, minus_one)
        _vm(fb, "and.i32")(hit, hit, c)
        _vm(fb, f"select.{rt}")(safe, hit, one, b)
        return safe

    def _cmpf(self, op, args):
        pred = op.attr("predicate")
        a, b = args
        rt = reg_type(a.type)
        out = self.new("i1")
        fb = self.fb
        if pred in ("false", "true"):
            fb.const_i32(out.reg, int(pred == "true"))
        elif pred in ("ord", "uno"):
            other = fb.reg("i32")
            _vm(fb, f"cmp.nan.{rt}")(out.reg, a.reg)
            _vm(fb, f"cmp.nan.{rt}")(other, b.reg)
            fb.or_i32(out.reg, out.reg, other)
            if pred == "ord":
                fb.const_i32(other, 1)
                fb.xor_i32(out.reg, out.reg, other)
        elif pred in _CMPF:
            cmp, order = _CMPF[pred]
            _vm(fb, f"cmp.{cmp}.{rt}.{order}")(out.reg, a.reg, b.reg)
        else:
            self._err(op, f"predicate {pred!r} is not an arith.cmpf predicate")
        return out

    def _cmpi(self, op, args):
        pred = op.attr("predicate")
        if pred not in _CMPI:
            self._err(op, f"predicate {pred!r} is not an arith.cmpi predicate")
        cmp, sign = _CMPI[pred]
        a, b = args
        rt = reg_type(a.type)
        if sign == ".u":
            ra, rb = self.unsigned(a), self.unsigned(b)
        else:
            ra, rb = self.signed(a), self.signed(b)
        out = self.new("i1")
        _vm(self.fb, f"cmp.{cmp}.{rt}{sign}")(out.reg, ra, rb)
        return out

    def _convert(self, op, args):
        opcode, t = op.opcode, op.result_type
        fb = self.fb
        if len(args) != 1:
            self._err(op, "is not supported by the vmvx backend (no scalar lowering)")
        (a,) = args
        src, rs, rt = a.type, reg_type(a.type), reg_type(t)
        out = self.new(t)
        if opcode in (Opcode.EXTF, Opcode.TRUNCF):
            if t in SMALL_FLOATS:  # one rounding, from the f32 or f64 register
                self.round_small(out.reg, a.reg, t)
                return out
            if rs == rt:
                _vm(fb, f"mov.{rt}")(out.reg, a.reg)
            elif rt == "f64":
                fb.ext_f32_f64(out.reg, a.reg)
            elif t == "f16":
                fb.trunc_f32_f16(out.reg, a.reg)
            else:
                fb.trunc_f64_f32(out.reg, a.reg)
            return self.normalize(out) if t == "f16" else out
        if opcode in (Opcode.EXTSI, Opcode.EXTUI, Opcode.TRUNCI, Opcode.INDEX_CAST, Opcode.INDEX_CASTUI):
            unsigned_src = opcode in (Opcode.EXTUI, Opcode.INDEX_CASTUI)
            value = self.unsigned(a) if unsigned_src else self.signed(a)
            if rs == rt:
                _vm(fb, f"mov.{rt}")(out.reg, value)
            elif rt == "i64":
                _vm(fb, f"ext.i32.i64.{'u' if unsigned_src else 's'}")(out.reg, value)
            else:
                fb.trunc_i64_i32(out.reg, value)
            return self.normalize(out)
        if opcode in (Opcode.SITOFP, Opcode.UITOFP):
            if opcode is Opcode.UITOFP:
                value, sign = self.unsigned(a), ("u" if INT_BITS[src] >= 32 else "s")
            else:
                value, sign = self.signed(a), "s"
            width = "64" if rs == "i64" else "32"
            target = "f64" if t in ("f16", "f64") else "f32"
            _vm(fb, f"cast.{sign}i{width}.{target}")(out.reg, value)
            return self.normalize(out)
        if opcode in (Opcode.FPTOSI, Opcode.FPTOUI):
            bits = INT_BITS[t]
            sign = "u" if opcode is Opcode.FPTOUI and bits >= 32 else "s"
            _vm(fb, f"cast.{rs}.{sign}i{'64' if rt == 'i64' else '32'}")(out.reg, a.reg)
            if bits < 32:  # saturate to the narrow range, as llvm.fpto*i.sat does
                lo, hi = ((0, (1 << bits) - 1) if opcode is Opcode.FPTOUI
                          else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1))
                fb.max_i32_s(out.reg, out.reg, self.constant("i32", lo).reg)
                fb.min_i32_s(out.reg, out.reg, self.constant("i32", hi).reg)
            return self.normalize(out)
        if opcode is Opcode.BITCAST and (src in SMALL_FLOATS or t in SMALL_FLOATS):
            return self._bitcast_small(op, a, t, out)
        if opcode is Opcode.BITCAST:
            pair = {("f32", "i32"): "bitcast.f32.i32", ("i32", "f32"): "bitcast.i32.f32",
                    ("f64", "i64"): "bitcast.f64.i64", ("i64", "f64"): "bitcast.i64.f64",
                    ("f16", "i16"): "bitcast.f16.i32", ("i16", "f16"): "bitcast.i32.f16"}.get((src, t))
            if pair is None:
                self._err(op, f"from {src} to {t} is not supported; expected f16<->i16, f32<->i32 or "
                              f"f64<->i64")
            _vm(fb, pair)(out.reg, a.reg)
            return self.normalize(out) if t == "i16" else out
        self._err(op, "is not supported by the vmvx backend (no scalar lowering)")

    def _bitcast_small(self, op, a, t, out):
        """bf16/f8 <-> the integer of the same width (bits through an i32 register)."""
        src, fb = a.type, self.fb
        narrow, other = (src, t) if src in SMALL_FLOATS else (t, src)
        if INT_BITS.get(other) != SMALL_FLOATS[narrow].bits:
            self._err(op, f"from {src} to {t} is not supported; expected {narrow} <-> i{SMALL_FLOATS[narrow].bits}")
        if src in SMALL_FLOATS:
            fb.trunc_f64_bits(out.reg, a.reg, SMALL_FLOATS[src].code)
            return self.normalize(out)
        fb.ext_bits_f32(out.reg, self.unsigned(a), SMALL_FLOATS[t].code)
        return out
