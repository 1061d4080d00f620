"""rt.devices.vmvx: the portable reference device (docs/ARCHITECTURE.md §4).

Executables are VM bytecode functions (format ``"vmvx-bytecode"``) run by rt's interpreter once
per workgroup; they call the ``vmvx`` native module of bounds-checked Cython microkernels.
``LOADER`` is the device's ExecutableLoader; ``VmvxModule`` is the module; its buffer ref
type is the VM's ``VMBuffer`` (``BindingBuffer`` is the same type);
``rt.devices.vmvx.testing`` builds ready-made executables. Attributes load lazily.
Source: IREE's runtime/src/iree/modules/vmvx and hal/local/loaders/vmvx_module_loader.c.
"""
import importlib

_LAZY = {
    "LOADER": "rt.devices.vmvx.loader",
    "VmvxLoader": "rt.devices.vmvx.loader",
    "VmvxExecutable": "rt.devices.vmvx.executable",
    "VmvxModule": "rt.devices.vmvx.module",
    "BindingBuffer": "rt.devices.vmvx._ukernels",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'rt.devices.vmvx' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
