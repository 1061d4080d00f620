# cython: language_level=3
"""Command buffers: recorded transfer and dispatch commands, validated while recording.

Follows ``iree_hal_command_buffer_t`` (runtime/src/iree/hal/command_buffer.h): commands are
typed C records (``_commands.pxd``) checked by the one validation module (``_validation``) as
they are recorded — from Python, or from the ``hal`` VM module's C entries, which call the
same ``*_c`` methods with register values — and an error names the command index, the
command and what would be right. Replay lives in ``drivers/_replay.pyx``.

Lifecycle: ``begin()`` -> record -> ``end()`` (the ``hal`` module's ``finalize``) -> submit
with ``device.queue_execute`` any number of times (unless ONE_SHOT).

Indirect bindings (IREE's binding tables): a command buffer created with
``binding_capacity`` N may reference binding-table slots 0..N-1 instead of buffers
(``BufferRef(slot=k, offset, length)``, or a null buffer from the VM); each submission passes
a table of N ``(buffer, offset, length)`` entries, checked against what the commands use
through each slot (bytes, usage, alignment, encodings). One recorded command buffer then
serves any number of calls with different buffers (IREE's memoized command buffers).

Debug groups (``begin_debug_group`` / ``end_debug_group``) must balance; they are kept as
markers between commands and become nested zones when the queue is traced.
"""
import enum

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset

from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.hal._buffer cimport Buffer, describe, size_arg
from rt.runtime.hal._buffer import BufferUsage
from rt.runtime.hal._commands cimport (COMMAND_BARRIER, COMMAND_COLLECTIVE, COMMAND_COPY,
                                       COMMAND_DISPATCH, COMMAND_FILL, COMMAND_UPDATE, INDIRECT,
                                       BufferRef, CollectiveCommand, Command, CommandKind,
                                       DispatchCommand)
from rt.runtime.hal._executable cimport Executable
from rt.runtime.hal._validation cimport (Site, buffer_arg, check_binding, check_collective,
                                         check_collective_range, check_copy, check_dispatch,
                                         check_executable, check_fill, check_range, check_slot,
                                         check_table_entry, dispatch_int_arg, host_source,
                                         size_value)
from rt.runtime.hal import commands as records
from rt.runtime.vm._interp import current_call_site

cdef uint32_t _TRANSFER_SOURCE = int(BufferUsage.TRANSFER_SOURCE)
cdef uint32_t _TRANSFER_TARGET = int(BufferUsage.TRANSFER_TARGET)
cdef uint32_t _DISPATCH_STORAGE = int(BufferUsage.DISPATCH_STORAGE)
#: Display names of the command kinds (IREE's recording function names).
KIND_NAMES = {COMMAND_FILL: "fill_buffer", COMMAND_COPY: "copy_buffer",
              COMMAND_UPDATE: "update_buffer", COMMAND_DISPATCH: "dispatch",
              COMMAND_BARRIER: "execution_barrier", COMMAND_COLLECTIVE: "collective"}


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


_STATES = (CommandBufferState.INITIAL, CommandBufferState.RECORDING, CommandBufferState.EXECUTABLE)
cdef uint32_t _ONE_SHOT = int(CommandBufferMode.ONE_SHOT)
cdef uint32_t _TRANSFER = int(CommandCategory.TRANSFER)
cdef uint32_t _DISPATCH = int(CommandCategory.DISPATCH)
#: Largest binding capacity a command buffer may be created with.
MAX_BINDING_CAPACITY = 1 << 16


cdef void* _grow(void* items, size_t item_size, size_t* capacity, size_t needed) except NULL:
    cdef size_t n = capacity[0]
    cdef void* grown
    if needed <= n and items != NULL:
        return items
    n = max(2 * n, needed, 8)
    grown = PyMem_Realloc(items, n * item_size)
    if grown == NULL:
        raise MemoryError()
    capacity[0] = n
    return grown


cdef int64_t _size(int64_t value, str what, str where) except? -1:
    if value < 0:
        raise InvalidArgumentError(f"{where}: {what} {value} is out of range; expected 0 <= {what} "
                                   "< 2**63")
    return value


cdef class CommandBuffer(Site):
    """Commands for ``device``; ``mode``: CommandBufferMode, ``categories``: CommandCategory,
    ``binding_capacity``: binding-table slots its commands may reference (0 = direct only)."""

    def __init__(self, device, mode=CommandBufferMode.DEFAULT, categories=CommandCategory.ANY,
                 binding_capacity=0):
        Site.__init__(self, device)
        self._mode = int(mode) & 0x1FF
        self._categories = int(categories) & 3
        if (isinstance(binding_capacity, bool) or not isinstance(binding_capacity, int)
                or not 0 <= binding_capacity <= MAX_BINDING_CAPACITY):
            raise InvalidArgumentError(
                f"command_buffer.create on {device.label}: binding_capacity {binding_capacity!r} "
                f"must be an integer in [0, {MAX_BINDING_CAPACITY}]")
        self.binding_capacity = binding_capacity
        self.buffers, self._buffer_index = [], {}
        self.executables, self._executable_index = [], {}
        self.channels = []
        self._channel_index = {}
        self.debug_markers, self._debug_groups = {}, []
        self.sources = {}
        self._host = bytearray()
        if binding_capacity:
            self._slot_end = <uint64_t*>PyMem_Malloc(binding_capacity * sizeof(uint64_t))
            self._slot_usage = <uint32_t*>PyMem_Malloc(binding_capacity * sizeof(uint32_t))
            self._slot_dispatch = <uint8_t*>PyMem_Malloc(binding_capacity)
            if self._slot_end == NULL or self._slot_usage == NULL or self._slot_dispatch == NULL:
                raise MemoryError()
            memset(self._slot_end, 0, binding_capacity * sizeof(uint64_t))
            memset(self._slot_usage, 0, binding_capacity * sizeof(uint32_t))
            memset(self._slot_dispatch, 0, binding_capacity)

    def __dealloc__(self):
        PyMem_Free(self._commands)
        PyMem_Free(self._refs)
        PyMem_Free(self._constants)
        PyMem_Free(self._slot_end)
        PyMem_Free(self._slot_usage)
        PyMem_Free(self._slot_dispatch)

    # -- C accessors (replay) ----------------------------------------------------------------

    cdef Command* command(self, Py_ssize_t index) noexcept:
        return &self._commands[index]

    cdef BufferRef* ref(self, uint32_t index) noexcept:
        return &self._refs[index]

    cdef const uint32_t* constant_pool(self) noexcept:
        return self._constants

    cdef const unsigned char* host_bytes(self, uint64_t offset) noexcept:
        return <const unsigned char*>(<char*>self._host) + offset

    cdef Py_ssize_t count(self) noexcept:
        return self._count

    # -- properties ----------------------------------------------------------------------------

    def as_queue_operation(self, name):
        """Name this (transient) command buffer's errors after queue operation ``name``
        (``queue_fill on <device>``): the device records its queue transfers into one."""
        self._queue_operation = name
        return self

    @property
    def label(self):
        return f"command buffer {id(self) & 0xFFFF:04x} of {self.device.label}"

    @property
    def mode(self):
        return CommandBufferMode(self._mode)

    @property
    def categories(self):
        return CommandCategory(self._categories)

    @property
    def state(self):
        return _STATES[self._state]

    @property
    def command_count(self):
        return self._count

    cdef str where(self, str kind):
        if self._queue_operation is not None:
            return f"{self._queue_operation} on {self.device.label}"
        where = f"command_buffer.{kind} (command {self._count}) of {self.label}"
        if self._dispatching is not None:
            where += f" of {self._dispatching.exports[self._dispatching_ordinal].name!r}"
        return where

    cdef int _recording(self, str kind, bint counted=True) except -1:
        if self._state != CB_RECORDING:
            where = self.where(kind) if counted else f"command_buffer.{kind} of {self.label}"
            raise InvalidArgumentError(f"{where}: the command buffer is {_STATES[self._state].value}, "
                                       "not recording")
        return 0

    cdef int _category(self, str kind, uint32_t category) except -1:
        if not self._categories & category:
            raise InvalidArgumentError(
                f"{self.where(kind)}: the command buffer was created for {self.categories!r} "
                f"commands; create it with {CommandCategory(category)!r}")
        return 0

    # -- lifecycle ---------------------------------------------------------------------------

    cdef int begin_c(self) except -1:
        if self._state != CB_INITIAL:
            raise InvalidArgumentError(f"{self.label}: begin() while {_STATES[self._state].value}")
        self._state = CB_RECORDING
        return 0

    def begin(self):
        """Start recording (only from the initial state)."""
        self.begin_c()

    cdef int finalize_c(self) except -1:
        self._recording("end", False)
        if self._debug_groups:
            open_groups = ", ".join(repr(label) for label in self._debug_groups)
            raise InvalidArgumentError(
                f"command_buffer.end of {self.label}: {len(self._debug_groups)} debug group(s) still "
                f"open ({open_groups}); close each with end_debug_group before end()")
        self._state = CB_EXECUTABLE
        return 0

    def end(self):
        """Finish recording; the command buffer becomes submittable (IREE's finalize).

        Raises ``InvalidArgumentError`` if a debug group is still open.
        """
        self.finalize_c()

    # -- recording ---------------------------------------------------------------------------

    cdef Command* _new_command(self, CommandKind kind) except NULL:
        """The next command slot (committed by ``self._count += 1`` once filled in)."""
        cdef size_t capacity = self._capacity
        self._commands = <Command*>_grow(self._commands, sizeof(Command), &capacity, self._count + 1)
        self._capacity = capacity
        memset(&self._commands[self._count], 0, sizeof(Command))
        self._commands[self._count].kind = kind
        return &self._commands[self._count]

    cdef int32_t _index(self, Buffer buffer) except -2:
        index = self._buffer_index.get(id(buffer))
        if index is None:
            index = self._buffer_index[id(buffer)] = len(self.buffers)
            self.buffers.append(buffer)
        return index

    cdef uint32_t _executable_of(self, Executable e) except? 0xFFFFFFFF:
        index = self._executable_index.get(id(e))
        if index is None:
            index = self._executable_index[id(e)] = len(self.executables)
            self.executables.append(e)
        return index

    cdef Buffer _operand(self, str kind, str role, object buffer, int64_t slot, int64_t offset,
                         int64_t* length, uint32_t usage, bint transfer):
        """Check a transfer command's buffer operand (a buffer, or None for binding-table
        ``slot``); returns the Buffer or None. ``length[0]`` < 0 means to the end of the
        buffer (direct operands only)."""
        cdef Buffer b
        if offset < 0:
            size_arg(offset, f"{role} offset", self.where(kind))
        if buffer is None:
            check_slot(self, kind, role, slot, offset, self.binding_capacity, False)
            if length[0] < 0:
                raise InvalidArgumentError(f"{self.where(kind)}: {role} through binding-table slot "
                                           f"{slot} needs an explicit length")
            return None
        b = buffer_arg(self, kind, buffer, role, usage, transfer)
        if length[0] < 0:
            length[0] = (b.byte_length - offset) if <uint64_t>offset < b.byte_length else 0
        return b

    cdef BufferRef _commit_ref(self, Buffer buffer, int64_t slot, uint64_t offset, uint64_t length,
                               uint32_t usage, bint dispatch, object encoding) except *:
        """The record of a checked reference; an indirect one adds to its slot's needs."""
        cdef BufferRef r
        r.offset, r.length = offset, length
        if buffer is not None:
            r.buffer, r.slot = self._index(buffer), 0
            return r
        r.buffer, r.slot = INDIRECT, <uint32_t>slot
        if offset + length > self._slot_end[slot]:
            self._slot_end[slot] = offset + length
        self._slot_usage[slot] |= usage
        if dispatch:
            self._slot_dispatch[slot] = 1
            if encoding is not None:
                if self._slot_encodings is None:
                    self._slot_encodings = {}
                self._slot_encodings[slot] = encoding
        return r

    cdef int fill_c(self, object target, int64_t slot, int64_t offset, int64_t length,
                    int64_t pattern, int64_t pattern_length) except -1:
        cdef Buffer b
        cdef Command* c
        self._recording("fill_buffer")
        self._category("fill_buffer", _TRANSFER)
        if pattern_length != 1 and pattern_length != 2 and pattern_length != 4:
            raise InvalidArgumentError(f"{self.where('fill_buffer')}: pattern_length must be 1, 2 or "
                                       f"4 bytes, got {pattern_length!r}")
        b = self._operand("fill_buffer", "target", target, slot, offset, &length, _TRANSFER_TARGET,
                          False)
        if length < 0:
            size_arg(length, "target length", self.where("fill_buffer"))
        if b is not None:
            check_range(self, "fill_buffer", b, offset, length, "target")
        check_fill(self, "fill_buffer", offset, length, <uint32_t>pattern_length)
        c = self._new_command(COMMAND_FILL)
        c.args.fill.target = self._commit_ref(b, slot, offset, length, _TRANSFER_TARGET, False, None)
        c.args.fill.pattern = <uint32_t>(pattern & ((<int64_t>1 << (8 * pattern_length)) - 1))
        c.args.fill.pattern_length = <uint32_t>pattern_length
        self._count += 1
        return 0

    def fill_buffer(self, target, target_offset, length, pattern, pattern_length):
        """Fill ``length`` bytes of ``target`` at ``target_offset`` with a repeated pattern.

        target: a Buffer or a ``BufferRef`` naming a binding-table slot. pattern: the low
        ``pattern_length`` (1, 2 or 4) bytes of an int, little-endian. offset and length must
        be multiples of pattern_length.
        """
        self._recording("fill_buffer")
        buffer, slot, base = records.operand(target)
        if pattern_length not in (1, 2, 4):
            raise InvalidArgumentError(f"{self.where('fill_buffer')}: pattern_length must be 1, 2 or "
                                       f"4 bytes, got {pattern_length!r}")
        self.fill_c(buffer, slot, base + size_value(self, "fill_buffer", target_offset, "target offset"),
                    size_value(self, "fill_buffer", length, "target length"),
                    int(pattern) & 0xFFFFFFFF, pattern_length)

    cdef int copy_c(self, object source, int64_t source_slot, int64_t source_offset, object target,
                    int64_t target_slot, int64_t target_offset, int64_t length) except -1:
        cdef Buffer s, t
        cdef Command* c
        cdef int64_t n = length
        self._recording("copy_buffer")
        self._category("copy_buffer", _TRANSFER)
        s = self._operand("copy_buffer", "source", source, source_slot, source_offset, &n,
                          _TRANSFER_SOURCE, True)
        t = self._operand("copy_buffer", "target", target, target_slot, target_offset, &n,
                          _TRANSFER_TARGET, True)
        if n < 0:
            size_arg(n, "source length", self.where("copy_buffer"))
        if s is not None and t is not None:
            check_copy(self, "copy_buffer", s, source_offset, t, target_offset, n)
            t.carry_encoding(s, source_offset, target_offset, n)
        elif s is not None:
            check_range(self, "copy_buffer", s, source_offset, n, "source")
        elif t is not None:
            check_range(self, "copy_buffer", t, target_offset, n, "target")
        c = self._new_command(COMMAND_COPY)
        c.args.copy.source = self._commit_ref(s, source_slot, source_offset, n, _TRANSFER_SOURCE,
                                              False, None)
        c.args.copy.target = self._commit_ref(t, target_slot, target_offset, n, _TRANSFER_TARGET,
                                              False, None)
        self._count += 1
        return 0

    def copy_buffer(self, source, source_offset, target, target_offset, length):
        """Copy ``length`` bytes between buffers (ranges may not overlap).

        One buffer must be this device's; the other may be another device's in the same
        transfer domain (the explicit cross-device transfer). Either may be a ``BufferRef``
        naming a binding-table slot.
        """
        self._recording("copy_buffer")
        s, s_slot, s_base = records.operand(source)
        t, t_slot, t_base = records.operand(target)
        self.copy_c(s, s_slot, s_base + size_value(self, "copy_buffer", source_offset, "source offset"),
                    t, t_slot, t_base + size_value(self, "copy_buffer", target_offset, "target offset"),
                    size_value(self, "copy_buffer", length, "source length"))

    cdef int update_c(self, object source, int64_t source_offset, object target, int64_t slot,
                      int64_t target_offset, int64_t length) except -1:
        cdef Buffer t
        cdef Command* c
        cdef bytes captured
        cdef uint64_t at
        self._recording("update_buffer")
        self._category("update_buffer", _TRANSFER)
        if source_offset < 0:
            size_arg(source_offset, "source offset", self.where("update_buffer"))
        if length < 0:
            size_arg(length, "length", self.where("update_buffer"))
        captured = host_source(self, "update_buffer", source, source_offset, length)
        t = self._operand("update_buffer", "target", target, slot, target_offset, &length,
                          _TRANSFER_TARGET, False)
        if t is not None:
            check_range(self, "update_buffer", t, target_offset, length, "target")
        at = len(self._host)
        self._host += captured
        c = self._new_command(COMMAND_UPDATE)
        c.args.update.source_offset = at
        c.args.update.target = self._commit_ref(t, slot, target_offset, length, _TRANSFER_TARGET,
                                                False, None)
        self._count += 1
        return 0

    def update_buffer(self, source, source_offset, target, target_offset, length):
        """Copy ``length`` host bytes of ``source`` (bytes-like) from ``source_offset`` into
        ``target``; the bytes are captured now."""
        self._recording("update_buffer")
        t, slot, base = records.operand(target)
        self.update_c(source, size_value(self, "update_buffer", source_offset, "source offset"), t,
                      slot, base + size_value(self, "update_buffer", target_offset, "target offset"),
                      size_value(self, "update_buffer", length, "length"))

    cdef int dispatch_c(self, object executable, int64_t ordinal, int64_t x, int64_t y, int64_t z,
                        const int64_t* constants, Py_ssize_t constant_count,
                        const BindingArg* bindings, Py_ssize_t binding_count) except -1:
        cdef Executable e
        cdef Command* c
        cdef Py_ssize_t i
        cdef uint32_t constants_at, refs_at
        cdef size_t capacity
        cdef list operands
        cdef int64_t offset, length
        cdef Buffer b
        cdef tuple expected
        self._recording("dispatch")
        self._category("dispatch", _DISPATCH)
        check_executable(self, "dispatch", executable, ordinal)
        e = <Executable>executable
        self._dispatching, self._dispatching_ordinal = e, <uint32_t>ordinal
        try:
            check_dispatch(self, "dispatch", e, ordinal, x, y, z, constants, constant_count,
                           binding_count)
            expected = e.encodings_of(ordinal)
            operands = []
            for i in range(binding_count):
                offset, length = bindings[i].offset, bindings[i].length
                if offset < 0:
                    size_arg(offset, f"binding {i} offset", self.where("dispatch"))
                if length < -1:
                    size_arg(length, f"binding {i} length", self.where("dispatch"))
                if bindings[i].buffer == NULL:
                    check_slot(self, "dispatch", f"binding {i}", bindings[i].slot, offset,
                               self.binding_capacity, True)
                    if length < 0:
                        raise InvalidArgumentError(f"{self.where('dispatch')}: binding {i} through "
                                                   f"binding-table slot {bindings[i].slot} needs an "
                                                   "explicit length")
                    operands.append(None)
                    continue
                b = buffer_arg(self, "dispatch", <object>bindings[i].buffer, f"binding {i}",
                               _DISPATCH_STORAGE, False)
                if length < 0:
                    length = (b.byte_length - offset) if <uint64_t>offset < b.byte_length else 0
                check_binding(self, "dispatch", i, b, offset, length,
                              None if expected is None else expected[i])
                operands.append(b)
        finally:
            self._dispatching = None
        constants_at = self._constant_count
        capacity = self._constant_capacity
        self._constants = <uint32_t*>_grow(self._constants, sizeof(uint32_t), &capacity,
                                           constants_at + constant_count)
        self._constant_capacity = capacity
        for i in range(constant_count):
            self._constants[constants_at + i] = <uint32_t>(constants[i] & 0xFFFFFFFF)
        refs_at = self._ref_count
        capacity = self._ref_capacity
        self._refs = <BufferRef*>_grow(self._refs, sizeof(BufferRef), &capacity, refs_at + binding_count)
        self._ref_capacity = capacity
        for i in range(binding_count):
            b = operands[i]
            length = bindings[i].length
            if b is not None and length < 0:
                offset = bindings[i].offset
                length = (b.byte_length - offset) if <uint64_t>offset < b.byte_length else 0
            self._refs[refs_at + i] = self._commit_ref(
                b, bindings[i].slot, bindings[i].offset, length, _DISPATCH_STORAGE, True,
                None if expected is None else expected[i])
            if b is None:
                if self._slot_users is None:
                    self._slot_users = {}
                self._slot_users.setdefault(bindings[i].slot, (e, ordinal, i))
        c = self._new_command(COMMAND_DISPATCH)
        c.args.dispatch.executable = self._executable_of(e)
        c.args.dispatch.ordinal = <uint32_t>ordinal
        c.args.dispatch.workgroup_count[0] = <uint32_t>x
        c.args.dispatch.workgroup_count[1] = <uint32_t>y
        c.args.dispatch.workgroup_count[2] = <uint32_t>z
        c.args.dispatch.constants = constants_at
        c.args.dispatch.constant_count = <uint32_t>constant_count
        c.args.dispatch.bindings = refs_at
        c.args.dispatch.binding_count = <uint32_t>binding_count
        self._constant_count += <uint32_t>constant_count
        self._ref_count += <uint32_t>binding_count
        self._count += 1
        site = current_call_site()
        if site is not None:
            self.sources[self._count - 1] = site
        return 0

    def dispatch(self, executable, ordinal, workgroup_count, constants=(), bindings=()):
        """Run export ``ordinal`` of ``executable`` over ``workgroup_count`` (x, y, z).

        constants: push constants (ints in [-2**31, 2**32), stored as uint32), exactly the
        export's constant_count. bindings: exactly binding_count entries, each a Buffer or
        BufferView (whole), a tuple ``(buffer, offset, length)`` (length None = to the end) or
        a ``BufferRef`` (``buffer`` None: a binding-table slot); buffers must be this device's,
        offsets multiples of ``device.limits.min_buffer_offset_alignment``, and a buffer tagged
        with an encoding must carry the one the export declares for that binding
        (``executable.binding_encodings``). Raises ``InvalidArgumentError``.
        """
        cdef int64_t xyz[3]
        cdef int64_t* values = NULL
        cdef BindingArg* args = NULL
        cdef Py_ssize_t i, nc, nb
        self._recording("dispatch")
        self._category("dispatch", _DISPATCH)
        if isinstance(ordinal, bool) or not isinstance(ordinal, int):
            check_executable(self, "dispatch", executable, 0)
            executable.export(ordinal, self.where("dispatch"))
        check_executable(self, "dispatch", executable, ordinal)
        self._dispatching, self._dispatching_ordinal = executable, ordinal
        keep = []
        try:
            counts = tuple(workgroup_count)
            if len(counts) != 3:
                raise InvalidArgumentError(f"{self.where('dispatch')}: workgroup_count must be "
                                           f"(x, y, z), got {counts}")
            for i in range(3):
                xyz[i] = dispatch_int_arg(self, "dispatch", counts[i], "workgroup count")
            constants, bindings = tuple(constants), tuple(bindings)
            nc, nb = len(constants), len(bindings)
            values = <int64_t*>PyMem_Malloc(max(nc, 1) * sizeof(int64_t))
            args = <BindingArg*>PyMem_Malloc(max(nb, 1) * sizeof(BindingArg))
            if values == NULL or args == NULL:
                raise MemoryError()
            for i in range(nc):
                values[i] = dispatch_int_arg(self, "dispatch", constants[i], f"push constant {i}")
            check_dispatch(self, "dispatch", executable, ordinal, xyz[0], xyz[1], xyz[2], values, nc,
                           nb)
            for i in range(nb):
                form = records.binding(bindings[i])
                if form is None:
                    raise InvalidArgumentError(
                        f"{self.where('dispatch')}: binding {i} must be a Buffer, a BufferView or "
                        f"(buffer, offset, length), got {bindings[i]!r}")
                buffer, slot, offset, length = form
                keep.append(buffer)
                args[i].buffer = NULL if buffer is None else <void*>buffer
                args[i].slot = slot
                args[i].offset = size_value(self, "dispatch", offset, f"binding {i} offset")
                args[i].length = -1 if length is None else size_value(self, "dispatch", length,
                                                                      f"binding {i} length")
        finally:
            self._dispatching = None
        try:
            self.dispatch_c(executable, ordinal, xyz[0], xyz[1], xyz[2], values, nc, args, nb)
        finally:
            PyMem_Free(values)
            PyMem_Free(args)

    cdef int collective_c(self, object channel, object op, uint32_t param, object send,
                          int64_t send_slot, int64_t send_offset, int64_t send_length, object recv,
                          int64_t recv_slot, int64_t recv_offset, int64_t recv_length,
                          int64_t count) except -1:
        cdef Buffer s, r
        cdef Command* c
        cdef CollectiveCommand* k
        self._recording("collective")
        self._category("collective", _DISPATCH)
        op = check_collective(self, "collective", channel, op)
        if count < 0:
            size_arg(count, "element_count", self.where("collective"))
        need_send, need_recv = op.byte_lengths(count, channel.count)
        s = self._operand("collective", "send buffer", send, send_slot, send_offset, &send_length,
                          _DISPATCH_STORAGE, False)
        r = self._operand("collective", "recv buffer", recv, recv_slot, recv_offset, &recv_length,
                          _DISPATCH_STORAGE, False)
        for b, role, offset, length, need in ((s, "send buffer", send_offset, send_length, need_send),
                                              (r, "recv buffer", recv_offset, recv_length, need_recv)):
            if b is not None:
                check_range(self, "collective", b, offset, length, role)
            check_collective_range(self, "collective", role, length, op, count, need, channel.count)
        index = self._channel_index.get(id(channel))
        if index is None:
            index = self._channel_index[id(channel)] = len(self.channels)
            self.channels.append(channel)
        c = self._new_command(COMMAND_COLLECTIVE)
        k = &c.args.collective
        k.channel, k.op, k.param, k.element_count = index, op.pack(), param, count
        k.send = self._commit_ref(s, send_slot, send_offset, need_send, _DISPATCH_STORAGE, False, None)
        k.recv = self._commit_ref(r, recv_slot, recv_offset, need_recv, _DISPATCH_STORAGE, False, None)
        self._count += 1
        return 0

    def collective(self, channel, op, param, send, recv, element_count):
        """Run collective ``op`` (a packed ``iree_hal_collective_op_t`` or a ``CollectiveOp``) on
        ``channel`` over ``element_count`` elements (``iree_hal_command_buffer_collective``).

        send / recv: a Buffer, ``(buffer, offset, length)`` (length None = to the end) or a
        ``BufferRef``; each must hold the bytes ``op.byte_lengths(element_count,
        channel.count)`` says (rt.runtime.hal.collective). param: the root rank (broadcast,
        reduce) or the packed send_recv pair. Raises ``InvalidArgumentError``.
        """
        self._recording("collective")
        operands = []
        for role, value in (("send", send), ("recv", recv)):
            if value is None:
                raise InvalidArgumentError(f"{self.where('collective')}: a {role} buffer is required")
            if isinstance(value, tuple) and len(value) == 3:
                value = records.BufferRef(value[0], 0, value[1], value[2])
            buffer, slot, base = records.operand(value)
            length = value.length if isinstance(value, records.BufferRef) else None
            operands.append((buffer, slot, base, -1 if length is None else
                             size_value(self, "collective", length, f"{role} length")))
        (s, s_slot, s_off, s_len), (r, r_slot, r_off, r_len) = operands
        self.collective_c(channel, op, int(param) & 0xFFFFFFFF, s, s_slot, s_off, s_len, r, r_slot,
                          r_off, r_len, size_value(self, "collective", element_count, "element_count"))

    cdef int barrier_c(self) except -1:
        cdef Command* c
        self._recording("execution_barrier")
        c = self._new_command(COMMAND_BARRIER)
        self._count += 1
        return 0

    def execution_barrier(self, source_stage_mask=0, target_stage_mask=0, flags=0):
        """Order every earlier command before every later one (local queues run in order)."""
        self.barrier_c()

    def begin_debug_group(self, label):
        """Open a debug group named ``label`` (str) around the commands recorded next.

        No effect on execution; a traced queue shows it as a zone enclosing its commands.
        """
        self._recording("begin_debug_group", False)
        if not isinstance(label, str):
            raise InvalidArgumentError(f"command_buffer.begin_debug_group of {self.label}: label "
                                       f"must be a str, got {label!r}")
        self.debug_markers.setdefault(self._count, []).append(label)
        self._debug_groups.append(label)

    def end_debug_group(self):
        """Close the innermost debug group; ``InvalidArgumentError`` if none is open."""
        self._recording("end_debug_group", False)
        if not self._debug_groups:
            raise InvalidArgumentError(f"command_buffer.end_debug_group of {self.label}: no debug "
                                       "group is open; call begin_debug_group first")
        self._debug_groups.pop()
        self.debug_markers.setdefault(self._count, []).append(None)

    # -- submission ----------------------------------------------------------------------------

    cdef int check_submittable_c(self, str where) except -1:
        if self._state != CB_EXECUTABLE:
            raise InvalidArgumentError(f"{where}: {self.label} is {_STATES[self._state].value}; call "
                                       "end() (finalize) before submitting")
        if self.submitted and self._mode & _ONE_SHOT:
            raise InvalidArgumentError(f"{where}: {self.label} is ONE_SHOT and was already "
                                       "submitted; record a new one")
        return 0

    def check_submittable(self, where):
        """Raise ``InvalidArgumentError`` unless finalized and (if ONE_SHOT) not yet submitted."""
        self.check_submittable_c(where)

    cdef int check_table_c(self, Site site, str kind, list buffers, const uint64_t* offsets,
                           const uint64_t* lengths, Py_ssize_t count) except -1:
        """Check a binding table ``(buffers[k], offsets[k], lengths[k])`` given at submission
        against what this command buffer's commands use through each slot."""
        cdef uint32_t slot
        cdef Buffer b
        if count < self.binding_capacity:
            raise InvalidArgumentError(
                f"{site.where(kind)}: {self.label} references {self.binding_capacity} binding-table "
                f"slots but the table has {count} entries")
        if self._slot_roles is None:
            self._slot_roles = [self._slot_role(slot) for slot in range(self.binding_capacity)]
        for slot in range(self.binding_capacity):
            if not self._slot_usage[slot]:
                continue
            role = self._slot_roles[slot]
            b = buffer_arg(site, kind, buffers[slot], role, self._slot_usage[slot],
                           not self._slot_dispatch[slot])
            check_table_entry(site, kind, role, b, offsets[slot], lengths[slot],
                              self._slot_usage[slot], self._slot_end[slot], self._slot_dispatch[slot],
                              None if self._slot_encodings is None else self._slot_encodings.get(slot))
        return 0

    cdef str _slot_role(self, uint32_t slot):
        """How errors name binding-table ``slot``: with the first dispatch binding it, if any."""
        role = f"binding-table slot {slot}"
        if self._slot_users is not None and slot in self._slot_users:
            e, ordinal, i = self._slot_users[slot]
            role = f"{role} of {e.exports[ordinal].name}: binding {i}"
        return role

    # -- inspection ----------------------------------------------------------------------------

    cdef object _ref_record(self, BufferRef* r):
        if r.buffer == INDIRECT:
            return records.BufferRef(None, r.slot, r.offset, r.length)
        return records.BufferRef(self.buffers[r.buffer], 0, r.offset, r.length)

    cdef object _record(self, Command* c):
        cdef Py_ssize_t i
        cdef DispatchCommand* d
        cdef CollectiveCommand* k
        if c.kind == COMMAND_FILL:
            return records.FillCommand(self._ref_record(&c.args.fill.target), c.args.fill.pattern,
                                       c.args.fill.pattern_length)
        if c.kind == COMMAND_COPY:
            return records.CopyCommand(self._ref_record(&c.args.copy.source),
                                       self._ref_record(&c.args.copy.target))
        if c.kind == COMMAND_UPDATE:
            at = c.args.update.source_offset
            return records.UpdateCommand(bytes(self._host[at:at + c.args.update.target.length]),
                                         self._ref_record(&c.args.update.target))
        if c.kind == COMMAND_DISPATCH:
            d = &c.args.dispatch
            return records.DispatchCommand(
                self.executables[d.executable], d.ordinal,
                (d.workgroup_count[0], d.workgroup_count[1], d.workgroup_count[2]),
                tuple(self._constants[d.constants + i] for i in range(d.constant_count)),
                tuple(self._ref_record(&self._refs[d.bindings + i]) for i in range(d.binding_count)))
        if c.kind == COMMAND_COLLECTIVE:
            k = &c.args.collective
            return records.CollectiveCommand(self.channels[k.channel], k.op, k.param,
                                             self._ref_record(&k.send), self._ref_record(&k.recv),
                                             k.element_count)
        return records.BarrierCommand()

    @property
    def commands(self):
        """The recorded commands as records (``rt.runtime.hal.commands``), in order."""
        return [self._record(&self._commands[i]) for i in range(self._count)]

    def describe_command(self, index, caller=None):
        """``"command 3 (dispatch of 'add' in executable X, recorded at f.mlir:4:8 in @f)"`` for
        error messages. caller: the ``CallSite`` that submitted this command buffer, or None; a
        dispatch recorded elsewhere (a memoized command buffer, recorded in an initializer) is
        then located at its own op in the caller's function."""
        cdef Command* c
        if index >= self._count:
            return f"the debug group markers after its {self._count} commands"
        c = &self._commands[index]
        if c.kind == COMMAND_DISPATCH:
            e = self.executables[c.args.dispatch.executable]
            site = self.sources.get(index)
            if site is not None and caller is not None:
                site = site.replayed_by(caller)
            return (f"command {index} (dispatch of export {e.exports[c.args.dispatch.ordinal].name!r} "
                    f"in executable {e.name}" + ("" if site is None else f", recorded at {site}") + ")")
        return f"command {index} ({KIND_NAMES[c.kind]})"

    def dispatch_names(self):
        """Export names of the recorded dispatches, in order."""
        return [r.executable.exports[r.ordinal].name for r in self.commands if r.kind == "dispatch"]

    def command_texts(self):
        """One line per recorded command (``dispatch add_f32[4,1,1]``, ``copy_buffer 64 B``)."""
        return [records.command_text(r) for r in self.commands]

    def trace_zones(self):
        """Per command: ``(debug markers before it, zone name, zone args)``, then one last
        entry ``(markers after the last command, None, None)``; a marker is a group label to
        open or None to close the innermost group."""
        if self._zones is None:
            zones = []
            for index, record in enumerate(self.commands):
                zones.append((tuple(self.debug_markers.get(index, ())), *records.zone(index, record)))
            zones.append((tuple(self.debug_markers.get(self._count, ())), None, None))
            self._zones = zones
        return self._zones

    def __repr__(self):
        return f"<CommandBuffer {self.label}: {self._count} commands, {_STATES[self._state].name.lower()}>"


