"""Buffer views: a buffer plus the shape, element type and encoding of the tensor it holds.

Follows ``iree_hal_buffer_view_t`` (runtime/src/iree/hal/buffer_view.h) and the ``hal``
module's ``buffer_view.create(buffer, offset, length, element_type, encoding_type, shape...)``,
which views the subspan ``[offset, offset + length)``. Shapes are tuples of int dims >= 0.
"""
import math

import numpy as np

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.buffer import Buffer, BufferUsage, MemoryType
from rt.runtime.hal.element_type import (
    ElementType,
    EncodingType,
    as_element_type,
    dtype_to_element_type,
    element_type_name,
    element_type_to_dtype,
    is_sub_byte,
    pack_sub_byte,
    packed_byte_count,
    unpack_sub_byte,
)


# Concrete Buffer classes already seen to pass ``isinstance(buffer, Buffer)`` (an ABC check).
_BUFFER_TYPES = set()
_DENSE = int(EncodingType.DENSE_ROW_MAJOR)


def _dims(shape):
    """The int dims of ``shape``; ``InvalidArgumentError`` naming a non-integer or negative one."""
    for i, d in enumerate(shape):
        if isinstance(d, (bool, float)) or not isinstance(d, (int, np.integer)) or int(d) < 0:
            raise InvalidArgumentError(
                f"buffer_view.create: dimension {i} of shape {tuple(shape)} must be an "
                f"integer >= 0, got {d!r}"
            )
        yield int(d)


def shape_text(shape, element_type):
    """``4x8xf32`` for shape (4, 8) of float32 (``f32`` for rank 0)."""
    return "x".join([str(d) for d in shape] + [element_type_name(element_type)])


class BufferView:
    """A typed, shaped view of ``buffer`` (already the subspan the tensor occupies).

    shape: tuple of int dims. element_type: ``ElementType`` code. encoding_type:
    ``EncodingType`` code (DENSE_ROW_MAJOR for plain tensors). encoding: None or the
    identifier of the tensor's layout encoding; given, it tags ``buffer``
    (``Buffer.set_encoding``) so dispatches can check it.
    Raises ``InvalidArgumentError`` if the buffer is smaller than the dense tensor.
    """

    __slots__ = ("buffer", "shape", "element_type", "encoding_type")

    def __init__(self, buffer, shape, element_type, encoding_type=EncodingType.DENSE_ROW_MAJOR,
                 encoding=None):
        if type(buffer) not in _BUFFER_TYPES:
            if not isinstance(buffer, Buffer):
                raise InvalidArgumentError(f"buffer_view.create: expected a Buffer, got {buffer!r}")
            _BUFFER_TYPES.add(type(buffer))
        if type(shape) is tuple and all(type(d) is int and d >= 0 for d in shape):
            dims = shape
        else:
            dims = tuple(_dims(shape))
        if encoding is not None:
            buffer.set_encoding(encoding)
        self.buffer = buffer
        self.shape = dims
        self.element_type = (element_type if type(element_type) is ElementType
                             else as_element_type(element_type))
        self.encoding_type = (encoding_type if type(encoding_type) is int
                              else int(encoding_type))
        if self.encoding_type == _DENSE and buffer.byte_length < self.byte_length:
            raise InvalidArgumentError(
                f"buffer_view.create: tensor<{shape_text(self.shape, self.element_type)}> needs "
                f"{self.byte_length} bytes but {buffer.describe()} has {buffer.byte_length}"
            )

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
    def encoding(self):
        """The layout encoding identifier its buffer is tagged with, or None."""
        return self.buffer.encoding

    @property
    def rank(self):
        return len(self.shape)

    @property
    def element_count(self):
        return math.prod(self.shape)

    @property
    def byte_length(self):
        """Bytes of the dense row-major tensor (shape product times element size; sub-byte
        types packed, ``iree_hal_buffer_compute_view_size``)."""
        return packed_byte_count(self.element_type, self.element_count)

    def dim(self, index):
        """Size of dimension ``index``; ``InvalidArgumentError`` if out of range."""
        if not 0 <= int(index) < len(self.shape):
            raise InvalidArgumentError(
                f"buffer_view.dim: index {index} out of range for rank-{self.rank} "
                f"tensor<{shape_text(self.shape, self.element_type)}>"
            )
        return self.shape[int(index)]

    def to_numpy(self, copy=False):
        """numpy array of the tensor: a zero-copy view (``copy=False``) or a copy. Sub-byte
        types are unpacked into a new array of one element per byte."""
        if is_sub_byte(self.element_type):
            raw = self.buffer.to_numpy(np.uint8, (self.byte_length,))
            return unpack_sub_byte(raw, self.element_type, self.shape)
        dtype = element_type_to_dtype(self.element_type)
        array = self.buffer.to_numpy(dtype, self.shape)
        return array.copy() if copy else array

    def check(self, element_type, encoding_type, shape, message="buffer_view.assert"):
        """Raise ``InvalidArgumentError`` unless this view matches (hal.buffer_view.assert)."""
        shape = tuple(int(d) for d in shape)
        element_type = int(element_type)
        if (self.element_type, self.shape) != (element_type, shape):
            raise InvalidArgumentError(
                f"{message}: expected tensor<{shape_text(shape, element_type)}>, got "
                f"{shape_text(self.shape, self.element_type)}"
            )
        if self.encoding_type != int(encoding_type):
            raise InvalidArgumentError(
                f"{message}: expected encoding type {int(encoding_type)}, got "
                f"{self.encoding_type} for tensor<{shape_text(self.shape, self.element_type)}>"
            )

    def __repr__(self):
        return f"<BufferView tensor<{shape_text(self.shape, self.element_type)}> on {self.buffer.describe()}>"

