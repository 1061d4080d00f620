"""The device shared by the local drivers: host heap, host semaphores, one in-order queue.

After IREE's runtime/src/iree/hal/drivers/local_sync/sync_device.c and
local_task/task_device.c: the two differ only in who runs the queue (``InlineQueue`` on the
caller, ``ThreadQueue`` on a device thread) and how many worker threads a dispatch may use.

Every local device's heap is host memory, so local devices share the ``"host"`` transfer
domain: ``queue_copy`` may read or write another local device's buffer (one side must be this
device's); every other queue operation only takes this device's buffers.
With a trace sink (``set_trace_sink``) each queue operation is an instant when submitted
(``submit queue_fill``) and a zone named after it while it runs, with its wait/signal
timepoints and sizes as args (rt.runtime.hal.trace).
"""
import itertools

from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal.buffer import Buffer, BufferUsage, MemoryType
from rt.runtime.hal.command_buffer import CommandBuffer, CommandBufferMode, CommandCategory
from rt.runtime.hal.device import Device, DeviceLimits
from rt.runtime.hal.drivers import _replay
from rt.runtime.hal.drivers.heap_allocator import HeapAllocator
from rt.runtime.hal.drivers.host_semaphore import HostSemaphore
from rt.runtime.hal.drivers.local_queue import Submission
from rt.runtime.hal.executable_cache import ExecutableCache
from rt.runtime.hal.fence import Fence
from rt.runtime.hal.trace import now_ns, timepoint_texts

_ordinals = itertools.count()

#: How many dispatch names a queue_execute zone's name lists before "...".
NAMED_DISPATCHES = 3


class LocalDevice(Device):
    """A local device. ``queue_type``: InlineQueue or ThreadQueue; ``threads``: workers per
    dispatch; ``heap_capacity``: bytes or None."""

    transfer_domain = "host"

    def __init__(self, driver_name, device_name, uri, loaders, queue_type, threads=1,
                 heap_capacity=None):
        self.driver_name, self.device_name, self.uri = driver_name, device_name, uri
        self.label = f"{driver_name}://{device_name}#{next(_ordinals)}"
        self.loaders = tuple(loaders)
        self.threads = threads
        self.limits = DeviceLimits()
        self.allocator = HeapAllocator(self, heap_capacity)
        self.executable_cache = ExecutableCache(self)
        self._semaphores = itertools.count()
        self._released = False
        self.queue = queue_type(f"{self.label} queue 0", self.queue_lane, self.waits_lane)

    def set_trace_sink(self, sink):
        previous = super().set_trace_sink(sink)
        self.queue.sink = self.trace_sink
        return previous

    # -- object creation ---------------------------------------------------------------------

    def create_semaphore(self, initial_value=0):
        return HostSemaphore(initial_value, f"semaphore {next(self._semaphores)} of {self.label}")

    def create_command_buffer(self, mode=CommandBufferMode.DEFAULT,
                              categories=CommandCategory.ANY, binding_capacity=0):
        return CommandBuffer(self, mode, categories, binding_capacity)

    # -- queue -------------------------------------------------------------------------------

    def _fences(self, wait_fence, signal_fence, where):
        if self._released:
            raise DeviceError(f"{where} on {self.label}: the device was released; create a "
                              "new device")
        for name, fence in (("wait_fence", wait_fence), ("signal_fence", signal_fence)):
            if fence is not None and not isinstance(fence, Fence):
                raise InvalidArgumentError(f"{where} on {self.label}: {name} must be a Fence or "
                                           f"None, got {fence!r}")
        if wait_fence is None:
            wait_fence = Fence()
        if signal_fence is None:
            signal_fence = self.create_fence()
        return wait_fence, signal_fence

    def _submit(self, where, wait_fence, signal_fence, action, args=None, name=None):
        """Queue ``action(sink)``; ``args()`` -> dict of trace args, only called when traced."""
        wait_fence, signal_fence = self._fences(wait_fence, signal_fence, where)
        submission = Submission(wait_fence, signal_fence, action, where)
        sink = self.trace_sink
        if sink is not None:
            submission.name = name
            submission.args = dict(args() if args is not None else {},
                                   wait=timepoint_texts(wait_fence),
                                   signal=timepoint_texts(signal_fence))
            sink.instant(self.queue_lane, f"submit {where}", now_ns())
        self.queue.submit(submission)
        return signal_fence

    def queue_alloca(self, allocation_size, *, wait_fence=None, signal_fence=None,
                     memory_type=MemoryType.DEVICE_LOCAL, usage=BufferUsage.DEFAULT):
        buffer = self.allocator.reserve_buffer(allocation_size, memory_type, usage)
        self._submit("queue_alloca", wait_fence, signal_fence,
                     lambda sink: self.allocator.commit(buffer),
                     lambda: {"bytes": buffer.byte_length, "buffer": buffer.describe()})
        return buffer

    def queue_dealloca(self, buffer, *, wait_fence=None, signal_fence=None):
        if not isinstance(buffer, Buffer):
            raise InvalidArgumentError(f"queue_dealloca on {self.label}: expected a Buffer, got "
                                       f"{buffer!r}")
        if buffer.allocator is not self.allocator:
            raise InvalidArgumentError(
                f"queue_dealloca on {self.label}: {buffer.describe()} lives on "
                f"{buffer.device.label}, whose heap {self.label} cannot release; deallocate it "
                "on its own device"
            )
        if not buffer.is_root:
            raise InvalidArgumentError(f"queue_dealloca on {self.label}: {buffer.describe()} "
                                       "is a subspan; deallocate the buffer queue_alloca returned")
        return self._submit("queue_dealloca", wait_fence, signal_fence,
                            lambda sink: self.allocator.release(buffer),
                            lambda: {"bytes": buffer.byte_length, "buffer": buffer.describe()})

    def queue_execute(self, command_buffers, *, wait_fence=None, signal_fence=None,
                      binding_table=None):
        where = "queue_execute"
        if isinstance(command_buffers, CommandBuffer):
            command_buffers = [command_buffers]
        command_buffers = tuple(command_buffers)
        for i, cb in enumerate(command_buffers):
            if not isinstance(cb, CommandBuffer) or cb.device is not self:
                raise InvalidArgumentError(
                    f"{where} on {self.label}: command buffer {i} ({cb!r}) was not created by "
                    "this device"
                )
            cb.check_submittable(f"{where} on {self.label}")
        table = _replay.binding_table(self, where, command_buffers, binding_table)
        for cb in command_buffers:
            cb.submitted += 1
        threads, lane = self.threads, self.queue_lane

        def action(sink):
            for cb in command_buffers:
                _replay.execute(cb, table, threads, sink, lane)

        def args():
            return {"command_buffers": len(command_buffers),
                    "commands": [t for cb in command_buffers for t in cb.command_texts()]}

        name = None
        if self.trace_sink is not None:
            names = [n for cb in command_buffers for n in cb.dispatch_names()]
            if names:
                more = ", ..." if len(names) > NAMED_DISPATCHES else ""
                name = f"{where}: {', '.join(names[:NAMED_DISPATCHES])}{more}"
        return self._submit(where, wait_fence, signal_fence, action, args, name)

    def _transfer(self, where, record, args, wait_fence, signal_fence):
        """Queue a transfer recorded (and checked) as a one-command command buffer."""
        cb = CommandBuffer(self, CommandBufferMode.ONE_SHOT, CommandCategory.TRANSFER)
        cb.as_queue_operation(where)
        cb.begin()
        record(cb)
        cb.end()
        threads, lane = self.threads, self.queue_lane
        return self._submit(where, wait_fence, signal_fence,
                            lambda sink: _replay.execute(cb, None, threads),
                            lambda: dict(args(cb.commands[0])))

    def queue_copy(self, source, source_offset, target, target_offset, length, *,
                   wait_fence=None, signal_fence=None):
        return self._transfer(
            "queue_copy", lambda cb: cb.copy_buffer(source, source_offset, target, target_offset, length),
            lambda c: {"bytes": c.target.length, "source": source.describe(),
                       "target": target.describe()},
            wait_fence, signal_fence)

    def queue_fill(self, target, target_offset, length, pattern, pattern_length, *,
                   wait_fence=None, signal_fence=None):
        return self._transfer(
            "queue_fill",
            lambda cb: cb.fill_buffer(target, target_offset, length, pattern, pattern_length),
            lambda c: {"bytes": c.target.length, "target": target.describe()},
            wait_fence, signal_fence)

    def queue_update(self, source, source_offset, target, target_offset, length, *,
                     wait_fence=None, signal_fence=None):
        return self._transfer(
            "queue_update",
            lambda cb: cb.update_buffer(source, source_offset, target, target_offset, length),
            lambda c: {"bytes": c.target.length, "target": target.describe()},
            wait_fence, signal_fence)

    def queue_barrier(self, *, wait_fence=None, signal_fence=None):
        return self._submit("queue_barrier", wait_fence, signal_fence, lambda sink: None)

    def release(self):
        if self._released:
            return
        self._released = True
        self.queue.close(f"{self.label} was released")
