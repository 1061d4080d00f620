# matmul: a plain row-major matmul over strided 2-D views. IREE's vmvx has no such kernel (it
# relies on data tiling to reach mmt4d); rt adds it so that untiled linalg.matmul / matvec /
# conv-as-contraction dispatches do not crawl through scalar bytecode. Included by _ukernels.pyx.
#
#   out[i, j] (+)= sum over k of lhs[i, k] * rhs[k, j]     (0 <= i < M, 0 <= j < N, 0 <= k < K)
#
# Types: f32 x f32 -> f32 and i32 x i32 -> i32 (products and sums wrap modulo 2^32). Each
# output element accumulates in k order (lhs[i, 0] * rhs[0, j] first), so results are
# reproducible; the loop nest is i, k, j so the inner loop streams rows of rhs and out.

MATMUL_TYPES = ("f32f32f32", "i32i32i32")
cdef tuple _MATMUL_KERNELS = tuple(f"vmvx.matmul.{t}" for t in MATMUL_TYPES)


cdef void _matmul_f32(const View2D* a, const View2D* b, const View2D* o, int64_t M, int64_t N,
                      int64_t K, bint accumulate) noexcept nogil:
    cdef int64_t i, j, k
    cdef float* orow
    cdef const float* brow
    cdef float av
    for i in range(M):
        orow = <float*>o.p + i * o.s0
        if not accumulate:
            for j in range(N):
                orow[j * o.s1] = 0.0
        for k in range(K):
            av = (<const float*>a.p)[i * a.s0 + k * a.s1]
            brow = <const float*>b.p + k * b.s0
            if o.s1 == 1 and b.s1 == 1:
                for j in range(N):
                    orow[j] = orow[j] + av * brow[j]
            else:
                for j in range(N):
                    orow[j * o.s1] = orow[j * o.s1] + av * brow[j * b.s1]


cdef void _matmul_i32(const View2D* a, const View2D* b, const View2D* o, int64_t M, int64_t N,
                      int64_t K, bint accumulate) noexcept nogil:
    cdef int64_t i, j, k
    cdef uint32_t* orow
    cdef const uint32_t* brow
    cdef uint32_t av
    for i in range(M):
        orow = <uint32_t*>o.p + i * o.s0
        if not accumulate:
            for j in range(N):
                orow[j * o.s1] = 0
        for k in range(K):
            av = (<const uint32_t*>a.p)[i * a.s0 + k * a.s1]
            brow = <const uint32_t*>b.p + k * b.s0
            if o.s1 == 1 and b.s1 == 1:
                for j in range(N):
                    orow[j] = orow[j] + av * brow[j]
            else:
                for j in range(N):
                    orow[j * o.s1] = orow[j * o.s1] + av * brow[j * b.s1]


def matmul(int type_index, lhs, int64_t lhs_offset, int64_t lhs_stride0, int64_t lhs_stride1,
           rhs, int64_t rhs_offset, int64_t rhs_stride0, int64_t rhs_stride1, out,
           int64_t out_offset, int64_t out_stride0, int64_t out_stride1, int64_t M, int64_t N,
           int64_t K, uint32_t flags):
    """``out[M, N] (+)= lhs[M, K] . rhs[K, N]`` over strided views (element offsets/strides).

    type_index: index into ``MATMUL_TYPES`` (0: f32, 1: i32, 4-byte elements); flags: 0
    (overwrite) or ``FLAG_ACCUMULATE``. Raises ``InvalidArgumentError`` for a bad type,
    unknown flags, negative or oversized sizes and out-of-bounds, misaligned or read-only
    views (checked before anything is written).
    """
    cdef str kernel = _MATMUL_KERNELS[_op_index(type_index, MATMUL_TYPES, "matmul")]
    cdef View2D a, b, o
    cdef Extent ea, eb, eo
    cdef bint accumulate = flags & _ACCUMULATE
    if flags & ~_ACCUMULATE:
        raise InvalidArgumentError(
            f"{kernel}: unknown flags {flags:#x}; only FLAG_ACCUMULATE (0x1) is defined")
    if M < 0 or N < 0 or K < 0:
        raise InvalidArgumentError(f"{kernel}: sizes must be >= 0, got M={M} N={N} K={K}")
    if K > 0:
        a.p = _view(lhs, False, 4, lhs_offset, lhs_stride0, lhs_stride1, M, K, kernel, "lhs", &ea)
        b.p = _view(rhs, False, 4, rhs_offset, rhs_stride0, rhs_stride1, K, N, kernel, "rhs", &eb)
    a.s0, a.s1, b.s0, b.s1 = lhs_stride0, lhs_stride1, rhs_stride0, rhs_stride1
    o.p = _view(out, True, 4, out_offset, out_stride0, out_stride1, M, N, kernel, "out", &eo)
    o.s0, o.s1 = out_stride0, out_stride1
    if K > 0:
        _check_alias(&eo, &ea, False, kernel, "out", "lhs")
        _check_alias(&eo, &eb, False, kernel, "out", "rhs")
    if M == 0 or N == 0:
        return
    if M * N * K >= _NOGIL_ELEMENTS:
        with nogil:
            if type_index == 0:
                _matmul_f32(&a, &b, &o, M, N, K, accumulate)
            else:
                _matmul_i32(&a, &b, &o, M, N, K, accumulate)
    elif type_index == 0:
        _matmul_f32(&a, &b, &o, M, N, K, accumulate)
    else:
        _matmul_i32(&a, &b, &o, M, N, K, accumulate)
