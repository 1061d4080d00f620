"""The contract between the HAL and a device's loaded code.

A device turns the bytes of an executable (one variant of a ``hal.executable``) into an
``ExecutableLibrary``; the HAL's command buffers dispatch its exports by ordinal. This mirrors
IREE's ``iree_hal_executable_library_t`` (runtime/src/iree/hal/local/executable_library.h):
a table of exports, each a function run once per workgroup.
"""
import abc

from rt.runtime.record import Record


class ExportInfo(Record):
    """One dispatchable entry point of an executable.

    name: export symbol (e.g. ``matmul_dispatch_0``); binding_count: number of buffer
    bindings it reads/writes; constant_count: number of 32-bit push constants;
    workgroup_size: the static (x, y, z) local size it was compiled for.
    """

    __slots__ = ("name", "binding_count", "constant_count", "workgroup_size")
    _defaults = {"workgroup_size": (1, 1, 1)}


class ExecutableLibrary(abc.ABC):
    """Loaded device code for one executable format.

    ``format`` is the executable format string (``"llvm-cpu-object-x86_64"``,
    ``"vmvx-bytecode"``); ``exports`` lists the entry points by ordinal.

    ``c_dispatch``: None, or an ``rt.runtime.hal._library.LibraryEntry`` — a C function the
    command buffer replay calls with the GIL released instead of ``dispatch`` (its owner's
    ``dispatch_error(ordinal, workgroup_count, status, failed_workgroup)`` builds the
    ``DeviceError`` of a failed call). See runtime/hal/_library.pxd for the contract.
    """

    format: str
    exports: tuple
    c_dispatch = None

    @abc.abstractmethod
    def dispatch(self, ordinal, workgroup_count, constants, binding_ptrs, binding_lengths, threads=1):
        """Run export ``ordinal`` over a grid of workgroups and return when all are done.

        ordinal: index into ``exports``. workgroup_count: (x, y, z) ints >= 0.
        constants: sequence of uint32 push constants (len == constant_count).
        binding_ptrs / binding_lengths: host addresses (int) and byte lengths of each binding
        (len == binding_count), already validated against the buffers by the caller.
        threads: how many worker threads may share the workgroups (1 = calling thread only).

        Raises ``DeviceError`` naming the export and the cause if a workgroup fails.
        """
