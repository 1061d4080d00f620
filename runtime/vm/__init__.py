"""rt.runtime.vm: rt's bytecode VM (after IREE's runtime/src/iree/vm).

Public API::

    from rt.runtime.vm import (ModuleBuilder, Module, Instance, Context, Function,
                               NativeModule, native_function, VMList, dump)

ModuleBuilder writes ``.vmfb`` bytes; Module loads and verifies them; Context links native
and bytecode modules in dependency order; Function calls an export from Python.
"""
from rt.runtime.vm.builder import FunctionBuilder, ModuleBuilder  # noqa: F401
from rt.runtime.vm.cconv import Signature, parse_cconv  # noqa: F401
from rt.runtime.vm.context import Context, Function, Instance  # noqa: F401
from rt.runtime.vm.module import Module  # noqa: F401
from rt.runtime.vm.native import NativeModule, native_function  # noqa: F401
from rt.runtime.vm._interp import (POLL_INTERVAL, CallSite, current_call_site,  # noqa: F401
                                   interrupt_epoch, set_thread_deadline, thread_deadline)
from rt.runtime.vm.values import VMBuffer, VMList  # noqa: F401
from rt.runtime.vm import dump  # noqa: F401

__all__ = [
    "ModuleBuilder", "FunctionBuilder", "Module", "Instance", "Context", "Function",
    "NativeModule", "native_function", "VMList", "VMBuffer", "Signature", "parse_cconv", "dump",
]
