# mmt4d: matmul of data-tiled operands, the ukernel behind IREE's data tiling.
# Included by _ukernels.pyx.
#
#   lhs [M, K, M0, K0], rhs [N, K, N0, K0], out [M, N, M0, N0] (all row-major inside a row of
#   the outer dimension, which has its own stride in elements):
#   out[m, n, m0, n0] (+)= sum over k, k0 of lhs[m, k, m0, k0] * rhs[n, k, n0, k0]
#
# Types: f32 x f32 -> f32 and i8 x i8 -> i32 (sign-extended products, sums wrap modulo 2^32).
# Each output element accumulates in (k, k0) order, so f32 results are reproducible.
# Source: iree_uk_mmt4d (runtime/src/iree/builtins/ukernel/mmt4d.h, mmt4d_tile.c) and
# iree_vmvx_mmt4d (runtime/src/iree/modules/vmvx/module.c), IREE_UK_FLAG_ACCUMULATE = 1.

from libc.string cimport memset

MMT4D_TYPES = ("f32f32f32", "i8i8i32")
cdef tuple _MMT4D_KERNELS = tuple(f"vmvx.mmt4d.{t}" for t in MMT4D_TYPES)


cdef void _mmt4d_f32(const float* lhs, int64_t ls, const float* rhs, int64_t rs, float* out,
                     int64_t os, int64_t M, int64_t N, int64_t K, int64_t M0, int64_t N0,
                     int64_t K0, bint accumulate) noexcept nogil:
    cdef int64_t m, n, k, m0, k0, n0
    cdef float* tile
    cdef float* orow
    cdef const float* lt
    cdef const float* rt
    cdef float av
    for m in range(M):
        for n in range(N):
            tile = out + m * os + n * M0 * N0
            if not accumulate:
                memset(tile, 0, M0 * N0 * sizeof(float))
            for k in range(K):
                lt = lhs + m * ls + k * M0 * K0
                rt = rhs + n * rs + k * N0 * K0
                for m0 in range(M0):
                    orow = tile + m0 * N0
                    for k0 in range(K0):
                        av = lt[m0 * K0 + k0]
                        for n0 in range(N0):
                            orow[n0] = orow[n0] + av * rt[n0 * K0 + k0]


cdef void _mmt4d_i8(const int8_t* lhs, int64_t ls, const int8_t* rhs, int64_t rs,
                    int32_t* out, int64_t os, int64_t M, int64_t N, int64_t K, int64_t M0,
                    int64_t N0, int64_t K0, bint accumulate) noexcept nogil:
    cdef int64_t m, n, k, m0, k0, n0
    cdef int32_t* tile
    cdef int32_t* orow
    cdef const int8_t* lt
    cdef const int8_t* rt
    cdef int32_t av
    for m in range(M):
        for n in range(N):
            tile = out + m * os + n * M0 * N0
            if not accumulate:
                memset(tile, 0, M0 * N0 * sizeof(int32_t))
            for k in range(K):
                lt = lhs + m * ls + k * M0 * K0
                rt = rhs + n * rs + k * N0 * K0
                for m0 in range(M0):
                    orow = tile + m0 * N0
                    for k0 in range(K0):
                        av = lt[m0 * K0 + k0]
                        for n0 in range(N0):
                            orow[n0] = <int32_t>(<uint32_t>orow[n0]
                                                 + <uint32_t>(av * <int32_t>rt[n0 * K0 + k0]))


def mmt4d(int type_index, lhs, int64_t lhs_offset, int64_t lhs_stride0, rhs, int64_t rhs_offset,
          int64_t rhs_stride0, out, int64_t out_offset, int64_t out_stride0, int64_t M,
          int64_t N, int64_t K, int32_t M0, int32_t N0, int32_t K0, uint32_t flags):
    """Tiled matmul ``out[M, N, M0, N0] (+)= lhs[M, K, M0, K0] . rhs[N, K, N0, K0]^T``.

    type_index: index into ``MMT4D_TYPES`` (0: f32 operands and result; 1: i8 operands,
    i32 result). Offsets and the outer strides ``*_stride0`` count elements; the inner three
    dimensions are contiguous. flags: 0 (overwrite) or ``FLAG_ACCUMULATE``. Raises
    ``InvalidArgumentError`` for a bad type, unknown flags, negative or oversized dimensions
    and out-of-bounds, misaligned or read-only views.
    """
    cdef str kernel = _MMT4D_KERNELS[_op_index(type_index, MMT4D_TYPES, "mmt4d")]
    cdef int64_t in_size = 4 if type_index == 0 else 1
    cdef int64_t lhs_row, rhs_row, out_row
    cdef char* l
    cdef char* r
    cdef char* o
    cdef bint accumulate = flags & _ACCUMULATE
    cdef Extent el, er, eo
    if flags & ~_ACCUMULATE:
        raise InvalidArgumentError(
            f"{kernel}: unknown flags {flags:#x}; only FLAG_ACCUMULATE (0x1) is defined")
    if M < 0 or N < 0 or K < 0 or M0 < 0 or N0 < 0 or K0 < 0:
        raise InvalidArgumentError(
            f"{kernel}: dimensions must be >= 0, got M={M} N={N} K={K} M0={M0} N0={N0} K0={K0}")
    lhs_row = _mul_dims(K, _mul_dims(M0, K0, kernel, "M0 * K0"), kernel, "K * M0 * K0")
    rhs_row = _mul_dims(K, _mul_dims(N0, K0, kernel, "N0 * K0"), kernel, "K * N0 * K0")
    out_row = _mul_dims(N, _mul_dims(M0, N0, kernel, "M0 * N0"), kernel, "N * M0 * N0")
    l = _view(lhs, False, in_size, lhs_offset, lhs_stride0, 1, M, lhs_row, kernel, "lhs", &el)
    r = _view(rhs, False, in_size, rhs_offset, rhs_stride0, 1, N, rhs_row, kernel, "rhs", &er)
    o = _view(out, True, 4, out_offset, out_stride0, 1, M, out_row, kernel, "out", &eo)
    _check_alias(&eo, &el, False, kernel, "out", "lhs")
    _check_alias(&eo, &er, False, kernel, "out", "rhs")
    if M == 0 or out_row == 0:
        return
    if lhs_row == 0 or rhs_row == 0:
        K = 0
    with nogil:
        if type_index == 0:
            _mmt4d_f32(<const float*>l, lhs_stride0, <const float*>r, rhs_stride0, <float*>o,
                       out_stride0, M, N, K, M0, N0, K0, accumulate)
        else:
            _mmt4d_i8(<const int8_t*>l, lhs_stride0, <const int8_t*>r, rhs_stride0,
                      <int32_t*>o, out_stride0, M, N, K, M0, N0, K0, accumulate)
