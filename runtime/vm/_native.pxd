# The C calling convention of native module functions (see _native.pyx).
from cpython.list cimport PyList_GET_ITEM
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t

ctypedef struct ImportCall:
    int64_t* i              # the caller's integer registers (i32 kept sign-extended)
    double* f               # the caller's float registers
    PyObject* r             # the caller's ref registers (a list; None is null)
    const int32_t* args     # argument registers in signature order, variadic spans flattened
    const int32_t* spans    # how many times each variadic span repeats, in order
    const int32_t* results  # result registers
    int32_t nargs
    int32_t nresults

ctypedef int (*import_fn)(object state, ImportCall* call) except -1


cdef class NativeFunction:
    cdef import_fn fn
    cdef object state
    cdef readonly str name


cdef NativeFunction native_function(str name, import_fn fn, object state)


cdef inline object ref_arg(ImportCall* c, Py_ssize_t k):
    return <object>PyList_GET_ITEM(<object>c.r, c.args[k])


cdef inline int64_t int_arg(ImportCall* c, Py_ssize_t k) noexcept:
    return c.i[c.args[k]]


cdef inline double float_arg(ImportCall* c, Py_ssize_t k) noexcept:
    return c.f[c.args[k]]


cdef inline int set_ref(ImportCall* c, Py_ssize_t k, object value) except -1:
    (<list><object>c.r)[c.results[k]] = value
    return 0


cdef inline void set_i32(ImportCall* c, Py_ssize_t k, int32_t value) noexcept:
    c.i[c.results[k]] = <int64_t>value


cdef inline void set_i64(ImportCall* c, Py_ssize_t k, int64_t value) noexcept:
    c.i[c.results[k]] = value
