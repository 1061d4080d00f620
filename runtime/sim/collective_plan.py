"""Which collective algorithm runs, over which dimensions, and its predicted α–β time.

``plan(topology, indices, kind, count, size, params, algorithm)`` gives the steps
(rt.runtime.sim.collective_model's form) of one collective whose rank r runs on topology
device ``indices[r]``, and a name for what ran:

* a flat algorithm (``ring``, ``tree``, ``direct``, ``halving_doubling``) over all ranks, in
  rank order (rt.runtime.sim.collective_model);
* ``hierarchical`` (a topology with dims whose ranks fill a sub-grid: every combination of the
  coordinates that vary among them): all_reduce = reduce-scatter along the first dimension,
  all_reduce across the others (hierarchically again), all-gather along the first dimension,
  as ASTRA-sim and NCCL run multi-dimensional collectives; all_gather goes dimension 0 first
  (block b, then b·n0, ...), reduce_scatter the same order with the blocks shrinking to b,
  broadcast outermost dimension first, reduce innermost first. Each phase runs on every line
  of its dimension at once, with the dimension's ``algorithm``. all_to_all, and ranks that
  do not fill a sub-grid, run the best flat algorithm;
* ``auto``: the algorithm (and for hierarchical, each dimension's) with the least predicted
  time for the message size.

Predicted times are the α–β closed forms (docs/MULTI_DEVICE.md §1b), with α the latency of a
hop (a switch's counted twice) and β the bandwidth of a link: for n ranks, M the bytes of an
all_reduce / broadcast / reduce buffer and b one rank's block:

* ring: all_reduce 2(n-1)(α + M/(nβ)); all_gather, reduce_scatter, all_to_all (n-1)(α + b/β)
  (all_to_all on a ring dimension: Σ_s min(s, n-s)·(α + b/β), its shifts cross several hops);
  broadcast, reduce (n-1)(α + M/β). The same on a switch.
* tree: all_reduce 2k(α + M/(2β)) with k = log2 n (switch: (k+1)(α + M/(2β)) + (k-1)(α + M/β),
  a rank sending to both children through its one port); broadcast and reduce k(α + M/β)
  (switch broadcast: (α + M/β) + (k-1)(α + 2M/β)).
* direct: all_reduce 2(α + M/(nβ)); all_gather, reduce_scatter, all_to_all α + b/β; broadcast,
  reduce α + M/β. On a switch the n-1 sends of a rank share its port: all_reduce
  2(α + (n-1)M/(nβ)), all_gather etc. α + (n-1)b/β, broadcast α + (n-1)M/β (reduce unchanged).
* halving_doubling: all_reduce 2kα + 2(n-1)M/(nβ); all_gather, reduce_scatter kα + (n-1)b/β;
  all_to_all (n-1)(α + b/β); broadcast, reduce k(α + M/β). The same on a switch.
* rendezvous (rt's in-process channel, never chosen by ``auto``): ring all_reduce over E bytes,
  E = collective_model.rendezvous_bytes (all_gather 2n²b/(5n-3)).

On a ring dimension of more than 3 devices, and for a flat algorithm across several dimensions,
only ``ring`` keeps (most) transfers one hop long; ``auto`` considers only ring there (the
others are allowed when asked for and simulated hop by hop, their many multi-hop transfers
sharing links: slow to simulate at hundreds of ranks).
"""
import math

from rt.runtime.sim import collective_model
from rt.runtime.sim.collective_model import ALGORITHMS, runs

FLAT_KINDS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce")


class Net:
    """The α–β view of a set of links: ``shape`` "fully_connected", "switch" or "ring";
    ``alpha`` µs per hop, ``beta`` bytes per µs."""

    __slots__ = ("shape", "alpha", "beta")

    def __init__(self, shape, alpha, beta):
        self.shape, self.alpha, self.beta = shape, alpha, beta


def dim_net(dim):
    """The ``Net`` of a topology dimension (a ring of at most 3 is fully connected)."""
    shape = "fully_connected" if dim.kind == "ring" and dim.size <= 3 else dim.kind
    alpha = 2 * dim.latency_us if dim.kind == "switch" else dim.latency_us
    return Net(shape, alpha, dim.bandwidth_gbps * 1e3)


def predict(kind, algorithm, n, nbytes, net):
    """Predicted µs of collective ``kind`` over ``n`` ranks with ``algorithm`` on ``net``
    (``nbytes`` = element count x element size as the collective counts it); ``math.inf``
    when the algorithm does not run ``kind`` itself or its steps are not one hop on ``net``."""
    if n <= 1 or nbytes == 0:
        return 0.0
    if algorithm == collective_model.RENDEZVOUS and kind in FLAT_KINDS:
        return predict("all_reduce", "ring", n, collective_model.rendezvous_bytes(kind, n, nbytes), net)
    if runs(kind, n, algorithm) != algorithm or (net.shape == "ring" and algorithm != "ring"):
        return math.inf
    a, B, switch = net.alpha, net.beta, net.shape == "switch"
    k = math.ceil(math.log2(n))
    b = nbytes / n if kind == "all_to_all" else nbytes
    if algorithm == "ring":
        if kind == "all_to_all" and net.shape == "ring":
            return sum(min(s, n - s) for s in range(1, n)) * (a + b / B)
        if kind == "all_reduce":
            return 2 * (n - 1) * (a + nbytes / (n * B))
        if kind in ("broadcast", "reduce"):
            return (n - 1) * (a + nbytes / B)
        return (n - 1) * (a + b / B)
    if algorithm == "tree":
        if kind == "all_reduce":
            if switch:
                return (k + 1) * (a + nbytes / (2 * B)) + (k - 1) * (a + nbytes / B)
            return 2 * k * (a + nbytes / (2 * B))
        if switch and kind == "broadcast":
            return (a + nbytes / B) + (k - 1) * (a + 2 * nbytes / B)
        return k * (a + nbytes / B)
    if algorithm == "direct":
        fan = n - 1 if switch else 1
        if kind == "all_reduce":
            return 2 * (a + fan * nbytes / (n * B))
        if kind == "reduce":
            return a + nbytes / B
        if kind == "broadcast":
            return a + fan * nbytes / B
        return a + fan * b / B
    if kind == "all_reduce":
        return 2 * k * a + 2 * (n - 1) * nbytes / (n * B)
    if kind in ("all_gather", "reduce_scatter"):
        return k * a + (n - 1) * b / B
    if kind == "all_to_all":
        return (n - 1) * (a + b / B)
    return k * (a + nbytes / B)


def best(kind, n, nbytes, net, choices=ALGORITHMS):
    """``(algorithm, predicted µs)`` with the least predicted time (ties: the first)."""
    return min(((alg, predict(kind, alg, n, nbytes, net)) for alg in choices),
               key=lambda pair: pair[1])


def _flat_net(topology, indices):
    """One ``Net`` standing for the links a flat algorithm over ``indices`` uses: the slowest
    dimension (or link) it spans. Its shape is "ring" (only ring predicted) unless every pair
    of ranks is one hop apart: one fully connected or switch dimension, or links joining every
    pair of a listed topology."""
    grid = topology.grid
    if grid is not None:
        coords = [grid.coords(i) for i in indices]
        active = [k for k in range(len(grid.dims)) if len({c[k] for c in coords}) > 1]
        nets = [dim_net(grid.dims[k]) for k in active] or [Net("fully_connected", 0.0, math.inf)]
        shape = nets[0].shape if len(nets) == 1 else "ring"
        return Net(shape, max(x.alpha for x in nets), min(x.beta for x in nets))
    names = {topology.devices[i].name for i in indices}
    among = [l for l in topology.links if l.between[0] in names and l.between[1] in names]
    if not among:
        return Net("ring", 0.0, 1.0)
    alpha = max(l.latency_us for l in among)
    beta = min(l.bandwidth_gbps for l in among) * 1e3
    every_pair = len(among) == len(names) * (len(names) - 1) // 2   # links join distinct pairs
    return Net("fully_connected" if every_pair else "ring", alpha, beta)


def _sub_grid(grid, indices):
    """The dimensions that vary among ``indices`` and each rank's coordinates, if the ranks
    fill every combination of them; else None."""
    coords = [grid.coords(i) for i in indices]
    active = [k for k in range(len(grid.dims)) if len({c[k] for c in coords}) > 1]
    if len(set(coords)) != len(coords) or len(coords) != math.prod(grid.dims[k].size for k in active):
        return None
    return active, coords


def _phase(grid, coords, root, dim, kind, count, size, algorithm, members=None):
    """Steps of ``kind`` run on every line of ``dim`` at once (lines through ``members``
    ranks only, when given): local rank = (coordinate - root's) mod size."""
    n = grid.dims[dim].size
    lines = {}
    for r, c in enumerate(coords):
        if members is None or members(c):
            key = c[:dim] + c[dim + 1:]
            lines.setdefault(key, [None] * n)[(c[dim] - root[dim]) % n] = r
    local = collective_model.steps(kind, n, count, size, algorithm)
    return [[(ranks[s], ranks[t], nbytes) for ranks in lines.values() for s, t, nbytes in step]
            for step in local]


def _choose(grid, dim, kind, count, size):
    d = grid.dims[dim]
    if d.algorithm != "auto":
        return d.algorithm
    return best(kind, d.size, count * size, dim_net(d))[0]


def _phases(grid, active, kind, count, root):
    """``(dim, kind, count, members)`` of each phase of a hierarchical collective (module
    docstring); ``members(coords)`` selects the lines that take part (None: every line)."""
    phases = []
    if kind == "all_reduce":
        for dim in active[:-1]:
            count = -(-count // grid.dims[dim].size)
            phases.append((dim, "reduce_scatter", count, None))
        phases.append((active[-1], "all_reduce", count, None))
        phases += [(dim, "all_gather", c, None) for dim, _, c, _ in reversed(phases[:-1])]
    elif kind == "all_gather":
        for dim in active:
            phases.append((dim, "all_gather", count, None))
            count *= grid.dims[dim].size
    elif kind == "reduce_scatter":
        for j, dim in enumerate(active):
            phases.append((dim, "reduce_scatter",
                           count * math.prod(grid.dims[k].size for k in active[j + 1:]), None))
    else:                             # broadcast (outermost first) / reduce (innermost first)
        order = list(reversed(active)) if kind == "broadcast" else list(active)
        for j, dim in enumerate(order):
            fixed = order[j + 1:] if kind == "broadcast" else order[:j]
            phases.append((dim, kind, count,
                           lambda c, fixed=fixed: all(c[k] == root[k] for k in fixed)))
    return phases


def _hierarchical(grid, active, coords, kind, count, size):
    """``(steps, {dim: algorithm})`` of a hierarchical collective."""
    steps, names = [], {}
    for dim, sub_kind, sub_count, members in _phases(grid, active, kind, count, coords[0]):
        algorithm = _choose(grid, dim, sub_kind, sub_count, size)
        names.setdefault(dim, runs(sub_kind, grid.dims[dim].size, algorithm))
        steps += _phase(grid, coords, coords[0], dim, sub_kind, sub_count, size, algorithm,
                        members)
    return steps, names


def predict_hierarchical(grid, active, kind, count, size):
    """Predicted µs of the hierarchical form of ``kind``: the sum of its phases' closed forms,
    each with the algorithm its dimension runs (``math.inf`` for all_to_all)."""
    if kind == "all_to_all":
        return math.inf
    total = 0.0
    for dim, sub_kind, sub_count, _ in _phases(grid, active, kind, count, None):
        d = grid.dims[dim]
        total += predict(sub_kind, _choose(grid, dim, sub_kind, sub_count, size), d.size,
                         sub_count * size, dim_net(d))
    return total


def plan(topology, indices, kind, count, size, params=None, algorithm=None):
    """``(name, steps)`` of one collective: rank r on topology device ``indices[r]``;
    ``algorithm`` defaults to the topology's. ``name`` says what ran: ``ring``,
    ``hierarchical(0:ring,1:direct)``, ..."""
    algorithm = algorithm or topology.algorithm
    n = len(indices)
    if kind not in FLAT_KINDS or n <= 1:
        return "direct" if kind in ("send_recv", "send", "recv") else "ring", \
            collective_model.steps(kind, n, count, size, "ring", params)
    grid = topology.grid
    sub = _sub_grid(grid, indices) if grid is not None else None
    if algorithm in ("hierarchical", "auto") and sub is not None and kind != "all_to_all":
        active, coords = sub
        flat = best(kind, n, count * size, _flat_net(topology, indices))
        if algorithm == "hierarchical" or (predict_hierarchical(grid, active, kind, count, size)
                                            < flat[1]):
            steps, names = _hierarchical(grid, active, coords, kind, count, size)
            inner = ",".join(f"{k}:{names[k]}" for k in active)
            return f"hierarchical({inner})", steps
    if algorithm in ("hierarchical", "auto"):
        algorithm = best(kind, n, count * size, _flat_net(topology, indices))[0]
        if predict(kind, algorithm, n, count * size, _flat_net(topology, indices)) == math.inf:
            algorithm = "ring"
    ran = runs(kind, n, algorithm)
    return ran, collective_model.steps(kind, n, count, size, ran, params)

