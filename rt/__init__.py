"""rt: a runtime-centric HAL/VM with multi-device simulation, after IREE.

The public API is re-exported here lazily, so that running a ``.vmfb`` never imports the
compiler's dependencies::

    vmfb = rt.compile("matmul.mlir", devices=["llvm-cpu"])     # -> bytes (imports the compiler)
    m = rt.load(vmfb)                                          # devices picked per target
    c = m.foo(a, b)                                            # numpy in, numpy out

``compile`` (rt.compilation), ``load`` (rt.loading), ``LoadedModule`` / ``LoadedFunction``
(rt.loaded_module), ``DeviceArray`` (rt.device_array), ``NotComputed`` (rt.not_computed, dry-run
results), ``Tracer`` (rt.trace), ``Topology``
(rt.runtime.sim.topology, for simulated devices) and the error classes of rt.runtime.errors.
"""
from rt.runtime.errors import (  # noqa: F401
    CheckError,
    CompileError,
    DeadlineExceededError,
    DeviceError,
    InvalidArgumentError,
    ModuleFormatError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    RtError,
    UnimplementedError,
    VMTrapError,
)

__version__ = "0.1.0"

_LAZY = {
    "vm": ("rt.runtime.vm", None),
    "hal": ("rt.runtime.hal", None),
    "compile": ("rt.compilation", "compile"),
    "load": ("rt.loading", "load"),
    "LoadedModule": ("rt.loaded_module", "LoadedModule"),
    "LoadedFunction": ("rt.loaded_module", "LoadedFunction"),
    "DeviceArray": ("rt.device_array", "DeviceArray"),
    "NotComputed": ("rt.not_computed", "NotComputed"),
    "Tracer": ("rt.trace", "Tracer"),
    "Topology": ("rt.runtime.sim.topology", "Topology"),
}

__all__ = ["compile", "load", "LoadedModule", "LoadedFunction", "DeviceArray", "NotComputed", "Tracer",
           "Topology",
           "vm", "hal",
           "RtError", "CompileError", "ModuleFormatError", "InvalidArgumentError", "NotFoundError",
           "UnimplementedError", "DeviceError", "ResourceExhaustedError", "DeadlineExceededError",
           "CheckError", "VMTrapError", "PermissionDeniedError"]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        modname, attr = _LAZY[name]
        mod = importlib.import_module(modname)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rt' has no attribute {name!r}")
