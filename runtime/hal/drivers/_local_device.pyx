# cython: language_level=3
"""The queue operations of the local devices, in C (``LocalDevice`` adds the rest).

After IREE's runtime/src/iree/hal/drivers/local_sync/sync_device.c and
local_task/task_device.c. Every queue operation takes a *wait fence* (run once it is reached)
and a *signal fence* (signalled when the work is done, or failed with the error if it failed
or its wait fence failed — propagation, never a hang); either may be None: no wait, or a fresh
fence that the call returns. Bad arguments raise at the call; failures while executing only
ever reach the signal fence.

Queues: a local-task device runs one ``ThreadQueue``; a local-sync device gives each
submitting thread its own ``InlineQueue`` (work runs on its caller, as IREE's sync device
does), so Python threads calling into one device — the same module or several — run side by
side, each in submission order; work of different threads is ordered only by fences. The
first queue of a device is traced on lane ``queue``, further ones on ``queue 1``, ``queue 2``...

Every local device's heap is host memory, so local devices share the ``"host"`` transfer
domain: ``queue_copy`` may read or write another local device's buffer (one side must be this
device's); every other queue operation only takes this device's buffers. With a trace sink
each queue operation is an instant when submitted (``submit queue_fill``) and a zone named
after it while it runs, with its wait/signal timepoints and sizes as args.

Recording (HAL replay, rt.runtime.hal.replay_recorder): with ``recorder`` set, ``submit_c`` —
the one point every queue operation passes — calls ``recorder.submit(device, label, payload,
table, wait_fence, signal_fence)`` before queueing it; payload: the command buffers of a
``queue_execute``, the buffer of a ``queue_alloca``/``queue_dealloca``, the one-command command
buffer of a transfer, None for a barrier. Without a recorder it costs one ``None`` check.

The ``hal`` VM module calls the ``*_c`` methods directly (no Python frames) when the device's
queue operations are not overridden by a Python subclass (``direct_queue``); a subclass that
overrides one (a simulator's hook) is called through Python instead.
"""
import threading
import weakref

from libc.stdint cimport uint32_t, uint64_t

from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal._buffer cimport Buffer, describe
from rt.runtime.hal._buffer import BufferUsage, MemoryType
from rt.runtime.hal._command_buffer cimport CommandBuffer
from rt.runtime.hal._command_buffer import CommandBufferMode, CommandCategory
from rt.runtime.hal._fence cimport Fence, new_fence, single_fence
from rt.runtime.hal._semaphore cimport Semaphore, device_semaphore
from rt.runtime.hal.drivers._heap_allocator cimport HeapAllocator
from rt.runtime.hal.drivers._local_queue cimport (ALLOCA, DEALLOCA, EXECUTE, InlineQueue, Submission,
                                                   ThreadQueue, _Queue, execution, operation)
from rt.runtime.hal.drivers._replay cimport BindingTable
from rt.runtime.hal._validation cimport Site, queue_site
from rt.runtime.hal.drivers._replay import binding_table as make_binding_table, execute
from rt.runtime.hal.trace import Lane, now_ns, timepoint_texts

#: How many dispatch names a queue_execute zone's name lists before "...".
NAMED_DISPATCHES = 3
#: The operations the hal module calls in C unless a subclass overrides them.
QUEUE_OPERATIONS = ("queue_alloca", "queue_dealloca", "queue_execute", "queue_barrier",
                    "create_command_buffer")


cdef class LocalDeviceCore:
    """Queues, fences and queue operations of a local device; ``LocalDevice`` is the class."""

    def _init_queues(self, per_thread):
        """Set up the queues: one per submitting thread (local-sync) or one queue thread."""
        self._local = threading.local() if per_thread else None
        self._queues = weakref.WeakSet()
        if not per_thread:
            self._shared = ThreadQueue(f"{self.label} queue 0", Lane(self.label, "queue"),
                                       Lane(self.label, "waits"))
            self._queues.add(self._shared)
        base = type(self)
        self.direct_queue = all(getattr(base, name) is getattr(LocalDeviceCore, name)
                                for name in QUEUE_OPERATIONS)

    def create_command_buffer(self, mode=CommandBufferMode.DEFAULT,
                              categories=CommandCategory.ANY, binding_capacity=0):
        """A new command buffer of this device (initial state; see CommandBuffer)."""
        return CommandBuffer(self, mode, categories, binding_capacity)

    cdef _Queue queue_c(self):
        """The queue work submitted by the calling thread goes to."""
        cdef _Queue queue
        cdef int k
        if self._shared is not None:
            return self._shared
        queue = getattr(self._local, "queue", None)
        if queue is None:
            k = self._queue_count
            self._queue_count += 1
            name = "queue" if k == 0 else f"queue {k}"
            queue = InlineQueue(f"{self.label} queue {k}", Lane(self.label, name),
                                Lane(self.label, "waits" if k == 0 else f"waits {k}"))
            queue.sink = self.trace_sink
            if self.trace_sink is not None and k:
                self.trace_sink.declare_lane(queue.lane)
            self._local.queue = queue
            self._queues.add(queue)
        return queue

    @property
    def queue(self):
        """The queue of the calling thread (local-sync) or the device's queue (local-task)."""
        return self.queue_c()

    @property
    def queue_threads(self):
        """The threads this device runs queue work on (local-task: its queue thread; local-sync
        runs work on the submitting threads and has none)."""
        return [q.thread for q in list(self._queues) if isinstance(q, ThreadQueue)]

    def _sink_changed(self):
        for queue in list(self._queues):
            (<_Queue>queue).sink = self.trace_sink

    # -- fences ------------------------------------------------------------------------------

    cdef Site site_c(self):
        """The validation site of this device's queue operations (made once)."""
        if self._site is None:
            self._site = queue_site(self)
        return self._site

    cdef Semaphore semaphore_c(self, uint64_t initial_value):
        cdef long long ordinal = self._semaphore_count
        self._semaphore_count += 1
        return device_semaphore(initial_value, self, ordinal)

    def create_semaphore(self, initial_value=0):
        """A new timeline semaphore with payload ``initial_value``."""
        semaphore = self.semaphore_c(0)
        semaphore.signal(initial_value)
        return semaphore

    cdef Fence fence_c(self):
        """A fence on a fresh semaphore at value 1 (``hal.fence.create``)."""
        return single_fence(self.semaphore_c(0), 1)

    def create_fence(self):
        """A fence on a fresh semaphore at value 1 (``hal.fence.create``)."""
        return self.fence_c()

    cdef int _check_live(self, str where) except -1:
        if self.released:
            raise DeviceError(f"{where} on {self.label}: the device was released; create a new "
                              "device")
        return 0

    cdef Fence _fence_arg(self, object fence, str name, str where):
        if fence is None or isinstance(fence, Fence):
            return fence
        raise InvalidArgumentError(f"{where} on {self.label}: {name} must be a Fence or None, got "
                                   f"{fence!r}")

    cdef Fence submit_c(self, Submission submission, object args, object name) except *:
        """Queue ``submission`` (its fences None: no wait / a fresh signal fence, returned).
        ``args()`` -> dict of trace args, only called when traced."""
        sink = self.trace_sink
        self._check_live(submission.label)
        if submission.wait_fence is None:
            submission.wait_fence = new_fence()
        if submission.signal_fence is None:
            submission.signal_fence = self.fence_c()
        if sink is not None:
            submission.name = name
            submission.args = dict(args() if args is not None else {},
                                   wait=timepoint_texts(submission.wait_fence),
                                   signal=timepoint_texts(submission.signal_fence))
            sink.instant(self.queue_c().lane, f"submit {submission.label}", now_ns())
        if self.recorder is not None:
            self.recorder.submit(self, submission.label, submission.command_buffers
                                 if submission.kind == EXECUTE else submission.operand,
                                 submission.table, submission.wait_fence, submission.signal_fence)
        self.queue_c().submit_c(submission)
        return submission.signal_fence

    def _submit(self, where, wait_fence, signal_fence, action, args=None, name=None,
                operand=None):
        """Queue ``action(sink)`` (Python work, e.g. a transfer or a host callback); ``operand``
        is what a recorder sees of it (a transfer's one-command command buffer)."""
        cdef Submission s = operation(self._fence_arg(wait_fence, "wait_fence", where),
                                      self._fence_arg(signal_fence, "signal_fence", where),
                                      action, where)
        s.operand = operand
        return self.submit_c(s, args, name)

    # -- queue operations ----------------------------------------------------------------------

    cdef Buffer alloca_c(self, Fence wait, Fence signal, uint64_t size, uint32_t memory_type,
                         uint32_t usage):
        cdef Buffer buffer = self.allocator.new_reserved(size, memory_type, usage)
        cdef Submission s = operation(wait, signal, None, "queue_alloca")
        s.kind, s.operand = ALLOCA, buffer
        self.submit_c(s, lambda: {"bytes": buffer.byte_length, "buffer": describe(buffer)}, None)
        return buffer

    def queue_alloca(self, allocation_size, *, wait_fence=None, signal_fence=None,
                     memory_type=MemoryType.DEVICE_LOCAL, usage=BufferUsage.DEFAULT):
        """Return a buffer whose memory is committed when the queue reaches this op."""
        size, memory_type, usage = self.allocator._args(allocation_size, memory_type, usage,
                                                        f"queue_alloca on {self.label}")
        return self.alloca_c(self._fence_arg(wait_fence, "wait_fence", "queue_alloca"),
                             self._fence_arg(signal_fence, "signal_fence", "queue_alloca"),
                             size, memory_type, usage)

    cdef Fence dealloca_c(self, Fence wait, Fence signal, object buffer) except *:
        cdef Submission s
        if not isinstance(buffer, Buffer):
            raise InvalidArgumentError(f"queue_dealloca on {self.label}: expected a Buffer, got "
                                       f"{buffer!r}")
        if (<Buffer>buffer).allocator is not self.allocator:
            raise InvalidArgumentError(
                f"queue_dealloca on {self.label}: {describe(buffer)} lives on "
                f"{buffer.device.label}, whose heap {self.label} cannot release; deallocate it on "
                "its own device")
        if not buffer.is_root:
            raise InvalidArgumentError(f"queue_dealloca on {self.label}: {describe(buffer)} is a "
                                       "subspan; deallocate the buffer queue_alloca returned")
        s = operation(wait, signal, None, "queue_dealloca")
        s.kind, s.operand = DEALLOCA, buffer
        return self.submit_c(s, lambda: {"bytes": buffer.byte_length, "buffer": describe(buffer)},
                             None)

    def queue_dealloca(self, buffer, *, wait_fence=None, signal_fence=None):
        """Release ``buffer``'s allocation when the queue reaches this op; returns the fence."""
        return self.dealloca_c(self._fence_arg(wait_fence, "wait_fence", "queue_dealloca"),
                               self._fence_arg(signal_fence, "signal_fence", "queue_dealloca"),
                               buffer)

    cdef Fence execute_c(self, Fence wait, Fence signal, tuple command_buffers,
                         BindingTable table) except *:
        """Submit checked, finalized ``command_buffers`` with ``table`` (or None)."""
        cdef CommandBuffer cb
        for cb in command_buffers:
            cb.submitted += 1
        name = None
        if self.trace_sink is not None:
            names = [n for cb in command_buffers for n in cb.dispatch_names()]
            if names:
                more = ", ..." if len(names) > NAMED_DISPATCHES else ""
                name = f"queue_execute: {', '.join(names[:NAMED_DISPATCHES])}{more}"
        return self.submit_c(
            execution(wait, signal, command_buffers, table, self.threads, "queue_execute"),
            lambda: {"command_buffers": len(command_buffers),
                     "commands": [t for cb in command_buffers for t in cb.command_texts()]},
            name)

    cdef int check_command_buffer(self, object cb, Py_ssize_t index) except -1:
        if not isinstance(cb, CommandBuffer) or (<CommandBuffer>cb).device is not self:
            raise InvalidArgumentError(f"queue_execute on {self.label}: command buffer {index} "
                                       f"({cb!r}) was not created by this device")
        (<CommandBuffer>cb).check_submittable_c(f"queue_execute on {self.label}")
        return 0

    def queue_execute(self, command_buffers, *, wait_fence=None, signal_fence=None,
                      binding_table=None):
        """Execute finalized ``command_buffers`` in order; returns the signal fence.

        binding_table: the ``(buffer, offset, length)`` entries (or Buffer / BufferView) that
        binding-table slots of the command buffers refer to, checked against their uses.
        """
        if isinstance(command_buffers, CommandBuffer):
            command_buffers = [command_buffers]
        command_buffers = tuple(command_buffers)
        for i, cb in enumerate(command_buffers):
            self.check_command_buffer(cb, i)
        table = make_binding_table(self, "queue_execute", command_buffers, binding_table)
        return self.execute_c(self._fence_arg(wait_fence, "wait_fence", "queue_execute"),
                              self._fence_arg(signal_fence, "signal_fence", "queue_execute"),
                              command_buffers, table)

    def queue_barrier(self, *, wait_fence=None, signal_fence=None):
        """Signal ``signal_fence`` once ``wait_fence`` and all earlier work are done."""
        return self._submit("queue_barrier", wait_fence, signal_fence, None)

    def _transfer(self, where, record, args, wait_fence, signal_fence):
        """Queue a transfer recorded (and checked) as a one-command command buffer."""
        cb = CommandBuffer(self, CommandBufferMode.ONE_SHOT, CommandCategory.TRANSFER)
        cb.as_queue_operation(where)
        cb.begin()
        record(cb)
        cb.end()
        threads = self.threads
        return self._submit(where, wait_fence, signal_fence, lambda sink: execute(cb, None, threads),
                            lambda: dict(args(cb.commands[0])), operand=cb)

    def queue_copy(self, source, source_offset, target, target_offset, length, *,
                   wait_fence=None, signal_fence=None):
        """Copy bytes between buffers (possibly of other local devices); returns the fence."""
        return self._transfer(
            "queue_copy",
            lambda cb: cb.copy_buffer(source, source_offset, target, target_offset, length),
            lambda c: {"bytes": c.target.length, "source": source.describe(),
                       "target": target.describe()},
            wait_fence, signal_fence)

    def queue_fill(self, target, target_offset, length, pattern, pattern_length, *,
                   wait_fence=None, signal_fence=None):
        """Fill a range with a 1/2/4-byte pattern; returns the signal fence."""
        return self._transfer(
            "queue_fill",
            lambda cb: cb.fill_buffer(target, target_offset, length, pattern, pattern_length),
            lambda c: {"bytes": c.target.length, "target": target.describe()},
            wait_fence, signal_fence)

    def queue_update(self, source, source_offset, target, target_offset, length, *,
                     wait_fence=None, signal_fence=None):
        """Copy host bytes (captured now) into a buffer; returns the signal fence."""
        return self._transfer(
            "queue_update",
            lambda cb: cb.update_buffer(source, source_offset, target, target_offset, length),
            lambda c: {"bytes": c.target.length, "target": target.describe()},
            wait_fence, signal_fence)

    def release(self):
        """Stop the device's queues; pending work fails its signal fences. Idempotent."""
        if self.released:
            return
        self.released = True
        for queue in list(self._queues):
            queue.close(f"{self.label} was released")
