# Elementwise microkernels over strided 2-D views: binary and unary f32/i32 ops, copy, fill.
# Included by _ukernels.pyx after _ops.pxi (op tags and scalar semantics).

# Contiguous f32 rows run the vectorized loops of elementwise_simd.h (one CPU-specific
# variant picked at load); strided rows the scalar loops, with the same per-element results.
cdef extern from "elementwise_simd.h" nogil:
    void rt_vmvx_exp_f32(float* o, const float* a, int64_t n)
    void rt_vmvx_log_f32(float* o, const float* a, int64_t n)
    void rt_vmvx_tanh_f32(float* o, const float* a, int64_t n)
    void rt_vmvx_add_f32(float* o, const float* a, const float* b, int64_t n)
    void rt_vmvx_sub_f32(float* o, const float* a, const float* b, int64_t n)
    void rt_vmvx_mul_f32(float* o, const float* a, const float* b, int64_t n)
    void rt_vmvx_div_f32(float* o, const float* a, const float* b, int64_t n)
    void rt_vmvx_max_f32(float* o, const float* a, const float* b, int64_t n)
    void rt_vmvx_min_f32(float* o, const float* a, const float* b, int64_t n)


cdef inline bint _binary_f32_row(BinaryF32* tag, float* po, const float* pa, const float* pb,
                                 int64_t n) noexcept nogil:
    """Run a contiguous row with the vectorized loop of ``tag``; False when it has none."""
    cdef bint done = True
    if BinaryF32 is AddF:
        rt_vmvx_add_f32(po, pa, pb, n)
    elif BinaryF32 is SubF:
        rt_vmvx_sub_f32(po, pa, pb, n)
    elif BinaryF32 is MulF:
        rt_vmvx_mul_f32(po, pa, pb, n)
    elif BinaryF32 is DivF:
        rt_vmvx_div_f32(po, pa, pb, n)
    elif BinaryF32 is MaxF:
        rt_vmvx_max_f32(po, pa, pb, n)
    elif BinaryF32 is MinF:
        rt_vmvx_min_f32(po, pa, pb, n)
    else:
        done = False
    return done


cdef inline bint _unary_f32_row(UnaryF32* tag, float* po, const float* pa, int64_t n) noexcept nogil:
    """Run a contiguous row with the vectorized loop of ``tag``; False when it has none."""
    cdef bint done = True
    if UnaryF32 is ExpF:
        rt_vmvx_exp_f32(po, pa, n)
    elif UnaryF32 is LogF:
        rt_vmvx_log_f32(po, pa, n)
    elif UnaryF32 is TanhF:
        rt_vmvx_tanh_f32(po, pa, n)
    else:
        done = False
    return done


# -- 2-D drivers -------------------------------------------------------------------------------
cdef int _binary_f32_2d(BinaryF32* tag, const View2D* o, const View2D* a, const View2D* b,
                        int64_t n0, int64_t n1) noexcept nogil:
    cdef int64_t i, j
    cdef float* po
    cdef const float* pa
    cdef const float* pb
    for i in range(n0):
        po = <float*>o.p + i * o.s0
        pa = <const float*>a.p + i * a.s0
        pb = <const float*>b.p + i * b.s0
        if o.s1 == 1 and a.s1 == 1 and b.s1 == 1:
            if _binary_f32_row(tag, po, pa, pb, n1):
                continue
            for j in range(n1):
                po[j] = _binary_f32(tag, pa[j], pb[j])
        else:
            for j in range(n1):
                po[j * o.s1] = _binary_f32(tag, pa[j * a.s1], pb[j * b.s1])
    return 0


cdef int _binary_i32_2d(BinaryI32* tag, const View2D* o, const View2D* a, const View2D* b,
                        int64_t n0, int64_t n1) noexcept nogil:
    """Returns 1, before storing anything, if a division's divisor holds a zero."""
    cdef int64_t i, j
    cdef int32_t* po
    cdef const int32_t* pa
    cdef const int32_t* pb
    if BinaryI32 is DivSI or BinaryI32 is DivUI or BinaryI32 is RemSI or BinaryI32 is RemUI:
        for i in range(n0):
            pb = <const int32_t*>b.p + i * b.s0
            for j in range(n1):
                if pb[j * b.s1] == 0:
                    return 1
    for i in range(n0):
        po = <int32_t*>o.p + i * o.s0
        pa = <const int32_t*>a.p + i * a.s0
        pb = <const int32_t*>b.p + i * b.s0
        if o.s1 == 1 and a.s1 == 1 and b.s1 == 1:
            for j in range(n1):
                po[j] = _binary_i32(tag, pa[j], pb[j])
        else:
            for j in range(n1):
                po[j * o.s1] = _binary_i32(tag, pa[j * a.s1], pb[j * b.s1])
    return 0


cdef void _unary_f32_2d(UnaryF32* tag, const View2D* o, const View2D* a, int64_t n0,
                        int64_t n1) noexcept nogil:
    cdef int64_t i, j
    cdef float* po
    cdef const float* pa
    for i in range(n0):
        po = <float*>o.p + i * o.s0
        pa = <const float*>a.p + i * a.s0
        if o.s1 == 1 and a.s1 == 1:
            if _unary_f32_row(tag, po, pa, n1):
                continue
            for j in range(n1):
                po[j] = _unary_f32(tag, pa[j])
        else:
            for j in range(n1):
                po[j * o.s1] = _unary_f32(tag, pa[j * a.s1])


cdef void _unary_i32_2d(UnaryI32* tag, const View2D* o, const View2D* a, int64_t n0,
                        int64_t n1) noexcept nogil:
    cdef int64_t i, j
    cdef int32_t* po
    cdef const int32_t* pa
    for i in range(n0):
        po = <int32_t*>o.p + i * o.s0
        pa = <const int32_t*>a.p + i * a.s0
        if o.s1 == 1 and a.s1 == 1:
            for j in range(n1):
                po[j] = _unary_i32(tag, pa[j])
        else:
            for j in range(n1):
                po[j * o.s1] = _unary_i32(tag, pa[j * a.s1])


ctypedef fused Word:
    uint8_t
    uint16_t
    uint32_t
    uint64_t


cdef void _copy_2d(Word* tag, const View2D* o, const View2D* a, int64_t n0,
                   int64_t n1) noexcept nogil:
    cdef int64_t i, j
    cdef Word* po
    cdef const Word* pa
    for i in range(n0):
        po = <Word*>o.p + i * o.s0
        pa = <const Word*>a.p + i * a.s0
        if o.s1 == 1 and a.s1 == 1:
            for j in range(n1):
                po[j] = pa[j]
        else:
            for j in range(n1):
                po[j * o.s1] = pa[j * a.s1]


cdef void _fill_2d(Word value, const View2D* o, int64_t n0, int64_t n1) noexcept nogil:
    cdef int64_t i, j
    cdef Word* po
    for i in range(n0):
        po = <Word*>o.p + i * o.s0
        if o.s1 == 1:
            for j in range(n1):
                po[j] = value
        else:
            for j in range(n1):
                po[j * o.s1] = value


# -- op tables (op index -> specialisation) ----------------------------------------------------
cdef int _run_binary_f32(int op, const View2D* o, const View2D* a, const View2D* b,
                         int64_t n0, int64_t n1) noexcept nogil:
    if op == 0:
        return _binary_f32_2d(<AddF*>NULL, o, a, b, n0, n1)
    elif op == 1:
        return _binary_f32_2d(<SubF*>NULL, o, a, b, n0, n1)
    elif op == 2:
        return _binary_f32_2d(<MulF*>NULL, o, a, b, n0, n1)
    elif op == 3:
        return _binary_f32_2d(<DivF*>NULL, o, a, b, n0, n1)
    elif op == 4:
        return _binary_f32_2d(<MaxF*>NULL, o, a, b, n0, n1)
    elif op == 5:
        return _binary_f32_2d(<MinF*>NULL, o, a, b, n0, n1)
    return _binary_f32_2d(<PowF*>NULL, o, a, b, n0, n1)


cdef int _run_binary_i32(int op, const View2D* o, const View2D* a, const View2D* b,
                         int64_t n0, int64_t n1) noexcept nogil:
    if op == 0:
        return _binary_i32_2d(<AddI*>NULL, o, a, b, n0, n1)
    elif op == 1:
        return _binary_i32_2d(<SubI*>NULL, o, a, b, n0, n1)
    elif op == 2:
        return _binary_i32_2d(<MulI*>NULL, o, a, b, n0, n1)
    elif op == 3:
        return _binary_i32_2d(<DivSI*>NULL, o, a, b, n0, n1)
    elif op == 4:
        return _binary_i32_2d(<DivUI*>NULL, o, a, b, n0, n1)
    elif op == 5:
        return _binary_i32_2d(<RemSI*>NULL, o, a, b, n0, n1)
    elif op == 6:
        return _binary_i32_2d(<RemUI*>NULL, o, a, b, n0, n1)
    elif op == 7:
        return _binary_i32_2d(<AndI*>NULL, o, a, b, n0, n1)
    elif op == 8:
        return _binary_i32_2d(<OrI*>NULL, o, a, b, n0, n1)
    elif op == 9:
        return _binary_i32_2d(<XorI*>NULL, o, a, b, n0, n1)
    elif op == 10:
        return _binary_i32_2d(<ShlI*>NULL, o, a, b, n0, n1)
    elif op == 11:
        return _binary_i32_2d(<ShrSI*>NULL, o, a, b, n0, n1)
    elif op == 12:
        return _binary_i32_2d(<ShrUI*>NULL, o, a, b, n0, n1)
    elif op == 13:
        return _binary_i32_2d(<MaxSI*>NULL, o, a, b, n0, n1)
    elif op == 14:
        return _binary_i32_2d(<MinSI*>NULL, o, a, b, n0, n1)
    elif op == 15:
        return _binary_i32_2d(<MaxUI*>NULL, o, a, b, n0, n1)
    return _binary_i32_2d(<MinUI*>NULL, o, a, b, n0, n1)


cdef void _run_unary_f32(int op, const View2D* o, const View2D* a, int64_t n0,
                         int64_t n1) noexcept nogil:
    if op == 0:
        _unary_f32_2d(<AbsF*>NULL, o, a, n0, n1)
    elif op == 1:
        _unary_f32_2d(<NegF*>NULL, o, a, n0, n1)
    elif op == 2:
        _unary_f32_2d(<ExpF*>NULL, o, a, n0, n1)
    elif op == 3:
        _unary_f32_2d(<LogF*>NULL, o, a, n0, n1)
    elif op == 4:
        _unary_f32_2d(<SqrtF*>NULL, o, a, n0, n1)
    elif op == 5:
        _unary_f32_2d(<RsqrtF*>NULL, o, a, n0, n1)
    elif op == 6:
        _unary_f32_2d(<TanhF*>NULL, o, a, n0, n1)
    elif op == 7:
        _unary_f32_2d(<FloorF*>NULL, o, a, n0, n1)
    elif op == 8:
        _unary_f32_2d(<CeilF*>NULL, o, a, n0, n1)
    elif op == 9:
        _unary_f32_2d(<RoundEvenF*>NULL, o, a, n0, n1)
    elif op == 10:
        _unary_f32_2d(<SinF*>NULL, o, a, n0, n1)
    elif op == 11:
        _unary_f32_2d(<CosF*>NULL, o, a, n0, n1)
    else:
        _unary_f32_2d(<ErfF*>NULL, o, a, n0, n1)


cdef void _run_unary_i32(int op, const View2D* o, const View2D* a, int64_t n0,
                         int64_t n1) noexcept nogil:
    if op == 0:
        _unary_i32_2d(<AbsI*>NULL, o, a, n0, n1)
    elif op == 1:
        _unary_i32_2d(<NegI*>NULL, o, a, n0, n1)
    elif op == 2:
        _unary_i32_2d(<NotI*>NULL, o, a, n0, n1)
    else:
        _unary_i32_2d(<CtlzI*>NULL, o, a, n0, n1)


cdef void _run_copy(int esize, const View2D* o, const View2D* a, int64_t n0,
                    int64_t n1) noexcept nogil:
    if esize == 1:
        _copy_2d(<uint8_t*>NULL, o, a, n0, n1)
    elif esize == 2:
        _copy_2d(<uint16_t*>NULL, o, a, n0, n1)
    elif esize == 4:
        _copy_2d(<uint32_t*>NULL, o, a, n0, n1)
    else:
        _copy_2d(<uint64_t*>NULL, o, a, n0, n1)


cdef void _run_fill(int esize, uint64_t bits, const View2D* o, int64_t n0,
                    int64_t n1) noexcept nogil:
    if esize == 1:
        _fill_2d(<uint8_t>bits, o, n0, n1)
    elif esize == 2:
        _fill_2d(<uint16_t>bits, o, n0, n1)
    elif esize == 4:
        _fill_2d(<uint32_t>bits, o, n0, n1)
    else:
        _fill_2d(<uint64_t>bits, o, n0, n1)


# -- Python entry points (arguments in the order of the vmvx module's imports) ----------------
cdef inline int _op_index(int op, tuple names, str family) except -1:
    if op < 0 or op >= len(names):
        raise InvalidArgumentError(f"vmvx {family}: op index {op} is not in [0, {len(names)})")
    return op


def binary_2d(bint i32, int op, lhs, int64_t lhs_offset, int64_t lhs_stride0,
              int64_t lhs_stride1, rhs, int64_t rhs_offset, int64_t rhs_stride0,
              int64_t rhs_stride1, out, int64_t out_offset, int64_t out_stride0,
              int64_t out_stride1, int64_t size0, int64_t size1):
    """out[i, j] = op(lhs[i, j], rhs[i, j]) over ``size0 x size1`` strided views.

    i32: False for the f32 table (``BINARY_F32_OPS``), True for i32 (``BINARY_I32_OPS``);
    op: index into that table. Each operand is a ``BindingBuffer`` with an element offset and
    element strides (4-byte elements). Raises ``InvalidArgumentError`` for an out-of-bounds,
    misaligned or read-only view, or an i32 division whose divisor holds a zero.
    Source: iree_uk_x32b_2d ukernels (runtime/src/iree/builtins/ukernel/elementwise.c).
    """
    cdef str kernel = (_BINARY_I32_KERNELS[_op_index(op, BINARY_I32_OPS, "binary i32")] if i32
                       else _BINARY_F32_KERNELS[_op_index(op, BINARY_F32_OPS, "binary f32")])
    cdef View2D a, b, o
    cdef Extent ea, eb, eo
    cdef int status
    a.p = _view(lhs, False, 4, lhs_offset, lhs_stride0, lhs_stride1, size0, size1, kernel, "lhs", &ea)
    a.s0, a.s1 = lhs_stride0, lhs_stride1
    b.p = _view(rhs, False, 4, rhs_offset, rhs_stride0, rhs_stride1, size0, size1, kernel, "rhs", &eb)
    b.s0, b.s1 = rhs_stride0, rhs_stride1
    o.p = _view(out, True, 4, out_offset, out_stride0, out_stride1, size0, size1, kernel, "out", &eo)
    o.s0, o.s1 = out_stride0, out_stride1
    _check_alias(&eo, &ea, True, kernel, "out", "lhs")
    _check_alias(&eo, &eb, True, kernel, "out", "rhs")
    if size0 * size1 >= _NOGIL_ELEMENTS:
        with nogil:
            status = (_run_binary_i32(op, &o, &a, &b, size0, size1) if i32
                      else _run_binary_f32(op, &o, &a, &b, size0, size1))
    else:
        status = (_run_binary_i32(op, &o, &a, &b, size0, size1) if i32
                  else _run_binary_f32(op, &o, &a, &b, size0, size1))
    if status:
        raise InvalidArgumentError(
            f"{kernel}: integer division by zero (operand 'rhs' holds a 0 divisor); "
            f"nothing was written")


def unary_2d(bint i32, int op, in_, int64_t in_offset, int64_t in_stride0, int64_t in_stride1,
             out, int64_t out_offset, int64_t out_stride0, int64_t out_stride1, int64_t size0,
             int64_t size1):
    """out[i, j] = op(in[i, j]) over ``size0 x size1`` strided views of 4-byte elements.

    i32/op select ``UNARY_I32_OPS`` or ``UNARY_F32_OPS``. Raises ``InvalidArgumentError`` for
    an out-of-bounds, misaligned or read-only view.
    Source: iree_uk_x32u_2d ukernels (runtime/src/iree/builtins/ukernel/elementwise.c).
    """
    cdef str kernel = (_UNARY_I32_KERNELS[_op_index(op, UNARY_I32_OPS, "unary i32")] if i32
                       else _UNARY_F32_KERNELS[_op_index(op, UNARY_F32_OPS, "unary f32")])
    cdef View2D a, o
    cdef Extent ea, eo
    a.p = _view(in_, False, 4, in_offset, in_stride0, in_stride1, size0, size1, kernel, "in", &ea)
    a.s0, a.s1 = in_stride0, in_stride1
    o.p = _view(out, True, 4, out_offset, out_stride0, out_stride1, size0, size1, kernel, "out", &eo)
    o.s0, o.s1 = out_stride0, out_stride1
    _check_alias(&eo, &ea, True, kernel, "out", "in")
    if size0 * size1 >= _NOGIL_ELEMENTS:
        with nogil:
            if i32:
                _run_unary_i32(op, &o, &a, size0, size1)
            else:
                _run_unary_f32(op, &o, &a, size0, size1)
    elif i32:
        _run_unary_i32(op, &o, &a, size0, size1)
    else:
        _run_unary_f32(op, &o, &a, size0, size1)


cdef inline str _width_kernel(str family, int esize):
    """Kernel name ``vmvx.<family>.x<bits>`` of a width-generic kernel, validating the width."""
    if esize != 1 and esize != 2 and esize != 4 and esize != 8:
        raise InvalidArgumentError(
            f"vmvx.{family}: element width {esize} bytes is not one of 1, 2, 4, 8")
    return f"vmvx.{family}.x{esize * 8}"


def copy_2d(int esize, in_, int64_t in_offset, int64_t in_stride0, int64_t in_stride1, out,
            int64_t out_offset, int64_t out_stride0, int64_t out_stride1, int64_t size0,
            int64_t size1):
    """out[i, j] = in[i, j] for ``esize``-byte elements (1, 2, 4 or 8) over strided views.

    Raises ``InvalidArgumentError`` for a bad width or an out-of-bounds, misaligned or
    read-only view. Source: iree_vmvx_copy2d_x* (runtime/src/iree/modules/vmvx/module.c).
    """
    cdef str kernel = _width_kernel("copy.2d", esize)
    cdef View2D a, o
    cdef Extent ea, eo
    a.p = _view(in_, False, esize, in_offset, in_stride0, in_stride1, size0, size1, kernel, "in",
                &ea)
    a.s0, a.s1 = in_stride0, in_stride1
    o.p = _view(out, True, esize, out_offset, out_stride0, out_stride1, size0, size1, kernel,
                "out", &eo)
    o.s0, o.s1 = out_stride0, out_stride1
    _check_alias(&eo, &ea, True, kernel, "out", "in")
    if size0 * size1 >= _NOGIL_ELEMENTS:
        with nogil:
            _run_copy(esize, &o, &a, size0, size1)
    else:
        _run_copy(esize, &o, &a, size0, size1)


def fill_2d(int esize, uint64_t bits, out, int64_t out_offset, int64_t out_stride0,
            int64_t out_stride1, int64_t size0, int64_t size1):
    """out[i, j] = the low ``esize`` bytes of ``bits`` (an unsigned bit pattern).

    Raises ``InvalidArgumentError`` for a bad width or an out-of-bounds, misaligned or
    read-only view. Source: iree_vmvx_fill2d_x32 (runtime/src/iree/modules/vmvx/module.c).
    """
    cdef str kernel = _width_kernel("fill.2d", esize)
    cdef View2D o
    o.p = _view(out, True, esize, out_offset, out_stride0, out_stride1, size0, size1, kernel,
                "out")
    o.s0, o.s1 = out_stride0, out_stride1
    if size0 * size1 >= _NOGIL_ELEMENTS:
        with nogil:
            _run_fill(esize, bits, &o, size0, size1)
    else:
        _run_fill(esize, bits, &o, size0, size1)
