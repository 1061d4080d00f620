"""Fences: a set of timepoints ``(semaphore, value)`` treated as one point in time.

The class is C-level (``rt.runtime.hal._fence``); it follows ``iree_hal_fence_t``.
"""
from rt.runtime.hal._fence import Fence  # noqa: F401
