"""Traces in virtual time: one lane per device queue, per link and per host.

The simulation records every zone as it completes (queue operations and their stages on the
device's ``queue`` lane; each transfer on its link's lane, a second lane ``link #2`` when
transfers overlap, and so on; host calls and waits on the host's lane at the host's virtual
clock) and ``flush()`` hands them to a ``TraceSink`` (an ``rt.Tracer`` on a virtual clock)
sorted by ``(start, lane, depth)``: the same run gives the same events in the same order,
whatever the threads did. Timestamps are virtual nanoseconds (µs * 1000).

``listeners`` (e.g. rt.runtime.sim.chakra_trace.ChakraRecorder) get every finished stage
(``stage_end(op, stage, failure)``) and operation (``op_end(op)``) as it completes, whether or
not a sink records zones.
"""
import threading

from rt.runtime.hal.trace import HOST_LANE, Lane, TraceSink

LINKS = "links"


def _ns(us):
    return us * 1000.0


class VirtualTrace:
    """Zones in virtual time for ``sink`` (None: nothing is recorded)."""

    def __init__(self):
        self.sink = None
        self.listeners = []
        self._lock = threading.Lock()
        self._lanes = {}
        self._zones = []
        self._open = {}
        self._slots = {}

    # -- lanes -------------------------------------------------------------------------------

    def declare(self, devices, directions):
        for device in devices:
            self.declare_lane(Lane(device.name, "queue"))
        for link in directions:
            self.declare_lane(Lane(LINKS, link.name))

    def declare_lane(self, lane):
        with self._lock:
            self._lanes.setdefault(lane, len(self._lanes))

    def _record(self, lane, name, start, end, args, depth):
        if self.sink is None:
            return
        with self._lock:
            order = self._lanes.setdefault(lane, len(self._lanes))
            self._zones.append((start, order, depth, len(self._zones), lane, name, end, args))

    # -- queue operations --------------------------------------------------------------------

    def submitted(self, op):
        """Nothing: submissions are host events, drawn by the host lanes' calls."""

    def op_begin(self, op):
        if self.sink is not None:
            self._open[(op.device.index, op.ordinal)] = op.start

    def op_end(self, op):
        for listener in self.listeners:
            listener.op_end(op)
        if self.sink is None:
            return
        start = self._open.pop((op.device.index, op.ordinal), op.start)
        args = dict(op.args, submission=op.ordinal)
        if op.failure is not None:
            args["error"] = str(op.failure)
        self._record(Lane(op.device.name, "queue"), op.name, start, op.device.simulation
                     .engine.now, args, 0)

    def stage_begin(self, op, stage):
        pass

    def stage_end(self, op, stage, failure):
        for listener in self.listeners:
            listener.stage_end(op, stage, failure)
        if self.sink is None:
            return
        args = dict(stage.args)
        if failure is not None:
            args["error"] = str(failure)
        self._record(Lane(op.device.name, "queue"), stage.name, op.stage_start,
                     op.device.simulation.engine.now, args, 1)

    def transfer(self, link, label, start, end, nbytes):
        """A finished transfer, on the first lane of ``link`` that is free at ``start``."""
        if self.sink is None:
            return
        slots = self._slots.setdefault(link.name, [])
        for slot, busy_until in enumerate(slots):
            if busy_until <= start:
                break
        else:
            slot = len(slots)
            slots.append(0.0)
        slots[slot] = end
        name = link.name if slot == 0 else f"{link.name} #{slot + 1}"
        self._record(Lane(LINKS, name), label or "transfer", start, end, {"bytes": nbytes}, 0)

    # -- hosts -------------------------------------------------------------------------------

    def host_zone(self, lane, name, start, end, args, depth=0):
        self._record(lane, name, start, end, args, depth)

    def flush(self):
        """Give the recorded zones to ``sink`` in (start, lane, depth) order; forget them."""
        sink = self.sink
        if sink is None:
            return
        with self._lock:
            zones, self._zones = sorted(self._zones, key=lambda z: z[:4]), []
            lanes = sorted(self._lanes, key=self._lanes.get)
        for lane in lanes:
            sink.declare_lane(lane)
        for start, _, _, _, lane, name, end, args in zones:
            sink.zone_begin(lane, name, _ns(start), args)
            sink.zone_end(lane, _ns(end))


class HostSink(TraceSink):
    """The trace sink a simulated program's host side reports to (``EXEC @f`` calls and
    ``fence.await``): zones on the calling host's lane at its virtual clock."""

    def __init__(self, simulation):
        self.simulation = simulation
        self._stacks = {}

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        if lane != HOST_LANE:
            return
        sim = self.simulation
        host = sim.current_host()
        self._stacks.setdefault(id(host), []).append((name, host.time, args))

    def zone_end(self, lane, timestamp_ns, args=None):
        if lane != HOST_LANE:
            return
        sim = self.simulation
        host = sim.current_host()
        stack = self._stacks.get(id(host))
        if not stack:
            return
        name, start, begin_args = stack.pop()
        merged = {**(begin_args or {}), **(args or {})} or None
        sim.trace.host_zone(host.lane, name, start, host.time, merged, len(stack))

    def instant(self, lane, name, timestamp_ns, args=None):
        pass
