"""DeviceArray: a tensor kept on a device, and the upload of host arrays into buffer views.

``upload(device, array, element_type)`` turns a numpy array into a ``hal.BufferView`` on
``device``: zero-copy when the array is C-contiguous, native-endian, writeable and aligned to
its element size (all rt's dispatches assume of a binding's base pointer: the llvm-cpu kernels
use unaligned vector accesses, vmvx checks element alignment) and the device keeps its memory
on the host heap; otherwise a copy into a new device buffer. A zero-copy view keeps
the array alive for as long as the buffer lives. Modelled on IREE's python bindings
(``iree.runtime.DeviceArray``, ``asdevicearray``) and on ``iree_hal_allocator_import_buffer``
with ``IREE_HAL_EXTERNAL_BUFFER_TYPE_HOST_ALLOCATION``.
"""
import numpy as np

from rt.runtime.hal.buffer_view import BufferView, shape_text
from rt.runtime.hal.drivers.heap_allocator import HeapAllocator
from rt.runtime.hal.element_type import element_type_to_dtype, is_sub_byte, pack_sub_byte


def _importable(device, array):
    if not isinstance(device.allocator, HeapAllocator) or array.nbytes == 0:
        return False
    flags = array.flags
    return flags.c_contiguous and flags.writeable and flags.aligned and array.dtype.isnative


def upload(device, array, element_type):
    """A BufferView of ``array`` (numpy, any shape) on ``device`` with ``element_type``.

    Zero-copy when possible (see the module docstring), else a copy. ``element_type`` is the
    HAL ElementType the consumer declared (a uint32 array may feed an ``i32`` tensor).
    Sub-byte types (one element per byte on the host) are packed into a new buffer.
    """
    if is_sub_byte(element_type):
        buffer = device.allocator.allocate_from(pack_sub_byte(array, element_type))
    elif _importable(device, array):
        buffer = device.allocator.import_buffer(array)
    else:
        native = array.dtype.newbyteorder("=")  # a byte-swapped array is converted, not copied raw
        flat = np.ascontiguousarray(array, dtype=native).reshape(-1).view(np.uint8)
        buffer = device.allocator.allocate_from(flat)
    return BufferView(buffer, array.shape, element_type)


class DeviceArray:
    """A tensor on a device: a ``hal.BufferView`` plus the device it lives on.

    Results stay on device with ``m.foo(..., to_host=False)`` and can be passed straight to
    the next call (no copy when it is on the argument's device). ``to_host()`` (or
    ``np.asarray``) copies the contents into a new numpy array.
    shape: tuple of ints; dtype: numpy dtype; device: the HAL device.
    """

    __slots__ = ("buffer_view", "device")

    def __init__(self, buffer_view, device):
        self.buffer_view, self.device = buffer_view, device

    @property
    def shape(self):
        return self.buffer_view.shape

    @property
    def dtype(self):
        return element_type_to_dtype(self.buffer_view.element_type)

    @property
    def element_type(self):
        return self.buffer_view.element_type

    def to_host(self):
        """A numpy array owning a copy of the tensor."""
        return self.buffer_view.to_numpy(copy=True)

    def __array__(self, dtype=None, copy=None):
        array = self.to_host()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __repr__(self):
        return (f"<DeviceArray tensor<{shape_text(self.shape, self.element_type)}> on "
                f"{self.device.label}>")
