"""Reductions vectorized along their contiguous inner reduction dim (row sums, row max, matvec).

A Generic whose output does not move along a reduction dim ``r`` that every input reads
contiguously (or not at all), and whose body is ``out = combine(out, f(inputs))`` for an
associative, commutative ``combine`` (addf mulf maximumf minimumf maxnumf minnumf addi muli
andi ori xori maxsi minsi maxui minui) gets, per output element:

- ``UNROLL`` vector accumulators of ``lanes`` lanes, initialized to ``combine``'s identity,
  updated ``UNROLL`` vectors per step along ``r`` (an ``addf(out, mulf(a, b))`` body uses
  ``llvm.fmuladd``), then one vector per step, then a scalar tail;
- a horizontal reduce at the end (halving shuffles), combined with the tail and with the
  output's initial value, then one store.

This reassociates the reduction (the order of additions differs from the sequential loop),
which llvm-cpu accepts as IREE's CPU vectorization does; vmvx stays the in-order reference.
A target with ``reassociate_fp_reductions`` off (``--iree-llvmcpu-reassociate-fp-reductions=false``)
keeps float reductions sequential; integer ones are exact either way.
Other reduction dims run as outer loops around ``r``; parallel dims as outer loops.
Only when GenericPlan found no parallel dim to vectorize (so column sums keep the parallel
vectorization) and for f32/f64/integer outputs (f16 rounds per step, so it stays sequential).

Source: IREE LLVMCPU reduction vectorization (vector.multi_reduction lowered to vector
accumulators and a final ``vector.reduction``), LLVM's ``llvm.vector.reduce.*`` semantics.
"""
from llvmlite import ir

from rt.compiler.codegen.kernel_ir import Opcode
from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop, loop_nest
from rt.compiler.codegen.llvm_cpu.scalar import INT_WIDTHS, BodyEmitter, constant

#: Vector accumulators per output element (hides the latency of the combining op).
UNROLL = 4

_INF = float("inf")
#: combine op -> identity (a Python value, or a function of the bit width for integers).
IDENTITY = {
    Opcode.ADDF: -0.0, Opcode.MULF: 1.0, Opcode.MAXIMUMF: -_INF, Opcode.MINIMUMF: _INF,
    Opcode.MAXNUMF: -_INF, Opcode.MINNUMF: _INF,
    Opcode.ADDI: lambda w: 0, Opcode.MULI: lambda w: 1, Opcode.ANDI: lambda w: -1,
    Opcode.ORI: lambda w: 0, Opcode.XORI: lambda w: 0,
    Opcode.MAXSI: lambda w: -(1 << (w - 1)), Opcode.MINSI: lambda w: (1 << (w - 1)) - 1,
    Opcode.MAXUI: lambda w: 0, Opcode.MINUI: lambda w: -1,
}
_TYPES = ("f32", "f64", "i8", "i16", "i32", "i64")


def _combiner(op):
    """(index of the combining op in the body, id of its non-accumulator operand) or None."""
    out_id = len(op.inputs)
    users = [i for i, s in enumerate(op.body) if out_id in s.operands]
    if len(users) != 1:
        return None
    c = users[0]
    s = op.body[c]
    result_id = out_id + 1 + c
    if (s.opcode not in IDENTITY or len(s.operands) != 2 or op.yields != (result_id,)
            or s.result_type != op.outputs[0].element_type
            or any(result_id in t.operands for t in op.body)):
        return None
    other = s.operands[1] if s.operands[0] == out_id else s.operands[0]
    if other == out_id:
        return None
    return c, other


class ReductionPlan(GenericPlan):
    """GenericPlan with the vectorized inner reduction (see the module docstring)."""

    def __init__(self, ctx, op, where, r, combiner):
        super().__init__(ctx, op, where)
        self.r = r
        self.combine_index, self.x_id = combiner
        self.combine = op.body[self.combine_index]
        self.other_reductions = [d for d in self.reduction if d != r]
        self.fused_mul = self._fused_mul()

    def _fused_mul(self):
        """The mulf feeding an addf combiner (only used there), fused into fmuladd."""
        if self.combine.opcode is not Opcode.ADDF:
            return None
        base = len(self.op.inputs) + 1
        k = self.x_id - base
        if k < 0 or self.op.body[k].opcode is not Opcode.MULF:
            return None
        if sum(self.x_id in s.operands for s in self.op.body) != 1:
            return None
        return k

    def emit(self, ranges, unroll=2):
        idx = {}
        loop_nest(self.ctx.b, list(self.outer), idx, ranges, lambda: self._row(idx, ranges))

    def _row(self, idx, ranges):
        b = self.ctx.b
        out = self.bound[len(self.op.inputs)]
        init = out.load(b, idx, 1, False)
        vec_identity = self._identity(self.lanes)
        accs = [vec_identity] * UNROLL + [self._identity(1)]
        accs = self._reductions(list(self.other_reductions), idx, ranges, accs)
        vector = self._tree(accs[:UNROLL], self.lanes)
        total = self._apply(self._horizontal(vector), accs[UNROLL], 1)
        out.store(b, idx, self._apply(init, total, 1))

    def _reductions(self, dims, idx, ranges, accs):
        b = self.ctx.b
        if not dims:
            return self._inner(idx, ranges, accs)
        d = dims[0]
        with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"d{d}.red", carried=accs) as loop:
            idx[d] = loop.index
            loop.next_carried = self._reductions(dims[1:], idx, ranges, list(loop.carried))
        del idx[d]
        return list(loop.carried)

    def _inner(self, idx, ranges, accs):
        b, r, lanes = self.ctx.b, self.r, self.lanes
        lo, hi = ranges[r]
        with counted_loop(b, lo, hi, I64(lanes * UNROLL), f"d{r}.vred", carried=accs) as main:
            nxt = list(main.carried)
            for u in range(UNROLL):
                idx[r] = b.add(main.index, I64(u * lanes)) if u else main.index
                nxt[u] = self._step(idx, lanes, nxt[u])
            main.next_carried = nxt
        with counted_loop(b, main.index, hi, I64(lanes), f"d{r}.vred1",
                          carried=main.carried) as one:
            nxt = list(one.carried)
            idx[r] = one.index
            nxt[0] = self._step(idx, lanes, nxt[0])
            one.next_carried = nxt
        with counted_loop(b, one.index, hi, I64(1), f"d{r}.tail", carried=one.carried) as tail:
            nxt = list(tail.carried)
            idx[r] = tail.index
            nxt[UNROLL] = self._step(idx, 1, nxt[UNROLL])
            tail.next_carried = nxt
        del idx[r]
        return list(tail.carried)

    def _step(self, idx, lanes, acc):
        """acc combined with f(inputs) at ``idx`` (``lanes`` consecutive elements along r)."""
        b, op = self.ctx.b, self.op
        n_in = len(op.inputs)
        values = [a.load(b, idx, lanes, lanes > 1 and a.access.is_static(self.r, 1))
                  for a in self.bound[:n_in]] + [acc]
        types = list(self.types)
        indices = [idx.get(d, I64(0)) for d in range(len(op.domain))]
        em = BodyEmitter(b, lanes, indices, self.r if lanes > 1 else None, self.push_constants)
        for k, s in enumerate(op.body):
            if k == self.combine_index:
                values.append(acc)
            elif k == self.fused_mul:
                values.append(None)
            else:
                values.append(em.emit(s, [values[v] for v in s.operands],
                                      [types[v] for v in s.operands]))
            types.append(s.result_type)
        if self.fused_mul is not None:
            mul = op.body[self.fused_mul]
            return intrinsics.call(b, "fmuladd", values[mul.operands[0]], values[mul.operands[1]], acc)
        return self._apply(acc, values[self.x_id], lanes)

    def _identity(self, lanes):
        t = self.combine.result_type
        value = IDENTITY[self.combine.opcode]
        if callable(value):
            value = value(INT_WIDTHS[t])
        return constant(t, value, lanes)

    def _apply(self, x, y, lanes):
        em = BodyEmitter(self.ctx.b, lanes)
        t = self.combine.result_type
        return em.emit(self.combine, [x, y], [t, t])

    def _tree(self, values, lanes):
        while len(values) > 1:
            values = [self._apply(values[i], values[i + 1], lanes) if i + 1 < len(values)
                      else values[i] for i in range(0, len(values), 2)]
        return values[0]

    def _horizontal(self, vector):
        b, lanes = self.ctx.b, self.lanes
        i32 = ir.IntType(32)
        while lanes > 1:
            half = lanes // 2
            undef = ir.Constant(vector.type, ir.Undefined)
            lo = b.shuffle_vector(vector, undef, ir.Constant(ir.VectorType(i32, half), list(range(half))))
            hi = b.shuffle_vector(vector, undef, ir.Constant(ir.VectorType(i32, half),
                                                             list(range(half, lanes))))
            vector, lanes = self._apply(lo, hi, half), half
        return b.extract_element(vector, i32(0))


def plan(ctx, op, where):
    """A ReductionPlan for ``op`` (a kernel_ir.Generic) when the module docstring's conditions
    hold, else None."""
    if len(op.outputs) != 1 or op.outputs[0].element_type not in _TYPES:
        return None
    if op.outputs[0].element_type.startswith("f") and not ctx.target.reassociate_fp_reductions:
        return None
    if "reduction" not in op.iterator_types:
        return None
    combiner = _combiner(op)
    if combiner is None:
        return None
    probe = GenericPlan(ctx, op, where)
    if probe.vector_dim is not None or not probe.carry or probe.lanes < 2:
        return None
    ins = probe.accesses[:len(op.inputs)]
    for r in reversed(probe.reduction):
        if all(a.is_static(r, 0) or a.is_static(r, 1) for a in ins) and any(
                a.is_static(r, 1) for a in ins):
            return ReductionPlan(ctx, op, where, r, combiner)
    return None
