"""Tracing: a Chrome/Perfetto trace (``--trace=out.json``) with one lane per device queue.

``Tracer`` is a ``TraceSink`` (rt.runtime.hal.trace): ``rt.load(..., tracer=t)`` installs it
on every device of the module (``device.set_trace_sink``) and on the ``hal`` module, and
times each exported call. What the HAL reports, the tracer writes as processes and threads
of the Trace Event Format:

* process ``host`` (pid 1), thread ``host``: each exported call (``EXEC @foo``) and every
  ``fence.await`` of the program (the time the host waits for devices).
* one process per device (pid 2, 3, ... in the order the devices were bound, named by the
  device label), thread ``<device> queue``: an instant when each queue operation is submitted
  (``submit queue_execute``), every queue operation from start to end (``queue_execute:
  <dispatch names>``, ``queue_alloca``, ``queue_copy``... with their wait/signal timepoints), and nested
  in ``queue_execute`` one slice per command (dispatches named after the export, with their
  workgroup count; fills, copies and updates with byte counts) and per debug group;
  thread ``<device> waits``: the time the queue's next operation waited for its wait fence.

Events are complete ("X"), instant ("i") and metadata ("M") events; times are µs since the
tracer was created (``time.perf_counter_ns`` clock). Zones still open when the trace is
written end at that moment and carry ``"unfinished": true``.
Source of the idea: IREE's Tracy zones per queue and dispatch (runtime/src/iree/base/tracing.h).
"""
import contextlib
import json
import os
import threading

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.trace import HOST_LANE, TraceSink, now_ns


class Tracer(TraceSink):
    """Collects zones from any thread; ``write(path)`` saves the Chrome JSON."""

    def __init__(self):
        self._t0 = now_ns()
        self._lock = threading.Lock()
        self._metadata = []
        self._events = []
        self._processes = {}
        self._lanes = {}
        self._open = {}
        self._clock = "perf_counter, µs since tracer start"
        with self._lock:
            self._ids(HOST_LANE)

    def use_virtual_clock(self):
        """Take timestamps as virtual nanoseconds from 0 (a simulation's clock, see
        rt.runtime.sim.virtual_trace); call before any event is recorded."""
        with self._lock:
            self._t0 = 0
            self._clock = "simulated: virtual µs since the simulation started"

    def now(self):
        """Microseconds since the tracer was created."""
        return self._us(now_ns())

    def _us(self, timestamp_ns):
        return (timestamp_ns - self._t0) / 1000.0

    def _ids(self, lane):
        """(pid, tid) of ``lane``, announced with metadata events on first use (lock held)."""
        ids = self._lanes.get(lane)
        if ids is not None:
            return ids
        pid = self._processes.get(lane.process)
        if pid is None:
            pid = self._processes[lane.process] = len(self._processes) + 1
            self._metadata += [
                {"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                 "args": {"name": lane.process}},
                {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                 "args": {"sort_index": pid}}]
        tid = len(self._lanes) + 1
        name = lane.name if lane.process == lane.name else f"{lane.process} {lane.name}"
        self._metadata += [
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}},
            {"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
             "args": {"sort_index": tid}}]
        ids = self._lanes[lane] = (pid, tid)
        return ids

    # -- TraceSink ---------------------------------------------------------------------------

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        with self._lock:
            self._ids(lane)
            self._open.setdefault(lane, []).append((str(name), timestamp_ns, args))

    def zone_end(self, lane, timestamp_ns, args=None):
        with self._lock:
            stack = self._open.get(lane)
            if not stack:
                raise InvalidArgumentError(f"trace: zone_end on lane {lane.process} "
                                           f"{lane.name} without an open zone")
            name, start, begin_args = stack.pop()
            self._complete(lane, name, start, timestamp_ns, begin_args, args)

    def declare_lane(self, lane):
        with self._lock:
            self._ids(lane)

    def instant(self, lane, name, timestamp_ns, args=None):
        with self._lock:
            pid, tid = self._ids(lane)
            event = {"ph": "i", "s": "t", "name": str(name), "pid": pid, "tid": tid,
                     "ts": self._us(timestamp_ns)}
            if args:
                event["args"] = dict(args)
            self._events.append(event)

    def _complete(self, lane, name, start_ns, end_ns, begin_args, end_args):
        pid, tid = self._ids(lane)
        event = {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": self._us(start_ns),
                 "dur": max(0.0, (end_ns - start_ns) / 1000.0)}
        if begin_args or end_args:
            event["args"] = {**(begin_args or {}), **(end_args or {})}
        self._events.append(event)

    # -- host lane ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def host_slice(self, name, args=None):
        """Time the ``with`` body as a zone on the ``host`` lane."""
        self.zone_begin(HOST_LANE, name, now_ns(), args)
        try:
            yield
        finally:
            self.zone_end(HOST_LANE, now_ns())

    # -- output ------------------------------------------------------------------------------

    @property
    def events(self):
        """A copy of the events: metadata first, then slices and instants as they completed,
        then zones still open (ending now, marked unfinished)."""
        end = now_ns()
        with self._lock:
            events = self._metadata + self._events
            for lane, stack in self._open.items():
                pid, tid = self._lanes[lane]
                for name, start, args in stack:
                    events.append({"ph": "X", "name": name, "pid": pid, "tid": tid,
                                   "ts": self._us(start), "dur": max(0.0, (end - start) / 1000.0),
                                   "args": {**(args or {}), "unfinished": True}})
            return events

    def to_json(self):
        return {"traceEvents": self.events, "displayTimeUnit": "ms",
                "otherData": {"producer": "rt", "clock": self._clock}}

    def write(self, path):
        """Write the trace to ``path`` whole or not at all (rt.runtime.atomic_write; open it in
        ui.perfetto.dev or chrome://tracing)."""
        path = os.fspath(path)
        atomic_write(path, json.dumps(self.to_json(), default=str), what="the trace")
