"""Device queues of the local drivers: submissions run in order once their wait fences settle.

A submission is (wait fence, signal fence, action, label). The head of the queue runs when its
wait fence is *settled*: reached -> run the action and signal; failed -> do not run, fail the
signal fence with an error naming this queue and the cause (propagation). An action that
raises fails the signal fence the same way. Nothing blocks on an unreached fence: queues learn
of progress through fence callbacks (IREE's semaphore timepoints). At most one submission of
a queue runs at a time, in submission order.

``InlineQueue`` (local-sync, after IREE's local_sync/sync_device.c) runs work on the thread
that submits it, or — if its wait fence is not reached yet — on the thread that reaches it.
``ThreadQueue`` (local-task, after IREE's local_task/task_queue.c) runs work on one dedicated
thread per device; a thread that waits for a semaphore this queue will signal may *donate*
itself (``donate``, after ``iree_task_executor_donate_caller`` in runtime/src/iree/task/
executor.h): while the queue is idle it runs the queue's ready submissions itself instead of
sleeping until the queue thread has woken up, run them and woken it back. Work stays ordered
and exclusive either way; a submit-then-wait round trip then costs no thread switch.

Tracing: with ``sink`` set (a ``TraceSink``), each submission is a zone on ``lane`` and the
time the head waits for its wait fence a zone on ``waits_lane`` (see rt.runtime.hal.trace).
"""
import collections
import threading

from rt.runtime.errors import DeviceError, RtError
from rt.runtime.hal.trace import now_ns, timepoint_texts


class Submission:
    """One queue operation.

    label: names it in errors (``"queue_execute"``); name / args: its trace zone (name None =
    label); action: ``action(sink)`` does the work (sink: the TraceSink or None).
    """

    __slots__ = ("wait_fence", "signal_fence", "action", "label", "name", "args")

    def __init__(self, wait_fence, signal_fence, action, label, name=None, args=None):
        self.wait_fence, self.signal_fence = wait_fence, signal_fence
        self.action, self.label = action, label
        self.name, self.args = name, args


class _Queue:
    """Shared execution and tracing of one submission; ``sink`` is set by the device."""

    sink = None

    def __init__(self, label, lane=None, waits_lane=None):
        self.label, self.lane, self.waits_lane = label, lane, waits_lane
        self._waiting = None

    def _execute(self, submission, sink):
        """Run or propagate; with a sink, close the submission's zone before the signal fence
        is signalled or failed (so a waiter never sees the work end before its zone does)."""
        failure = submission.wait_fence.failure
        if failure is not None:
            error = DeviceError(f"{self.label}: {submission.label} not run: its wait fence "
                                f"failed: {failure}")
            error.__cause__ = failure
        else:
            try:
                submission.action(sink)
                error = None
            except Exception as cause:
                error = DeviceError(f"{self.label}: {submission.label} failed: {cause}")
                error.__cause__ = cause
        if sink is not None:
            sink.zone_end(self.lane, now_ns(), None if error is None else {"error": str(error)})
        if error is not None:
            submission.signal_fence.fail(error)
            return
        try:
            submission.signal_fence.signal()
        except RtError:
            pass  # a signal semaphore failed meanwhile: its failure is what waiters see

    def _run(self, submission):
        sink = self.sink
        if sink is None:
            self._execute(submission, None)
            return
        try:
            sink.zone_begin(self.lane, submission.name or submission.label, now_ns(),
                            submission.args)
            self._execute(submission, sink)
        except Exception as cause:
            error = DeviceError(f"{self.label}: tracing {submission.label} failed: {cause}")
            error.__cause__ = cause
            submission.signal_fence.fail(error)

    @staticmethod
    def _tracing_failed(submission, cause):
        """A sink raised while the queue holds its lock (where failing a fence could re-enter
        the queue): make the submission fail with the cause when it runs instead."""
        def action(sink):
            raise DeviceError(f"tracing its wait failed: {cause}") from cause

        submission.action = action

    def _open_wait(self, head):
        """Start the waits-lane zone of ``head`` (caller holds the queue's lock)."""
        sink = self.sink
        if sink is None:
            return
        pending = timepoint_texts(head.wait_fence, pending_only=True)
        if not pending:
            return
        more = f" (+{len(pending) - 1} more)" if len(pending) > 1 else ""
        try:
            sink.zone_begin(self.waits_lane, f"wait {pending[0]}{more}", now_ns(),
                            {"timepoints": pending, "for": head.name or head.label})
        except Exception as cause:
            self._tracing_failed(head, cause)
            return
        self._waiting = (head, sink)

    def _close_wait(self, head):
        """End ``head``'s waits-lane zone if one is open (caller holds the queue's lock)."""
        waiting = self._waiting
        if waiting is not None and waiting[0] is head:
            self._waiting = None
            try:
                waiting[1].zone_end(self.waits_lane, now_ns())
            except Exception as cause:
                self._tracing_failed(head, cause)

    def donate(self, done):
        """Run ready work on the calling thread until ``done()``; True if anything ran."""
        return False


class InlineQueue(_Queue):
    """In-order queue executed by whichever thread makes it ready."""

    def __init__(self, label, lane=None, waits_lane=None):
        super().__init__(label, lane, waits_lane)
        self._lock = threading.Lock()
        self._pending = collections.deque()
        self._draining = False
        self._recheck = False
        self._armed = None

    def submit(self, submission):
        with self._lock:
            self._pending.append(submission)
        self._drain()

    def _drain(self):
        with self._lock:
            if self._draining:
                self._recheck = True
                return
            self._draining = True
        while True:
            arm = None
            with self._lock:
                head = self._pending[0] if self._pending else None
                ready = head is not None and head.wait_fence.is_settled
                if ready:
                    self._pending.popleft()
                    self._close_wait(head)
                elif self._recheck:
                    self._recheck = False
                    continue
                else:
                    self._draining = False
                    if head is not None and self._armed is not head:
                        self._armed = arm = head
                        self._open_wait(head)
            if ready:
                self._run(head)
                continue
            if arm is not None:
                arm.wait_fence.on_settled(self._drain)
            return

    def close(self, reason):
        """Fail every pending submission's signal fence with ``reason``."""
        with self._lock:
            dropped = list(self._pending)
            self._pending.clear()
            if dropped:
                self._close_wait(dropped[0])
        for submission in dropped:
            submission.signal_fence.fail(DeviceError(f"{self.label}: {submission.label} not "
                                                     f"run: {reason}"))


class ThreadQueue(_Queue):
    """In-order queue executed by its own daemon thread (or a donating waiter)."""

    def __init__(self, label, lane=None, waits_lane=None):
        super().__init__(label, lane, waits_lane)
        self._lock = threading.Lock()
        self._wake = threading.Lock()  # held = nothing new; released = look at the queue
        self._wake.acquire()
        self._pending = collections.deque()
        self._busy = False
        self._armed = None
        self._closed = None
        self._thread = threading.Thread(target=self._loop, name=label, daemon=True)
        self._thread.start()

    def submit(self, submission):
        for semaphore, _ in submission.signal_fence.timepoints:
            semaphore.producer = self
        with self._lock:
            if self._closed is not None:
                raise DeviceError(f"{self.label}: cannot submit {submission.label}: "
                                  f"{self._closed}")
            self._pending.append(submission)
        self._signal()

    def _signal(self):
        """Wake the queue thread (idempotent until it next looks at the queue)."""
        try:
            self._wake.release()
        except RuntimeError:
            pass  # already signalled

    def _claim(self, donor=False):
        """``(submission, None)`` to run now, ``(None, head)`` to arm, or ``(None, None)``.

        A donor that claims work also takes back a pending wake-up of the queue thread (it
        re-signals in ``_finish`` if work is left), so a thread still asleep stays asleep.
        """
        with self._lock:
            if self._busy or not self._pending:
                return None, None
            head = self._pending[0]
            if head.wait_fence.is_settled:
                self._pending.popleft()
                self._busy = True
                self._close_wait(head)
                if donor and self._closed is None:
                    self._wake.acquire(False)
                return head, None
            if self._armed is head:
                return None, None
            self._armed = head
            self._open_wait(head)
            return None, head

    def _finish(self):
        with self._lock:
            self._busy = False
            more = bool(self._pending)
        if more:
            self._signal()

    def _loop(self):
        while True:
            self._wake.acquire()
            while True:
                submission, arm = self._claim()
                if submission is not None:
                    self._run(submission)
                    self._finish()
                elif arm is not None:
                    arm.wait_fence.on_settled(self._signal)
                else:
                    break
            if self._closed is not None and not self._pending:
                return

    def donate(self, done):
        """Run this queue's ready submissions on the calling thread while the queue thread is
        idle, until ``done()`` is true or nothing is ready; True if anything ran."""
        ran = False
        while not done():
            submission, arm = self._claim(donor=True)
            if arm is not None:
                arm.wait_fence.on_settled(self._signal)
            if submission is None:
                break
            try:
                self._run(submission)
            finally:
                self._finish()
            ran = True
        return ran

    def close(self, reason):
        """Stop accepting work, fail pending submissions with ``reason``, join the thread."""
        with self._lock:
            if self._closed is not None:
                return
            self._closed = reason
            dropped = list(self._pending)
            self._pending.clear()
            if dropped:
                self._close_wait(dropped[0])
            self._signal()  # under the lock: no donor can take this wake-up back
        for submission in dropped:
            submission.signal_fence.fail(DeviceError(f"{self.label}: {submission.label} not "
                                                     f"run: {reason}"))
        if threading.current_thread() is not self._thread:
            self._thread.join()
