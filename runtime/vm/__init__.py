"""rt.runtime.vm: rt's bytecode VM (after IREE's runtime/src/iree/vm).

Public API::

    from rt.runtime.vm import (ModuleBuilder, Module, Instance, Context, Function,
                               NativeModule, native_function, VMList, dump)

ModuleBuilder writes ``.vmfb`` bytes; Module loads and verifies them; Context links native
and bytecode modules in dependency order; Function calls an export from Python.
``ModuleBuilder``, ``FunctionBuilder`` and ``dump`` are imported on first use (running a
module needs neither; the builder's 291 emitter methods cost ``rt run``'s start ~1 ms).
"""
import importlib

from rt.runtime.vm.cconv import Signature, parse_cconv  # noqa: F401
from rt.runtime.vm.context import Context, Function, Instance  # noqa: F401
from rt.runtime.vm.module import Module  # noqa: F401
from rt.runtime.vm.native import NativeModule, native_function  # noqa: F401
from rt.runtime.vm._interp import (POLL_INTERVAL, CallSite, current_call_site,  # noqa: F401
                                   interrupt_epoch, set_thread_deadline, thread_deadline)
from rt.runtime.vm.values import VMBuffer, VMList  # noqa: F401

__all__ = [
    "ModuleBuilder", "FunctionBuilder", "Module", "Instance", "Context", "Function",
    "NativeModule", "native_function", "VMList", "VMBuffer", "Signature", "parse_cconv", "dump",
]

#: public names imported on first use -> (module, attribute or None for the module itself)
_LAZY = {"ModuleBuilder": ("rt.runtime.vm.builder", "ModuleBuilder"),
         "FunctionBuilder": ("rt.runtime.vm.builder", "FunctionBuilder"),
         "dump": ("rt.runtime.vm.dump", None)}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'rt.runtime.vm' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value
