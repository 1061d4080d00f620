# pack / unpack: the 2-D tensor.pack / tensor.unpack data movement of IREE's data tiling.
# Included by _ukernels.pyx (after _elementwise.pxi, whose Word fused type it reuses).
#
# Source [S0, S1] (row stride in elements, contiguous rows) <-> packed [O0, O1, T0, T1]
# (outer stride in elements, inner three dimensions contiguous), for 1/2/4/8-byte elements:
#   pack:   packed[a, b, x, y] = src[a * T0 + x, b * T1 + y], or `padding` past the source;
#   unpack: dst[i, j] = packed[i / T0, j / T1, i % T0, j % T1] (padding dropped).
# The flags express tensor.pack's inner_dims_pos / outer_dims_perm for 2-D:
#   FLAG_TRANSPOSE_INNER (inner_dims_pos = [1, 0]): the tile is stored [T1, T0];
#   FLAG_TRANSPOSE_OUTER (outer_dims_perm = [1, 0]): the outer grid is stored [O1, O0].
# out_size0..3 (pack) / in_size0..3 (unpack) are the packed shape as stored, i.e. after these
# permutations. Source: iree_uk_pack / iree_uk_unpack (runtime/src/iree/builtins/ukernel/
# pack.c, unpack.c, exported_bits.h) and their VMVX lowering.

cdef enum:
    _TRANSPOSE_INNER = 0x10000
    _TRANSPOSE_OUTER = 0x20000
FLAG_TRANSPOSE_INNER = _TRANSPOSE_INNER
FLAG_TRANSPOSE_OUTER = _TRANSPOSE_OUTER

ctypedef struct PackGeom:
    int64_t outer0, outer1, tile0, tile1   # logical (source-order) grid and tile sizes
    int64_t l0, l1, l2, l3                 # packed strides of outer0, outer1, tile0, tile1


cdef PackGeom _pack_geometry(int64_t stride0, int64_t size0, int64_t size1, int64_t size2,
                             int64_t size3, uint32_t flags):
    cdef PackGeom g
    g.outer0, g.outer1, g.tile0, g.tile1 = size0, size1, size2, size3
    g.l0, g.l1, g.l2, g.l3 = stride0, size2 * size3, size3, 1
    if flags & _TRANSPOSE_OUTER:
        g.outer0, g.outer1 = g.outer1, g.outer0
        g.l0, g.l1 = g.l1, g.l0
    if flags & _TRANSPOSE_INNER:
        g.tile0, g.tile1 = g.tile1, g.tile0
        g.l2, g.l3 = g.l3, g.l2
    return g


cdef void _pack_2d(Word padding, const Word* src, int64_t ss0, int64_t s0, int64_t s1,
                   Word* dst, const PackGeom* g) noexcept nogil:
    cdef int64_t a, b, x, y, i0, i1
    cdef Word* row
    for a in range(g.outer0):
        for b in range(g.outer1):
            for x in range(g.tile0):
                i0 = a * g.tile0 + x
                row = dst + a * g.l0 + b * g.l1 + x * g.l2
                for y in range(g.tile1):
                    i1 = b * g.tile1 + y
                    row[y * g.l3] = src[i0 * ss0 + i1] if (i0 < s0 and i1 < s1) else padding


cdef void _unpack_2d(const Word* src, const PackGeom* g, Word* dst, int64_t ds0,
                     int64_t d0, int64_t d1) noexcept nogil:
    cdef int64_t i, j
    cdef const Word* base
    for i in range(d0):
        base = src + (i // g.tile0) * g.l0 + (i % g.tile0) * g.l2
        for j in range(d1):
            dst[i * ds0 + j] = base[(j // g.tile1) * g.l1 + (j % g.tile1) * g.l3]


cdef PackGeom _checked_geometry(str kernel, int64_t stride0, int64_t o0, int64_t o1,
                                int64_t t0, int64_t t1, int64_t u0, int64_t u1,
                                uint32_t flags) except *:
    """Geometry of a packed [o0, o1, t0, t1] array covering an unpacked [u0, u1] one."""
    if flags & ~(_TRANSPOSE_INNER | _TRANSPOSE_OUTER):
        raise InvalidArgumentError(
            f"{kernel}: unknown flags {flags:#x}; only FLAG_TRANSPOSE_INNER (0x10000) and "
            f"FLAG_TRANSPOSE_OUTER (0x20000) are defined")
    if min(o0, o1, t0, t1, u0, u1) < 0:
        raise InvalidArgumentError(
            f"{kernel}: sizes must be >= 0, got packed ({o0}, {o1}, {t0}, {t1}) and "
            f"unpacked ({u0}, {u1})")
    _mul_dims(o1, _mul_dims(t0, t1, kernel, "tile size"), kernel, "packed row size")
    cdef PackGeom g = _pack_geometry(stride0, o0, o1, t0, t1, flags)
    if (_mul_dims(g.outer0, g.tile0, kernel, "packed extent of dim 0") < u0
            or _mul_dims(g.outer1, g.tile1, kernel, "packed extent of dim 1") < u1):
        raise InvalidArgumentError(
            f"{kernel}: packed grid {g.outer0}x{g.outer1} of {g.tile0}x{g.tile1} tiles "
            f"(flags {flags:#x}) does not cover the {u0}x{u1} unpacked array; need at least "
            f"ceil({u0}/{g.tile0}) x ceil({u1}/{g.tile1}) tiles")
    return g


def pack(int esize, in_, int64_t in_offset, int64_t in_stride0, out, int64_t out_offset,
         int64_t out_stride0, int64_t in_size0, int64_t in_size1, int64_t out_size0,
         int64_t out_size1, int64_t out_size2, int64_t out_size3, uint64_t padding,
         uint32_t flags):
    """Packs a ``[in_size0, in_size1]`` array into ``[out_size0..3]`` tiles (tensor.pack).

    esize: element width in bytes (1, 2, 4, 8); padding: bit pattern of the padding value
    (low ``esize`` bytes); flags: ``FLAG_TRANSPOSE_INNER`` / ``FLAG_TRANSPOSE_OUTER``.
    Raises ``InvalidArgumentError`` for a bad width or flags, a packed grid that does not
    cover the source, and out-of-bounds, misaligned or read-only views.
    """
    cdef str kernel = _width_kernel("pack", esize)
    cdef PackGeom g = _checked_geometry(kernel, out_stride0, out_size0, out_size1, out_size2,
                                        out_size3, in_size0, in_size1, flags)
    cdef Extent es, ed
    cdef char* src = _view(in_, False, esize, in_offset, in_stride0, 1, in_size0, in_size1,
                           kernel, "in", &es)
    cdef char* dst = _view(out, True, esize, out_offset, out_stride0, 1, out_size0,
                           out_size1 * out_size2 * out_size3, kernel, "out", &ed)
    _check_alias(&ed, &es, False, kernel, "out", "in")
    if out_size0 == 0 or out_size1 * out_size2 * out_size3 == 0:
        return
    with nogil:
        if esize == 1:
            _pack_2d(<uint8_t>padding, <uint8_t*>src, in_stride0, in_size0, in_size1,
                     <uint8_t*>dst, &g)
        elif esize == 2:
            _pack_2d(<uint16_t>padding, <uint16_t*>src, in_stride0, in_size0, in_size1,
                     <uint16_t*>dst, &g)
        elif esize == 4:
            _pack_2d(<uint32_t>padding, <uint32_t*>src, in_stride0, in_size0, in_size1,
                     <uint32_t*>dst, &g)
        else:
            _pack_2d(<uint64_t>padding, <uint64_t*>src, in_stride0, in_size0, in_size1,
                     <uint64_t*>dst, &g)


def unpack(int esize, in_, int64_t in_offset, int64_t in_stride0, out, int64_t out_offset,
           int64_t out_stride0, int64_t in_size0, int64_t in_size1, int64_t in_size2,
           int64_t in_size3, int64_t out_size0, int64_t out_size1, uint32_t flags):
    """Unpacks ``[in_size0..3]`` tiles into a ``[out_size0, out_size1]`` array (tensor.unpack).

    Same layout conventions and errors as ``pack``; tile elements past the output are dropped.
    """
    cdef str kernel = _width_kernel("unpack", esize)
    cdef PackGeom g = _checked_geometry(kernel, in_stride0, in_size0, in_size1, in_size2,
                                        in_size3, out_size0, out_size1, flags)
    cdef Extent es, ed
    cdef char* src = _view(in_, False, esize, in_offset, in_stride0, 1, in_size0,
                           in_size1 * in_size2 * in_size3, kernel, "in", &es)
    cdef char* dst = _view(out, True, esize, out_offset, out_stride0, 1, out_size0, out_size1,
                           kernel, "out", &ed)
    _check_alias(&ed, &es, False, kernel, "out", "in")
    if out_size0 == 0 or out_size1 == 0:
        return
    with nogil:
        if esize == 1:
            _unpack_2d(<uint8_t*>src, &g, <uint8_t*>dst, out_stride0,
                       out_size0, out_size1)
        elif esize == 2:
            _unpack_2d(<uint16_t*>src, &g, <uint16_t*>dst, out_stride0,
                       out_size0, out_size1)
        elif esize == 4:
            _unpack_2d(<uint32_t*>src, &g, <uint32_t*>dst, out_stride0,
                       out_size0, out_size1)
        else:
            _unpack_2d(<uint64_t*>src, &g, <uint64_t*>dst, out_stride0,
                       out_size0, out_size1)
