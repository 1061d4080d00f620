"""The float mmt4d kernel: OUT += LHS * RHS^T on data-tiled (packed) operands.

Layouts as in ``linalg.mmt4d`` and IREE's mmt4d ukernel (runtime/src/iree/builtins/ukernel/
mmt4d.h), with all tiles contiguous:

- LHS [M1, K1, M0, K0], RHS [N1, K1, N0, K0], OUT [M1, N1, M0, N0], f32.
- OUT[m1, n1, m0, n0] (+)= sum over k1, k0 of LHS[m1, k1, m0, k0] * RHS[n1, k1, n0, k0].

Export ABI:

- bindings: 0 = LHS, 1 = RHS, 2 = OUT (OUT must not alias LHS or RHS).
- push constants: [0] = M1, [1] = N1, [2] = K1, [3] = flags (bit 0: accumulate into OUT;
  otherwise OUT is overwritten). Other flag bits -> ``abi.STATUS_INVALID_ARGUMENT``.
- workgroups: x splits N1, y splits M1 into equal ranges (any counts work; a natural grid is
  (N1, M1, 1)); z must be 1.
- returns ``abi.STATUS_OUT_OF_RANGE`` when a binding is smaller than its shape.

The inner tile keeps M0 accumulators of <N0 x f32> in registers (16 zmm for 16x16x1 on
AVX-512); per k1 step it loads one RHS row (N0 x K0) and broadcasts each LHS element, which
LLVM folds into ``vfmadd231ps zmm, zmm, dword ptr [..]{1to16}``. f16 operands (Kernel IR
``f16xf16->f32`` / ``f16xf16->f16``) take the same loops: each RHS row and LHS row is widened
once per k1 step (``vcvtph2ps`` with F16C; bf16 by a shift), LHS lanes are broadcast from the
widened row. An f32 OUT accumulates with fused multiply-adds; an f16 OUT accumulates in f16
(the running sum rounded at every step: the accumulator is the output's type, as IREE's f16
ukernel computes it and its large_linalg_matmul f16 test expects: 2048 x 0.01 sums to 20.28,
not 20.48). Integer operands: mmt4d_int.py.
"""
import functools

from llvmlite import ir

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import intrinsics, mmt4d_dot, mmt4d_int
from rt.compiler.codegen.llvm_cpu.buffers import opaque
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.half import f16_bits_to_f32, f32_to_f16_bits
from rt.compiler.codegen.llvm_cpu.interface import F32, I32, I64, KernelInterface
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.relayout_vector import TRANSPOSE_TILES, transpose
from rt.compiler.codegen.llvm_cpu.small_float import from_float, round_f32_to_bf16
from rt.compiler.codegen.llvm_cpu.views import domain_nonempty, extent_out_of_range, storage_type
from rt.compiler.targets.cpu_families import family_of
from rt.devices.llvm_cpu import abi
from rt.runtime.errors import CompileError, InvalidArgumentError

FLAG_ACCUMULATE = 1
I16 = ir.IntType(16)

#: (LHS, RHS, OUT) element types of the register-tiled float kernel.
FLOAT_TYPES = (("f32", "f32", "f32"), ("f16", "f16", "f32"), ("f16", "f16", "f16"),
               ("bf16", "bf16", "f32"), ("bf16", "bf16", "bf16"))


def default_tile(target):
    """(M0, N0, K0) for ``target``: its CPU family's f32 tile (compiler/targets/cpu_families)."""
    return family_of(target).f32_tile


@functools.lru_cache(maxsize=None)
def _splat_operands(scalar_type, count):
    """(undef ``<count x scalar_type>``, zero i32 shuffle mask): constants shared by every splat,
    so that llvmlite builds and prints each once instead of once per splat (a tile of an
    unrolled mmt4d kernel makes hundreds; the IR text is unchanged)."""
    return (ir.Constant(ir.VectorType(scalar_type, count), ir.Undefined),
            ir.Constant(ir.VectorType(I32, count), [0] * count))


def _splat(b, scalar, count):
    undef, mask = _splat_operands(scalar.type, count)
    return b.shuffle_vector(b.insert_element(undef, scalar, I32(0)), undef, mask)


def _range(b, total, count, index):
    """[begin, end) of part ``index`` of ``count`` equal parts of ``total`` (i64 values)."""
    per = b.udiv(b.add(total, b.sub(count, I64(1))), count)
    begin = b.mul(index, per)
    begin = b.select(b.icmp_unsigned("<", begin, total), begin, total)
    end = b.add(begin, per)
    return begin, b.select(b.icmp_unsigned("<", end, total), end, total)


def emit_mmt4d(library, name, m0, n0, k0):
    """Add export ``name`` computing an f32 mmt4d with M0xN0xK0 tiles; returns its ordinal.

    Raises InvalidArgumentError unless 1 <= m0, n0, k0 and m0 * n0 <= 1024.
    """
    if min(m0, n0, k0) < 1 or m0 * n0 > 1024:
        raise InvalidArgumentError(f"mmt4d tile {m0}x{n0}x{k0}: sizes must be >= 1 with "
                                   f"M0*N0 <= 1024")
    fn = library.declare_export(name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    k = KernelInterface(b, fn)
    m1_total, n1_total, k1_total, flags = (k.constant(i) for i in range(4))
    with b.if_then(b.icmp_unsigned("!=", b.and_(flags, I64(~FLAG_ACCUMULATE)), I64(0)),
                   likely=False):
        b.ret(I32(abi.STATUS_INVALID_ARGUMENT))
    i128 = ir.IntType(128)
    wide = [b.zext(v, i128) for v in (m1_total, n1_total, k1_total)]
    needs = ((0, wide[0], wide[2], m0 * k0), (1, wide[1], wide[2], n0 * k0),
             (2, wide[0], wide[1], m0 * n0))
    too_small = ir.Constant(ir.IntType(1), 0)
    for binding, a, c, tile in needs:
        need = b.mul(b.mul(a, c), ir.Constant(i128, 4 * tile))
        have = b.zext(k.binding_length(binding), i128)
        too_small = b.or_(too_small, b.icmp_unsigned("<", have, need))
    with b.if_then(too_small, likely=False):
        b.ret(I32(abi.STATUS_OUT_OF_RANGE))
    accumulate = b.icmp_unsigned("!=", b.and_(flags, I64(FLAG_ACCUMULATE)), I64(0))
    n_range = _range(b, n1_total, k.workgroup_count(0), k.workgroup_id(0))
    m_range = _range(b, m1_total, k.workgroup_count(1), k.workgroup_id(1))
    emit_tiles(b, (k.binding(0), k.binding(1), k.binding(2)), m_range, n_range,
               packed_strides(b, (k1_total, k1_total, n1_total), (m0, n0, k0)), k1_total,
               (m0, n0, k0), accumulate)
    b.ret(I32(abi.STATUS_OK))
    return library.add_export(fn, binding_count=3, constant_count=4)


def _f16_to_f32(b, bits, f16c):
    """<N x i16> f16 bit patterns -> <N x float>: ``vcvtph2ps`` with F16C, else integer IR."""
    if not f16c:
        return f16_bits_to_f32(b, bits)
    n = bits.type.count
    return b.fpext(b.bitcast(bits, ir.VectorType(ir.HalfType(), n)), ir.VectorType(F32, n))


def _f32_to_f16(b, value, f16c):
    """<N x float> -> <N x i16> f16 bits, ties to even: ``vcvtps2ph`` with F16C, else integer IR."""
    if not f16c:
        return f32_to_f16_bits(b, value)
    n = value.type.count
    return b.bitcast(b.fptrunc(value, ir.VectorType(ir.HalfType(), n)), ir.VectorType(I16, n))


def _bf16_to_f32(b, bits):
    """<N x i16> bf16 bit patterns -> <N x float> (exact: the bits are the high half)."""
    wide = ir.VectorType(I32, bits.type.count)
    return b.bitcast(b.shl(b.zext(bits, wide), ir.Constant(wide, [I32(16)] * bits.type.count)),
                     ir.VectorType(F32, bits.type.count))


def packed_strides(b, outer_strides, tile):
    """emit_tiles' ``strides`` for contiguous packed operands: ``outer_strides`` = (K1 of LHS,
    K1 of RHS, N1 of OUT) as i64 values, tile = static (M0, N0, K0)."""
    lhs_k1, rhs_k1, out_n1 = outer_strides
    m0, n0, k0 = tile
    return ((b.mul(lhs_k1, I64(m0 * k0)), I64(m0 * k0), I64(k0)),
            (b.mul(rhs_k1, I64(n0 * k0)), I64(n0 * k0), I64(n0)),
            (b.mul(out_n1, I64(m0 * n0)), I64(m0 * n0), I64(n0)))


def emit_tiles(b, pointers, m_range, n_range, strides, k1_total, tile, accumulate,
               types=("f32", "f32"), f16c=False, rhs_k_major=False, bounds=None,
               lhs_panel=None):
    """Emit the loops computing OUT tiles (m1, n1) for m1, n1 in the given [begin, end) ranges.

    pointers: (lhs, rhs, out) element-0 pointers; strides: i64 element strides
    ((LHS m1, k1, m0), (RHS n1, k1, kk), (OUT m1, n1, m0)) -- ``packed_strides`` for contiguous
    packed operands; the innermost dims are contiguous (LHS k0, RHS n0 [and k0], OUT n0), the
    RHS kk stride (between the K0 rows of a K0-major tile) is used with rhs_k_major only.
    k1_total: i64 reduction length; tile: static (M0, N0, K0); accumulate: i1 (False
    overwrites OUT); types: (input, output) element types: inputs ``f32``, ``f16`` or
    ``bf16`` (widened exactly on load), OUT ``f32``, ``f16`` or ``bf16``. The accumulator is
    OUT's type: an f16 / bf16 OUT rounds the running sum at every step (the product of two
    such inputs is exact in f32), as IREE's mmt4d ukernels do without
    skip-intermediate-roundings; an f32 OUT uses fused multiply-adds. f16c: the target has F16C
    (hardware conversions); rhs_k_major: each RHS tile is stored K0 rows of N0 (the
    ``[N1, K, N0]`` bytes of a K0 = 1 packing read with a wider LHS K0, or a row-major
    ``[K, N]`` matrix viewed in place), so every kk column is one contiguous vector.

    bounds: None, or (M, N, out_masked) for f32 operands some of which are row-major matrices
    viewed in place (not padded to whole tiles): i64 M, N, the logical extents. Tiles reaching
    past them (the last row / column of tiles) take a second copy of the loops that never
    reads past row M - 1 of the LHS (rows beyond count as zero) nor past column N - 1 of the
    RHS (masked loads, zero lanes); out_masked (bool): OUT is such a view too, so those tiles
    load and store only the rows < M and columns < N (else whole tiles are written, the
    padding as zeros, as a packed OUT needs).

    lhs_panel (None, or (the i64 count of m1 packed together, ``panel_block``, and the target's
    ``cpu_families.CpuFamily``); needs ``bounds`` and K0 = 1): the LHS is a row-major
    ``A[M, K]`` viewed in place (strides ``(M0*K, 1, K, 1)``). Broadcasting from M0 rows a row
    apart is slow (their
    elements share L1 sets: 2x at K = 1024), so, as GotoBLAS's macro-kernel does, the M0-row
    panels of ``lhs_panel`` m1 at a time are first packed into a stack buffer (rows past M as
    zeros; K in chunks of the family's ``panel_k``, OUT accumulating after the first) by
    ``emit_panel_pack``, and the tiles of the range read that (``_emit_panel_tiles``). Every
    m1 packs its panel once per call of this function, so callers give it long n ranges
    (``Mmt4dPlan`` regroups the workgroups).
    """
    if lhs_panel is not None:
        _emit_panel_tiles(b, pointers, m_range, n_range, strides, k1_total, tile, accumulate,
                          bounds, rhs_k_major, lhs_panel)
        return
    lhs, rhs, out = pointers
    (lhs_m1, lhs_k1, lhs_m0), (rhs_n1, rhs_k1, rhs_kk), (out_m1, out_n1, out_m0) = strides
    m0, n0, k0 = tile
    half_in, half_out = types[0] in ("f16", "bf16"), types[1] in ("f16", "bf16")
    if bounds is not None and (half_in or half_out):
        raise CompileError("llvm-cpu mmt4d: bounded (in-place) operands must be f32")
    in_ty, out_ty = (I16 if half_in else F32), (I16 if half_out else F32)
    acc_ty = ir.VectorType(F32, n0)
    zero = ir.Constant(acc_ty, [ir.Constant(F32, 0.0)] * n0)

    def gep(base, offset, ty=F32):
        return b.gep(base, [offset], inbounds=True, source_etype=ty)

    def load(ptr, ty, count, half, kind):
        value = b.load(ptr, typ=ir.VectorType(ty, count), align=2 if half else 4)
        if kind == "bf16":
            return _bf16_to_f32(b, value)
        return _f16_to_f32(b, value, f16c) if half else value

    def narrow(value):
        if types[1] == "bf16":
            return from_float(b, value, "bf16")
        return _f32_to_f16(b, value, f16c)

    def round_out(value):
        if types[1] == "bf16":
            return round_f32_to_bf16(b, value)
        return _f16_to_f32(b, _f32_to_f16(b, value, f16c), f16c)

    def emit_tile(lhs_panel, rhs_panel, tile_ptr, edge):
        """One OUT tile; edge: (rows, cols mask) of a tile reaching past the bounds."""
        rows = None if edge is None else edge[0]
        lhs_rows, out_rows, valid = [], [], []
        for r in range(m0):
            if rows is None:
                lhs_rows.append(gep(lhs_panel, I64(r) if r == 0 else b.mul(lhs_m0, I64(r)),
                                    in_ty))
                out_rows.append(gep(tile_ptr, b.mul(out_m0, I64(r)), out_ty))
                continue
            ok = b.icmp_signed("<", I64(r), rows)
            clamped = b.select(ok, I64(r), b.sub(rows, I64(1)))
            valid.append(ok)
            lhs_rows.append(gep(lhs_panel, b.mul(lhs_m0, clamped), in_ty))
            out_rows.append(gep(tile_ptr, b.mul(out_m0, clamped if bounds[2] else I64(r)),
                                out_ty))
        init = []
        for r in range(m0):
            if rows is not None and bounds[2]:
                row = intrinsics.masked_load(b, out_rows[r], 4, edge[1], zero)
            else:
                row = load(out_rows[r], out_ty, n0, half_out, types[1])
            init.append(b.select(accumulate, row, zero))

        def rhs_vector(ptr, count):
            if edge is not None and count == n0:
                return intrinsics.masked_load(b, ptr, 4, edge[1], zero)
            return load(ptr, in_ty, count, half_in, types[0])

        with counted_loop(b, I64(0), k1_total, I64(1), "k1", carried=init) as lk:
            rhs_tile = gep(rhs_panel, b.mul(lk.index, rhs_k1), in_ty)
            rhs_v = None if rhs_k_major else rhs_vector(rhs_tile, n0 * k0)
            lhs_off = b.mul(lk.index, lhs_k1)
            lhs_v = None
            if half_in:
                lhs_v = load(gep(lhs_rows[0], lhs_off, in_ty), in_ty, m0 * k0, True, types[0])
            acc = list(lk.carried)
            for kk in range(k0):
                if rhs_k_major:
                    col = rhs_vector(gep(rhs_tile, b.mul(rhs_kk, I64(kk)), in_ty), n0)
                elif k0 == 1:
                    col = rhs_v
                else:
                    lanes = ir.Constant(ir.VectorType(I32, n0),
                                        [n * k0 + kk for n in range(n0)])
                    col = b.shuffle_vector(rhs_v, ir.Constant(rhs_v.type, ir.Undefined),
                                           lanes)
                for r in range(m0):
                    if half_in:
                        a = b.shuffle_vector(lhs_v, ir.Constant(lhs_v.type, ir.Undefined),
                                             ir.Constant(ir.VectorType(I32, n0),
                                                         [r * k0 + kk] * n0))
                    else:
                        a = b.load(gep(lhs_rows[r], b.add(lhs_off, I64(kk))), typ=F32, align=4)
                        if rows is not None:
                            a = b.select(valid[r], a, ir.Constant(F32, 0.0))
                        a = _splat(b, a, n0)
                    acc[r] = intrinsics.call(b, "fmuladd", a, col, acc[r])
                    if half_out:  # the accumulator is OUT's type: rounded every step
                        acc[r] = round_out(acc[r])
            lk.next_carried = acc
        for r in range(m0):
            value = lk.carried[r]
            if half_out:
                value = narrow(value)
            if rows is not None and bounds[2]:
                with b.if_then(valid[r]):
                    intrinsics.masked_store(b, value, out_rows[r], 4, edge[1])
            else:
                b.store(value, out_rows[r], align=2 if half_out else 4)

    with counted_loop(b, m_range[0], m_range[1], I64(1), "m1") as lm:
        lhs_panel = gep(lhs, b.mul(lm.index, lhs_m1), in_ty)
        with counted_loop(b, n_range[0], n_range[1], I64(1), "n1") as ln:
            rhs_panel = gep(rhs, b.mul(ln.index, rhs_n1), in_ty)
            tile_ptr = gep(out, b.add(b.mul(lm.index, out_m1), b.mul(ln.index, out_n1)), out_ty)
            if bounds is None:
                emit_tile(lhs_panel, rhs_panel, tile_ptr, None)
            else:
                rows = b.sub(bounds[0], b.mul(lm.index, I64(m0)))
                cols = b.sub(bounds[1], b.mul(ln.index, I64(n0)))
                full = b.and_(b.icmp_signed(">=", rows, I64(m0)),
                              b.icmp_signed(">=", cols, I64(n0)))
                with b.if_else(full, likely=True) as (then, otherwise):
                    with then:
                        emit_tile(lhs_panel, rhs_panel, tile_ptr, None)
                    with otherwise:
                        emit_tile(lhs_panel, rhs_panel, tile_ptr,
                                  (rows, intrinsics.lane_mask(b, cols, n0)))


def _stack_buffer(b, ty, count):
    """A stack array of ``count`` ``ty`` allocated once, in the function's entry block (an
    alloca elsewhere would grow the stack on every pass of the loop it sits in)."""
    here = b.block
    entry = b.function.entry_basic_block
    b.position_at_start(entry)
    buf = b.alloca(ty, size=count)
    buf.align = 64
    buf = opaque(b, buf)
    b.position_at_end(here)
    return buf


def emit_panel_pack(b, rows_base, row_stride, rows, k_begin, k_count, m0, buf):
    """Pack ``A[r, k_begin + k]`` for r < M0, k < k_count into ``buf[k * M0 + r]`` (f32).

    rows_base: pointer to the panel's first row; row_stride: i64 elements between rows;
    rows: i64 rows of the panel inside the matrix (rows r >= rows read row ``rows - 1`` and
    store zeros, so nothing past the matrix is read). Whole blocks of M0 columns (M0 = 4, 8 or
    16) are loaded as M0 row vectors and transposed in registers (relayout_vector.transpose);
    the remaining columns, and every column for other M0, move one element at a time.
    """
    def gep(base, offset):
        return b.gep(base, [offset], inbounds=True, source_etype=F32)

    valid = [b.icmp_signed("<", I64(r), rows) for r in range(m0)]
    row_ptrs = [gep(rows_base, b.mul(row_stride, b.select(valid[r], I64(r), b.sub(rows, I64(1)))))
                for r in range(m0)]
    whole = I64(0)
    if m0 in TRANSPOSE_TILES:
        vty = ir.VectorType(F32, m0)
        zero = ir.Constant(vty, [ir.Constant(F32, 0.0)] * m0)
        whole = b.mul(b.udiv(k_count, I64(m0)), I64(m0))
        with counted_loop(b, I64(0), whole, I64(m0), "panel") as lp:
            col = b.add(k_begin, lp.index)
            vectors = [b.select(valid[r], b.load(gep(row_ptrs[r], col), typ=vty, align=4), zero)
                       for r in range(m0)]
            for j, column in enumerate(transpose(b, vectors)):
                b.store(column, gep(buf, b.mul(b.add(lp.index, I64(j)), I64(m0))), align=4)
    with counted_loop(b, whole, k_count, I64(1), "panel_rest") as lr:
        col = b.add(k_begin, lr.index)
        for r in range(m0):
            value = b.select(valid[r], b.load(gep(row_ptrs[r], col), typ=F32, align=4),
                             ir.Constant(F32, 0.0))
            b.store(value, gep(buf, b.add(b.mul(lr.index, I64(m0)), I64(r))), align=4)


def panel_block(b, k_total, n, family):
    """i64 rows of tiles an LHS-panel mmt4d packs together for a K x N (i64) RHS: the CPU
    family's ``panel_block`` when the RHS is larger than its ``panel_rhs_bytes``, else 1 (a
    smaller RHS stays in the last-level cache and one row at a time is faster there: 1024^3
    3-5% faster than blocks of 4 on Zen 4)."""
    rhs_bytes = b.mul(b.mul(k_total, n), I64(4))
    return b.select(b.icmp_unsigned(">", rhs_bytes, I64(family.panel_rhs_bytes)),
                    I64(family.panel_block), I64(1))


def _emit_panel_tiles(b, pointers, m_range, n_range, strides, k_total, tile, accumulate, bounds,
                      rhs_k_major, lhs_panel):
    """``emit_tiles`` with ``lhs_panel`` = (block, family), GotoBLAS's loop order: per
    ``block`` m1 of the range (``panel_block``) and per ``family.panel_k`` chunk
    of K (one empty chunk when K = 0, so the tiles still write their zeros or keep OUT), pack
    the block's LHS panels, then for each n1 of the range run the block's tiles, so one RHS
    tile column serves the whole block from cache; OUT accumulates after the first chunk."""
    lhs, rhs, out = pointers
    (lhs_m1, _, lhs_m0), rhs_strides, out_strides = strides
    m0, k0 = tile[0], tile[2]
    if k0 != 1 or bounds is None:
        raise CompileError("llvm-cpu mmt4d: an LHS panel needs K0 = 1 and bounds")
    block, family = lhs_panel
    panel_k = family.panel_k
    buf = _stack_buffer(b, F32, I64(family.panel_block * panel_k * m0))
    block_strides = ((I64(panel_k * m0), I64(m0), I64(1)), rhs_strides, out_strides)
    chunks = b.udiv(b.add(k_total, I64(panel_k - 1)), I64(panel_k))
    chunks = b.select(b.icmp_signed(">", chunks, I64(0)), chunks, I64(1))
    with b.if_then(b.icmp_signed("<", n_range[0], n_range[1])):  # no tiles: no panel to pack
        blocks = b.udiv(b.add(b.sub(m_range[1], m_range[0]), b.sub(block, I64(1))), block)
        with counted_loop(b, I64(0), blocks, I64(1), "mblock") as lb:
            first = b.add(m_range[0], b.mul(lb.index, block))
            left = b.sub(m_range[1], first)
            count = b.select(b.icmp_signed("<", left, block), left, block)
            # the block as m1 = 0 .. count of views moved forward to its first row of tiles
            out_block = b.gep(out, [b.mul(first, out_strides[0])], inbounds=True,
                              source_etype=F32)
            block_bounds = (b.sub(bounds[0], b.mul(first, I64(m0))), bounds[1], bounds[2])
            with counted_loop(b, I64(0), chunks, I64(1), "kc") as lc:
                k_begin = b.mul(lc.index, I64(panel_k))
                rest = b.sub(k_total, k_begin)
                k_count = b.select(b.icmp_signed("<", rest, I64(panel_k)), rest, I64(panel_k))
                with counted_loop(b, I64(0), count, I64(1), "pack") as lp:
                    m1 = b.add(first, lp.index)
                    emit_panel_pack(
                        b, b.gep(lhs, [b.mul(m1, lhs_m1)], inbounds=True, source_etype=F32),
                        lhs_m0, b.sub(bounds[0], b.mul(m1, I64(m0))), k_begin, k_count, m0,
                        b.gep(buf, [b.mul(lp.index, I64(panel_k * m0))], inbounds=True,
                              source_etype=F32))
                rhs_chunk = b.gep(rhs, [b.mul(k_begin, rhs_strides[1])], inbounds=True,
                                  source_etype=F32)
                later = b.or_(accumulate, b.icmp_unsigned("!=", k_begin, I64(0)))
                with counted_loop(b, n_range[0], n_range[1], I64(1), "n1b") as ln:
                    emit_tiles(b, (buf, rhs_chunk, out_block), (I64(0), count),
                               (ln.index, b.add(ln.index, I64(1))), block_strides, k_count,
                               tile, later, rhs_k_major=rhs_k_major, bounds=block_bounds)


def _d(*dims):
    return tuple(kir.AffineExpr.dim(d) for d in dims)


def as_generics(op):
    """``op`` (kernel_ir.Mmt4d) as Generics: an optional zero fill of OUT, then the
    accumulation over domain (M1, N1, K1, M0, N0, K0) with a multiply-add body (operands
    widened to OUT's type: extf for floats, extsi for integers). An f16 OUT computes the
    multiply-add in f32 and rounds the sum once per step (``emit_tiles``' semantics, IREE's
    noskipround f16 ukernel)."""
    lhs, rhs, out = op.lhs, op.rhs, op.out
    domain = (out.shape[0], out.shape[1], lhs.shape[1], lhs.shape[2], rhs.shape[2], lhs.shape[3])
    acc = out.element_type
    body = list(kir.mmt4d_body(lhs.element_type, rhs.element_type, acc))
    ops = []
    if not op.accumulate:
        zero = kir.ScalarOp(kir.Opcode.CONSTANT, (), acc, (("value", 0),))
        ops.append(kir.Generic((domain[0], domain[1], domain[3], domain[4]), ("parallel",) * 4,
                               (), (out,), (_d(0, 1, 2, 3),), (zero,), (1,), "fill"))
    ops.append(kir.Generic(domain, ("parallel", "parallel", "reduction", "parallel", "parallel",
                                    "reduction"),
                           (lhs, rhs), (out,), (_d(0, 2, 3, 5), _d(1, 2, 4, 5), _d(0, 1, 3, 4)),
                           tuple(body), (2 + len(body),), "mmt4d"))
    return ops


class Mmt4dPlan:
    """Emitter for one kernel_ir.Mmt4d: the register-tiled ``emit_tiles`` for contiguous
    f32 / f16 / bf16 operands (``FLOAT_TYPES``) with static inner tiles (the RHS may also be a
    K0-major view: strides ``(K1*N0*K0, N0*K0, 1, N0)``, what a propagated LHS reads), for
    f32 operands also any strided views whose innermost dim is contiguous (LHS k0 unless
    K0 = 1, RHS n0 -- read K0-major --, OUT n0: row-major matrices viewed in place, with the op's
    ``bounds``; an in-place LHS with K0 = 1 is packed panel by panel, ``lhs_panel`` of
    ``emit_tiles``), ``mmt4d_int.emit_int_tiles`` for contiguous i8/i16 -> i32 ones with K0 = 2 or 4,
    ``mmt4d_dot.emit_dot_or`` for the AVX512-BF16 / VNNI tiles (bf16 -> f32 K0 = 2, i8 -> i32
    K0 = 4; on portable AVX-512 targets chosen at run time), else its ``as_generics`` form. An op with ``bounds`` that the tile kernel cannot run is a
    CompileError (its views reach past the matrices, which the generic form would read)."""

    def __init__(self, ctx, op, where):
        for name, view in (("lhs", op.lhs), ("rhs", op.rhs), ("out", op.out)):
            if len(view.shape) != 4:
                raise CompileError(f"llvm-cpu codegen: {where}: mmt4d {name} must be 4-D, got "
                                   f"shape {view.shape}")
        self.ctx, self.op = ctx, op
        self.generics = [GenericPlan(ctx, g, where) for g in as_generics(op)]
        self.domain = self.generics[-1].domain
        lhs, rhs, out = op.lhs, op.rhs, op.out
        tile = (lhs.shape[2], rhs.shape[2], lhs.shape[3])
        static = all(isinstance(t, int) and t >= 1 for t in tile)
        self.rhs_k_major = (rhs.strides is not None and static
                            and tuple(rhs.strides) == (sz.mul(rhs.shape[1], tile[1] * tile[2]),
                                                       tile[1] * tile[2], 1, tile[1]))
        types = (lhs.element_type, rhs.element_type, out.element_type)
        in_place = ("f32", "f32", "f32") == types and static and all(
            v.strides is None or v.strides[3] == 1 or (v is lhs and tile[2] == 1)
            for v in (lhs, out)) and (rhs.strides is None or rhs.strides[2] == 1)
        if in_place and rhs.strides is not None:
            self.rhs_k_major = True
        not_scratch = all(ctx.buffers.kind(v.binding)[0] != "scratch" for v in (lhs, rhs, out))
        shaped = (all((v.strides is None or (v is rhs and self.rhs_k_major)) for v in (lhs, rhs, out))
                  and static and out.shape[2:] == tile[:2] and rhs.shape[3] == tile[2]
                  and tile[0] * tile[1] <= 1024 and not_scratch)
        self.fast = ((shaped and types in FLOAT_TYPES)
                     or (in_place and not_scratch and out.shape[2:] == tile[:2]
                         and rhs.shape[3] == tile[2] and tile[0] * tile[1] <= 1024))
        self.int_lanes = None
        self.dot = (mmt4d_dot.plan_kind(ctx.target, types, tile)  # or a run-time choice
                    if shaped and not self.rhs_k_major else None)
        if (shaped and not self.rhs_k_major and types[0] == types[1] and types[0] in mmt4d_int.INPUT_TYPES
                and types[2] == "i32" and tile[2] in mmt4d_int.K0S):
            self.int_lanes = mmt4d_int.chunk_lanes(ctx.target.features, tile[1])
        # an LHS viewed in place in a row-major A[M, K] (K0 = 1): packed panel by panel
        self.lhs_panel = (self.fast and op.bounds is not None and lhs.strides is not None
                          and tile[2] == 1 and lhs.strides[1] == 1 and lhs.strides[3] == 1)
        if op.bounds is not None and not self.fast:
            raise CompileError(f"llvm-cpu codegen: {where}: mmt4d with bounds needs f32 views "
                               f"the tile kernel runs in place, got {types} with strides "
                               f"{[v.strides for v in (lhs, rhs, out)]}")
        self.tile = tile

    def checks(self):
        """i1: a view out of its binding (the accumulation Generic's checks cover every view;
        with ``bounds``, the matrices viewed in place are checked as such, and M1 / N1 must be
        the tile counts of M / N)."""
        if self.op.bounds is None:
            return self.generics[-1].checks()
        b, sizes, op = self.ctx.b, self.ctx.sizes, self.op
        lhs, rhs, out = op.lhs, op.rhs, op.out
        m, n = op.bounds
        k = sz.mul(lhs.shape[1], lhs.shape[3])
        checked = [(lhs, (m, k), lambda v: v.strides[2]), (rhs, (k, n), lambda v: v.strides[3]),
                   (out, (m, n), lambda v: v.strides[2])]
        bad = ir.Constant(ir.IntType(1), 0)
        for view, matrix, row_stride in checked:
            if view.strides is not None:
                view = kir.View(view.binding, "f32", matrix, view.offset, (row_stride(view), 1))
            length = self.ctx.buffers.length(view.binding)
            if length is not None:
                bad = b.or_(bad, extent_out_of_range(b, sizes, view, length))
        for tiles, extent, tile in ((lhs.shape[0], m, self.tile[0]),
                                    (rhs.shape[0], n, self.tile[1])):
            count = b.udiv(b.add(sizes.get(extent), I64(tile - 1)), I64(tile))
            bad = b.or_(bad, b.icmp_unsigned("!=", count, sizes.get(tiles)))
        return b.and_(domain_nonempty(b, sizes, self.domain), bad)

    def emit(self, ranges):
        """Compute this workgroup's OUT tiles; ``ranges`` over (M1, N1, K1, M0, N0, K0)."""
        if not self.fast and self.int_lanes is None and self.dot is None:
            fill_ranges = [ranges[0], ranges[1], ranges[3], ranges[4]]
            if len(self.generics) == 2:
                self.generics[0].emit(fill_ranges)
            self.generics[-1].emit(ranges)
            return
        b, sizes, op = self.ctx.b, self.ctx.sizes, self.op
        pointers = [b.gep(self.ctx.binding(v.binding), [sizes.get(v.offset)], inbounds=True,
                          source_etype=storage_type(v.element_type))
                    for v in (op.lhs, op.rhs, op.out)]
        accumulate = ir.Constant(ir.IntType(1), int(op.accumulate))
        k1 = sizes.get(op.lhs.shape[1])
        strides = (k1, sizes.get(op.rhs.shape[1]), sizes.get(op.out.shape[1]))
        if self.dot is None:
            return self._emit_own(pointers, ranges, k1, strides, accumulate)
        mmt4d_dot.emit_dot_or(b, self.ctx.target, self.dot, (pointers, *ranges[:2], strides, k1,
                                                             self.tile, accumulate),
                              lambda: self._emit_own(pointers, ranges, k1, strides, accumulate))

    def _emit_own(self, pointers, ranges, k1, strides, accumulate):
        """The target's own tile loops: emit_tiles (floats) or mmt4d_int.emit_int_tiles."""
        b, sizes, op = self.ctx.b, self.ctx.sizes, self.op
        if self.fast:
            view_strides = [[sizes.get(s) for s in sz.view_strides(v)]
                            for v in (op.lhs, op.rhs, op.out)]
            bounds = None
            if op.bounds is not None:
                bounds = (sizes.get(op.bounds[0]), sizes.get(op.bounds[1]), op.out.strides is not None)
            family = family_of(self.ctx.target)
            block = (panel_block(b, k1, bounds[1], family), family) if self.lhs_panel else None
            if self.lhs_panel and self._regroups():
                m_range, n_range, busy = self._row_share(*block)
                with b.if_then(busy):
                    self._emit_tiles(pointers, m_range, n_range, view_strides, k1, accumulate,
                                     bounds, block)
            else:
                self._emit_tiles(pointers, ranges[0], ranges[1], view_strides, k1, accumulate,
                                 bounds, block)
        else:
            mmt4d_int.emit_int_tiles(b, pointers, ranges[0], ranges[1], strides, k1, self.tile,
                                     accumulate, op.lhs.element_type, self.int_lanes)

    def _emit_tiles(self, pointers, m_range, n_range, view_strides, k1, accumulate, bounds,
                    block):
        op = self.op
        (l_m1, l_k1, l_m0, _), (r_n1, r_k1, _, r_kk), (o_m1, o_n1, o_m0, _) = view_strides
        emit_tiles(self.ctx.b, pointers, m_range, n_range,
                   ((l_m1, l_k1, l_m0), (r_n1, r_k1, r_kk), (o_m1, o_n1, o_m0)), k1, self.tile,
                   accumulate, (op.lhs.element_type, op.out.element_type),
                   "f16c" in self.ctx.target.features, self.rhs_k_major, bounds, block)

    def _regroups(self):
        """Whether this op alone makes up the kernel, distributed as (N1, M1) with one m1 per
        workgroup row: then ``_row_share`` may hand the tiles out its own way."""
        kernel = self.ctx.kernel
        dist = kernel.distribution
        return (len(kernel.ops) == 1 and kernel.ops[0] is self.op and dist.dims == (1, 0)
                and dist.tiles[1] == 1)

    def _row_share(self, block, family):
        """(m1 range, n1 range, busy) of this workgroup when the workgroup row y = a multiple
        of ``block`` takes m1 [y, y + block) and the x workgroups of such a row share its n1
        tiles in ``parts`` equal ranges: ``parts = min(x count, ceil(units / blocks))`` (units:
        the family's ``panel_units``) -- one (whole rows, each panel packed once) from
        ``units`` blocks up, more for few
        so that small M still spreads over the workers. Other workgroups are idle."""
        b, k, sizes = self.ctx.b, self.ctx.k, self.ctx.sizes
        m1, n1 = sizes.get(self.op.lhs.shape[0]), sizes.get(self.op.out.shape[1])
        count, x, y = k.workgroup_count(0), k.workgroup_id(0), k.workgroup_id(1)
        blocks = b.udiv(b.add(m1, b.sub(block, I64(1))), block)
        blocks = b.select(b.icmp_unsigned(">", blocks, I64(0)), blocks, I64(1))
        want = b.udiv(b.add(I64(family.panel_units - 1), blocks), blocks)
        parts = b.select(b.icmp_unsigned("<", want, count), want, count)
        parts = b.select(b.icmp_unsigned(">", parts, I64(0)), parts, I64(1))
        first = b.select(b.icmp_unsigned("<", y, m1), y, m1)
        end = b.add(first, block)
        end = b.select(b.icmp_unsigned("<", end, m1), end, m1)
        busy = b.and_(b.icmp_unsigned("<", x, parts),
                      b.icmp_unsigned("==", b.urem(y, block), I64(0)))
        return (first, end), _range(b, n1, parts, x), busy


def plan(ctx, op, where):
    """The Mmt4dPlan of ``op``."""
    return Mmt4dPlan(ctx, op, where)
