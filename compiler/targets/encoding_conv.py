"""Data tiling of convolutions: the filter packed along its output-channel dim.

A conv encoding (``op_type = conv``) is set on operand 1, the filter, of a convolution with
one output-channel loop F (``linalg.conv_2d_nhwc_hwcf``, ``conv_2d_nchw_fchw`` and the grouped
``conv_2d_ngchw_gfchw``, ``conv_2d_ngchw_fgchw``, ``conv_2d_nhwgc_gfhwc``, whose group loop G the
input, filter and output share; its ``user_indexing_maps`` are the op's input, filter and
output maps). The input and the output
keep their plain layouts: the conv runs directly on them, over the packed filter, with a
register tile of output pixels x output channels as the mmt4d kernel's M0 x N0 tile.

The filter is packed by ``F0`` along F, the tile's channel extent, F outermost::

    conv_2d_nhwc_hwcf  filter [KH, KW, C, F] -> [F1, KH, KW, C, F0]   (innerDimsPos = [3],
                       innerTileSizes = [F0], outerDimsPerm = [3, 0, 1, 2])
    conv_2d_nchw_fchw  filter [F, C, KH, KW] -> [F1, C, KH, KW, F0]   (innerDimsPos = [0],
                       innerTileSizes = [F0], outerDimsPerm = [0, 1, 2, 3])
    conv_2d_ngchw_gfchw  filter [G, F, C, KH, KW] -> [F1, G, C, KH, KW, F0]  (innerDimsPos = [1],
                       innerTileSizes = [F0], outerDimsPerm = [1, 0, 2, 3, 4])

so the F0 channels a tile needs for one (kh, kw, c) step are contiguous, and every F1 block
reads one contiguous panel. F0 divides F (no padding: the conv's output keeps its plain
layout): channels-last outputs (F contiguous in the output, vectorized) take the largest of
4, 2 or 1 native vectors of f32 lanes, else 8, 4, 2, 1 channels, that divides F;
channels-first outputs (pixels vectorized, F broadcast) take 8, 4, 2 or 1 rows; vmvx takes 8,
4, 2 or 1.

Depthwise convolutions (the channel loop is in the input, the filter and the output) have no
output-channel loop to pack and are not data tiled: ``conv_dims`` rejects them.

Source: the direct convolution over packed filters of IREE's CPU conv pipeline
(``LLVMCPU/KernelDispatch.cpp`` conv tile sizes) and oneDNN's blocked ``OIhw16o`` weight
formats; the EncodingInfo form is IREE's MaterializeEncodingInfo.
"""
from dataclasses import dataclass

from xdsl.ir.affine import AffineDimExpr

from rt.runtime.errors import UnimplementedError

#: The named convolutions data tiling packs the filter of (one output-channel loop each; the
#: grouped ones keep their group loop in the input, the filter and the output).
PACKED_CONV_OPS = ("conv_2d_nhwc_hwcf", "conv_2d_nchw_fchw", "conv_2d_ngchw_gfchw", "conv_2d_ngchw_fgchw",
                   "conv_2d_nhwgc_gfhwc")
#: Filter tile candidates (F0), widest first, for vmvx and for channels-first outputs.
ROW_TILES = (8, 4, 2, 1)


@dataclass(frozen=True)
class ConvDims:
    """The loops of a conv encoding: ``f`` the output-channel loop, ``filter_loops`` the loop
    of each filter dim, ``channels_last`` whether F is the output's innermost dim, ``f_size``
    its static extent (None when dynamic or unrecorded)."""

    f: int
    filter_loops: tuple
    channels_last: bool
    f_size: object


def _loops(expr):
    """Loop dims an affine expression mentions."""
    if isinstance(expr, AffineDimExpr):
        return {expr.position}
    found = set()
    for attr in ("lhs", "rhs"):
        sub = getattr(expr, attr, None)
        if sub is not None:
            found |= _loops(sub)
    return found


def conv_dims(encoding):
    """The ConvDims of conv ``encoding``; UnimplementedError unless the filter and output maps
    are projected permutations sharing exactly one loop (F) that the input does not use."""
    maps = [m.data for m in encoding.user_indexing_maps.data]
    if len(maps) != 3:
        raise UnimplementedError(f"encoding {encoding}: expected user_indexing_maps for the "
                                 f"input, filter and output, got {len(maps)} maps")
    inp, flt, out = maps
    for m in (flt, out):
        if not all(isinstance(r, AffineDimExpr) for r in m.results):
            raise UnimplementedError(f"encoding {encoding}: filter/output map {m} is not a "
                                     f"projected permutation")
    flt_loops = tuple(r.position for r in flt.results)
    out_loops = tuple(r.position for r in out.results)
    used = set()
    for r in inp.results:
        used |= _loops(r)
    shared = (set(flt_loops) & set(out_loops)) - used
    if len(shared) != 1:
        raise UnimplementedError(f"encoding {encoding}: data tiling packs convolutions with one "
                                 f"output-channel loop (depthwise convolutions are not packed)")
    f = shared.pop()
    sizes = encoding.sizes
    f_size = sizes[f] if sizes is not None and f < len(sizes) else None
    return ConvDims(f, flt_loops, out_loops[-1] == f, f_size)


def filter_tile(encoding, vector_lanes):
    """F0 for conv ``encoding``: ``vector_lanes`` f32 lanes per native vector on llvm-cpu
    (None for vmvx). UnimplementedError when F is dynamic."""
    dims = conv_dims(encoding)
    if dims.f_size is None:
        raise UnimplementedError(f"encoding {encoding}: conv data tiling needs a static "
                                 f"output-channel count")
    if vector_lanes is None or not dims.channels_last:
        candidates = ROW_TILES
    else:
        candidates = (4 * vector_lanes, 2 * vector_lanes, vector_lanes) + ROW_TILES
    return next(t for t in candidates if dims.f_size % t == 0)


def filter_info(encoding, f0):
    """The EncodingInfo packing the filter of conv ``encoding`` by ``f0`` along F."""
    from rt.compiler.targets.encoding import EncodingInfo

    if encoding.index != 1:
        raise UnimplementedError(f"encoding {encoding}: conv data tiling packs the filter "
                                 f"(operand_index = 1) only")
    dims = conv_dims(encoding)
    pos = dims.filter_loops.index(dims.f)
    rest = tuple(k for k in range(len(dims.filter_loops)) if k != pos)
    return EncodingInfo((pos,), (f0,), (pos,) + rest)
