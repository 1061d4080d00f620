"""``iree_linalg_ext.scatter`` whose indices address only the leading (non-slice) dims, and
``map_store``, in O(B log B + updates + output) work (helper of their lowerings).

The update batch (``B`` entries, its dims flattened) addresses rows of ``original``: a row is
the coordinates of the leading ``rank - slice_rank`` dims, numbered row-major (``R`` rows);
each batch entry's slice lands on the trailing dims of its row. Then:

1. ``keys[b]``: the row batch entry ``b`` addresses, or ``R`` (past every row) when the entry is
   masked off or its row is out of range (rt's rule: such updates are skipped; IREE leaves an
   out-of-range scatter undefined); ``order[b] = b``. One generic over ``B``.
2. ``(keys, order)`` sorted stably by key (:func:`sorting.sorted_rows`): the entries of one row
   now sit together, in batch order.
3. A sequential scan over the sorted entries (the ``b`` dim a reduction loop, the slice dims
   parallel): ``acc = region(update[order[b]], first of its row ? original[row] : acc)``, each
   step written to ``folded[b]``; the last entry of a row holds every update of that row
   applied in batch order, as IREE's sequential loop applies them.
4. ``last[row]``: the position of the row's last sorted entry, or -1 (a binary search of the
   sorted keys, unrolled). One generic over the rows.
5. The result: ``folded[last[row]]`` where ``last[row] >= 0`` (and within the update's slice,
   which may be narrower than the row), else ``original``. One generic.

Host ``scf.if``: with no update or an empty original the result is ``original`` (nothing is
read from an empty tensor).

Source followed: IREE ``ScatterOp::generateScalarImplementation`` (``TilingInterfaceImpl.cpp``)
for the semantics (updates applied in batch order through the region).
"""
import dataclasses
import math

from xdsl.dialects import arith as xarith
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerType
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.dialects.linalg import FillOp
from rt.compiler.helpers.linalg_ext.builders import (all_true, constant, dim_size, empty_of, from_index, index,
                                                     index_const, inline, select, to_index)
from rt.compiler.helpers.linalg_ext.sorting import sorted_rows
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import OpSink, element_type

I32, I64 = IntegerType(32), IntegerType(64)


def addresses_rows(op):
    """Whether every indexed dim of ``op`` is a leading (non-slice) dim of ``original``."""
    leading = op.original.type.get_num_dims() - (op.updates.type.get_num_dims() - op.batch_rank())
    return all(dim < leading for dim in op.dimension_map.get_values())


def _product(b, sizes):
    total = index_const(b, 1)
    for size in sizes:
        total = b.add(xarith.MuliOp(total, size))
    return total


def _split(s, flat, sizes):
    """Row-major coordinates of the flat index ``flat`` over ``sizes`` (index values)."""
    coords = []
    for k in reversed(range(len(sizes))):
        coords.append(s.add(xarith.RemUIOp(flat, sizes[k])) if k else flat)
        flat = s.add(xarith.DivUIOp(flat, sizes[k]))
    return coords[::-1]


@dataclasses.dataclass(frozen=True)
class RowScatter:
    """A scatter into rows, as the steps of the module docstring take it.

    original: the tensor scattered into; updates: ``(batch..., slice...)`` values, the slice on
    the trailing dims of ``original`` (possibly narrower); batch: the batch rank of ``updates``;
    targets(sink, batch_coords) -> (row coordinates over the leading dims, None for 0; an i1
    "apply" or None); combine(sink, update, current) -> the new value."""
    original: SSAValue
    updates: SSAValue
    batch: int
    targets: object
    combine: object


def scatter_rows(b, op):
    """``iree_linalg_ext.scatter`` (``addresses_rows(op)``) -> :func:`scatter_into_rows`."""
    batch = op.batch_rank()
    leading = op.original.type.get_num_dims() - (op.updates.type.get_num_dims() - batch)
    has_index_dim = op.indices.type.get_num_dims() > batch

    def targets(s, batch_coords):
        row = [None] * leading
        for k, dim in enumerate(op.dimension_map.get_values()):
            coords = batch_coords + ([index_const(s, k)] if has_index_dim else [])
            row[dim] = to_index(s, s.add(tensor.ExtractOp(op.indices, coords, element_type(op.indices.type))))
        mask = None if op.mask is None else s.add(tensor.ExtractOp(op.mask, batch_coords, element_type(op.mask.type)))
        return row, mask
    return scatter_into_rows(b, RowScatter(op.original, op.updates, batch, targets,
                                           lambda s, update, current: inline(s, op.region, [update, current])[0]))


def map_store_rows(b, op):
    """``iree_linalg_ext.map_store`` -> :func:`scatter_into_rows`: every source element is a batch
    entry whose row is the whole output coordinate its region yields (stored where the region's
    mask is true and the coordinate in bounds; a later source element wins)."""
    source, output = op.inputs[0], op.outputs[0]

    def targets(s, batch_coords):
        *coords, mask = inline(s, op.region, batch_coords)
        return coords, mask
    return scatter_into_rows(b, RowScatter(output, source, source.type.get_num_dims(), targets,
                                           lambda s, update, current: update))


def scatter_into_rows(b, spec):
    """The steps of the module docstring for ``spec`` (a :class:`RowScatter`); [result]."""
    original, updates, batch = spec.original, spec.updates, spec.batch
    rank = original.type.get_num_dims()
    leading = rank - (updates.type.get_num_dims() - batch)
    batch_sizes = [dim_size(b, updates, k) for k in range(batch)]
    row_sizes = [dim_size(b, original, k) for k in range(leading)]
    count, rows = _product(b, batch_sizes), _product(b, row_sizes)
    static = [updates.type.get_shape()[k] for k in range(batch)] + [original.type.get_shape()[k] for k in range(rank)]
    if 0 in static:
        return [original]
    if DYNAMIC_INDEX not in static:
        return _scatter(b, spec, leading, batch_sizes, row_sizes, count, rows)
    zero = index_const(b, 0)
    empty = None
    for size in batch_sizes + [dim_size(b, original, k) for k in range(rank)]:
        none = b.add(arith.CmpIOp(size, zero, "eq"))
        empty = none if empty is None else b.add(xarith.OrIOp(empty, none))
    then_sink, else_sink = OpSink(b.location), OpSink(b.location)
    results = _scatter(else_sink, spec, leading, batch_sizes, row_sizes, count, rows)
    regions = []
    for sink, values in ((then_sink, [original]), (else_sink, results)):
        sink.add(scf.YieldOp(*values))
        regions.append(Region(Block(sink.ops)))
    branch = scf.IfOp(empty, [original.type], *regions)
    b.add(branch)
    return list(branch.results)


def _scatter(b, spec, leading, batch_sizes, row_sizes, count, rows):
    original, updates, batch = spec.original, spec.updates, spec.batch
    rank = original.type.get_num_dims()
    batch_shape = [updates.type.get_shape()[k] for k in range(batch)]
    length = count if DYNAMIC_INDEX in batch_shape else math.prod(batch_shape)

    def key(s, args):
        row, valid = spec.targets(s, _split(s, index(s, 0), batch_sizes))
        zero = index_const(s, 0)
        flat = zero
        for v, size in zip(row, row_sizes):
            if v is None:
                v = zero
            else:
                inside = s.add(xarith.AndIOp(s.add(arith.CmpIOp(v, zero, "sge")), s.add(arith.CmpIOp(v, size, "slt"))))
                valid = inside if valid is None else s.add(xarith.AndIOp(valid, inside))
            flat = s.add(xarith.AddiOp(s.add(xarith.MuliOp(flat, size)), v))
        if valid is not None:
            flat = select(s, valid, flat, rows)
        return [from_index(s, flat, I64), from_index(s, index(s, 0), I32)]
    inits = [empty_of(b, [length], t) for t in (I64, I32)]
    maps = affine_maps(1, dim_exprs(1), dim_exprs(1))
    keys, order = generic(b, [], inits, maps, ["parallel"], [i.type for i in inits], key)
    keys, order = sorted_rows(b, [keys, order], 0,
                              lambda s, theirs, mine: s.add(arith.CmpIOp(theirs[0], mine[0], "slt")))
    folded = _fold(b, spec, leading, batch_sizes, row_sizes, keys, order)
    last = _last_entries(b, keys, row_sizes, count, [(original, k) for k in range(leading)])

    # a slice may be narrower than the original's trailing dims: the rest keeps its value
    narrower = {k: dim_size(b, updates, batch + k) for k in range(rank - leading)
                if DYNAMIC_INDEX in (updates.type.get_shape()[batch + k], original.type.get_shape()[leading + k])
                or updates.type.get_shape()[batch + k] != original.type.get_shape()[leading + k]}

    def pull(s, args):
        position, current = to_index(s, args[0]), args[1]
        slice_ivs = [index(s, leading + k) for k in range(rank - leading)]
        value = s.add(tensor.ExtractOp(folded, [position] + slice_ivs, element_type(original.type)))
        inside = [s.add(arith.CmpIOp(slice_ivs[k], size, "slt")) for k, size in narrower.items()]
        hit = all_true(s, [s.add(arith.CmpIOp(position, index_const(s, 0), "sge"))] + inside)
        return [select(s, hit, value, current)]
    maps = affine_maps(rank, [AffineExpr.dimension(k) for k in range(leading)], dim_exprs(rank))
    return generic(b, [last], [original], maps, ["parallel"] * rank, [original.type], pull)


def _fold(b, spec, leading, batch_sizes, row_sizes, keys, order):
    """Step 3: ``folded[b, slice...]`` (see the module docstring)."""
    original, updates, batch = spec.original, spec.updates, spec.batch
    rank = original.type.get_num_dims()
    slice_rank = rank - leading
    element = element_type(original.type)

    def step(s, args):
        carried = args[1]
        position = index(s, 0)
        zero, one = index_const(s, 0), index_const(s, 1)
        mine = s.add(tensor.ExtractOp(keys, [position], I64))
        previous = s.add(tensor.ExtractOp(keys, [s.add(xarith.MaxSIOp(s.add(xarith.SubiOp(position, one)), zero))],
                                          I64))
        first = s.add(xarith.OrIOp(s.add(arith.CmpIOp(position, zero, "eq")),
                                   s.add(arith.CmpIOp(previous, mine, "ne"))))
        slice_ivs = [index(s, 1 + k) for k in range(slice_rank)]
        row = _split(s, to_index(s, mine), row_sizes) if leading else []
        start = s.add(tensor.ExtractOp(original, row + slice_ivs, element))
        entry = _split(s, to_index(s, s.add(tensor.ExtractOp(order, [position], element_type(order.type)))),
                       batch_sizes)
        update = s.add(tensor.ExtractOp(updates, entry + slice_ivs, element_type(updates.type)))
        value = spec.combine(s, update, select(s, first, start, carried))
        return [value, value]
    slice_sizes = [(updates, batch + k) for k in range(slice_rank)]
    folded = empty_of(b, [(keys, 0)] + slice_sizes, element)
    acc = empty_of(b, slice_sizes, element)
    d = AffineExpr.dimension
    maps = affine_maps(1 + slice_rank, dim_exprs(1 + slice_rank), [d(1 + k) for k in range(slice_rank)])
    return generic(b, [], [folded, acc], maps, ["reduction"] + ["parallel"] * slice_rank,
                   [folded.type, acc.type], step)[0]


def _last_entries(b, keys, row_sizes, count, row_shape):
    """Step 4: ``last[row...]`` (i32), the position of the row's last sorted entry or -1."""
    static = keys.type.get_shape()[0]
    steps = (static.bit_length() if static != DYNAMIC_INDEX else 31) + 1
    leading = len(row_sizes)

    def search(s, args):
        zero, one = index_const(s, 0), index_const(s, 1)
        flat = zero
        for k, size in enumerate(row_sizes):
            flat = s.add(xarith.AddiOp(s.add(xarith.MuliOp(flat, size)), index(s, k)))
        wanted = from_index(s, flat, I64)
        lo, hi = zero, count
        for _ in range(steps):
            mid = s.add(xarith.DivUIOp(s.add(xarith.AddiOp(lo, hi)), index_const(s, 2)))
            at_most = s.add(arith.CmpIOp(s.add(tensor.ExtractOp(keys, [mid], I64)), wanted, "sle"))
            active = s.add(arith.CmpIOp(lo, hi, "slt"))
            lo = select(s, s.add(xarith.AndIOp(active, at_most)), s.add(xarith.AddiOp(mid, one)), lo)
            above = s.add(xarith.XOrIOp(at_most, constant(s, 1, IntegerType(1))))
            hi = select(s, s.add(xarith.AndIOp(active, above)), mid, hi)
        before = s.add(xarith.MaxSIOp(s.add(xarith.SubiOp(lo, one)), zero))
        hit = s.add(xarith.AndIOp(s.add(arith.CmpIOp(lo, zero, "sgt")),
                                  s.add(arith.CmpIOp(s.add(tensor.ExtractOp(keys, [before], I64)), wanted, "eq"))))
        return [select(s, hit, from_index(s, s.add(xarith.SubiOp(lo, one)), I32), args[0])]
    # the body selects its output (the -1 fill) where the row has no entry: a producer the
    # elementwise fusion keeps whole, so the pull reads the search once per row, not per element
    empty = empty_of(b, row_shape, I32)
    init = b.add(FillOp([constant(b, -1, I32)], [empty], [empty.type]))
    return generic(b, [], [init], affine_maps(leading, dim_exprs(leading)), ["parallel"] * leading, [init.type],
                   search)[0]
