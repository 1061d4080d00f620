"""Hierarchical topologies: devices on a grid of dimensions, links generated per dimension.

A topology may declare its network compactly, as ASTRA-sim's network files do, instead of
listing links::

    dims:                                    # dimension 0 first (the innermost)
      - {size: 8, kind: fully_connected, bandwidth_gbps: 450, latency_us: 0.5}
      - {size: 32, kind: switch, bandwidth_gbps: 50, latency_us: 2, algorithm: ring}
    device: {uri: local-task://llvm-cpu, memory: 80GiB}   # every device (name: a prefix)

Device ``i`` has coordinates ``(c0, c1, ...)`` with ``i = c0 + n0*c1 + n0*n1*c2 + ...``
(ASTRA-sim's NPU numbering) and is called ``npu<i>`` (or ``<prefix><i>``); a ``devices:`` list
of exactly that many devices names them instead. The devices that differ only in coordinate
``k`` form a *line* of dimension ``k``, linked by its ``kind``:

* ``ring``: coordinate c is linked to c+1 (mod size): a bidirectional ring; 2D/3D tori are
  several ring dimensions;
* ``fully_connected``: every pair of the line has a link of its own;
* ``switch``: each device has one port (a link to ``sw<k>.<line>``); a transfer to any other
  device of the line uses the sender's port: its bytes once at ``bandwidth_gbps``, the latency
  twice (up to the switch and down again, as ASTRA-sim counts a switch hop), the transfers
  leaving one device sharing its port (contention at the receiving port is not modelled).

Transfers between devices route dimension by dimension (dimension-order routing: dimension 0
first), on a ring the shorter way round (forward on a tie), hop after hop like any route
(rt.runtime.sim.simulation). Each dimension's ``algorithm`` (ring, tree, direct,
halving_doubling, or auto: the least predicted time) runs its phase of a hierarchical
collective (rt.runtime.sim.collective_plan).

Limits: at most ``MAX_DIMS`` dimensions, ``MAX_DEVICES`` devices and ``MAX_LINKS`` generated
links (a fully connected dimension of n has n(n-1)/2 links per line: use a switch for large n).
"""
import math
from dataclasses import dataclass

KINDS = ("ring", "fully_connected", "switch")
DIM_ALGORITHMS = ("auto", "ring", "tree", "direct", "halving_doubling")
DIM_FIELDS = ("size", "kind", "bandwidth_gbps", "latency_us", "algorithm")
MAX_DIMS = 8
MAX_DEVICES = 65536
MAX_LINKS = 200_000
DEFAULT_PREFIX = "npu"


@dataclass(frozen=True)
class DimSpec:
    """One dimension: ``size`` devices per line, ``kind`` (ring | fully_connected | switch),
    ``bandwidth_gbps`` (1e9 B/s per link and direction), ``latency_us`` per hop (a switch
    counts it twice), ``algorithm`` of its phase of a hierarchical collective."""

    size: int
    kind: str
    bandwidth_gbps: float
    latency_us: float = 0.0
    algorithm: str = "auto"

    def to_dict(self):
        return {"size": self.size, "kind": self.kind, "bandwidth_gbps": self.bandwidth_gbps,
                "latency_us": self.latency_us, "algorithm": self.algorithm}


def read_dims(reader, value, path=("dims",)):
    """Validated ``DimSpec``s of a ``dims:`` list; errors through ``reader.fail``."""
    if not isinstance(value, list) or not value:
        reader.fail(path, f"expected a non-empty list of dimensions, got {reader.describe(value)}")
    if len(value) > MAX_DIMS:
        reader.fail(path, f"at most {MAX_DIMS} dimensions, got {len(value)}")
    dims = []
    for k, entry in enumerate(value):
        where = path + (k,)
        d = reader.mapping(entry, where, DIM_FIELDS, required=("size", "kind", "bandwidth_gbps"))
        size = d["size"]
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_DEVICES:
            reader.fail(where + ("size",), f"expected a whole number of devices from 1 to "
                                           f"{MAX_DEVICES}, got {reader.describe(size)}")
        kind = reader.choice(d["kind"], where + ("kind",), KINDS)
        bandwidth = reader.number(d["bandwidth_gbps"], where + ("bandwidth_gbps",), unit=" (GB/s)")
        latency = (reader.number(d["latency_us"], where + ("latency_us",), strict=False, unit=" (µs)")
                   if "latency_us" in d else 0.0)
        algorithm = reader.choice(d.get("algorithm", "auto"), where + ("algorithm",), DIM_ALGORITHMS)
        dims.append(DimSpec(size, kind, bandwidth, latency, algorithm))
    count = math.prod(d.size for d in dims)
    if count > MAX_DEVICES:
        reader.fail(path, f"{' x '.join(str(d.size) for d in dims)} = {count} devices; at most "
                          f"{MAX_DEVICES}")
    links = link_count(dims)
    if links > MAX_LINKS:
        reader.fail(path, f"these dimensions make {links} links, more than {MAX_LINKS}: use a "
                          "switch (one link per device) for a large fully connected dimension")
    return tuple(dims)


def device_count(dims):
    return math.prod(d.size for d in dims)


def link_count(dims):
    """How many links ``generate`` makes for ``dims``."""
    total = device_count(dims)
    count = 0
    for d in dims:
        lines = total // d.size
        per_line = {"ring": d.size if d.size > 2 else d.size - 1,
                    "fully_connected": d.size * (d.size - 1) // 2,
                    "switch": d.size if d.size > 1 else 0}[d.kind]
        count += lines * per_line
    return count


def switch_name(dim, line):
    """The endpoint name of the switch of line ``line`` of dimension ``dim``."""
    return f"sw{dim}.{line}"


class Grid:
    """Coordinates, lines and routes of the devices ``names`` (in index order) on ``dims``."""

    def __init__(self, dims, names):
        self.dims, self.names = tuple(dims), tuple(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.strides = [math.prod(d.size for d in self.dims[:k]) for k in range(len(self.dims))]

    def coords(self, index):
        """The coordinates of device ``index``."""
        return tuple((index // s) % d.size for s, d in zip(self.strides, self.dims))

    def line(self, index, dim):
        """The line number of device ``index`` along ``dim`` (its index with coordinate
        ``dim`` dropped)."""
        below = self.strides[dim]
        return index % below + (index // (below * self.dims[dim].size)) * below

    def moved(self, index, dim, coordinate):
        """The device index with coordinate ``dim`` set to ``coordinate``."""
        c = self.coords(index)[dim]
        return index + (coordinate - c) * self.strides[dim]

    def links(self):
        """``(a, b, dim)`` endpoint pairs of every generated link, dimension by dimension."""
        out = []
        for k, d in enumerate(self.dims):
            for i, name in enumerate(self.names):
                c = self.coords(i)[k]
                if d.kind == "switch":
                    if d.size > 1:
                        out.append((name, switch_name(k, self.line(i, k)), k))
                elif d.kind == "ring":
                    if c + 1 < d.size or (d.size > 2 and c + 1 == d.size):
                        out.append((name, self.names[self.moved(i, k, (c + 1) % d.size)], k))
                else:
                    for other in range(c + 1, d.size):
                        out.append((name, self.names[self.moved(i, k, other)], k))
        return out

    def route(self, source, target):
        """Directed ``(a, b)`` hops from device ``source`` to ``target`` (names), dimension 0
        first; on a ring the shorter way round, forward on a tie."""
        here, goal = self.index[source], self.index[target]
        hops = []
        for k, d in enumerate(self.dims):
            c, t = self.coords(here)[k], self.coords(goal)[k]
            if c == t:
                continue
            if d.kind == "switch":
                hops.append((self.names[here], switch_name(k, self.line(here, k))))
                here = self.moved(here, k, t)
            elif d.kind == "fully_connected":
                nxt = self.moved(here, k, t)
                hops.append((self.names[here], self.names[nxt]))
                here = nxt
            else:
                forward = (t - c) % d.size
                step = 1 if forward <= d.size - forward else -1
                while c != t:
                    c = (c + step) % d.size
                    nxt = self.moved(here, k, c)
                    hops.append((self.names[here], self.names[nxt]))
                    here = nxt
        return tuple(hops)

