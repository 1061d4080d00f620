"""Collective algorithms as link traffic: what each rank sends to whom, step by step.

``steps(kind, ranks, element_count, element_size, algorithm, params)`` returns a list of
steps; each step is a list of ``(source_rank, target_rank, nbytes)`` transfers that run
concurrently, and a step starts when the previous one finished (the bulk-synchronous form of
the algorithms in Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication
Operations in MPICH", IJHPCA 2005, and NCCL's ring all-reduce):

* ``ring``: all_reduce = reduce-scatter + all-gather around the ring, 2(n-1) steps moving one
  of n chunks each (chunks split the elements as evenly as possible, so sizes not divisible by
  n work); all_gather and reduce_scatter n-1 steps; all_to_all n-1 pairwise shifts.
* ``tree``: binomial trees: all_reduce = reduce to rank 0 then broadcast, 2*ceil(log2 n) steps
  moving the whole buffer; all_gather = binomial gather then broadcast; reduce_scatter =
  reduce then scatter.
* send_recv: one step, each rank to its target (``params[rank] = (target, source)``).

Element counts follow ``iree_hal_command_buffer_collective``: all_reduce/broadcast/reduce
count the whole buffer, all_gather and reduce_scatter count one rank's block, all_to_all
counts the whole send buffer (n blocks).
"""
KINDS = ("all_gather", "all_reduce", "all_to_all", "broadcast", "reduce", "reduce_scatter",
         "send", "recv", "send_recv")


def _chunks(count, n):
    """Element counts of n nearly equal chunks of ``count`` elements."""
    base, extra = divmod(count, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _ring_pass(n, sizes, first_offset):
    """n-1 ring steps: at step s rank r sends chunk (r + first_offset - s) mod n to r+1."""
    return [[(r, (r + 1) % n, sizes[(r + first_offset - s) % n]) for r in range(n)]
            for s in range(n - 1)]


def _tree_up(n, nbytes_of):
    """Binomial reduce/gather toward rank 0; ``nbytes_of(sender, distance)``."""
    steps, distance = [], 1
    while distance < n:
        steps.append([(r, r - distance, nbytes_of(r, distance))
                      for r in range(distance, n, 2 * distance)])
        distance *= 2
    return steps


def _tree_down(n, nbytes):
    """Binomial broadcast from rank 0 of ``nbytes`` per transfer."""
    return [[(r - d, r, nbytes) for r, d in pairs] for pairs in reversed(
        [[(r, distance) for r in range(distance, n, 2 * distance)]
         for distance in _powers(n)])]


def _powers(n):
    out, d = [], 1
    while d < n:
        out.append(d)
        d *= 2
    return out


def steps(kind, ranks, element_count, element_size, algorithm="ring", params=None):
    """Transfers of one collective over ``ranks`` participants (see the module docstring)."""
    n = ranks
    if n <= 1 or element_count == 0 and kind != "send_recv":
        return []
    whole = element_count * element_size
    if kind in ("send_recv", "send", "recv"):
        return [[(r, target, whole) for r, (target, _) in sorted((params or {}).items())
                 if target is not None and target >= 0 and target != r]]
    if kind == "all_to_all":
        block = whole // n
        return [[(r, (r + s) % n, block) for r in range(n)] for s in range(1, n)]
    if algorithm == "tree":
        if kind == "all_reduce":
            return _tree_up(n, lambda r, d: whole) + _tree_down(n, whole)
        if kind == "reduce":
            return _tree_up(n, lambda r, d: whole)
        if kind == "broadcast":
            return _tree_down(n, whole)
        if kind == "all_gather":
            gathered = _tree_up(n, lambda r, d: min(d, n - r) * whole)
            return gathered + _tree_down(n, n * whole)
        if kind == "reduce_scatter":
            total = n * whole
            return _tree_up(n, lambda r, d: total) + [
                [(0, r, whole) for r in range(1, n)]]
    if kind == "all_reduce":
        sizes = [c * element_size for c in _chunks(element_count, n)]
        return _ring_pass(n, sizes, 0) + _ring_pass(n, sizes, 1)
    if kind == "reduce_scatter":
        return _ring_pass(n, [whole] * n, 0)
    if kind == "all_gather":
        return _ring_pass(n, [whole] * n, 0)
    if kind == "broadcast":
        return [[(r, r + 1, whole)] for r in range(n - 1)]
    if kind == "reduce":
        return [[(r, r - 1, whole)] for r in range(n - 1, 0, -1)]
    raise ValueError(f"unknown collective kind {kind!r}")
