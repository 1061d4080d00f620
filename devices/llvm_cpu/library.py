"""A loaded llvm-cpu object: its export table and the launcher that dispatches it.

Modelled on IREE's ``iree_hal_executable_library_t`` as the embedded-ELF loader exposes it
(runtime/src/iree/hal/local/executable_library.h): the export table comes from the library
query's descriptor; dispatch runs one export over a workgroup grid.
"""
import ctypes

from rt.devices.llvm_cpu import abi
from rt.devices.llvm_cpu._launcher import Launcher
from rt.runtime.errors import ModuleFormatError
from rt.runtime.hal.executable_library import ExecutableLibrary, ExportInfo


class LlvmCpuExecutableLibrary(ExecutableLibrary):
    """Exports of one llvm-cpu object, callable by ordinal.

    name: the library name from its descriptor. exports: tuple of ``ExportInfo``.
    cpu_features: the ``"+feature,..."`` string the object was compiled for.
    The library holds the MCJIT engine that owns the code; the code stays mapped while the
    library (or a dispatch running on it) is alive.
    """

    format = abi.FORMAT

    def __init__(self, name, exports, cpu_features, fn_addresses, owner):
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
        )

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


def _u32(address):
    return ctypes.c_uint32.from_address(address).value


def _ptr(address):
    return ctypes.c_void_p.from_address(address).value or 0


def _c_string(address, what):
    if not address:
        raise ModuleFormatError(f"llvm-cpu library descriptor: {what} is a null pointer")
    try:
        return ctypes.string_at(address).decode("utf-8")
    except UnicodeDecodeError as e:
        raise ModuleFormatError(f"llvm-cpu library descriptor: {what} is not UTF-8 ({e})") from None


def read_descriptor(address):
    """Decode an ``rt_library_v0_t`` at ``address`` (layout: ``abi.LIBRARY_V0``).

    Returns (abi_version, name, cpu_features, exports, fn_addresses). Raises
    ModuleFormatError for counts over the ABI limits or null tables.
    """
    lib = abi.LIBRARY_V0
    version = _u32(address + lib.offset("abi_version"))
    if version != abi.ABI_VERSION:
        return version, None, None, (), ()
    count = _u32(address + lib.offset("export_count"))
    if count > abi.MAX_EXPORTS:
        raise ModuleFormatError(f"llvm-cpu library descriptor: {count} exports exceeds the "
                                f"limit of {abi.MAX_EXPORTS}")
    name = _c_string(_ptr(address + lib.offset("name")), "library name")
    features = _c_string(_ptr(address + lib.offset("cpu_features")), "cpu_features")
    names_at = _ptr(address + lib.offset("export_names"))
    fns_at = _ptr(address + lib.offset("export_fns"))
    attrs_at = _ptr(address + lib.offset("export_attrs"))
    if count and not (names_at and fns_at and attrs_at):
        raise ModuleFormatError(f"llvm-cpu library '{name}': export tables are null pointers "
                                f"but export_count is {count}")
    attrs = abi.EXPORT_ATTRS_V0
    exports, fns = [], []
    for i in range(count):
        export_name = _c_string(_ptr(names_at + 8 * i), f"export {i} name")
        fn = _ptr(fns_at + 8 * i)
        at = attrs_at + i * attrs.size
        bindings = _u32(at + attrs.offset("binding_count"))
        constants = _u32(at + attrs.offset("constant_count"))
        size = tuple(_u32(at + attrs.offset("workgroup_size") + 4 * d) for d in range(3))
        if not fn:
            raise ModuleFormatError(f"llvm-cpu library '{name}': export '{export_name}' has a "
                                    f"null function pointer")
        if bindings > abi.MAX_BINDINGS or constants > abi.MAX_CONSTANTS or min(size) < 1:
            raise ModuleFormatError(
                f"llvm-cpu library '{name}': export '{export_name}' declares {bindings} "
                f"bindings, {constants} constants, workgroup size {size}; expected at most "
                f"{abi.MAX_BINDINGS} bindings, {abi.MAX_CONSTANTS} constants, sizes >= 1")
        exports.append(ExportInfo(export_name, bindings, constants, size))
        fns.append(fn)
    return version, name, features, tuple(exports), tuple(fns)
