"""rt.compiler.codegen.lowering: hal-level dispatch functions -> kernel_ir.Kernel.

``lower_dispatch_function(func_op, backend, config)`` is what ``iree-hal-translate-executables``
calls for every export of every executable variant (see dispatch.py).
"""
from rt.compiler.codegen.lowering.dispatch import lower_dispatch_function

__all__ = ["lower_dispatch_function"]
