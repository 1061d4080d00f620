"""Vector paths of Pack: whole inner-tile rows and square tile transposes.

``RelayoutPlan`` (relayout.py) moves one element per loop iteration; for the pack layouts
data tiling produces, this module moves vectors instead, over the same packed loop nest and
with the same padding semantics:

- ``RowCopy`` (Pack and Unpack): the last packed dim with extent > 1 is the inner tile ``T``
  of the plain view's contiguous last dim (only unit dims after it), so each packed row of
  ``T`` elements is one contiguous plain row: one ``<T x elt>`` load and store. The outer dim
  of the plain contiguous dim is walked innermost, so plain rows are visited in address
  order. Tiles cut by the plain edge use masked loads with the padding value in the missing
  lanes (Pack) or masked stores dropping them (Unpack). The RHS pack of a matmul
  (``inner_dims_pos = [1, 0]``) and the result unpack (``[0, 1]``, N0 contiguous) take it.
- ``TileTranspose`` (Pack): the last packed dim with extent > 1 is the inner tile ``T``
  (4, 8 or 16) of a plain dim that is not contiguous, and the plain contiguous dim is
  untiled or tiled by 1, with only unit dims after it in the packed layout (the LHS pack
  ``inner_tiles = [16, 1]``). Blocks of ``T`` plain rows x ``T`` contiguous columns are
  loaded as ``T`` vectors, transposed in registers with ``log2(T)`` rounds of two-input
  interleaving shuffles and stored as ``T`` contiguous packed rows; rows past the plain edge
  hold the padding value; leftover columns go through the element loop.

Both need the vector dims not to be split across workgroups (inner tile dims never are);
``emit`` returns False otherwise and the caller falls back to the element loop.

Source: IREE's pack / unpack ukernels (runtime/src/iree/builtins/ukernel/pack.c, unpack.c
and their x86_64 tile helpers), whose tile-row copies and tile transposes these follow.
"""
from llvmlite import ir

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.llvm_cpu.interface import I32, I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.views import storage_type

I1 = ir.IntType(1)
TRUE = ir.Constant(I1, 1)
#: Largest row (bytes) RowCopy moves as one vector value.
MAX_ROW_BYTES = 256
#: Square tile sides TileTranspose handles.
TRANSPOSE_TILES = (4, 8, 16)
#: Largest transposed row (bytes): one zmm.
MAX_TRANSPOSE_ROW_BYTES = 64


def _static(value, want):
    """True when the i64 LLVM value is the constant ``want``."""
    return isinstance(value, ir.Constant) and value.constant == want


def _interleave(b, x, y, high):
    """The low (or high) halves of ``x`` and ``y`` interleaved: x0 y0 x1 y1 ..."""
    n = x.type.count
    base = n // 2 if high else 0
    lanes = [lane for i in range(n // 2) for lane in (base + i, n + base + i)]
    return b.shuffle_vector(x, y, ir.Constant(ir.VectorType(I32, n), lanes))


def transpose(b, rows):
    """The columns of a square block given as ``len(rows)`` row vectors (a power of two
    lanes each): ``log2(n)`` rounds, each interleaving row i with row i + n/2."""
    n = len(rows)
    for _ in range(n.bit_length() - 1):
        out = [None] * n
        for i in range(n // 2):
            out[2 * i] = _interleave(b, rows[i], rows[i + n // 2], False)
            out[2 * i + 1] = _interleave(b, rows[i], rows[i + n // 2], True)
        rows = out
    return rows


def _nest(b, dims, ranges, body, idx=None):
    """Loops over packed ``dims`` (in order) with ``ranges``; ``body(idx)`` gets a dict."""
    idx = dict(idx or {})
    if not dims:
        body(idx)
        return
    d = dims[0]
    with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"v{d}") as loop:
        idx[d] = loop.index
        _nest(b, dims[1:], ranges, body, idx)


def _contiguous_last(view):
    strides = sz.view_strides(view)
    return bool(strides) and isinstance(strides[-1], int) and strides[-1] == 1


def _last_significant(plan):
    """The last packed dim whose extent is not a static 1 (None if there is none)."""
    for j in reversed(range(len(plan.domain))):
        extent = plan.domain[j]
        if not (isinstance(extent, int) and extent == 1):
            return j
    return None


class RowCopy:
    """Pack or Unpack moving whole inner-tile rows (see the module docstring); ``v`` is the packed dim
    of the row (only unit dims follow it)."""

    def __init__(self, plan, v, tile):
        self.p, self.v, self.tile = plan, v, tile

    @classmethod
    def match(cls, plan):
        op, r = plan.op, plan.r
        v = _last_significant(plan)
        if v is None or v < r or op.inner_dims_pos[v - r] != r - 1:
            return None
        tile = op.inner_tiles[v - r]
        esize = kir.element_size(plan.plain.element_type)
        if not isinstance(tile, int) or tile < 2 or tile * esize > MAX_ROW_BYTES:
            return None
        if not (_contiguous_last(plan.plain) and sz.view_strides(plan.packed)[v] == 1):
            return None
        return cls(plan, v, tile)

    def emit(self, ranges):
        """Emit the row loops over ``ranges``; False when the row dim is distributed."""
        p, v = self.p, self.v
        if not (_static(ranges[v][0], 0) and _static(ranges[v][1], self.tile)):
            return False
        inner = [j for j in range(p.r, len(ranges)) if j != v]
        last = p.perm.index(p.r - 1)
        outer = [j for j in range(p.r) if j != last] + [last]
        _nest(p.ctx.b, outer, ranges, lambda idx: self._tile(idx, ranges, inner))
        return True

    def _tile(self, idx, ranges, inner):
        """One packed tile: unmasked rows when it lies inside the plain view, else masked."""
        p = self.p
        b = p.ctx.b
        with b.if_else(p.tile_inside(idx), likely=True) as (then, otherwise):
            with then:
                _nest(b, inner, ranges, lambda i: self._row({**idx, **i}, True))
            with otherwise:
                _nest(b, inner, ranges, lambda i: self._row({**idx, **i}, False))

    def _row(self, loop_idx, interior):
        p, t = self.p, self.tile
        b, r = p.ctx.b, p.r
        idx = [loop_idx.get(j, I64(0)) for j in range(len(p.domain))]
        plain_idx, inside = p.plain_indices(idx)
        ety = storage_type(p.plain.element_type)
        vty = ir.VectorType(ety, t)
        align = kir.element_size(p.plain.element_type)
        packed_ptr = p.linear(p.packed, idx)
        if interior:
            if p.is_pack:
                b.store(b.load(p.linear(p.plain, plain_idx), typ=vty, align=align), packed_ptr,
                        align=align)
            else:
                b.store(b.load(packed_ptr, typ=vty, align=align), p.linear(p.plain, plain_idx),
                        align=align)
            return
        row_ok = TRUE
        for s in range(r - 1):
            row_ok = b.and_(row_ok, inside[s])
        avail = b.sub(p.ctx.sizes.get(p.plain.shape[r - 1]), plain_idx[r - 1])
        count = b.select(row_ok, b.select(b.icmp_unsigned("<", avail, I64(t)), avail, I64(t)),
                         I64(0))
        clamped = [b.select(inside[s], i, I64(0)) if s < r - 1 else i
                   for s, i in enumerate(plain_idx)]
        pad = ir.Constant(vty, [p.pad] * t)
        mask = intrinsics.lane_mask(b, count, t)
        if p.is_pack:
            value = intrinsics.masked_load(b, p.linear(p.plain, clamped), align, mask, pad)
            b.store(value, packed_ptr, align=align)
        else:
            value = b.load(packed_ptr, typ=vty, align=align)
            intrinsics.masked_store(b, value, p.linear(p.plain, clamped), align, mask)


class TileTranspose:
    """Pack by square tile transposes (see the module docstring).

    v: the packed dim of the transposed inner tile; u: the packed outer dim of the plain
    contiguous dim; s_v: the plain dim tiled by v.
    """

    def __init__(self, plan, v, u, s_v, tile):
        self.p, self.v, self.u, self.s_v, self.tile = plan, v, u, s_v, tile

    @classmethod
    def match(cls, plan):
        if not plan.is_pack:
            return None
        op, r, domain = plan.op, plan.r, plan.domain
        unit = [isinstance(e, int) and e == 1 for e in domain]
        significant = [j for j in range(len(domain)) if not unit[j]]
        if not significant or significant[-1] < r:
            return None
        v = significant[-1]
        q = v - r
        s_v, tile = op.inner_dims_pos[q], op.inner_tiles[q]
        esize = kir.element_size(plan.plain.element_type)
        if s_v == r - 1 or tile not in TRANSPOSE_TILES or tile * esize > MAX_TRANSPOSE_ROW_BYTES:
            return None
        if r - 1 in plan.inner_of and op.inner_tiles[plan.inner_of[r - 1]] != 1:
            return None
        u = plan.perm.index(r - 1)
        if any(not unit[j] for j in range(u + 1, len(domain)) if j != v):
            return None
        packed_strides = sz.view_strides(plan.packed)
        if not (_contiguous_last(plan.plain) and packed_strides[v] == 1):
            return None
        return cls(plan, v, u, s_v, tile)

    def emit(self, ranges):
        """Emit the block loops over ``ranges``; False when the tile dim is distributed."""
        v, u, t = self.v, self.u, self.tile
        if not (_static(ranges[v][0], 0) and _static(ranges[v][1], t)):
            return False
        others = [j for j in range(len(ranges)) if j not in (u, v)]
        _nest(self.p.ctx.b, others, ranges, lambda idx: self._columns(idx, *ranges[u]))
        return True

    def _columns(self, idx, lo, hi):
        """Blocks of ``tile`` columns over [lo, hi), then the leftover columns one by one."""
        p, u, v, t = self.p, self.u, self.v, self.tile
        b = p.ctx.b
        with counted_loop(b, lo, hi, I64(t), "tcol") as blocks:
            self._block({**idx, u: blocks.index})
        with counted_loop(b, blocks.index, hi, I64(1), "tleft") as col:
            with counted_loop(b, I64(0), I64(t), I64(1), "trow") as row:
                full = {**idx, u: col.index, v: row.index}
                p.element([full[j] for j in range(len(p.domain))])

    def _block(self, idx):
        p, u, t, s_v = self.p, self.u, self.tile, self.s_v
        b = p.ctx.b
        base = [idx.get(j, I64(0)) for j in range(len(p.domain))]
        plain_idx, _ = p.plain_indices(base)
        extent = p.ctx.sizes.get(p.plain.shape[s_v])
        vty = ir.VectorType(storage_type(p.plain.element_type), t)
        align = kir.element_size(p.plain.element_type)
        pad = ir.Constant(vty, [p.pad] * t)
        rows = []
        for i in range(t):
            row = b.add(plain_idx[s_v], I64(i))
            ok = b.icmp_unsigned("<", row, extent)
            at = list(plain_idx)
            at[s_v] = b.select(ok, row, plain_idx[s_v])
            value = b.load(p.linear(p.plain, at), typ=vty, align=align)
            rows.append(b.select(ok, value, pad))
        for w, column in enumerate(transpose(b, rows)):
            at = list(base)
            at[u] = b.add(base[u], I64(w))
            b.store(column, p.linear(p.packed, at), align=align)


def vector_plan(plan):
    """The RowCopy or TileTranspose emitter for RelayoutPlan ``plan``, or None."""
    return RowCopy.match(plan) or TileTranspose.match(plan)
