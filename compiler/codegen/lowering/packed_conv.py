"""A convolution over a packed filter as a ``linalg.generic`` (conv data tiling).

The dispatch lowering materializes a conv whose filter carries a conv encoding
(``rt.compiler.targets.encoding_conv``) as a generic over the packed filter: the output-channel
loop F splits into ``f1`` (the packed filter's outer F dim) and ``f0`` (its inner tile), the
output indexes channel ``f1 * F0 + f0`` (F0 divides F, so nothing is padded), and the input
map and the multiply-add body stay the conv's own. For conv_2d_nhwc_hwcf with F0 = 16::

    linalg.conv_2d_nhwc_hwcf {strides = [s, s], dilations = [d, d]}
        ins(%in, %w : tensor<NxHxWxC>, tensor<KHxKWxCxF, #enc>) outs(%o : tensor<NxOHxOWxF>)
    // ->  loops (n, oh, ow, f1, f0, kh, kw, c)
    linalg.generic {indexing_maps = [(n, oh*s + kh*d, ow*s + kw*d, c), (f1, kh, kw, c, f0),
                                     (n, oh, ow, f1*16 + f0)], rt.kind = "packed_conv"}
        ins(%in, %packed : tensor<NxHxWxC>, tensor<F1xKHxKWxCx16>) outs(%o : tensor<NxOHxOWxF>)

``rt.kind = "packed_conv"`` is the Kernel IR kind hint: llvm-cpu runs such a generic with its
register-tiled convolution kernel (``codegen/llvm_cpu/conv.py``); vmvx and any other backend
run the generic's loops, which compute the same sums in the same order per output element.

Source: IREE ``MaterializeEncodingIntoPackUnPack`` (encoded ops rewritten onto packed
operands) applied to the direct convolution of IREE's CPU conv pipeline.
"""
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, StringAttr
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.ir.affine import AffineExpr, AffineMap

from rt.compiler.dialects.linalg import GenericOp
from rt.compiler.targets.encoding_conv import conv_dims

#: The Kernel IR kind hint a packed-filter convolution generic carries (``rt.kind``).
KIND = "packed_conv"


def packed_conv(op, encoding, info, packed_filter):
    """The ``linalg.generic`` computing conv ``op`` (its filter encoded with ``encoding``,
    packed as ``info``) from ``packed_filter``; the caller inserts it and replaces ``op``."""
    maps = [m.data for m in op.get_indexing_maps().data]
    n = maps[0].num_dims
    f = conv_dims(encoding).f
    (f0_size,) = info.inner_tile_sizes
    f1, f0 = AffineExpr.dimension(f), AffineExpr.dimension(f + 1)
    moved = [AffineExpr.dimension(d if d < f else d + 1) for d in range(n)]
    moved[f] = f1 * f0_size + f0
    inp = maps[0].replace_dims_and_symbols(moved, [], n + 1, 0)
    out = maps[2].replace_dims_and_symbols(moved, [], n + 1, 0)
    loops = [r.position for r in maps[1].results]
    outer = [AffineExpr.dimension(loops[p] if loops[p] <= f else loops[p] + 1)
             for p in info.outer_dims_perm]
    flt = AffineMap(n + 1, 0, tuple(outer + [f0]))
    iterators = [it.data if isinstance(it.data, IteratorType) else IteratorType(it.data)
                 for it in op.get_iterator_types().data]
    iterators = iterators[:f + 1] + [iterators[f]] + iterators[f + 1:]
    generic = GenericOp([op.inputs[0], packed_filter], list(op.outputs), op.regions[0].clone(),
                        [AffineMapAttr(m) for m in (inp, flt, out)],
                        ArrayAttr([IteratorTypeAttr(it) for it in iterators]),
                        [r.type for r in op.results])
    generic.attributes["rt.kind"] = StringAttr(KIND)
    return generic
