# Reductions along the inner dimension of a strided 2-D view: sum, max, min for f32 and i32.
# Included by _ukernels.pyx (after _elementwise.pxi, whose op tags and scalar semantics the
# fold reuses: sum folds with add, max/min with maximumf/minimumf or signed max/min).
#
# out[i] = fold(op, init, in[i, 0], in[i, 1], ..., in[i, size1 - 1]), left to right, where init
# is op's identity (0, -inf / INT32_MIN, +inf / INT32_MAX) or, with FLAG_ACCUMULATE, out[i].
# The strict left-to-right order makes the f32 sum reproducible (no reassociation), which is
# what a reference device needs. Modelled on linalg.reduce as IREE's VMVX path lowers it.

from libc.math cimport INFINITY
from libc.stdint cimport INT32_MAX

REDUCE_OPS = ("sum", "max", "min")
# Bit 0 of a ukernel's flags (IREE_UK_FLAG_ACCUMULATE in runtime/src/iree/builtins/ukernel/
# exported_bits.h): combine with the existing output instead of overwriting it.
cdef enum:
    _ACCUMULATE = 1
FLAG_ACCUMULATE = _ACCUMULATE

cdef tuple _REDUCE_F32_KERNELS = tuple(f"vmvx.reduce.{n}.2d.f32" for n in REDUCE_OPS)
cdef tuple _REDUCE_I32_KERNELS = tuple(f"vmvx.reduce.{n}.2d.i32" for n in REDUCE_OPS)


cdef void _reduce_f32_2d(BinaryF32* tag, float init, bint accumulate, float* o, int64_t os0,
                         const View2D* a, int64_t n0, int64_t n1) noexcept nogil:
    cdef int64_t i, j
    cdef float acc
    cdef const float* pa
    for i in range(n0):
        pa = <const float*>a.p + i * a.s0
        acc = o[i * os0] if accumulate else init
        for j in range(n1):
            acc = _binary_f32(tag, acc, pa[j * a.s1])
        o[i * os0] = acc


cdef void _reduce_i32_2d(BinaryI32* tag, int32_t init, bint accumulate, int32_t* o,
                         int64_t os0, const View2D* a, int64_t n0, int64_t n1) noexcept nogil:
    cdef int64_t i, j
    cdef int32_t acc
    cdef const int32_t* pa
    for i in range(n0):
        pa = <const int32_t*>a.p + i * a.s0
        acc = o[i * os0] if accumulate else init
        for j in range(n1):
            acc = _binary_i32(tag, acc, pa[j * a.s1])
        o[i * os0] = acc


cdef void _run_reduce(bint i32, int op, bint accumulate, char* o, int64_t os0, const View2D* a,
                      int64_t n0, int64_t n1) noexcept nogil:
    if i32:
        if op == 0:
            _reduce_i32_2d(<AddI*>NULL, 0, accumulate, <int32_t*>o, os0, a, n0, n1)
        elif op == 1:
            _reduce_i32_2d(<MaxSI*>NULL, INT32_MIN, accumulate, <int32_t*>o, os0, a, n0, n1)
        else:
            _reduce_i32_2d(<MinSI*>NULL, INT32_MAX, accumulate, <int32_t*>o, os0, a, n0, n1)
    elif op == 0:
        _reduce_f32_2d(<AddF*>NULL, 0.0, accumulate, <float*>o, os0, a, n0, n1)
    elif op == 1:
        _reduce_f32_2d(<MaxF*>NULL, -INFINITY, accumulate, <float*>o, os0, a, n0, n1)
    else:
        _reduce_f32_2d(<MinF*>NULL, INFINITY, accumulate, <float*>o, os0, a, n0, n1)


def reduce_2d(bint i32, int op, in_, int64_t in_offset, int64_t in_stride0,
              int64_t in_stride1, out, int64_t out_offset, int64_t out_stride0, int64_t size0,
              int64_t size1, uint32_t flags):
    """out[i] = reduce(op, in[i, :]) for a ``size0 x size1`` view; ``out`` is a strided vector.

    i32: False for f32, True for i32 (4-byte elements); op indexes ``REDUCE_OPS``; flags may
    hold ``FLAG_ACCUMULATE``. Raises ``InvalidArgumentError`` for unknown flags or an
    out-of-bounds, misaligned or read-only view.
    """
    cdef tuple names = _REDUCE_I32_KERNELS if i32 else _REDUCE_F32_KERNELS
    cdef str kernel = names[_op_index(op, REDUCE_OPS, "reduce")]
    cdef View2D a
    cdef Extent ea, eo
    cdef char* o
    if flags & ~_ACCUMULATE:
        raise InvalidArgumentError(
            f"{kernel}: unknown flags {flags:#x}; only FLAG_ACCUMULATE (0x1) is defined")
    a.p = _view(in_, False, 4, in_offset, in_stride0, in_stride1, size0, size1, kernel, "in", &ea)
    a.s0, a.s1 = in_stride0, in_stride1
    o = _view(out, True, 4, out_offset, out_stride0, 1, size0, 1, kernel, "out", &eo)
    _check_alias(&eo, &ea, False, kernel, "out", "in")
    if size0 == 0:
        return
    if size0 * size1 >= _NOGIL_ELEMENTS:
        with nogil:
            _run_reduce(i32, op, flags & _ACCUMULATE, o, out_stride0, &a, size0, size1)
    else:
        _run_reduce(i32, op, flags & _ACCUMULATE, o, out_stride0, &a, size0, size1)
