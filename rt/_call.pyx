# cython: language_level=3
"""The Python call path of ``rt.load`` functions in C: ``f(*arrays)`` with no per-call churn.

``CallPath`` is the C base of :class:`rt.loaded_module.LoadedFunction`. What can be decided
once per signature is decided when the function is looked up: per argument, whether a plain
numpy array of the declared dtype and shape can be imported as is (the device's heap allocator,
the HAL element type, the static dims) and the integer range of scalars; per result, whether
it is a scalar, a boolean or a tensor and the numpy dtype it reads back as. A call then:

* imports each such array without a copy (``HeapAllocator.import_host`` of its data, the array
  kept alive by the buffer) and makes its buffer view in C; anything else (lists, other dtypes,
  strided or read-only arrays, DeviceArray, sub-byte and encoded tensors) takes the Python path
  of ``LoadedFunction._prepare_one``, which has every check and error message;
* runs the export (the VM interpreter, which calls the ``hal`` module's C entries; the GIL is
  released in the dispatches and in every wait);
* wraps tensor results as numpy arrays over the result buffer (the allocation is the array's
  base, so the memory stays mapped while the array lives), copied only when the result shares
  an allocation with an input or a module global — a numpy result never aliases them.

No lock is held around a call: several threads may call one module (or several modules on one
device) at the same time; local-sync gives each calling thread its own queue and local-task
orders submissions on its queue thread. Only calls with ``fuel=`` serialize on the module's
lock (the budget belongs to the module's context).

Source followed: the call path of IREE's Python bindings (``iree.runtime.FunctionInvoker``:
argument packing decided per signature, results wrapped as device arrays / numpy arrays).
"""
cimport numpy as cnp
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport uint32_t, uint64_t, uintptr_t

import numpy as np

from rt.device_array import DeviceArray
from rt.runtime.errors import CheckError, DeviceError, ResourceExhaustedError, RtError
from rt.runtime.hal._buffer cimport Allocation, Buffer
from rt.runtime.hal._buffer_view cimport BufferView, new_view
from rt.runtime.hal.drivers._heap_allocator cimport HeapAllocator
from rt.runtime.hal.element_type import element_type_to_dtype, is_sub_byte
from rt.runtime.hal._buffer import BufferUsage, MemoryType
from rt.runtime.vm._interp import end_held_wakes, hold_wakes

cnp.import_array()

cdef uint32_t _IMPORT_MEMORY = int(MemoryType.DEVICE_LOCAL | MemoryType.HOST_VISIBLE)
cdef uint32_t _IMPORT_USAGE = int(BufferUsage.DEFAULT)
cdef int _NEEDED_FLAGS = cnp.NPY_ARRAY_C_CONTIGUOUS | cnp.NPY_ARRAY_WRITEABLE | cnp.NPY_ARRAY_ALIGNED

cdef enum ArgPath:
    ARG_PYTHON = 0      # LoadedFunction._prepare_one
    ARG_ARRAY = 1       # numpy array of the declared dtype: imported in C
    ARG_FLOAT = 2       # Python float for a floating-point scalar
    ARG_INT = 3         # Python int in range for an integer scalar

cdef enum ResultKind:
    RES_VALUE = 0       # passed through (refs, untyped scalars)
    RES_SCALAR = 1
    RES_BOOL = 2
    RES_TENSOR = 3
    RES_I8 = 4          # i8/si8 and i16/si16 live zero-extended in i32 registers: read back signed
    RES_I16 = 5


def located(error):
    """A CheckError carrying a VM stack, re-raised with the innermost location first."""
    stack = getattr(error, "vm_stack", ())
    if not stack:
        return error
    out = CheckError(f"{stack[0]}: {error.args[0]}")
    out.vm_stack = stack
    return out


def surfaced(error):
    """A device failure whose root cause ran out of memory is a ResourceExhaustedError (as
    IREE's RESOURCE_EXHAUSTED status), with the same message and chain."""
    root = error
    while root.__cause__ is not None:
        root = root.__cause__
    if not isinstance(root, ResourceExhaustedError):
        return error
    out = ResourceExhaustedError(str(error))
    out.__notes__ = list(getattr(error, "__notes__", ()))
    return out


cdef class CallPath:
    """Per-signature call plan of one export (see the module docstring); call it like the export:
    ``f(*args, to_host=True, timeout=None, fuel=None)``."""
    cdef object _fn, _abort, _complete
    cdef list _grefs
    cdef bint _plain
    cdef Py_ssize_t _nargs, _nres
    cdef list _paths, _heaps, _typenums, _shapes, _static, _codes, _lows, _highs
    cdef list _res_kinds

    def _plan(self, function, ref_globals, bint traced, abi, devices, abort, complete=None):
        """Decide the argument and result paths once (called by LoadedFunction.__init__).

        function: the VM function; ref_globals: the module state's live list of ref globals;
        abi: the export's rt.abi.FunctionABI; devices: the module's HAL devices; abort: called
        with the exception when a call fails (the channel provider tells the other ranks);
        complete: None, or a function filling in omitted arguments (the coarse-fences ABI's
        optional wait and signal fences, rt.coarse_fences)."""
        args, results = abi.args, abi.results
        self._fn, self._grefs, self._plain, self._abort = function, ref_globals, not traced, abort
        self._complete = complete
        self._nargs, self._nres = len(args), len(results)
        self._paths, self._heaps, self._typenums, self._shapes, self._static = [], [], [], [], []
        self._codes, self._lows, self._highs = [], [], []
        for arg in args:
            path, heap, typenum, shape, static, code, lo, hi = ARG_PYTHON, None, -1, None, True, 0, 0, 0
            if arg.kind == "tensor" and arg.element is not None and arg.encoding is None \
                    and arg.shape is not None and arg.device < len(devices) \
                    and not is_sub_byte(arg.element_type) \
                    and isinstance(devices[arg.device].allocator, HeapAllocator):
                dtype = element_type_to_dtype(arg.element_type)
                if dtype.num < cnp.NPY_NTYPES_LEGACY:
                    path, heap, typenum = ARG_ARRAY, devices[arg.device].allocator, dtype.num
                    shape, code = tuple(-1 if d is None else d for d in arg.shape), int(arg.element_type)
                    static = all(d is not None for d in arg.shape)
            elif arg.kind == "scalar" and arg.element is not None:
                limits = abi.scalar_range(len(self._paths))
                if limits is None:
                    path = ARG_FLOAT
                else:
                    path, (lo, hi) = ARG_INT, limits
            self._paths.append(path)
            self._heaps.append(heap)
            self._typenums.append(typenum)
            self._shapes.append(shape)
            self._static.append(static)
            self._codes.append(code)
            self._lows.append(lo)
            self._highs.append(hi)
        self._res_kinds = [RES_BOOL if r.kind == "scalar" and r.element == "i1" else
                           RES_I8 if r.kind == "scalar" and r.element in ("i8", "si8") else
                           RES_I16 if r.kind == "scalar" and r.element in ("i16", "si16") else
                           RES_SCALAR if r.kind == "scalar" else
                           RES_TENSOR if r.kind == "tensor" else RES_VALUE for r in results]

    def __call__(self, *args, to_host=True, timeout=None, fuel=None):
        try:
            prepared = self._prepare_c(args)
        except BaseException as e:
            self._abort(e)  # other ranks (MPI) fail their collectives naming this cause now
            raise
        if self._plain and timeout is None and fuel is None:
            values = self._invoke_c(prepared)
        else:
            values = self.invoke(prepared, timeout, fuel)
        return self._convert_c(values, prepared, to_host)

    def prepare(self, *args):
        """Check and convert ``args`` into VM values (buffer views on the argument's device,
        Python numbers); the result can be passed to :meth:`invoke` many times. A rejected
        argument is posted to the other ranks (``abort``) before it is raised, as a failed call is."""
        try:
            return self._prepare_c(args)
        except BaseException as e:
            self._abort(e)
            raise

    def convert_results(self, values, prepared, to_host=True):
        """Raw VM results of :meth:`invoke` -> None, a value or a tuple (numpy or DeviceArray)."""
        return self._convert_c(values, tuple(prepared), to_host)

    def invoke_untimed(self, prepared, hold=True):
        """``invoke(prepared)`` without a timeout or fuel (an SPMD rank's call): straight into
        the VM where the call is not traced, without the Python wrapper's context managers.
        With ``hold`` the rank's thread holds back the wake-ups of the local-task queue threads
        it submits to and runs that work itself when it waits for it (rt.runtime.vm._interp
        ``hold_wakes``): the call waits for its work anyway, and a queue thread's wake-up cost
        a handoff there and back (a simulation's ranks do not hold: its event loop waits for
        the real executors by other means)."""
        before = hold_wakes() if hold else None
        try:
            if self._plain:
                return self._invoke_c(tuple(prepared))
            return self.invoke(prepared)
        finally:
            if hold:
                end_held_wakes(before)

    cdef tuple _prepare_c(self, tuple args):
        cdef Py_ssize_t n = len(args), k
        cdef tuple out
        cdef object value, converted
        cdef int path
        if self._complete is not None:
            args = tuple(self._complete(args))
            n = len(args)
        if n != self._nargs:
            self.abi.check_count(n)
        out = PyTuple_New(n)
        for k in range(n):
            value = args[k]
            path = self._paths[k]
            converted = None
            if path == ARG_ARRAY and type(value) is np.ndarray:
                converted = self._import(k, <cnp.ndarray>value)
            elif path == ARG_FLOAT and type(value) is float:
                converted = value
            elif path == ARG_INT and type(value) is int and self._lows[k] <= value < self._highs[k]:
                converted = value
            if converted is None:
                converted = self._prepare_one(k, value)
            Py_INCREF(converted)
            PyTuple_SET_ITEM(out, k, converted)
        return out

    cdef object _import(self, Py_ssize_t k, cnp.ndarray array):
        """A buffer view over ``array``'s memory, or None when it needs the Python path."""
        cdef tuple shape = self._shapes[k]
        cdef int nd = cnp.PyArray_NDIM(array), d
        cdef cnp.npy_intp* dims = cnp.PyArray_DIMS(array)
        cdef uint64_t nbytes
        if (cnp.PyArray_TYPE(array) != <int>self._typenums[k] or nd != len(shape)
                or (cnp.PyArray_FLAGS(array) & _NEEDED_FLAGS) != _NEEDED_FLAGS
                or not cnp.PyArray_ISNOTSWAPPED(array)):
            return None
        for d in range(nd):
            if <Py_ssize_t>shape[d] >= 0 and dims[d] != <Py_ssize_t>shape[d]:
                return None
        nbytes = cnp.PyArray_NBYTES(array)
        if nbytes == 0:
            return None
        if not self._static[k]:
            shape = tuple([dims[d] for d in range(nd)])
        buffer = (<HeapAllocator>self._heaps[k]).import_host(<char*>cnp.PyArray_DATA(array), nbytes, array,
                                                            _IMPORT_MEMORY, _IMPORT_USAGE)
        return new_view(buffer, shape, <uint32_t>self._codes[k], 0)

    cdef object _invoke_c(self, tuple prepared):
        try:
            return self._fn(*prepared)
        except BaseException as e:
            self._abort(e)
            if isinstance(e, CheckError):
                raise located(e) from None
            if isinstance(e, DeviceError):
                raise surfaced(e) from e.__cause__
            raise

    cdef object _convert_c(self, object values, tuple prepared, bint to_host):
        cdef Py_ssize_t k
        cdef int kind
        cdef list out
        if self._nres == 0:
            return None
        if self._nres == 1:
            return self._result(self._res_kinds[0], values, prepared, to_host)
        out = []
        for k in range(self._nres):
            out.append(self._result(self._res_kinds[k], values[k], prepared, to_host))
        return tuple(out)

    cdef object _result(self, int kind, object value, tuple prepared, bint to_host):
        if kind == RES_BOOL:
            return bool(value)
        if (kind == RES_I8 or kind == RES_I16) and isinstance(value, int):
            bits = 8 if kind == RES_I8 else 16
            value &= (1 << bits) - 1
            return value - (1 << bits) if value >> (bits - 1) else value
        if (kind != RES_TENSOR and kind != RES_VALUE) or not isinstance(value, BufferView):
            return value
        view = <BufferView>value
        if not to_host:
            return DeviceArray(view, view.buffer.device)
        return _to_numpy(view, self._shared(view.buffer.allocation, prepared))

    cdef bint _shared(self, Allocation allocation, tuple prepared):
        """True if ``allocation`` is behind one of the inputs or a ref global of the module."""
        for value in prepared:
            if _allocation_of(value) is allocation:
                return True
        for value in self._grefs:
            if _allocation_of(value) is allocation:
                return True
        return False


cdef object _allocation_of(object value):
    if isinstance(value, BufferView):
        return (<BufferView>value).buffer.allocation
    if isinstance(value, Buffer):
        return (<Buffer>value).allocation
    return None


#: Element type code -> the numpy dtype a result of that type is viewed as, or None when the
#: C path leaves it to ``BufferView.to_numpy`` (sub-byte types, types without a dtype).
cdef dict _result_dtypes = {}


cdef object _result_dtype(uint32_t code):
    dtype = _result_dtypes.get(code, False)
    if dtype is False:
        try:
            dtype = None if is_sub_byte(code) else element_type_to_dtype(code)
        except RtError:
            dtype = None
        _result_dtypes[code] = dtype
    return dtype


cdef object _to_numpy(BufferView view, bint copy):
    """numpy array over ``view``'s buffer (its allocation the base) or a copy of it."""
    cdef Buffer buffer = view.buffer
    cdef object dtype = _result_dtype(view.element_type_code)
    cdef cnp.npy_intp dims[32]
    cdef Py_ssize_t nd = len(view.shape), d
    cdef uint64_t count = 1
    cdef char* data
    if dtype is None or nd > 32:
        return view.to_numpy(copy=copy)
    for d in range(nd):
        dims[d] = view.shape[d]
        count *= <uint64_t>dims[d]
    data = buffer.address()
    if (dtype.num >= cnp.NPY_NTYPES_LEGACY or count * dtype.itemsize > buffer.byte_length
            or (<uintptr_t>data) % dtype.alignment):
        return view.to_numpy(copy=copy)
    array = cnp.PyArray_SimpleNewFromData(<int>nd, dims, dtype.num, data)
    cnp.set_array_base(array, buffer.allocation)
    return array.copy() if copy else array

