"""Tracing hooks of the HAL: zones and instants on lanes, delivered to a ``TraceSink``.

Modelled on IREE's instrumentation (runtime/src/iree/base/tracing.h: ``IREE_TRACE_ZONE_BEGIN``
/ ``_END`` zones on the thread running queue work, one zone per command buffer command in
runtime/src/iree/hal/local/inline_command_buffer.c). rt names the timeline a zone belongs to
explicitly (a *lane*) instead of using the OS thread, so a device's queue keeps one lane even
when a waiting thread donates itself to run its work.

A device with a sink (``device.set_trace_sink(sink)``) reports, on ``Lane(device.label,
"queue")``: an instant when a queue operation is submitted (``submit queue_execute``), one
zone per queue operation while it runs (``queue_execute: <dispatches>``, ``queue_alloca``,
``queue_dealloca``, ``queue_copy``, ``queue_fill``, ``queue_update``, ``queue_barrier``; args:
``wait`` / ``signal`` timepoints, bytes, commands) and, nested in ``queue_execute``, one zone
per recorded command (dispatches named after the export with ``workgroups``; fills, copies
and updates with ``bytes``) and one per debug group around its commands; on
``Lane(device.label, "waits")``: a zone while the queue's next operation waits for its wait
fence (args: the ``timepoints`` still pending). The ``hal`` VM module reports
``fence.await`` on ``HOST_LANE``. Without a sink nothing is timed (one ``None`` check).

Timestamps are ``time.perf_counter_ns()`` values (CLOCK_MONOTONIC on Linux; the Cython replay
loop reads the same clock). Zones on one lane nest: every ``zone_begin`` is matched by a
``zone_end`` on the same lane, in LIFO order, also when the work fails (its end carries
``{"error": message}``).
"""
import abc
import time

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.record import Record

now_ns = time.perf_counter_ns


class Lane(Record):
    """One timeline: ``process`` (a device label, or ``"host"``) and ``name`` within it
    (``"queue"``, ``"waits"``, ``"host"``)."""

    __slots__ = ("process", "name")


HOST_LANE = Lane("host", "host")


class TraceSink(abc.ABC):
    """Receives zones and instants from any thread; implementations must be thread-safe.

    lane: a ``Lane``; name: str; timestamp_ns: int (``time.perf_counter_ns`` clock);
    args: None or a dict of JSON-serializable values, possibly shared between events (read,
    do not modify). A sink must not call back into the HAL object that reported the event;
    an exception it raises fails the queue work being traced.
    """

    @abc.abstractmethod
    def zone_begin(self, lane, name, timestamp_ns, args=None):
        """Open a zone called ``name`` on ``lane``."""

    @abc.abstractmethod
    def zone_end(self, lane, timestamp_ns, args=None):
        """Close the innermost open zone of ``lane``; ``args`` are merged into it."""

    @abc.abstractmethod
    def instant(self, lane, name, timestamp_ns, args=None):
        """Record a point event on ``lane``."""

    def declare_lane(self, lane):
        """Announce ``lane`` before its first event (a device does so when the sink is
        installed, so viewers list devices in installation order). Default: nothing."""


def check_sink(sink, where):
    """Return ``sink`` if it is a ``TraceSink`` or None; else raise ``InvalidArgumentError``."""
    if sink is not None and not isinstance(sink, TraceSink):
        raise InvalidArgumentError(f"{where}: expected an rt.runtime.hal.trace.TraceSink or "
                                   f"None, got {type(sink).__name__}")
    return sink


def timepoint_texts(fence, pending_only=False):
    """``["semaphore 0 of local-task://vmvx#1 >= 1", ...]`` for a fence (None -> [])."""
    if fence is None:
        return []
    return [f"{semaphore.label} >= {value}" for semaphore, value in fence.timepoints
            if not (pending_only and semaphore.is_reached(value))]
