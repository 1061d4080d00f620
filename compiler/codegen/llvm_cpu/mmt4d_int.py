"""The integer mmt4d kernel: i8 x i8 -> i32 and i16 x i16 -> i32 with K0 = 2 or 4 (pmaddwd).

Same layouts and loop nest as the f32 kernel of mmt4d.py (LHS [M1, K1, M0, 2], RHS
[N1, K1, N0, 2], OUT [M1, N1, M0, N0] i32, all contiguous), for the integer tiles data tiling
picks on x86-64 (16x16x2 with AVX-512BW, 8x8x2 with AVX2, 8x4x2 on SSE2). Per k1 step the RHS
tile row (N0 pairs) is sign-extended to i16 once; each LHS row's pair, sign-extended and
seen as one i32, is broadcast to all lanes; ``pmaddwd`` multiplies the i16 pairs and adds
each pair into one i32 lane (``a0*b0 + a1*b1``), which is added to the row's accumulator
(LLVM turns the add into ``vpdpwssd`` where AVX-512 VNNI exists). The result is exact: the
only pair sum that leaves i32 (both i16 products equal to 2**30) wraps exactly like the
i32 arithmetic of linalg.mmt4d. N0 is split into chunks of the widest pmaddwd the target has
(16 lanes with AVX-512BW, 8 with AVX2, 4 with SSE2). K0 = 4 (the i8 layout of the VNNI
kernel, mmt4d_dot.py, run where the host lacks VNNI) takes two pmaddwd per row and chunk,
one per pair of K0.

Source: IREE's mmt4d ukernel tiles for x86_64 (runtime/src/iree/builtins/ukernel/arch/
x86_64/mmt4d_x86_64_avx512_vnni.c: s8s8s32 / s16s16s32 with K0 = 2 via vpmaddwd/vpdpwssd).
"""
import contextlib

from llvmlite import ir

from rt.compiler.codegen.llvm_cpu.interface import I32, I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop

I16 = ir.IntType(16)
#: (lanes of i32, feature, intrinsic) of pmaddwd, widest first.
_PMADDWD = ((16, "avx512bw", "llvm.x86.avx512.pmaddw.d.512"),
            (8, "avx2", "llvm.x86.avx2.pmadd.wd"),
            (4, "sse2", "llvm.x86.sse2.pmadd.wd"))
INPUT_TYPES = ("i8", "i16")
#: K0s the kernel takes: 2 (one pmaddwd pair), or 4 (two, the VNNI layout of mmt4d_dot)
K0S = (2, 4)


def chunk_lanes(features, n0):
    """i32 lanes per pmaddwd for an N0-wide tile on a target with ``features``, or None when
    N0 is not a multiple of any available width."""
    for lanes, feature, _ in _PMADDWD:
        if feature in features and n0 % lanes == 0:
            return lanes
    return None


def _pmaddwd(b, lanes, x, y):
    name = next(n for w, _, n in _PMADDWD if w == lanes)
    fn = b.module.globals.get(name)
    if fn is None:
        vty = ir.VectorType(I16, 2 * lanes)
        fn = ir.Function(b.module, ir.FunctionType(ir.VectorType(I32, lanes), [vty, vty]), name)
    return b.call(fn, [x, y])


def _words(b, vector, indices):
    return b.shuffle_vector(vector, ir.Constant(vector.type, ir.Undefined),
                            ir.Constant(ir.VectorType(I32, len(indices)), indices))


@contextlib.contextmanager
def packed_out_tiles(b, pointers, m_range, n_range, outer_strides, tile, types, lanes, accumulate):
    """The (m1, n1) loops over contiguous packed tiles that the integer and the dot-product
    (``mmt4d_dot``) kernels share; the body is the caller's ``with`` block, run per OUT tile.

    pointers: (lhs, rhs, out) element-0 pointers; outer_strides: (K1 of LHS, K1 of RHS, N1 of
    OUT) as i64; tile: static (M0, N0, K0); types: (input, OUT) llvmlite element types;
    lanes: OUT elements per accumulator vector; accumulate: i1 (False starts from zeros).
    Yields ``(lhs_panel, rhs_panel, row, init)``: the tile's LHS and RHS panel pointers,
    ``row(r, c)`` the pointer to chunk ``c`` (``lanes`` elements) of OUT row ``r``, and the
    initial accumulators (row-major over (r, c): OUT's values, or zeros).
    """
    lhs, rhs, out = pointers
    lhs_k1, rhs_k1, out_n1 = outer_strides
    m0, n0, k0 = tile
    ety, oty = types
    acc_ty = ir.VectorType(oty, lanes)
    zero = ir.Constant(acc_ty, None)

    def gep(base, offset, ty):
        return b.gep(base, [offset], inbounds=True, source_etype=ty)

    with counted_loop(b, m_range[0], m_range[1], I64(1), "m1") as lm:
        lhs_panel = gep(lhs, b.mul(lm.index, b.mul(lhs_k1, I64(m0 * k0))), ety)
        with counted_loop(b, n_range[0], n_range[1], I64(1), "n1") as ln:
            rhs_panel = gep(rhs, b.mul(ln.index, b.mul(rhs_k1, I64(n0 * k0))), ety)
            tile_ptr = gep(out, b.mul(b.add(b.mul(lm.index, out_n1), ln.index), I64(m0 * n0)),
                           oty)

            def row(r, c):
                return gep(tile_ptr, I64(r * n0 + c * lanes), oty)

            init = [b.select(accumulate, b.load(row(r, c), typ=acc_ty, align=4), zero)
                    for r in range(m0) for c in range(n0 // lanes)]
            yield lhs_panel, rhs_panel, row, init


def emit_int_tiles(b, pointers, m_range, n_range, outer_strides, k1_total, tile, accumulate,
                   input_type, lanes):
    """Emit the loops computing OUT tiles (m1, n1) over the [begin, end) ranges.

    pointers: (lhs, rhs, out) element-0 pointers (``input_type`` i8/i16 and i32 elements);
    outer_strides: (K1 of LHS, K1 of RHS, N1 of OUT) as i64; k1_total: i64; tile: static
    (M0, N0, K0) with K0 in ``K0S``; accumulate: i1; lanes: the pmaddwd width (``chunk_lanes``).
    """
    m0, n0, k0 = tile
    pairs = k0 // 2
    ety = ir.IntType(8 if input_type == "i8" else 16)
    chunks = n0 // lanes

    def gep(base, offset, ty):
        return b.gep(base, [offset], inbounds=True, source_etype=ty)

    def widen(value, count):
        return value if ety == I16 else b.sext(value, ir.VectorType(I16, count))

    with packed_out_tiles(b, pointers, m_range, n_range, outer_strides, tile, (ety, I32), lanes,
                          accumulate) as (lhs_panel, rhs_panel, row, init):
        with counted_loop(b, I64(0), k1_total, I64(1), "k1", carried=init) as lk:
            rhs_v = b.load(gep(rhs_panel, b.mul(lk.index, I64(n0 * k0)), ety),
                           typ=ir.VectorType(ety, n0 * k0), align=ety.width // 8)
            rhs_words = b.bitcast(widen(rhs_v, n0 * k0), ir.VectorType(I32, n0 * pairs))
            # cols[c][p]: pair p of the lanes columns of chunk c, as 2 * lanes i16
            cols = [[b.bitcast(_words(b, rhs_words, [(c * lanes + n) * pairs + p
                                                     for n in range(lanes)]),
                               ir.VectorType(I16, 2 * lanes)) for p in range(pairs)]
                    for c in range(chunks)]
            lhs_v = b.load(gep(lhs_panel, b.mul(lk.index, I64(m0 * k0)), ety),
                           typ=ir.VectorType(ety, m0 * k0), align=ety.width // 8)
            lhs_words = b.bitcast(widen(lhs_v, m0 * k0), ir.VectorType(I32, m0 * pairs))
            acc = list(lk.carried)
            for r in range(m0):
                for p in range(pairs):
                    a = b.bitcast(_words(b, lhs_words, [r * pairs + p] * lanes),
                                  ir.VectorType(I16, 2 * lanes))
                    for c in range(chunks):
                        i = r * chunks + c
                        acc[i] = b.add(acc[i], _pmaddwd(b, lanes, cols[c][p], a))
            lk.next_carried = acc
        for r in range(m0):
            for c in range(chunks):
                b.store(lk.carried[r * chunks + c], row(r, c), align=4)
