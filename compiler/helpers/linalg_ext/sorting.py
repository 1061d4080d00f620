"""Stable sorting of tensor rows with ``linalg.generic``s (helper of the sort/topk lowerings).

``sorted_rows(b, keys, dim, before)`` sorts every tensor of ``keys`` (same shape) along ``dim``
by ``before(sink, theirs, mine)`` (the i1 "their element goes before mine"), stably (ties keep
their order), and returns the sorted tensors. ``before`` may be a strict weak order (XLA's ``<``)
or its non-strict form (``sge``, as IREE's ONNX importer writes for TopK and NonMaxSuppression):
two elements it orders both ways (or neither way) are a tie, as in IREE's scalar sort, which
swaps neighbours only where the comparator fails:

* a static row longer than ``RANK_SORT_MAX`` is merge sorted: ``ceil(log2 n)`` generics, the
  k-th merging runs of ``2^k`` elements; each output element finds, by a binary search unrolled
  into its body (``tensor.extract`` of the previous pass, ``log2`` steps), how many elements
  of the left run precede it (the "merge path" co-rank), then takes the left or right element.
  O(n log^2 n) work, no data-dependent control flow (so both devices vectorize or run it as
  straight-line code);
* shorter or dynamic rows are rank sorted: each element counts the elements going before it
  (O(n^2) comparisons, one generic), then every tensor pulls, for each position, the element
  of that rank (a second generic).

Source followed: Odeh et al., "Merge Path - A Visually Intuitive Approach to Parallel Merging"
(2012), for the co-rank search; XLA's sort semantics (stable, comparator over operand pairs).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerType
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.dialects.linalg import FillOp
from rt.compiler.helpers.linalg_ext.builders import constant, empty_of, index, index_const, select, to_index
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type

I32 = IntegerType(32)
#: rows up to this length (and dynamic ones) are rank sorted; longer static rows merge sorted
RANK_SORT_MAX = 64


def sorted_rows(b, keys, dim, before):
    """The ``keys`` tensors sorted along ``dim`` (see the module docstring)."""
    n = keys[0].type.get_shape()[dim]
    if n == DYNAMIC_INDEX or n <= RANK_SORT_MAX:
        return _rank_sort(b, keys, dim, before)
    width = 1
    while width < n:
        keys = _merge_pass(b, keys, dim, before, width, n)
        width *= 2
    return keys


def _other(rank, dim):
    """The row's element at position ``j`` (loop dim ``rank``) instead of dim ``dim``."""
    return [AffineExpr.dimension(rank) if k == dim else AffineExpr.dimension(k) for k in range(rank)]


def _empties(b, keys):
    rank = keys[0].type.get_num_dims()
    return [empty_of(b, [(keys[0], k) for k in range(rank)], element_type(v.type)) for v in keys]


def _rank_sort(b, keys, dim, before):
    rank, n = keys[0].type.get_num_dims(), len(keys)
    order = empty_of(b, [(keys[0], k) for k in range(rank)], I32)
    zero = b.add(FillOp([constant(b, 0, I32)], [order], [order.type]))

    def count(s, args):
        mine, theirs, acc = args[:n], args[n:2 * n], args[-1]
        goes_first = before(s, theirs, mine)
        tie = s.add(arith.CmpIOp(goes_first, before(s, mine, theirs), "eq"))
        earlier = s.add(arith.CmpIOp(index(s, rank), index(s, dim), "slt"))
        first = select(s, tie, earlier, goes_first)
        return [s.add(xarith.AddiOp(acc, s.add(arith.ExtUIOp.build(operands=[first], result_types=[I32]))))]
    maps = affine_maps(rank + 1, *([dim_exprs(rank)] * n), *([_other(rank, dim)] * n), dim_exprs(rank))
    order = generic(b, keys + keys, [zero], maps, ["parallel"] * rank + ["reduction"], [order.type], count)[0]

    def pull(s, args):
        ranked, elements, current = args[0], args[1:1 + n], args[1 + n:]
        hit = s.add(arith.CmpIOp(to_index(s, ranked), index(s, dim), "eq"))
        return [select(s, hit, x, c) for x, c in zip(elements, current)]
    inits = _empties(b, keys)
    maps = affine_maps(rank + 1, *([_other(rank, dim)] * (1 + n)), *([dim_exprs(rank)] * n))
    return generic(b, [order] + keys, inits, maps, ["parallel"] * rank + ["reduction"], [i.type for i in inits], pull)


class _IndexMath:
    """Index arithmetic and i1 logic emitted into a generic body ``s``."""

    def __init__(self, s):
        self.s = s

    def c(self, value):
        return index_const(self.s, value)

    def add(self, x, y):
        return self.s.add(xarith.AddiOp(x, y))

    def sub(self, x, y):
        return self.s.add(xarith.SubiOp(x, y))

    def min(self, x, y):
        return self.s.add(xarith.MinSIOp(x, y))

    def max(self, x, y):
        return self.s.add(xarith.MaxSIOp(x, y))

    def lt(self, x, y):
        return self.s.add(arith.CmpIOp(x, y, "slt"))

    def both(self, x, y):
        return self.s.add(xarith.AndIOp(x, y))

    def either(self, x, y):
        return self.s.add(xarith.OrIOp(x, y))

    def negate(self, x):
        return self.s.add(xarith.XOrIOp(x, constant(self.s, 1, IntegerType(1))))


def _merge_pass(b, keys, dim, before, width, n):
    """``keys`` with each pair of sorted runs of ``width`` elements merged (stable: left run first).

    Output position ``p`` lies in the merged block starting at ``start``; its offset ``q`` in the
    block has a co-rank ``i`` (the left run gives its first ``i`` elements, the right run its
    first ``q - i``), the least ``i`` for which left element ``i`` does not go before right
    element ``q - i - 1``. Indices are clamped into the runs where a guard makes the read moot."""
    rank = keys[0].type.get_num_dims()
    steps = width.bit_length() + 1

    def body(s, args):
        m = _IndexMath(s)

        def at(position):
            coords = [position if k == dim else index(s, k) for k in range(rank)]
            return [s.add(tensor.ExtractOp(v, coords, element_type(v.type))) for v in keys]

        def left(i):
            return at(m.add(start, m.min(i, m.max(m.sub(n_left, m.c(1)), m.c(0)))))

        def right(j):
            return at(m.add(m.add(start, m.c(width)), m.min(m.max(j, m.c(0)), m.max(m.sub(n_right, m.c(1)), m.c(0)))))
        def strictly_before(theirs, mine):
            return m.both(before(s, theirs, mine), m.negate(before(s, mine, theirs)))
        p = index(s, dim)
        start = s.add(xarith.MuliOp(s.add(xarith.DivUIOp(p, m.c(2 * width))), m.c(2 * width)))
        q = m.sub(p, start)
        n_left = m.min(m.c(width), m.sub(m.c(n), start))
        n_right = m.max(m.c(0), m.min(m.c(width), m.sub(m.c(n), m.add(start, m.c(width)))))
        lo, hi = m.max(m.c(0), m.sub(q, n_right)), m.min(q, n_left)
        for _ in range(steps):
            mid = s.add(xarith.DivUIOp(m.add(lo, hi), m.c(2)))
            j = m.sub(q, mid)
            right_first = strictly_before(right(m.sub(j, m.c(1))), left(mid))
            below = m.both(m.both(m.lt(mid, n_left), m.lt(m.c(0), j)), m.negate(right_first))
            active = m.lt(lo, hi)
            lo = select(s, m.both(active, below), m.add(mid, m.c(1)), lo)
            hi = select(s, m.both(active, m.negate(below)), mid, hi)
        j = m.sub(q, lo)
        x, y = left(lo), right(j)
        right_done = m.negate(m.lt(j, n_right))
        take_left = m.either(right_done, m.both(m.lt(lo, n_left), m.negate(strictly_before(y, x))))
        return [select(s, take_left, a, c) for a, c in zip(x, y)]
    inits = _empties(b, keys)
    maps = affine_maps(rank, *([dim_exprs(rank)] * len(keys)))
    return generic(b, [], inits, maps, ["parallel"] * rank, [i.type for i in inits], body)
