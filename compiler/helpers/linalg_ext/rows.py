"""``iree_linalg_ext`` ops along one dimension -> ``linalg.generic``s (helper, not a pass).

* ``sort``: the outputs sorted stably by the comparator region (:mod:`sorting`: a host loop of
  merge passes, O(n log n), any row length).
* ``topk`` / ``topk_v2``: the values sorted together with their indices (the given ones, ties
  broken by them, or their positions, ties broken by the stable sort), then the first k copied
  into the outputs.
* ``scan``: one generic whose scan dim is a sequential (reduction) loop carrying the running
  value in the accumulator output; it writes ``out`` at each step. O(n).
* ``arg_compare``: one reduction generic over (value, index) outputs. O(n).

Source followed: IREE ``TilingInterfaceImpl.cpp`` (``SortOp``, ``TopkOp``, ``TopkV2Op``,
``ScanOp``, ``ArgCompareOp::generateScalarImplementation``) for the semantics.
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.helpers.linalg_ext.builders import (dim_size, empty_of, from_index, index, index_const, inline,
                                                     select)
from rt.compiler.helpers.linalg_ext.selection import selects_by_slots, topk_slots
from rt.compiler.helpers.linalg_ext.sorting import sorted_rows
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type


def _without(rank, dim):
    return [AffineExpr.dimension(k) for k in range(rank) if k != dim]


def sort(b, op):
    """``iree_linalg_ext.sort`` -> :func:`sorting.sorted_rows` of the outputs; the sorted outputs."""
    def before(s, theirs, mine):
        return inline(s, op.region, [x for pair in zip(theirs, mine) for x in pair])[0]
    return sorted_rows(b, list(op.outputs), op.dimension.value.data, before)


def topk(b, op):
    """``iree_linalg_ext.topk`` / ``topk_v2`` -> :func:`selection.topk_slots` for a static k up to
    16; else the values (with their indices: the given ones or their positions) sorted along the
    dim, then the first k copied into the outputs (positions past the row's length keep the
    outputs' values); (values[, indices])."""
    if selects_by_slots(op):
        return topk_slots(b, op)
    values, dim = op.inputs[0], op.dimension.value.data
    rank = values.type.get_num_dims()
    outputs = list(op.outputs)
    keys = [values]
    if len(outputs) == 2:
        keys.append(op.inputs[1] if len(op.inputs) > 1 else _positions(b, values, dim, element_type(outputs[1].type)))
    given = len(op.inputs) > 1

    def before(s, theirs, mine):
        first = inline(s, op.region, [theirs[0], mine[0]])[0]
        if not given:
            return first
        tie = s.add(arith.CmpIOp(first, inline(s, op.region, [mine[0], theirs[0]])[0], "eq"))
        smaller = s.add(arith.CmpIOp(theirs[1], mine[1], "slt"))
        return select(s, tie, smaller, first)
    ordered = sorted_rows(b, keys, dim, before)
    length = dim_size(b, values, dim)

    def take(s, args):
        position = index(s, dim)
        inside = s.add(arith.CmpIOp(position, length, "slt"))
        coords = [position if k == dim else index(s, k) for k in range(rank)]
        return [select(s, inside, s.add(tensor.ExtractOp(v, coords, element_type(v.type))), current)
                for v, current in zip(ordered, args)]
    maps = affine_maps(rank, *([dim_exprs(rank)] * len(outputs)))
    return generic(b, [], outputs, maps, ["parallel"] * rank, [o.type for o in outputs], take)


def _positions(b, like, dim, type_):
    """A tensor of ``like``'s shape holding each element's position along ``dim`` (as ``type_``)."""
    rank = like.type.get_num_dims()
    init = empty_of(b, [(like, k) for k in range(rank)], type_)
    return generic(b, [], [init], affine_maps(rank, dim_exprs(rank)), ["parallel"] * rank, [init.type],
                   lambda s, args: [from_index(s, index(s, dim), type_)])[0]


def scan(b, op):
    """``iree_linalg_ext.scan`` -> one generic (see the module docstring); (output, accumulator)."""
    source, (out, acc) = op.inputs[0], op.outputs
    dim, inclusive = op.dimension.value.data, bool(op.inclusive.value.data)
    rank = source.type.get_num_dims()

    def step(s, args):
        x, _, carried = args
        first = s.add(arith.CmpIOp(index(s, dim), index_const(s, 0), "eq"))
        if inclusive:
            start, operand = x, x
        else:
            previous = s.add(xarith.MaxSIOp(s.add(xarith.SubiOp(index(s, dim), index_const(s, 1))),
                                            index_const(s, 0)))
            coords = [previous if k == dim else index(s, k) for k in range(rank)]
            start = carried
            operand = s.add(tensor.ExtractOp(source, coords, element_type(source.type)))
        value = select(s, first, start, inline(s, op.region, [carried, operand])[0])
        return [value, value]
    maps = affine_maps(rank, dim_exprs(rank), dim_exprs(rank), _without(rank, dim))
    iterators = ["reduction" if k == dim else "parallel" for k in range(rank)]
    return generic(b, [source], [out, acc], maps, iterators, [out.type, acc.type], step)


def arg_compare(b, op):
    """``iree_linalg_ext.arg_compare`` -> one reduction generic; (value, index)."""
    source, dim = op.inputs[0], op.dimension.value.data
    rank = source.type.get_num_dims()
    out_value, out_index = op.outputs
    explicit = len(op.inputs) > 1
    index_type = element_type(out_index.type)

    def step(s, args):
        x, given, best, best_index = (args[0], args[1], args[2], args[3]) if explicit else \
            (args[0], None, args[1], args[2])
        better = inline(s, op.region, [x, best])[0]
        if explicit:
            candidate = given
        else:
            position = index(s, dim)
            if op.index_base is not None:
                position = s.add(xarith.AddiOp(position, op.index_base))
            candidate = position if isinstance(index_type, IndexType) else from_index(s, position, index_type)
        return [select(s, better, x, best), select(s, better, candidate, best_index)]
    inputs = list(op.inputs)
    maps = affine_maps(rank, *([dim_exprs(rank)] * len(inputs)), _without(rank, dim), _without(rank, dim))
    iterators = ["reduction" if k == dim else "parallel" for k in range(rank)]
    return generic(b, inputs, [out_value, out_index], maps, iterators, [out_value.type, out_index.type], step)
