"""A link's measured time per message size: what one α–β line cannot follow.

A topology link may carry, beside its ``latency_us`` and ``bandwidth_gbps`` (the α–β line,
kept for readers and for the closed forms that choose a collective's algorithm), a ``table``
of measured points, as nccl-tests reports a link per message size::

    links:
      - between: [cpu0, cpu1]
        bandwidth_gbps: 2.9
        latency_us: 21
        table: [[12288, 27.5], [786432, 160.2], [3145728, 1210.0]]   # [bytes, µs]

Each point is ``[S bytes, µs]``: the time of one transfer of S bytes alone on the link. The
time of any size is piecewise linear in the bytes through the points (between two measured
sizes the link is the α–β line through them, so a table whose points lie on one α–β line
reproduces that line everywhere); below the first point, the line through the first two
points down to its intercept (at least 0, at most the first time); beyond the last point, the
line through the last two. Why: on a host the time per byte changes where the messages leave
the caches (an all_reduce of 1 MiB moved at 3 GB/s, one of 4 MiB at 1.6 GB/s on the 2-core
development machine), a cliff one line fitted over 8 KiB–8 MiB lies across.

How the engine uses it (rt.runtime.sim.engine.Link): a transfer of B bytes waits the table's
``latency_us`` (the intercept above), then its bytes flow at ``B / (time(B) - latency)``
bytes/µs, shared with the link's other transfers as every transfer's bytes are; alone it takes
exactly ``time(B)``.

How ``rt calibrate`` measures it (rt.runtime.sim.calibration): a sweep of sizes 1.5 · 2^k
(as nccl-tests sweeps sizes; not the validation programs' sizes): for the in-process and MPI
``collective`` links, a call of one all_reduce of S bytes over N ranks minus a call of
``@nop``, divided by the ring's 2(N-1) steps, is the time of one step's transfer of S/N
bytes; for ``copy`` links, ``queue_copy`` of S bytes between two devices. A time above
that of a larger size (noise: load only adds time) is lowered to it: a link is never faster
for more bytes.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class LinkTable:
    """``points``: ``((bytes, µs), ...)``, sizes strictly increasing (> 0), times positive and
    non-decreasing; at least two points. Build with ``from_points`` (sorts, raises falling
    times) or ``parse`` (a topology's ``table``, checked)."""

    points: tuple

    @classmethod
    def from_points(cls, points):
        """A table from measured ``(bytes, µs)`` points (one per size, in any order), sorted by
        size; a time above a larger size's is lowered to it (noise on a shared host only adds
        time), times at or below 0 raised to 1e-3 µs.
        ValueError for fewer than two sizes or a size given twice."""
        ordered = sorted((int(s), float(t)) for s, t in points)
        if len({s for s, _ in ordered}) != len(ordered) or len(ordered) < 2:
            raise ValueError(f"a link table needs two or more distinct sizes, got {ordered!r}")
        out, ceiling = [], float("inf")
        for size, us in reversed(ordered):
            ceiling = max(1e-3, min(ceiling, us))
            out.append((size, ceiling))
        return cls(tuple(reversed(out)))

    @property
    def latency_us(self):
        """The zero-byte time: the first two points' line at 0 bytes, within [0, first time]."""
        (s0, t0), (s1, t1) = self.points[:2]
        slope = (t1 - t0) / (s1 - s0)
        return min(t0, max(0.0, t0 - slope * s0))

    def time_us(self, nbytes):
        """µs of one transfer of ``nbytes`` alone (module docstring)."""
        points = self.points
        if nbytes <= points[0][0]:
            alpha = self.latency_us
            return alpha + (points[0][1] - alpha) * nbytes / points[0][0]
        for (s0, t0), (s1, t1) in zip(points, points[1:]):
            if nbytes <= s1:
                return t0 + (t1 - t0) * (nbytes - s0) / (s1 - s0)
        (s0, t0), (s1, t1) = points[-2:]
        return t1 + (t1 - t0) * (nbytes - s1) / (s1 - s0)

    def rate(self, nbytes):
        """Bytes per µs of a transfer of ``nbytes`` in its byte phase (after ``latency_us``);
        ``inf`` when the table gives it no time beyond the latency."""
        beyond = self.time_us(nbytes) - self.latency_us
        return nbytes / beyond if beyond > 0 else float("inf")

    def to_list(self):
        return [[s, t] for s, t in self.points]


def parse(reader, value, path):
    """``LinkTable`` from a topology link's ``table`` (a list of ``[bytes, µs]``); ``reader``
    (the topology reader) cites the file, line and field on bad input: not a list of two or
    more pairs, a size that is not a positive whole number or not larger than the one before,
    a time that is not a positive number or falls below the one before."""
    if not isinstance(value, list) or len(value) < 2:
        reader.fail(path, f"expected a list of two or more [bytes, us] points, got {value!r:.60}")
    points = []
    for i, pair in enumerate(value):
        where = tuple(path) + (i,)
        if not isinstance(pair, list) or len(pair) != 2:
            reader.fail(where, f"expected a [bytes, us] pair, got {pair!r:.60}")
        size = reader.size(pair[0], where + (0,))
        us = reader.number(pair[1], where + (1,), unit=" (µs)")
        if size <= 0 or (points and size <= points[-1][0]):
            reader.fail(where + (0,), f"sizes must be positive and increase, got {size} after "
                                      f"{points[-1][0] if points else 'nothing'}")
        if points and us < points[-1][1]:
            reader.fail(where + (1,), f"times must not fall as sizes grow, got {us} us after "
                                      f"{points[-1][1]} us")
        points.append((size, us))
    return LinkTable(tuple(points))
