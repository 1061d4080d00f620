"""Stable sorting of tensor rows with ``linalg.generic``s (helper of the sort/topk/scatter lowerings).

``sorted_rows(b, keys, dim, before)`` sorts every tensor of ``keys`` (same shape) along ``dim``
by ``before(sink, theirs, mine)`` (the i1 "their element goes before mine"), stably (ties keep
their order), and returns the sorted tensors. ``before`` may be a strict weak order (XLA's ``<``)
or its non-strict form (``sge``, as IREE's ONNX importer writes for TopK and NonMaxSuppression):
two elements it orders both ways (or neither way) are a tie, as in IREE's scalar sort, which
swaps neighbours only where the comparator fails. Rows of any length,
static or dynamic, are merge sorted bottom-up: a host ``scf.while`` runs one merge pass (one
generic, a dispatch) per doubling of the run width ``w = 1, 2, 4, ...`` while ``w < n``, the
width a loop-carried index (a push constant of the dispatch). A pass walks each row once, as
a scan does: the row dim is a sequential (reduction) loop carrying the two read positions
``i`` (left run) and ``j`` (right run) in accumulator outputs; at each output position it
takes the left element unless the right one goes strictly before it (stable), and advances
that side; the positions restart at each pair of runs (``p % 2w == 0``). O(n) per pass,
O(n log n) in all, the other dims parallel.

Source followed: the bottom-up merge sort (Knuth, TAOCP vol. 3, 5.2.4); XLA's sort semantics
(stable, comparator over operand pairs).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import IntegerType
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.helpers.linalg_ext.builders import (constant, dim_size, empty_of, from_index, index, index_const,
                                                     select, to_index, while_loop)
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type

I64 = IntegerType(64)


def sorted_rows(b, keys, dim, before):
    """The ``keys`` tensors sorted along ``dim`` (see the module docstring)."""
    n = dim_size(b, keys[0], dim)

    def more(s, values):
        return s.add(arith.CmpIOp(values[0], n, "ult"))

    def merge(s, values):
        w, *rows = values
        return [s.add(xarith.AddiOp(w, w)), *merge_pass(s, rows, dim, before, w, n)]
    return while_loop(b, [index_const(b, 1)] + list(keys), more, merge)[1:]


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

    def lt(self, x, y):
        return self.s.add(arith.CmpIOp(x, y, "slt"))

    def both(self, x, y):
        return self.s.add(xarith.AndIOp(x, y))

    def either(self, x, y):
        return self.s.add(xarith.OrIOp(x, y))

    def negate(self, x):
        return self.s.add(xarith.XOrIOp(x, constant(self.s, 1, IntegerType(1))))


def merge_pass(b, keys, dim, before, width, n):
    """``keys`` (rows of ``n`` elements along ``dim``) with each pair of sorted runs of ``width``
    elements merged stably (left run first on ties); ``width`` (a power of two) and ``n``: index
    values. One generic, the row dim sequential (see the module docstring)."""
    rank = keys[0].type.get_num_dims()

    def body(s, args):
        m = _IndexMath(s)
        i_state, j_state = to_index(s, args[-2]), to_index(s, args[-1])

        def at(position):
            coords = [m.min(position, m.sub(n, m.c(1))) if k == dim else index(s, k) for k in range(rank)]
            return [s.add(tensor.ExtractOp(v, coords, element_type(v.type))) for v in keys]
        p = index(s, dim)
        span = m.add(width, width)
        q = s.add(xarith.AndIOp(p, m.sub(span, m.c(1))))
        start = m.sub(p, q)
        fresh = s.add(arith.CmpIOp(q, m.c(0), "eq"))
        left_end = m.min(m.add(start, width), n)
        right_end = m.min(m.add(start, span), n)
        i = select(s, fresh, start, i_state)
        j = select(s, fresh, left_end, j_state)
        x, y = at(i), at(j)

        def strictly_before(theirs, mine):  # a non-strict comparator's ties stay in order
            return m.both(before(s, theirs, mine), m.negate(before(s, mine, theirs)))
        right_done = m.negate(m.lt(j, right_end))
        take_left = m.either(right_done, m.both(m.lt(i, left_end), m.negate(strictly_before(y, x))))
        one = m.c(1)
        i_next = select(s, take_left, m.add(i, one), i)
        j_next = select(s, take_left, j, m.add(j, one))
        return [select(s, take_left, a, c) for a, c in zip(x, y)] + \
            [from_index(s, i_next, I64), from_index(s, j_next, I64)]
    inits = [empty_of(b, [(keys[0], k) for k in range(rank)], element_type(v.type)) for v in keys]
    others = [(keys[0], k) for k in range(rank) if k != dim]
    states = [empty_of(b, others, I64) for _ in range(2)]
    without = [AffineExpr.dimension(k) for k in range(rank) if k != dim]
    maps = affine_maps(rank, *([dim_exprs(rank)] * len(keys)), without, without)
    iterators = ["reduction" if k == dim else "parallel" for k in range(rank)]
    results = generic(b, [], inits + states, maps, iterators, [v.type for v in inits + states], body)
    return list(results[:len(keys)])
