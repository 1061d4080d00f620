"""The f32 mmt4d kernel: OUT += LHS * RHS^T on data-tiled (packed) operands.

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
LLVM folds into ``vfmadd231ps zmm, zmm, dword ptr [..]{1to16}``.
"""
from llvmlite import ir

from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.interface import F32, I32, I64, KernelInterface
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.devices.llvm_cpu import abi
from rt.runtime.errors import InvalidArgumentError

FLAG_ACCUMULATE = 1

#: Tile sizes that fill the register file of each ISA level (M0, N0, K0).
DEFAULT_TILES = {64: (16, 16, 1), 32: (8, 8, 1), 16: (8, 4, 1)}


def default_tile(target):
    """(M0, N0, K0) for ``target``: 16x16x1 on AVX-512, 8x8x1 on AVX2, 8x4x1 on SSE."""
    return DEFAULT_TILES[target.vector_bytes]


def _splat(b, scalar, count):
    vty = ir.VectorType(scalar.type, count)
    v = b.insert_element(ir.Constant(vty, ir.Undefined), scalar, I32(0))
    return b.shuffle_vector(v, ir.Constant(vty, ir.Undefined),
                            ir.Constant(ir.VectorType(I32, count), [0] * count))


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
    lhs, rhs, out = k.binding(0), k.binding(1), k.binding(2)
    accumulate = b.icmp_unsigned("!=", b.and_(flags, I64(FLAG_ACCUMULATE)), I64(0))
    n_begin, n_end = _range(b, n1_total, k.workgroup_count(0), k.workgroup_id(0))
    m_begin, m_end = _range(b, m1_total, k.workgroup_count(1), k.workgroup_id(1))
    acc_ty = ir.VectorType(F32, n0)
    rhs_ty = ir.VectorType(F32, n0 * k0)
    zero = ir.Constant(acc_ty, [ir.Constant(F32, 0.0)] * n0)

    def gep(base, offset):
        return b.gep(base, [offset], inbounds=True, source_etype=F32)

    with counted_loop(b, m_begin, m_end, I64(1), "m1") as lm:
        lhs_panel = gep(lhs, b.mul(lm.index, b.mul(k1_total, I64(m0 * k0))))
        with counted_loop(b, n_begin, n_end, I64(1), "n1") as ln:
            rhs_panel = gep(rhs, b.mul(ln.index, b.mul(k1_total, I64(n0 * k0))))
            tile = gep(out, b.mul(b.add(b.mul(lm.index, n1_total), ln.index), I64(m0 * n0)))
            init = []
            for r in range(m0):
                row = b.load(gep(tile, I64(r * n0)), typ=acc_ty, align=4)
                init.append(b.select(accumulate, row, zero))
            with counted_loop(b, I64(0), k1_total, I64(1), "k1", carried=init) as lk:
                rhs_v = b.load(gep(rhs_panel, b.mul(lk.index, I64(n0 * k0))), typ=rhs_ty,
                               align=4)
                lhs_row = gep(lhs_panel, b.mul(lk.index, I64(m0 * k0)))
                acc = list(lk.carried)
                for kk in range(k0):
                    if k0 == 1:
                        col = rhs_v
                    else:
                        lanes = ir.Constant(ir.VectorType(I32, n0), [n * k0 + kk for n in range(n0)])
                        col = b.shuffle_vector(rhs_v, ir.Constant(rhs_ty, ir.Undefined), lanes)
                    for r in range(m0):
                        a = b.load(gep(lhs_row, I64(r * k0 + kk)), typ=F32, align=4)
                        acc[r] = intrinsics.call(b, "fmuladd", _splat(b, a, n0), col, acc[r])
                lk.next_carried = acc
            for r in range(m0):
                b.store(lk.carried[r], gep(tile, I64(r * n0)), align=4)
    b.ret(I32(abi.STATUS_OK))
    return library.add_export(fn, binding_count=3, constant_count=4)
