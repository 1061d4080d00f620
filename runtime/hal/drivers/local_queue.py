"""Device queues of the local drivers: submissions run in order once their wait fences settle.

A submission is (wait fence, signal fence, action, label). The head of the queue runs when its
wait fence is *settled*: reached -> run the action and signal; failed -> do not run, fail the
signal fence with an error naming this queue and the cause (propagation). An action that
raises fails the signal fence the same way. Nothing blocks on an unreached fence: queues learn
of progress through fence callbacks (IREE's semaphore timepoints).

``InlineQueue`` (local-sync, after IREE's local_sync/sync_device.c) runs work on the thread
that submits it, or — if its wait fence is not reached yet — on the thread that reaches it.
``ThreadQueue`` (local-task, after IREE's local_task/task_queue.c) runs work on one dedicated
thread per device.
"""
import collections
import threading

from rt.runtime.errors import DeviceError, RtError


class Submission:
    """One queue operation; ``label`` names it in errors (e.g. ``"queue_execute"``)."""

    __slots__ = ("wait_fence", "signal_fence", "action", "label")

    def __init__(self, wait_fence, signal_fence, action, label):
        self.wait_fence, self.signal_fence = wait_fence, signal_fence
        self.action, self.label = action, label


class _Queue:
    def __init__(self, label):
        self.label = label

    def _run(self, submission):
        failure = submission.wait_fence.failure
        if failure is not None:
            error = DeviceError(f"{self.label}: {submission.label} not run: its wait fence "
                                f"failed: {failure}")
            error.__cause__ = failure
            submission.signal_fence.fail(error)
            return
        try:
            submission.action()
        except Exception as cause:
            error = DeviceError(f"{self.label}: {submission.label} failed: {cause}")
            error.__cause__ = cause
            submission.signal_fence.fail(error)
            return
        try:
            submission.signal_fence.signal()
        except RtError:
            pass  # a signal semaphore failed meanwhile: its failure is what waiters see


class InlineQueue(_Queue):
    """In-order queue executed by whichever thread makes it ready."""

    def __init__(self, label):
        super().__init__(label)
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
                elif self._recheck:
                    self._recheck = False
                    continue
                else:
                    self._draining = False
                    if head is not None and self._armed is not head:
                        self._armed = arm = head
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
        for submission in dropped:
            submission.signal_fence.fail(DeviceError(f"{self.label}: {submission.label} not "
                                                     f"run: {reason}"))


class ThreadQueue(_Queue):
    """In-order queue executed by its own daemon thread."""

    def __init__(self, label):
        super().__init__(label)
        self._cond = threading.Condition()
        self._pending = collections.deque()
        self._armed = None
        self._closed = None
        self._thread = threading.Thread(target=self._loop, name=label, daemon=True)
        self._thread.start()

    def submit(self, submission):
        with self._cond:
            if self._closed is not None:
                raise DeviceError(f"{self.label}: cannot submit {submission.label}: "
                                  f"{self._closed}")
            self._pending.append(submission)
            self._cond.notify()

    def _wake(self):
        with self._cond:
            self._cond.notify()

    def _next(self):
        with self._cond:
            while True:
                if self._pending:
                    head = self._pending[0]
                    if head.wait_fence.is_settled:
                        return self._pending.popleft()
                    if self._armed is not head:
                        self._armed = head
                        head.wait_fence.on_settled(self._wake)
                        continue
                elif self._closed is not None:
                    return None
                self._cond.wait()

    def _loop(self):
        while True:
            submission = self._next()
            if submission is None:
                return
            self._run(submission)

    def close(self, reason):
        """Stop accepting work, fail pending submissions with ``reason``, join the thread."""
        with self._cond:
            if self._closed is not None:
                return
            self._closed = reason
            dropped = list(self._pending)
            self._pending.clear()
            self._cond.notify()
        for submission in dropped:
            submission.signal_fence.fail(DeviceError(f"{self.label}: {submission.label} not "
                                                     f"run: {reason}"))
        if threading.current_thread() is not self._thread:
            self._thread.join()
