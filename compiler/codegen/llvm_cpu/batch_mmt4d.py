"""linalg.batch_mmt4d on llvm-cpu: the mmt4d tile kernels looped over the batch.

Kernel IR carries batched data tiling as a Generic with kind hint ``"batch_mmt4d"``
(kernel_ir.Mmt4d's docstring): domain (B, M1, N1, K1, M0, N0, K0), LHS ``[B, M1, K1, M0, K0]``
(d0, d1, d3, d4, d6), RHS ``[B, N1, K1, N0, K0]`` (d0, d2, d3, d5, d6), OUT
``[B, M1, N1, M0, N0]`` (d0, d1, d2, d4, d5) and a multiply-add body (inputs optionally
extended to OUT's type first), after the fill of OUT. When the views are contiguous bindings
with static inner tiles and the element types have a tile kernel (mmt4d.emit_tiles for
``mmt4d.FLOAT_TYPES``, mmt4d_int.emit_int_tiles for i8 / i16 -> i32 with K0 = 2 or 4,
mmt4d_dot.emit_dot_tiles for the AVX512-BF16 / VNNI tiles ``mmt4d_dot.dot_kind`` takes), each batch
slice ``[b]`` runs that kernel over the workgroup's M1 x N1 range, accumulating into OUT.
A zero fill of OUT right before it is absorbed (the tile kernels then overwrite OUT
instead of accumulating). The fast loops need whole inner tiles and the whole K1 range in the
workgroup; the emitted
code checks that at run time and otherwise runs the Generic's own loops (GenericPlan), so
any distribution stays correct.

A Generic with ``bounds`` (kernel_ir.Generic; f32 only: the RHS ``B[b, K, N]``, the LHS
``A[b, M, K]`` (K0 = 1) and / or OUT ``C[b, M, N]`` viewed in place,
lowering/fold_relayouts.py) passes each batch slice's strided pointers, strides and the bounds
``(M, N)`` to mmt4d.emit_tiles, whose edge tiles are masked (no access past a matrix); an LHS
in place is packed panel by panel into the stack there (``lhs_panel``, as for an Mmt4d). It has no loop fallback: the views reach past the matrices, so a
workgroup without whole inner tiles and all of K1 (which the distribution never makes: it
splits only B, M1 and N1) returns ``abi.STATUS_INVALID_ARGUMENT``, and a bounded Generic the
tile kernel cannot run is a CompileError. Its checks test the matrices, per batch, inside
their bindings (covering the absorbed fill's strided view too) and M1 / N1 against the tile
counts of M / N.

Source: IREE lowers linalg.batch_mmt4d to a loop of mmt4d ukernel calls over the batch
(CPULowerToUKernels / the batch_mmt4d -> mmt4d decomposition).
"""
from llvmlite import ir

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.kernel_ir import Opcode
from rt.compiler.codegen.llvm_cpu import mmt4d, mmt4d_dot, mmt4d_int
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import I32, I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.views import domain_nonempty, extent_out_of_range, storage_type
from rt.compiler.targets.cpu_families import family_of
from rt.devices.llvm_cpu import abi
from rt.runtime.errors import CompileError

P, R = "parallel", "reduction"
_MAPS = ((0, 1, 3, 4, 6), (0, 2, 3, 5, 6), (0, 1, 2, 4, 5))
_CASTS = (Opcode.EXTF, Opcode.EXTSI)


def _is_mac(op):
    """True when the body is ``out + a * b`` with a and b optionally cast to OUT's type."""
    acc = op.outputs[0].element_type
    values = {0: 0, 1: 1}
    mul = add = None
    for i, s in enumerate(op.body, start=3):
        if s.opcode in _CASTS and len(s.operands) == 1 and s.operands[0] in (0, 1):
            values[i] = s.operands[0]
        elif s.opcode in (Opcode.MULF, Opcode.MULI) and mul is None:
            mul = (i, s)
        elif s.opcode in (Opcode.ADDF, Opcode.ADDI) and add is None:
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

    def __init__(self, ctx, op, where, tile, int_lanes, dot=None):
        super().__init__(ctx, op, where)
        self.tile, self.int_lanes, self.dot = tile, int_lanes, dot
        self.fill = None
        #: kernel_codegen skips an absorbed fill's own checks when this plan's cover its view
        self.checks_absorbed_fill = op.bounds is not None

    def checks(self):
        """i1: a view out of its binding (GenericPlan's checks; with ``bounds``, the matrices
        viewed in place are checked per batch as ``[B, rows, cols]``, and M1 / N1 must be the
        tile counts of M / N)."""
        op = self.op
        if op.bounds is None:
            return super().checks()
        b, sizes = self.ctx.b, self.ctx.sizes
        lhs, rhs = op.inputs
        out = op.outputs[0]
        m, n = op.bounds
        k = sz.mul(lhs.shape[2], lhs.shape[4])
        checked = [(lhs, (m, k), 3), (rhs, (k, n), 4), (out, (m, n), 3)]
        bad = ir.Constant(ir.IntType(1), 0)
        for view, matrix, row in checked:
            if view.strides is not None:
                view = kir.View(view.binding, "f32", (view.shape[0], *matrix), view.offset,
                                (view.strides[0], view.strides[row], 1))
            length = self.ctx.buffers.length(view.binding)
            if length is not None:
                bad = b.or_(bad, extent_out_of_range(b, sizes, view, length))
        for tiles, extent, tile in ((lhs.shape[1], m, self.tile[0]), (rhs.shape[1], n, self.tile[1])):
            count = b.udiv(b.add(sizes.get(extent), I64(tile - 1)), I64(tile))
            bad = b.or_(bad, b.icmp_unsigned("!=", count, sizes.get(tiles)))
        return b.and_(domain_nonempty(b, sizes, op.domain), bad)

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
                if op.bounds is not None:  # never split so by the distribution; no loops over
                    b.ret(I32(abi.STATUS_INVALID_ARGUMENT))  # views past the matrices
                    return
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
        view_strides = [[sizes.get(s) for s in sz.view_strides(v)] for v in views]
        strides = (sizes.get(lhs.shape[2]), sizes.get(rhs.shape[2]), sizes.get(out.shape[2]))
        k1 = sizes.get(op.domain[3])
        accumulate = ir.Constant(ir.IntType(1), int(self.fill is None))
        bounds = None
        if op.bounds is not None:
            (_, l_m1, l_k1, l_m0, _), (_, r_n1, r_k1, _, r_kk), (_, o_m1, o_n1, o_m0, _) = view_strides
            tile_strides = ((l_m1, l_k1, l_m0), (r_n1, r_k1, r_kk), (o_m1, o_n1, o_m0))
            bounds = (sizes.get(op.bounds[0]), sizes.get(op.bounds[1]), out.strides is not None)
        else:
            tile_strides = mmt4d.packed_strides(b, strides, self.tile)
        lhs_panel = None
        if op.bounds is not None and lhs.strides is not None:  # A[b, M, K] in place, K0 = 1
            family = family_of(self.ctx.target)
            lhs_panel = (mmt4d.panel_block(b, k1, bounds[1], family), family)
        with counted_loop(b, ranges[0][0], ranges[0][1], I64(1), "batch") as lb:
            pointers = [b.gep(base, [b.mul(lb.index, vs[0])], inbounds=True,
                              source_etype=storage_type(v.element_type))
                        for base, vs, v in zip(bases, view_strides, views)]
            def own():
                if self.int_lanes is None:
                    mmt4d.emit_tiles(b, pointers, ranges[1], ranges[2], tile_strides, k1,
                                     self.tile, accumulate, (lhs.element_type, out.element_type),
                                     "f16c" in self.ctx.target.features,
                                     rhs_k_major=rhs.strides is not None, bounds=bounds,
                                     lhs_panel=lhs_panel)
                else:
                    mmt4d_int.emit_int_tiles(b, pointers, ranges[1], ranges[2], strides, k1,
                                             self.tile, accumulate, lhs.element_type,
                                             self.int_lanes)
            if self.dot is None:
                own()
            else:
                mmt4d_dot.emit_dot_or(b, self.ctx.target, self.dot,
                                      (pointers, ranges[1], ranges[2], strides, k1, self.tile,
                                       accumulate), own)


def _in_place_views(lhs, rhs, out, tile):
    """Whether strided views keep the innermost dim the tile kernel reads contiguous (LHS k0
    unless K0 = 1, RHS n0 -- read K0-major --, OUT n0)."""
    return ((lhs.strides is None or lhs.strides[4] == 1 or tile[2] == 1)
            and (rhs.strides is None or rhs.strides[3] == 1)
            and (out.strides is None or out.strides[4] == 1))


def plan(ctx, op, where):
    """A BatchMmt4dPlan for a ``batch_mmt4d`` Generic the tile kernels can run, else None.

    Raises CompileError for a Generic with ``bounds`` that the f32 tile kernel cannot run.
    """
    found = _plan(ctx, op, where)
    if op.bounds is not None and (found is None or found.int_lanes is not None):
        raise CompileError(f"llvm-cpu codegen: {where}: batch_mmt4d with bounds needs f32 views "
                           f"the tile kernel runs in place, got "
                           f"{[(v.element_type, v.strides) for v in (*op.inputs, *op.outputs)]}")
    return found


def _plan(ctx, op, where):
    if not _matches(op):
        return None
    lhs, rhs = op.inputs
    out = op.outputs[0]
    views = (lhs, rhs, out)
    if any(len(v.shape) != 5 or ctx.buffers.kind(v.binding)[0] != "binding" for v in views):
        return None
    tile = (lhs.shape[3], rhs.shape[3], lhs.shape[4])
    if not all(isinstance(t, int) and t >= 1 for t in tile) or tile[0] * tile[1] > 1024:
        return None
    if tuple(out.shape[3:]) != tile[:2] or rhs.shape[4] != tile[2] or tuple(
            op.domain[4:]) != tile:
        return None
    types = tuple(v.element_type for v in views)
    if op.bounds is not None or any(v.strides is not None for v in views):
        if op.bounds is None or types != ("f32",) * 3 or not _in_place_views(*views, tile):
            return None
        return BatchMmt4dPlan(ctx, op, where, tile, None)
    dot = mmt4d_dot.dot_kind(ctx.target.features, types, tile)
    if dot is not None:
        return BatchMmt4dPlan(ctx, op, where, tile, None, dot)
    dot = mmt4d_dot.runtime_kind(ctx.target, types, tile)  # with the loops below as fallback
    if types in mmt4d.FLOAT_TYPES:
        return BatchMmt4dPlan(ctx, op, where, tile, None, dot)
    if (types[0] == types[1] and types[0] in mmt4d_int.INPUT_TYPES and types[2] == "i32"
            and tile[2] in mmt4d_int.K0S):
        lanes = mmt4d_int.chunk_lanes(ctx.target.features, tile[1])
        if lanes is not None:
            return BatchMmt4dPlan(ctx, op, where, tile, lanes, dot)
    return None
