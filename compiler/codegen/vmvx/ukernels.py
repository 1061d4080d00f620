"""Matching Generics onto vmvx microkernels and emitting the call nests.

A Generic is matched structurally (the ``kind`` hint is not trusted):

* elementwise (all loops parallel, one output): ``yield %in`` -> ``copy.2d.x<bits>``
  (broadcasts are stride-0 views), ``yield %v`` of a loop-invariant value (a constant, or one
  computed from push constants) -> ``fill.2d.x<bits>``, one binary or unary arith/math op on
  block arguments -> ``<op>.2d.f32|i32``; an invariant operand of a binary op (a captured
  scalar such as ``%in * bitcast(push constant)``) is stored once per workgroup into a
  one-element buffer read through a stride-0 view; a body of several such ops of one type
  (``exp(a * b + c)``) becomes a chain of calls, each intermediate value in a temporary of
  the tile's extents allocated once per workgroup (``buffer.alloc``), the last call writing
  the output;
* reduction: one combining op ``out = op(out, in)`` (addf/maximumf/minimumf on f32,
  addi/maxsi/minsi on i32) -> ``reduce.<sum|max|min>.2d`` with FLAG_ACCUMULATE;
* contraction: ``out += a * b`` (mulf+addf on f32, muli+addi on i32) -> ``matmul``: any
  linalg contraction whose lhs does not depend on the chosen n loop and rhs not on the m loop
  (matmul, batch_matmul, matvec, vecmat, convolutions with the window loops in bytecode).

The microkernel covers two (elementwise, reduction) or three (matmul) loop dims of the tile;
a missing dim is a virtual one of size 1; every other dim becomes a bytecode loop around the
call (LoopNest with element offsets). Source: IREE's VMVX ukernel lowering
(compiler/src/iree/compiler/Dialect/VMVX/Transforms/LowerLinalgMicrokernels.cpp), which
matches the same generic shapes onto the same kernels.
"""
import numpy as np

from rt.compiler.codegen import kernel_ir
from rt.compiler.codegen.kernel_ir import Opcode
from rt.compiler.codegen.vmvx.loop_nest import LoopNest, extent
from rt.compiler.codegen.vmvx.scalar import ScalarEmitter, emit_invariants, invariant_ids
from rt.devices.vmvx import _ukernels as uk
from rt.devices.vmvx.module import (ALLOC_CCONV, BINARY_CCONV, FILL_CCONV, MATMUL_CCONV, REDUCE_CCONV,
                                    UNARY_CCONV)
from rt.runtime.small_float import FORMATS as SMALL_FLOATS, from_float64

_BINARY = {
    "f32": {Opcode.ADDF: "add", Opcode.SUBF: "sub", Opcode.MULF: "mul", Opcode.DIVF: "div",
            Opcode.MAXIMUMF: "max", Opcode.MINIMUMF: "min", Opcode.POWF: "pow"},
    "i32": {Opcode.ADDI: "add", Opcode.SUBI: "sub", Opcode.MULI: "mul", Opcode.DIVSI: "divs",
            Opcode.DIVUI: "divu", Opcode.REMSI: "rems", Opcode.REMUI: "remu", Opcode.ANDI: "and",
            Opcode.ORI: "or", Opcode.XORI: "xor", Opcode.SHLI: "shl", Opcode.SHRSI: "shrs",
            Opcode.SHRUI: "shru", Opcode.MAXSI: "maxs", Opcode.MINSI: "mins", Opcode.MAXUI: "maxu",
            Opcode.MINUI: "minu"},
}
_UNARY = {
    "f32": {Opcode.ABSF: "abs", Opcode.NEGF: "neg", Opcode.EXP: "exp", Opcode.LOG: "log", Opcode.SQRT: "sqrt",
            Opcode.RSQRT: "rsqrt", Opcode.TANH: "tanh", Opcode.FLOOR: "floor", Opcode.CEIL: "ceil",
            Opcode.ROUNDEVEN: "roundeven", Opcode.SIN: "sin", Opcode.COS: "cos", Opcode.ERF: "erf"},
    "i32": {Opcode.ABSI: "abs"},
}
_REDUCE = {"f32": {Opcode.ADDF: "sum", Opcode.MAXIMUMF: "max", Opcode.MINIMUMF: "min"},
           "i32": {Opcode.ADDI: "sum", Opcode.MAXSI: "max", Opcode.MINSI: "min"}}
_CONTRACT = {"f32": (Opcode.MULF, Opcode.ADDF), "i32": (Opcode.MULI, Opcode.ADDI)}
assert all(v in uk.BINARY_F32_OPS for v in _BINARY["f32"].values())
assert all(v in uk.BINARY_I32_OPS for v in _BINARY["i32"].values())


class _Call:
    """A planned ukernel call: import ``name`` and ``cconv``, the loop ``dims`` it covers
    (None: a virtual size-1 dim) and its operands in order: ("view", access), ("vector",
    access), ("scalar", value id) (an invariant value read as a stride-0 view), ("value",
    bits, bytes), ("bits", value id, bytes) (an invariant value's bit pattern) or ("flags",
    bits)."""

    def __init__(self, name, cconv, dims, args):
        self.name, self.cconv, self.dims, self.args = name, cconv, dims, args


def const_bits(t, value):
    """The storage bit pattern of scalar ``value`` of type ``t`` (an unsigned int)."""
    if t in SMALL_FLOATS:
        return int(from_float64([float(value)], t).view(np.uint16 if SMALL_FLOATS[t].bits == 16 else np.uint8)[0])
    if t in ("f16", "f32", "f64"):
        dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
        with np.errstate(over="ignore"):
            return int(np.array(value, dtype).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype().itemsize]))
    bits = kernel_ir.element_size(t) * 8 if t != "i1" else 1
    return int(value) & ((1 << bits) - 1)


def _last(dims, pred):
    for d in reversed(dims):
        if pred(d):
            return d
    return None


def _elementwise(g, accesses, inv):
    nin = len(g.inputs)
    out = accesses[nin]
    t = out.element_type
    par = list(range(len(g.domain)))
    dims = (par[-2] if len(par) > 1 else None, par[-1] if par else None)
    (y,) = g.yields
    ops = {nin + 1 + k: op for k, op in enumerate(g.body)}
    esize = out.element_size
    if y < nin:
        if accesses[y].element_type != t:
            return None
        return _Call(f"copy.2d.x{esize * 8}", UNARY_CCONV, dims, [("view", y), ("view", nin)])
    op = ops.get(y)
    if op is None:
        return None
    if op.opcode is Opcode.CONSTANT and len(g.body) == 1:
        return _Call(f"fill.2d.x{esize * 8}", FILL_CCONV[esize], dims,
                     [("value", const_bits(t, op.attr("value")), esize), ("view", nin)])
    if y in inv:
        if t in kernel_ir.NARROW_FLOATS or op.result_type != t:
            return None
        return _Call(f"fill.2d.x{esize * 8}", FILL_CCONV[esize], dims, [("bits", y, esize), ("view", nin)])
    if t not in _BINARY or [v for v in ops if v not in inv] != [y]:
        return None
    if any(not (v <= nin or v in inv) for v in op.operands) or all(v in inv for v in op.operands):
        return None
    if any((ops[v].result_type if v in inv else accesses[v].element_type) != t for v in op.operands):
        return None
    args = [("scalar", v) if v in inv else ("view", v) for v in op.operands]
    if len(op.operands) == 2 and op.opcode in _BINARY[t]:
        return _Call(f"{_BINARY[t][op.opcode]}.2d.{t}", BINARY_CCONV, dims, args + [("view", nin)])
    if len(op.operands) == 1 and op.opcode in _UNARY[t]:
        return _Call(f"{_UNARY[t][op.opcode]}.2d.{t}", UNARY_CCONV, dims, args + [("view", nin)])
    return None


def _chain(g, accesses, inv):
    """An elementwise body of several binary/unary ops of one type as a chain of calls, each
    intermediate value in a temporary slot (``("temp", slot)`` operands), the last op writing
    the output; (calls, slot count) or None."""
    nin = len(g.inputs)
    t = accesses[nin].element_type
    if t not in _BINARY or len(g.yields) != 1:
        return None
    first = nin + 1
    ops = [(first + k, op) for k, op in enumerate(g.body) if first + k not in inv]
    if not ops or g.yields[0] != ops[-1][0]:
        return None
    last_use = {}
    for vid, op in ops:
        for v in op.operands:
            last_use[v] = vid
    par = list(range(len(g.domain)))
    dims = (par[-2] if len(par) > 1 else None, par[-1] if par else None)
    slot_of, free, slots, calls = {}, [], 0, []
    for vid, op in ops:
        table = _BINARY[t] if len(op.operands) == 2 else _UNARY[t] if len(op.operands) == 1 else {}
        if op.opcode not in table or op.result_type != t:
            return None
        args = []
        for v in op.operands:
            if v in slot_of:
                args.append(("temp", slot_of[v]))
            elif v in inv and v >= first:
                args.append(("scalar", v))
            elif v < nin and accesses[v].element_type == t:
                args.append(("view", v))
            else:
                return None
        if all(kind == "scalar" for kind, _ in args):
            return None
        for v in op.operands:
            if v in slot_of and last_use[v] == vid:
                free.append(slot_of[v])
        if vid == g.yields[0]:
            out = ("view", nin)
        else:
            slot_of[vid] = free.pop() if free else slots
            slots = max(slots, slot_of[vid] + 1)
            out = ("temp", slot_of[vid])
        cconv = BINARY_CCONV if len(op.operands) == 2 else UNARY_CCONV
        calls.append(_Call(f"{table[op.opcode]}.2d.{t}", cconv, dims, args + [out]))
    return calls, slots


def _reduction(g, accesses, red, par):
    nin = len(g.inputs)
    out = accesses[nin]
    t = out.element_type
    if t not in _REDUCE or len(g.body) != 1 or g.yields != (nin + 1,):
        return None
    op = g.body[0]
    if op.opcode not in _REDUCE[t] or len(op.operands) != 2 or nin not in op.operands:
        return None
    (src,) = [v for v in op.operands if v != nin] or [None]
    if src is None or src >= nin or accesses[src].element_type != t:
        return None
    inner = red[-1]
    outer = _last(par, lambda d: out.depends[d])
    return _Call(f"reduce.{_REDUCE[t][op.opcode]}.2d.{t}", REDUCE_CCONV, (outer, inner),
                 [("view", src), ("vector", nin), ("flags", uk.FLAG_ACCUMULATE)])


def _contraction(g, accesses, red, par):
    nin = len(g.inputs)
    out = accesses[nin]
    t = out.element_type
    if t not in _CONTRACT or len(g.body) != 2 or nin < 2:
        return None
    mul, add = g.body
    mul_id, add_id = nin + 1, nin + 2
    if (mul.opcode, add.opcode) != _CONTRACT[t] or g.yields != (add_id,) or sorted(add.operands) != [nin, mul_id]:
        return None
    if len(set(mul.operands)) != 2 or any(v >= nin or accesses[v].element_type != t for v in mul.operands):
        return None
    for lhs, rhs in (tuple(mul.operands), tuple(mul.operands)[::-1]):
        a, b = accesses[lhs], accesses[rhs]
        k = red[-1]
        m = _last(par, lambda d: a.depends[d] and not b.depends[d])
        n = _last(par, lambda d: b.depends[d] and not a.depends[d])
        if m is not None or n is not None or len(par) == 0:
            return _Call(f"matmul.{'f32f32f32' if t == 'f32' else 'i32i32i32'}", MATMUL_CCONV, (m, n, k),
                         [("view", lhs), ("view", rhs), ("view", nin), ("flags", uk.FLAG_ACCUMULATE)])
    return None


def _plan(g, accesses, inv):
    """(calls, temporary slots) for ``g``, or None when no microkernel chain computes it."""
    if len(g.outputs) != 1:
        return None
    nin = len(g.inputs)
    red = [d for d, it in enumerate(g.iterator_types) if it == "reduction"]
    par = [d for d, it in enumerate(g.iterator_types) if it == "parallel"]
    if not red:
        call = _elementwise(g, accesses, inv)
        return ([call], 0) if call is not None else _chain(g, accesses, inv)
    if any(accesses[nin].depends[d] for d in red):
        return None
    call = _reduction(g, accesses, red, par) or _contraction(g, accesses, red, par)
    return ([call], 0) if call is not None else None


def _bits(em, val):
    """The bit pattern of invariant Val ``val`` in an i32 or i64 register (fill operand)."""
    fb = em.fb
    if val.type == "f32":
        r = fb.reg("i32")
        fb.bitcast_f32_i32(r, val.reg)
        return r
    if val.type == "f64":
        r = fb.reg("i64")
        fb.bitcast_f64_i64(r, val.reg)
        return r
    return val.reg


def _scalar_buffer(em, val):
    """A new one-element buffer holding f32/i32 Val ``val`` (read through stride-0 views)."""
    fb = em.fb
    ref = fb.reg("ref")
    fb.call_import(fb.module.import_function("vmvx.buffer.alloc", ALLOC_CCONV), [em.reg(4)], [ref])
    (fb.buffer_store_f32 if val.type == "f32" else fb.buffer_store_i32)(ref, em.reg(0), val.reg)
    return ref


def _temporaries(em, dims, ranges, slots, esize):
    """(buffer ref, element count of a slot, strides per call dim) for ``slots`` contiguous
    temporaries of the call dims' extents (the chain's intermediate values)."""
    fb = em.fb
    e0, e1 = (extent(em, ranges[d]) if d is not None else 1 for d in dims)
    count = em.mul(e0, e1)
    ref = fb.reg("ref")
    fb.call_import(fb.module.import_function("vmvx.buffer.alloc", ALLOC_CCONV),
                   [em.reg(em.mul(count, slots * esize))], [ref])
    strides = [e1 if dims[0] is not None else 0, 1 if dims[1] is not None else 0]
    return ref, count, [em.reg(x) for x in strides]


def emit_generic_ukernel(em, g, accesses, ranges, where):
    """Emit ``g`` as a ukernel call nest (one call, or a chain of calls through temporaries)
    if it matches; returns whether it did."""
    n_args = len(g.inputs) + len(g.outputs)
    inv = invariant_ids(g.body, n_args)
    planned = _plan(g, accesses, inv)
    if planned is None:
        return False
    calls, slots = planned
    fb = em.fb
    values = {}
    if any(kind in ("scalar", "bits") for call in calls for kind, *_ in call.args):
        values = emit_invariants(ScalarEmitter(fb, where, em.push_constant), g.body, n_args, inv)
    dims = calls[0].dims
    covered = [d for d in dims if d is not None]
    loops = [d for d in range(len(g.domain)) if d not in covered]
    nest = LoopNest(em, ranges, accesses, loops, [1] * len(accesses))
    sizes = [em.reg(extent(em, ranges[d]) if d is not None else 1) for d in dims]
    zero = em.reg(0)
    temps = _temporaries(em, dims, ranges, slots, accesses[len(g.inputs)].element_size) if slots else None
    scalars = {}
    emitted = [_prepare(em, call, accesses, values, scalars, temps, zero) for call in calls]

    def body(offsets, index):
        for call, (imp, operands, extra) in zip(calls, emitted):
            args = []
            view_pos = [p for p, (kind, *_) in enumerate(call.args) if kind in ("view", "scalar", "temp")]
            for pos, (kind, *_) in enumerate(call.args):
                if pos in extra:
                    args.append(extra[pos])
                    continue
                ref, offset, strides = operands[pos]
                if kind == "vector":
                    args += [ref, offset(offsets), strides[0]]
                elif call.cconv == MATMUL_CCONV:
                    m, n, k = strides
                    args += [ref, offset(offsets), *((m, k), (k, n), (m, n))[view_pos.index(pos)]]
                else:
                    args += [ref, offset(offsets), strides[0], strides[1]]
            if call.cconv == MATMUL_CCONV:
                args = args[:12] + sizes + args[12:]
            elif call.cconv == REDUCE_CCONV:
                args = args[:7] + sizes + args[7:]
            else:
                args += sizes
            fb.call_import(imp, args, [])

    nest.run(body)
    return True


def _prepare(em, call, accesses, values, scalars, temps, zero):
    """(import, operands, extra registers) of one planned call: per view-like argument
    position its (buffer ref, offset(offsets) -> register, stride registers)."""
    fb = em.fb
    imp = fb.module.import_function(f"vmvx.{call.name}", call.cconv)
    operands = {}
    for pos, (kind, a, *_) in enumerate(call.args):
        if kind in ("view", "vector"):
            strides = [accesses[a].strides[d] if d is not None and accesses[a].depends[d] else 0
                       for d in call.dims]
            operands[pos] = (em.buffer(accesses[a].view), lambda offsets, a=a: em.reg(offsets[a]),
                             [em.reg(x) for x in strides])
        elif kind == "scalar":
            if a not in scalars:
                scalars[a] = _scalar_buffer(em, values[a])
            operands[pos] = (scalars[a], lambda offsets: zero, [zero] * len(call.dims))
        elif kind == "temp":
            ref, count, strides = temps
            start = em.reg(em.mul(count, a))
            operands[pos] = (ref, lambda offsets, start=start: start, strides)
    extra = {}
    for pos, (kind, value, *rest) in enumerate(call.args):
        if kind == "value":
            r = fb.reg("i64" if rest[0] == 8 else "i32")
            if rest[0] == 8:
                fb.const_i64(r, value)
            else:
                fb.const_i32(r, value)
            extra[pos] = r
        elif kind == "bits":
            extra[pos] = _bits(em, values[value])
        elif kind == "flags":
            extra[pos] = em.i32(value)
    return imp, operands, extra
