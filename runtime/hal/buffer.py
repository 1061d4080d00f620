"""Buffers: byte ranges of device memory, and IREE's memory type / usage / access bits.

A buffer is a range ``[byte_offset, byte_offset + byte_length)`` of one *allocation*. On the
local drivers an allocation is 64-byte aligned host memory with an integer address
(``buffer.ptr``), so dispatches receive raw pointers and numpy sees the same bytes zero-copy.
An allocation is *reserved* (made by ``queue_alloca``, memory not committed until the queue
reaches it), *live*, or *released* (by ``release()`` or ``queue_dealloca``); touching a buffer
that is not live raises ``InvalidArgumentError`` naming the buffer and its state.

Bits follow runtime/src/iree/hal/buffer.h (``iree_hal_memory_type_bits_t``,
``iree_hal_buffer_usage_bits_t``, ``iree_hal_memory_access_bits_t``).
"""
import abc
import enum

import numpy as np

from rt.runtime.errors import InvalidArgumentError

# iree_hal_device_size_t is uint64 but every size crossing the VM is an i64: larger is an error.
MAX_DEVICE_SIZE = (1 << 63) - 1


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


def check_size(value, what, where):
    """Return ``value`` as int if it is a byte size/offset in [0, 2**63); else raise.

    Raises ``InvalidArgumentError`` naming ``what`` (e.g. "length") and ``where``.
    """
    if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentError(f"{where}: {what} must be an integer byte count, got {value!r}")
    value = int(value)
    if value < 0 or value > MAX_DEVICE_SIZE:
        raise InvalidArgumentError(
            f"{where}: {what} {value} is out of range; expected 0 <= {what} < 2**63"
        )
    return value


def check_range(buffer, offset, length, where, what="range"):
    """Validate ``[offset, offset + length)`` lies inside ``buffer``; return (offset, length)."""
    offset = check_size(offset, f"{what} offset", where)
    length = check_size(length, f"{what} length", where)
    if offset + length > buffer.byte_length:
        raise InvalidArgumentError(
            f"{where}: {what} [{offset}, {offset + length}) exceeds {buffer.describe()}; "
            f"expected offset + length <= {buffer.byte_length}"
        )
    return offset, length


class Buffer(abc.ABC):
    """A byte range of one allocation owned by a device's allocator.

    allocator / device: owners. memory_type: ``MemoryType`` bits. allowed_usage:
    ``BufferUsage`` bits. byte_offset: start within the allocation. byte_length: bytes.
    encoding: None (untagged) or the identifier of the tensor encoding (layout) of the data
    this buffer object holds, e.g. ``"#iree_encoding.layout<mmt4d 16x16x1>"``; set by
    ``set_encoding`` or ``BufferView(..., encoding=...)``, inherited by subspans made later,
    carried by a copy of the whole buffer into a whole buffer (``carry_encoding``: a transfer
    to another device keeps the layout it moves), checked against an export's declared
    binding encodings when dispatched.
    """

    __slots__ = ()
    encoding = None

    @property
    def device(self):
        """The device whose heap holds this buffer."""
        return self.allocator.device

    @property
    @abc.abstractmethod
    def state(self):
        """The ``AllocationState`` of the underlying allocation."""

    @property
    @abc.abstractmethod
    def allocation(self):
        """The allocation object this buffer views (shared by its subspans)."""

    @abc.abstractmethod
    def host_bytes(self):
        """A numpy uint8 array over exactly this buffer's bytes (zero-copy).

        Raises ``InvalidArgumentError`` if the allocation is not live.
        """

    @abc.abstractmethod
    def subspan(self, offset, length):
        """A buffer over ``[offset, offset + length)`` of this one (bytes, checked)."""

    @abc.abstractmethod
    def release(self):
        """Return the allocation to its allocator now; later use raises a clear error."""

    def set_encoding(self, encoding):
        """Tag this buffer object with tensor ``encoding`` (a non-empty str) or clear it (None)."""
        if encoding is not None and (not isinstance(encoding, str) or not encoding):
            raise InvalidArgumentError(f"set_encoding of {self.describe()}: the encoding must "
                                       f"be a non-empty str or None, got {encoding!r}")
        self.encoding = encoding

    def carry_encoding(self, source, source_offset, target_offset, length):
        """After a copy of ``length`` bytes from ``source`` into this buffer: take the
        source's encoding tag (or its lack of one) when the copy covers both buffers whole
        (offsets 0, lengths equal), since this buffer then holds exactly the source's tensor."""
        if source_offset == 0 and target_offset == 0 and length == source.byte_length == self.byte_length:
            self.encoding = source.encoding

    @property
    def ptr(self):
        """Host address (int) of the first byte; 64-byte aligned for a whole allocation."""
        return self.host_bytes().ctypes.data

    def describe(self):
        """Short human name used in error messages."""
        return f"buffer of {self.byte_length} bytes on {self.device.uri}"

    def to_numpy(self, dtype=np.uint8, shape=None, offset=0):
        """Zero-copy numpy view of this buffer's bytes from ``offset`` as ``dtype``/``shape``.

        shape None means as many whole elements as fit. Raises ``InvalidArgumentError`` if
        the view does not fit or the element alignment is wrong.
        """
        dt = np.dtype(dtype)
        raw = self.host_bytes()
        offset = check_size(offset, "offset", "Buffer.to_numpy")
        if shape is None:
            count = (self.byte_length - min(offset, self.byte_length)) // dt.itemsize
            shape = (count,)
        shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        if any(d < 0 for d in shape):
            raise InvalidArgumentError(f"Buffer.to_numpy: negative dimension in shape {shape}")
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        check_range(self, offset, nbytes, "Buffer.to_numpy", "view")
        if (raw.ctypes.data + offset) % dt.alignment:
            raise InvalidArgumentError(
                f"Buffer.to_numpy: offset {offset} is not {dt.alignment}-byte aligned for {dt}"
            )
        return raw[offset:offset + nbytes].view(dt).reshape(shape)

    def read(self, offset=0, length=None):
        """Copy ``length`` bytes (default: to the end) from ``offset`` into a ``bytes``."""
        if length is None:
            length = self.byte_length - min(check_size(offset, "offset", "Buffer.read"),
                                            self.byte_length)
        offset, length = check_range(self, offset, length, "Buffer.read")
        return self.host_bytes()[offset:offset + length].tobytes()

    def write(self, offset, data):
        """Copy the bytes of ``data`` (any buffer-protocol object) into this buffer at offset."""
        src = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
        offset, length = check_range(self, offset, src.size, "Buffer.write")
        self.host_bytes()[offset:offset + length] = src

    def load(self, offset, length):
        """Read a little-endian unsigned integer of ``length`` in (1, 2, 4) bytes (hal.buffer.load)."""
        if length not in (1, 2, 4):
            raise InvalidArgumentError(f"buffer.load: length must be 1, 2 or 4 bytes, got {length}")
        offset, _ = check_range(self, offset, length, "buffer.load")
        return int.from_bytes(self.host_bytes()[offset:offset + length].tobytes(), "little")

    def store(self, value, offset, length):
        """Write the low ``length`` in (1, 2, 4) bytes of ``value`` at ``offset`` (hal.buffer.store)."""
        if length not in (1, 2, 4):
            raise InvalidArgumentError(f"buffer.store: length must be 1, 2 or 4 bytes, got {length}")
        offset, _ = check_range(self, offset, length, "buffer.store")
        data = (int(value) & ((1 << (8 * length)) - 1)).to_bytes(length, "little")
        self.host_bytes()[offset:offset + length] = np.frombuffer(data, dtype=np.uint8)
