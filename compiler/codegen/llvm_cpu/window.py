"""Sliding-window ops -- depthwise convolutions and poolings -- vectorized along the output row.

Recognized: a Generic of kind ``"conv"`` (an unpacked conv: depthwise, NCHW or NHWC) or
``"pooling"`` on f32 with one output that does not move along the reduction dims (the window
kh, kw) and whose innermost parallel dim ``v`` the output reads contiguously, while every input
reads it with a static stride ``s >= 0`` -- an NCHW row of a stride-1 or stride-2 window, or
an NHWC channel vector. (GenericPlan vectorizes only unit-stride or invariant inputs and runs a
scalar tail, so an NCHW stride-2 window or a row narrower than a vector ran on scalars.)

Per outer index (the other parallel dims, in domain order) the row ``v`` runs in tiles of
``UNROLL`` vectors of L = native f32 lanes, then single vectors, then one masked vector for the
rest; every tile keeps its output vectors in registers through the reduction loops (one load
and one store per output). Each step loads, per input:

- ``s = 0`` (the filter of a depthwise conv, a pooling's window shape): one element, splat;
- ``s = 1``: L consecutive elements (masked in the tail);
- ``s > 1``: the ``(L - 1) * s + 1`` elements the L outputs span, as ``s`` masked vector loads
  (never past the last element read), then one shuffle taking every s-th lane.

The body is the Generic's own (multiply-add, add, max, ...), in the Generic's reduction order
per output element, so results match the loops exactly (fused multiply-adds allowed).

Source: IREE's CPU depthwise-conv and pooling vectorization (LLVMCPU ``vectorize`` of the
output width with the window unrolled, strided ``vector.transfer_read`` lowered to loads and
shuffles).
"""
from llvmlite import ir

from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import F32, I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.scalar import BodyEmitter
from rt.compiler.codegen.llvm_cpu.views import Access

#: Vectors per tile of the row (independent multiply-add chains through the window).
UNROLL = 4
#: Kernel IR kinds the plan takes (unpacked convolutions and poolings).
KINDS = ("conv", "pooling")
#: The widest input stride along the row loaded as strided vectors.
MAX_STRIDE = 4
I32 = ir.IntType(32)


class WindowPlan(GenericPlan):
    """A GenericPlan (its checks and bookkeeping) whose loops vectorize row dim ``row``."""

    def __init__(self, ctx, op, where, row):
        super().__init__(ctx, op, where)
        self.vector_dim = row
        self.lanes = ctx.target.f32_lanes
        self.outer = [d for d, it in enumerate(op.iterator_types) if it == "parallel" and d != row]
        self.strides = [a.access.coeffs[row] for a in self.bound[:len(op.inputs)]]

    def emit(self, ranges, unroll=UNROLL):
        """The outer loops, then the row in tiles of ``unroll`` vectors, one vector, a masked one."""
        self._outer(list(self.outer), {}, ranges, unroll)

    def _outer(self, dims, idx, ranges, unroll):
        b = self.ctx.b
        if dims:
            d = dims[0]
            with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"win.d{d}") as loop:
                idx[d] = loop.index
                self._outer(dims[1:], idx, ranges, unroll)
            return
        lo, hi = ranges[self.vector_dim]
        lanes = self.lanes
        with counted_loop(b, lo, hi, I64(lanes * unroll), "win.tile") as tile:
            self._tile(idx, ranges, [b.add(tile.index, I64(u * lanes)) for u in range(unroll)], None)
        with counted_loop(b, tile.index, hi, I64(lanes), "win.vec") as one:
            self._tile(idx, ranges, [one.index], None)
        rest = b.sub(hi, one.index)
        with b.if_then(b.icmp_unsigned(">", rest, I64(0)), likely=False):
            self._tile(idx, ranges, [one.index], rest)

    def _tile(self, idx, ranges, starts, rest):
        """Output vectors at row positions ``starts`` (i64 values), through the whole window;
        ``rest``: the valid lanes of a single partial vector (None: full vectors)."""
        b = self.ctx.b
        n_in = len(self.op.inputs)
        out = self.bound[n_in]
        mask = None if rest is None else intrinsics.lane_mask(b, rest, self.lanes)
        zero = ir.Constant(ir.VectorType(F32, self.lanes), [ir.Constant(F32, 0.0)] * self.lanes)
        ptrs, accs = [], []
        for start in starts:
            ptr = out.pointer(b, {**idx, self.vector_dim: start})
            ptrs.append(ptr)
            accs.append(b.load(ptr, typ=zero.type, align=4) if mask is None
                        else intrinsics.masked_load(b, ptr, 4, mask, zero))
        accs = self._window(list(self.reduction), idx, ranges, starts, rest, accs)
        for ptr, acc in zip(ptrs, accs):
            if mask is None:
                b.store(acc, ptr, align=4)
            else:
                intrinsics.masked_store(b, acc, ptr, 4, mask)

    def _window(self, dims, idx, ranges, starts, rest, accs):
        b = self.ctx.b
        if not dims:
            return [self._step({**idx, self.vector_dim: start}, rest, acc)
                    for start, acc in zip(starts, accs)]
        d = dims[0]
        with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"win.r{d}", carried=accs) as loop:
            idx[d] = loop.index
            loop.next_carried = self._window(dims[1:], idx, ranges, starts, rest, list(loop.carried))
        del idx[d]
        return list(loop.carried)

    def _step(self, idx, rest, acc):
        """The body once on one vector of outputs at ``idx``."""
        b, op = self.ctx.b, self.op
        values = [self._load(a, s, idx, rest) for a, s in zip(self.bound, self.strides)] + [acc]
        types = list(self.types)
        indices = [idx.get(d, I64(0)) for d in range(len(op.domain))]
        em = BodyEmitter(b, self.lanes, indices, self.vector_dim, self.push_constants)
        for s in op.body:
            values.append(em.emit(s, [values[v] for v in s.operands], [types[v] for v in s.operands]))
            types.append(s.result_type)
        return values[op.yields[0]]

    def _load(self, access, stride, idx, rest):
        """One input vector: the elements of ``lanes`` consecutive outputs (``rest`` of them)."""
        b, lanes = self.ctx.b, self.lanes
        if stride == 0:
            return access.load(b, idx, lanes, False)
        ptr = access.pointer(b, idx)
        vty = ir.VectorType(F32, lanes)
        zero = ir.Constant(vty, [ir.Constant(F32, 0.0)] * lanes)
        # elements [0, span) from ptr are read: span = (count - 1) * stride + 1
        count = I64(lanes) if rest is None else rest
        span = b.add(b.mul(b.sub(count, I64(1)), I64(stride)), I64(1))
        if stride == 1 and rest is None:
            return b.load(ptr, typ=vty, align=4)
        chunks = []
        for k in range(stride):
            remaining = b.sub(span, I64(k * lanes))
            chunk_ptr = b.gep(ptr, [I64(k * lanes)], inbounds=True, source_etype=F32)
            chunks.append(intrinsics.masked_load(b, chunk_ptr, 4, intrinsics.lane_mask(
                b, b.select(b.icmp_signed(">", remaining, I64(0)), remaining, I64(0)), lanes), zero))
        return _every(b, chunks, stride, lanes)


def _every(b, chunks, stride, lanes):
    """Lanes 0, s, 2s, ... of the concatenation of ``chunks`` (``stride`` vectors of ``lanes``)."""
    if stride == 1:
        return chunks[0]
    while len(chunks) & (len(chunks) - 1):
        chunks.append(ir.Constant(chunks[0].type, ir.Undefined))
    while len(chunks) > 1:
        width = len(chunks[0].type)
        joined = ir.Constant(ir.VectorType(I32, 2 * width), list(range(2 * width)))
        chunks = [b.shuffle_vector(chunks[k], chunks[k + 1], joined) for k in range(0, len(chunks), 2)]
    whole = chunks[0]
    picks = ir.Constant(ir.VectorType(I32, lanes), [k * stride for k in range(lanes)])
    return b.shuffle_vector(whole, ir.Constant(whole.type, ir.Undefined), picks)


def _row(op, accesses):
    """The row dim the plan vectorizes, or None: the innermost parallel dim the output reads
    with coefficient 1 and every input with a static coefficient in [0, MAX_STRIDE]."""
    n_in = len(op.inputs)
    for d in reversed(range(len(op.domain))):
        if op.iterator_types[d] != "parallel":
            continue
        if accesses[n_in].is_static(d, 1) and all(
                isinstance(a.coeffs[d], int) and 0 <= a.coeffs[d] <= MAX_STRIDE for a in accesses[:n_in]):
            return d
        return None
    return None


def plan(ctx, op, where):
    """A WindowPlan for an f32 depthwise conv or pooling Generic it vectorizes, else None."""
    if (op.kind not in KINDS or op.gathers or len(op.outputs) != 1 or "reduction" not in op.iterator_types
            or any(v.element_type != "f32" for v in op.inputs + op.outputs) or ctx.target.f32_lanes < 4):
        return None
    n = len(op.domain)
    accesses = [Access(ctx.buffers.view(v), m, n, where)
                for v, m in zip(op.inputs + op.outputs, op.indexing_maps)]
    out = accesses[-1]
    if any(not out.is_static(d, 0) for d in range(n) if op.iterator_types[d] == "reduction") or any(
            a.view.binding == out.view.binding for a in accesses[:-1]):
        return None
    row = _row(op, accesses)
    return None if row is None else WindowPlan(ctx, op, where, row)
