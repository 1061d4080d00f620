"""``iree_linalg_ext`` ops along one dimension -> ``linalg.generic``s (helper, not a pass).

* ``sort`` / ``topk`` / ``topk_v2``: each element's rank along the dimension (how many
  elements go before it: the comparator says so, or they tie and the other comes first by
  index), then every output pulls, for each position, the element of that rank. Stable, exact
  for any strict-weak-order comparator, O(n^2) comparisons per row in two dispatches whose
  loops vectorize (no data-dependent control flow); a topk pulls only the first k ranks.
* ``scan``: one generic whose scan dim is a sequential (reduction) loop carrying the running
  value in the accumulator output; it writes ``out`` at each step. O(n).
* ``arg_compare``: one reduction generic over (value, index) outputs. O(n).

Source followed: IREE ``TilingInterfaceImpl.cpp`` (``SortOp``, ``TopkOp``, ``TopkV2Op``,
``ScanOp``, ``ArgCompareOp::generateScalarImplementation``) for the semantics.
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.dialects.linalg import FillOp
from rt.compiler.helpers.linalg_ext.builders import (constant, empty_of, from_index, index, index_const, inline,
                                                     select, to_index)
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type

I32 = IntegerType(32)


def _other(rank, dim):
    """The row's element at position ``j`` (loop dim ``rank``) instead of dim ``dim``."""
    return [AffineExpr.dimension(rank) if k == dim else AffineExpr.dimension(k) for k in range(rank)]


def _without(rank, dim):
    return [AffineExpr.dimension(k) for k in range(rank) if k != dim]


def _ranks(b, keys, dim, before):
    """i32 tensor of ``keys[0]``'s shape: each element's rank along ``dim``.

    ``before(s, theirs, mine)`` (lists of key elements) is the i1 "their element goes before
    mine"; when neither goes before the other (or the comparator says both), the one at the
    smaller position along ``dim`` does (stable)."""
    rank = keys[0].type.get_num_dims()
    shape = [(keys[0], k) for k in range(rank)]
    order = empty_of(b, shape, I32)
    zero = b.add(FillOp([constant(b, 0, I32)], [order], [order.type]))
    n = len(keys)

    def count(s, args):
        mine, theirs, acc = args[:n], args[n:2 * n], args[-1]
        goes_first = before(s, theirs, mine)
        comes_after = before(s, mine, theirs)
        tie = s.add(arith.CmpIOp(goes_first, comes_after, "eq"))
        earlier = s.add(arith.CmpIOp(index(s, rank), index(s, dim), "slt"))
        first = s.add(xarith.OrIOp(goes_first, s.add(xarith.AndIOp(tie, earlier))))
        return [s.add(xarith.AddiOp(acc, s.add(arith.ExtUIOp.build(operands=[first], result_types=[I32]))))]
    maps = affine_maps(rank + 1, *([dim_exprs(rank)] * n), *([_other(rank, dim)] * n), dim_exprs(rank))
    return generic(b, keys + keys, [zero], maps, ["parallel"] * rank + ["reduction"], [order.type], count)[0]


def _pull(b, order, sources, inits, dim, positions=None):
    """Each init's element at position ``p`` along ``dim`` becomes its source's element of rank ``p``
    (unchanged where no element has that rank); with ``positions`` (an integer type) one more
    init gets the rank-``p`` element's position along ``dim``."""
    rank = order.type.get_num_dims()
    n = len(sources)

    def pull(s, args):
        ranked, elements, current = args[0], args[1:1 + n], args[1 + n:]
        hit = s.add(arith.CmpIOp(to_index(s, ranked), index(s, dim), "eq"))
        picked = list(elements)
        if positions is not None:
            picked.append(from_index(s, index(s, rank), positions))
        return [select(s, hit, x, c) for x, c in zip(picked, current)]
    maps = affine_maps(rank + 1, *([_other(rank, dim)] * (1 + n)), *([dim_exprs(rank)] * len(inits)))
    return generic(b, [order] + sources, inits, maps, ["parallel"] * rank + ["reduction"],
                   [i.type for i in inits], pull)


def sort(b, op):
    """``iree_linalg_ext.sort`` -> rank + pull generics; the sorted outputs."""
    values, dim = list(op.outputs), op.dimension.value.data
    rank = values[0].type.get_num_dims()

    def before(s, theirs, mine):
        return inline(s, op.region, [x for pair in zip(theirs, mine) for x in pair])[0]
    order = _ranks(b, values, dim, before)
    inits = [empty_of(b, [(values[0], k) for k in range(rank)], element_type(v.type)) for v in values]
    return _pull(b, order, values, inits, dim)


def topk(b, op):
    """``iree_linalg_ext.topk`` / ``topk_v2`` -> rank + pull generics; (values[, indices])."""
    values, dim = op.inputs[0], op.dimension.value.data
    given = op.inputs[1] if len(op.inputs) > 1 else None

    def before(s, theirs, mine):
        first = inline(s, op.region, [theirs[0], mine[0]])[0]
        if given is None:
            return first
        tie = s.add(arith.CmpIOp(first, inline(s, op.region, [mine[0], theirs[0]])[0], "eq"))
        smaller = s.add(arith.CmpIOp(theirs[1], mine[1], "slt"))
        return s.add(xarith.OrIOp(first, s.add(xarith.AndIOp(tie, smaller))))
    keys = [values] if given is None else [values, given]
    order = _ranks(b, keys, dim, before)
    outputs = list(op.outputs)
    if len(outputs) == 1:
        return _pull(b, order, [values], outputs, dim)
    if given is not None:
        return _pull(b, order, [values, given], outputs, dim)
    return _pull(b, order, [values], outputs, dim, positions=element_type(outputs[1].type))


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
