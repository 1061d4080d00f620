"""``iree-stream-layout-slices``: static memory planning of ``stream.resource.pack``.

Input: ``stream.resource.pack slices({[start, end] = %size, ...})`` (lifetime intervals are
inclusive op indices). Output: the pack op is gone; each slice offset and the total length are
index values. Slices with constant sizes are placed greedily in order: each goes into the
smallest gap between already-placed slices whose lifetimes intersect its own (else after the
last of them), offsets and sizes aligned to 64 bytes. Slices with dynamic sizes follow, bucketed
by size value; slices of one bucket whose lifetimes do not intersect share a bin, bins are laid
out one after another with ``arith`` ops (aligned up to 64 bytes).

Example (the seeds' ``@predict``)::

    %p:5 = stream.resource.pack slices({[0, 2] = %c40, [1, 2] = %c4, [2, 4] = %c40, [3, 4] = %c4}) : index
    // -> total 192; offsets 0, 64, 128, 0

Source followed: IREE ``Stream/Transforms/LayoutSlices.cpp`` (packStaticSlicesGreedily,
packDynamicSlicesConservatively).
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.resources import index_constant

ALIGNMENT = 64


def align(value, alignment=ALIGNMENT):
    """``value`` rounded up to a multiple of ``alignment``."""
    return (value + alignment - 1) // alignment * alignment


def _static_size(value):
    op = getattr(value, "op", None)
    if isinstance(op, arith.ConstantOp):
        return op.value.value.data
    return None


def _intersects(a, b):
    return a[1] >= b[0] and b[1] >= a[0]


def pack_static(slices, alignment=ALIGNMENT):
    """Greedy placement of ``[(interval, size), ...]`` -> (offsets, total bytes)."""
    reservations = []  # (offset, aligned size, interval), sorted by offset
    offsets, high = [], 0
    for interval, size in slices:
        aligned = align(size, alignment)
        best, best_fit, current = None, None, 0
        for offset, rsize, rinterval in reservations:
            if not _intersects(rinterval, interval):
                continue
            candidate = align(current, alignment)
            if candidate + aligned <= offset and (best_fit is None or offset - candidate < best_fit):
                best, best_fit = candidate, offset - current
            current = max(current, offset + rsize)
        if best is None:
            best = align(current, alignment)
        reservations.append((best, aligned, interval))
        reservations.sort(key=lambda r: r[0])
        offsets.append(best)
        high = max(high, best + aligned)
    return offsets, align(high, alignment)


@dataclasses.dataclass(frozen=True)
class LayoutSlicesPass(Pass):
    """stream.resource.pack -> constant or computed offsets."""

    name = "iree-stream-layout-slices"

    def run(self, module, ctx):
        for op in list(module.walk()):
            if isinstance(op, stream.ResourcePackOp):
                _layout(op)


def _layout(pack):
    def insert(new):
        Rewriter.insert_op(new, InsertPoint.before(pack))
        return new.results[0]

    intervals = pack.intervals()
    sizes = list(pack.dynamic_slice_sizes)
    static = [i for i, s in enumerate(sizes) if _static_size(s) is not None]
    dynamic = [i for i in range(len(sizes)) if i not in static]
    base = pack.offset[0] if pack.offset else None
    offsets, total = pack_static([(intervals[i], _static_size(sizes[i])) for i in static])
    results = {}
    for i, offset in zip(static, offsets):
        results[i] = insert(arith.AddiOp(base, insert(index_constant(offset)))) if pack.offset else insert(
            index_constant(offset))
    end = insert(arith.AddiOp(base, insert(index_constant(total)))) if pack.offset else insert(index_constant(total))
    buckets = {}
    for i in dynamic:
        buckets.setdefault(sizes[i], []).append(i)
    for size, members in buckets.items():
        aligned = _align_value(insert, size)
        bins = []  # (offset value, [intervals])
        for i in members:
            target = next((b for b in bins if not any(_intersects(iv, intervals[i]) for iv in b[1])), None)
            if target is None:
                target = (end, [])
                bins.append(target)
                end = _align_value(insert, insert(arith.AddiOp(end, aligned)))
            target[1].append(intervals[i])
            results[i] = target[0]
    for i, result in enumerate(pack.packed_offsets):
        result.replace_all_uses_with(results[i])
    pack.total_length.replace_all_uses_with(end)
    Rewriter.erase_op(pack)


def _align_value(insert, value):
    """(value + 63) & ~63 as arith ops."""
    mask = insert(index_constant(ALIGNMENT - 1))
    bumped = insert(arith.AddiOp(value, mask))
    return insert(arith.AndIOp(bumped, insert(index_constant(-ALIGNMENT))))
