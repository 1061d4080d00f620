"""rt: a runtime-centric HAL/VM with multi-device simulation, after IREE.

The public API is re-exported here lazily, so that running a ``.vmfb`` never imports the
compiler's dependencies.
"""
from rt.runtime.errors import (  # noqa: F401
    CheckError,
    CompileError,
    DeadlineExceededError,
    DeviceError,
    InvalidArgumentError,
    ModuleFormatError,
    NotFoundError,
    ResourceExhaustedError,
    RtError,
    UnimplementedError,
    VMTrapError,
)

__version__ = "0.1.0"

_LAZY = {
    "vm": ("rt.runtime.vm", None),
    "hal": ("rt.runtime.hal", None),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        modname, attr = _LAZY[name]
        mod = importlib.import_module(modname)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rt' has no attribute {name!r}")
