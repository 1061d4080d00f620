"""kernel_ir.Attention on llvm-cpu: a flash-attention kernel (online softmax over key blocks).

Per workgroup (a tile of query rows of one or more batch entries) and batch entry:

* the running state of its rows lives on the stack: ``acc[rows][Np]`` (N padded to whole
  vectors), the running max ``m`` and sum ``l``;
* keys are taken ``BK`` (4 vectors) at a time: the block of K is packed transposed
  (``kt[K1][BK]``, zeros past K2) and the block of V row-major (``vp[BK][Np]``), both f32;
* for each group of ``MR`` = 4 rows: ``S = scale * Q Kᵀ`` for the block in 4 x 4 vector
  registers (K1 loop of broadcast-FMAs), keys past K2 set to -inf, the mask added (i1: 0 or
  -inf; float: its value), then per row
  ``m' = max(m, max S)``, ``P = exp(S - m')``, ``l = l * exp(m - m') + sum P``, and
  ``acc = acc * exp(m - m') + P V`` (V rows shared by the 4 rows, N in vectors); while every
  key of a row so far is masked (``m' = -inf``) 0 is subtracted instead, so no NaN arises;
* ``out = acc / l`` for the rows of the tile.

So the scores of one block of keys exist at a time (``MR x BK`` floats), never a row of them
nor the ``B x M x K2`` matrix. Rows past the tile's end compute into spare state slots (their
Q row is clamped), so the row groups need no branches. The stack use is checked against the
workgroup scratch limit at run time (``STATUS_SCRATCH_EXHAUSTED``).

Source: FlashAttention-2 (Dao, 2023), the online softmax of Milakov & Gimelshein (2018);
IREE's CPU path tiles ``online_attention`` the same way (LinalgExt TileAndDecomposeAttention).
"""
import math

from llvmlite import ir

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.buffers import SCRATCH_LIMIT, STATUS_SCRATCH_EXHAUSTED, opaque
from rt.compiler.codegen.llvm_cpu.interface import I32, I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.math_approximation import emit_exp
from rt.compiler.codegen.llvm_cpu.scalar import splat
from rt.compiler.codegen.llvm_cpu.views import Access, BoundAccess, access_out_of_range, domain_nonempty, \
    extent_out_of_range

F32 = ir.FloatType()
MR = 4
_D = kir.AffineExpr.dim
#: the op's views and their maps over (d0 = B, d1 = M, d2 = N, d3 = K1, d4 = K2)
MAPS = {"q": (_D(0), _D(1), _D(3)), "k": (_D(0), _D(4), _D(3)), "v": (_D(0), _D(4), _D(2)),
        "out": (_D(0), _D(1), _D(2)), "mask": (_D(0), _D(1), _D(4))}


def views(op):
    """{name: View} of ``op``'s operands (``mask`` only when it has one)."""
    return {name: getattr(op, name) for name in MAPS if getattr(op, name) is not None}


def domain(op):
    """(B, M, N, K1, K2) Sizes of ``op``."""
    return (op.q.shape[0], op.q.shape[1], op.v.shape[2], op.q.shape[2], op.k.shape[1])


class AttentionPlan:
    """Emitter of one kernel_ir.Attention (``domain``, ``checks()``, ``emit(ranges)``)."""

    def __init__(self, ctx, op, where):
        self.ctx, self.op = ctx, op
        self.domain = domain(op)
        self.lanes = ctx.target.f32_lanes
        self.bk = 4 * self.lanes
        self.access = {name: Access(ctx.buffers.view(view), MAPS[name], 5, where) for name, view in views(op).items()}

    def checks(self):
        """i1: some view would be read or written outside its shape or its binding (out is
        written whenever B, M and N are non-zero; Q, K, V read when every dim is)."""
        b, sizes = self.ctx.b, self.ctx.sizes
        bad = ir.Constant(ir.IntType(1), 0)
        for name, access in self.access.items():
            dims = (0, 1, 2) if name == "out" else range(5)
            wrong = access_out_of_range(b, sizes, access, self.domain)
            length = self.ctx.buffers.length(access.view.binding)
            if length is not None:
                wrong = b.or_(wrong, extent_out_of_range(b, sizes, access.view, length))
            bad = b.or_(bad, b.and_(domain_nonempty(b, sizes, [self.domain[d] for d in dims]), wrong))
        return bad

    def _bound(self, name):
        ctx = self.ctx
        view = self.access[name].view
        return BoundAccess(self.access[name], ctx.sizes, ctx.binding(view.binding), ctx.buffers.inbounds(view.binding))

    def emit(self, ranges):
        b, L, bk = self.ctx.b, self.lanes, self.bk
        n, k1, k2 = (self.ctx.sizes.get(s) for s in self.domain[2:])
        self.n, self.k1, self.k2 = n, k1, k2
        self.np_ = b.mul(b.udiv(b.add(n, I64(L - 1)), I64(L)), I64(L))
        lo, hi = ranges[1]
        rows = b.sub(hi, lo)
        slots = b.mul(b.udiv(b.add(rows, I64(MR - 1)), I64(MR)), I64(MR))
        floats = b.add(b.add(b.mul(k1, I64(bk)), b.mul(I64(bk), self.np_)),
                       b.add(b.mul(slots, b.add(self.np_, I64(2))), I64(MR * bk)))
        empty = b.or_(b.icmp_unsigned("==", rows, I64(0)), b.icmp_unsigned("==", n, I64(0)))
        with b.if_then(b.not_(empty)):
            with b.if_then(b.icmp_unsigned(">", floats, I64(SCRATCH_LIMIT // 4)), likely=False):
                b.ret(I32(STATUS_SCRATCH_EXHAUSTED))
            self.kt = self._alloca(b.mul(k1, I64(bk)))
            self.vp = self._alloca(b.mul(I64(bk), self.np_))
            self.acc = self._alloca(b.mul(slots, self.np_))
            self.m = self._alloca(slots)
            self.l = self._alloca(slots)
            self.p = self._alloca(I64(MR * bk))
            self.q, self.k, self.v, self.out = (self._bound(x) for x in ("q", "k", "v", "out"))
            self.mask = self._bound("mask") if "mask" in self.access else None
            with counted_loop(b, ranges[0][0], ranges[0][1], I64(1), "att.b") as batch:
                self._batch(batch.index, lo, rows, slots)

    def _alloca(self, count):
        ptr = self.ctx.b.alloca(F32, size=count)
        ptr.align = 64
        return opaque(self.ctx.b, ptr)

    def _vec(self, ptr, index):
        """Pointer to the vector at float ``index`` of alloca ``ptr``."""
        return self.ctx.b.gep(ptr, [index], source_etype=F32)

    def _load_v(self, ptr, index):
        return self.ctx.b.load(self._vec(ptr, index), typ=ir.VectorType(F32, self.lanes), align=4)

    def _splat(self, value):
        return splat(self.ctx.b, value, self.lanes)

    def _fill(self, ptr, count, value):
        b = self.ctx.b
        with counted_loop(b, I64(0), count, I64(1), "att.fill") as loop:
            b.store(F32(value), self._vec(ptr, loop.index))

    def _batch(self, bi, lo, rows, slots):
        b, bk = self.ctx.b, self.bk
        self._fill(self.acc, b.mul(slots, self.np_), 0.0)
        self._fill(self.m, slots, -math.inf)
        self._fill(self.l, slots, 0.0)
        blocks = b.udiv(b.add(self.k2, I64(bk - 1)), I64(bk))
        with counted_loop(b, I64(0), blocks, I64(1), "att.blk") as blk:
            j0 = b.mul(blk.index, I64(bk))
            count = b.sub(self.k2, j0)
            count = b.select(b.icmp_unsigned("<", count, I64(bk)), count, I64(bk))
            self._pack(bi, j0, count)
            groups = b.udiv(slots, I64(MR))
            with counted_loop(b, I64(0), groups, I64(1), "att.grp") as grp:
                self._group(bi, lo, rows, b.mul(grp.index, I64(MR)), j0, count)
        with counted_loop(b, I64(0), rows, I64(1), "att.row") as row:
            r = row.index
            inv = b.fdiv(F32(1.0), b.load(self._vec(self.l, r), typ=F32))
            with counted_loop(b, I64(0), self.n, I64(1), "att.col") as col:
                value = b.load(self._vec(self.acc, b.add(b.mul(r, self.np_), col.index)), typ=F32)
                self.out.store(b, {0: bi, 1: b.add(lo, r), 2: col.index}, b.fmul(value, inv))

    def _pack(self, bi, j0, count):
        """kt[k][j] = K[bi, j0 + j, k] and vp[j][c] = V[bi, j0 + j, c], zero past K2 / N."""
        b, bk = self.ctx.b, self.bk
        last_key = b.sub(self.k2, I64(1))
        last_col = b.sub(self.n, I64(1))
        with counted_loop(b, I64(0), I64(bk), I64(1), "att.pj") as pj:
            j = pj.index
            key_ok = b.icmp_unsigned("<", j, count)
            key = b.select(key_ok, b.add(j0, j), last_key)
            with counted_loop(b, I64(0), self.k1, I64(1), "att.pk") as pk:
                x = self.k.load(b, {0: bi, 4: key, 3: pk.index}, 1, False)
                b.store(b.select(key_ok, x, F32(0.0)), self._vec(self.kt, b.add(b.mul(pk.index, I64(bk)), j)))
            with counted_loop(b, I64(0), self.np_, I64(1), "att.pv") as pv:
                ok = b.and_(key_ok, b.icmp_unsigned("<", pv.index, self.n))
                c = b.select(b.icmp_unsigned("<", pv.index, self.n), pv.index, last_col)
                x = self.v.load(b, {0: bi, 4: key, 2: c}, 1, False)
                b.store(b.select(ok, x, F32(0.0)), self._vec(self.vp, b.add(b.mul(j, self.np_), pv.index)))

    def _group(self, bi, lo, rows, r0, j0, count):
        """The online-softmax step of rows ``r0 .. r0 + MR`` over the packed key block at ``j0``."""
        b, L, bk = self.ctx.b, self.lanes, self.bk
        jv = bk // L
        vty = ir.VectorType(F32, L)
        zero = ir.Constant(vty, [0.0] * L)
        last_row = b.sub(rows, I64(1))
        qrows = []
        for r in range(MR):
            row = b.add(r0, I64(r))
            qrows.append(b.add(lo, b.select(b.icmp_unsigned("<", row, rows), row, last_row)))
        with counted_loop(b, I64(0), self.k1, I64(1), "att.k1", [zero] * (MR * jv)) as kl:
            kts = [self._load_v(self.kt, b.add(b.mul(kl.index, I64(bk)), I64(v * L))) for v in range(jv)]
            nxt = []
            for r in range(MR):
                q = self._splat(b.fmul(self.q.load(b, {0: bi, 1: qrows[r], 3: kl.index}, 1, False), F32(self.op.scale)))
                nxt += [intrinsics.call(b, "fmuladd", q, kts[v], kl.carried[r * jv + v]) for v in range(jv)]
            kl.next_carried = nxt
        lane = ir.Constant(ir.VectorType(I64, L), list(range(L)))
        valid = [b.icmp_unsigned("<", b.add(lane, self._splat(I64(v * L))), self._splat(count)) for v in range(jv)]
        ninf = ir.Constant(vty, [-math.inf] * L)
        alphas = []
        for r in range(MR):
            slot = b.add(r0, I64(r))
            s = [b.select(valid[v], kl.carried[r * jv + v], ninf) for v in range(jv)]
            if self.mask is not None:
                s = [b.fadd(s[v], self._mask_terms(bi, qrows[r], b.add(j0, I64(v * L)))) for v in range(jv)]
            top = s[0]
            for v in s[1:]:
                top = intrinsics.call(b, "maxnum", top, v)
            top = self._hreduce(top, lambda x, y: intrinsics.call(b, "maxnum", x, y))
            m_old = b.load(self._vec(self.m, slot), typ=F32)
            m_new = intrinsics.call(b, "maxnum", m_old, top)
            # while every key so far is masked, subtract 0 (exp(-inf - -inf) would be NaN)
            m_sub = b.select(b.fcmp_ordered("==", m_new, F32(-math.inf)), F32(0.0), m_new)
            alpha = emit_exp(b, b.fsub(m_old, m_sub))
            total = None
            for v in range(jv):
                p = emit_exp(b, b.fsub(s[v], self._splat(m_sub)))
                b.store(p, self._vec(self.p, I64(r * bk + v * L)), align=4)
                total = p if total is None else b.fadd(total, p)
            total = self._hreduce(total, b.fadd)
            l_old = b.load(self._vec(self.l, slot), typ=F32)
            b.store(b.fadd(b.fmul(l_old, alpha), total), self._vec(self.l, slot))
            b.store(m_new, self._vec(self.m, slot))
            alphas.append(self._splat(alpha))
        vecs = b.udiv(self.np_, I64(L))
        with counted_loop(b, I64(0), vecs, I64(1), "att.nv") as nv:
            col = b.mul(nv.index, I64(L))
            at = [b.add(b.mul(b.add(r0, I64(r)), self.np_), col) for r in range(MR)]
            init = [b.fmul(self._load_v(self.acc, at[r]), alphas[r]) for r in range(MR)]
            with counted_loop(b, I64(0), count, I64(1), "att.j", init) as jl:
                vv = self._load_v(self.vp, b.add(b.mul(jl.index, self.np_), col))
                jl.next_carried = [
                    intrinsics.call(b, "fmuladd", self._splat(b.load(self._vec(self.p, b.add(I64(r * bk), jl.index)), typ=F32)),
                                    vv, jl.carried[r]) for r in range(MR)]
            for r in range(MR):
                b.store(jl.carried[r], self._vec(self.acc, at[r]), align=4)

    def _mask_terms(self, bi, row, key0):
        """<L x f32>: the mask of keys ``key0 ..`` of ``row`` as terms added to the scores (i1:
        0 or -inf; float: the value); keys past K2 read the last key (their score is -inf)."""
        b, L = self.ctx.b, self.lanes
        last = b.sub(self.k2, I64(1))
        vector = ir.Constant(ir.VectorType(F32, L), ir.Undefined)
        for lane in range(L):
            key = b.add(key0, I64(lane))
            key = b.select(b.icmp_unsigned("<", key, self.k2), key, last)
            m = self.mask.load(b, {0: bi, 1: row, 4: key}, 1, False)
            if self.op.mask.element_type == "i1":
                m = b.select(m, F32(0.0), F32(-math.inf))
            vector = b.insert_element(vector, m, I32(lane))
        return vector

    def _hreduce(self, vector, combine):
        """The lanes of ``vector`` combined pairwise down to one scalar."""
        b = self.ctx.b
        width = vector.type.count
        while width > 1:
            half = width // 2
            undef = ir.Constant(vector.type if width == vector.type.count else ir.VectorType(F32, width), ir.Undefined)
            low = b.shuffle_vector(vector, undef, ir.Constant(ir.VectorType(ir.IntType(32), half), list(range(half))))
            high = b.shuffle_vector(vector, undef, ir.Constant(ir.VectorType(ir.IntType(32), half), list(range(half, width))))
            vector = combine(low, high)
            width = half
        return b.extract_element(vector, I32(0))


def plan(ctx, op, where):
    """The AttentionPlan of ``op``."""
    return AttentionPlan(ctx, op, where)
