"""DeviceArray: a tensor kept on a device (IREE python bindings' ``iree.runtime.DeviceArray``).

The upload of host arrays (zero-copy where it can) lives in the runtime:
rt.runtime.hal.host_upload.
"""
import numpy as np

from rt.runtime.hal.buffer_view import BufferView, shape_text
from rt.runtime.hal.element_type import element_type_to_dtype


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
