"""``iree_linalg_ext.winograd.*`` (F(6, 3): 8x8 tiles, 3x3 kernels) -> ``linalg.generic``s (helper).

Each transform is one generic that accumulates into its zero-filled output:

* input:  ``out[i, j, n, th, tw, c] = sum_{a, b} BT[i, a] BT[j, b] img(n, 6 th + a, 6 tw + b, c)``,
  image elements past its edge read as 0 (the tile overhangs the image);
* filter: ``out[i, j, c, f] = sum_{a, b} G[i, a] G[j, b] g(a, b, c, f)``;
* output: ``out(n, h, w, f) = sum_{i, j} AT[h mod 6, i] AT[w mod 6, j] tile[i, j, n, h / 6, w / 6, f]``.

``img``/``g``/``out`` are NHWC / HWCF (``image_dimensions`` [1, 2], or [0, 1] for a filter) or
NCHW / FCHW ([2, 3]). Element type: any float (the matrices are rounded to it).

Source followed: IREE ``LinalgExtOps.td`` (the three ops) and ``LinalgExt/Utils/WinogradConstants.h``
(the matrices, as facts: BT, G and AT of F(6, 3)).
"""
from fractions import Fraction as F

from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.dialects.linalg import FillOp
from rt.compiler.helpers.linalg_ext.builders import all_true, constant, dim_size, index, index_const, select
from rt.compiler.helpers.stablehlo.builders import affine_maps, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type

_BT = [[1, 0, F(-21, 4), 0, F(21, 4), 0, -1, 0],
       [0, 1, 1, F(-17, 4), F(-17, 4), 1, 1, 0],
       [0, -1, 1, F(17, 4), F(-17, 4), -1, 1, 0],
       [0, F(1, 2), F(1, 4), F(-5, 2), F(-5, 4), 2, 1, 0],
       [0, F(-1, 2), F(1, 4), F(5, 2), F(-5, 4), -2, 1, 0],
       [0, 2, 4, F(-5, 2), -5, F(1, 2), 1, 0],
       [0, -2, 4, F(5, 2), -5, F(-1, 2), 1, 0],
       [0, -1, 0, F(21, 4), 0, F(-21, 4), 0, 1]]
_G = [[1, 0, 0], [F(-2, 9), F(-2, 9), F(-2, 9)], [F(-2, 9), F(2, 9), F(-2, 9)], [F(1, 90), F(1, 45), F(2, 45)],
      [F(1, 90), F(-1, 45), F(2, 45)], [F(32, 45), F(16, 45), F(8, 45)], [F(32, 45), F(-16, 45), F(8, 45)],
      [0, 0, 1]]
_AT = [[1, 1, 1, 1, 1, 1, 1, 0],
       [0, 1, -1, 2, -2, F(1, 2), F(-1, 2), 0],
       [0, 1, 1, 4, 4, F(1, 4), F(1, 4), 0],
       [0, 1, -1, 8, -8, F(1, 8), F(-1, 8), 0],
       [0, 1, 1, 16, 16, F(1, 16), F(1, 16), 0],
       [0, 1, -1, 32, -32, F(1, 32), F(-1, 32), 1]]
TILE, OUT = 8, 6


def _matrix(b, rows, element):
    type_ = TensorType(element, [len(rows), len(rows[0])])
    attr = DenseIntOrFPElementsAttr.from_list(type_, [float(v) for row in rows for v in row])
    return b.add(arith.ConstantOp.create(result_types=[type_], properties={"value": attr}))


def _zeroed(b, output):
    zero = constant(b, 0.0, element_type(output.type))
    return b.add(FillOp([zero], [output], [output.type]))


def _mac(s, acc, *factors):
    product = factors[0]
    for f in factors[1:]:
        product = s.add(xarith.MulfOp(product, f))
    return s.add(xarith.AddfOp(acc, product))


def _image(layout_nchw, n, c, h, w):
    return [n, c, h, w] if layout_nchw else [n, h, w, c]


def transform(b, op):
    """The generic of winograd op ``op`` (see the module docstring); its result."""
    source, output = op.inputs[0], op.outputs[0]
    element = element_type(output.type)
    nchw = list(op.image_dimensions.get_values()) == [2, 3]
    kind = op.name.rsplit(".", 1)[1]
    return {"input_transform": _input, "filter_transform": _filter, "output_transform": _output}[kind](
        b, source, _zeroed(b, output), element, nchw)


def _input(b, source, output, element, nchw):
    bt = _matrix(b, _BT, element)
    height, width = dim_size(b, source, 2 if nchw else 1), dim_size(b, source, 3 if nchw else 2)
    d = AffineExpr.dimension  # i, j, n, th, tw, c, a, b

    def body(s, args):
        bt_ia, bt_jb, acc = args
        h = s.add(xarith.AddiOp(s.add(xarith.MuliOp(index(s, 3), index_const(s, OUT))), index(s, 6)))
        w = s.add(xarith.AddiOp(s.add(xarith.MuliOp(index(s, 4), index_const(s, OUT))), index(s, 7)))
        inside = all_true(s, [s.add(arith.CmpIOp(h, height, "ult")), s.add(arith.CmpIOp(w, width, "ult"))])
        x = s.add(tensor.ExtractOp(source, _image(nchw, index(s, 2), index(s, 5), h, w), element))
        return [_mac(s, acc, bt_ia, bt_jb, select(s, inside, x, constant(s, 0.0, element)))]
    maps = affine_maps(8, [d(0), d(6)], [d(1), d(7)], [d(k) for k in range(6)])
    return generic(b, [bt, bt], [output], maps, ["parallel"] * 6 + ["reduction"] * 2, [output.type], body)


def _filter(b, source, output, element, nchw):
    g = _matrix(b, _G, element)
    d = AffineExpr.dimension  # i, j, c, f, a, b
    filter_map = [d(3), d(2), d(4), d(5)] if nchw else [d(4), d(5), d(2), d(3)]
    maps = affine_maps(6, [d(0), d(4)], [d(1), d(5)], filter_map, [d(k) for k in range(4)])
    return generic(b, [g, g, source], [output], maps, ["parallel"] * 4 + ["reduction"] * 2, [output.type],
                   lambda s, args: [_mac(s, args[3], args[0], args[1], args[2])])


def _output(b, source, output, element, nchw):
    at = _matrix(b, _AT, element)
    d = AffineExpr.dimension  # the output's 4 dims, then i, j

    def body(s, args):
        x, acc = args
        n, c, h, w = (index(s, 0), index(s, 1), index(s, 2), index(s, 3)) if nchw else \
            (index(s, 0), index(s, 3), index(s, 1), index(s, 2))
        six = index_const(s, OUT)
        i, j = index(s, 4), index(s, 5)
        tile_h, tile_w = s.add(xarith.DivUIOp(h, six)), s.add(xarith.DivUIOp(w, six))
        tile = s.add(tensor.ExtractOp(source, [i, j, n, tile_h, tile_w, c], element))
        at_hi = s.add(tensor.ExtractOp(at, [s.add(xarith.RemUIOp(h, six)), i], element))
        at_wj = s.add(tensor.ExtractOp(at, [s.add(xarith.RemUIOp(w, six)), j], element))
        return [_mac(s, acc, at_hi, at_wj, tile)]
    # a tile-shaped input gives the i, j loops their extent (as linalg.pooling's window tensor does)
    extent = b.add(tensor.EmptyOp([], TensorType(element, [TILE, TILE])))
    maps = affine_maps(6, [d(4), d(5)], [d(k) for k in range(4)])
    return generic(b, [extent], [output], maps, ["parallel"] * 4 + ["reduction"] * 2, [output.type], body)
