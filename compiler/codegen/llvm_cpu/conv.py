"""Convolution over a packed filter: the register-tiled kernel of conv data tiling.

Recognized: a Generic with kind hint ``"packed_conv"`` whose body is ``out + x * w`` on f32, whose
filter ``w`` is a contiguous view indexed by single loop dims ending with ``f0``, and whose
output indexes its channel with ``f1 * F0 + f0`` (``F0`` = the static extent of ``f0``) and
every other dim with one parallel loop -- the form ``lowering/packed_conv.py`` gives a conv
whose filter data tiling packed to ``[F1, ..., F0]``. The input may be indexed by any affine
map (strides, dilations, NHWC or NCHW): its addresses come from the map.

The kernel keeps a block of the output in registers, as the mmt4d kernel does with its
M0 x N0 tile, and runs every reduction step (kh, kw, c) as broadcasts times vectors:

- channels last (the channel is the output's innermost dim: NHWC): MR consecutive pixels x
  F0 channels, F0 / L vectors of L lanes per pixel (MR x F0/L accumulators, at most 24 zmm
  on AVX-512, 12 ymm on AVX2); per step one contiguous filter row of F0 values and MR input
  broadcasts;
- channels first (the pixel is the output's innermost dim: NCHW): F0 channel rows x NV
  vectors of consecutive pixels; per step F0 filter broadcasts and NV input vectors
  (contiguous loads at unit input stride, element gathers otherwise); the last partial
  vector of a row runs masked.

Leftover pixels of a channels-last row run in halving tiles (8, 4, 2, 1 pixels). A zero fill of the output
right before the conv is absorbed: the tiles then start from zero instead of reading it. The tiles need whole f0 and
reduction ranges in the workgroup (the distribution never splits them); the emitted code
checks that and otherwise runs the Generic's own loops (GenericPlan), so any grid stays
correct. Sums run in the Generic's reduction order, fused multiply-adds allowed.

Source: the direct convolution of IREE's CPU conv pipeline (vectorized over output channels,
unrolled over output pixels) and oneDNN's jit ``avx512_core`` forward convolution (an
``ur_w`` x ``oc_blocks`` register tile over a blocked filter).
"""
from dataclasses import dataclass

from llvmlite import ir

from rt.compiler.codegen.llvm_cpu import intrinsics
from rt.compiler.codegen.llvm_cpu.batch_mmt4d import _is_mac
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import F32, I64
from rt.compiler.codegen.llvm_cpu.loop import counted_loop
from rt.compiler.codegen.llvm_cpu.scalar import splat
from rt.compiler.codegen.llvm_cpu.views import Access

P, R = "parallel", "reduction"
#: Accumulator registers the tile may use per native vector width (bytes).
ACCUMULATORS = {64: 24, 32: 12, 16: 12}
#: Most pixels of a channels-last tile (the mmt4d kernel's M0 on AVX-512).
MAX_PIXELS = 16


@dataclass(frozen=True)
class Roles:
    """Loop dims of a packed-filter conv Generic: ``f1``/``f0`` the channel block and lane,
    ``pixel`` the parallel dim the tile walks (the output's innermost dim but the channel and a
    group dim, which index the filter),
    ``outer`` the other parallel dims, ``reductions`` the reduction dims (domain order)."""

    f1: int
    f0: int
    f0_size: int
    pixel: int
    channels_last: bool
    outer: tuple
    reductions: tuple


def _single(expr):
    if len(expr.terms) == 1 and expr.terms[0][1] == 1 and expr.constant == 0:
        return expr.terms[0][0]
    return None


def roles(op):
    """The Roles of Generic ``op`` when it is a packed-filter conv the kernel runs, else None."""
    if (op.kind != "packed_conv" or len(op.inputs) != 2 or len(op.outputs) != 1 or not _is_mac(op)
            or any(v.element_type != "f32" for v in op.inputs + op.outputs)):
        return None
    _, w_map, o_map = op.indexing_maps
    w_dims = [_single(e) for e in w_map]
    if None in w_dims or len(set(w_dims)) != len(w_dims) or op.inputs[1].strides is not None:
        return None
    f0 = w_dims[-1]
    compound = [k for k, e in enumerate(o_map) if _single(e) is None]
    if len(compound) != 1:
        return None
    k = compound[0]
    terms = dict(o_map[k].terms)
    f0_size = op.domain[f0]
    if (len(terms) != 2 or o_map[k].constant != 0 or terms.get(f0) != 1
            or not isinstance(f0_size, int)):
        return None
    f1 = next(d for d in terms if d != f0)
    if terms[f1] != f0_size or f1 not in w_dims:
        return None
    out_dims = [_single(e) for e in o_map]
    out_dims[k] = None
    last = len(o_map) - 1
    # the innermost output dim the filter does not read (a group dim G indexes the filter)
    pixel = next((d for d in reversed(out_dims) if d is not None and d not in w_dims), None)
    reductions = tuple(d for d, it in enumerate(op.iterator_types) if it == R)
    parallel = [d for d, it in enumerate(op.iterator_types) if it == P]
    if pixel is None or any(d not in w_dims for d in reductions) or any(
            op.iterator_types[d] != P for d in (f0, f1, pixel)):
        return None
    outer = tuple(d for d in parallel if d not in (f0, f1, pixel))
    return Roles(f1, f0, f0_size, pixel, k == last, outer, reductions)


class ConvPlan(GenericPlan):
    """A GenericPlan (the fallback loops) plus the register-tiled conv kernel."""

    def __init__(self, ctx, op, where, r, lanes, vectors, rows):
        super().__init__(ctx, op, where)
        self.r, self.lanes, self.vectors, self.rows = r, lanes, vectors, rows
        self.x, self.w, self.o = self.bound
        sizes = ctx.sizes
        self.x_pixel = sizes.get(self.x.access.coeffs[r.pixel])
        self.o_pixel = sizes.get(self.o.access.coeffs[r.pixel])
        self.o_channel = sizes.get(self.o.access.coeffs[r.f0])
        self.fill = None

    def absorb_zero_fill(self, fill, fill_plan, fill_ranges):
        """Take over the zero fill of the output just before this op (kernel_codegen)."""
        if fill.outputs[0] != self.op.outputs[0]:
            return False
        self.fill = (fill_plan, fill_ranges)
        return True

    def emit(self, ranges, unroll=2):
        """The tile kernel when the workgroup holds whole f0 and reduction ranges, else the
        Generic's loops."""
        b, sizes, op = self.ctx.b, self.ctx.sizes, self.op
        whole = ir.Constant(ir.IntType(1), 1)
        for d in (self.r.f0,) + self.r.reductions:
            lo, hi = ranges[d]
            whole = b.and_(whole, b.icmp_unsigned("==", lo, I64(0)))
            whole = b.and_(whole, b.icmp_unsigned("==", hi, sizes.get(op.domain[d])))
        with b.if_else(whole, likely=True) as (then, otherwise):
            with then:
                self._outer(list(self.r.outer) + [self.r.f1], {self.r.f0: I64(0)}, ranges)
            with otherwise:
                if self.fill is not None:
                    self.fill[0].emit(self.fill[1])
                super().emit(ranges, unroll)

    def _outer(self, dims, idx, ranges):
        b = self.ctx.b
        if dims:
            d = dims[0]
            with counted_loop(b, ranges[d][0], ranges[d][1], I64(1), f"conv.d{d}") as loop:
                idx[d] = loop.index
                self._outer(dims[1:], idx, ranges)
            return
        lo, hi = ranges[self.r.pixel]
        if self.r.channels_last:
            start = lo
            for rows in _tail_rows(self.rows):
                with counted_loop(b, start, hi, I64(rows), f"conv.px{rows}") as loop:
                    self._tile(dict(idx), loop.index, rows, None)
                start = loop.index
            return
        step = self.vectors * self.lanes
        with counted_loop(b, lo, hi, I64(step), "conv.px") as main:
            self._tile(dict(idx), main.index, self.vectors, None)
        with counted_loop(b, main.index, hi, I64(self.lanes), "conv.px1") as one:
            self._tile(dict(idx), one.index, 1, None)
        rest = b.sub(hi, one.index)
        with b.if_then(b.icmp_unsigned(">", rest, I64(0)), likely=False):
            self._tile(dict(idx), one.index, 1, intrinsics.lane_mask(b, rest, self.lanes))

    def _tile(self, idx, p0, count, mask):
        """One register tile at pixel ``p0``: ``count`` pixels (channels last) or pixel
        vectors (channels first); ``mask`` (channels first): the lanes of a partial vector."""
        b = self.ctx.b
        idx[self.r.pixel] = p0
        vty = ir.VectorType(F32, self.lanes)
        out = self.o.pointer(b, idx)
        slots = self._slots(count)
        ptrs = [self._gep(out, b.add(b.mul(I64(px), self.o_pixel), b.mul(I64(ch), self.o_channel)))
                for px, ch in slots]
        zero = ir.Constant(vty, [ir.Constant(F32, 0.0)] * self.lanes)
        if self.fill is not None:
            init = [zero] * len(ptrs)
        elif mask is None:
            init = [b.load(p, typ=vty, align=4) for p in ptrs]
        else:
            init = [intrinsics.masked_load(b, p, 4, mask, zero) for p in ptrs]
        acc = self._reduce(list(self.r.reductions), idx, count, init, mask)
        for p, value in zip(ptrs, acc):
            if mask is None:
                b.store(value, p, align=4)
            else:
                intrinsics.masked_store(b, value, p, 4, mask)

    def _slots(self, count):
        """(pixel offset, channel offset) of each accumulator vector."""
        if self.r.channels_last:
            return [(px, v * self.lanes) for px in range(count) for v in range(self.vectors)]
        return [(v * self.lanes, row) for row in range(self.rows) for v in range(count)]

    def _gep(self, ptr, offset):
        return self.ctx.b.gep(ptr, [offset], inbounds=True, source_etype=F32)

    def _reduce(self, dims, idx, count, acc, mask):
        b = self.ctx.b
        if dims:
            d = dims[0]
            domain = self.ctx.sizes.get(self.op.domain[d])
            with counted_loop(b, I64(0), domain, I64(1), f"conv.r{d}", carried=acc) as loop:
                idx[d] = loop.index
                loop.next_carried = self._reduce(dims[1:], idx, count, list(loop.carried), mask)
            return list(loop.carried)
        return self._step(idx, count, acc, mask)

    def _step(self, idx, count, acc, mask):
        """One reduction step: broadcasts times vectors into every accumulator."""
        b = self.ctx.b
        vty = ir.VectorType(F32, self.lanes)
        x, w = self.x.pointer(b, idx), self.w.pointer(b, idx)
        if self.r.channels_last:
            wv = [b.load(self._gep(w, I64(v * self.lanes)), typ=vty, align=4)
                  for v in range(self.vectors)]
            out = []
            for px in range(count):
                a = splat(b, b.load(self._gep(x, b.mul(I64(px), self.x_pixel)), typ=F32, align=4),
                          self.lanes)
                out += [intrinsics.call(b, "fmuladd", a, wv[v], acc[len(out) + v])
                        for v in range(self.vectors)]
            return out
        xv = [self._pixels(x, v, mask) for v in range(count)]
        out = []
        for row in range(self.rows):
            a = splat(b, b.load(self._gep(w, I64(row)), typ=F32, align=4), self.lanes)
            out += [intrinsics.call(b, "fmuladd", a, xv[v], acc[len(out) + v]) for v in range(count)]
        return out

    def _pixels(self, x, v, mask):
        """Input vector ``v`` of a channels-first tile: consecutive pixels' inputs."""
        b = self.ctx.b
        vty = ir.VectorType(F32, self.lanes)
        zero = ir.Constant(vty, [ir.Constant(F32, 0.0)] * self.lanes)
        base = b.mul(I64(v * self.lanes), self.x_pixel)
        if self.x.access.is_static(self.r.pixel, 1):
            p = self._gep(x, base)
            if mask is None:
                return b.load(p, typ=vty, align=4)
            return intrinsics.masked_load(b, p, 4, mask, zero)
        value = zero
        for lane in range(self.lanes):
            offset = b.add(base, b.mul(I64(lane), self.x_pixel))
            if mask is not None:
                offset = b.select(b.extract_element(mask, ir.IntType(32)(lane)), offset, I64(0))
            value = b.insert_element(value, b.load(self._gep(x, offset), typ=F32, align=4),
                                     ir.IntType(32)(lane))
        return value


def _tail_rows(rows):
    """Pixel counts of the channels-last tiles along a row: ``rows`` while they fit, then
    halving tiles down to one pixel (a 56-pixel row: 3 x 16 + 8, never 8 single pixels,
    whose one accumulator per vector would leave the FMA latency exposed)."""
    out = [rows]
    while out[-1] > 1:
        out.append(out[-1] // 2)
    return out


def plan(ctx, op, where):
    """A ConvPlan for a packed-filter conv Generic the tile kernel runs, else None."""
    r = roles(op)
    if r is None:
        return None
    native = ctx.target.f32_lanes
    budget = ACCUMULATORS[ctx.target.vector_bytes]
    n = len(op.domain)
    w_access, o_access = (Access(ctx.buffers.view(v), m, n, where)
                          for v, m in zip(op.inputs[1:] + op.outputs, op.indexing_maps[1:]))
    if not w_access.is_static(r.f0, 1):
        return None
    if r.channels_last:
        if not o_access.is_static(r.f0, 1):
            return None
        lanes = min(native, r.f0_size)
        if lanes < 4 or r.f0_size % lanes:
            return None
        vectors = r.f0_size // lanes
        rows = max(1, min(MAX_PIXELS, budget // vectors))
        return ConvPlan(ctx, op, where, r, lanes, vectors, rows)
    if not o_access.is_static(r.pixel, 1) or r.f0_size > budget:
        return None
    vectors = max(1, min(4, budget // r.f0_size))
    return ConvPlan(ctx, op, where, r, native, vectors, r.f0_size)
