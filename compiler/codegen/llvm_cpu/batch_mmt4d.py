"""linalg.batch_mmt4d on llvm-cpu: the mmt4d tile kernels looped over the batch.

Kernel IR carries batched data tiling as a Generic with kind hint ``"batch_mmt4d"``
(kernel_ir.Mmt4d's docstring): domain (B, M1, N1, K1, M0, N0, K0), LHS ``[B, M1, K1, M0, K0]``
(d0, d1, d3, d4, d6), RHS ``[B, N1, K1, N0, K0]`` (d0, d2, d3, d5, d6), OUT
``[B, M1, N1, M0, N0]`` (d0, d1, d2, d4, d5) and a multiply-add body (inputs optionally
extended to OUT's type first), after the fill of OUT. When the views are contiguous bindings
with static inner tiles and the element types have a tile kernel (mmt4d.emit_tiles for
``mmt4d.FLOAT_TYPES``, mmt4d_int.emit_int_tiles for i8 / i16 -> i32 with K0 = 2), each batch
slice ``[b]`` runs that kernel over the workgroup's M1 x N1 range, accumulating into OUT.
A zero fill of OUT right before it is absorbed (the tile kernels then overwrite OUT
instead of accumulating). The fast loops need whole inner tiles and the whole K1 range in the
workgroup; the emitted
code checks that at run time and otherwise runs the Generic's own loops (GenericPlan), so
any distribution stays correct.

Source: IREE lowers linalg.batch_mmt4d to a loop of mmt4d ukernel calls over the batch
(CPULowerToUKernels / the batch_mmt4d -> mmt4d decomposition).
"""
from llvmlite import ir

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import mmt4d, mmt4d_int
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.views import storage_type

P, R = "parallel", "reduction"
_MAPS = ((0, 1, 3, 4, 6), (0, 2, 3, 5, 6), (0, 1, 2, 4, 5))
_CASTS = ("arith.extf", "arith.extsi")


def _is_mac(op):
    """True when the body is ``out + a * b`` with a and b optionally cast to OUT's type."""
    acc = op.outputs[0].element_type
    values = {0: 0, 1: 1}
    mul = add = None
    for i, s in enumerate(op.body, start=3):
        if s.name in _CASTS and len(s.operands) == 1 and s.operands[0] in (0, 1):
            values[i] = s.operands[0]
        elif s.name in ("arith.mulf", "arith.muli") and mul is None:
            mul = (i, s)
        elif s.name in ("arith.addf", "arith.addi") and add is None:
            add = (i, s)
        else:
            return False
        if s.result_type != acc:
            return False
    if mul is None or add is None or op.yields != (add[0],):
        return False
    factors = sorted(values.get(v, -1) for v in mul[1].operands)
    return factors == [0, 1] and sorted(add[1].operands) == sorted((2, mul[0]))


def _matches(op):
    if (op.kind != "batch_mmt4d" or len(op.domain) != 7 or len(op.inputs) != 2
            or len(op.outputs) != 1 or op.iterator_types != (P, P, P, R, P, P, R)):
        return False
    for amap, dims in zip(op.indexing_maps, _MAPS):
        if tuple(amap) != tuple(kir.AffineExpr.dim(x) for x in dims):
            return False
    return _is_mac(op)


class BatchMmt4dPlan(GenericPlan):
    """A GenericPlan (the fallback loops) plus the per-batch tile kernel."""

    def __init__(self, ctx, op, where, tile, int_lanes):
        super().__init__(ctx, op, where)
        self.tile, self.int_lanes = tile, int_lanes
        self.fill = None

    def absorb_zero_fill(self, fill, fill_plan, fill_ranges):
        """Take over the zero fill of OUT just before this op (kernel_codegen)."""
        if fill.outputs[0] != self.op.outputs[0]:
            return False
        self.fill = (fill_plan, fill_ranges)
        return True

    def emit(self, ranges, unroll=2):
        """Tile kernels when the workgroup holds whole inner tiles and all of K1, else the
        Generic loops."""
        b, sizes, op = self.ctx.b, self.ctx.sizes, self.op
        whole = ir.Constant(ir.IntType(1), 1)
        for d in (3, 4, 5, 6):
            lo, hi = ranges[d]
            whole = b.and_(whole, b.icmp_unsigned("==", lo, I64(0)))
            whole = b.and_(whole, b.icmp_unsigned("==", hi, sizes.get(op.domain[d])))
        with b.if_else(whole, likely=True) as (then, otherwise):
            with then:
                self._batches(ranges)
            with otherwise:
                if self.fill is not None:
                    self.fill[0].emit(self.fill[1])
                super().emit(ranges, unroll)

    def _batches(self, ranges):
        b, sizes, op = self.ctx.b, self.ctx.sizes, self.op
        lhs, rhs = op.inputs
        out = op.outputs[0]
        views = (lhs, rhs, out)
        bases = [b.gep(self.ctx.binding(v.binding), [sizes.get(v.offset)], inbounds=True,
                       source_etype=storage_type(v.element_type)) for v in views]
        batch_strides = [sizes.get(sz.view_strides(v)[0]) for v in views]
        strides = (sizes.get(lhs.shape[2]), sizes.get(rhs.shape[2]), sizes.get(out.shape[2]))
        k1 = sizes.get(op.domain[3])
        accumulate = ir.Constant(ir.IntType(1), int(self.fill is None))
        with counted_loop(b, ranges[0][0], ranges[0][1], I64(1), "batch") as lb:
            pointers = [b.gep(base, [b.mul(lb.index, stride)], inbounds=True,
                              source_etype=storage_type(v.element_type))
                        for base, stride, v in zip(bases, batch_strides, views)]
            if self.int_lanes is None:
                mmt4d.emit_tiles(b, pointers, ranges[1], ranges[2],
                                 mmt4d.packed_strides(b, strides, self.tile), k1, self.tile,
                                 accumulate, (lhs.element_type, out.element_type),
                                 "f16c" in self.ctx.target.features)
            else:
                mmt4d_int.emit_int_tiles(b, pointers, ranges[1], ranges[2], strides, k1,
                                         self.tile, accumulate, lhs.element_type,
                                         self.int_lanes)


def plan(ctx, op, where):
    """A BatchMmt4dPlan for a ``batch_mmt4d`` Generic the tile kernels can run, else None."""
    if not _matches(op):
        return None
    lhs, rhs = op.inputs
    out = op.outputs[0]
    views = (lhs, rhs, out)
    if any(len(v.shape) != 5 or v.strides is not None
           or ctx.buffers.kind(v.binding)[0] != "binding" for v in views):
        return None
    tile = (lhs.shape[3], rhs.shape[3], lhs.shape[4])
    if not all(isinstance(t, int) and t >= 1 for t in tile) or tile[0] * tile[1] > 1024:
        return None
    if tuple(out.shape[3:]) != tile[:2] or rhs.shape[4] != tile[2] or tuple(
            op.domain[4:]) != tile:
        return None
    types = tuple(v.element_type for v in views)
    if types in mmt4d.FLOAT_TYPES:
        return BatchMmt4dPlan(ctx, op, where, tile, None)
    if (types[0] == types[1] and types[0] in mmt4d_int.INPUT_TYPES and types[2] == "i32"
            and tile[2] == 2):
        lanes = mmt4d_int.chunk_lanes(ctx.target.features, tile[1])
        if lanes is not None:
            return BatchMmt4dPlan(ctx, op, where, tile, lanes)
    return None
