"""rt.runtime.hal: IREE's HAL object model (docs/ARCHITECTURE.md §3).

Public API::

    from rt.runtime import hal
    device = hal.create_device("local-task://llvm-cpu?threads=2")
    buffer = device.allocator.allocate_buffer(4096)
    cb = device.create_command_buffer(); cb.begin(); cb.fill_buffer(buffer, 0, 4096, 7, 1); cb.end()
    device.queue_execute([cb]).wait(timeout=10)

Objects: drivers and device URIs (``driver_registry``), ``Device``, ``Allocator``, ``Buffer``,
``BufferView``, ``CommandBuffer`` (commands as typed records, ``commands``; indirect bindings
as ``BufferRef``), ``Semaphore``, ``Fence``, ``Executable``,
``ExecutableCache``, the loader contract (``ExecutableLoader``, ``ExecutableLibrary``), the
tracing hooks (``TraceSink``, ``Lane``; ``device.set_trace_sink``) and the ``hal`` VM module
(``rt.runtime.hal.module.HalModule``, imported on demand).
"""
from rt.runtime.hal.allocator import Allocator, AllocatorStatistics  # noqa: F401
from rt.runtime.hal.buffer import (  # noqa: F401
    AllocationState,
    Buffer,
    BufferUsage,
    MemoryAccess,
    MemoryType,
)
from rt.runtime.hal.buffer_view import BufferView  # noqa: F401
from rt.runtime.hal.command_buffer import (  # noqa: F401
    CommandBuffer,
    CommandBufferMode,
    CommandCategory,
)
from rt.runtime.hal import commands  # noqa: F401
from rt.runtime.hal.commands import BufferRef  # noqa: F401
from rt.runtime.hal.device import Device, DeviceLimits  # noqa: F401
from rt.runtime.hal.driver import DeviceInfo, Driver  # noqa: F401
from rt.runtime.hal.driver_registry import (  # noqa: F401
    create_device,
    format_device_table,
    get_driver,
    list_devices,
    list_drivers,
    parse_device_uri,
)
from rt.runtime.hal.element_type import (  # noqa: F401
    ElementType,
    EncodingType,
    dtype_to_element_type,
    element_type_to_dtype,
)
from rt.runtime.hal.executable import Executable  # noqa: F401
from rt.runtime.hal.executable_cache import ExecutableCache  # noqa: F401
from rt.runtime.hal.executable_library import ExecutableLibrary, ExportInfo  # noqa: F401
from rt.runtime.hal.executable_loader import (  # noqa: F401
    ExecutableLoader,
    device_loader,
    register_device_loader,
)
from rt.runtime.hal.fence import Fence  # noqa: F401
from rt.runtime.hal.semaphore import Semaphore  # noqa: F401
from rt.runtime.hal.status import StatusCode  # noqa: F401
from rt.runtime.hal.trace import HOST_LANE, Lane, TraceSink  # noqa: F401
