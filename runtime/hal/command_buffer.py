"""Command buffers: recorded transfer and dispatch commands, validated while recording.

The class is C-level (``rt.runtime.hal._command_buffer``: see its docstring for the lifecycle
and binding tables); commands are the typed records of ``_commands.pxd``, shown in Python by
``rt.runtime.hal.commands``; every check is in ``rt.runtime.hal._validation``, after IREE's
command_buffer_validation.c.
"""
from rt.runtime.hal._command_buffer import (  # noqa: F401
    KIND_NAMES,
    MAX_BINDING_CAPACITY,
    CommandBuffer,
    CommandBufferMode,
    CommandBufferState,
    CommandCategory,
)
from rt.runtime.hal.commands import command_text  # noqa: F401
