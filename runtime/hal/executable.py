"""Executables: one loaded variant of a ``hal.executable`` on one device.

The class is C-level (``rt.runtime.hal._executable``); it follows ``iree_hal_executable_t``.
"""
from rt.runtime.hal._executable import BINDING_ENCODINGS, COSTS, Executable  # noqa: F401
