"""Buffer views: a buffer plus the shape, element type and encoding of the tensor it holds.

The class is C-level (``rt.runtime.hal._buffer_view``); follows ``iree_hal_buffer_view_t``
(runtime/src/iree/hal/buffer_view.h).
"""
from rt.runtime.hal._buffer_view import BufferView, shape_text  # noqa: F401
