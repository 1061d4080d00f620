"""Host arrays into device buffer views: ``upload(device, array, element_type)``.

Zero-copy when the array is C-contiguous, native-endian, writeable and aligned to its element
size (all rt's dispatches assume of a binding's base pointer: the llvm-cpu kernels use
unaligned vector accesses, vmvx checks element alignment) and the device keeps its memory on
the host heap; otherwise a copy into a new device buffer. A zero-copy view keeps the array
alive for as long as the buffer lives. Used by ``rt.DeviceArray``, the call path and parameter
loading.

Source followed: IREE's ``iree_hal_allocator_import_buffer`` with
``IREE_HAL_EXTERNAL_BUFFER_TYPE_HOST_ALLOCATION``, and its python bindings' ``asdevicearray``.
"""
import numpy as np

from rt.runtime.hal.buffer_view import BufferView
from rt.runtime.hal.drivers.heap_allocator import HeapAllocator
from rt.runtime.hal.element_type import is_sub_byte, pack_sub_byte


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
