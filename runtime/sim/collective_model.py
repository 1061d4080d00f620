"""Collective algorithms as link traffic: what each rank sends to whom, step by step.

``steps(kind, ranks, element_count, element_size, algorithm, params)`` returns a list of
steps; each step is a list of ``(source_rank, target_rank, nbytes)`` transfers that run
concurrently, and a step starts when the previous one finished (the bulk-synchronous form of
the algorithms in Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication
Operations in MPICH", IJHPCA 2005, and of NCCL's ring and tree). n is the rank count, M the
whole buffer, b one rank's block:

* ``ring``: all_reduce = reduce-scatter + all-gather around the ring, 2(n-1) steps moving one
  of n chunks each (chunks split the elements as evenly as possible, so sizes not divisible by
  n work); all_gather and reduce_scatter n-1 steps of b; all_to_all n-1 shifts (step s: r to
  r+s) of b; broadcast and reduce a chain of n-1 steps of M.
* ``tree``: NCCL's double binary tree: all_reduce halves the buffer, each half reduced up one
  of two binary trees and broadcast back down it (tree 1: rank r's parent clears r's lowest
  set bit and sets the next one, rank 0 the root; tree 2 the mirror image r -> n-1-r for even
  n, tree 1 shifted by one for odd n), a rank sending when its subtree is reduced (steps by
  height going up, by depth going down): for n = 2^k, 2k steps of M/2 in which every rank
  sends at most once. broadcast / reduce: tree 1 alone with M. Other kinds run ``ring``.
* ``direct`` (one shot per phase, for fully connected networks): all_reduce = every rank sends
  chunk j to rank j, then its reduced chunk to every rank (2 steps); all_gather,
  reduce_scatter and all_to_all one step of n-1 sends of b per rank; broadcast one step from
  rank 0 to all, reduce one step of all to rank 0.
* ``halving_doubling`` (n a power of two; other n run ``ring``): all_reduce = recursive
  halving reduce-scatter (step i: partner r XOR n/2^(i+1), half the data held) then recursive
  doubling all-gather, 2 log2 n steps; reduce_scatter and all_gather the one half (log2 n
  steps); all_to_all n-1 pairwise exchanges (step s: partner r XOR s); broadcast / reduce
  binomial trees of log2 n steps of M.
* ``rendezvous``: rt's in-process channel (rt.runtime.hal.collective): one rendezvous of the
  ranks, the result computed once on the host, each rank copying its part out. Its links are
  calibrated from all_reduce calls spread over the ring's 2(n-1) steps (rt.runtime.sim.
  link_table), so every kind runs as that ring all_reduce over E bytes, E what moves the same
  host memory as the kind in the channel's computation (``_local_rendezvous._compute``): a
  copy of A bytes reads and writes 2A, an accumulation of A into A 3A, so an all_reduce of M
  moves P = (5n-3)M (one copy, n-1 accumulations, n-1 copies out) and E = P/(5n-3) for the
  others: all_gather of b per rank P = 2n^2 b (n copies of every rank's b), reduce_scatter of
  b per rank P = nb(3n+1), all_to_all P = 2nM, broadcast P = 2(n-1)M, reduce P = (3n-1)M.
  One synchronization per call whatever the kind, as the channel runs it.
* send_recv: one step, each rank to its target (``params[rank] = (target, source)``).

Element counts follow ``iree_hal_command_buffer_collective``: all_reduce/broadcast/reduce
count the whole buffer, all_gather and reduce_scatter count one rank's block, all_to_all
counts the whole send buffer (n blocks).
"""
KINDS = ("all_gather", "all_reduce", "all_to_all", "broadcast", "reduce", "reduce_scatter",
         "send", "recv", "send_recv")
ALGORITHMS = ("ring", "tree", "direct", "halving_doubling")
#: rt's in-process channel: not a network algorithm, so "auto" never picks it.
RENDEZVOUS = "rendezvous"
#: The kinds each algorithm implements (the others run ``ring``).
IMPLEMENTS = {
    "ring": ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce"),
    "tree": ("all_reduce", "broadcast", "reduce"),
    "direct": ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce"),
    "halving_doubling": ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
                         "reduce"),
    RENDEZVOUS: ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce"),
}


def _chunks(count, n):
    """Element counts of n nearly equal chunks of ``count`` elements."""
    base, extra = divmod(count, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def is_power_of_two(n):
    return n > 0 and n & (n - 1) == 0


def runs(kind, n, algorithm):
    """The algorithm that runs ``kind`` over ``n`` ranks when ``algorithm`` is asked for."""
    if kind not in IMPLEMENTS["ring"] or kind not in IMPLEMENTS.get(algorithm, ()):
        return "ring"
    if algorithm == "halving_doubling" and not is_power_of_two(n):
        return "ring"
    return algorithm


# -- ring ------------------------------------------------------------------------------------

def _ring_pass(n, sizes, first_offset):
    """n-1 ring steps: at step s rank r sends chunk (r + first_offset - s) mod n to r+1."""
    return [[(r, (r + 1) % n, sizes[(r + first_offset - s) % n]) for r in range(n)]
            for s in range(n - 1)]


def _ring(kind, n, count, size):
    whole = count * size
    if kind == "all_reduce":
        sizes = [c * size for c in _chunks(count, n)]
        return _ring_pass(n, sizes, 0) + _ring_pass(n, sizes, 1)
    if kind in ("reduce_scatter", "all_gather"):
        return _ring_pass(n, [whole] * n, 0)
    if kind == "all_to_all":
        return [[(r, (r + s) % n, whole // n) for r in range(n)] for s in range(1, n)]
    if kind == "broadcast":
        return [[(r, r + 1, whole)] for r in range(n - 1)]
    return [[(r, r - 1, whole)] for r in range(n - 1, 0, -1)]          # reduce


# -- double binary tree ----------------------------------------------------------------------

def binary_tree_parents(n):
    """``parent[r]`` of tree 1 (rank 0 the root, parent -1): r's parent clears r's lowest set
    bit and sets the next higher one, or only clears it when that rank does not exist."""
    parents = [-1] * n
    for r in range(1, n):
        bit = r & -r
        up = (r ^ bit) | (bit << 1)
        parents[r] = up if up < n else r ^ bit
    return parents


def _mirror(parents, n):
    """Tree 2: tree 1 mirrored (r -> n-1-r) for even n, shifted by one for odd n."""
    name = (lambda r: n - 1 - r) if n % 2 == 0 else (lambda r: (r + 1) % n)
    out = [-1] * n
    for r, p in enumerate(parents):
        out[name(r)] = -1 if p < 0 else name(p)
    return out


def _heights_depths(parents):
    n = len(parents)
    height, depth = [0] * n, [0] * n
    for r in sorted(range(n), key=lambda r: -_depth(parents, r)):
        if parents[r] >= 0:
            height[parents[r]] = max(height[parents[r]], height[r] + 1)
    for r in range(n):
        depth[r] = _depth(parents, r)
    return height, depth


def _depth(parents, r):
    d = 0
    while parents[r] >= 0:
        r, d = parents[r], d + 1
    return d


def _tree_up(parents, nbytes):
    """Reduce toward the root: a rank sends at the step of its height."""
    height, _ = _heights_depths(parents)
    steps = [[] for _ in range(max(height) if parents else 0)]
    for r, p in enumerate(parents):
        if p >= 0:
            steps[height[r]].append((r, p, nbytes))
    return steps


def _tree_down(parents, nbytes):
    """Broadcast from the root: a rank sends to its children at the step of its depth."""
    _, depth = _heights_depths(parents)
    steps = [[] for _ in range(max(depth) if parents else 0)]
    for r, p in enumerate(parents):
        if p >= 0:
            steps[depth[p]].append((p, r, nbytes))
    return steps


def _merge(*step_lists):
    """Run several step lists side by side: step i of the result is every list's step i."""
    out = [[] for _ in range(max((len(s) for s in step_lists), default=0))]
    for steps in step_lists:
        for i, step in enumerate(steps):
            out[i].extend(step)
    return out


def _tree(kind, n, count, size):
    tree1 = binary_tree_parents(n)
    whole = count * size
    if kind == "broadcast":
        return _tree_down(tree1, whole)
    if kind == "reduce":
        return _tree_up(tree1, whole)
    tree2 = _mirror(tree1, n)
    half1, half2 = (c * size for c in _chunks(count, 2))
    return (_merge(_tree_up(tree1, half1), _tree_up(tree2, half2))
            + _merge(_tree_down(tree1, half1), _tree_down(tree2, half2)))


# -- direct ----------------------------------------------------------------------------------

def _direct(kind, n, count, size):
    whole = count * size
    others = [(r, j) for r in range(n) for j in range(n) if j != r]
    if kind == "all_reduce":
        sizes = [c * size for c in _chunks(count, n)]
        return [[(r, j, sizes[j]) for r, j in others], [(r, j, sizes[r]) for r, j in others]]
    if kind in ("all_gather", "reduce_scatter"):
        return [[(r, j, whole) for r, j in others]]
    if kind == "all_to_all":
        return [[(r, j, whole // n) for r, j in others]]
    if kind == "broadcast":
        return [[(0, j, whole) for j in range(1, n)]]
    return [[(j, 0, whole) for j in range(1, n)]]                      # reduce


# -- recursive halving / doubling ------------------------------------------------------------

def _halving(n, sizes):
    """Recursive-halving reduce-scatter of chunks ``sizes``: at step i rank r holds the
    aligned range of n/2^i chunks containing chunk r and sends the half without it."""
    steps, span = [], n
    while span > 1:
        half = span // 2
        step = []
        for r in range(n):
            start = r - r % span
            lo = start + half if r % span < half else start
            step.append((r, r ^ half, sum(sizes[lo:lo + half])))
        steps.append(step)
        span = half
    return steps


def _doubling(n, sizes):
    """Recursive-doubling all-gather: at step i rank r sends its aligned range of 2^i chunks."""
    steps, span = [], 1
    while span < n:
        steps.append([(r, r ^ span, sum(sizes[r - r % span:r - r % span + span]))
                      for r in range(n)])
        span *= 2
    return steps


def _halving_doubling(kind, n, count, size):
    whole = count * size
    if kind == "all_reduce":
        sizes = [c * size for c in _chunks(count, n)]
        return _halving(n, sizes) + _doubling(n, sizes)
    if kind == "reduce_scatter":
        return _halving(n, [whole] * n)
    if kind == "all_gather":
        return _doubling(n, [whole] * n)
    if kind == "all_to_all":
        return [[(r, r ^ s, whole // n) for r in range(n)] for s in range(1, n)]
    spans = []
    span = 1
    while span < n:
        spans.append(span)
        span *= 2
    if kind == "broadcast":
        return [[(r, r + d, whole) for r in range(d)] for d in spans]
    return [[(r, r - d, whole) for r in range(d, 2 * d)] for d in reversed(spans)]   # reduce


# -- rendezvous (rt's in-process channel) ----------------------------------------------------

def rendezvous_bytes(kind, n, whole):
    """E: the all_reduce bytes that move as much host memory as ``kind`` on n ranks (whole:
    M, or b for all_gather / reduce_scatter; see the module docstring)."""
    return rendezvous_traffic(kind, n, whole) / rendezvous_traffic("all_reduce", n, 1)


def rendezvous_traffic(kind, n, whole):
    """Bytes read plus written by the rendezvous's computation of ``kind`` on n ranks
    (rt.runtime.hal.drivers._local_rendezvous ``_compute``): a copy of A bytes moves 2A, an
    accumulation of A into A 3A (two reads, one write)."""
    if kind == "all_gather":                 # n copies of each rank's b into every rank
        return 2 * n * n * whole
    if kind == "reduce_scatter":             # copy, n-1 accumulations of nb, n copies out of b
        return n * whole * (3 * n + 1)
    if kind == "all_to_all":                 # n^2 copies of M/n
        return 2 * n * whole
    if kind == "broadcast":                  # n-1 copies of M
        return 2 * (n - 1) * whole
    if kind == "reduce":                     # copy, n-1 accumulations of M
        return (3 * n - 1) * whole
    return (5 * n - 3) * whole               # all_reduce: copy, n-1 accumulations, n-1 copies out


def _rendezvous(kind, n, count, size):
    equivalent = round(rendezvous_bytes(kind, n, count * size))
    return _ring("all_reduce", n, equivalent, 1)


_BUILDERS = {"ring": _ring, "tree": _tree, "direct": _direct,
             "halving_doubling": _halving_doubling, RENDEZVOUS: _rendezvous}


def steps(kind, ranks, element_count, element_size, algorithm="ring", params=None):
    """Transfers of one collective over ``ranks`` participants (see the module docstring);
    ``algorithm`` one of ``ALGORITHMS`` (a kind it does not implement runs ``ring``)."""
    n = ranks
    if n <= 1 or element_count == 0 and kind != "send_recv":
        return []
    if kind in ("send_recv", "send", "recv"):
        whole = element_count * element_size
        return [[(r, target, whole) for r, (target, _) in sorted((params or {}).items())
                 if target is not None and target >= 0 and target != r]]
    if kind not in IMPLEMENTS["ring"]:
        raise ValueError(f"unknown collective kind {kind!r}")
    return _BUILDERS[runs(kind, n, algorithm)](kind, n, element_count, element_size)
