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
from rt.runtime.hal.buffer import Buffer, BufferUsage, MemoryType, check_range, check_size
from rt.runtime.hal.command_buffer import CommandBuffer, CommandBufferMode, CommandCategory
from rt.runtime.hal.device import Device, DeviceLimits
from rt.runtime.hal.drivers import _replay
from rt.runtime.hal.drivers.heap_allocator import HeapAllocator
from rt.runtime.hal.drivers.host_semaphore import HostSemaphore
from rt.runtime.hal.drivers.local_command_buffer import LocalCommandBuffer
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
        return LocalCommandBuffer(self, mode, categories, binding_capacity)

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

    def _transfer_buffer(self, buffer, role, usage, where, transfer=False):
        if not isinstance(buffer, Buffer):
            raise InvalidArgumentError(f"{where} on {self.label}: {role} must be a Buffer, got "
                                       f"{buffer!r}")
        owner = buffer.device
        if owner is not self and not (transfer and self.can_transfer_with(owner)):
            how = ("no transfer path connects the two devices" if transfer else
                   "devices own separate heaps; transfer it with queue_copy first")
            raise InvalidArgumentError(
                f"{where} on {self.label}: {role} {buffer.describe()} lives on {owner.label}, "
                f"which {self.label} cannot reach: {how}"
            )
        if not buffer.allowed_usage & usage:
            raise InvalidArgumentError(
                f"{where} on {self.label}: {role} {buffer.describe()} was allocated with usage "
                f"{buffer.allowed_usage!r}, which lacks {usage!r}"
            )

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

    def queue_execute(self, command_buffers, *, wait_fence=None, signal_fence=None):
        if isinstance(command_buffers, CommandBuffer):
            command_buffers = [command_buffers]
        command_buffers = tuple(command_buffers)
        where = "queue_execute"
        for i, cb in enumerate(command_buffers):
            if not isinstance(cb, CommandBuffer) or cb.device is not self:
                raise InvalidArgumentError(
                    f"{where} on {self.label}: command buffer {i} ({cb!r}) was not created by "
                    "this device"
                )
            cb.check_submittable(f"{where} on {self.label}")
        for cb in command_buffers:
            cb.submitted += 1
        threads, lane = self.threads, self.queue_lane

        def action(sink):
            for cb in command_buffers:
                cb.execute(threads, sink, lane)

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

    def queue_copy(self, source, source_offset, target, target_offset, length, *,
                   wait_fence=None, signal_fence=None):
        where = "queue_copy"
        self._transfer_buffer(source, "source", BufferUsage.TRANSFER_SOURCE, where, True)
        self._transfer_buffer(target, "target", BufferUsage.TRANSFER_TARGET, where, True)
        if source.device is not self and target.device is not self:
            raise InvalidArgumentError(
                f"{where} on {self.label}: neither source {source.describe()} nor target "
                f"{target.describe()} lives on this device; submit the copy on one of theirs"
            )
        s_off, length = check_range(source, source_offset, length, where, "source")
        t_off, _ = check_range(target, target_offset, length, where, "target")
        target.carry_encoding(source, s_off, t_off, length)
        return self._submit(where, wait_fence, signal_fence,
                            lambda sink: _replay.copy(source.ptr + s_off, target.ptr + t_off,
                                                      length),
                            lambda: {"bytes": length, "source": source.describe(),
                                     "target": target.describe()})

    def queue_fill(self, target, target_offset, length, pattern, pattern_length, *,
                   wait_fence=None, signal_fence=None):
        where = "queue_fill"
        self._transfer_buffer(target, "target", BufferUsage.TRANSFER_TARGET, where)
        if pattern_length not in (1, 2, 4):
            raise InvalidArgumentError(f"{where} on {self.label}: pattern_length must be 1, 2 "
                                       f"or 4 bytes, got {pattern_length!r}")
        offset, length = check_range(target, target_offset, length, where, "target")
        if offset % pattern_length or length % pattern_length:
            raise InvalidArgumentError(
                f"{where} on {self.label}: target offset {offset} and length {length} must be "
                f"multiples of the {pattern_length}-byte pattern"
            )
        value = int(pattern) & ((1 << (8 * pattern_length)) - 1)
        return self._submit(where, wait_fence, signal_fence,
                            lambda sink: _replay.fill(target.ptr + offset, length, value,
                                                      pattern_length),
                            lambda: {"bytes": length, "target": target.describe()})

    def queue_update(self, source, source_offset, target, target_offset, length, *,
                     wait_fence=None, signal_fence=None):
        where = "queue_update"
        self._transfer_buffer(target, "target", BufferUsage.TRANSFER_TARGET, where)
        data = memoryview(source).cast("B")
        s_off = check_size(source_offset, "source offset", where)
        length = check_size(length, "length", where)
        if s_off + length > data.nbytes:
            raise InvalidArgumentError(f"{where} on {self.label}: source range [{s_off}, "
                                       f"{s_off + length}) exceeds the {data.nbytes}-byte source")
        t_off, _ = check_range(target, target_offset, length, where, "target")
        chunk = bytes(data[s_off:s_off + length])
        return self._submit(where, wait_fence, signal_fence,
                            lambda sink: _replay.update(chunk, target.ptr + t_off),
                            lambda: {"bytes": length, "target": target.describe()})

    def queue_barrier(self, *, wait_fence=None, signal_fence=None):
        return self._submit("queue_barrier", wait_fence, signal_fence, lambda sink: None)

    def release(self):
        if self._released:
            return
        self._released = True
        self.queue.close(f"{self.label} was released")
