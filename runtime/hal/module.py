"""The ``hal`` VM native module: what compiled programs call to drive devices.

Its imports, their calling conventions and argument names are one table,
rt.runtime.hal.imports (IREE's hal.imports.mlir); each method here is declared with
``@hal_import(name)``, which takes its calling convention from that table and checks its
parameters against it. The per-call imports also have C entries (rt.runtime.hal._module).

Errors keep their rt type (InvalidArgumentError for bad arguments, DeviceError when awaiting
a failed fence, naming device, queue, command/export and cause); the VM adds its stack.
"""
import sys

from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal.allocator import Allocator
from rt.runtime.hal.buffer import Buffer
from rt.runtime.hal.buffer_view import BufferView
from rt.runtime.hal.buffer_view_text import format_array
from rt.runtime.hal.channel import Channel, ChannelProvider
from rt.runtime.hal.command_buffer import CommandBuffer
from rt.runtime.hal.commands import BufferRef
from rt.runtime.hal.device import Device
from rt.runtime.hal.element_type import element_type_name
from rt.runtime.hal.drivers.local_channel import LocalWorld
from rt.runtime.hal.executable import Executable
from rt.runtime.hal.fence import Fence
from rt.runtime.hal.packed_layout import view_to_numpy
from rt.runtime.hal.status import StatusCode, status_name
from rt.runtime.hal.trace import HOST_LANE, check_sink, now_ns, timepoint_texts
from rt.runtime.hal.imports import IMPORTS
from rt.runtime.vm import NativeModule, native_function

_INFINITE_MS = (1 << 32) - 1


def hal_import(name):
    """``@native_function`` for the ``hal`` import ``name``: its calling convention comes from
    rt.runtime.hal.imports, and the method's parameters (after ``self``) must be the table's
    argument names. Raises TypeError at class definition when they differ."""
    row = IMPORTS[name]
    declare = native_function(name, row.cconv)

    def decorate(fn):
        code = fn.__code__
        params = code.co_varnames[1:code.co_argcount]
        if params != row.parameters:
            raise TypeError(f"HalModule.{fn.__name__} takes {params} but hal.{name} is declared "
                            f"with {row.parameters} in rt.runtime.hal.imports")
        return declare(fn)

    return decorate


def _host_bytes(value, what):
    """A read-only memoryview of a ``!vm.buffer`` argument (VMBuffer, bytes-like or str)."""
    if isinstance(value, str):
        return memoryview(value.encode())
    view = getattr(value, "view", None)
    if view is not None and not callable(view):
        return memoryview(view).cast("B")
    try:
        return memoryview(value).cast("B")
    except TypeError:
        raise InvalidArgumentError(f"hal: {what} must be a byte buffer, got {value!r}") from None


def _text(value, what):
    return bytes(_host_bytes(value, what)).decode("utf-8", "replace")


# (concrete type, expected class) pairs already seen to pass ``isinstance`` (ABC checks are slow).
_REF_TYPES = set()


def _ref(value, cls, what):
    if (type(value), cls) in _REF_TYPES:
        return value
    if not isinstance(value, cls):
        raise InvalidArgumentError(f"hal.{what}: expected a {cls.__name__}, got "
                                   f"{'null' if value is None else type(value).__name__}")
    _REF_TYPES.add((type(value), cls))
    return value


def _operand(buffer, slot):
    """A transfer command's buffer operand: the buffer, or (null) binding-table ``slot``."""
    return BufferRef(None, slot, 0, None) if buffer is None else buffer


def _fence_or_none(value, what):
    return None if value is None else _ref(value, Fence, what)


class HalModule(NativeModule):
    """The ``hal`` module over ``devices`` (the devices bound to the context, in order).

    trace: ``callable(key: str, views: list)`` receiving ``buffer_view.trace``; default prints
    to stderr. trace_sink: a ``TraceSink`` that gets a ``fence.await`` zone on ``HOST_LANE``
    for every await (args: the awaited timepoints and the status returned), or None.
    trust_policy: an ``rt.runtime.trust.TrustPolicy`` asked before every executable is
    created (safe mode), or None (trusted: IREE's model).
    """

    name = "hal"
    version = 7

    def __init__(self, devices=(), trace=None, trace_sink=None, trust_policy=None,
                 channel_provider=None):
        self.devices = tuple(devices)
        self.trust_policy = trust_policy
        if channel_provider is None:
            channel_provider = LocalWorld(1).provider(0)
        self.channel_provider = _ref(channel_provider, ChannelProvider,
                                     "HalModule channel_provider")
        for i, device in enumerate(self.devices):
            _ref(device, Device, f"HalModule devices[{i}]")
        self._trace = trace
        self.trace_sink = check_sink(trace_sink, "HalModule trace_sink")
        self._native = None

    def native_functions(self):
        """The C entries of the per-call imports (rt.runtime.hal._module), made once."""
        if self._native is None:
            from rt.runtime.hal._module import native_functions

            self._native = native_functions(self)
        return self._native

    # -- allocator / buffer ------------------------------------------------------------------

    @hal_import("allocator.allocate")
    def allocator_allocate(self, allocator, affinity, memory_types, usage, size):
        return _ref(allocator, Allocator, "allocator.allocate").allocate_buffer(size, memory_types, usage)

    @hal_import("allocator.import")
    def allocator_import(self, allocator, try_, affinity, memory_types, usage, source, offset, length):
        _ref(allocator, Allocator, "allocator.import")
        data = _host_bytes(source, "allocator.import source")
        if offset < 0 or length < 0 or offset + length > data.nbytes:
            raise InvalidArgumentError(f"hal.allocator.import: range [{offset}, {offset + length}) "
                                       f"outside the {data.nbytes}-byte source")
        return allocator.allocate_from(data[offset:offset + length], memory_types, usage)

    @hal_import("buffer.assert")
    def buffer_assert(self, buffer, message, allocator, minimum_length, memory_types, usage):
        text = _text(message, "buffer.assert message")
        _ref(buffer, Buffer, "buffer.assert")
        if allocator is not None and buffer.allocator is not allocator:
            raise InvalidArgumentError(f"{text}: {buffer.describe()} is not from the expected "
                                       f"allocator of {allocator.device.label}")
        if buffer.byte_length < minimum_length:
            raise InvalidArgumentError(f"{text}: {buffer.describe()} is smaller than the "
                                       f"required {minimum_length} bytes")
        if usage & ~int(buffer.allowed_usage):
            raise InvalidArgumentError(f"{text}: {buffer.describe()} lacks usage bits "
                                       f"0x{usage & ~int(buffer.allowed_usage):x}")

    @hal_import("buffer.set_encoding")
    def buffer_set_encoding(self, buffer, encoding):
        text = _text(encoding, "buffer.set_encoding encoding")
        _ref(buffer, Buffer, "buffer.set_encoding").set_encoding(text or None)

    @hal_import("buffer.subspan")
    def buffer_subspan(self, buffer, offset, length):
        return _ref(buffer, Buffer, "buffer.subspan").subspan(offset, length)

    @hal_import("buffer.length")
    def buffer_length(self, buffer):
        return _ref(buffer, Buffer, "buffer.length").byte_length

    @hal_import("buffer.load")
    def buffer_load(self, buffer, offset, length):
        value = _ref(buffer, Buffer, "buffer.load").load(offset, length)
        return value - (1 << 32) if value >= 1 << 31 else value

    @hal_import("buffer.store")
    def buffer_store(self, value, buffer, offset, length):
        _ref(buffer, Buffer, "buffer.store").store(value, offset, length)

    # -- buffer_view -------------------------------------------------------------------------

    @hal_import("buffer_view.create")
    def buffer_view_create(self, buffer, offset, length, element_type, encoding_type, shape):
        _ref(buffer, Buffer, "buffer_view.create")
        return BufferView.create(buffer, offset, length, element_type & 0xFFFFFFFF,
                                 encoding_type, shape)

    @hal_import("buffer_view.assert")
    def buffer_view_assert(self, view, message, element_type, encoding_type, shape):
        text = _text(message, "buffer_view.assert message")
        if not isinstance(view, BufferView):
            raise InvalidArgumentError(f"{text}: expected a buffer view, got "
                                       f"{'null' if view is None else type(view).__name__}")
        view.check(element_type & 0xFFFFFFFF, encoding_type, shape, text)

    @hal_import("buffer_view.buffer")
    def buffer_view_buffer(self, view):
        return _ref(view, BufferView, "buffer_view.buffer").buffer

    @hal_import("buffer_view.element_type")
    def buffer_view_element_type(self, view):
        code = int(_ref(view, BufferView, "buffer_view.element_type").element_type)
        return code - (1 << 32) if code >= 1 << 31 else code

    @hal_import("buffer_view.encoding_type")
    def buffer_view_encoding_type(self, view):
        return _ref(view, BufferView, "buffer_view.encoding_type").encoding_type

    @hal_import("buffer_view.rank")
    def buffer_view_rank(self, view):
        return _ref(view, BufferView, "buffer_view.rank").rank

    @hal_import("buffer_view.dim")
    def buffer_view_dim(self, view, index):
        return _ref(view, BufferView, "buffer_view.dim").dim(index)

    @hal_import("buffer_view.trace")
    def buffer_view_trace(self, key, views):
        key = _text(key, "buffer_view.trace key")
        if self._trace is not None:
            self._trace(key, list(views))
            return
        lines = [f"=== {key} ==="]
        for view in views:
            _ref(view, BufferView, "buffer_view.trace")
            lines.append(format_array(view_to_numpy(view), element_type_name(view.element_type)))
        print("\n".join(lines), file=sys.stderr, flush=True)

    # -- command_buffer ----------------------------------------------------------------------

    @hal_import("command_buffer.create")
    def command_buffer_create(self, device, modes, categories, affinity, binding_capacity):
        cb = _ref(device, Device, "command_buffer.create").create_command_buffer(
            modes, categories, binding_capacity)
        cb.begin()
        return cb

    @hal_import("command_buffer.finalize")
    def command_buffer_finalize(self, cb):
        _ref(cb, CommandBuffer, "command_buffer.finalize").end()

    @hal_import("command_buffer.begin_debug_group")
    def command_buffer_begin_debug_group(self, cb, label):
        _ref(cb, CommandBuffer, "command_buffer.begin_debug_group").begin_debug_group(
            _text(label, "debug group label"))

    @hal_import("command_buffer.end_debug_group")
    def command_buffer_end_debug_group(self, cb):
        _ref(cb, CommandBuffer, "command_buffer.end_debug_group").end_debug_group()

    @hal_import("command_buffer.execution_barrier")
    def command_buffer_execution_barrier(self, cb, source_stage_mask, target_stage_mask, flags):
        _ref(cb, CommandBuffer, "command_buffer.execution_barrier").execution_barrier(
            source_stage_mask, target_stage_mask, flags)

    @hal_import("command_buffer.fill_buffer")
    def command_buffer_fill_buffer(self, cb, target, offset, length, slot, pattern,
                                   pattern_length, flags):
        _ref(cb, CommandBuffer, "command_buffer.fill_buffer").fill_buffer(
            _operand(target, slot), offset, length, pattern, pattern_length)

    @hal_import("command_buffer.update_buffer")
    def command_buffer_update_buffer(self, cb, source, source_offset, target, target_offset,
                                     length, slot, flags):
        _ref(cb, CommandBuffer, "command_buffer.update_buffer").update_buffer(
            _host_bytes(source, "update_buffer source"), source_offset, _operand(target, slot),
            target_offset, length)

    @hal_import("command_buffer.copy_buffer")
    def command_buffer_copy_buffer(self, cb, source_slot, target_slot, source, source_offset,
                                   target, target_offset, length, flags):
        _ref(cb, CommandBuffer, "command_buffer.copy_buffer").copy_buffer(
            _operand(source, source_slot), source_offset, _operand(target, target_slot),
            target_offset, length)

    @hal_import("command_buffer.dispatch")
    def command_buffer_dispatch(self, cb, executable, ordinal, x, y, z, flags, constants,
                                bindings):
        _ref(cb, CommandBuffer, "command_buffer.dispatch").dispatch(
            executable, ordinal, (x, y, z), constants,
            [BufferRef(buffer, slot, offset, length) for _, slot, buffer, offset, length in bindings])

    @hal_import("command_buffer.collective")
    def command_buffer_collective(self, cb, channel, op, param, send_slot, recv_slot, send,
                                  recv, send_offset, send_length, recv_offset, recv_length,
                                  element_count):
        _ref(cb, CommandBuffer, "command_buffer.collective")
        cb.collective(channel, op, param,
                      None if send is None else (send, send_offset, send_length),
                      None if recv is None else (recv, recv_offset, recv_length), element_count)

    # -- channel -----------------------------------------------------------------------------

    @hal_import("channel.create")
    def channel_create(self, device, affinity, flags, id, group, rank, count):
        device = _ref(device, Device, "channel.create")
        name = None if group is None else _text(group, "channel group") or None
        return self.channel_provider.create_channel(device, name, rank, count)

    @hal_import("channel.split")
    def channel_split(self, channel, color, key, flags):
        return _ref(channel, Channel, "channel.split").split(color, key)

    @hal_import("channel.rank_and_count")
    def channel_rank_and_count(self, channel):
        channel = _ref(channel, Channel, "channel.rank_and_count")
        return channel.rank, channel.count

    # -- device ------------------------------------------------------------------------------

    @hal_import("device.allocator")
    def device_allocator(self, device):
        return _ref(device, Device, "device.allocator").allocator

    @hal_import("device.query.i64")
    def device_query_i64(self, device, category, key):
        return _ref(device, Device, "device.query.i64").query_i64(
            _text(category, "query category"), _text(key, "query key"))

    @hal_import("device.queue.alloca")
    def device_queue_alloca(self, device, affinity, wait, signal, pool, memory_types, usage,
                            size, flags):
        return _ref(device, Device, "device.queue.alloca").queue_alloca(
            size, wait_fence=_fence_or_none(wait, "device.queue.alloca wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.alloca signal fence"),
            memory_type=memory_types & 0xFFFFFFFF, usage=usage & 0xFFFFFFFF)

    @hal_import("device.queue.dealloca")
    def device_queue_dealloca(self, device, affinity, wait, signal, buffer, flags):
        _ref(device, Device, "device.queue.dealloca").queue_dealloca(
            buffer, wait_fence=_fence_or_none(wait, "device.queue.dealloca wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.dealloca signal fence"))

    @hal_import("device.queue.fill")
    def device_queue_fill(self, device, affinity, wait, signal, target, offset, length,
                          pattern, pattern_length, flags):
        _ref(device, Device, "device.queue.fill").queue_fill(
            target, offset, length, pattern, pattern_length,
            wait_fence=_fence_or_none(wait, "device.queue.fill wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.fill signal fence"))

    @hal_import("device.queue.update")
    def device_queue_update(self, device, affinity, wait, signal, source, source_offset,
                            target, target_offset, length, flags):
        _ref(device, Device, "device.queue.update").queue_update(
            _host_bytes(source, "queue.update source"), source_offset, target, target_offset,
            length, wait_fence=_fence_or_none(wait, "device.queue.update wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.update signal fence"))

    @hal_import("device.queue.copy")
    def device_queue_copy(self, device, affinity, wait, signal, source, source_offset, target,
                          target_offset, length, flags):
        _ref(device, Device, "device.queue.copy").queue_copy(
            source, source_offset, target, target_offset, length,
            wait_fence=_fence_or_none(wait, "device.queue.copy wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.copy signal fence"))

    @hal_import("device.queue.barrier")
    def device_queue_barrier(self, device, affinity, wait, signal, flags):
        _ref(device, Device, "device.queue.barrier").queue_barrier(
            wait_fence=_fence_or_none(wait, "device.queue.barrier wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.barrier signal fence"))

    @hal_import("device.queue.execute")
    def device_queue_execute(self, device, affinity, wait, signal, cb, flags):
        _ref(device, Device, "device.queue.execute").queue_execute(
            [_ref(cb, CommandBuffer, "device.queue.execute")],
            wait_fence=_fence_or_none(wait, "device.queue.execute wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.execute signal fence"))

    @hal_import("device.queue.execute.indirect")
    def device_queue_execute_indirect(self, device, affinity, wait, signal, cb, flags, table):
        _ref(device, Device, "device.queue.execute.indirect").queue_execute(
            [_ref(cb, CommandBuffer, "device.queue.execute.indirect")],
            wait_fence=_fence_or_none(wait, "device.queue.execute.indirect wait fence"),
            signal_fence=_fence_or_none(signal, "device.queue.execute.indirect signal fence"),
            binding_table=[(buffer, offset, length) for buffer, offset, length in table])

    @hal_import("device.queue.flush")
    def device_queue_flush(self, device, affinity):
        _ref(device, Device, "device.queue.flush")

    @hal_import("devices.count")
    def devices_count(self):
        return len(self.devices)

    @hal_import("devices.get")
    def devices_get(self, index):
        if not 0 <= index < len(self.devices):
            raise InvalidArgumentError(
                f"hal.devices.get: device index {index} out of range; the context has "
                f"{len(self.devices)} device(s): " + ", ".join(d.label for d in self.devices))
        return self.devices[index]

    # -- executable --------------------------------------------------------------------------

    @hal_import("executable.create")
    def executable_create(self, device, affinity, format, data, constants):
        _ref(device, Device, "executable.create")
        metadata = dict(getattr(data, "metadata", None) or {})
        if constants is not None and _host_bytes(constants, "executable constants").nbytes:
            metadata["constants"] = bytes(_host_bytes(constants, "executable constants"))
        format, data_bytes = _text(format, "executable format"), _host_bytes(data, "executable data")
        if self.trust_policy is not None:
            self.trust_policy.check_executable(format, data_bytes, getattr(data, "name", None))
        return device.create_executable(format, data_bytes, metadata)

    @hal_import("executable.lookup.function")
    def executable_lookup_function(self, executable, name):
        return _ref(executable, Executable, "executable.lookup.function").lookup_function(
            _text(name, "function name"))

    # -- fence -------------------------------------------------------------------------------

    @hal_import("fence.create")
    def fence_create(self, device, flags):
        return _ref(device, Device, "fence.create").create_fence()

    @hal_import("fence.join")
    def fence_join(self, flags, fences):
        return Fence.join(fences)

    @hal_import("fence.query")
    def fence_query(self, fence):
        return int(_ref(fence, Fence, "fence.query").query())

    @hal_import("fence.signal")
    def fence_signal(self, fence):
        _ref(fence, Fence, "fence.signal").signal()

    @hal_import("fence.fail")
    def fence_fail(self, fence, status):
        _ref(fence, Fence, "fence.fail").fail(
            DeviceError(f"the program failed the fence with status {status_name(status)}"))

    @hal_import("fence.await")
    def fence_await(self, timeout_ms, flags, fences):
        timeout_ms &= 0xFFFFFFFF
        timeout = None if timeout_ms == _INFINITE_MS else timeout_ms / 1000.0
        joined = Fence.join(fences)
        sink = self.trace_sink
        if sink is None:
            return self._await(joined, timeout)
        sink.zone_begin(HOST_LANE, "fence.await", now_ns(),
                        {"timepoints": timepoint_texts(joined, pending_only=True)})
        status = None
        try:
            status = self._await(joined, timeout)
        finally:
            sink.zone_end(HOST_LANE, now_ns(),
                          {"status": "failed" if status is None else status_name(status)})
        return status

    @staticmethod
    def _await(fence, timeout):
        return 0 if fence.try_wait(timeout) else int(StatusCode.DEADLINE_EXCEEDED)
