"""Transposing copies (a Generic that only moves elements) as square register-block transposes.

A Generic with one input and one output of the same 32-bit element type, only parallel loops,
an empty body yielding the input, whose output is contiguous along loop dim ``o`` and whose
input is contiguous along another loop dim ``i`` has no dim GenericPlan can vectorize (every
input must be contiguous or invariant along the vector dim), so it would move one element per
iteration: attention's ``K^T`` (``[s, h, d] -> [h, d, s]``, 4x64x128 f32) took 32 us at one
thread, four times its ``[s, h, d] -> [h, s, d]`` siblings. Here blocks of ``T x T`` elements
(``T`` = lanes of one vector, 4, 8 or 16) are loaded as ``T`` input vectors along ``i`` (one per
``o``), transposed in registers (``relayout_vector.transpose``) and stored as ``T`` output
vectors along ``o``; the other loop dims run outside, and the ranges' partial blocks (along
``i``, then along ``o``) move one element at a time, so any workgroup range is exact.

Source: IREE's x86 transpose lowering (``vector.transpose`` to shuffles,
``X86VectorTransposeLowering``) and the pack ukernels' tile transposes (relayout_vector.py).
"""
from rt.compiler.codegen.kernel_ir import element_bits
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop, loop_nest
from rt.compiler.codegen.llvm_cpu.relayout_vector import TRANSPOSE_TILES, transpose


class TransposePlan(GenericPlan):
    """GenericPlan (its checks) with the block-transpose loop nest; ``o`` / ``i``: the loop
    dims along which the output / the input is contiguous; ``tile``: the block side."""

    def __init__(self, ctx, op, where, o, i, tile):
        super().__init__(ctx, op, where)
        self.o, self.i, self.tile = o, i, tile

    def emit(self, ranges, unroll=2):
        """Emit the loop nest over ``ranges`` (per loop dim, (lo, hi) i64 values)."""
        outer = [d for d in range(len(self.op.domain)) if d not in (self.o, self.i)]
        idx = {}
        loop_nest(self.ctx.b, outer, idx, ranges, lambda: self._blocks(idx, ranges))

    def _blocks(self, idx, ranges):
        b = self.ctx.b
        t = self.tile
        (o_lo, o_hi), (i_lo, i_hi) = ranges[self.o], ranges[self.i]
        o_end = b.add(o_lo, b.mul(b.udiv(b.sub(o_hi, o_lo), I64(t)), I64(t)))
        i_end = b.add(i_lo, b.mul(b.udiv(b.sub(i_hi, i_lo), I64(t)), I64(t)))
        src, dst = self.bound
        with counted_loop(b, o_lo, o_end, I64(t), "o.block") as lo:
            with counted_loop(b, i_lo, i_end, I64(t), "i.block") as li:
                rows = []
                for r in range(t):
                    idx[self.o], idx[self.i] = b.add(lo.index, I64(r)), li.index
                    rows.append(src.load(b, idx, t, True))
                for j, column in enumerate(transpose(b, rows)):
                    idx[self.o], idx[self.i] = lo.index, b.add(li.index, I64(j))
                    dst.store(b, idx, column)
        self._elements(idx, (o_lo, o_end), (i_end, i_hi))  # the partial block along i
        self._elements(idx, (o_end, o_hi), (i_lo, i_hi))  # the partial block along o
        del idx[self.o], idx[self.i]

    def _elements(self, idx, o_range, i_range):
        b = self.ctx.b
        src, dst = self.bound
        with counted_loop(b, o_range[0], o_range[1], I64(1), "o.rest") as lo:
            with counted_loop(b, i_range[0], i_range[1], I64(1), "i.rest") as li:
                idx[self.o], idx[self.i] = lo.index, li.index
                dst.store(b, idx, src.load(b, idx, 1, False))


def _contiguous_dim(access, dims):
    found = [d for d in dims if access.is_static(d, 1)]
    return found[0] if len(found) == 1 else None


def plan(ctx, op, where):
    """A TransposePlan when ``op`` is a transposing copy (see the module docstring), else None."""
    if (len(op.inputs) != 1 or len(op.outputs) != 1 or op.body or op.yields != (0,) or op.gathers
            or any(t != "parallel" for t in op.iterator_types)):
        return None
    src, dst = op.inputs[0], op.outputs[0]
    if src.element_type != dst.element_type or element_bits(src.element_type) != 32:
        return None
    tile = ctx.target.vector_bytes // 4
    if tile not in TRANSPOSE_TILES:
        return None
    found = TransposePlan(ctx, op, where, None, None, tile)
    dims = range(len(op.domain))
    s_access, d_access = found.accesses
    found.o, found.i = _contiguous_dim(d_access, dims), _contiguous_dim(s_access, dims)
    if found.vector_dim is not None or found.o is None or found.i is None or found.o == found.i:
        return None
    return found
