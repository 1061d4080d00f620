# cython: language_level=3
"""Native module functions called in C: the interpreter passes them its registers directly.

A native module (``NativeModule``) may give an export a C implementation, a
``NativeFunction``: ``fn(state, call)`` reads its arguments from the caller's register banks
through ``call`` (``_native.pxd``: ``ref_arg``/``int_arg``/``float_arg`` by argument position,
variadic spans flattened in signature order with their repetition counts in ``spans``) and
writes its results straight into the result registers (``set_ref``/``set_i32``/``set_i64``).
No Python argument list, tuple or frame is built; an exception propagates like any native
function's (the interpreter adds the VM stack). The interpreter verified the registers' banks
against the import's calling convention when the module was loaded. After IREE's native module
shims (iree/vm/native_module.h, ``iree_vm_native_function_shim_t``).
"""


cdef class NativeFunction:
    """The C implementation of native export ``name`` with its module ``state``."""

    def __repr__(self):
        return f"<NativeFunction {self.name}>"


cdef NativeFunction native_function(str name, import_fn fn, object state):
    cdef NativeFunction f = NativeFunction.__new__(NativeFunction)
    f.name, f.fn, f.state = name, fn, state
    return f
