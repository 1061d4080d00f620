"""Buffers: byte ranges of device memory, and IREE's memory type / usage / access bits.

The objects are C-level classes (``rt.runtime.hal._buffer``): see its docstring for the
allocation lifecycle (reserved, live, released) and how numpy views keep memory alive.
Bits follow runtime/src/iree/hal/buffer.h.
"""
from rt.runtime.hal._buffer import (  # noqa: F401
    MAX_DEVICE_SIZE,
    Allocation,
    AllocationState,
    Buffer,
    BufferUsage,
    MemoryAccess,
    MemoryType,
    check_range,
    check_size,
)
