"""Tracing: a Chrome/Perfetto trace (``--trace=out.json``) with one lane per device queue.

Lanes (threads in the trace viewer):

* ``host``: the calling thread: each exported call (``EXEC @foo``) and every ``hal.fence.await``
  the program makes (the time the host waits for devices).
* ``<device> queue``: one per device: every queue operation from the moment the queue starts
  it to its end (``queue_execute``, ``queue_alloca``, ``queue_copy``...), with the recorded
  commands as arguments, and nested inside ``queue_execute`` one slice per dispatch, named
  after the executable export, with its workgroup count.
* ``<device> waits``: from submission to start, for operations whose wait fence was not
  reached when they were submitted.

The HAL has no tracing hooks, so the tracer attaches from outside: a device's ``queue`` is
wrapped by a proxy that times each submission, executables created through the traced ``hal``
module get their library wrapped to time each dispatch, and the ``hal`` module subclass labels
submissions. Fills and copies inside a command buffer run in one C loop and are not timed
individually (they appear in the ``queue_execute`` slice's ``commands``).
Format: the Trace Event Format's complete ("X") and metadata ("M") events, times in µs.
Source of the idea: IREE's Tracy zones per queue and dispatch (runtime/src/iree/base/tracing).
"""
import contextlib
import json
import os
import threading
import time

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.command_buffer import COPY, DISPATCH, FILL, KIND_NAMES, UPDATE
from rt.runtime.hal.drivers.local_queue import Submission
from rt.runtime.hal.executable_library import ExecutableLibrary
from rt.runtime.hal.module import HalModule
from rt.runtime.vm import native_function

#: How many dispatch names a queue_execute slice's name lists before "...".
NAMED_DISPATCHES = 3


def _command_text(command):
    kind = command[0]
    if kind == DISPATCH:
        _, executable, ordinal, counts, _, _ = command
        return f"dispatch {executable.exports[ordinal].name}[{counts[0]},{counts[1]},{counts[2]}]"
    if kind in (FILL, UPDATE):
        return f"{KIND_NAMES[kind]} {command[3] if kind == FILL else command[4]} B"
    if kind == COPY:
        return f"copy_buffer {command[5]} B"
    return KIND_NAMES[kind]


class Tracer:
    """Collects trace events from any thread; ``write(path)`` saves the Chrome JSON."""

    def __init__(self):
        self._t0 = time.perf_counter_ns()
        self._lock = threading.Lock()
        self._events = []
        self._lanes = {}
        self._pending = threading.local()
        self._queues = {}
        self.lane("host")

    def now(self):
        """Microseconds since the tracer was created."""
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def lane(self, name):
        """The thread id of lane ``name`` (created on first use, in order)."""
        with self._lock:
            tid = self._lanes.get(name)
            if tid is None:
                tid = self._lanes[name] = len(self._lanes) + 1
                self._events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid,
                                     "args": {"name": name}})
                self._events.append({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": tid,
                                     "args": {"sort_index": tid}})
            return tid

    def slice(self, lane, name, start, end, args=None):
        """Record a complete event on ``lane`` (a name) from ``start`` to ``end`` (µs)."""
        event = {"ph": "X", "name": name, "pid": 1, "tid": self.lane(lane), "ts": start,
                 "dur": max(0.0, end - start)}
        if args:
            event["args"] = args
        with self._lock:
            self._events.append(event)

    @contextlib.contextmanager
    def host_slice(self, name, args=None):
        """Time the ``with`` body on the ``host`` lane."""
        start = self.now()
        try:
            yield
        finally:
            self.slice("host", name, start, self.now(), args)

    @property
    def events(self):
        """A copy of the recorded events (metadata first, then slices in recording order)."""
        with self._lock:
            return list(self._events)

    def to_json(self):
        return {"traceEvents": self.events, "displayTimeUnit": "ms",
                "otherData": {"producer": "rt", "clock": "perf_counter, µs since tracer start"}}

    def write(self, path):
        """Write the trace to ``path`` (open it in ui.perfetto.dev or chrome://tracing)."""
        path = os.fspath(path)
        try:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(self.to_json(), f)
        except OSError as e:
            raise InvalidArgumentError(f"cannot write the trace to {path!r}: {e.strerror}") from None

    # -- attaching ---------------------------------------------------------------------------

    def queue_lane(self, device):
        return f"{device.label} queue"

    def instrument_device(self, device):
        """Wrap ``device.queue`` so that every submission is timed (idempotent)."""
        queue = getattr(device, "queue", None)
        if queue is None or isinstance(queue, _TracedQueue):
            return
        self._queues[device] = queue
        device.queue = _TracedQueue(queue, self, self.queue_lane(device), f"{device.label} waits")

    def detach_device(self, device):
        """Restore the device's own queue."""
        queue = self._queues.pop(device, None)
        if queue is not None:
            device.queue = queue

    def instrument_executable(self, executable):
        """Wrap ``executable.library`` so that each dispatch is timed on its device's lane."""
        if not isinstance(executable.library, _TracedLibrary):
            executable.library = _TracedLibrary(executable.library, self,
                                                self.queue_lane(executable.device))

    def hal_module(self, devices):
        """A ``hal`` module over ``devices`` labelling submissions for this tracer."""
        return TracingHalModule(self, devices)

    @contextlib.contextmanager
    def labelled(self, name, args):
        """Name the queue submission made on this thread inside the ``with`` body."""
        self._pending.label = (name, args)
        try:
            yield
        finally:
            self._pending.label = None

    def take_label(self, default):
        """(name, args) set by :meth:`labelled`, or ``(default, None)``; consumes it."""
        label = getattr(self._pending, "label", None)
        self._pending.label = None
        return label if label is not None else (default, None)


class _TracedQueue:
    """Proxy of a local device queue timing each submission's action."""

    def __init__(self, inner, tracer, lane, wait_lane):
        self._inner, self._tracer, self._lane, self._wait_lane = inner, tracer, lane, wait_lane

    def submit(self, submission):
        tracer = self._tracer
        name, args = tracer.take_label(submission.label)
        submitted = tracer.now()
        waiting = not submission.wait_fence.is_reached
        inner_action = submission.action

        def action():
            start = tracer.now()
            if waiting:
                tracer.slice(self._wait_lane, f"wait before {name}", submitted, start)
            try:
                inner_action()
            finally:
                tracer.slice(self._lane, name, start, tracer.now(), args)

        self._inner.submit(Submission(submission.wait_fence, submission.signal_fence, action,
                                      submission.label))

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _TracedLibrary(ExecutableLibrary):
    """An executable library whose dispatches are timed (other attributes forwarded)."""

    def __init__(self, inner, tracer, lane):
        self._inner, self._tracer, self._lane = inner, tracer, lane
        self.format, self.exports = inner.format, inner.exports

    def dispatch(self, ordinal, workgroup_count, constants, binding_ptrs, binding_lengths, threads=1):
        start = self._tracer.now()
        try:
            return self._inner.dispatch(ordinal, workgroup_count, constants, binding_ptrs,
                                        binding_lengths, threads)
        finally:
            self._tracer.slice(self._lane, self.exports[ordinal].name, start, self._tracer.now(),
                               {"workgroups": list(workgroup_count), "threads": threads})

    def __getattr__(self, name):
        return getattr(self._inner, name)


class TracingHalModule(HalModule):
    """The ``hal`` module, labelling queue submissions and timing host waits for a Tracer."""

    def __init__(self, tracer, devices, trace=None):
        super().__init__(devices, trace)
        self._tracer = tracer

    @native_function("executable.create", "0rIrrr_r")
    def executable_create(self, device, affinity, format, data, constants):
        executable = super().executable_create(device, affinity, format, data, constants)
        self._tracer.instrument_executable(executable)
        return executable

    @native_function("device.queue.execute", "0rIrrrI_v")
    def device_queue_execute(self, device, affinity, wait, signal, cb, flags):
        recorded = getattr(cb, "commands", ())
        dispatches = [c[1].exports[c[2]].name for c in recorded if c[0] == DISPATCH]
        name = "queue_execute"
        if dispatches:
            more = ", ..." if len(dispatches) > NAMED_DISPATCHES else ""
            name += ": " + ", ".join(dispatches[:NAMED_DISPATCHES]) + more
        with self._tracer.labelled(name, {"commands": [_command_text(c) for c in recorded]}):
            super().device_queue_execute(device, affinity, wait, signal, cb, flags)

    @native_function("device.queue.alloca", "0rIrrIiiII_r")
    def device_queue_alloca(self, device, affinity, wait, signal, pool, memory_types, usage, size, flags):
        with self._tracer.labelled("queue_alloca", {"bytes": size}):
            return super().device_queue_alloca(device, affinity, wait, signal, pool, memory_types,
                                               usage, size, flags)

    @native_function("device.queue.copy", "0rIrrrIrIII_v")
    def device_queue_copy(self, device, affinity, wait, signal, source, source_offset, target,
                          target_offset, length, flags):
        with self._tracer.labelled("queue_copy", {"bytes": length}):
            super().device_queue_copy(device, affinity, wait, signal, source, source_offset, target,
                                      target_offset, length, flags)

    @native_function("fence.await", "0iICrD_i")
    def fence_await(self, timeout_ms, flags, fences):
        with self._tracer.host_slice("fence.await", {"fences": len(fences)}):
            return super().fence_await(timeout_ms, flags, fences)
