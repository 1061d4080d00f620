"""``topk`` / ``topk_v2`` with a small static k as IREE's scalar implementation computes it, in
O(n k) (O(n k^2) for a sorted ``topk_v2``) work (helper of the topk lowering).

One reduction generic walks each row (the topk dim sequential, the other dims parallel) and
carries the k output slots (values, and indices when the op has them) as 2k accumulator
outputs, initialized from the op's outputs (IREE treats their initial contents as
candidates). Each element is inserted as IREE's ``TopkOp``/``TopkV2Op``
``generateScalarImplementation`` does: the carried element moves down the slots, trading
places with a slot it goes strictly before (the region ``f(x, slot)``); indices trade where
``f(x, slot)`` or the two are equivalent (``f(x, y) == f(y, x)``) and the carried index is the
smaller. ``topk_v2 ... is_sorted`` then runs IREE's bubble sort over the k slots after every
insertion (adjacent slots swapped unless ``f(left, right)``, so equal values trade places:
IREE's order of ties, e.g. ``[3, 6, 4]`` for three equal maxima at 3, 4, 6). Two more
parallel generics split the outputs into slots and assemble the slots back.

Source followed: IREE ``TilingInterfaceImpl.cpp`` (``TopkOp``, ``TopkV2Op::
generateScalarImplementation``, ``emitBubbleSort``).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import _linalg_ext_ops as ext
from rt.compiler.dialects import arith
from rt.compiler.helpers.linalg_ext.builders import empty_of, from_index, index, index_const, inline, select
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type

#: the largest static k selected by slots; a larger or dynamic k sorts the row
MAX_SLOTS = 16


def selects_by_slots(op):
    """Whether ``op`` (topk/topk_v2) has a static k from 1 to ``MAX_SLOTS`` and outputs with
    contents (outputs straight from ``tensor.empty``, as rt's ``chlo.top_k`` conversion makes
    them, hold no candidates: the sort path ignores them)."""
    k = op.outputs[0].type.get_shape()[op.dimension.value.data]
    filled = not any(isinstance(out.owner, tensor.EmptyOp) for out in op.outputs)
    return filled and k != DYNAMIC_INDEX and 1 <= k <= MAX_SLOTS


def topk_slots(b, op):
    """``op`` -> the three generics of the module docstring; (values[, indices])."""
    values, dim = op.inputs[0], op.dimension.value.data
    rank = values.type.get_num_dims()
    outputs = list(op.outputs)
    k = outputs[0].type.get_shape()[dim]
    without = [AffineExpr.dimension(d) for d in range(rank) if d != dim]
    slots = [_slot(b, out, dim, j) for out in outputs for j in range(k)]
    has_indices = len(outputs) == 2
    bubble = isinstance(op, ext.TopkV2Op) and op.is_sorted is not None

    def region(s, x, y):
        return inline(s, op.region, [x, y])[0]

    def insert(s, args):
        x = args[0]
        if len(op.inputs) > 1:
            carried_index = args[1]
        elif has_indices:
            carried_index = from_index(s, index(s, dim), element_type(outputs[1].type))
        vals = list(args[len(op.inputs):len(op.inputs) + k])
        idxs = list(args[len(op.inputs) + k:]) if has_indices else []
        carried = x
        for j in range(k):
            slot = vals[j]
            forward = region(s, carried, slot)
            if has_indices:
                tie = s.add(arith.CmpIOp(forward, region(s, slot, carried), "eq"))
                first = s.add(arith.CmpIOp(carried_index, idxs[j], "slt"))
                trade = s.add(xarith.OrIOp(forward, s.add(xarith.AndIOp(tie, first))))
                idxs[j], carried_index = (select(s, trade, carried_index, idxs[j]),
                                          select(s, trade, idxs[j], carried_index))
            vals[j], carried = select(s, forward, carried, slot), select(s, forward, slot, carried)
        if bubble:
            for i in range(k - 1):
                for j in range(k - 1 - i):
                    keep = region(s, vals[j], vals[j + 1])
                    for row in [vals] + ([idxs] if has_indices else []):
                        row[j], row[j + 1] = select(s, keep, row[j], row[j + 1]), select(s, keep, row[j + 1], row[j])
        return vals + idxs
    inputs = list(op.inputs)
    maps = affine_maps(rank, *([dim_exprs(rank)] * len(inputs)), *([without] * len(slots)))
    iterators = ["reduction" if d == dim else "parallel" for d in range(rank)]
    carried = generic(b, inputs, slots, maps, iterators, [v.type for v in slots], insert)
    return [_assemble(b, out, dim, carried[n * k:(n + 1) * k]) for n, out in enumerate(outputs)]


def _slot(b, out, dim, j):
    """``out``'s slot ``j`` along ``dim`` (the other dims kept): a generic reading ``out`` through
    a map with the constant ``j`` (an operand, so a fill producing ``out`` fuses into it)."""
    rank = out.type.get_num_dims()
    init = empty_of(b, [(out, d) for d in range(rank) if d != dim], element_type(out.type))
    others = iter(range(rank - 1))
    read = [AffineExpr.constant(j) if d == dim else AffineExpr.dimension(next(others)) for d in range(rank)]
    maps = affine_maps(rank - 1, read, dim_exprs(rank - 1))
    return generic(b, [out], [init], maps, ["parallel"] * (rank - 1), [init.type], lambda s, args: [args[0]])[0]


def _assemble(b, out, dim, slots):
    """``out`` with its slots along ``dim`` replaced by ``slots``."""
    rank = out.type.get_num_dims()
    without = [AffineExpr.dimension(d) for d in range(rank) if d != dim]

    def body(s, args):
        position = index(s, dim)
        value = args[len(slots) - 1]
        for j in reversed(range(len(slots) - 1)):
            value = select(s, s.add(arith.CmpIOp(position, index_const(s, j), "eq")), args[j], value)
        return [value]
    maps = affine_maps(rank, *([without] * len(slots)), dim_exprs(rank))
    return generic(b, list(slots), [out], maps, ["parallel"] * rank, [out.type], body)[0]
