"""linalg's named structured ops -- contractions, convolutions, depthwise convolutions, poolings --
defined once, from a table, the way MLIR's ``LinalgNamedStructuredOps.yaml`` defines them.

Each row of ``NAMED_OPS`` gives the op's loop dims, the indexing map of every operand (strings
over the loop dims; ``S0``/``D0`` stand for ``strides[0]``/``dilations[0]``) and its body:

* ``mac``: ``out + cast(in0) * cast(in1)`` (contractions, convolutions);
* ``qmac``: ``out + (cast(in0) - cast(in2)) * (cast(in1) - cast(in3))`` (``*_q`` ops with zero
  points);
* ``sum`` / ``max`` / ``min`` / ``max_unsigned`` / ``min_unsigned``: poolings, which read the
  input and ignore the window operand (it only carries the window's shape).

``cast`` is MLIR's ``cast_signed`` into the output element type (``cast_unsigned`` for the
unsigned poolings). A loop dim is parallel when the output map uses it, else a reduction.

Printed form (MLIR's ``printNamedStructuredOp``)::

    %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
        ins(%img, %filter : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%init : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    %m = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
        ins(%a, %b : tensor<4x8xf32>, tensor<16x8xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>

``strides`` and ``dilations`` default to 1 when absent (MLIR's defaults). ``matmul``,
``batch_matmul`` and ``batch_reduce_matmul`` take explicit ``indexing_maps`` (transposed or
broadcast operands); the other ops use the table's maps. The verifier checks operand counts,
attribute lengths, ranks against the maps and the shapes the maps imply (xDSL's structured-op
verifier), so a bad op is a located error.

Source followed: MLIR ``mlir/include/mlir/Dialect/Linalg/IR/LinalgNamedStructuredOps.yaml``
and ``LinalgOps.cpp`` (``parseNamedStructuredOp``, ``MatmulOp::parse``).
"""
import functools
import re
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, ArrayAttr, IntegerType
from xdsl.dialects.linalg import abstract_ops
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import Custom, FormattedOp, OpFormat
from rt.compiler.dialects import arith as rt_arith

_S, _D = "S", "D"
_CONV1 = "w*S0+kw*D0"
_CONV2 = ("oh*S0+kh*D0", "ow*S1+kw*D1")
_CONV3 = ("od*S0+kd*D0", "oh*S1+kh*D1", "ow*S2+kw*D2")

#: name -> (loop dims, operand maps (inputs then output), body, strided spatial dims,
#: takes indexing_maps). Order and spelling follow LinalgNamedStructuredOps.yaml.
NAMED_OPS = {
    # contractions
    "matmul": ("m n k", ["m, k", "k, n", "m, n"], "mac", 0, True),
    "batch_matmul": ("b m n k", ["b, m, k", "b, k, n", "b, m, n"], "mac", 0, True),
    "batch_reduce_matmul": ("b m n k", ["b, m, k", "b, k, n", "m, n"], "mac", 0, True),
    "matmul_transpose_a": ("m n k", ["k, m", "k, n", "m, n"], "mac", 0, False),
    "matmul_transpose_b": ("m n k", ["m, k", "n, k", "m, n"], "mac", 0, False),
    "batch_matmul_transpose_a": ("b m n k", ["b, k, m", "b, k, n", "b, m, n"], "mac", 0, False),
    "batch_matmul_transpose_b": ("b m n k", ["b, m, k", "b, n, k", "b, m, n"], "mac", 0, False),
    "quantized_matmul": ("m n k", ["m, k", "k, n", "", "", "m, n"], "qmac", 0, False),
    "quantized_batch_matmul": ("b m n k", ["b, m, k", "b, k, n", "", "", "b, m, n"], "qmac", 0, False),
    "matvec": ("m k", ["m, k", "k", "m"], "mac", 0, False),
    "vecmat": ("n k", ["k", "k, n", "n"], "mac", 0, False),
    "batch_matvec": ("b m k", ["b, m, k", "b, k", "b, m"], "mac", 0, False),
    "batch_vecmat": ("b n k", ["b, k", "b, k, n", "b, n"], "mac", 0, False),
    "dot": ("k", ["k", "k", ""], "mac", 0, False),
    "mmt4d": ("m n k m0 n0 k0", ["m, k, m0, k0", "n, k, n0, k0", "m, n, m0, n0"], "mac", 0, False),
    "batch_mmt4d": ("b m n k m0 n0 k0", ["b, m, k, m0, k0", "b, n, k, n0, k0", "b, m, n, m0, n0"], "mac", 0,
                    False),
    # convolutions without strides
    "conv_1d": ("ow kw", ["ow+kw", "kw", "ow"], "mac", 0, False),
    "conv_2d": ("oh ow kh kw", ["oh+kh, ow+kw", "kh, kw", "oh, ow"], "mac", 0, False),
    "conv_3d": ("od oh ow kd kh kw", ["od+kd, oh+kh, ow+kw", "kd, kh, kw", "od, oh, ow"], "mac", 0, False),
    # convolutions
    "conv_1d_nwc_wcf": ("n w f kw c", [f"n, {_CONV1}, c", "kw, c, f", "n, w, f"], "mac", 1, False),
    "conv_1d_ncw_fcw": ("n f w c kw", [f"n, c, {_CONV1}", "f, c, kw", "n, f, w"], "mac", 1, False),
    "conv_2d_nhwc_hwcf": ("n oh ow f kh kw c", ["n, %s, %s, c" % _CONV2, "kh, kw, c, f", "n, oh, ow, f"],
                          "mac", 2, False),
    "conv_2d_nhwc_fhwc": ("n oh ow f kh kw c", ["n, %s, %s, c" % _CONV2, "f, kh, kw, c", "n, oh, ow, f"],
                          "mac", 2, False),
    "conv_2d_nhwc_hwcf_q": ("n oh ow f kh kw c", ["n, %s, %s, c" % _CONV2, "kh, kw, c, f", "", "",
                                                  "n, oh, ow, f"], "qmac", 2, False),
    "conv_2d_nhwc_fhwc_q": ("n oh ow f kh kw c", ["n, %s, %s, c" % _CONV2, "f, kh, kw, c", "", "",
                                                  "n, oh, ow, f"], "qmac", 2, False),
    "conv_2d_nchw_fchw": ("n f oh ow c kh kw", ["n, c, %s, %s" % _CONV2, "f, c, kh, kw", "n, f, oh, ow"],
                          "mac", 2, False),
    "conv_2d_nchw_fchw_q": ("n f oh ow c kh kw", ["n, c, %s, %s" % _CONV2, "f, c, kh, kw", "", "",
                                                  "n, f, oh, ow"], "qmac", 2, False),
    "conv_2d_ngchw_fgchw": ("n g f oh ow c kh kw", ["n, g, c, %s, %s" % _CONV2, "f, g, c, kh, kw",
                                                    "n, g, f, oh, ow"], "mac", 2, False),
    "conv_2d_ngchw_gfchw": ("n g f oh ow c kh kw", ["n, g, c, %s, %s" % _CONV2, "g, f, c, kh, kw",
                                                    "n, g, f, oh, ow"], "mac", 2, False),
    "conv_2d_nhwgc_gfhwc": ("n oh ow g f kh kw c", ["n, %s, %s, g, c" % _CONV2, "g, f, kh, kw, c",
                                                    "n, oh, ow, g, f"], "mac", 2, False),
    "conv_3d_ndhwc_dhwcf": ("n od oh ow f kd kh kw c", ["n, %s, %s, %s, c" % _CONV3, "kd, kh, kw, c, f",
                                                        "n, od, oh, ow, f"], "mac", 3, False),
    "conv_3d_ncdhw_fcdhw": ("n f od oh ow c kd kh kw", ["n, c, %s, %s, %s" % _CONV3, "f, c, kd, kh, kw",
                                                        "n, f, od, oh, ow"], "mac", 3, False),
    # depthwise convolutions
    "depthwise_conv_1d_nwc_wc": ("n w c kw", [f"n, {_CONV1}, c", "kw, c", "n, w, c"], "mac", 1, False),
    "depthwise_conv_1d_ncw_cw": ("n c w kw", [f"n, c, {_CONV1}", "c, kw", "n, c, w"], "mac", 1, False),
    "depthwise_conv_1d_nwc_wcm": ("n w c m kw", [f"n, {_CONV1}, c", "kw, c, m", "n, w, c, m"], "mac", 1, False),
    "depthwise_conv_2d_nhwc_hwc": ("n oh ow c kh kw", ["n, %s, %s, c" % _CONV2, "kh, kw, c", "n, oh, ow, c"],
                                   "mac", 2, False),
    "depthwise_conv_2d_nchw_chw": ("n c oh ow kh kw", ["n, c, %s, %s" % _CONV2, "c, kh, kw", "n, c, oh, ow"],
                                   "mac", 2, False),
    "depthwise_conv_2d_nhwc_hwc_q": ("n oh ow c kh kw", ["n, %s, %s, c" % _CONV2, "kh, kw, c", "", "",
                                                         "n, oh, ow, c"], "qmac", 2, False),
    "depthwise_conv_2d_nhwc_hwcm": ("n oh ow c m kh kw", ["n, %s, %s, c" % _CONV2, "kh, kw, c, m",
                                                          "n, oh, ow, c, m"], "mac", 2, False),
    "depthwise_conv_2d_nhwc_hwcm_q": ("n oh ow c m kh kw", ["n, %s, %s, c" % _CONV2, "kh, kw, c, m", "", "",
                                                            "n, oh, ow, c, m"], "qmac", 2, False),
    "depthwise_conv_3d_ndhwc_dhwc": ("n od oh ow c kd kh kw", ["n, %s, %s, %s, c" % _CONV3, "kd, kh, kw, c",
                                                               "n, od, oh, ow, c"], "mac", 3, False),
    "depthwise_conv_3d_ncdhw_cdhw": ("n c od oh ow kd kh kw", ["n, c, %s, %s, %s" % _CONV3, "c, kd, kh, kw",
                                                               "n, c, od, oh, ow"], "mac", 3, False),
    "depthwise_conv_3d_ndhwc_dhwcm": ("n od oh ow c m kd kh kw", ["n, %s, %s, %s, c" % _CONV3,
                                                                  "kd, kh, kw, c, m", "n, od, oh, ow, c, m"],
                                      "mac", 3, False),
}
for _kind in ("sum", "max", "min", "max_unsigned", "min_unsigned"):
    NAMED_OPS[f"pooling_nhwc_{_kind}"] = ("n oh ow c kh kw", ["n, %s, %s, c" % _CONV2, "kh, kw", "n, oh, ow, c"],
                                          _kind, 2, False)
    NAMED_OPS[f"pooling_nwc_{_kind}"] = ("n ow c kw", ["n, ow*S0+kw*D0, c", "kw", "n, ow, c"], _kind, 1, False)
    NAMED_OPS[f"pooling_ndhwc_{_kind}"] = ("n od oh ow c kd kh kw", ["n, %s, %s, %s, c" % _CONV3, "kd, kh, kw",
                                                                    "n, od, oh, ow, c"], _kind, 3, False)
for _kind in ("sum", "max"):
    NAMED_OPS[f"pooling_nchw_{_kind}"] = ("n c oh ow kh kw", ["n, c, %s, %s" % _CONV2, "kh, kw", "n, c, oh, ow"],
                                          _kind, 2, False)
    NAMED_OPS[f"pooling_ncw_{_kind}"] = ("n c ow kw", ["n, c, ow*S0+kw*D0", "kw", "n, c, ow"], _kind, 1, False)

_TERM = re.compile(r"\s*(?:([a-z]\w*)(?:\*([SD])(\d))?|(\d+))\s*\Z")


def _expr(text, dims, strides, dilations):
    """``"oh*S0+kh*D0"`` -> AffineExpr over ``dims`` with the stride/dilation values."""
    expr = None
    for term in text.split("+"):
        m = _TERM.match(term)
        if m.group(4) is not None:
            part = AffineConstantExpr(int(m.group(4)))
        else:
            part = AffineDimExpr(dims.index(m.group(1)))
            if m.group(2):
                factor = (strides if m.group(2) == _S else dilations)[int(m.group(3))]
                part = part * factor
        expr = part if expr is None else expr + part
    return expr


@functools.lru_cache(maxsize=None)
def table_maps(name, strides=(), dilations=()):
    """The default indexing maps of named op ``name`` (without the ``linalg.`` prefix); memoized
    (a few rows times the strides and dilations in use), since verifiers and passes ask per op."""
    dims, maps, *_ = NAMED_OPS[name]
    dims = dims.split()
    return tuple(AffineMap(len(dims), 0, tuple(_expr(e, dims, strides, dilations) for e in m.split(",") if e.strip()))
                 for m in maps)


@functools.lru_cache(maxsize=None)
def _default_maps_attr(name, strides, dilations):
    """``table_maps(name, strides, dilations)`` as one shared ``ArrayAttr`` of ``AffineMapAttr``
    (attributes are immutable, so every op with the same default maps may share it; keyed by the
    row, not the maps, whose hash walks every expression)."""
    return ArrayAttr([AffineMapAttr(m) for m in table_maps(name, strides, dilations)])


def _iterators_attr(maps_attr):
    """The iterator types of maps ``maps_attr``: a loop dim is parallel when the output map uses it."""
    out = maps_attr.data[-1].data
    used = {r.position for r in out.results if isinstance(r, AffineDimExpr)}
    return ArrayAttr([IteratorTypeAttr.parallel() if d in used else IteratorTypeAttr.reduction()
                      for d in range(out.num_dims)])


@functools.lru_cache(maxsize=None)
def _default_iterators_attr(name, strides, dilations):
    """``_iterators_attr`` of the default maps, shared like ``_default_maps_attr``."""
    return _iterators_attr(_default_maps_attr(name, strides, dilations))


def cast_to(value, to_type, unsigned=False):
    """``value`` converted to ``to_type`` as MLIR's ``cast_signed``/``cast_unsigned`` do in an
    implicit body (the new op is inserted into the body being built)."""
    from_type = value.type
    if from_type == to_type:
        return value
    from_float, to_float = isinstance(from_type, AnyFloat), isinstance(to_type, AnyFloat)
    if not isinstance(from_type, (AnyFloat, IntegerType)) or not isinstance(to_type, (AnyFloat, IntegerType)):
        cls = rt_arith.IndexCastOp
    elif not from_float and not to_float:
        widen = to_type.width.data > from_type.width.data
        cls = (rt_arith.ExtUIOp if unsigned else rt_arith.ExtSIOp) if widen else rt_arith.TruncIOp
    elif from_float and to_float:
        cls = rt_arith.ExtFOp if to_type.bitwidth > from_type.bitwidth else rt_arith.TruncFOp
    elif to_float:
        cls = rt_arith.UIToFPOp if unsigned else rt_arith.SIToFPOp
    else:
        cls = rt_arith.FPToUIOp if unsigned else rt_arith.FPToSIOp
    return cls.build(operands=[value], result_types=[to_type]).result


def _combine(kind, out_type, acc, value):
    """The pooling combiner ``kind`` of ``acc`` and ``value`` in ``out_type``."""
    fp = isinstance(out_type, AnyFloat)
    if kind == "sum":
        return (arith.AddfOp if fp else arith.AddiOp)(acc, value)
    table = {"max": (arith.MaximumfOp, arith.MaxSIOp), "min": (arith.MinimumfOp, arith.MinSIOp),
             "max_unsigned": (arith.MaximumfOp, arith.MaxUIOp), "min_unsigned": (arith.MinimumfOp, arith.MinUIOp)}
    return table[kind][0 if fp else 1](acc, value)


def build_body(kind, inputs, outputs):
    """The implicit region of a named op with body ``kind`` over ``inputs`` and ``outputs``."""
    arg_types = abstract_ops.NamedOperation.body_arg_types((*inputs, *outputs))
    out = arg_types[-1]
    fp = isinstance(out, AnyFloat)
    add, sub, mul = ((arith.AddfOp, arith.SubfOp, arith.MulfOp) if fp
                     else (arith.AddiOp, arith.SubiOp, arith.MuliOp))

    @Builder.implicit_region(arg_types)
    def region(args):
        acc = args[-1]
        if kind == "mac":
            YieldOp(add(acc, mul(cast_to(args[0], out), cast_to(args[1], out))))
        elif kind == "qmac":
            lhs = sub(cast_to(args[0], out), cast_to(args[2], out))
            rhs = sub(cast_to(args[1], out), cast_to(args[3], out))
            YieldOp(add(acc, mul(lhs, rhs)))
        else:
            YieldOp(_combine(kind, out, acc, cast_to(args[0], out, unsigned=kind.endswith("unsigned"))))

    return region


def _int_values(attr):
    if hasattr(attr, "get_values"):
        return tuple(int(v) for v in attr.get_values())
    from rt.compiler.frontend.elements import elements_to_numpy

    return tuple(int(v) for v in elements_to_numpy(attr).ravel())


class NamedStructuredOp(FormattedOp, abstract_ops.NamedOperation):
    """A row of ``NAMED_OPS`` as an op: MLIR's syntax, table maps, optional strides/dilations."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    ROW: ClassVar[str] = ""

    strides = opt_prop_def(Attribute)
    dilations = opt_prop_def(Attribute)
    indexing_maps = opt_prop_def(ArrayAttr)

    @classmethod
    def spec(cls):
        return NAMED_OPS[cls.ROW]

    @classmethod
    def get_hidden_region(cls, inputs, outputs):
        return build_body(cls.spec()[2], inputs, outputs)

    def window(self, key):
        """``strides`` or ``dilations`` as a tuple (1 per spatial dim when absent)."""
        spatial = self.spec()[3]
        attr = getattr(self, key)
        return (1,) * spatial if attr is None else _int_values(attr)

    def get_default_indexing_maps(self):
        return table_maps(self.ROW, self.window("strides"), self.window("dilations"))

    def get_indexing_maps(self):
        if self.indexing_maps is not None:
            return self.indexing_maps
        return _default_maps_attr(self.ROW, self.window("strides"), self.window("dilations"))

    def get_iterator_types(self):
        if self.indexing_maps is not None:
            return _iterators_attr(self.indexing_maps)
        return _default_iterators_attr(self.ROW, self.window("strides"), self.window("dilations"))

    def verify_(self):
        dims, maps, _, spatial, takes_maps = self.spec()
        if len(self.inputs) + len(self.outputs) != len(maps) or len(self.outputs) != 1:
            raise VerifyException(f"expected {len(maps) - 1} inputs and 1 output, got {len(self.inputs)} "
                                  f"inputs and {len(self.outputs)} outputs")
        for key in ("strides", "dilations"):
            attr = getattr(self, key)
            if attr is None:
                continue
            if not spatial:
                raise VerifyException(f"has no '{key}' attribute")
            values = self.window(key)
            if len(values) != spatial or any(v < 1 for v in values):
                raise VerifyException(f"expected '{key}' to be {spatial} positive integers, got {list(values)}")
        if self.indexing_maps is not None:
            if not takes_maps:
                raise VerifyException("does not take explicit indexing_maps")
            given = self.indexing_maps.data
            if len(given) != len(maps) or not all(isinstance(m, AffineMapAttr) for m in given):
                raise VerifyException(f"expected {len(maps)} affine maps in indexing_maps")
            if any(m.data.num_dims != len(dims.split()) for m in given):
                raise VerifyException(f"expected indexing_maps over {len(dims.split())} dims ({dims})")
        for operand in (*self.inputs, *self.outputs):
            element = getattr(operand.type, "element_type", operand.type)
            if not isinstance(element, (AnyFloat, IntegerType)):
                raise VerifyException(f"operand element type {element} is not an integer or float type")
        super().verify_()

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        pos = parser.pos
        maps = None
        if parser.parse_optional_keyword("indexing_maps"):
            parser.parse_punctuation("=")
            maps = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        ins = syn.parse_operand_group(parser, "ins")
        outs = syn.parse_operand_group(parser, "outs")
        if parser.parse_optional_keyword("attrs"):
            parser.parse_punctuation("=")
            attrs.update(parser.parse_optional_attr_dict())
        results = []
        if parser.parse_optional_punctuation("->"):
            results = parser.parse_optional_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
            if results is None:
                results = [parser.parse_type()]
        if maps is None:
            maps = attrs.pop("indexing_maps", None)
        props = {k: attrs.pop(k) for k in ("strides", "dilations") if k in attrs}
        if maps is not None:
            if not isinstance(maps, ArrayAttr):
                parser.raise_error("expected indexing_maps = [affine_map<...>, ...]", pos)
            props["indexing_maps"] = maps
        return cls.build(operands=[ins, outs], result_types=[results], properties=props, attributes=attrs,
                         regions=[cls.get_hidden_region(ins, outs)])

    def print_syntax(self, printer):
        if self.indexing_maps is not None:
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(self.indexing_maps)
        attrs = dict(self.attributes)
        for key in ("strides", "dilations"):
            if getattr(self, key) is not None:
                attrs[key] = getattr(self, key)
        if attrs:
            printer.print_string(" ")
            printer.print_attr_dict(dict(sorted(attrs.items())))
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            if values:
                printer.print_string(f" {keyword}(")
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list(values.types, printer.print_attribute)
                printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            printer.print_list(self.res.types, printer.print_attribute)


def _class_name(row):
    return "".join(part.capitalize() for part in row.split("_")) + "Op"


#: op class per row, named like MLIR's C++ classes (``conv_2d_nhwc_hwcf`` -> ``Conv2dNhwcHwcfOp``)
NAMED_OP_CLASSES = {
    row: irdl_op_definition(type(_class_name(row), (NamedStructuredOp,), {
        "name": f"linalg.{row}", "ROW": row, "__annotations__": {"ROW": ClassVar[str]},
        "__doc__": f"``linalg.{row}`` (see NAMED_OPS)."}))
    for row in NAMED_OPS
}
