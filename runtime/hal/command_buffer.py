"""Command buffers: recorded transfer and dispatch commands, validated while recording.

Follows ``iree_hal_command_buffer_t`` (runtime/src/iree/hal/command_buffer.h) and the checks
of IREE's command_buffer_validation.c: every command is checked as it is recorded (state,
buffer ownership, byte ranges inside buffers, fill pattern and alignment, dispatch binding and
push-constant counts against the export, binding offset alignment, workgroup counts), and an
error names the command index, the command and what would be right. Drivers implement
``execute``; recording is shared.

Lifecycle: ``begin()`` -> record -> ``end()`` (the ``hal`` module's ``finalize``) -> submit
with ``device.queue_execute`` any number of times (unless ONE_SHOT).
"""
import abc
import enum

import numpy as np

from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.hal.buffer import AllocationState, Buffer, BufferUsage, check_range, check_size
from rt.runtime.hal.executable import Executable

# Kinds of recorded commands (also the opcodes of the drivers' replay loop).
FILL, COPY, UPDATE, DISPATCH, BARRIER = range(5)
KIND_NAMES = ("fill_buffer", "copy_buffer", "update_buffer", "dispatch", "execution_barrier")
_MAX_U32 = (1 << 32) - 1


class CommandBufferMode(enum.IntFlag):
    """``iree_hal_command_buffer_mode_bits_t``."""

    DEFAULT = 0
    ONE_SHOT = 1 << 0
    ALLOW_INLINE_EXECUTION = 1 << 4
    UNVALIDATED = 1 << 5
    UNRETAINED = 1 << 6
    RETAIN_PROFILE_METADATA = 1 << 7
    RETAIN_DISPATCH_METADATA = 1 << 8


class CommandCategory(enum.IntFlag):
    """``iree_hal_command_category_bits_t``."""

    NONE = 0
    TRANSFER = 1 << 0
    DISPATCH = 1 << 1
    ANY = TRANSFER | DISPATCH


class CommandBufferState(enum.Enum):
    INITIAL = "initial (call begin() first)"
    RECORDING = "recording"
    EXECUTABLE = "finalized"


def _u32(value, what, where):
    if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentError(f"{where}: {what} must be an integer, got {value!r}")
    value = int(value)
    if not -(1 << 31) <= value <= _MAX_U32:
        raise InvalidArgumentError(f"{where}: {what} {value} does not fit in 32 bits")
    return value & _MAX_U32


class CommandBuffer(abc.ABC):
    """Commands for ``device``; ``mode``: CommandBufferMode, ``categories``: CommandCategory.

    ``binding_capacity`` > 0 (indirect binding tables) is not supported by rt.
    """

    def __init__(self, device, mode=CommandBufferMode.DEFAULT, categories=CommandCategory.ANY,
                 binding_capacity=0):
        self.device = device
        self.mode = CommandBufferMode(int(mode) & 0x1FF)
        self.categories = CommandCategory(int(categories) & 3)
        if binding_capacity:
            raise UnimplementedError(
                f"command_buffer.create on {device.label}: binding_capacity {binding_capacity} "
                "(indirect binding tables) is not supported; record direct bindings with 0"
            )
        self.state = CommandBufferState.INITIAL
        self.commands = []
        self.buffers = []
        self._buffer_index = {}
        self.submitted = 0

    @property
    def label(self):
        return f"command buffer {id(self) & 0xFFFF:04x} of {self.device.label}"

    # -- lifecycle ---------------------------------------------------------------------------

    def begin(self):
        """Start recording (only from the initial state)."""
        if self.state is not CommandBufferState.INITIAL:
            raise InvalidArgumentError(f"{self.label}: begin() while {self.state.value}")
        self.state = CommandBufferState.RECORDING

    def end(self):
        """Finish recording; the command buffer becomes submittable (IREE's finalize)."""
        self._where("end", counted=False)
        self.state = CommandBufferState.EXECUTABLE

    @property
    def command_count(self):
        return len(self.commands)

    # -- validation helpers ------------------------------------------------------------------

    def _where(self, kind, counted=True):
        where = (f"command_buffer.{kind} (command {len(self.commands)}) of {self.label}"
                 if counted else f"command_buffer.{kind} of {self.label}")
        if self.state is not CommandBufferState.RECORDING:
            raise InvalidArgumentError(f"{where}: the command buffer is {self.state.value}, "
                                       "not recording")
        return where

    def _category(self, category, where):
        if not self.categories & category:
            raise InvalidArgumentError(
                f"{where}: the command buffer was created for {self.categories!r} commands; "
                f"create it with {category!r}"
            )

    def _buffer(self, buffer, role, where, usage, same_device):
        if not isinstance(buffer, Buffer):
            raise InvalidArgumentError(f"{where}: {role} must be a Buffer, got {buffer!r}")
        if buffer.state is AllocationState.RELEASED:
            raise InvalidArgumentError(f"{where}: {role} {buffer.describe()} is "
                                       f"{buffer.state.value}")
        if same_device and buffer.device is not self.device:
            raise InvalidArgumentError(
                f"{where}: {role} {buffer.describe()} lives on {buffer.device.label}, not on "
                f"{self.device.label}; transfer it with queue_copy first"
            )
        if not buffer.allowed_usage & usage:
            raise InvalidArgumentError(
                f"{where}: {role} {buffer.describe()} was allocated with usage "
                f"{buffer.allowed_usage!r}, which lacks {usage!r}"
            )
        index = self._buffer_index.get(id(buffer))
        if index is None:
            index = self._buffer_index[id(buffer)] = len(self.buffers)
            self.buffers.append(buffer)
        return index

    # -- commands ----------------------------------------------------------------------------

    def fill_buffer(self, target, target_offset, length, pattern, pattern_length):
        """Fill ``length`` bytes of ``target`` at ``target_offset`` with a repeated pattern.

        pattern: the low ``pattern_length`` (1, 2 or 4) bytes of an int, little-endian.
        offset and length must be multiples of pattern_length.
        """
        where = self._where("fill_buffer")
        self._category(CommandCategory.TRANSFER, where)
        if pattern_length not in (1, 2, 4):
            raise InvalidArgumentError(f"{where}: pattern_length must be 1, 2 or 4 bytes, got "
                                       f"{pattern_length!r}")
        index = self._buffer(target, "target", where, BufferUsage.TRANSFER_TARGET, False)
        offset, length = check_range(target, target_offset, length, where, "target")
        if offset % pattern_length or length % pattern_length:
            raise InvalidArgumentError(
                f"{where}: target offset {offset} and length {length} must be multiples of "
                f"the {pattern_length}-byte pattern"
            )
        value = int(pattern) & ((1 << (8 * pattern_length)) - 1)
        self.commands.append((FILL, index, offset, length, value, pattern_length))

    def copy_buffer(self, source, source_offset, target, target_offset, length):
        """Copy ``length`` bytes between buffers (any local device's; ranges may not overlap)."""
        where = self._where("copy_buffer")
        self._category(CommandCategory.TRANSFER, where)
        src = self._buffer(source, "source", where, BufferUsage.TRANSFER_SOURCE, False)
        dst = self._buffer(target, "target", where, BufferUsage.TRANSFER_TARGET, False)
        s_off, length = check_range(source, source_offset, length, where, "source")
        t_off, _ = check_range(target, target_offset, length, where, "target")
        if source.allocation is target.allocation:
            a = source.byte_offset + s_off
            b = target.byte_offset + t_off
            if a < b + length and b < a + length:
                raise InvalidArgumentError(
                    f"{where}: source [{a}, {a + length}) and target [{b}, {b + length}) "
                    "overlap in the same allocation; copy through a temporary buffer"
                )
        self.commands.append((COPY, src, s_off, dst, t_off, length))

    def update_buffer(self, source, source_offset, target, target_offset, length):
        """Copy ``length`` host bytes of ``source`` (bytes-like) from ``source_offset`` into
        ``target``; the bytes are captured now."""
        where = self._where("update_buffer")
        self._category(CommandCategory.TRANSFER, where)
        try:
            data = memoryview(source).cast("B")
        except TypeError:
            raise InvalidArgumentError(f"{where}: source must be bytes-like, got "
                                       f"{type(source).__name__}") from None
        s_off = check_size(source_offset, "source offset", where)
        length = check_size(length, "length", where)
        if s_off + length > data.nbytes:
            raise InvalidArgumentError(
                f"{where}: source range [{s_off}, {s_off + length}) exceeds the "
                f"{data.nbytes}-byte host source"
            )
        dst = self._buffer(target, "target", where, BufferUsage.TRANSFER_TARGET, False)
        t_off, _ = check_range(target, target_offset, length, where, "target")
        self.commands.append((UPDATE, bytes(data[s_off:s_off + length]), dst, t_off, length))

    def dispatch(self, executable, ordinal, workgroup_count, constants=(), bindings=()):
        """Run export ``ordinal`` of ``executable`` over ``workgroup_count`` (x, y, z).

        constants: push constants (ints, stored as uint32), exactly the export's
        constant_count. bindings: exactly binding_count entries, each a Buffer (whole) or a
        tuple ``(buffer, offset, length)`` (length None = to the end); buffers must be this
        device's, offsets multiples of ``device.limits.min_buffer_offset_alignment``.
        """
        where = self._where("dispatch")
        self._category(CommandCategory.DISPATCH, where)
        if not isinstance(executable, Executable):
            raise InvalidArgumentError(f"{where}: expected an Executable, got {executable!r}")
        if executable.device is not self.device:
            raise InvalidArgumentError(
                f"{where}: executable {executable.name} was created on "
                f"{executable.device.label}; create it on {self.device.label}"
            )
        export = executable.export(ordinal, where)
        where = f"{where} of {export.name!r}"
        counts = tuple(workgroup_count)
        if len(counts) != 3:
            raise InvalidArgumentError(f"{where}: workgroup_count must be (x, y, z), got {counts}")
        counts = tuple(_u32(c, "workgroup count", where) for c in counts)
        if any(int(c) < 0 for c in workgroup_count):
            raise InvalidArgumentError(f"{where}: workgroup count {tuple(workgroup_count)} "
                                       "has a negative entry")
        constants = tuple(constants)
        if len(constants) != export.constant_count:
            raise InvalidArgumentError(
                f"{where}: {len(constants)} push constants given, the export takes "
                f"{export.constant_count}"
            )
        constants = tuple(_u32(c, f"push constant {i}", where) for i, c in enumerate(constants))
        bindings = tuple(bindings)
        if len(bindings) != export.binding_count:
            raise InvalidArgumentError(
                f"{where}: {len(bindings)} bindings given, the export takes "
                f"{export.binding_count}"
            )
        alignment = self.device.limits.min_buffer_offset_alignment
        refs = []
        for i, binding in enumerate(bindings):
            if isinstance(binding, Buffer):
                buffer, offset, length = binding, 0, binding.byte_length
            elif isinstance(binding, (tuple, list)) and len(binding) == 3:
                buffer, offset, length = binding
            else:
                raise InvalidArgumentError(
                    f"{where}: binding {i} must be a Buffer or (buffer, offset, length), got "
                    f"{binding!r}"
                )
            index = self._buffer(buffer, f"binding {i}", where, BufferUsage.DISPATCH_STORAGE, True)
            if length is None:
                length = buffer.byte_length - min(check_size(offset, "offset", where),
                                                  buffer.byte_length)
            offset, length = check_range(buffer, offset, length, where, f"binding {i}")
            if (buffer.byte_offset + offset) % alignment:
                raise InvalidArgumentError(
                    f"{where}: binding {i} starts at byte {buffer.byte_offset + offset} of its "
                    f"allocation, which is not a multiple of {alignment}"
                )
            refs.append((index, offset, length))
        self.commands.append((DISPATCH, executable, ordinal, counts, constants, tuple(refs)))

    def execution_barrier(self, source_stage_mask=0, target_stage_mask=0, flags=0):
        """Order every earlier command before every later one (local queues run in order)."""
        self._where("execution_barrier")
        self.commands.append((BARRIER,))

    def begin_debug_group(self, label):
        """Open a named debug group (recorded for tracing; no effect on execution)."""
        self._where("begin_debug_group", counted=False)

    def end_debug_group(self):
        """Close the innermost debug group."""
        self._where("end_debug_group", counted=False)

    def describe_command(self, index):
        """``"command 3 (dispatch of 'add' in executable X)"`` for error messages."""
        cmd = self.commands[index]
        if cmd[0] == DISPATCH:
            executable, ordinal = cmd[1], cmd[2]
            return (f"command {index} (dispatch of export {executable.exports[ordinal].name!r} "
                    f"in executable {executable.name})")
        return f"command {index} ({KIND_NAMES[cmd[0]]})"

    # -- execution ---------------------------------------------------------------------------

    def check_submittable(self, where):
        """Raise ``InvalidArgumentError`` unless finalized and (if ONE_SHOT) not yet submitted."""
        if self.state is not CommandBufferState.EXECUTABLE:
            raise InvalidArgumentError(f"{where}: {self.label} is {self.state.value}; call end() "
                                       "(finalize) before submitting")
        if self.mode & CommandBufferMode.ONE_SHOT and self.submitted:
            raise InvalidArgumentError(f"{where}: {self.label} is ONE_SHOT and was already "
                                       "submitted; record a new one")

    @abc.abstractmethod
    def execute(self, threads):
        """Run every command in order on the calling thread (the queue's).

        Raises ``DeviceError`` naming the device, the command (index, export, executable)
        and the cause.
        """
