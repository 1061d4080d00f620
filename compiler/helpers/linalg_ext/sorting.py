"""Stable sorting of tensor rows with ``linalg.generic``s (helper of the sort/topk/scatter lowerings).

``sorted_rows(b, keys, dim, before)`` sorts every tensor of ``keys`` (same shape) along ``dim``
by ``before(sink, theirs, mine)`` (the i1 "their element goes before mine", a strict weak
order), stably (ties keep their order), and returns the sorted tensors. Rows of any length,
static or dynamic, are merge sorted bottom-up: host ``scf.while`` loops run one merge pass (one
parallel generic, a dispatch) per doubling of the run width ``w = 1, 2, 4, ...`` while
``w < n``, the width a loop-carried index (a push constant of the dispatch). Each output
element of a pass finds, by a binary search unrolled into its body (``tensor.extract`` of the
previous pass), how many elements of its left run precede it (the "merge path" co-rank), then
takes the left or right element: O(n log n) passes' work times the search, no data-dependent
control flow in a body (both devices run it as straight-line code).

The search needs ``bit_length(w) + 1`` steps. One loop per group of ``STEP_GROUPS`` covers the
widths below ``2^(S - 1)`` with ``S`` steps, so a pass does at most 7 steps more than it
needs; static rows get only the groups their length reaches (a row of 1000 elements: 2
dispatches compiled), dynamic ones all four (lengths below 2^31, as push constants are).

``merge_pass(..., block=...)`` also merges two runs into a shorter block (the first ``block``
elements of the merged pair): topk keeps only the first k of each merged pair of runs.

Source followed: Odeh et al., "Merge Path - A Visually Intuitive Approach to Parallel Merging"
(2012), for the co-rank search; XLA's sort semantics (stable, comparator over operand pairs).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerType

from rt.compiler.dialects import arith
from rt.compiler.helpers.linalg_ext.builders import (constant, dim_size, empty_of, index, index_const, select,
                                                     while_loop)
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type

#: binary-search steps of the merge dispatches; the loop with ``S`` steps merges runs narrower than 2^(S-1)
STEP_GROUPS = (8, 16, 24, 32)


def sorted_rows(b, keys, dim, before):
    """The ``keys`` tensors sorted along ``dim`` (see the module docstring)."""
    static = keys[0].type.get_shape()[dim]
    n = dim_size(b, keys[0], dim)
    width = index_const(b, 1)
    reached = 1
    for steps in STEP_GROUPS:
        if static != DYNAMIC_INDEX and static <= reached:
            break
        limit = index_const(b, 1 << (steps - 1))

        def more(s, values, limit=limit):
            w = values[0]
            return s.add(xarith.AndIOp(s.add(arith.CmpIOp(w, n, "ult")), s.add(arith.CmpIOp(w, limit, "ult"))))

        def merge(s, values, steps=steps):
            w, *rows = values
            doubled = s.add(xarith.AddiOp(w, w))
            return [doubled, *merge_pass(s, rows, dim, before, w, doubled, n, steps)]
        width, *keys = while_loop(b, [width] + list(keys), more, merge)
        reached = 1 << (steps - 1)
    return keys


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

    def mul(self, x, y):
        return self.s.add(xarith.MuliOp(x, y))

    def div(self, x, y):
        return self.s.add(xarith.DivUIOp(x, y))

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


def merge_pass(b, keys, dim, before, width, block, n, steps, length=None):
    """``keys`` (rows of ``n`` elements along ``dim``) with each pair of sorted runs of ``width``
    elements merged stably (left run first on ties) into a block of ``block`` elements (``2 *
    width``: a whole merge; less: its first ``block`` elements). ``width``, ``block``, ``n``:
    index values; ``steps``: binary-search steps, at least ``bit_length(width) + 1``;
    ``length``: the output rows' length (index value; default ``n``).

    Output position ``p`` lies in output block ``p / block``, whose input pair starts at
    ``start = (p / block) * 2 * width``; its offset ``q = p % block`` has a co-rank ``i`` (the
    left run gives its first ``i`` elements, the right run its first ``q - i``), the least ``i``
    for which left element ``i`` does not go before right element ``q - i - 1``. Indices are
    clamped into the runs where a guard makes the read moot."""
    rank = keys[0].type.get_num_dims()

    def body(s, args):
        m = _IndexMath(s)

        def at(position):
            coords = [position if k == dim else index(s, k) for k in range(rank)]
            return [s.add(tensor.ExtractOp(v, coords, element_type(v.type))) for v in keys]

        def left(i):
            return at(m.add(start, m.min(i, m.max(m.sub(n_left, m.c(1)), m.c(0)))))

        def right(j):
            return at(m.add(m.add(start, width), m.min(m.max(j, m.c(0)), m.max(m.sub(n_right, m.c(1)), m.c(0)))))
        p = index(s, dim)
        pair = m.div(p, block)
        start = m.mul(pair, m.add(width, width))
        q = m.sub(p, m.mul(pair, block))
        n_left = m.max(m.c(0), m.min(width, m.sub(n, start)))
        n_right = m.max(m.c(0), m.min(width, m.sub(n, m.add(start, width))))
        lo, hi = m.max(m.c(0), m.sub(q, n_right)), m.min(q, n_left)
        for _ in range(steps):
            mid = s.add(xarith.DivUIOp(m.add(lo, hi), m.c(2)))
            j = m.sub(q, mid)
            right_first = before(s, right(m.sub(j, m.c(1))), left(mid))
            below = m.both(m.both(m.lt(mid, n_left), m.lt(m.c(0), j)), m.negate(right_first))
            active = m.lt(lo, hi)
            lo = select(s, m.both(active, below), m.add(mid, m.c(1)), lo)
            hi = select(s, m.both(active, m.negate(below)), mid, hi)
        j = m.sub(q, lo)
        x, y = left(lo), right(j)
        right_done = m.negate(m.lt(j, n_right))
        take_left = m.either(right_done, m.both(m.lt(lo, n_left), m.negate(before(s, y, x))))
        return [select(s, take_left, a, c) for a, c in zip(x, y)]
    shape = [length if (k == dim and length is not None) else (keys[0], k) for k in range(rank)]
    inits = [empty_of(b, shape, element_type(v.type)) for v in keys]
    maps = affine_maps(rank, *([dim_exprs(rank)] * len(keys)))
    return generic(b, [], inits, maps, ["parallel"] * rank, [i.type for i in inits], body)
