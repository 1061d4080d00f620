"""``linalg`` as xDSL 0.74.0 defines it, plus the named ops rt needs that xDSL lacks.

Added (MLIR's printed form, ``ins(...) outs(...) -> type``): ``batch_matmul``, ``matvec``,
``vecmat``, ``batch_matvec``, ``dot``, ``mmt4d``, ``batch_mmt4d``, ``div``, ``negf``,
``pooling_nhwc_sum``, ``pooling_nhwc_max``, ``pooling_nchw_sum``,
``depthwise_conv_2d_nhwc_hwc``, and ``linalg.pack`` / ``linalg.unpack`` (data-tiling relayouts,
``inner_dims_pos = [..] inner_tiles = [..] into %dest``).
Fixed: ``linalg.generic`` with several results (``-> (tensor<..>, tensor<..>)``), which
xDSL 0.74.0 cannot parse; the implicit bodies of contractions, convolutions, poolings and
``linalg.fill`` cast their inputs to the output element type as MLIR's ``cast_signed`` does
(``matmul`` i8 x i8 -> i32 extends with ``arith.extsi``, f16 -> f32 with ``arith.extf``), and
``pooling_nchw_max`` reads the input, not the window operand.

Source followed: MLIR ``LinalgNamedStructuredOps.yaml`` (indexing maps, iterator types) and
``LinalgOps.td`` (pack/unpack syntax).
"""
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects import linalg as xlinalg_dialect
from xdsl.dialects.linalg import abstract_ops, ops as xlinalg
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.builder import Builder
from xdsl.ir import Dialect
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects import arith as rt_arith

DYNAMIC = -(1 << 63)


class GenericOp(xlinalg.GenericOp):
    """``linalg.generic``; also parses ``-> (t0, t1)`` result lists (multi-result generics)."""

    @classmethod
    def parse(cls, parser):
        pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        for key in ("indexing_maps", "iterator_types"):
            if key not in attrs:
                parser.raise_error(f"linalg.generic needs '{key}' in its attribute dictionary", pos)
        maps = attrs.pop("indexing_maps")
        iterators = [it if isinstance(it, IteratorTypeAttr) else IteratorTypeAttr(IteratorType(it.data))
                     for it in attrs.pop("iterator_types").data]
        doc, library_call = attrs.pop("doc", None), attrs.pop("library_call", None)
        ins = _parse_operand_group(parser, "ins")
        outs = _parse_operand_group(parser, "outs")
        if parser.parse_optional_keyword("attrs"):
            parser.parse_punctuation("=")
            attrs.update(parser.parse_optional_attr_dict())
        body = parser.parse_region()
        results = []
        if parser.parse_optional_punctuation("->"):
            results = parser.parse_optional_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
            if results is None:
                results = [parser.parse_type()]
        op = cls(ins, outs, body, maps, iterators, results, doc, library_call)
        op.attributes |= attrs
        return op


def _parse_operand_group(parser, keyword):
    """``keyword(%a, %b : t, t)`` -> resolved operands (empty when the keyword is absent)."""
    pos = parser.pos
    if not parser.parse_optional_keyword(keyword):
        return []
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(names, types, pos)


def _dims(n):
    return [AffineDimExpr(i) for i in range(n)]


def cast_signed(value, to_type):
    """``value`` converted to ``to_type`` as MLIR's ``TypeFn.cast_signed`` does in an implicit
    named-op body: ``extsi``/``trunci`` between integers, ``sitofp``/``fptosi`` across kinds,
    ``extf``/``truncf`` between floats, ``index_cast`` to or from index (the new op is inserted
    into the body being built). Source followed: MLIR ``RegionBuilderHelper::buildTypeFn``.
    """
    from_type = value.type
    if from_type == to_type:
        return value
    is_float = isinstance(from_type, AnyFloat), isinstance(to_type, AnyFloat)
    if isinstance(from_type, IndexType) or isinstance(to_type, IndexType):
        cls = rt_arith.IndexCastOp
    elif is_float == (False, False):
        cls = rt_arith.ExtSIOp if to_type.width.data > from_type.width.data else rt_arith.TruncIOp
    elif is_float == (True, True):
        cls = rt_arith.ExtFOp if to_type.bitwidth > from_type.bitwidth else rt_arith.TruncFOp
    else:
        cls = rt_arith.SIToFPOp if is_float[1] else rt_arith.FPToSIOp
    return cls.build(operands=[value], result_types=[to_type]).result


def _mac_region(inputs, outputs):
    """Body ``out + cast(in0) * cast(in1)`` in the output element type (MLIR's contractions)."""
    arg_types = abstract_ops.NamedOperation.body_arg_types((*inputs, *outputs))
    out = arg_types[-1]
    add, mul = (arith.AddfOp, arith.MulfOp) if isinstance(out, AnyFloat) else (arith.AddiOp, arith.MuliOp)

    @Builder.implicit_region(arg_types)
    def region(args):
        YieldOp(add(args[2], mul(cast_signed(args[0], out), cast_signed(args[1], out))))

    return region


def _pooling_region(kind, inputs, outputs):
    """Body ``out (+|max) cast(in)`` (window operand unused), as MLIR's pooling ops."""
    arg_types = abstract_ops.NamedOperation.body_arg_types((*inputs, *outputs))
    out = arg_types[-1]
    fp = isinstance(out, AnyFloat)
    op = {"sum": arith.AddfOp if fp else arith.AddiOp, "max": arith.MaximumfOp if fp else arith.MaxSIOp}[kind]

    @Builder.implicit_region(arg_types)
    def region(args):
        YieldOp(op(args[2], cast_signed(args[0], out)))

    return region


def _fill_region(inputs, outputs):
    """Body ``yield cast(value)`` (MLIR's ``linalg.fill`` casts its value to the output type)."""
    arg_types = abstract_ops.NamedOperation.body_arg_types((*inputs, *outputs))

    @Builder.implicit_region(arg_types)
    def region(args):
        YieldOp(cast_signed(args[0], arg_types[-1]))

    return region


def _with_region(base, build):
    """xDSL's named op ``base`` with its implicit body built by ``build(inputs, outputs)``."""
    doc = f"``{base.name}`` with MLIR's implicit body (operands cast to the output element type)."
    return type(base.__name__, (base,), {"get_hidden_region": classmethod(lambda cls, i, o: build(i, o)),
                                         "__doc__": doc})


class _Contraction(abstract_ops.NamedOperation):
    """Named contraction: maps from ``MAPS`` (dims -> per-operand exprs), mul-add body."""

    NUM_DIMS: ClassVar[int] = 0
    MAPS: ClassVar[tuple] = ()
    ITERATORS: ClassVar[str] = ""

    @classmethod
    def get_hidden_region(cls, inputs, outputs):
        return _mac_region(inputs, outputs)

    def get_default_indexing_maps(self):
        d = _dims(self.NUM_DIMS)
        return tuple(AffineMap(self.NUM_DIMS, 0, tuple(d[i] for i in m)) for m in self.MAPS)

    def get_indexing_maps(self):
        return ArrayAttr([AffineMapAttr(m) for m in self.get_default_indexing_maps()])

    def get_iterator_types(self):
        return ArrayAttr([IteratorTypeAttr.parallel() if c == "p" else IteratorTypeAttr.reduction()
                          for c in self.ITERATORS])


@irdl_op_definition
class BatchMatmulOp(_Contraction):
    """``linalg.batch_matmul``: C[b,m,n] += A[b,m,k] * B[b,k,n]."""

    name = "linalg.batch_matmul"
    NUM_DIMS: ClassVar = 4
    MAPS: ClassVar = ((0, 1, 3), (0, 3, 2), (0, 1, 2))
    ITERATORS: ClassVar = "pppr"


@irdl_op_definition
class MatvecOp(_Contraction):
    """``linalg.matvec``: y[m] += A[m,k] * x[k]."""

    name = "linalg.matvec"
    NUM_DIMS: ClassVar = 2
    MAPS: ClassVar = ((0, 1), (1,), (0,))
    ITERATORS: ClassVar = "pr"


@irdl_op_definition
class VecmatOp(_Contraction):
    """``linalg.vecmat``: y[n] += x[k] * A[k,n]."""

    name = "linalg.vecmat"
    NUM_DIMS: ClassVar = 2
    MAPS: ClassVar = ((1,), (1, 0), (0,))
    ITERATORS: ClassVar = "pr"


@irdl_op_definition
class BatchMatvecOp(_Contraction):
    """``linalg.batch_matvec``: y[b,m] += A[b,m,k] * x[b,k]."""

    name = "linalg.batch_matvec"
    NUM_DIMS: ClassVar = 3
    MAPS: ClassVar = ((0, 1, 2), (0, 2), (0, 1))
    ITERATORS: ClassVar = "ppr"


@irdl_op_definition
class DotOp(_Contraction):
    """``linalg.dot``: r[] += x[k] * y[k]."""

    name = "linalg.dot"
    NUM_DIMS: ClassVar = 1
    MAPS: ClassVar = ((0,), (0,), ())
    ITERATORS: ClassVar = "r"


@irdl_op_definition
class Mmt4DOp(_Contraction):
    """``linalg.mmt4d``: C[m,n,m0,n0] += A[m,k,m0,k0] * B[n,k,n0,k0] (tiled, RHS transposed)."""

    name = "linalg.mmt4d"
    NUM_DIMS: ClassVar = 6
    MAPS: ClassVar = ((0, 2, 3, 5), (1, 2, 4, 5), (0, 1, 3, 4))
    ITERATORS: ClassVar = "pprppr"


@irdl_op_definition
class BatchMmt4DOp(_Contraction):
    """``linalg.batch_mmt4d``: mmt4d with a leading batch dimension."""

    name = "linalg.batch_mmt4d"
    NUM_DIMS: ClassVar = 7
    MAPS: ClassVar = ((0, 1, 3, 4, 6), (0, 2, 3, 5, 6), (0, 1, 2, 4, 5))
    ITERATORS: ClassVar = "ppprppr"


class _Elementwise(abstract_ops.NamedOperation):
    """Named elementwise op over identity maps; ``BODY`` builds the scalar op."""

    @classmethod
    def get_hidden_region(cls, inputs, outputs):
        arg_types = cls.body_arg_types((*inputs, *outputs))

        @Builder.implicit_region(arg_types)
        def region(args):
            YieldOp(cls.scalar(args[: len(inputs)]))

        return region

    def get_default_indexing_maps(self):
        rank = len(self.outputs[0].type.get_shape())
        return tuple(AffineMap.identity(rank) for _ in (*self.inputs, *self.outputs))

    def get_indexing_maps(self):
        return ArrayAttr([AffineMapAttr(m) for m in self.get_default_indexing_maps()])

    def get_iterator_types(self):
        rank = len(self.outputs[0].type.get_shape())
        return ArrayAttr([IteratorTypeAttr.parallel()] * rank)


@irdl_op_definition
class DivOp(_Elementwise):
    """``linalg.div``: elementwise a / b."""

    name = "linalg.div"

    @staticmethod
    def scalar(args):
        if isinstance(args[0].type, AnyFloat):
            return arith.DivfOp(args[0], args[1])
        return arith.DivSIOp(args[0], args[1])


@irdl_op_definition
class NegFOp(_Elementwise):
    """``linalg.negf``: elementwise -a."""

    name = "linalg.negf"

    @staticmethod
    def scalar(args):
        return arith.NegfOp(args[0])


class _Pooling(abstract_ops.PoolingOperation):
    KIND: ClassVar[str] = "sum"
    LAYOUT: ClassVar[str] = "nhwc"

    @classmethod
    def get_hidden_region(cls, inputs, outputs):
        return _pooling_region(cls.KIND, inputs, outputs)

    def get_default_indexing_maps(self):
        n, a, b, c, kh, kw = _dims(6)
        sh, sw = self.strides.get_values()
        dh, dw = self.dilations.get_values()
        if self.LAYOUT == "nhwc":
            oh, ow, ch = a, b, c
            inp = (n, oh * sh + kh * dh, ow * sw + kw * dw, ch)
            out = (n, oh, ow, ch)
        else:
            ch, oh, ow = a, b, c
            inp = (n, ch, oh * sh + kh * dh, ow * sw + kw * dw)
            out = (n, ch, oh, ow)
        return (AffineMap(6, 0, inp), AffineMap(6, 0, (kh, kw)), AffineMap(6, 0, out))


@irdl_op_definition
class PoolingNhwcSumOp(_Pooling):
    """``linalg.pooling_nhwc_sum``: window sum over H, W (input NHWC, window HW)."""

    name = "linalg.pooling_nhwc_sum"


@irdl_op_definition
class PoolingNhwcMaxOp(_Pooling):
    """``linalg.pooling_nhwc_max``: window max over H, W (input NHWC)."""

    name = "linalg.pooling_nhwc_max"
    KIND: ClassVar = "max"


@irdl_op_definition
class PoolingNchwSumOp(_Pooling):
    """``linalg.pooling_nchw_sum``: window sum over H, W (input NCHW)."""

    name = "linalg.pooling_nchw_sum"
    LAYOUT: ClassVar = "nchw"


@irdl_op_definition
class DepthwiseConv2DNhwcHwcOp(abstract_ops.ConvOperation):
    """``linalg.depthwise_conv_2d_nhwc_hwc``: per-channel 2-D convolution."""

    name = "linalg.depthwise_conv_2d_nhwc_hwc"

    @classmethod
    def get_hidden_region(cls, inputs, outputs):
        return _mac_region(inputs, outputs)

    def get_default_indexing_maps(self):
        n, oh, ow, c, kh, kw = _dims(6)
        sh, sw = self.strides.get_values()
        dh, dw = self.dilations.get_values()
        return (AffineMap(6, 0, (n, oh * sh + kh * dh, ow * sw + kw * dw, c)),
                AffineMap(6, 0, (kh, kw, c)), AffineMap(6, 0, (n, oh, ow, c)))

    def get_iterator_types(self):
        return ArrayAttr([IteratorTypeAttr.parallel()] * 4 + [IteratorTypeAttr.reduction()] * 2)


def _parse_int_list(parser):
    return parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)


def _parse_mixed_list(parser):
    """``[16, %t]`` -> (static values with DYNAMIC for SSA entries, resolved index operands)."""
    static, dynamic = [], []

    def entry():
        if (value := parser.parse_optional_integer()) is not None:
            static.append(value)
        else:
            static.append(DYNAMIC)
            dynamic.append(parser.resolve_operand(parser.parse_unresolved_operand(), IndexType()))

    parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, entry)
    return static, dynamic


def _print_mixed_list(printer, static, dynamic):
    it = iter(dynamic)
    printer.print_string("[")
    printer.print_list(static, lambda v: printer.print_ssa_value(next(it)) if v == DYNAMIC else printer.print_string(str(v)))
    printer.print_string("]")


class _Relayout(IRDLOperation):
    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    inner_tiles = var_operand_def(IndexType())
    result = result_def(TensorType)
    outer_dims_perm = opt_prop_def(DenseArrayBase)
    inner_dims_pos = prop_def(DenseArrayBase)
    static_inner_tiles = prop_def(DenseArrayBase)
    HAS_PADDING: ClassVar[bool] = False

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        padding = None
        if cls.HAS_PADDING and parser.parse_optional_keyword("padding_value"):
            parser.parse_punctuation("(")
            padding = syn.parse_typed_operand(parser)
            parser.parse_punctuation(")")
        props = {}
        if parser.parse_optional_keyword("outer_dims_perm"):
            parser.parse_punctuation("=")
            props["outer_dims_perm"] = DenseArrayBase.from_list(i64, _parse_int_list(parser))
        parser.parse_keyword("inner_dims_pos")
        parser.parse_punctuation("=")
        props["inner_dims_pos"] = DenseArrayBase.from_list(i64, _parse_int_list(parser))
        parser.parse_keyword("inner_tiles")
        parser.parse_punctuation("=")
        static, dynamic = _parse_mixed_list(parser)
        props["static_inner_tiles"] = DenseArrayBase.from_list(i64, static)
        parser.parse_keyword("into")
        dest = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        dst_type = parser.parse_type()
        values = {"source": parser.resolve_operand(src, src_type), "dest": parser.resolve_operand(dest, dst_type),
                  "inner_tiles": dynamic, "padding_value": [padding] if padding is not None else []}
        operands = [values[name] for name, _ in cls.get_irdl_definition().operands]
        return cls.build(operands=operands, result_types=[dst_type], properties=props, attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        if self.HAS_PADDING and self.padding_value is not None:
            printer.print_string(" padding_value(")
            syn.print_typed_operand(printer, self.padding_value, "", "")
            printer.print_string(")")
        if self.outer_dims_perm is not None:
            printer.print_string(f" outer_dims_perm = {list(self.outer_dims_perm.get_values())}")
        printer.print_string(f" inner_dims_pos = {list(self.inner_dims_pos.get_values())} inner_tiles = ")
        _print_mixed_list(printer, self.static_inner_tiles.get_values(), self.inner_tiles)
        printer.print_string(" into ")
        printer.print_ssa_value(self.dest)
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self):
        tiled = self.dest.type if self.name.endswith(".pack") else self.source.type
        plain = self.source.type if self.name.endswith(".pack") else self.dest.type
        rank = len(plain.get_shape())
        pos = self.inner_dims_pos.get_values()
        tiles = self.static_inner_tiles.get_values()
        if len(pos) != len(tiles):
            raise VerifyException(f"{self.name}: inner_dims_pos has {len(pos)} entries but inner_tiles has {len(tiles)}")
        if any(p < 0 or p >= rank for p in pos):
            raise VerifyException(f"{self.name}: inner_dims_pos {list(pos)} out of range for rank {rank}")
        if len(tiled.get_shape()) != rank + len(tiles):
            raise VerifyException(
                f"{self.name}: tiled type {tiled} must have rank {rank + len(tiles)} (rank {rank} + {len(tiles)} tiles)"
            )


@irdl_op_definition
class PackOp(_Relayout):
    """``linalg.pack %src padding_value(%p : f32)? outer_dims_perm = [..]? inner_dims_pos = [..] inner_tiles = [..] into %dest : t -> t``."""

    name = "linalg.pack"
    padding_value = opt_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    HAS_PADDING: ClassVar = True


@irdl_op_definition
class UnPackOp(_Relayout):
    """``linalg.unpack %src outer_dims_perm = [..]? inner_dims_pos = [..] inner_tiles = [..] into %dest : t -> t``."""

    name = "linalg.unpack"


RT_LINALG_OPS = [BatchMatmulOp, MatvecOp, VecmatOp, BatchMatvecOp, DotOp, Mmt4DOp, BatchMmt4DOp, DivOp, NegFOp,
                 PoolingNhwcSumOp, PoolingNhwcMaxOp, PoolingNchwSumOp, DepthwiseConv2DNhwcHwcOp, PackOp, UnPackOp]


#: xDSL ops whose implicit body ignores mixed element types (matmul i8 x i8 -> i32 fails to
#: verify), or reads the wrong block argument (pooling_nchw_max), rebuilt as MLIR builds them
_REBODIED = {
    xlinalg.MatmulOp: _mac_region,
    xlinalg.FillOp: _fill_region,
    xlinalg.PoolingNchwMaxOp: lambda i, o: _pooling_region("max", i, o),
}


def _replacement(op):
    if op is xlinalg.GenericOp:
        return GenericOp
    if op in _REBODIED:
        return _with_region(op, _REBODIED[op])
    if issubclass(op, abstract_ops.ConvOperation):
        return _with_region(op, _mac_region)
    return op


def build_dialect():
    """xDSL's linalg Dialect with GenericOp fixed, cast-aware implicit bodies and rt's extra ops."""
    ops = [_replacement(op) for op in xlinalg_dialect.Linalg.operations]
    return Dialect("linalg", ops + RT_LINALG_OPS, list(xlinalg_dialect.Linalg.attributes))

