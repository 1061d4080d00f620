# cython: language_level=3
"""Buffer views: a buffer plus the shape, element type and encoding of the tensor it holds.

Follows ``iree_hal_buffer_view_t`` (runtime/src/iree/hal/buffer_view.h) and the ``hal``
module's ``buffer_view.create(buffer, offset, length, element_type, encoding_type, shape...)``,
which views the subspan ``[offset, offset + length)``. Shapes are tuples of int dims >= 0.
"""
import numpy as np

from libc.stdint cimport int32_t, uint32_t, uint64_t

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal._buffer cimport Buffer, describe, size_arg
from rt.runtime.hal._buffer import BufferUsage, MemoryType
from rt.runtime.hal.element_type import (
    ElementType,
    EncodingType,
    NumericalType,
    as_element_type,
    dtype_to_element_type,
    element_type_name,
    element_type_to_dtype,
    is_sub_byte,
    pack_sub_byte,
    unpack_sub_byte,
)

cdef int32_t _DENSE = int(EncodingType.DENSE_ROW_MAJOR)
cdef uint32_t _BOOLEAN = int(NumericalType.BOOLEAN)
# ElementType members by code (the enum call is slow; views hand out members often).
cdef dict _MEMBERS = {int(e): e for e in ElementType}


cdef uint64_t packed_byte_count(uint32_t element_type, uint64_t count) noexcept:
    """Bytes of ``count`` dense elements (``iree_hal_element_packed_byte_count``: sub-byte
    types packed, others rounded up to whole bytes each)."""
    cdef uint32_t bits = element_type & 0xFF
    if 0 < bits < 8 and element_type >> 24 != _BOOLEAN:
        return (count * bits + 7) // 8
    return count * ((bits + 7) // 8)


def shape_text(shape, element_type):
    """``4x8xf32`` for shape (4, 8) of float32 (``f32`` for rank 0)."""
    return "x".join([str(d) for d in shape] + [element_type_name(element_type)])


cdef tuple _dims(object shape):
    """The int dims of ``shape``; ``InvalidArgumentError`` naming a non-integer or negative one."""
    if type(shape) is tuple:
        for d in <tuple>shape:
            if type(d) is not int or d < 0:
                break
        else:
            return <tuple>shape
    dims = []
    for i, d in enumerate(shape):
        if isinstance(d, (bool, float)) or not isinstance(d, (int, np.integer)) or int(d) < 0:
            raise InvalidArgumentError(
                f"buffer_view.create: dimension {i} of shape {tuple(shape)} must be an "
                f"integer >= 0, got {d!r}")
        dims.append(int(d))
    return tuple(dims)


cdef BufferView new_view(Buffer buffer, tuple shape, uint32_t element_type, int32_t encoding_type):
    """A view of ``buffer`` (dims already checked); InvalidArgumentError if a dense tensor of
    that shape does not fit in the buffer."""
    cdef BufferView view = BufferView.__new__(BufferView)
    view.buffer, view.shape = buffer, shape
    view.element_type_code, view.encoding_type = element_type, encoding_type
    if encoding_type == _DENSE and buffer.byte_length < view.dense_byte_length():
        raise InvalidArgumentError(
            f"buffer_view.create: tensor<{shape_text(shape, element_type)}> needs "
            f"{view.dense_byte_length()} bytes but {describe(buffer)} has {buffer.byte_length}")
    return view


cdef class BufferView:
    """A typed, shaped view of ``buffer`` (already the subspan the tensor occupies).

    shape: tuple of int dims. element_type: ``ElementType`` code. encoding_type:
    ``EncodingType`` code (DENSE_ROW_MAJOR for plain tensors). encoding: None or the
    identifier of the tensor's layout encoding; given, it tags ``buffer``
    (``Buffer.set_encoding``) so dispatches can check it.
    Raises ``InvalidArgumentError`` if the buffer is smaller than the dense tensor.
    """

    def __init__(self, buffer, shape, element_type, encoding_type=EncodingType.DENSE_ROW_MAJOR,
                 encoding=None):
        if not isinstance(buffer, Buffer):
            raise InvalidArgumentError(f"buffer_view.create: expected a Buffer, got {buffer!r}")
        dims = _dims(shape)
        code = element_type if type(element_type) is int and element_type in _MEMBERS else int(
            as_element_type(element_type))
        if encoding is not None:
            buffer.set_encoding(encoding)
        self.buffer, self.shape = buffer, dims
        self.element_type_code, self.encoding_type = code, int(encoding_type)
        if self.encoding_type == _DENSE and self.buffer.byte_length < self.dense_byte_length():
            raise InvalidArgumentError(
                f"buffer_view.create: tensor<{shape_text(dims, code)}> needs "
                f"{self.dense_byte_length()} bytes but {describe(self.buffer)} has "
                f"{self.buffer.byte_length}")

    cdef uint64_t dense_byte_length(self):
        cdef uint64_t count = 1
        for d in self.shape:
            count *= <uint64_t>d
        return packed_byte_count(self.element_type_code, count)

    @classmethod
    def create(cls, buffer, offset, length, element_type, encoding_type, shape):
        """The ``hal.buffer_view.create`` form: view ``[offset, offset + length)`` of buffer."""
        return cls(buffer.subspan(offset, length), shape, element_type, encoding_type)

    @classmethod
    def from_numpy(cls, device, array, memory_type=MemoryType.DEVICE_LOCAL,
                   usage=BufferUsage.DEFAULT):
        """Copy numpy ``array`` into a new buffer of ``device`` and view it."""
        array = np.ascontiguousarray(array)
        element_type = dtype_to_element_type(array.dtype)
        raw = (pack_sub_byte(array, element_type) if is_sub_byte(element_type)
               else array.reshape(-1).view(np.uint8))
        buffer = device.allocator.allocate_from(raw, memory_type, usage)
        return cls(buffer, array.shape, element_type)

    @property
    def element_type(self):
        """The ``ElementType``."""
        member = _MEMBERS.get(self.element_type_code)
        return self.element_type_code if member is None else member

    @property
    def encoding(self):
        """The layout encoding identifier its buffer is tagged with, or None."""
        return self.buffer.encoding

    @property
    def rank(self):
        return len(self.shape)

    @property
    def element_count(self):
        cdef uint64_t count = 1
        for d in self.shape:
            count *= <uint64_t>d
        return count

    @property
    def byte_length(self):
        """Bytes of the dense row-major tensor (shape product times element size; sub-byte
        types packed, ``iree_hal_buffer_compute_view_size``)."""
        return self.dense_byte_length()

    def dim(self, index):
        """Size of dimension ``index``; ``InvalidArgumentError`` if out of range."""
        if not 0 <= int(index) < len(self.shape):
            raise InvalidArgumentError(
                f"buffer_view.dim: index {index} out of range for rank-{self.rank} "
                f"tensor<{shape_text(self.shape, self.element_type_code)}>")
        return self.shape[int(index)]

    def to_numpy(self, copy=False):
        """numpy array of the tensor: a zero-copy view (``copy=False``) or a copy. Sub-byte
        types are unpacked into a new array of one element per byte."""
        if is_sub_byte(self.element_type_code):
            raw = self.buffer.to_numpy(np.uint8, (self.dense_byte_length(),))
            return unpack_sub_byte(raw, self.element_type_code, self.shape)
        dtype = element_type_to_dtype(self.element_type_code)
        array = self.buffer.to_numpy(dtype, self.shape)
        return array.copy() if copy else array

    def check(self, element_type, encoding_type, shape, message="buffer_view.assert"):
        """Raise ``InvalidArgumentError`` unless this view matches (hal.buffer_view.assert)."""
        shape = tuple(int(d) for d in shape)
        element_type = int(element_type)
        if self.element_type_code != element_type or self.shape != shape:
            raise InvalidArgumentError(
                f"{message}: expected tensor<{shape_text(shape, element_type)}>, got "
                f"{shape_text(self.shape, self.element_type_code)}")
        if self.encoding_type != int(encoding_type):
            raise InvalidArgumentError(
                f"{message}: expected encoding type {int(encoding_type)}, got "
                f"{self.encoding_type} for tensor<{shape_text(self.shape, self.element_type_code)}>")

    def __repr__(self):
        return (f"<BufferView tensor<{shape_text(self.shape, self.element_type_code)}> on "
                f"{describe(self.buffer)}>")
