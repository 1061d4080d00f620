# The vmvx binding buffer and the bounds check every microkernel runs before touching memory.
# Included by _ukernels.pyx (one extension, so the kernels read the buffer's fields in C).
#
# Modelled on IREE's iree_vm_buffer_t (runtime/src/iree/vm/buffer.h: a byte span plus access
# bits) and the MAP_BUFFER_2D_* checks of runtime/src/iree/modules/vmvx/module.c.

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE, PyBUF_WRITABLE
from libc.stdint cimport int64_t, uintptr_t

# Sizes and |strides| are limited to 31 bits so that (size - 1) * stride never overflows int64.
cdef int64_t _DIM_LIMIT = 0x7fffffff
# Target of empty views: never dereferenced, but a non-NULL pointer keeps `except NULL` usable.
cdef char _EMPTY_VIEW = 0


cdef class BindingBuffer:
    """A host byte span handed to vmvx code: one binding of a dispatch (a ``!vmvx.buffer``).

    address: host address (int) of the first byte; length: size in bytes; writable: whether
    kernels may store to it; name: how errors refer to it (``"binding 2"``). ``owner`` keeps
    the memory alive while the buffer is referenced. Raises ``InvalidArgumentError`` for a
    negative length or a NULL address with a non-zero length.
    Source: iree_vm_buffer_t (runtime/src/iree/vm/buffer.h).
    """

    cdef char* ptr
    cdef readonly int64_t length
    cdef readonly bint writable
    cdef readonly str name
    cdef readonly object owner
    cdef Py_buffer view
    cdef bint has_view

    def __init__(self, uintptr_t address, int64_t length, bint writable=True, str name="buffer",
                 object owner=None):
        if length < 0:
            raise InvalidArgumentError(f"vmvx buffer {name!r}: length must be >= 0 bytes, got {length}")
        if address == 0 and length != 0:
            raise InvalidArgumentError(
                f"vmvx buffer {name!r}: NULL address with length {length}; a NULL buffer must be empty")
        self.ptr = <char*>address
        self.length = length
        self.writable = writable
        self.name = name
        self.owner = owner

    @staticmethod
    def wrap(object obj, bint writable=True, str name="buffer"):
        """Wrap an object exposing the buffer protocol (numpy array, bytearray, memoryview).

        The buffer must be C-contiguous; ``writable=True`` requires a writable exporter.
        Raises ``InvalidArgumentError`` otherwise.
        """
        cdef BindingBuffer b = BindingBuffer.__new__(BindingBuffer)
        flags = PyBUF_SIMPLE | (PyBUF_WRITABLE if writable else 0)
        try:
            PyObject_GetBuffer(obj, &b.view, flags)
        except (BufferError, TypeError) as e:
            access = "a writable" if writable else "a readable"
            raise InvalidArgumentError(
                f"vmvx buffer {name!r}: {type(obj).__name__} does not export {access} contiguous "
                f"buffer ({e}); pass a C-contiguous numpy array or bytearray") from None
        b.has_view = True
        b.ptr = <char*>b.view.buf
        b.length = b.view.len
        b.writable = writable
        b.name = name
        b.owner = obj
        return b

    def __dealloc__(self):
        if self.has_view:
            PyBuffer_Release(&self.view)

    @property
    def address(self):
        """Host address of the first byte (int)."""
        return <uintptr_t>self.ptr

    def __repr__(self):
        access = "rw" if self.writable else "ro"
        return f"<vmvx.buffer {self.name} {self.length} bytes {access} at {<uintptr_t>self.ptr:#x}>"


cdef inline BindingBuffer _as_buffer(object ref, str kernel, str operand):
    if type(ref) is BindingBuffer:
        return <BindingBuffer>ref
    if isinstance(ref, BindingBuffer):
        return <BindingBuffer>ref
    raise InvalidArgumentError(
        f"{kernel}: operand '{operand}' must be a vmvx buffer, got {type(ref).__name__}")


cdef char* _view(object ref, bint write, int64_t esize, int64_t offset, int64_t stride0,
                 int64_t stride1, int64_t size0, int64_t size1, str kernel,
                 str operand) except NULL:
    """Checks a strided 2-D view of ``esize``-byte elements and returns its first element.

    The view covers elements ``offset + i * stride0 + j * stride1`` for ``0 <= i < size0``,
    ``0 <= j < size1``. Raises ``InvalidArgumentError`` naming the kernel, the operand and the
    buffer if any of them lies outside the buffer, if the first element is not aligned to
    ``esize`` or if ``write`` is requested on a read-only buffer.
    """
    cdef BindingBuffer b = _as_buffer(ref, kernel, operand)
    cdef int64_t cap, hi, lo, p0, p1
    cdef char* first
    if write and not b.writable:
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' writes to {b.name}, which is bound read-only; "
            f"bind it read-write")
    if (size0 < 0 or size1 < 0 or size0 > _DIM_LIMIT or size1 > _DIM_LIMIT
            or stride0 < -_DIM_LIMIT or stride0 > _DIM_LIMIT
            or stride1 < -_DIM_LIMIT or stride1 > _DIM_LIMIT):
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' on {b.name}: sizes ({size0}, {size1}) must be in "
            f"[0, 2^31) and strides ({stride0}, {stride1}) in (-2^31, 2^31)")
    if offset < 0:
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' on {b.name}: element offset {offset} must be >= 0")
    if size0 == 0 or size1 == 0:
        return &_EMPTY_VIEW
    cap = b.length // esize
    p0 = (size0 - 1) * stride0
    p1 = (size1 - 1) * stride1
    hi = (p0 if p0 > 0 else 0) + (p1 if p1 > 0 else 0)
    lo = (p0 if p0 < 0 else 0) + (p1 if p1 < 0 else 0)
    if offset >= cap or hi >= cap - offset or -lo > offset:
        first_touched, last_touched = <object>offset + <object>lo, <object>offset + <object>hi
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' is out of bounds of {b.name}: a {size0}x{size1} view "
            f"of {esize}-byte elements at element offset {offset} with strides ({stride0}, "
            f"{stride1}) touches elements [{first_touched}, {last_touched}] but the buffer holds "
            f"{cap} elements ({b.length} bytes); shrink the view or bind a larger buffer")
    first = b.ptr + offset * esize
    if (<uintptr_t>first) % esize:
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' on {b.name} starts at address {<uintptr_t>first:#x}, "
            f"which is not aligned to its {esize}-byte elements; bind an aligned buffer")
    return first


cdef int64_t _mul_dims(int64_t a, int64_t b, str kernel, str what) except -1:
    """Returns ``a * b`` for non-negative dimensions, or raises if it leaves [0, 2^31)."""
    if a < 0 or b < 0:
        raise InvalidArgumentError(f"{kernel}: {what} must be >= 0, got {a} and {b}")
    if a != 0 and b > _DIM_LIMIT // a:
        raise InvalidArgumentError(f"{kernel}: {what} = {a} * {b} exceeds 2^31 - 1 elements")
    return a * b
