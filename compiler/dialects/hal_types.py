"""HAL handle types: ``!hal.buffer``, ``!hal.buffer_view``, ``!hal.device``, ... (HALTypes.td).

Each is an opaque reference type with no parameters; at run time it is a ref register holding
the matching ``rt.runtime.hal`` object.
"""
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """``!hal.buffer``: a device allocation."""

    name = "hal.buffer"


@irdl_attr_definition
class BufferViewType(ParametrizedAttribute, TypeAttribute):
    """``!hal.buffer_view``: a buffer plus shape, element type and encoding (the ABI tensor)."""

    name = "hal.buffer_view"


@irdl_attr_definition
class DeviceType(ParametrizedAttribute, TypeAttribute):
    """``!hal.device``: a logical device bound to a device global at initialization."""

    name = "hal.device"


@irdl_attr_definition
class CommandBufferType(ParametrizedAttribute, TypeAttribute):
    """``!hal.command_buffer``: recorded dispatches, copies, fills and barriers."""

    name = "hal.command_buffer"


@irdl_attr_definition
class FenceType(ParametrizedAttribute, TypeAttribute):
    """``!hal.fence``: a set of (semaphore, value) timepoints."""

    name = "hal.fence"


@irdl_attr_definition
class ExecutableType(ParametrizedAttribute, TypeAttribute):
    """``!hal.executable``: a loaded executable variant."""

    name = "hal.executable"


@irdl_attr_definition
class AllocatorType(ParametrizedAttribute, TypeAttribute):
    """``!hal.allocator``: a device's buffer allocator."""

    name = "hal.allocator"
