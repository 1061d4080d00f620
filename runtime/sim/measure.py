"""``MeasureSink``: how long an executor really took, per queue operation and per command.

A ``TraceSink`` installed on a simulated device's executor (the public tracing hook of
rt.runtime.hal.trace). The executor reports one zone per queue operation on its ``queue`` lane
(in submission order) and, nested in it, one zone per command carrying ``{"command": i}``;
the simulator's ``measured`` time model turns those durations into virtual time.
"""
import threading

from rt.runtime.hal.trace import TraceSink


class MeasureSink(TraceSink):
    """Durations (ns) of the executor's queue operations, numbered from 1 in submission order.

    ``notify()`` is called (on the executor's thread) whenever a duration becomes known, so
    a waiter can re-check ``duration``.
    """

    def __init__(self, notify):
        self._notify = notify
        self._lock = threading.Lock()
        self._stack = []
        self._ops = 0
        self._durations = {}

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        if lane.name != "queue":
            return
        with self._lock:
            if not self._stack:
                self._ops += 1
            command = (args or {}).get("command") if self._stack else None
            self._stack.append((timestamp_ns, command))

    def zone_end(self, lane, timestamp_ns, args=None):
        if lane.name != "queue":
            return
        with self._lock:
            start, command = self._stack.pop()
            if self._stack and command is None:
                return
            self._durations.setdefault(self._ops, {})[command] = timestamp_ns - start
        self._notify()

    def instant(self, lane, name, timestamp_ns, args=None):
        pass

    def duration(self, op, command):
        """ns of ``command`` (None: the whole operation) of the ``op``-th operation; None
        while unknown; 0 for a command the finished operation never reported."""
        with self._lock:
            known = self._durations.get(op)
            if known is None or (command not in known and None not in known):
                return None
            return known.get(command, 0)

    def forget(self, op):
        """Drop what is known about the ``op``-th operation (once it is accounted)."""
        with self._lock:
            self._durations.pop(op, None)
