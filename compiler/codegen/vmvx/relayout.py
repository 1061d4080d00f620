"""kernel_ir.Pack / Unpack of any rank and layout -> bytecode loops over the packed layout.

The vmvx pack/unpack microkernels cover 2-D data tiling with contiguous rows (data_tiling.py);
everything else (batch dims, 1-D or 3-D tilings, permuted outer dims beyond 2-D, strided
views) comes here. Both ops walk the packed operand's dims: ``r`` outer dims (permuted by
``outer_dims_perm``) then one inner dim per entry of ``inner_dims_pos``; plain dim ``s`` of
packed index (o..., i...) is ``o_s * tile_s + i_s`` when ``s`` is tiled, else ``o_s``. Pack
writes the plain element when it exists and ``padding_value`` (0 when absent) otherwise;
Unpack writes only the plain elements that exist. Elements are copied as stored bits (an
integer load/store of the element width), so NaN payloads and -0.0 survive.

The workgroup's tile restricts the packed operand's outer dims (kernel_ir.Distribution for
Pack and Unpack). Static layouts that disagree with the tiling (inner extents other than the
tiles, outer extents other than ``ceildiv(plain, tile)``) are CompileErrors; every element
access is bounds-checked by the VM.
Source: MLIR linalg.pack / linalg.unpack semantics (LinalgOps.td); IREE's generic
(non-ukernel) pack/unpack lowering to loops (``GeneralizeLinalgOps`` /
``DecomposePackUnPackOps``).
"""
from rt.compiler.codegen import kernel_ir
from rt.compiler.codegen.vmvx.loop_nest import tile_ranges
from rt.compiler.codegen.vmvx.ukernels import const_bits
from rt.runtime.errors import CompileError

_LOAD = {1: "buffer_load_i8_u", 2: "buffer_load_i16_u", 4: "buffer_load_i32", 8: "buffer_load_i64"}
_STORE = {1: "buffer_store_i8", 2: "buffer_store_i16", 4: "buffer_store_i32", 8: "buffer_store_i64"}


def _ceildiv(a, b):
    return -(-a // b)


def check_relayout(op, packed, plain, where):
    """(perm, {plain dim: inner position}) after validating ranks, permutation and static extents."""
    r, t = len(plain.shape), len(op.inner_dims_pos)
    if plain.element_type in kernel_ir.PACKED:
        raise CompileError(f"vmvx codegen: {where}: {plain.element_type} elements are packed several to a "
                           "byte; pack/unpack of packed types is not supported (widen with arith.extsi first)")
    if packed.element_type != plain.element_type:
        raise CompileError(f"vmvx codegen: {where}: element types {op.source.element_type} and "
                           f"{op.dest.element_type} differ")
    if len(packed.shape) != r + t or len(op.inner_tiles) != t:
        raise CompileError(f"vmvx codegen: {where}: packed rank {len(packed.shape)} must be plain rank {r} + "
                           f"{t} tiles ({len(op.inner_tiles)} given)")
    perm = tuple(op.outer_dims_perm) if op.outer_dims_perm is not None else tuple(range(r))
    pos = tuple(op.inner_dims_pos)
    if sorted(perm) != list(range(r)) or len(set(pos)) != t or any(not 0 <= p < r for p in pos):
        raise CompileError(f"vmvx codegen: {where}: outer_dims_perm {perm} / inner_dims_pos {pos} are not valid "
                           f"for rank {r}")
    inner_of = {s: q for q, s in enumerate(pos)}
    for q, tile in enumerate(op.inner_tiles):
        if isinstance(tile, int) and tile < 1:
            raise CompileError(f"vmvx codegen: {where}: inner tile {tile} must be >= 1")
        if isinstance(tile, int) and isinstance(packed.shape[r + q], int) and packed.shape[r + q] != tile:
            raise CompileError(f"vmvx codegen: {where}: inner dim {q} of the packed view has extent "
                               f"{packed.shape[r + q]}, expected the tile {tile}")
    for j, s in enumerate(perm):
        outer, size = packed.shape[j], plain.shape[s]
        if s in inner_of:
            tile = op.inner_tiles[inner_of[s]]
            want = _ceildiv(size, tile) if isinstance(size, int) and isinstance(tile, int) else None
        else:
            want = size if isinstance(size, int) else None
        if want is not None and isinstance(outer, int) and outer != want:
            raise CompileError(f"vmvx codegen: {where}: outer dim {j} of the packed view has extent {outer}, "
                               f"expected {want} for plain dim {s} of extent {size}")
    return perm, inner_of


def emit_relayout(em, op, op_index):
    """Emit Pack or Unpack ``op`` (op ``op_index``) as scalar loops over the packed layout."""
    is_pack = isinstance(op, kernel_ir.Pack)
    where = f"kernel {em.kernel.name!r} op {op_index} ({'pack' if is_pack else 'unpack'})"
    packed, plain = (op.dest, op.source) if is_pack else (op.source, op.dest)
    perm, inner_of = check_relayout(op, packed, plain, where)
    r = len(plain.shape)
    esize = kernel_ir.element_size(plain.element_type)
    fb = em.fb
    tiles = [em.size(t) for t in op.inner_tiles]
    sizes = [em.size(s) for s in plain.shape]
    ranges = tile_ranges(em, op_index, [em.size(s) for s in packed.shape], "pack" if is_pack else "unpack")
    (p_off, p_strides), (q_off, q_strides) = em.layout(packed), em.layout(plain)
    p_buf, q_buf = em.buffer(packed), em.buffer(plain)
    wide = esize == 8
    pad = None
    if is_pack:
        pad = fb.reg("i64" if wide else "i32")
        bits = const_bits(plain.element_type, op.padding_value if op.padding_value is not None else 0)
        (fb.const_i64 if wide else fb.const_i32)(pad, bits)
    scale, zero = em.reg(esize), em.reg(0)
    size_regs = [em.reg(s) for s in sizes]
    tile_regs = [em.reg(t) for t in tiles]

    def element(idx):
        inside = fb.reg("i32")
        fb.const_i32(inside, 1)
        plain_idx = [None] * r
        for j, s in enumerate(perm):
            index = idx[j]
            if s in inner_of:
                q = inner_of[s]
                index = em.reg(em.add(em.mul(index, tile_regs[q]), idx[r + q]))
                ok = fb.reg("i32")
                fb.cmp_lt_i64_u(ok, index, size_regs[s])
                fb.and_i32(inside, inside, ok)
            plain_idx[s] = index
        p_at = em.reg(em.mul(_linear(em, p_off, p_strides, idx), scale))
        value = fb.reg("i64" if wide else "i32")
        if is_pack:
            clamped = []
            for index in plain_idx:
                c = fb.reg("i64")
                fb.select_i64(c, inside, index, zero)
                clamped.append(c)
            getattr(fb, _LOAD[esize])(value, q_buf, em.reg(em.mul(_linear(em, q_off, q_strides, clamped), scale)))
            (fb.select_i64 if wide else fb.select_i32)(value, inside, value, pad)
            getattr(fb, _STORE[esize])(p_buf, p_at, value)
            return
        store, skip = fb.label("unpack_store"), fb.label("unpack_skip")
        fb.cond_br(inside, store, skip)
        fb.bind(store)
        getattr(fb, _LOAD[esize])(value, p_buf, p_at)
        getattr(fb, _STORE[esize])(q_buf, em.reg(em.mul(_linear(em, q_off, q_strides, plain_idx), scale)), value)
        fb.br(skip)
        fb.bind(skip)

    def loops(d, idx):
        if d == len(ranges):
            element(idx)
            return
        lo, hi = ranges[d]
        with em.loop(lo, hi) as i:
            loops(d + 1, idx + [i])

    loops(0, [])


def _linear(em, offset, strides, indices):
    """``offset + sum(index * stride)`` (ints or i64 registers)."""
    total = offset
    for index, stride in zip(indices, strides):
        total = em.add(total, em.mul(index, stride))
    return total
