"""Command buffers: recorded transfer and dispatch commands, validated while recording.

Follows ``iree_hal_command_buffer_t`` (runtime/src/iree/hal/command_buffer.h) and the checks
of IREE's command_buffer_validation.c: every command is checked as it is recorded (state,
buffer ownership, byte ranges inside buffers, fill pattern and alignment, dispatch binding and
push-constant counts against the export, binding offset alignment, workgroup counts), and an
error names the command index, the command and what would be right. Drivers implement
``execute``; recording is shared.

Lifecycle: ``begin()`` -> record -> ``end()`` (the ``hal`` module's ``finalize``) -> submit
with ``device.queue_execute`` any number of times (unless ONE_SHOT).

Cross-device rules (DESIGN.md §8): devices own separate heaps. A dispatch binding, a fill
target and an update target must live on the command buffer's device; ``copy_buffer`` is the
transfer command: one of its buffers must be the device's, the other may belong to any device
the device can transfer with (``Device.can_transfer_with``, a shared transfer domain). A
dispatch binding tagged with an encoding (``Buffer.encoding``) must carry the encoding the
export expects for it (``Executable.binding_encodings``), if the export declares one.
Debug groups (``begin_debug_group`` / ``end_debug_group``) must balance; they are kept as
markers between commands and become nested zones when the queue is traced.
"""
import abc
import enum

import numpy as np

from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.hal.buffer import AllocationState, Buffer, BufferUsage, check_range, check_size
from rt.runtime.hal.buffer_view import BufferView
from rt.runtime.hal.executable import Executable

# Kinds of recorded commands (also the opcodes of the drivers' replay loop).
FILL, COPY, UPDATE, DISPATCH, BARRIER = range(5)
KIND_NAMES = ("fill_buffer", "copy_buffer", "update_buffer", "dispatch", "execution_barrier")
_MAX_U32 = (1 << 32) - 1
_MIN_I32 = -(1 << 31)
# Plain-int forms of the bits the dispatch fast path tests (no IntFlag arithmetic per call).
_int_and = int.__and__
_DISPATCH_STORAGE = int(BufferUsage.DISPATCH_STORAGE)
_SEQUENCES = (tuple, list)
# Concrete Buffer classes seen to pass ``isinstance(buffer, Buffer)`` (an ABC check, slow).
_BUFFER_TYPES = set()


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


_DISPATCH_CATEGORY = int(CommandCategory.DISPATCH)


class CommandBufferState(enum.Enum):
    INITIAL = "initial (call begin() first)"
    RECORDING = "recording"
    EXECUTABLE = "finalized"


def command_text(command):
    """A short text for a recorded command tuple, as traces show it."""
    kind = command[0]
    if kind == DISPATCH:
        _, executable, ordinal, counts, _, _ = command
        return f"dispatch {executable.exports[ordinal].name}[{counts[0]},{counts[1]},{counts[2]}]"
    if kind == FILL:
        return f"fill_buffer {command[3]} B"
    if kind == UPDATE:
        return f"update_buffer {command[4]} B"
    if kind == COPY:
        return f"copy_buffer {command[5]} B"
    return KIND_NAMES[kind]


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
        self.debug_markers = {}
        self._debug_groups = []
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
        """Finish recording; the command buffer becomes submittable (IREE's finalize).

        Raises ``InvalidArgumentError`` if a debug group is still open.
        """
        where = self._where("end", counted=False)
        if self._debug_groups:
            open_groups = ", ".join(repr(label) for label in self._debug_groups)
            raise InvalidArgumentError(
                f"{where}: {len(self._debug_groups)} debug group(s) still open ({open_groups}); "
                "close each with end_debug_group before end()"
            )
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

    def _buffer(self, buffer, role, where, usage, transfer=False):
        """Check ``buffer`` (live, reachable, usage) for a command being recorded.

        transfer: the command is a copy, so a buffer of another device in the same transfer
        domain is allowed (the caller checks that one side is this device's).
        """
        if not isinstance(buffer, Buffer):
            raise InvalidArgumentError(f"{where}: {role} must be a Buffer, got {buffer!r}")
        if buffer.state is AllocationState.RELEASED:
            raise InvalidArgumentError(f"{where}: {role} {buffer.describe()} is "
                                       f"{buffer.state.value}")
        owner = buffer.device
        if owner is not self.device and not (transfer and self.device.can_transfer_with(owner)):
            how = ("no transfer path connects the two devices" if transfer else
                   "devices own separate heaps; transfer it with queue_copy first")
            raise InvalidArgumentError(
                f"{where}: {role} {buffer.describe()} lives on {owner.label}, which "
                f"{self.device.label} cannot reach: {how}"
            )
        if not buffer.allowed_usage & usage:
            raise InvalidArgumentError(
                f"{where}: {role} {buffer.describe()} was allocated with usage "
                f"{buffer.allowed_usage!r}, which lacks {usage!r}"
            )

    def _index(self, buffer):
        """The index of ``buffer`` in ``self.buffers``, added once its command is valid."""
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
        self._buffer(target, "target", where, BufferUsage.TRANSFER_TARGET)
        offset, length = check_range(target, target_offset, length, where, "target")
        if offset % pattern_length or length % pattern_length:
            raise InvalidArgumentError(
                f"{where}: target offset {offset} and length {length} must be multiples of "
                f"the {pattern_length}-byte pattern"
            )
        value = int(pattern) & ((1 << (8 * pattern_length)) - 1)
        self.commands.append((FILL, self._index(target), offset, length, value, pattern_length))

    def copy_buffer(self, source, source_offset, target, target_offset, length):
        """Copy ``length`` bytes between buffers (ranges may not overlap).

        One buffer must be this device's; the other may be another device's in the same
        transfer domain (the explicit cross-device transfer).
        """
        where = self._where("copy_buffer")
        self._category(CommandCategory.TRANSFER, where)
        self._buffer(source, "source", where, BufferUsage.TRANSFER_SOURCE, True)
        self._buffer(target, "target", where, BufferUsage.TRANSFER_TARGET, True)
        if source.device is not self.device and target.device is not self.device:
            raise InvalidArgumentError(
                f"{where}: neither source {source.describe()} nor target {target.describe()} "
                f"lives on {self.device.label}; record the copy on one of their devices"
            )
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
        target.carry_encoding(source, s_off, t_off, length)
        self.commands.append((COPY, self._index(source), s_off, self._index(target), t_off, length))

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
        self._buffer(target, "target", where, BufferUsage.TRANSFER_TARGET)
        t_off, _ = check_range(target, target_offset, length, where, "target")
        self.commands.append((UPDATE, bytes(data[s_off:s_off + length]), self._index(target),
                              t_off, length))

    def dispatch(self, executable, ordinal, workgroup_count, constants=(), bindings=()):
        """Run export ``ordinal`` of ``executable`` over ``workgroup_count`` (x, y, z).

        constants: push constants (ints, stored as uint32), exactly the export's
        constant_count. bindings: exactly binding_count entries, each a Buffer or BufferView
        (whole) or a tuple ``(buffer, offset, length)`` (length None = to the end); buffers must
        be this device's, offsets multiples of ``device.limits.min_buffer_offset_alignment``,
        and a buffer tagged with an encoding must carry the one the export declares for that
        binding (``executable.binding_encodings``). Raises ``InvalidArgumentError``.

        The common case (plain ints, ``(buffer, offset, length)`` tuples of live buffers of a
        known Buffer type) is checked by ``_dispatch_refs`` without building error context;
        anything it does not accept is re-checked by ``_checked_dispatch``, which raises the
        error naming the command.
        """
        refs = self._dispatch_refs(executable, ordinal, workgroup_count, constants, bindings)
        if refs is None:
            command = self._checked_dispatch(executable, ordinal, workgroup_count, constants,
                                             bindings)
        else:
            counts, constants, refs = refs
            command = (DISPATCH, executable, ordinal, counts,
                       constants, tuple((self._index(b), o, n) for b, o, n in refs))
        self.commands.append(command)

    def _dispatch_refs(self, executable, ordinal, workgroup_count, constants, bindings):
        """``(counts, constants, [(buffer, offset, length)])`` when every check passes on the
        common argument types, else None (nothing recorded; the caller re-checks slowly)."""
        if (self.state is not CommandBufferState.RECORDING
                or not _int_and(self.categories, _DISPATCH_CATEGORY)
                or type(executable) is not Executable
                or executable.device is not self.device or type(ordinal) is not int):
            return None
        exports = executable.exports
        if (not 0 <= ordinal < len(exports) or type(workgroup_count) not in _SEQUENCES
                or type(constants) not in _SEQUENCES or type(bindings) not in _SEQUENCES
                or len(workgroup_count) != 3):
            return None
        export = exports[ordinal]
        x, y, z = workgroup_count
        if (type(x) is not int or type(y) is not int or type(z) is not int
                or not (0 <= x <= _MAX_U32 and 0 <= y <= _MAX_U32 and 0 <= z <= _MAX_U32)
                or len(constants) != export.constant_count
                or len(bindings) != export.binding_count):
            return None
        words = []
        for c in constants:
            if type(c) is not int or not _MIN_I32 <= c <= _MAX_U32:
                return None
            words.append(c & _MAX_U32)
        device = self.device
        alignment = device.limits.min_buffer_offset_alignment
        expected = executable.binding_encodings(ordinal)
        refs = []
        for i, binding in enumerate(bindings):
            if type(binding) is not tuple or len(binding) != 3:
                return None
            buffer, offset, length = binding
            if (type(buffer) not in _BUFFER_TYPES or type(offset) is not int
                    or type(length) is not int or offset < 0 or length < 0
                    or offset + length > buffer.byte_length
                    or (buffer.byte_offset + offset) % alignment
                    or buffer.state is AllocationState.RELEASED
                    or buffer.device is not device
                    or not _int_and(buffer.allowed_usage, _DISPATCH_STORAGE)):
                return None
            if expected is not None:
                want = expected[i]
                if want is not None and buffer.encoding is not None and buffer.encoding != want:
                    return None
            refs.append(binding)
        return (x, y, z), tuple(words), refs

    def _checked_dispatch(self, executable, ordinal, workgroup_count, constants, bindings):
        """The dispatch command tuple after checking every argument of any accepted type;
        raises ``InvalidArgumentError`` naming the command and what would be right."""
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
        expected = executable.binding_encodings(ordinal)
        refs = []
        for i, binding in enumerate(bindings):
            if isinstance(binding, BufferView):
                binding = binding.buffer
            if isinstance(binding, Buffer):
                buffer, offset, length = binding, 0, binding.byte_length
            elif isinstance(binding, (tuple, list)) and len(binding) == 3:
                buffer, offset, length = binding
            else:
                raise InvalidArgumentError(
                    f"{where}: binding {i} must be a Buffer, a BufferView or (buffer, offset, "
                    f"length), got {binding!r}"
                )
            self._buffer(buffer, f"binding {i}", where, BufferUsage.DISPATCH_STORAGE)
            if length is None:
                length = buffer.byte_length - min(check_size(offset, "offset", where),
                                                  buffer.byte_length)
            offset, length = check_range(buffer, offset, length, where, f"binding {i}")
            if (buffer.byte_offset + offset) % alignment:
                raise InvalidArgumentError(
                    f"{where}: binding {i} starts at byte {buffer.byte_offset + offset} of its "
                    f"allocation, which is not a multiple of {alignment}"
                )
            want = expected[i] if expected else None
            if want is not None and buffer.encoding is not None and buffer.encoding != want:
                raise InvalidArgumentError(
                    f"{where}: binding {i} expects encoding {want!r} but {buffer.describe()} "
                    f"holds encoding {buffer.encoding!r}; pass a tensor laid out with {want!r} "
                    "(specialize-encodings per device) or re-encode it first"
                )
            refs.append((buffer, offset, length))
        _BUFFER_TYPES.update(type(buffer) for buffer, _, _ in refs)
        refs = tuple((self._index(buffer), offset, length) for buffer, offset, length in refs)
        return (DISPATCH, executable, ordinal, counts, constants, refs)

    def execution_barrier(self, source_stage_mask=0, target_stage_mask=0, flags=0):
        """Order every earlier command before every later one (local queues run in order)."""
        if self.state is not CommandBufferState.RECORDING:
            self._where("execution_barrier")
        self.commands.append((BARRIER,))

    def begin_debug_group(self, label):
        """Open a debug group named ``label`` (str) around the commands recorded next.

        No effect on execution; a traced queue shows it as a zone enclosing its commands.
        """
        where = self._where("begin_debug_group", counted=False)
        if not isinstance(label, str):
            raise InvalidArgumentError(f"{where}: label must be a str, got {label!r}")
        self.debug_markers.setdefault(len(self.commands), []).append(label)
        self._debug_groups.append(label)

    def end_debug_group(self):
        """Close the innermost debug group; ``InvalidArgumentError`` if none is open."""
        where = self._where("end_debug_group", counted=False)
        if not self._debug_groups:
            raise InvalidArgumentError(f"{where}: no debug group is open; call "
                                       "begin_debug_group first")
        self._debug_groups.pop()
        self.debug_markers.setdefault(len(self.commands), []).append(None)

    def describe_command(self, index):
        """``"command 3 (dispatch of 'add' in executable X)"`` for error messages."""
        if index >= len(self.commands):
            return f"the debug group markers after its {len(self.commands)} commands"
        cmd = self.commands[index]
        if cmd[0] == DISPATCH:
            executable, ordinal = cmd[1], cmd[2]
            return (f"command {index} (dispatch of export {executable.exports[ordinal].name!r} "
                    f"in executable {executable.name})")
        return f"command {index} ({KIND_NAMES[cmd[0]]})"

    def dispatch_names(self):
        """Export names of the recorded dispatches, in order."""
        return [c[1].exports[c[2]].name for c in self.commands if c[0] == DISPATCH]

    def command_texts(self):
        """One line per recorded command (``dispatch add_f32[4,1,1]``, ``copy_buffer 64 B``)."""
        return [command_text(c) for c in self.commands]

    # -- execution ---------------------------------------------------------------------------

    def check_submittable(self, where):
        """Raise ``InvalidArgumentError`` unless finalized and (if ONE_SHOT) not yet submitted."""
        if self.state is not CommandBufferState.EXECUTABLE:
            raise InvalidArgumentError(f"{where}: {self.label} is {self.state.value}; call end() "
                                       "(finalize) before submitting")
        if self.submitted and self.mode & CommandBufferMode.ONE_SHOT:
            raise InvalidArgumentError(f"{where}: {self.label} is ONE_SHOT and was already "
                                       "submitted; record a new one")

    @abc.abstractmethod
    def execute(self, threads, sink=None, lane=None):
        """Run every command in order on the calling thread (the one running the queue).

        sink / lane: a ``TraceSink`` and the queue's ``Lane``; when set, one zone per command
        and per debug group is reported (see rt.runtime.hal.trace).

        Raises ``DeviceError`` naming the device, the command (index, export, executable)
        and the cause.
        """
