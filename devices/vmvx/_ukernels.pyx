# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The vmvx microkernels: nogil loops over raw pointers into bounds-checked binding buffers.

Every kernel takes VM buffer operands (``VMBuffer``, alias ``BindingBuffer``) with element
offsets and element strides, checks each view against its buffer's byte length (and
alignment, and write access) before touching memory, then runs a C loop with the GIL released for large views. Bad arguments raise
``InvalidArgumentError`` naming the kernel (``vmvx.add.2d.f32``), the operand and the buffer.

Entry points (arguments in the order of the vmvx module's imports, see devices/vmvx/module.py):
  BindingBuffer: rt.runtime.vm.VMBuffer (VMBuffer(obj, name, writable), VMBuffer.wrap,
  VMBuffer.from_address(address, length, writable, name, owner))
  binary_2d(i32, op, lhs, off, s0, s1, rhs, off, s0, s1, out, off, s0, s1, size0, size1)
  unary_2d(i32, op, in, off, s0, s1, out, off, s0, s1, size0, size1)
  copy_2d(esize, in, off, s0, s1, out, off, s0, s1, size0, size1)
  fill_2d(esize, bits, out, off, s0, s1, size0, size1)
  reduce_2d(i32, op, in, off, s0, s1, out, off, s0, size0, size1, flags)
  mmt4d(type, lhs, off, s0, rhs, off, s0, out, off, s0, M, N, K, M0, N0, K0, flags)
  matmul(type, lhs, off, s0, s1, rhs, off, s0, s1, out, off, s0, s1, M, N, K, flags)
  pack(esize, in, off, s0, out, off, s0, in_size0, in_size1, out_size0..3, padding, flags)
  unpack(esize, in, off, s0, out, off, s0, in_size0..3, out_size0, out_size1, flags)
with op tables BINARY_F32_OPS, BINARY_I32_OPS, UNARY_F32_OPS, UNARY_I32_OPS, REDUCE_OPS,
MMT4D_TYPES, MATMUL_TYPES and flags FLAG_ACCUMULATE, FLAG_TRANSPOSE_INNER, FLAG_TRANSPOSE_OUTER.

Source: IREE's vmvx module (runtime/src/iree/modules/vmvx/module.c, exports.inl) and its
ukernels (runtime/src/iree/builtins/ukernel/). The code is split into include files by
kernel family so that one extension holds the buffer type the kernels read in C.
"""
from rt.runtime.errors import InvalidArgumentError

include "_binding.pxi"
include "_ops.pxi"
include "_elementwise.pxi"
include "_reduce.pxi"
include "_mmt4d.pxi"
include "_matmul.pxi"
include "_pack.pxi"
