"""HAL handle types: ``!hal.buffer``, ``!hal.buffer_view``, ``!hal.device``, ... (HALTypes.td).

Each is an opaque reference type with no parameters; at run time it is a ref register holding
the matching ``rt.runtime.hal`` object.
"""
from rt.compiler.dialects._format import Operand, Type
from rt.compiler.dialects._syntax import opaque_type

BufferType = opaque_type(__name__, "BufferType", "hal.buffer", "``!hal.buffer``: a device allocation.")
BufferViewType = opaque_type(__name__, "BufferViewType", "hal.buffer_view",
                             "``!hal.buffer_view``: a buffer plus shape, element type and encoding (the ABI tensor).")
DeviceType = opaque_type(__name__, "DeviceType", "hal.device",
                         "``!hal.device``: a logical device bound to a device global at initialization.")
CommandBufferType = opaque_type(__name__, "CommandBufferType", "hal.command_buffer",
                                "``!hal.command_buffer``: recorded dispatches, copies, fills and barriers.")
FenceType = opaque_type(__name__, "FenceType", "hal.fence", "``!hal.fence``: a set of (semaphore, value) timepoints.")
ExecutableType = opaque_type(__name__, "ExecutableType", "hal.executable",
                             "``!hal.executable``: a loaded executable variant.")
AllocatorType = opaque_type(__name__, "AllocatorType", "hal.allocator", "``!hal.allocator``: a device's buffer allocator.")


def receiver(field):
    """``<%x : type>``: the operand a HAL op acts on (``hal.buffer_view.dim<%bv : !hal.buffer_view>``)."""
    return "<", Operand(field), " : ", Type(field), ">"
