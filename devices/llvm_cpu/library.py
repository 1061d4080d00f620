"""A loaded llvm-cpu object: its export table and the launcher that dispatches it.

Modelled on IREE's ``iree_hal_executable_library_t`` as the embedded-ELF loader exposes it
(runtime/src/iree/hal/local/executable_library.h): the export table comes from the library
query's descriptor; dispatch runs one export over a workgroup grid.
"""
from rt.devices.llvm_cpu import abi
from rt.devices.llvm_cpu._launcher import Launcher
from rt.runtime.hal.executable_library import ExecutableLibrary, ExportInfo


class LlvmCpuExecutableLibrary(ExecutableLibrary):
    """Exports of one llvm-cpu object, callable by ordinal.

    name: the library name from its descriptor. exports: tuple of ``ExportInfo``.
    cpu_features: the ``"+feature,..."`` string the object was compiled for. assertions: the
    messages of its ``cf.assert``s (object metadata ``assertions``). work_ns: per export, its
    estimated single-thread time in ns, 0 when unknown (``loader.work_estimate_ns``; small
    dispatches then run on one thread). c_dispatch: the
    launcher's C entry, which command buffer replay calls with the GIL released.
    The library holds the ``CodeMapping`` that owns the code; the code stays mapped while the
    library (or a dispatch running on it) is alive.
    """

    format = abi.FORMAT

    def __init__(self, name, exports, cpu_features, fn_addresses, owner, assertions=(), work_ns=None):
        self.name = name
        self.exports = tuple(exports)
        self.cpu_features = cpu_features
        self._launcher = Launcher(
            owner,
            [e.name for e in self.exports],
            fn_addresses,
            [e.binding_count for e in self.exports],
            [e.constant_count for e in self.exports],
            [e.workgroup_size for e in self.exports],
            assertions,
            work_ns,
        )
        self.c_dispatch = self._launcher.c_dispatch

    def dispatch(self, ordinal, workgroup_count, constants, binding_ptrs, binding_lengths, threads=1):
        """Run export ``ordinal`` over ``workgroup_count`` (x, y, z) workgroups.

        constants: uint32 push constants (ints in [-2**31, 2**32)); binding_ptrs: host
        addresses; binding_lengths: bytes; threads: threads that share the workgroups, the
        calling thread included (1 runs inline). Raises InvalidArgumentError for arguments
        that do not match the export, DeviceError naming the export and workgroup on failure.
        """
        return self._launcher.dispatch(ordinal, workgroup_count, constants, binding_ptrs,
                                       binding_lengths, threads)

    def __repr__(self):
        names = ", ".join(e.name for e in self.exports)
        return f"<LlvmCpuExecutableLibrary {self.name!r} exports=[{names}]>"
