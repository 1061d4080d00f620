"""kernel_ir.Generic -> LLVM loop nests, vectorized along one contiguous parallel dim.

What IREE's LLVMCPU pipeline does for a tiled linalg.generic (tile, vectorize, lower vector
ops), in one step:

- loop order: the parallel dims in domain order, with the vector dim moved innermost among
  them, then the reduction dims;
- vector dim: the last parallel dim along which every output is contiguous (coefficient 1) and
  every input is contiguous or invariant (coefficient 0), all statically known; its loop runs
  ``unroll`` vectors of ``lanes`` elements per step, then one vector, then a scalar tail
  (``lanes`` = native vector bytes / the widest element type of the body);
- reductions: when outputs do not move along the reduction dims and no input reads an output's
  binding, the outputs are loaded once, carried through the reduction loops in registers and
  stored once; otherwise every iteration loads and stores them (still correct for any Generic).
- gathers (``tensor.extract`` in the body): each reads one element of its whole view at
  indices clamped into the view; a body with a gather runs on scalars (``lanes`` = 1).

Each loop dim runs the half-open range the caller passes (the workgroup's tile).
"""
from llvmlite import ir

from rt.compiler.codegen.kernel_ir import NARROW_FLOATS, PACKED, AffineExpr, Opcode, element_bits
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.scalar import BodyEmitter, round_to
from rt.compiler.codegen.llvm_cpu.views import (Access, BoundAccess, access_out_of_range,
                                                domain_nonempty, extent_out_of_range)
from rt.runtime.errors import CompileError
from rt.runtime.small_float import FORMATS as SMALL_FLOATS

_COMPUTE_BYTES = {**{t: 4 for t in NARROW_FLOATS}, "index": 8}
_F32_COMPUTED = set(NARROW_FLOATS) | {"f32"}


def _body_bytes(op):
    types = [v.element_type for v in op.inputs + op.outputs] + [s.result_type for s in op.body]
    return max([_COMPUTE_BYTES.get(t) or max(1, element_bits(t) // 8) for t in types] or [4])


def validate_generic(op, where):
    """Raise CompileError for a structurally malformed Generic (counts, ids, iterator types)."""
    n = len(op.domain)
    if len(op.iterator_types) != n or any(t not in ("parallel", "reduction")
                                          for t in op.iterator_types):
        raise CompileError(f"llvm-cpu codegen: {where}: iterator_types {op.iterator_types} must "
                           f"give 'parallel' or 'reduction' for each of the {n} loop dims")
    if len(op.indexing_maps) != len(op.inputs) + len(op.outputs):
        raise CompileError(f"llvm-cpu codegen: {where}: {len(op.indexing_maps)} indexing maps "
                           f"for {len(op.inputs)} inputs and {len(op.outputs)} outputs")
    if len(op.yields) != len(op.outputs):
        raise CompileError(f"llvm-cpu codegen: {where}: {len(op.yields)} yields for "
                           f"{len(op.outputs)} outputs")
    defined = len(op.inputs) + len(op.outputs)
    for s in op.body:
        if any(not 0 <= v < defined for v in s.operands):
            raise CompileError(f"llvm-cpu codegen: {where}: '{s.opcode}' uses a value id that is "
                               f"not defined before it (ids 0..{defined - 1} exist)")
        defined += 1
    if any(not 0 <= v < defined for v in op.yields):
        raise CompileError(f"llvm-cpu codegen: {where}: yields {op.yields} name undefined values")


class GenericPlan:
    """Compile-time decisions for one Generic plus its i64 values (made in the entry block).

    ctx: the KernelContext (builder, sizes, bindings, target); op: the Generic; where: a name
    for errors.
    """

    def __init__(self, ctx, op, where):
        validate_generic(op, where)
        self.ctx = ctx
        self.op = op
        n = len(op.domain)
        views = op.inputs + op.outputs
        self.accesses = [Access(ctx.buffers.view(v), m, n, where)
                         for v, m in zip(views, op.indexing_maps)]
        self.bound = [BoundAccess(a, ctx.sizes, ctx.binding(a.view.binding),
                                  ctx.buffers.inbounds(a.view.binding)) for a in self.accesses]
        self.push_constants = {s.attr("ordinal"): ctx.push_constant(s.attr("ordinal"))
                               for s in op.body if s.opcode is Opcode.CONSTANT_LOAD}
        for d in op.domain:
            ctx.sizes.get(d)
        self.types = [v.element_type for v in views]
        self.lanes = max(1, ctx.target.vector_bytes // _body_bytes(op))
        if any(t in PACKED for t in self.types) or op.gathers:
            self.lanes = 1  # packed elements and gathered ones are loaded one at a time
        self.gathers = [_Gather(ctx, v, where) for v in op.gathers]
        ins, outs = self.accesses[:len(op.inputs)], self.accesses[len(op.inputs):]
        parallel = [d for d in range(n) if op.iterator_types[d] == "parallel"]
        self.reduction = [d for d in range(n) if op.iterator_types[d] == "reduction"]
        self.vector_dim = None
        if self.lanes > 1 and outs:
            for d in reversed(parallel):
                if all(a.is_static(d, 1) for a in outs) and all(
                        a.is_static(d, 0) or a.is_static(d, 1) for a in ins):
                    self.vector_dim = d
                    break
        self.outer = [d for d in parallel if d != self.vector_dim]
        out_bindings = {a.view.binding for a in outs}
        self.carry = bool(self.reduction) and all(
            a.is_static(d, 0) for a in outs for d in self.reduction) and not any(
            a.view.binding in out_bindings for a in ins)

    @property
    def domain(self):
        """The op's iteration domain (Sizes)."""
        return self.op.domain

    def checks(self):
        """i1, true when the loops over the full domain would leave a view or a binding."""
        b, sizes = self.ctx.b, self.ctx.sizes
        bad = ir.Constant(ir.IntType(1), 0)
        for access in self.accesses:
            bad = b.or_(bad, access_out_of_range(b, sizes, access, self.op.domain))
            length = self.ctx.buffers.length(access.view.binding)
            if length is not None:
                bad = b.or_(bad, extent_out_of_range(b, sizes, access.view, length))
        for g in self.gathers:
            bad = b.or_(bad, g.checks(b, sizes, self.ctx.buffers.length(g.view.binding)))
        return b.and_(domain_nonempty(b, sizes, self.op.domain), bad)

    def emit(self, ranges, unroll=2):
        """Emit the loop nest over ``ranges`` (per loop dim, (lo, hi) i64 values)."""
        self._nest(list(self.outer), {}, ranges, unroll)

    def _nest(self, dims, idx, ranges, unroll):
        b = self.ctx.b
        if dims:
            d = dims[0]
            with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"d{d}") as loop:
                idx[d] = loop.index
                self._nest(dims[1:], idx, ranges, unroll)
            del idx[d]
            return
        vd = self.vector_dim
        if vd is None:
            self._reduce_or_leaf(idx, ranges, 1)
            return
        lo, hi = ranges[vd]
        lanes = self.lanes
        step = unroll if not self.reduction else 1
        with counted_loop(b, lo, hi, I64(lanes * step), f"d{vd}.vec{step}") as main:
            for u in range(step):
                idx[vd] = b.add(main.index, I64(u * lanes)) if u else main.index
                self._reduce_or_leaf(idx, ranges, lanes)
        start = main.index
        if step > 1:
            with counted_loop(b, start, hi, I64(lanes), f"d{vd}.vec") as one:
                idx[vd] = one.index
                self._reduce_or_leaf(idx, ranges, lanes)
            start = one.index
        with counted_loop(b, start, hi, I64(1), f"d{vd}.tail") as tail:
            idx[vd] = tail.index
            self._reduce_or_leaf(idx, ranges, 1)
        del idx[vd]

    def _reduce_or_leaf(self, idx, ranges, lanes):
        b = self.ctx.b
        n_in = len(self.op.inputs)
        vector = lanes > 1
        if not self.reduction or not self.carry:
            self._leaf_loops(list(self.reduction), idx, ranges, lanes)
            return
        outs = self.bound[n_in:]
        accs = [a.load(b, idx, lanes, vector) for a in outs]
        accs = self._carried(list(self.reduction), idx, ranges, lanes, accs)
        for a, value in zip(outs, accs):
            a.store(b, idx, value)

    def _carried(self, dims, idx, ranges, lanes, accs):
        if not dims:
            return self._body(idx, lanes, accs, carried=True)
        b, d = self.ctx.b, dims[0]
        with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"d{d}.red", carried=accs) as loop:
            idx[d] = loop.index
            loop.next_carried = self._carried(dims[1:], idx, ranges, lanes, list(loop.carried))
        del idx[d]
        return list(loop.carried)

    def _leaf_loops(self, dims, idx, ranges, lanes):
        b = self.ctx.b
        if dims:
            d = dims[0]
            with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"d{d}.red") as loop:
                idx[d] = loop.index
                self._leaf_loops(dims[1:], idx, ranges, lanes)
            del idx[d]
            return
        n_in = len(self.op.inputs)
        outs = self.bound[n_in:]
        accs = [a.load(b, idx, lanes, lanes > 1) for a in outs]
        for a, value in zip(outs, self._body(idx, lanes, accs)):
            a.store(b, idx, value)

    def _body(self, idx, lanes, out_values, carried=False):
        """Run the body once; returns the yielded values (one per output). ``carried``: the
        values stay in registers for the next step instead of being stored, so a bf16 / f8
        yield is rounded here (a store rounds it otherwise)."""
        b, op = self.ctx.b, self.op
        n_in = len(op.inputs)
        values = [a.load(b, idx, lanes, lanes > 1 and a.access.is_static(self.vector_dim, 1))
                  for a in self.bound[:n_in]] + list(out_values)
        types = list(self.types)
        indices = [idx.get(d, I64(0)) for d in range(len(op.domain))]
        em = BodyEmitter(b, lanes, indices, self.vector_dim if lanes > 1 else None,
                         self.push_constants)
        gathers = iter(self.gathers)
        for s in op.body:
            if s.opcode is Opcode.EXTRACT:
                values.append(next(gathers).load(b, [values[v] for v in s.operands]))
            else:
                values.append(em.emit(s, [values[v] for v in s.operands],
                                      [types[v] for v in s.operands]))
            types.append(s.result_type)
        result = []
        for v, out_type in zip(op.yields, self.types[n_in:]):
            value = values[v]
            if carried and out_type in SMALL_FLOATS and types[v] in SMALL_FLOATS:
                value = round_to(b, value, out_type)  # the accumulator is the output's type
            if types[v] != out_type and not {types[v], out_type} <= _F32_COMPUTED:
                raise CompileError(f"llvm-cpu codegen: yield of a {types[v]} value into a "
                                   f"{out_type} output")
            result.append(value)
        return result


class _Gather:
    """One ``tensor.extract`` of a Generic body: its whole view, addressed by clamped indices
    (extents - 1 and strides as entry-block i64 values)."""

    def __init__(self, ctx, view, where):
        rank = len(view.shape)
        access = Access(ctx.buffers.view(view), tuple(AffineExpr.dim(k) for k in range(rank)),
                        rank, where)
        self.view = access.view
        self.bound = BoundAccess(access, ctx.sizes, ctx.binding(view.binding),
                                 ctx.buffers.inbounds(view.binding))
        self.last = [ctx.b.sub(ctx.sizes.get(e), I64(1)) for e in view.shape]

    def checks(self, b, sizes, length):
        """i1: the view lies outside its buffer or is empty (nothing to read)."""
        bad = ir.Constant(ir.IntType(1), 0)
        for e in self.view.shape:
            bad = b.or_(bad, b.icmp_unsigned("==", sizes.get(e), I64(0)))
        if length is not None:
            bad = b.or_(bad, extent_out_of_range(b, sizes, self.view, length))
        return bad

    def load(self, b, indices):
        """The element at i64 ``indices`` (one per view dim), each clamped to [0, extent)."""
        clamped = {}
        for k, (index, last) in enumerate(zip(indices, self.last)):
            index = b.select(b.icmp_signed("<", index, I64(0)), I64(0), index)
            clamped[k] = b.select(b.icmp_signed(">", index, last), last, index)
        return self.bound.load(b, clamped, 1, False)
