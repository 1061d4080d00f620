# cython: language_level=3
"""Device queues of the local drivers: submissions run in order once their wait fences settle.

A submission is (wait fence, signal fence, work, label): command buffers to execute (with the
submission's binding table) or a Python action. The head of a queue runs when its wait fence is
*settled*: reached -> run the work and signal; failed -> do not run, fail the signal fence with
an error naming this queue and the cause (propagation). Work that raises fails the signal fence
the same way; the error keeps the original exception as its cause. Work interrupted by Ctrl-C
fails it too before the ``KeyboardInterrupt`` goes on, so no waiter is left on a fence nobody
will signal and the queue stays usable (issue 13). Nothing blocks on an
unreached fence: queues learn of progress through fence callbacks (IREE's semaphore
timepoints). At most one submission of a queue runs at a time, in submission order.

``InlineQueue`` (local-sync, after IREE's local_sync/sync_device.c) runs work on the thread
that submits it, or — if its wait fence is not reached yet — on the thread that reaches it. A
local-sync device gives each submitting thread its own inline queue (IREE's sync device runs
everything on its caller): threads calling into one device run side by side, each in order.
``ThreadQueue`` (local-task, after IREE's local_task/task_queue.c) runs work on one dedicated
thread per device, under the deadline of the call that submitted it (``f(..., timeout=)``); a thread that waits for a semaphore this queue will signal may *donate*
itself (``donate``, after ``iree_task_executor_donate_caller`` in runtime/src/iree/task/
executor.h): while the queue is idle it runs the queue's ready submissions itself instead of
sleeping until the queue thread has woken up, run them and woken it back.

A thread that holds back wake-ups (an SPMD rank's synchronous call, rt.runtime.vm._interp
``hold_wakes``) submits without waking the queue thread: it will wait for the work and run
it itself; the queue thread is woken (``wake_held``) only if work is left when that thread
blocks, submits to another queue, calls a Python import or ends its call. A donor wakes the
queue thread for what is left once it stops, not between two submissions it runs.

Threading: queue state changes with the GIL held (the lock that orders them); work runs with
the GIL released where it computes (dispatches, large transfers) and the queue thread sleeps on
a POSIX semaphore without it.

Tracing: with ``sink`` set (a ``TraceSink``), each submission is a zone on ``lane`` and the
time the head waits for its wait fence a zone on ``waits_lane`` (see rt.runtime.hal.trace).
"""
import collections
import threading

from libc.stdint cimport uint32_t

from rt.runtime.errors import DeviceError, RtError
from rt.runtime.hal._buffer cimport Buffer
from rt.runtime.hal._command_buffer cimport CommandBuffer
from rt.runtime.hal._fence cimport Fence
from rt.runtime.hal._semaphore cimport Semaphore
from rt.runtime.hal.drivers._heap_allocator cimport HeapAllocator
from rt.runtime.hal.drivers._replay cimport BindingTable, execute_command_buffer
from rt.runtime.hal.trace import now_ns, timepoint_texts
from rt.runtime.vm._interp import (current_call_site, held_wakes, release_held_wakes,
                                   set_thread_deadline, thread_deadline)

cdef extern from "<semaphore.h>" nogil:
    ctypedef struct sem_t:
        pass
    int sem_init(sem_t* sem, int pshared, unsigned int value)
    int sem_destroy(sem_t* sem)
    int sem_post(sem_t* sem)
    int sem_wait(sem_t* sem)
    int sem_trywait(sem_t* sem)


cdef class Submission:
    """One queue operation.

    label: names it in errors (``"queue_execute"``); name / args: its trace zone (name None =
    label); action: ``action(sink)`` does the work (sink: the TraceSink or None), or None for
    an execution of ``command_buffers`` with binding table ``table`` on ``threads`` workers.
    """

    def __init__(self, wait_fence, signal_fence, action, label, name=None, args=None):
        self.wait_fence, self.signal_fence = wait_fence, signal_fence
        self.action, self.label = action, label
        self.name, self.args = name, args

    cdef int perform(self, object sink, object lane) except -1:
        cdef Buffer buffer
        if self.kind == EXECUTE:
            for cb in self.command_buffers:
                execute_command_buffer(cb, self.table, self.threads, sink, lane, self.caller)
        elif self.kind == ALLOCA:
            buffer = <Buffer>self.operand
            (<HeapAllocator>buffer.allocator).commit_allocation(buffer.allocation)
        elif self.kind == DEALLOCA:
            buffer = <Buffer>self.operand
            (<HeapAllocator>buffer.allocator).release_buffer(buffer)
        elif self.action is not None:
            self.action(sink)
        return 0


cdef Submission operation(Fence wait, Fence signal, object action, str label):
    """A submission running ``action(sink)`` (None: nothing, a barrier)."""
    cdef Submission s = Submission.__new__(Submission)
    s.wait_fence, s.signal_fence, s.action, s.label = wait, signal, action, label
    s.kind = ACTION
    return s


cdef Submission execution(Fence wait, Fence signal, tuple command_buffers, BindingTable table,
                          uint32_t threads, str label):
    """A submission executing ``command_buffers`` (C entry of queue_execute). A command buffer
    whose dispatches carry call sites also gets the submitting call site, so that a failure in a
    replayed (memoized) command buffer names the function the user called."""
    cdef Submission s = Submission.__new__(Submission)
    cdef CommandBuffer cb
    s.wait_fence, s.signal_fence, s.label = wait, signal, label
    s.kind, s.command_buffers, s.table, s.threads = EXECUTE, command_buffers, table, threads
    for cb in command_buffers:
        if cb.sources:
            s.caller = current_call_site()
            break
    return s


cdef class _Queue:
    """Shared execution and tracing of one submission; ``sink`` is set by the device."""

    def __init__(self, label, lane=None, waits_lane=None):
        self.label, self.lane, self.waits_lane = label, lane, waits_lane

    cdef int _execute(self, Submission submission, object sink) except -1:
        """Run or propagate; with a sink, close the submission's zone before the signal fence
        is signalled or failed (so a waiter never sees the work end before its zone does)."""
        failure = submission.wait_fence.failure_c()
        error = None
        if failure is not None:
            error = DeviceError(f"{self.label}: {submission.label} not run: its wait fence "
                                f"failed: {failure}")
            error.__cause__ = failure
        else:
            previous = None if submission.deadline is None else set_thread_deadline(submission.deadline)
            try:
                submission.perform(sink, self.lane)
            except Exception as cause:
                error = DeviceError(f"{self.label}: {submission.label} failed: {cause}")
                error.__cause__ = cause
            except BaseException as interrupt:
                # Ctrl-C (or SystemExit) while this thread ran the work: fail the signal fence
                # so that nothing waits on it forever, then let the interrupt go on.
                error = DeviceError(f"{self.label}: {submission.label} was interrupted "
                                    f"({type(interrupt).__name__}); its results are undefined")
                if sink is not None:
                    sink.zone_end(self.lane, now_ns(), {"error": str(error)})
                submission.signal_fence.fail_c(error)
                raise
            finally:
                if submission.deadline is not None:
                    set_thread_deadline(previous)
        if sink is not None:
            sink.zone_end(self.lane, now_ns(), None if error is None else {"error": str(error)})
        if error is not None:
            submission.signal_fence.fail_c(error)
            return 0
        try:
            submission.signal_fence.signal_c()
        except RtError:
            pass  # a signal semaphore failed meanwhile: its failure is what waiters see
        return 0

    cdef int _run(self, Submission submission) except -1:
        sink = self.sink
        if sink is None:
            return self._execute(submission, None)
        try:
            sink.zone_begin(self.lane, submission.name or submission.label, now_ns(),
                            submission.args)
            self._execute(submission, sink)
        except Exception as cause:
            error = DeviceError(f"{self.label}: tracing {submission.label} failed: {cause}")
            error.__cause__ = cause
            submission.signal_fence.fail_c(error)
        return 0

    @staticmethod
    def _tracing_failed(Submission submission, cause):
        """A sink raised while the queue was updating its state: make the submission fail with
        the cause when it runs instead."""
        def action(sink):
            raise DeviceError(f"tracing its wait failed: {cause}") from cause

        submission.kind, submission.action = ACTION, action

    cdef int _open_wait(self, Submission head) except -1:
        """Start the waits-lane zone of ``head``."""
        sink = self.sink
        if sink is None:
            return 0
        pending = timepoint_texts(head.wait_fence, pending_only=True)
        if not pending:
            return 0
        more = f" (+{len(pending) - 1} more)" if len(pending) > 1 else ""
        try:
            sink.zone_begin(self.waits_lane, f"wait {pending[0]}{more}", now_ns(),
                            {"timepoints": pending, "for": head.name or head.label})
        except Exception as cause:
            self._tracing_failed(head, cause)
            return 0
        self._waiting = (head, sink)
        return 0

    cdef int _close_wait(self, Submission head) except -1:
        """End ``head``'s waits-lane zone if one is open."""
        waiting = self._waiting
        if waiting is not None and waiting[0] is head:
            self._waiting = None
            try:
                waiting[1].zone_end(self.waits_lane, now_ns())
            except Exception as cause:
                self._tracing_failed(head, cause)
        return 0

    cdef int submit_c(self, Submission submission) except -1:
        raise NotImplementedError

    def submit(self, Submission submission):
        """Queue ``submission``; it runs once its wait fence settles, after earlier ones."""
        self.submit_c(submission)

    def donate(self, done):
        """Run ready work on the calling thread until ``done()``; True if anything ran."""
        return False


cdef class InlineQueue(_Queue):
    """In-order queue executed by whichever thread makes it ready."""

    def __init__(self, label, lane=None, waits_lane=None):
        _Queue.__init__(self, label, lane, waits_lane)
        self._pending = collections.deque()

    cdef int submit_c(self, Submission submission) except -1:
        self._pending.append(submission)
        return self._drain()

    def _settled(self):
        self._drain()

    cdef int _drain(self) except -1:
        cdef Submission head, arm
        cdef bint ready
        if self._draining:
            self._recheck = True
            return 0
        self._draining = True
        while True:
            arm = None
            head = self._pending[0] if self._pending else None
            ready = head is not None and head.wait_fence.settled_c()
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
                try:
                    self._run(head)
                except BaseException:
                    self._draining = False
                    raise
                continue
            if arm is not None:
                arm.wait_fence.on_settled(self._settled)
            return 0

    def close(self, reason):
        """Fail every pending submission's signal fence with ``reason``."""
        cdef Submission submission
        dropped = list(self._pending)
        self._pending.clear()
        if dropped:
            self._close_wait(dropped[0])
        for submission in dropped:
            submission.signal_fence.fail_c(DeviceError(f"{self.label}: {submission.label} not "
                                                       f"run: {reason}"))


cdef class ThreadQueue(_Queue):
    """In-order queue executed by its own daemon thread (or a donating waiter)."""

    def __cinit__(self):
        sem_init(&self._wake, 0, 0)

    def __dealloc__(self):
        sem_destroy(&self._wake)

    def __init__(self, label, lane=None, waits_lane=None):
        _Queue.__init__(self, label, lane, waits_lane)
        self._pending = collections.deque()
        self._thread = threading.Thread(target=self._loop, name=label, daemon=True)
        self._thread.start()

    cdef int submit_c(self, Submission submission) except -1:
        cdef Semaphore semaphore
        if self._closed is not None:
            raise DeviceError(f"{self.label}: cannot submit {submission.label}: {self._closed}")
        for semaphore in submission.signal_fence._semaphores:
            semaphore.producer = self
        submission.deadline = thread_deadline()
        self._pending.append(submission)
        held = held_wakes()
        if held is None or self._signalled:
            self._signal()
        elif not held or held[0] is not self:
            # The caller holds back wake-ups (a synchronous call, rt.runtime.vm._interp):
            # it will run this work itself when it waits. A queue it submitted to before
            # starts now, side by side with this one (a pipeline's earlier stage), so a
            # thread holds at most one queue.
            release_held_wakes()
            held.append(self)
        return 0

    def wake_held(self):
        """Wake the queue thread for work a caller held back, if that work is still queued."""
        if self._pending and not self._busy:
            self._signal()

    cdef void _signal(self) noexcept:
        """Wake the queue thread (idempotent until it next looks at the queue)."""
        if not self._signalled:
            self._signalled = True
            sem_post(&self._wake)

    def _signal_callback(self):
        self._signal()

    cdef tuple _claim(self, bint donor):
        """``(submission, None)`` to run now, ``(None, head)`` to arm, or ``(None, None)``.

        A donor that claims work also takes back a pending wake-up of the queue thread (it
        re-signals in ``_finish`` if work is left), so a thread still asleep stays asleep.
        """
        cdef Submission head
        if self._busy or not self._pending:
            return None, None
        head = self._pending[0]
        if head.wait_fence.settled_c():
            self._pending.popleft()
            self._busy = True
            self._close_wait(head)
            if donor and self._closed is None and self._signalled and sem_trywait(&self._wake) == 0:
                self._signalled = False
            return head, None
        if self._armed is head:
            return None, None
        self._armed = head
        self._open_wait(head)
        return None, head

    cdef int _finish(self) except -1:
        self._busy = False
        if self._pending:
            self._signal()
        return 0

    def _loop(self):
        cdef Submission submission, arm
        while True:
            with nogil:
                sem_wait(&self._wake)
            self._signalled = False
            while True:
                submission, arm = self._claim(False)
                if submission is not None:
                    try:
                        self._run(submission)
                    finally:
                        self._finish()
                elif arm is not None:
                    arm.wait_fence.on_settled(self._signal_callback)
                else:
                    break
            if self._closed is not None and not self._pending:
                return

    def donate(self, done):
        """Run this queue's ready submissions on the calling thread while the queue thread is
        idle, until ``done()`` is true or nothing is ready; True if anything ran."""
        cdef Submission submission, arm
        held = held_wakes()   # at most one queue: submit_c releases the one before
        if held and held[0] is not self:
            release_held_wakes()  # that queue runs on its own thread meanwhile
        ran = False
        try:
            while not done():
                submission, arm = self._claim(True)
                if arm is not None:
                    arm.wait_fence.on_settled(self._signal_callback)
                if submission is None:
                    break
                try:
                    self._run(submission)
                finally:
                    # Not _finish(): the queue thread is woken for what is left once this
                    # thread stops running it, not between two submissions it runs.
                    self._busy = False
                ran = True
        finally:
            if self._pending and not self._busy and not (held and held[0] is self):
                self._signal()
        return ran

    @property
    def thread(self):
        """The ``threading.Thread`` that runs this queue's work."""
        return self._thread

    def close(self, reason):
        """Stop accepting work, fail pending submissions with ``reason``, join the thread."""
        cdef Submission submission
        if self._closed is not None:
            return
        self._closed = reason
        dropped = list(self._pending)
        self._pending.clear()
        if dropped:
            self._close_wait(dropped[0])
        self._signal()
        for submission in dropped:
            submission.signal_fence.fail_c(DeviceError(f"{self.label}: {submission.label} not "
                                                       f"run: {reason}"))
        if threading.current_thread() is not self._thread:
            self._thread.join()
