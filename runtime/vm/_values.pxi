# VM value types shared by the interpreter and Python: VMBuffer (bytes: rodata, bindings)
# and VMList (IREE's vm.list: typed or variant elements). Included by _interp.pyx.

_LIST_TYPE_NAMES = ("any", "i32", "i64", "f32", "f64", "ref")
_LIST_TYPE_CODES = {"any": 0, "i32": 1, "i64": 2, "f32": 3, "f64": 4, "ref": 5}


cdef class VMBuffer:
    """A byte buffer held in a ref register (IREE's ``!vm.buffer``): rodata, push constants,
    dispatch bindings.

    ``VMBuffer(obj, name=None, writable=False)`` wraps any C-contiguous object supporting the
    buffer protocol without copying (a writable one needs a writable exporter);
    ``VMBuffer.from_address(address, length, writable, name, owner)`` spans external memory
    (a HAL binding) that ``owner`` (or the caller) keeps alive. ``view`` is a memoryview
    (read-only unless the buffer is writable); ``len(buf)`` is the byte length. Bytecode
    stores (``buffer.store.*``) trap on a read-only buffer; ``release()`` detaches the memory
    so that later access traps instead of touching freed memory. ``metadata`` is the manifest
    metadata dict when the buffer is an embedded executable's segment (the HAL passes it to
    the executable loader), else None. ``subspan(offset, length)`` is a buffer over a byte range
    of this one (a tensor inside a dispatch binding), released with it.

    The buffer protocol export is taken on a private memoryview that only this object
    references, through a heap-allocated Py_buffer the garbage collector never sees (a
    Py_buffer field would be traversed and cleared by Cython: clearing an exporter that still
    has an export raises BufferError inside the collector and leaves a dangling buffer).
    Source: iree_vm_buffer_t (runtime/src/iree/vm/buffer.h).
    """
    cdef Py_buffer* _buf
    cdef bint _held
    cdef bint _released
    cdef char* data
    cdef readonly int64_t length
    cdef readonly bint writable
    cdef readonly object name
    cdef readonly object owner
    cdef public object metadata
    cdef dict _subspans

    def __init__(self, obj, name=None, bint writable=False):
        if self._held or self._released or self.data != NULL:
            raise InvalidArgumentError("VMBuffer is already initialised")
        flags = PyBUF_SIMPLE | (PyBUF_WRITABLE if writable else 0)
        cdef Py_buffer* view = <Py_buffer*>calloc(1, sizeof(Py_buffer))
        if view == NULL:
            raise MemoryError()
        try:
            PyObject_GetBuffer(memoryview(obj), view, flags)
        except (BufferError, TypeError) as e:
            free(view)
            access = "writable " if writable else ""
            raise InvalidArgumentError(
                f"VMBuffer {name or ''}: {type(obj).__name__} does not export a {access}C-contiguous "
                f"buffer ({e}); pass bytes, a bytearray or a C-contiguous numpy array") from None
        self._buf = view
        self._held = True
        self.data = <char*>view.buf
        self.length = self._buf.len
        self.writable = writable
        self.name = name

    @staticmethod
    def from_address(uintptr_t address, int64_t length, bint writable=False, name=None, owner=None):
        """A buffer over ``length`` bytes at host ``address``; ``owner`` keeps them alive.

        Raises InvalidArgumentError for a negative length or a NULL address with a non-zero
        length.
        """
        if length < 0:
            raise InvalidArgumentError(f"VMBuffer {name or ''}: length must be >= 0 bytes, got {length}")
        if address == 0 and length != 0:
            raise InvalidArgumentError(
                f"VMBuffer {name or ''}: NULL address with length {length}; a NULL buffer must be empty")
        cdef VMBuffer b = VMBuffer.__new__(VMBuffer)
        b.data = <char*>address
        b.length = length
        b.writable = writable
        b.name = name
        b.owner = owner
        return b

    @staticmethod
    def wrap(obj, bint writable=True, name="buffer"):
        """``VMBuffer(obj, name, writable)`` with the argument order and defaults of the vmvx
        kernels' tests: a writable buffer over a numpy array or bytearray."""
        return VMBuffer(obj, name, writable)

    def subspan(self, int64_t offset, int64_t length):
        """A buffer over bytes ``[offset, offset + length)`` of this one, with its access
        (IREE's ``iree_vm_buffer`` over a byte range); the same range gives the same buffer.
        ``release()`` of this buffer releases it too, so a subspan never outlives its memory.

        Raises InvalidArgumentError unless ``0 <= offset``, ``0 <= length`` and the range lies
        inside this buffer (naming both), or if this buffer was released.
        """
        if self._released:
            raise InvalidArgumentError(f"subspan of the {_buffer_name(self)}: it was released")
        if offset < 0 or length < 0 or offset > self.length or length > self.length - offset:
            raise InvalidArgumentError(
                f"a tensor of {length} bytes at byte offset {offset} does not fit in the "
                f"{self.length}-byte {_buffer_name(self)}; the dispatch's binding range is "
                f"smaller than the tensor its subspan declares")
        if self._subspans is None:
            self._subspans = {}
        key = (offset, length)
        child = self._subspans.get(key)
        if child is None:
            child = VMBuffer.from_address(<uintptr_t>(self.data + offset), length, self.writable,
                                          f"{self.name or 'buffer'} bytes [{offset}, {offset + length})",
                                          self)
            self._subspans[key] = child
        return child

    def release(self):
        """Detach the memory: the buffer becomes empty and every later access traps."""
        if self._subspans is not None:
            for child in self._subspans.values():
                child.release()
            self._subspans = None
        if self._held:
            self._held = False
            PyBuffer_Release(self._buf)
            free(self._buf)
            self._buf = NULL
        self._released = True
        self.data = NULL
        self.length = 0
        self.owner = None

    @property
    def released(self):
        return self._released

    @property
    def address(self):
        """Host address of the first byte (int; 0 for an empty or released buffer)."""
        return <uintptr_t>self.data

    def __dealloc__(self):
        if self._held:
            PyBuffer_Release(self._buf)
            free(self._buf)

    @property
    def view(self):
        """The bytes as a memoryview (writable only if the buffer is)."""
        if self._held:
            mv = memoryview(<object>self._buf.obj).cast("B")
        elif self.length:
            mv = PyMemoryView_FromMemory(self.data, self.length, PyBUF_WRITE if self.writable else PyBUF_READ)
        else:
            return memoryview(b"")
        return mv if self.writable else mv.toreadonly()

    def __len__(self):
        return self.length

    def __bytes__(self):
        return self.data[:self.length]

    def __repr__(self):
        state = "released" if self._released else ("rw" if self.writable else "ro")
        return f"<VMBuffer {self.name or ''} {self.length} bytes {state}>"


cdef str _buffer_name(VMBuffer b):
    if b._released:
        return f"released buffer {b.name or ''}".rstrip()
    return f"buffer {b.name}" if b.name else "buffer"


cdef int _vmbuffer_span(object o, char** data, int64_t* length, int* writable) noexcept:
    """C entry point for other extensions (the vmvx kernels): the memory of a VMBuffer.

    Returns 0 and fills data/length/writable for a VMBuffer, -1 for any other object. Shared
    as the integer address BUFFER_SPAN_ADDRESS (extensions cannot cimport each other here).
    """
    if type(o) is not VMBuffer:
        return -1
    cdef VMBuffer b = <VMBuffer>o
    data[0] = b.data
    length[0] = b.length
    writable[0] = b.writable
    return 0


BUFFER_SPAN_ADDRESS = <uintptr_t>&_vmbuffer_span


cdef class VMList:
    """A VM list (IREE ``!vm.list<T>``): ``element_type`` is "any" (variant), "i32", "i64",
    "f32", "f64" or "ref". Python lists passed to VM functions become variant VMLists.

    Behaves as a mutable sequence (len, indexing, iteration, append, ==); ``to_list()`` converts
    recursively. Bytecode access is bounds- and type-checked: violations are VM traps.
    """
    cdef public list items
    cdef readonly int type_code

    def __init__(self, items=(), element_type="any"):
        if element_type not in _LIST_TYPE_CODES:
            raise InvalidArgumentError(f"VMList element_type {element_type!r}; expected one of {', '.join(_LIST_TYPE_CODES)}")
        self.type_code = _LIST_TYPE_CODES[element_type]
        self.items = []
        for v in items:
            self.append(v)

    @property
    def element_type(self):
        return _LIST_TYPE_NAMES[self.type_code]

    cdef object _coerce(self, object v):
        cdef int t = self.type_code
        if t == 0:
            return _from_python(v) if type(v) is list else v
        if t == 1 or t == 2:
            bits = 32 if t == 1 else 64
            if type(v) is bool or not isinstance(v, int) or not -(1 << (bits - 1)) <= v < (1 << bits):
                raise InvalidArgumentError(f"list<{_LIST_TYPE_NAMES[t]}> element must be an int in [-2^{bits - 1}, 2^{bits}), got {v!r}")
            return int(_w32(v & 0xFFFFFFFF) if t == 1 else <int64_t><uint64_t>(v & 0xFFFFFFFFFFFFFFFF))
        if t == 3 or t == 4:
            if not isinstance(v, (int, float)):
                raise InvalidArgumentError(f"list<{_LIST_TYPE_NAMES[t]}> element must be a number, got {v!r}")
            return <double><float>v if t == 3 else float(v)
        if isinstance(v, (int, float)):
            raise InvalidArgumentError(f"list<ref> element must be an object or None, got {v!r}")
        return _from_python(v) if type(v) is list else v

    def append(self, v):
        self.items.append(self._coerce(v))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __setitem__(self, i, v):
        self.items[i] = self._coerce(v)

    def __iter__(self):
        return iter(self.items)

    def __eq__(self, other):
        if isinstance(other, VMList):
            return self.items == (<VMList>other).items
        if isinstance(other, list):
            return self.items == other
        return NotImplemented

    def to_list(self):
        return [(<VMList>v).to_list() if type(v) is VMList else v for v in self.items]

    def __repr__(self):
        return f"VMList<{self.element_type}>({self.items!r})"

    cdef inline int64_t size(self):
        return len(self.items)

    cdef int _check(self, int64_t i, str what) except -1:
        if i < 0 or i >= len(self.items):
            raise _Trap(f"{what}: index {i} out of bounds for a list of size {len(self.items)}")
        return 0

    cdef int resize(self, int64_t n) except -1:
        cdef Py_ssize_t old = len(self.items)
        if n < 0 or n > (1 << 28):
            raise _Trap(f"list.resize: size {n} must be in [0, 2^28]")
        if n < old:
            del self.items[n:]
        elif n > old:
            fill = (0, 0, 0, 0.0, 0.0, None)[self.type_code]
            self.items.extend([fill] * (n - old))
        return 0

    cdef object _get(self, int64_t i, str what, int want):
        self._check(i, what)
        v = self.items[i]
        if want <= 2 and (type(v) is not int):
            raise _Trap(f"{what}: element {i} is {_kind(v)}, not an integer")
        if (want == 3 or want == 4) and type(v) is not float and type(v) is not int:
            raise _Trap(f"{what}: element {i} is {_kind(v)}, not a float")
        return v

    cdef int64_t get_i32(self, int64_t i) except? -1:
        return _w32(<int64_t><uint64_t>(self._get(i, "list.get.i32", 1) & 0xFFFFFFFF))

    cdef int64_t get_i64(self, int64_t i) except? -1:
        return <int64_t><uint64_t>(self._get(i, "list.get.i64", 2) & 0xFFFFFFFFFFFFFFFF)

    cdef double get_f32(self, int64_t i) except? -1.0:
        return <float>self._get(i, "list.get.f32", 3)

    cdef double get_f64(self, int64_t i) except? -1.0:
        return self._get(i, "list.get.f64", 4)

    cdef object get_ref(self, int64_t i):
        self._check(i, "list.get.ref")
        return self.items[i]

    cdef int _set(self, int64_t i, object v, str what, int kind) except -1:
        self._check(i, what)
        if self.type_code != 0 and self.type_code != kind:
            raise _Trap(f"{what}: cannot store into a list<{_LIST_TYPE_NAMES[self.type_code]}>")
        self.items[i] = v
        return 0

    cdef int set_i32(self, int64_t i, int64_t v) except -1:
        return self._set(i, _w32(v), "list.set.i32", 1)

    cdef int set_i64(self, int64_t i, int64_t v) except -1:
        return self._set(i, v, "list.set.i64", 2)

    cdef int set_f32(self, int64_t i, double v) except -1:
        return self._set(i, <double><float>v, "list.set.f32", 3)

    cdef int set_f64(self, int64_t i, double v) except -1:
        return self._set(i, v, "list.set.f64", 4)

    cdef int set_ref(self, int64_t i, object v) except -1:
        return self._set(i, v, "list.set.ref", 5)


cdef str _kind(object v):
    if v is None:
        return "null"
    if type(v) is int:
        return "an integer"
    if type(v) is float:
        return "a float"
    return "a " + type(v).__name__


cdef object _from_python(object v):
    """Python list -> variant VMList (recursively); other values unchanged."""
    if type(v) is list:
        out = VMList()
        (<VMList>out).items = [_from_python(x) for x in <list>v]
        return out
    return v


cdef object _to_python(object v):
    """VMList -> Python list (recursively); other values unchanged."""
    if type(v) is VMList:
        return (<VMList>v).to_list()
    return v


cdef VMList _list(ModuleState st, object o):
    if type(o) is not VMList:
        raise _Trap(f"expected a list, got {_kind(o)}")
    return <VMList>o


cdef object _list_alloc(int32_t type_code, int64_t capacity):
    if capacity < 0:
        raise _Trap(f"list.alloc: negative capacity {capacity}")
    out = VMList()
    (<VMList>out).type_code = type_code
    return out


cdef VMBuffer _buffer(ModuleState st, object o):
    if type(o) is not VMBuffer:
        raise _Trap(f"expected a buffer, got {_kind(o)}")
    return <VMBuffer>o


cdef int _out_of_bounds(VMBuffer b, str op, int64_t offset, int64_t size) except -1:
    raise _Trap(f"{op}: {size} bytes at offset {offset} are out of bounds of a "
                f"{b.length}-byte {_buffer_name(b)}")


cdef inline const char* _buffer_at(ModuleState st, object o, int64_t offset, int64_t size) except NULL:
    """Address of ``size`` readable bytes at ``offset`` of buffer ``o``; traps when out of bounds."""
    cdef VMBuffer b = _buffer(st, o)
    if offset < 0 or offset > b.length - size:
        _out_of_bounds(b, "buffer.load", offset, size)
    return b.data + offset


cdef inline char* _buffer_at_w(ModuleState st, object o, int64_t offset, int64_t size) except NULL:
    """Address of ``size`` writable bytes at ``offset``; traps when out of bounds or read-only."""
    cdef VMBuffer b = _buffer(st, o)
    if not b.writable:
        raise _Trap(f"buffer.store: the {_buffer_name(b)} is read-only")
    if offset < 0 or offset > b.length - size:
        _out_of_bounds(b, "buffer.store", offset, size)
    return b.data + offset
