# The vmvx binding buffer and the bounds check every microkernel runs before touching memory.
# Included by _ukernels.pyx.
#
# Bindings are VM buffers (rt.runtime.vm.VMBuffer, IREE's iree_vm_buffer_t: a byte span plus
# access bits), so dispatch bytecode loads and stores them directly and passes them to the
# kernels. Checks follow the MAP_BUFFER_2D_* macros of runtime/src/iree/modules/vmvx/module.c.

from libc.stdint cimport int64_t, uintptr_t

from rt.runtime.vm._interp import BUFFER_SPAN_ADDRESS, VMBuffer

# Sizes and |strides| are limited to 31 bits so that (size - 1) * stride never overflows int64.
cdef int64_t _DIM_LIMIT = 0x7fffffff
# Target of empty views: never dereferenced, but a non-NULL pointer keeps `except NULL` usable.
cdef char _EMPTY_VIEW = 0


ctypedef int (*BufferSpanFn)(object, char**, int64_t*, int*) noexcept

# The binding buffer type is the VM's buffer (IREE's !vm.buffer): the interpreter's VMBuffer,
# read here through the C entry point the VM extension publishes as an address.
BindingBuffer = VMBuffer
cdef BufferSpanFn _buffer_span = <BufferSpanFn><uintptr_t>BUFFER_SPAN_ADDRESS


ctypedef struct Span:
    char* ptr
    int64_t length
    int writable


cdef inline int _as_span(object ref, Span* span, str kernel, str operand) except -1:
    if _buffer_span(ref, &span.ptr, &span.length, &span.writable) != 0:
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' must be a vmvx buffer (VMBuffer), got "
            f"{'null' if ref is None else type(ref).__name__}")
    return 0


cdef str _name_of(object ref):
    name = (<object>ref).name
    if getattr(ref, "released", False):
        return f"released buffer {name or ''}".rstrip()
    return name or "buffer"


cdef char* _view(object ref, bint write, int64_t esize, int64_t offset, int64_t stride0,
                 int64_t stride1, int64_t size0, int64_t size1, str kernel,
                 str operand) except NULL:
    """Checks a strided 2-D view of ``esize``-byte elements and returns its first element.

    The view covers elements ``offset + i * stride0 + j * stride1`` for ``0 <= i < size0``,
    ``0 <= j < size1``. Raises ``InvalidArgumentError`` naming the kernel, the operand and the
    buffer if any of them lies outside the buffer, if the first element is not aligned to
    ``esize`` or if ``write`` is requested on a read-only buffer.
    """
    cdef Span b
    cdef int64_t cap, hi, lo, p0, p1
    cdef char* first
    _as_span(ref, &b, kernel, operand)
    if write and not b.writable:
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' writes to {_name_of(ref)}, which is bound read-only; "
            f"bind it read-write")
    if (size0 < 0 or size1 < 0 or size0 > _DIM_LIMIT or size1 > _DIM_LIMIT
            or stride0 < -_DIM_LIMIT or stride0 > _DIM_LIMIT
            or stride1 < -_DIM_LIMIT or stride1 > _DIM_LIMIT):
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' on {_name_of(ref)}: sizes ({size0}, {size1}) must be in "
            f"[0, 2^31) and strides ({stride0}, {stride1}) in (-2^31, 2^31)")
    if offset < 0:
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' on {_name_of(ref)}: element offset {offset} must be >= 0")
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
            f"{kernel}: operand '{operand}' is out of bounds of {_name_of(ref)}: "
            f"a {size0}x{size1} view "
            f"of {esize}-byte elements at element offset {offset} with strides ({stride0}, "
            f"{stride1}) touches elements [{first_touched}, {last_touched}] but the buffer holds "
            f"{cap} elements ({b.length} bytes); shrink the view or bind a larger buffer")
    first = b.ptr + offset * esize
    if (<uintptr_t>first) % esize:
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' on {_name_of(ref)} starts at address {<uintptr_t>first:#x}, "
            f"which is not aligned to its {esize}-byte elements; bind an aligned buffer")
    return first


cdef int64_t _mul_dims(int64_t a, int64_t b, str kernel, str what) except -1:
    """Returns ``a * b`` for non-negative dimensions, or raises if it leaves [0, 2^31)."""
    if a < 0 or b < 0:
        raise InvalidArgumentError(f"{kernel}: {what} must be >= 0, got {a} and {b}")
    if a != 0 and b > _DIM_LIMIT // a:
        raise InvalidArgumentError(f"{kernel}: {what} = {a} * {b} exceeds 2^31 - 1 elements")
    return a * b
