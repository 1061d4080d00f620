# cython: language_level=3
"""Buffers: byte ranges of device memory, and IREE's memory type / usage / access bits.

A buffer is a range ``[byte_offset, byte_offset + byte_length)`` of one *allocation*. On the
local drivers an allocation is 64-byte aligned host memory with an integer address
(``buffer.ptr``), so dispatches receive raw pointers and numpy sees the same bytes zero-copy.
An allocation is *reserved* (made by ``queue_alloca``, memory not committed until the queue
reaches it), *live*, or *released* (by ``release()`` or ``queue_dealloca``); touching a buffer
that is not live raises ``InvalidArgumentError`` naming the buffer and its state.

Memory stays mapped as long as anything references its ``Allocation``: a numpy view handed
out by ``to_numpy`` (whose base is the allocation) keeps reading valid bytes after the HAL
released the buffer, and the heap gets the memory back (to reuse) only when the allocation
dies — never while a view can still see it. Imported host memory (``rt.load``'s zero-copy
inputs) is kept alive by the allocation and never recycled.

Bits follow runtime/src/iree/hal/buffer.h (``iree_hal_memory_type_bits_t``,
``iree_hal_buffer_usage_bits_t``, ``iree_hal_memory_access_bits_t``); the object model follows
``iree_hal_buffer_t`` (a subspan shares its allocated buffer).
"""
import enum
import itertools

import numpy as np

from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_FillInfo
from libc.stdint cimport int64_t, uint32_t, uint64_t, uintptr_t
from libc.string cimport memcpy

from rt.runtime.errors import InvalidArgumentError

#: iree_hal_device_size_t is uint64 but every size crossing the VM is an i64: larger is an error.
MAX_DEVICE_SIZE = (1 << 63) - 1
cdef uint64_t _MAX_SIZE = (1ULL << 63) - 1
_ids = itertools.count()


class MemoryType(enum.IntFlag):
    """``iree_hal_memory_type_bits_t``."""

    NONE = 0
    OPTIMAL = 1 << 0
    HOST_VISIBLE = 1 << 1
    HOST_COHERENT = 1 << 2
    HOST_CACHED = 1 << 3
    HOST_LOCAL = HOST_VISIBLE | HOST_COHERENT | (1 << 6)
    OPTIMAL_FOR_HOST = OPTIMAL | HOST_LOCAL
    DEVICE_VISIBLE = 1 << 4
    DEVICE_LOCAL = DEVICE_VISIBLE | (1 << 5)
    OPTIMAL_FOR_DEVICE = OPTIMAL | DEVICE_LOCAL


class BufferUsage(enum.IntFlag):
    """``iree_hal_buffer_usage_bits_t``."""

    NONE = 0
    TRANSFER_SOURCE = 1 << 0
    TRANSFER_TARGET = 1 << 1
    TRANSFER = TRANSFER_SOURCE | TRANSFER_TARGET
    DISPATCH_INDIRECT_PARAMETERS = 1 << 8
    DISPATCH_UNIFORM_READ = 1 << 9
    DISPATCH_STORAGE_READ = 1 << 10
    DISPATCH_STORAGE_WRITE = 1 << 11
    DISPATCH_STORAGE = DISPATCH_STORAGE_READ | DISPATCH_STORAGE_WRITE
    DISPATCH_IMAGE_READ = 1 << 12
    DISPATCH_IMAGE_WRITE = 1 << 13
    DISPATCH_IMAGE = DISPATCH_IMAGE_READ | DISPATCH_IMAGE_WRITE
    DISPATCH = (DISPATCH_INDIRECT_PARAMETERS | DISPATCH_UNIFORM_READ | DISPATCH_STORAGE
                | DISPATCH_IMAGE)
    SHARING_EXPORT = 1 << 16
    SHARING_REPLICATE = 1 << 17
    SHARING_CONCURRENT = 1 << 18
    SHARING_IMMUTABLE = 1 << 19
    MAPPING_SCOPED = 1 << 24
    MAPPING_PERSISTENT = 1 << 25
    MAPPING_OPTIONAL = 1 << 26
    MAPPING_ACCESS_RANDOM = 1 << 27
    MAPPING_ACCESS_SEQUENTIAL_WRITE = 1 << 28
    MAPPING = MAPPING_SCOPED | MAPPING_ACCESS_RANDOM
    DEFAULT = TRANSFER | DISPATCH_STORAGE


class MemoryAccess(enum.IntFlag):
    """``iree_hal_memory_access_bits_t``."""

    NONE = 0
    READ = 1 << 0
    WRITE = 1 << 1
    DISCARD = 1 << 2
    DISCARD_WRITE = WRITE | DISCARD
    MAY_ALIAS = 1 << 3
    UNALIGNED = 1 << 4
    ANY = 1 << 5
    ALL = READ | WRITE | DISCARD


class AllocationState(enum.Enum):
    """Lifecycle of the memory behind a buffer."""

    RESERVED = "reserved (its queue_alloca has not executed yet; await the alloca's signal fence)"
    LIVE = "live"
    RELEASED = "released (by release() or queue_dealloca); allocate a new buffer"


_STATES = (AllocationState.RESERVED, AllocationState.LIVE, AllocationState.RELEASED)


cdef uint64_t size_arg(object value, str what, str where) except? 0xFFFFFFFFFFFFFFFF:
    """``value`` as a byte size/offset in [0, 2**63); InvalidArgumentError naming it."""
    if type(value) is int:
        if 0 <= value <= MAX_DEVICE_SIZE:
            return <uint64_t>value
    elif isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentError(f"{where}: {what} must be an integer byte count, got {value!r}")
    value = int(value)
    if value < 0 or value > MAX_DEVICE_SIZE:
        raise InvalidArgumentError(
            f"{where}: {what} {value} is out of range; expected 0 <= {what} < 2**63")
    return <uint64_t>value


cdef int range_check(Buffer buffer, uint64_t offset, uint64_t length, str where, str what) except -1:
    """InvalidArgumentError unless ``[offset, offset + length)`` lies inside ``buffer``."""
    if offset > buffer.byte_length or length > buffer.byte_length - offset:
        raise InvalidArgumentError(
            f"{where}: {what} [{offset}, {offset + length}) exceeds {describe(buffer)}; "
            f"expected offset + length <= {buffer.byte_length}")
    return 0


def check_size(value, what, where):
    """Return ``value`` as int if it is a byte size/offset in [0, 2**63); else raise.

    Raises ``InvalidArgumentError`` naming ``what`` (e.g. "length") and ``where``.
    """
    return size_arg(value, what, where)


def check_range(Buffer buffer, offset, length, where, what="range"):
    """Validate ``[offset, offset + length)`` lies inside ``buffer``; return (offset, length)."""
    cdef uint64_t o = size_arg(offset, f"{what} offset", where)
    cdef uint64_t n = size_arg(length, f"{what} length", where)
    range_check(buffer, o, n, where, what)
    return o, n


cdef class Allocation:
    """The memory behind one allocated buffer and its subspans.

    allocator: the owning allocator (whose ``device`` the memory belongs to); byte_length;
    id: a process-unique number shown in errors (``buffer #12``); failure: the error its
    queue_alloca failed with, or None. Exposes its bytes through the buffer protocol while live.
    """

    def __cinit__(self):
        self.id = next(_ids)
        self.state = ALLOCATION_RESERVED

    cdef int commit(self, void* block, size_t block_size, object heap, recycle_fn recycle) except -1:
        self.block, self.block_size, self.heap, self.recycle = block, block_size, heap, recycle
        self.data = <char*>block
        self.state = ALLOCATION_LIVE
        return 0

    cdef int import_host(self, char* data, object owner) except -1:
        self.data, self.owner = data, owner
        self.state = ALLOCATION_LIVE
        return 0

    cdef int mark_released(self) except -1:
        self.state = ALLOCATION_RELEASED
        return 0

    @property
    def state(self):
        """The ``AllocationState``."""
        return _STATES[self.state]

    @property
    def owns_memory(self):
        """True for heap memory the allocator recycles; False for imported host memory."""
        return self.block != NULL

    def __dealloc__(self):
        if self.block != NULL and self.heap is not None:
            self.recycle(self.heap, self.block, self.block_size, self.byte_length,
                         self.state == ALLOCATION_RELEASED)
            self.block = NULL

    def __getbuffer__(self, Py_buffer* view, int flags):
        if self.state != ALLOCATION_LIVE:
            raise InvalidArgumentError(f"allocation #{self.id} is {_STATES[self.state].value}")
        if self.data == NULL:
            raise InvalidArgumentError(f"allocation #{self.id} has no memory (a dry run: "
                                       "rt.load(..., dry_run=True)); its contents are not computed")
        PyBuffer_FillInfo(view, self, self.data, <Py_ssize_t>self.byte_length, 0, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass

    def __repr__(self):
        return f"<Allocation #{self.id} ({self.byte_length} bytes) {_STATES[self.state].name.lower()}>"


cdef Allocation new_allocation(object allocator, uint64_t byte_length):
    cdef Allocation a = Allocation.__new__(Allocation)
    a.allocator, a.byte_length = allocator, byte_length
    return a


cdef Buffer new_buffer(Allocation allocation, uint64_t offset, uint64_t length, uint32_t memory_type,
                       uint32_t usage):
    cdef Buffer b = Buffer.__new__(Buffer)
    b.allocation, b.allocator = allocation, allocation.allocator
    b.byte_offset, b.byte_length = offset, length
    b.memory_type_bits, b.usage_bits = memory_type, usage
    return b


cdef str describe(Buffer buffer):
    cdef Allocation a = buffer.allocation
    span = ("" if buffer.byte_offset == 0 and buffer.byte_length == a.byte_length
            else f" [{buffer.byte_offset}, {buffer.byte_offset + buffer.byte_length})")
    return f"buffer #{a.id}{span} ({buffer.byte_length} bytes) of {buffer.allocator.device.label}"


cdef class Buffer:
    """A byte range of one allocation owned by a device's allocator.

    allocator / device: owners. memory_type: ``MemoryType`` bits. allowed_usage:
    ``BufferUsage`` bits. byte_offset: start within the allocation. byte_length: bytes.
    encoding: None (untagged) or the identifier of the tensor encoding (layout) of the data
    this buffer object holds, e.g. ``"#iree_encoding.layout<mmt4d 16x16x1>"``; set by
    ``set_encoding`` or ``BufferView(..., encoding=...)``, inherited by subspans made later,
    carried by a copy of the whole buffer into a whole buffer (``carry_encoding``: a transfer
    to another device keeps the layout it moves), checked against an export's declared
    binding encodings when dispatched. Buffers are made by an allocator
    (``allocate_buffer``, ``reserve_buffer``) or by ``subspan``.
    """

    def __init__(self):
        raise TypeError("buffers are made by an allocator (allocate_buffer, reserve_buffer) or "
                        "by Buffer.subspan")

    cdef char* address(self) except NULL:
        """The address of the first byte; InvalidArgumentError if the memory is not live."""
        cdef Allocation a = self.allocation
        if a.state != ALLOCATION_LIVE:
            raise self.not_live_error()
        if a.data == NULL:
            raise InvalidArgumentError(
                f"{describe(self)} has no memory: its device is simulated without memory (a dry "
                "run, rt.load(..., dry_run=True)), so its contents are not computed; run without "
                "dry_run to read them")
        return a.data + self.byte_offset

    cdef object not_live_error(self):
        cdef Allocation a = self.allocation
        if a.failure is not None:
            return InvalidArgumentError(
                f"{describe(self)} was never allocated: its queue_alloca failed: {a.failure}")
        return InvalidArgumentError(f"{describe(self)} is {_STATES[a.state].value}")

    @property
    def device(self):
        """The device whose heap holds this buffer."""
        return self.allocator.device

    @property
    def state(self):
        """The ``AllocationState`` of the underlying allocation."""
        return _STATES[self.allocation.state]

    @property
    def memory_type(self):
        return MemoryType(self.memory_type_bits)

    @property
    def allowed_usage(self):
        return BufferUsage(self.usage_bits)

    @property
    def is_root(self):
        """True for the buffer an allocation was made as (not a subspan of it)."""
        return self.byte_offset == 0 and self.byte_length == self.allocation.byte_length

    @property
    def ptr(self):
        """Host address (int) of the first byte; 64-byte aligned for a whole allocation."""
        return <uintptr_t>self.address()

    def describe(self):
        """Short human name used in error messages."""
        return describe(self)

    def host_bytes(self):
        """A numpy uint8 array over exactly this buffer's bytes (zero-copy).

        Raises ``InvalidArgumentError`` if the allocation is not live.
        """
        self.address()
        if self._view is None:
            self._view = np.frombuffer(self.allocation, np.uint8, <Py_ssize_t>self.byte_length,
                                       <Py_ssize_t>self.byte_offset)
        return self._view

    def subspan(self, offset, length):
        """A buffer over ``[offset, offset + length)`` of this one (bytes, checked)."""
        where = f"subspan of {describe(self)}"
        cdef uint64_t o = size_arg(offset, "range offset", where)
        cdef uint64_t n = size_arg(length, "range length", where)
        range_check(self, o, n, where, "range")
        cdef Buffer span = new_buffer(self.allocation, self.byte_offset + o, n, self.memory_type_bits,
                                      self.usage_bits)
        span.encoding = self.encoding
        return span

    def release(self):
        """Return the allocation to its allocator now; later use raises a clear error."""
        self.allocator.release(self)

    def set_encoding(self, encoding):
        """Tag this buffer object with tensor ``encoding`` (a non-empty str) or clear it (None)."""
        if encoding is not None and (not isinstance(encoding, str) or not encoding):
            raise InvalidArgumentError(f"set_encoding of {describe(self)}: the encoding must "
                                       f"be a non-empty str or None, got {encoding!r}")
        self.encoding = encoding

    def carry_encoding(self, Buffer source, source_offset, target_offset, length):
        """After a copy of ``length`` bytes from ``source`` into this buffer: take the
        source's encoding tag (or its lack of one) when the copy covers both buffers whole
        (offsets 0, lengths equal), since this buffer then holds exactly the source's tensor."""
        if (source_offset == 0 and target_offset == 0 and length == source.byte_length
                and length == self.byte_length):
            self.encoding = source.encoding

    def to_numpy(self, dtype=np.uint8, shape=None, offset=0):
        """Zero-copy numpy view of this buffer's bytes from ``offset`` as ``dtype``/``shape``.

        shape None means as many whole elements as fit. Raises ``InvalidArgumentError`` if
        the view does not fit or the element alignment is wrong.
        """
        dt = np.dtype(dtype)
        raw = self.host_bytes()
        cdef uint64_t start = size_arg(offset, "offset", "Buffer.to_numpy")
        if shape is None:
            count = (self.byte_length - min(start, self.byte_length)) // dt.itemsize
            shape = (count,)
        shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        if any(d < 0 for d in shape):
            raise InvalidArgumentError(f"Buffer.to_numpy: negative dimension in shape {shape}")
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        range_check(self, start, nbytes, "Buffer.to_numpy", "view")
        if (<uintptr_t>self.allocation.data + self.byte_offset + start) % dt.alignment:
            raise InvalidArgumentError(
                f"Buffer.to_numpy: offset {start} is not {dt.alignment}-byte aligned for {dt}")
        return raw[start:start + nbytes].view(dt).reshape(shape)

    def read(self, offset=0, length=None):
        """Copy ``length`` bytes (default: to the end) from ``offset`` into a ``bytes``."""
        cdef uint64_t o = size_arg(offset, "range offset", "Buffer.read")
        if length is None:
            length = self.byte_length - min(o, self.byte_length)
        cdef uint64_t n = size_arg(length, "range length", "Buffer.read")
        range_check(self, o, n, "Buffer.read", "range")
        cdef char* p = self.address()
        return p[o:o + n]

    def write(self, offset, data):
        """Copy the bytes of ``data`` (any buffer-protocol object) into this buffer at offset."""
        cdef const unsigned char[::1] src = memoryview(data).cast("B")
        cdef uint64_t o = size_arg(offset, "range offset", "Buffer.write")
        range_check(self, o, src.shape[0], "Buffer.write", "range")
        cdef char* p = self.address()
        if src.shape[0]:
            memcpy(p + o, &src[0], src.shape[0])

    def load(self, offset, length):
        """Read a little-endian unsigned integer of ``length`` in (1, 2, 4) bytes (hal.buffer.load)."""
        if length not in (1, 2, 4):
            raise InvalidArgumentError(f"buffer.load: length must be 1, 2 or 4 bytes, got {length}")
        o, _ = check_range(self, offset, length, "buffer.load")
        return int.from_bytes(self.read(o, length), "little")

    def store(self, value, offset, length):
        """Write the low ``length`` in (1, 2, 4) bytes of ``value`` at ``offset`` (hal.buffer.store)."""
        if length not in (1, 2, 4):
            raise InvalidArgumentError(f"buffer.store: length must be 1, 2 or 4 bytes, got {length}")
        o, _ = check_range(self, offset, length, "buffer.store")
        self.write(o, (int(value) & ((1 << (8 * length)) - 1)).to_bytes(length, "little"))

    def __repr__(self):
        return f"<Buffer {describe(self)}, {_STATES[self.allocation.state].name.lower()}>"
