"""Register-tiled f32 contraction: the fast path for Generics that compute C[.., m, n] += A * B.

Recognized (whatever the ``kind`` hint says): two f32 inputs, one f32 output, a body that is
``out + a * b`` (mulf then addf, either operand order), exactly one reduction dim k, an output
that is contiguous along a parallel dim n and does not move along k, one input (B) contiguous
along n and invariant along m, the other (A) invariant along n. Remaining parallel dims (a
batch) become outer loops. Transposed or strided A works (its elements are broadcast one at a
time); B and C must be unit-stride along n.

The micro-kernel keeps an MR x (2 vectors) block of C in registers (8 x 32 floats on AVX-512:
16 zmm accumulators; 6 x 16 on AVX2; 4 x 8 on SSE) and per k step broadcasts MR elements of A
and loads two vectors of B, as IREE's mmt4d ukernels and BLIS-style kernels do, but on the
unpacked operands. n blocks are the outer loop so the B panel of a workgroup stays in L2.
Rows and columns left over at the tile edges run through the vectorized GenericPlan.
"""
from llvmlite import ir

from rt.compiler.codegen.kernel_ir import Opcode
from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.scalar import splat

#: Rows of the register block per native vector width in bytes.
MICRO_ROWS = {64: 8, 32: 6, 16: 4}
#: Vectors per row of the register block.
MICRO_VECTORS = 2


def _is_mul_add(op):
    if len(op.inputs) != 2 or len(op.outputs) != 1 or len(op.body) != 2:
        return False
    if any(v.element_type != "f32" for v in op.inputs + op.outputs):
        return False
    mul, add = op.body
    return (mul.opcode is Opcode.MULF and sorted(mul.operands) == [0, 1]
            and add.opcode is Opcode.ADDF and sorted(add.operands) == [2, 3]
            and op.yields == (4,) and mul.result_type == add.result_type == "f32")


class MatmulPlan(GenericPlan):
    """A GenericPlan (used for the edges) plus the register-tiled interior."""

    def __init__(self, ctx, op, where, roles):
        super().__init__(ctx, op, where)
        self.batch, self.m, self.n, self.k, self.a, self.b_input = roles
        self.rows = MICRO_ROWS[ctx.target.vector_bytes]
        self.f32_lanes = ctx.target.vector_bytes // 4

    def emit(self, ranges, unroll=2):
        self._batch(list(self.batch), {}, ranges)

    def _batch(self, dims, idx, ranges):
        b = self.ctx.b
        if dims:
            d = dims[0]
            with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"b{d}") as loop:
                idx[d] = loop.index
                sub = list(ranges)
                sub[d] = (loop.index, b.add(loop.index, I64(1)))
                self._batch(dims[1:], idx, sub)
            del idx[d]
            return
        m, n = self.m, self.n
        rows, cols = self.rows, self.f32_lanes * MICRO_VECTORS
        (m_lo, m_hi), (n_lo, n_hi) = ranges[m], ranges[n]
        m_end = self._block_end(m_lo, m_hi, rows)
        n_end = self._block_end(n_lo, n_hi, cols)
        with counted_loop(b, n_lo, n_end, I64(cols), "n.blk") as ln:
            with counted_loop(b, m_lo, m_end, I64(rows), "m.blk") as lm:
                self._micro(dict(idx), lm.index, ln.index, ranges[self.k])
        edge_rows = list(ranges)
        edge_rows[m] = (m_end, m_hi)
        super().emit(edge_rows)
        edge_cols = list(ranges)
        edge_cols[m] = (m_lo, m_end)
        edge_cols[n] = (n_end, n_hi)
        super().emit(edge_cols)

    def _block_end(self, lo, hi, step):
        b = self.ctx.b
        span = b.select(b.icmp_signed(">", hi, lo), b.sub(hi, lo), I64(0))
        return b.add(lo, b.mul(b.udiv(span, I64(step)), I64(step)))

    def _micro(self, idx, m0, n0, k_range):
        b = self.ctx.b
        lanes, rows = self.f32_lanes, self.rows
        vty = ir.VectorType(ir.FloatType(), lanes)
        a_acc, b_acc = self.bound[self.a], self.bound[self.b_input]
        c_acc = self.bound[2]

        def at(m_off, n_off, k=None):
            where = dict(idx)
            where[self.m] = b.add(m0, I64(m_off)) if m_off else m0
            where[self.n] = b.add(n0, I64(n_off)) if n_off else n0
            if k is not None:
                where[self.k] = k
            return where

        c_ptrs = [[c_acc.pointer(b, at(r, v * lanes)) for v in range(MICRO_VECTORS)]
                  for r in range(rows)]
        init = [b.load(p, typ=vty, align=4) for row in c_ptrs for p in row]
        with counted_loop(b, k_range[0], k_range[1], I64(1), "k", carried=init) as lk:
            bs = [b.load(b_acc.pointer(b, at(0, v * lanes, lk.index)), typ=vty, align=4)
                  for v in range(MICRO_VECTORS)]
            acc = list(lk.carried)
            for r in range(rows):
                a = b.load(a_acc.pointer(b, at(r, 0, lk.index)), typ=ir.FloatType(), align=4)
                a = splat(b, a, lanes)
                for v in range(MICRO_VECTORS):
                    i = r * MICRO_VECTORS + v
                    acc[i] = intrinsics.call(b, "fmuladd", a, bs[v], acc[i])
            lk.next_carried = acc
        for i, value in enumerate(lk.carried):
            b.store(value, c_ptrs[i // MICRO_VECTORS][i % MICRO_VECTORS], align=4)


def plan(ctx, op, where):
    """A MatmulPlan when ``op`` (a kernel_ir.Generic) is an f32 contraction it handles, else None."""
    if not _is_mul_add(op) or ctx.target.vector_bytes not in MICRO_ROWS:
        return None
    probe = GenericPlan(ctx, op, where)
    reduction = probe.reduction
    if len(reduction) != 1:
        return None
    k = reduction[0]
    a0, a1, c = probe.accesses
    if not c.is_static(k, 0):
        return None
    parallel = [d for d in range(len(op.domain)) if d != k]
    for n in reversed(parallel):
        if not c.is_static(n, 1):
            continue
        for a, b_ in ((0, 1), (1, 0)):
            A, B = probe.accesses[a], probe.accesses[b_]
            if not (B.is_static(n, 1) and A.is_static(n, 0)):
                continue
            for m in reversed(parallel):
                if m != n and B.is_static(m, 0) and not c.is_static(m, 0):
                    batch = [d for d in parallel if d not in (m, n)]
                    return MatmulPlan(ctx, op, where, (batch, m, n, k, a, b_))
    return None
