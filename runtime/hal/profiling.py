"""Device profiling: dispatch, queue and memory events of a run, with IREE's mode names.

``DeviceProfiler(modes)`` is a ``TraceSink`` (rt.runtime.hal.trace): installed on the devices
like a tracer, it receives the same zones ``--trace`` writes and keeps, per mode
(``--device_profiling_mode``, IREE's names):

* ``dispatch-events``: one event per dispatch: device, queue, executable, entry (export name),
  ordinal, workgroup count, ``start_ns`` / ``end_ns``, ``binding_bytes`` (the bytes of its
  bindings: what it may read and write) and ``flops`` (the compiler's estimate,
  ``Executable.costs``; None when a size is dynamic).
* ``queue-events``: one event per queue operation: device, queue, op (``queue_execute``,
  ``queue_alloca``...), ``submit_ns`` (when the host submitted it), ``start_ns`` / ``end_ns``
  (when the queue ran it).
* ``memory-events``: one event per ``queue_alloca`` / ``queue_dealloca`` with its bytes, and
  at the end each device's allocator statistics (``peak_bytes``: the high-water mark of its
  heap, synchronous allocations included).

Times are nanoseconds since the profiler was created (``time.perf_counter_ns`` clock, the one
the trace uses, so profile and trace agree). ``to_json(devices)`` is the ``--device_profiling_output``
document (``{"format": "rt-device-profile", "version": 1, ...}``), read by ``rt profile``.
Source followed: IREE's ``--device_profiling_mode`` / ``--device_profiling_output`` flags
(runtime/src/iree/tooling/device_util.c) for the names; the event fields are rt's.
"""
import collections
import threading

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.trace import TraceSink, now_ns

MODES = ("queue-events", "dispatch-events", "memory-events")
FORMAT = "rt-device-profile"
VERSION = 1


def parse_modes(text):
    """The modes of a ``--device_profiling_mode`` comma list (an empty text: every mode).

    Raises ``InvalidArgumentError`` naming an unknown mode and the known ones.
    """
    modes = [m.strip() for m in (text or "").split(",") if m.strip()]
    for mode in modes:
        if mode not in MODES:
            from difflib import get_close_matches

            near = get_close_matches(mode, MODES, 1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise InvalidArgumentError(f"--device_profiling_mode: unknown mode {mode!r}{hint}; "
                                       f"modes: {', '.join(MODES)}")
    return tuple(modes) or MODES


class DeviceProfiler(TraceSink):
    """Collects profile events from the zones devices report (thread-safe)."""

    def __init__(self, modes=MODES):
        self.modes = tuple(modes)
        self._t0 = now_ns()
        self._lock = threading.Lock()
        self._open = {}
        self._submitted = {}
        self.dispatches, self.queue_events, self.memory_events = [], [], []

    def _ns(self, timestamp_ns):
        return timestamp_ns - self._t0

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        with self._lock:
            self._open.setdefault(lane, []).append((str(name), timestamp_ns, args))

    def zone_end(self, lane, timestamp_ns, args=None):
        with self._lock:
            stack = self._open.get(lane)
            if not stack:
                return
            name, start, begin = stack.pop()
            begin = begin or {}
            if not lane.name.startswith("queue"):
                return
            where = {"device": lane.process, "queue": lane.name,
                     "start_ns": self._ns(start), "end_ns": self._ns(timestamp_ns)}
            if stack:
                if "executable" in begin and "ordinal" in begin and "dispatch-events" in self.modes:
                    self.dispatches.append(dict(
                        where, executable=begin["executable"], entry=name, ordinal=begin["ordinal"],
                        workgroups=list(begin["workgroups"]),
                        binding_bytes=int(sum(begin.get("bindings", ()))), flops=begin.get("flops")))
                return
            op = name.partition(":")[0]
            pending = self._submitted.get(lane)
            submit = pending.popleft() if pending else None
            if "queue-events" in self.modes:
                self.queue_events.append(dict(where, op=op, submit_ns=submit,
                                              failed="error" in (args or {})))
            if op in ("queue_alloca", "queue_dealloca") and "memory-events" in self.modes:
                self.memory_events.append(dict(where, op=op, bytes=int(begin.get("bytes", 0))))

    def instant(self, lane, name, timestamp_ns, args=None):
        if str(name).startswith("submit "):
            with self._lock:
                self._submitted.setdefault(lane, collections.deque()).append(self._ns(timestamp_ns))

    def to_json(self, devices=()):
        """The profile document; ``devices`` (HAL devices) add their URIs and, with
        ``memory-events``, their allocator statistics."""
        with self._lock:
            document = {"format": FORMAT, "version": VERSION, "clock": "ns since profiling began",
                        "modes": list(self.modes), "span_ns": self._ns(now_ns()),
                        "devices": [], "dispatches": list(self.dispatches),
                        "queue_events": list(self.queue_events),
                        "memory_events": list(self.memory_events)}
        for device in devices:
            entry = {"label": device.label, "uri": device.uri}
            if "memory-events" in self.modes:
                stats = device.allocator.query_statistics()
                entry["memory"] = {"peak_bytes": stats.bytes_peak,
                                   "allocated_bytes": stats.bytes_allocated,
                                   "freed_bytes": stats.bytes_freed, "live_bytes": stats.bytes_live,
                                   "allocations": stats.allocation_count, "frees": stats.free_count}
            document["devices"].append(entry)
        return document


class TeeSink(TraceSink):
    """A ``TraceSink`` that forwards every event to each of ``sinks`` in order."""

    def __init__(self, sinks):
        self.sinks = tuple(sinks)

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        for sink in self.sinks:
            sink.zone_begin(lane, name, timestamp_ns, args)

    def zone_end(self, lane, timestamp_ns, args=None):
        for sink in self.sinks:
            sink.zone_end(lane, timestamp_ns, args)

    def instant(self, lane, name, timestamp_ns, args=None):
        for sink in self.sinks:
            sink.instant(lane, name, timestamp_ns, args)

    def declare_lane(self, lane):
        for sink in self.sinks:
            sink.declare_lane(lane)

