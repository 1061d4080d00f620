"""Mmt4d, Pack and Unpack (IREE's data-tiling ops) -> vmvx mmt4d / pack / unpack calls.

Loop dims used by the Distribution (kernel_ir: the iteration domains of IREE's
TilingInterface for these ops): Mmt4d ``d0 = m1, d1 = n1`` (k1 is never split); Pack and
Unpack: the outer dims of the *packed* operand as stored (after outer_dims_perm), so a
workgroup owns whole tiles and writes disjoint plain elements.

Layout requirements: the microkernels read the innermost data-tiled dims contiguously
(mmt4d: the inner three dims of each operand; pack/unpack: 2-D plain views with unit-stride
rows and contiguous packed tiles). An Mmt4d that breaks them, has other element types, or any
Mmt4d when microkernels are off, is lowered as the equivalent Generic (fill + contraction,
inputs converted to the output type as linalg.matmul does); any other Pack/Unpack (batch
dims, 1-D or 3-D tilings, strided views) runs as bytecode loops (relayout.py).
Source: iree_uk_mmt4d / iree_uk_pack / iree_uk_unpack as called by IREE's VMVX lowering
(compiler/src/iree/compiler/Dialect/VMVX/Transforms/LowerLinalgMicrokernels.cpp).
"""
from rt.compiler.codegen import kernel_ir
from rt.compiler.codegen.kernel_ir import AffineExpr, Generic, Opcode, ScalarOp
from rt.compiler.codegen.vmvx.generic import emit_generic
from rt.compiler.codegen.vmvx.loop_nest import extent, tile_ranges
from rt.compiler.codegen.vmvx.relayout import check_relayout, emit_relayout
from rt.compiler.codegen.vmvx.ukernels import const_bits
from rt.devices.vmvx import _ukernels as uk
from rt.devices.vmvx.module import MMT4D_CCONV, PACK_CCONV, UNPACK_CCONV
from rt.runtime.errors import CompileError

_MMT4D_TYPES = {("f32", "f32", "f32"): "f32f32f32", ("i8", "i8", "i32"): "i8i8i32"}


def _contiguous_inner(em, view, inner):
    """Whether the dims after the first ``len(view.shape) - inner`` are contiguous row-major."""
    if view.strides is None:
        return True
    want = 1
    for dim, stride in zip(reversed(view.shape), reversed(view.strides)):
        if inner == 0:
            break
        if stride != want:
            return False
        want = dim * want if isinstance(dim, int) and isinstance(want, int) else None
        inner -= 1
    return True


def _rank(em, view, rank, what, where):
    if len(view.shape) != rank:
        raise CompileError(f"vmvx codegen: {where}: {what} must be a rank-{rank} view, got shape {view.shape!r}")


def emit_mmt4d(em, op, op_index, use_ukernels=True):
    where = f"kernel {em.kernel.name!r} op {op_index} (mmt4d)"
    for view, what in ((op.lhs, "lhs"), (op.rhs, "rhs"), (op.out, "out")):
        _rank(em, view, 4, what, where)
    types = (op.lhs.element_type, op.rhs.element_type, op.out.element_type)
    name = _MMT4D_TYPES.get(types)
    fits = all(_contiguous_inner(em, v, 3) for v in (op.lhs, op.rhs, op.out))
    if not (use_ukernels and fits and name):
        for g in _mmt4d_as_generics(op, types, where):
            emit_generic(em, g, op_index, use_ukernels)
        return
    m1, k1, m0, k0 = (em.size(s) for s in op.lhs.shape)
    n1, _, n0, _ = (em.size(s) for s in op.rhs.shape)
    (m_lo, m_hi), (n_lo, n_hi), _ = tile_ranges(em, op_index, [m1, n1, k1], "mmt4d")
    (lo, ls), (ro, rs), (oo, os_) = (em.layout(v) for v in (op.lhs, op.rhs, op.out))
    fb = em.fb
    imp = fb.module.import_function(f"vmvx.mmt4d.{name}", MMT4D_CCONV)
    args = [em.buffer(op.lhs), em.reg(em.add(lo, em.mul(m_lo, ls[0]))), em.reg(ls[0]),
            em.buffer(op.rhs), em.reg(em.add(ro, em.mul(n_lo, rs[0]))), em.reg(rs[0]),
            em.buffer(op.out),
            em.reg(em.add(oo, em.add(em.mul(m_lo, os_[0]), em.mul(n_lo, os_[1])))),
            em.reg(os_[0]), em.reg(extent(em, (m_lo, m_hi))), em.reg(extent(em, (n_lo, n_hi))), em.reg(k1),
            em.i32(m0), em.i32(n0), em.i32(k0), em.i32(uk.FLAG_ACCUMULATE if op.accumulate else 0)]
    fb.call_import(imp, args, [])


def _mmt4d_as_generics(op, types, where):
    """The Generic(s) computing ``op``: an optional zero fill, then the 6-loop contraction with
    kernel_ir.mmt4d_body."""
    d = AffineExpr.dim
    out_t = types[2]
    if out_t == "i1" or any(t not in kernel_ir.NARROW_FLOATS + ("f32", "f64", "i8", "i16", "i32", "i64")
                            for t in types):
        raise CompileError(f"vmvx codegen: {where}: element types {types!r} are not supported; expected "
                           f"float or i8-i64 operands")
    body = kernel_ir.mmt4d_body(*types)
    float_ = kernel_ir.is_float(out_t)
    m1, k1, m0, k0 = op.lhs.shape
    n1, n0 = op.rhs.shape[0], op.rhs.shape[2]
    gens = []
    if not op.accumulate:
        zero = 0.0 if float_ else 0
        gens.append(Generic((m1, n1, m0, n0), ("parallel",) * 4, (), (op.out,),
                            ((d(0), d(1), d(2), d(3)),), (ScalarOp(Opcode.CONSTANT, (), out_t, (("value", zero),)),),
                            (1,), "fill"))
    gens.append(Generic((m1, n1, k1, m0, n0, k0), ("parallel", "parallel", "reduction", "parallel", "parallel",
                                                   "reduction"),
                        (op.lhs, op.rhs), (op.out,),
                        ((d(0), d(2), d(3), d(5)), (d(1), d(2), d(4), d(5)), (d(0), d(1), d(3), d(4))),
                        tuple(body), (3 + len(body) - 1,), "mmt4d"))
    return gens


def _ukernel_tiles(em, op, packed, plain):
    """(tile per plain dim, flags, outer dims swapped, stored inner sizes) when ``op`` is a 2-D
    data tiling the pack/unpack microkernels take (contiguous rows and packed tiles), else None."""
    pos = tuple(op.inner_dims_pos)
    perm = tuple(op.outer_dims_perm) if op.outer_dims_perm is not None else (0, 1)
    if len(plain.shape) != 2 or pos not in ((0,), (1,), (0, 1), (1, 0)) or perm not in ((0, 1), (1, 0)):
        return None
    if not (_contiguous_inner(em, plain, 1) and _contiguous_inner(em, packed, len(packed.shape) - 1)):
        return None
    t = [1, 1]
    for p, tile in zip(pos, op.inner_tiles):
        t[p] = em.size(tile)
    flags = (uk.FLAG_TRANSPOSE_INNER if pos == (1, 0) else 0) | (uk.FLAG_TRANSPOSE_OUTER if perm == (1, 0) else 0)
    stored_inner = [t[p] for p in pos] if len(pos) == 2 else ([1, t[1]] if pos == (1,) else [t[0], 1])
    return t, flags, perm == (1, 0), stored_inner


def emit_pack(em, op, op_index):
    where = f"kernel {em.kernel.name!r} op {op_index} (pack)"
    check_relayout(op, op.dest, op.source, where)
    tiling = _ukernel_tiles(em, op, op.dest, op.source)
    if tiling is None:
        emit_relayout(em, op, op_index)
        return
    t, flags, swap, stored_inner = tiling
    src_shape = [em.size(s) for s in op.source.shape]
    ranges = tile_ranges(em, op_index, [em.size(s) for s in op.dest.shape[:2]], "pack")
    by_src = ranges[::-1] if swap else ranges
    starts = [em.mul(by_src[s][0], t[s]) for s in (0, 1)]
    sizes = [em.smax(em.sub(em.smin(em.mul(by_src[s][1], t[s]), src_shape[s]), starts[s]), 0) for s in (0, 1)]
    (so, ss), (do, ds) = em.layout(op.source), em.layout(op.dest)
    esize = kernel_ir.element_size(op.source.element_type)
    padding = const_bits(op.source.element_type, op.padding_value if op.padding_value is not None else 0)
    fb = em.fb
    imp = fb.module.import_function(f"vmvx.pack.x{esize * 8}", PACK_CCONV)
    in_off = em.add(so, em.add(em.mul(starts[0], ss[0]), starts[1]))
    out_off = em.add(do, em.add(em.mul(ranges[0][0], ds[0]), em.mul(ranges[1][0], ds[1])))
    pad = fb.reg("i64")
    fb.const_i64(pad, padding)
    args = [em.buffer(op.source), em.reg(in_off), em.reg(ss[0]),
            em.buffer(op.dest), em.reg(out_off), em.reg(ds[0]),
            em.reg(sizes[0]), em.reg(sizes[1]), em.reg(extent(em, ranges[0])), em.reg(extent(em, ranges[1])),
            em.reg(stored_inner[0]), em.reg(stored_inner[1]), pad, em.i32(flags)]
    fb.call_import(imp, args, [])


def emit_unpack(em, op, op_index):
    where = f"kernel {em.kernel.name!r} op {op_index} (unpack)"
    check_relayout(op, op.source, op.dest, where)
    tiling = _ukernel_tiles(em, op, op.source, op.dest)
    if tiling is None:
        emit_relayout(em, op, op_index)
        return
    t, flags, swap, stored_inner = tiling
    plain = [em.size(s) for s in op.dest.shape]
    ranges = tile_ranges(em, op_index, [em.size(s) for s in op.source.shape[:2]], "unpack")
    by_plain = ranges[::-1] if swap else ranges
    starts = [em.mul(by_plain[s][0], t[s]) for s in (0, 1)]
    out_sizes = [em.smax(em.sub(em.smin(em.mul(by_plain[s][1], t[s]), plain[s]), starts[s]), 0) for s in (0, 1)]
    (so, ss), (do, ds) = em.layout(op.source), em.layout(op.dest)
    esize = kernel_ir.element_size(op.dest.element_type)
    fb = em.fb
    imp = fb.module.import_function(f"vmvx.unpack.x{esize * 8}", UNPACK_CCONV)
    in_off = em.add(so, em.add(em.mul(ranges[0][0], ss[0]), em.mul(ranges[1][0], ss[1])))
    out_off = em.add(do, em.add(em.mul(starts[0], ds[0]), starts[1]))
    args = [em.buffer(op.source), em.reg(in_off), em.reg(ss[0]),
            em.buffer(op.dest), em.reg(out_off), em.reg(ds[0]),
            em.reg(extent(em, ranges[0])), em.reg(extent(em, ranges[1])), em.reg(stored_inner[0]),
            em.reg(stored_inner[1]), em.reg(out_sizes[0]), em.reg(out_sizes[1]), em.i32(flags)]
    fb.call_import(imp, args, [])
