"""Helpers for the vmvx microkernel tests: numpy arrays as binding buffers and strided views."""
import numpy as np

from rt.devices.vmvx import _ukernels as uk


def wrap(arr, writable=True, name="buffer"):
    """A BindingBuffer over a C-contiguous numpy array (kept alive by the buffer)."""
    return uk.BindingBuffer.wrap(np.ascontiguousarray(arr).reshape(-1).view(np.uint8), writable, name)


def strided(flat, offset, stride0, stride1, size0, size1):
    """The numpy view a vmvx kernel sees: flat[offset + i * stride0 + j * stride1]."""
    item = flat.itemsize
    base = flat[offset:] if offset < flat.size else flat[:0]
    return np.lib.stride_tricks.as_strided(
        base, shape=(size0, size1), strides=(stride0 * item, stride1 * item), writeable=False)


def span(offset, stride0, stride1, size0, size1):
    """Number of elements a buffer needs to hold the view (for non-negative strides)."""
    return offset + (size0 - 1) * stride0 + (size1 - 1) * stride1 + 1


# (offset, stride0, stride1) triples exercised for a size0 x size1 view: dense, padded rows,
# column strides, transposed, broadcast (stride 0) and reversed rows.
def layouts(size0, size1):
    return [
        (0, size1, 1),
        (3, size1 + 5, 1),
        (1, 2 * size1 + 1, 2),
        (2, 1, size0 + 1),
        (0, 0, 1),
        (7 + (size0 - 1) * (size1 + 2), -(size1 + 2), 1),
    ]
