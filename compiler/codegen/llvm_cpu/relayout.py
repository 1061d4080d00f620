"""kernel_ir.Pack / Unpack -> loops over the packed (tiled) layout.

Both walk the packed operand's dims: ``r`` outer dims (permuted by ``outer_dims_perm``) then
one inner dim per entry of ``inner_dims_pos``. Plain dim ``s`` of packed index (o..., i...) is
``o_s * tile_s + i_s`` when ``s`` is tiled, else ``o_s``. Pack reads the plain source element
when it exists and writes ``padding_value`` (or 0) otherwise; Unpack writes only the plain
elements that exist. Elements are copied as stored (no widening). Packs with contiguous
inner-tile rows or square transposable tiles move vectors (relayout_vector.py); the rest one
element per iteration.

Checks (dispatch fails with STATUS_OUT_OF_RANGE): views inside their bindings; tiles >= 1;
inner extents of the packed view equal to the tiles; outer extents equal to
``ceildiv(plain, tile)`` (tiled) or ``plain`` (untiled); and for a Pack without
padding_value the plain extents must be multiples of their tiles (MLIR leaves that undefined).
Source: MLIR linalg.pack / linalg.unpack semantics (LinalgOps.td), IREE's pack/unpack ukernels.
"""
import numpy as np
from llvmlite import ir

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import relayout_vector
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.views import domain_nonempty, extent_out_of_range, storage_type
from rt.runtime.errors import CompileError
from rt.runtime.small_float import FORMATS as SMALL_FLOATS, from_float64

I1 = ir.IntType(1)


def _storage_constant(element_type, value):
    ty = storage_type(element_type)
    value = 0 if value is None else value
    if element_type == "f16":
        return ir.Constant(ty, int(np.array(value, np.float16).view(np.uint16)))
    if element_type in SMALL_FLOATS:
        bits = from_float64([value], element_type).view(np.uint16 if ty.width == 16 else np.uint8)
        return ir.Constant(ty, int(bits[0]))
    if element_type in ("f32", "f64"):
        return ir.Constant(ty, float(value))
    return ir.Constant(ty, int(value) & ((1 << ty.width) - 1))


class RelayoutPlan:
    """Emitter for one Pack or Unpack ``op``."""

    def __init__(self, ctx, op, where):
        self.ctx, self.op = ctx, op
        self.is_pack = isinstance(op, kir.Pack)
        source, dest = ctx.buffers.view(op.source), ctx.buffers.view(op.dest)
        packed, plain = (dest, source) if self.is_pack else (source, dest)
        r, t = len(plain.shape), len(op.inner_dims_pos)
        self.packed, self.plain, self.r = packed, plain, r
        if plain.element_type in kir.PACKED:
            raise CompileError(f"llvm-cpu codegen: {where}: {plain.element_type} elements are packed "
                               "several to a byte; pack/unpack of packed types is not supported "
                               "(widen with arith.extsi first)")
        if packed.element_type != plain.element_type:
            raise CompileError(f"llvm-cpu codegen: {where}: pack/unpack element types differ "
                               f"({op.source.element_type} -> {op.dest.element_type})")
        if len(packed.shape) != r + t or len(op.inner_tiles) != t:
            raise CompileError(f"llvm-cpu codegen: {where}: packed rank {len(packed.shape)} must "
                               f"be plain rank {r} + {t} tiles ({len(op.inner_tiles)} given)")
        perm = tuple(op.outer_dims_perm) if op.outer_dims_perm is not None else tuple(range(r))
        if sorted(perm) != list(range(r)) or len(set(op.inner_dims_pos)) != t or any(
                not 0 <= p < r for p in op.inner_dims_pos):
            raise CompileError(f"llvm-cpu codegen: {where}: outer_dims_perm {perm} / "
                               f"inner_dims_pos {op.inner_dims_pos} are not valid for rank {r}")
        self.perm = perm
        self.inner_of = {s: q for q, s in enumerate(op.inner_dims_pos)}
        self.domain = tuple(packed.shape)
        sizes = ctx.sizes
        for v in (packed, plain):
            for s in (*sz.view_strides(v), v.offset):
                for x in sz.iter_sizes(s):
                    sizes.get(x)
        self.pad = _storage_constant(plain.element_type,
                                     op.padding_value if self.is_pack else None)
        self.vector = relayout_vector.vector_plan(self) if all(
            isinstance(t, int) for t in op.inner_tiles) else None

    def checks(self):
        """i1: the op would leave a view or its views disagree with the tiling."""
        b, sizes, op, r = self.ctx.b, self.ctx.sizes, self.op, self.r
        bad = ir.Constant(I1, 0)
        for v in (self.packed, self.plain):
            length = self.ctx.buffers.length(v.binding)
            if length is not None:
                bad = b.or_(bad, extent_out_of_range(b, sizes, v, length))
        for j, s in enumerate(self.perm):
            outer, plain = sizes.get(self.packed.shape[j]), sizes.get(self.plain.shape[s])
            if s in self.inner_of:
                q = self.inner_of[s]
                tile = sizes.get(op.inner_tiles[q])
                bad = b.or_(bad, b.icmp_unsigned("==", tile, I64(0)))
                safe = b.select(b.icmp_unsigned("==", tile, I64(0)), I64(1), tile)
                bad = b.or_(bad, b.icmp_unsigned("!=", sizes.get(self.packed.shape[r + q]), tile))
                rem = b.urem(plain, safe)
                want = b.add(b.udiv(plain, safe), b.zext(b.icmp_unsigned("!=", rem, I64(0)), I64))
                bad = b.or_(bad, b.icmp_unsigned("!=", outer, want))
                if self.is_pack and op.padding_value is None:
                    bad = b.or_(bad, b.icmp_unsigned("!=", rem, I64(0)))
            else:
                bad = b.or_(bad, b.icmp_unsigned("!=", outer, plain))
        nonempty = domain_nonempty(b, sizes, self.domain)
        tiles_zero = ir.Constant(I1, 0)
        for tile in op.inner_tiles:
            tiles_zero = b.or_(tiles_zero, b.icmp_unsigned("==", sizes.get(tile), I64(0)))
        return b.or_(tiles_zero, b.and_(nonempty, bad))

    def emit(self, ranges):
        """Walk the packed dims over ``ranges``: whole rows or tile transposes where a pack's
        layout allows (relayout_vector), else one element per iteration."""
        if self.vector is not None and self.vector.emit(ranges):
            return
        self._loops(0, [], ranges)

    def _loops(self, d, idx, ranges):
        if d == len(self.domain):
            self.element(idx)
            return
        with counted_loop(self.ctx.b, ranges[d][0], ranges[d][1], I64(1), f"p{d}") as loop:
            self._loops(d + 1, idx + [loop.index], ranges)

    def linear(self, view, indices):
        """Element pointer of ``view`` at ``indices`` (i64 per view dim)."""
        b, sizes = self.ctx.b, self.ctx.sizes
        linear = sizes.get(view.offset)
        for index, stride in zip(indices, sz.view_strides(view)):
            linear = b.add(linear, b.mul(index, sizes.get(stride)))
        return b.gep(self.ctx.binding(view.binding), [linear],
                     inbounds=self.ctx.buffers.inbounds(view.binding),
                     source_etype=storage_type(view.element_type))

    def plain_indices(self, idx):
        """(plain index, i1 inside the plain extent) per plain dim for packed index ``idx``.

        An untiled dim is always inside (``checks`` made its outer extent the plain one)."""
        b, sizes, r = self.ctx.b, self.ctx.sizes, self.r
        plain_idx, inside = [None] * r, [ir.Constant(I1, 1)] * r
        for j, s in enumerate(self.perm):
            index = idx[j]
            if s in self.inner_of:
                q = self.inner_of[s]
                index = b.add(b.mul(index, sizes.get(self.op.inner_tiles[q])), idx[r + q])
                inside[s] = b.icmp_unsigned("<", index, sizes.get(self.plain.shape[s]))
            plain_idx[s] = index
        return plain_idx, inside

    def tile_inside(self, idx):
        """i1: the whole packed tile at outer index ``idx`` (first r entries) lies inside the
        plain view (no padding, nothing to drop)."""
        b, sizes, r = self.ctx.b, self.ctx.sizes, self.r
        inside = ir.Constant(I1, 1)
        for j, s in enumerate(self.perm):
            if s in self.inner_of:
                tile = sizes.get(self.op.inner_tiles[self.inner_of[s]])
                end = b.mul(b.add(idx[j], I64(1)), tile)
                inside = b.and_(inside, b.icmp_unsigned("<=", end, sizes.get(self.plain.shape[s])))
        return inside

    def element(self, idx):
        """Move the one element at packed index ``idx`` (i64 per packed dim)."""
        b = self.ctx.b
        plain_idx, inside_dims = self.plain_indices(idx)
        inside = ir.Constant(I1, 1)
        for flag in inside_dims:
            inside = b.and_(inside, flag)
        ty = storage_type(self.plain.element_type)
        align = kir.element_size(self.plain.element_type)
        if self.is_pack:
            clamped = [b.select(inside, i, I64(0)) for i in plain_idx]
            value = b.load(self.linear(self.plain, clamped), typ=ty, align=align)
            b.store(b.select(inside, value, self.pad), self.linear(self.packed, idx), align=align)
            return
        with b.if_then(inside):
            value = b.load(self.linear(self.packed, idx), typ=ty, align=align)
            b.store(value, self.linear(self.plain, plain_idx), align=align)


def plan(ctx, op, where):
    """The RelayoutPlan of a Pack or Unpack ``op``."""
    return RelayoutPlan(ctx, op, where)
