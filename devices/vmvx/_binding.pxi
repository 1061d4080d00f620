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


ctypedef struct Extent:
    # The bytes a view touches, [lo, hi), and its geometry (to recognise an identical view).
    uintptr_t lo
    uintptr_t hi
    int64_t s0
    int64_t s1
    int64_t size1
    int64_t esize


cdef str _name_of(object ref):
    name = (<object>ref).name
    if getattr(ref, "released", False):
        return f"released buffer {name or ''}".rstrip()
    return name or "buffer"


cdef inline bint _injective(int64_t s0, int64_t s1, int64_t n0, int64_t n1):
    """True if no two elements of an ``n0 x n1`` view with strides (s0, s1) coincide."""
    cdef int64_t a0 = s0 if s0 >= 0 else -s0
    cdef int64_t a1 = s1 if s1 >= 0 else -s1
    if n0 <= 1:
        return n1 <= 1 or a1 != 0
    if n1 <= 1:
        return a0 != 0
    return (a1 != 0 and a0 >= a1 * n1) or (a0 != 0 and a1 >= a0 * n0)


cdef char* _view(object ref, bint write, int64_t esize, int64_t offset, int64_t stride0,
                 int64_t stride1, int64_t size0, int64_t size1, str kernel,
                 str operand, Extent* extent=NULL) except NULL:
    """Checks a strided 2-D view of ``esize``-byte elements and returns its first element.

    The view covers elements ``offset + i * stride0 + j * stride1`` for ``0 <= i < size0``,
    ``0 <= j < size1``. Raises ``InvalidArgumentError`` naming the kernel, the operand and the
    buffer if any of them lies outside the buffer, if the first element is not aligned to
    ``esize``, if ``write`` is requested on a read-only buffer, or if a written view maps two
    of its elements to the same memory (a later store would change an earlier one). Records
    the bytes touched in ``extent`` (if given) for ``_check_alias``.
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
    if extent != NULL:
        extent.lo = extent.hi = 0
        extent.s0 = stride0 if size0 > 1 else 0
        extent.s1 = stride1 if size1 > 1 else 0
        extent.size1 = size1
        extent.esize = esize
    if size0 == 0 or size1 == 0:
        return &_EMPTY_VIEW
    if write and not _injective(stride0, stride1, size0, size1):
        raise InvalidArgumentError(
            f"{kernel}: operand '{operand}' on {_name_of(ref)}: a {size0}x{size1} view with "
            f"strides ({stride0}, {stride1}) writes some elements twice; an output view must "
            f"give every element its own memory")
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
    if extent != NULL:
        extent.lo = <uintptr_t>(first + lo * esize)
        extent.hi = <uintptr_t>(first + hi * esize + esize)
    return first


cdef bint _disjoint_columns(const Extent* a, const Extent* b):
    """True when ``a`` and ``b`` are column blocks of the same row-major rows (equal row stride,
    rows contiguous) whose columns do not meet: their bytes interleave but no element is shared
    (a concat's two halves along the last dimension)."""
    cdef int64_t s0 = a.s0, delta, r
    if s0 <= 0 or b.s0 != s0 or a.esize != b.esize or not 0 <= a.s1 <= 1 or not 0 <= b.s1 <= 1:
        return False
    if a.size1 > s0 or b.size1 > s0 or (b.lo - a.lo) % a.esize:
        return False
    delta = (<int64_t>b.lo - <int64_t>a.lo) // a.esize
    r = delta % s0
    if r < 0:
        r += s0
    return r >= a.size1 and r + b.size1 <= s0


cdef int _check_alias(const Extent* out, const Extent* src, bint same_ok, str kernel,
                      str out_name, str src_name) except -1:
    """Raises unless output ``out`` and input ``src`` touch disjoint bytes, or (``same_ok``,
    for kernels whose every output element depends only on the same input element) are the
    identical view. A partial overlap would let a store change an input the kernel has not
    read yet: a divisor turned to zero after its check, a matmul operand overwritten mid-way.
    Source: the restrict contract of IREE's ukernels (runtime/src/iree/builtins/ukernel).
    """
    if out.lo == out.hi or src.lo == src.hi or out.hi <= src.lo or src.hi <= out.lo:
        return 0
    if (same_ok and out.lo == src.lo and out.hi == src.hi and out.s0 == src.s0
            and out.s1 == src.s1 and out.esize == src.esize):
        return 0
    if _disjoint_columns(out, src):
        return 0
    raise InvalidArgumentError(
        f"{kernel}: output '{out_name}' overlaps input '{src_name}' (bytes "
        f"[{out.lo:#x}, {out.hi:#x}) and [{src.lo:#x}, {src.hi:#x})); an output must not "
        f"share memory with an input" + (" unless it is the identical view" if same_ok else ""))


cdef int64_t _mul_dims(int64_t a, int64_t b, str kernel, str what) except -1:
    """Returns ``a * b`` for non-negative dimensions, or raises if it leaves [0, 2^31)."""
    if a < 0 or b < 0:
        raise InvalidArgumentError(f"{kernel}: {what} must be >= 0, got {a} and {b}")
    if a != 0 and b > _DIM_LIMIT // a:
        raise InvalidArgumentError(f"{kernel}: {what} = {a} * {b} exceeds 2^31 - 1 elements")
    return a * b
