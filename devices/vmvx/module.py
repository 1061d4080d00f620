"""The ``vmvx`` native module: the microkernels of ``_ukernels`` as VM imports.

Bytecode of a vmvx executable imports ``vmvx.<function>``; every buffer operand is a
``VMBuffer`` ref (a binding of the dispatch), offsets/strides/sizes are i64 element counts.
Exports (cconv in parentheses; IREE's names where IREE has the kernel):

* ``<op>.2d.f32`` for op in BINARY_F32_OPS, ``<op>.2d.i32`` for BINARY_I32_OPS
  (``0rIIIrIIIrIIIII_v``: lhs, lhs_offset, lhs_stride0, lhs_stride1, rhs..., out..., size0, size1)
* ``<op>.2d.f32`` for UNARY_F32_OPS, ``<op>.2d.i32`` for UNARY_I32_OPS
  (``0rIIIrIIIII_v``: in, in_offset, in_stride0, in_stride1, out..., size0, size1)
* ``copy.2d.x8|x16|x32|x64`` (``0rIIIrIIIII_v``, as unary)
* ``fill.2d.x8|x16|x32`` (``0irIIIII_v``: value bits, out, offset, stride0, stride1, size0,
  size1), ``fill.2d.x64`` (``0IrIIIII_v``)
* ``reduce.<op>.2d.f32|i32`` for REDUCE_OPS (``0rIIIrIIIIi_v``: in, offset, stride0, stride1,
  out, offset, stride0, size0, size1, flags)
* ``mmt4d.f32f32f32``, ``mmt4d.i8i8i32`` (``0rIIrIIrIIIIIiiii_v``: lhs, offset, stride0, rhs...,
  out..., M, N, K, M0, N0, K0, flags)
* ``matmul.f32f32f32``, ``matmul.i32i32i32`` (``0rIIIrIIIrIIIIIIi_v``: lhs, offset, stride0,
  stride1, rhs..., out..., M, N, K, flags); not in IREE, see _matmul.pxi
* ``pack.x8|x16|x32|x64`` (``0rIIrIIIIIIIIIi_v``: in, offset, stride0, out, offset, stride0,
  in_size0, in_size1, out_size0..3, padding bits, flags)
* ``unpack.x8|x16|x32|x64`` (``0rIIrIIIIIIIIi_v``: in, offset, stride0, out, offset, stride0,
  in_size0..3, out_size0, out_size1, flags)
* ``buffer.alloc`` (``0I_r``: byte length -> a new zeroed writable buffer): workgroup scratch
  (kernel_ir.Scratch), at most SCRATCH_LIMIT bytes; like IREE's ``vm.buffer.alloc``.
* ``buffer.subspan`` (``0rII_r``: binding, byte offset, byte length -> a buffer over that range
  of it): the range of one tensor inside a binding (its ``hal.interface.binding.subspan``), so
  that kernels and buffer ops check their accesses against the tensor, not the whole binding
  (a transient slab holds many tensors); not in IREE, whose vmvx checks the binding only.

Kernel errors (out-of-bounds view, read-only output, division by zero...) raise
``InvalidArgumentError`` naming the kernel, operand and binding; a scratch request beyond
SCRATCH_LIMIT raises ``ResourceExhaustedError``; the VM adds its stack.
Source: runtime/src/iree/modules/vmvx/module.c and exports.inl.
"""
from rt.devices.vmvx import _ukernels as uk
from rt.runtime.errors import InvalidArgumentError, ResourceExhaustedError
from rt.runtime.vm import NativeModule, VMBuffer, native_function

__all__ = ["VmvxModule", "VMBuffer"]

BINARY_CCONV = "0rIIIrIIIrIIIII_v"
UNARY_CCONV = "0rIIIrIIIII_v"
FILL_CCONV = {1: "0irIIIII_v", 2: "0irIIIII_v", 4: "0irIIIII_v", 8: "0IrIIIII_v"}
REDUCE_CCONV = "0rIIIrIIIIi_v"
MMT4D_CCONV = "0rIIrIIrIIIIIiiii_v"
MATMUL_CCONV = "0rIIIrIIIrIIIIIIi_v"
PACK_CCONV = "0rIIrIIIIIIIIIi_v"
UNPACK_CCONV = "0rIIrIIIIIIIIi_v"
ALLOC_CCONV = "0I_r"
SUBSPAN_CCONV = "0rII_r"
#: Bytes one ``buffer.alloc`` may allocate (workgroup scratch of one kernel buffer).
SCRATCH_LIMIT = 256 * 1024 * 1024

_U32 = 0xFFFFFFFF
_U64 = 0xFFFFFFFFFFFFFFFF


def _binary(i32, op):
    def run(self, *args):
        uk.binary_2d(i32, op, *args)
    return run


def _unary(i32, op):
    def run(self, *args):
        uk.unary_2d(i32, op, *args)
    return run


def _copy(esize):
    def run(self, *args):
        uk.copy_2d(esize, *args)
    return run


def _fill(esize):
    def run(self, value, *args):
        uk.fill_2d(esize, value & _U64, *args)
    return run


def _reduce(i32, op):
    def run(self, *args):
        uk.reduce_2d(i32, op, *args[:-1], args[-1] & _U32)
    return run


def _mmt4d(type_index):
    def run(self, *args):
        uk.mmt4d(type_index, *args[:-1], args[-1] & _U32)
    return run


def _matmul(type_index):
    def run(self, *args):
        uk.matmul(type_index, *args[:-1], args[-1] & _U32)
    return run


def _pack(esize):
    def run(self, *args):
        uk.pack(esize, *args[:-2], args[-2] & _U64, args[-1] & _U32)
    return run


def _unpack(esize):
    def run(self, *args):
        uk.unpack(esize, *args[:-1], args[-1] & _U32)
    return run


def _kernel_methods():
    """Method name -> native function, for every kernel listed in the module docstring."""
    methods = {}

    def add(name, cconv, fn):
        fn.__name__ = name.replace(".", "_")
        fn.__doc__ = f"vmvx.{name} ({cconv}); see rt.devices.vmvx._ukernels."
        methods[fn.__name__] = native_function(name, cconv)(fn)

    for suffix, i32, binary, unary in (("f32", False, uk.BINARY_F32_OPS, uk.UNARY_F32_OPS),
                                       ("i32", True, uk.BINARY_I32_OPS, uk.UNARY_I32_OPS)):
        for op, name in enumerate(binary):
            add(f"{name}.2d.{suffix}", BINARY_CCONV, _binary(i32, op))
        for op, name in enumerate(unary):
            add(f"{name}.2d.{suffix}", UNARY_CCONV, _unary(i32, op))
        for op, name in enumerate(uk.REDUCE_OPS):
            add(f"reduce.{name}.2d.{suffix}", REDUCE_CCONV, _reduce(i32, op))
    for esize in uk.COPY_WIDTHS:
        bits = esize * 8
        add(f"copy.2d.x{bits}", UNARY_CCONV, _copy(esize))
        add(f"fill.2d.x{bits}", FILL_CCONV[esize], _fill(esize))
        add(f"pack.x{bits}", PACK_CCONV, _pack(esize))
        add(f"unpack.x{bits}", UNPACK_CCONV, _unpack(esize))
    for type_index, name in enumerate(uk.MMT4D_TYPES):
        add(f"mmt4d.{name}", MMT4D_CCONV, _mmt4d(type_index))
    for type_index, name in enumerate(uk.MATMUL_TYPES):
        add(f"matmul.{name}", MATMUL_CCONV, _matmul(type_index))
    return methods


_VmvxKernels = type("_VmvxKernels", (NativeModule,), _kernel_methods())


class VmvxModule(_VmvxKernels):
    """The ``vmvx`` module: stateless, so one instance may serve every context and thread."""

    name = "vmvx"
    version = 0

    @native_function("buffer.alloc", ALLOC_CCONV)
    def buffer_alloc(self, length):
        """A new zero-filled writable VMBuffer of ``length`` bytes (workgroup scratch).

        Raises InvalidArgumentError for a negative ``length`` and ResourceExhaustedError above
        SCRATCH_LIMIT (a dynamic shape from push constants asking for more than a workgroup may
        hold; the compiler clamps its requests to SCRATCH_LIMIT + 1 so sizes cannot wrap).
        """
        if length < 0:
            raise InvalidArgumentError(f"vmvx.buffer.alloc: negative length {length}; expected a byte count")
        if length > SCRATCH_LIMIT:
            raise ResourceExhaustedError(
                f"vmvx.buffer.alloc: workgroup scratch needs more than the {SCRATCH_LIMIT}-byte limit "
                f"({length} bytes requested after clamping); check the dynamic sizes passed as push "
                f"constants")
        return VMBuffer(bytearray(length), "scratch", True)

    @native_function("buffer.subspan", SUBSPAN_CCONV)
    def buffer_subspan(self, buffer, offset, length):
        """The VMBuffer over bytes ``[offset, offset + length)`` of ``buffer`` (a binding), with
        its access, released with it (``VMBuffer.subspan``).

        Raises InvalidArgumentError if ``buffer`` is not a VMBuffer or the range does not lie
        inside it (the binding is smaller than the tensor the dispatch declares there).
        """
        if type(buffer) is not VMBuffer:
            raise InvalidArgumentError(
                f"vmvx.buffer.subspan: expected a buffer, got "
                f"{'null' if buffer is None else type(buffer).__name__}")
        return buffer.subspan(offset, length)
