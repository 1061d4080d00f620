"""The local drivers' allocator: 64-byte aligned host heap allocations with statistics.

C-level (``rt.runtime.hal.drivers._heap_allocator``: see its docstring for reference counting,
capacity and the cache of freed memory).
"""
from rt.runtime.hal.drivers._heap_allocator import (  # noqa: F401
    ALIGNMENT, CACHE_BYTES, HeapAllocator, VirtualHeapAllocator)
