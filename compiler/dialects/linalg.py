"""``linalg`` as xDSL 0.74.0 defines it, with rt's fixes and the ops xDSL lacks.

* Named structured ops (contractions, convolutions, depthwise convolutions, poolings) come from
  the table in ``linalg_named.py``, replacing xDSL's versions (MLIR's syntax and defaults:
  ``indexing_maps = [...]`` on matmul/batch_matmul, strides and dilations of 1 when absent,
  bodies that cast to the output element type).
* Added: ``div``, ``negf`` (elementwise), ``softmax`` (decomposed by
  ``iree-codegen-decompose-softmax``), ``linalg.pack`` / ``linalg.unpack`` (relayouts,
  ``inner_dims_pos = [..] inner_tiles = [..] into %dest``).
* Fixed: ``linalg.generic`` with several results (``-> (tensor<..>, tensor<..>)``), which
  xDSL 0.74.0 cannot parse; ``linalg.fill`` casts its value to the output element type.

Source followed: MLIR ``LinalgNamedStructuredOps.yaml`` and ``LinalgOps.td`` (pack/unpack syntax).
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
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.builder import Builder
from xdsl.ir import Dialect
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
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
from rt.compiler.dialects._format import AttrDict, Custom, Directive, FormattedOp, Int, Operand, OpFormat, Opt, Type
from rt.compiler.dialects.linalg_named import NAMED_OP_CLASSES, cast_to

DYNAMIC = -(1 << 63)


class GenericOp(FormattedOp, xlinalg.GenericOp):
    """``linalg.generic``; also parses ``-> (t0, t1)`` result lists (multi-result generics)."""

    FORMAT: ClassVar = OpFormat(Custom())
    print_syntax = xlinalg.GenericOp.print

    @classmethod
    def parse_syntax(cls, parser):
        pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        for key in ("indexing_maps", "iterator_types"):
            if key not in attrs:
                parser.raise_error(f"linalg.generic needs '{key}' in its attribute dictionary", pos)
        maps = attrs.pop("indexing_maps")
        iterators = [it if isinstance(it, IteratorTypeAttr) else IteratorTypeAttr(IteratorType(it.data))
                     for it in attrs.pop("iterator_types").data]
        doc, library_call = attrs.pop("doc", None), attrs.pop("library_call", None)
        ins = syn.parse_operand_group(parser, "ins")
        outs = syn.parse_operand_group(parser, "outs")
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


class _IntArray(Directive):
    """``[0, 1]``: an i64 ``DenseArrayBase`` property."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        state.set_prop(self.field, DenseArrayBase.from_list(i64, _parse_int_list(state.parser)))

    def print(self, op, printer):
        printer.print_string(str(list(getattr(op, self.field).get_values())))


class _InnerTiles(Directive):
    """``[16, %t]``: static tile sizes (``static_inner_tiles``, DYNAMIC for an SSA entry) and the
    dynamic ones (``inner_tiles``), as MLIR's ``custom<DynamicIndexList>``."""

    field = "static_inner_tiles"

    def parse(self, state):
        static, dynamic = _parse_mixed_list(state.parser)
        state.set_prop(self.field, DenseArrayBase.from_list(i64, static))
        state.values["inner_tiles"] = dynamic

    def print(self, op, printer):
        _print_mixed_list(printer, op.static_inner_tiles.get_values(), op.inner_tiles)


def _relayout_format(*padding):
    """``%src <padding> outer_dims_perm = [..]? inner_dims_pos = [..] inner_tiles = [..] into %dest : t -> t``."""
    return (" ", Operand("source"), *padding, Opt(" outer_dims_perm = ", _IntArray("outer_dims_perm")),
            " inner_dims_pos = ", _IntArray("inner_dims_pos"), " inner_tiles = ", _InnerTiles(), " into ",
            Operand("dest"), AttrDict(), " : ", Type("source"), " -> ", Type(("dest", "result")))


class _Relayout(FormattedOp):
    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    inner_tiles = var_operand_def(IndexType())
    result = result_def(TensorType)
    outer_dims_perm = opt_prop_def(DenseArrayBase)
    inner_dims_pos = prop_def(DenseArrayBase)
    static_inner_tiles = prop_def(DenseArrayBase)
    FORMAT: ClassVar = OpFormat(*_relayout_format())

    def verify_(self):
        packing = isinstance(self, PackOp)
        tiled = self.dest.type if packing else self.source.type
        plain = self.source.type if packing else self.dest.type
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
    FORMAT: ClassVar = OpFormat(*_relayout_format(Opt(" padding_value(", Operand("padding_value"), " : ",
                                                      Type("padding_value"), ")")))


@irdl_op_definition
class UnPackOp(_Relayout):
    """``linalg.unpack %src outer_dims_perm = [..]? inner_dims_pos = [..] inner_tiles = [..] into %dest : t -> t``."""

    name = "linalg.unpack"


@irdl_op_definition
class SoftmaxOp(FormattedOp):
    """``linalg.softmax dimension(d) ins(%x : t) outs(%init : t) -> t``: exp(x - max) / sum along
    ``d`` (MLIR's aggregate op; ``iree-codegen-decompose-softmax`` rewrites it into linalg.generics)."""

    name = "linalg.softmax"
    input = operand_def(TensorType)
    output = operand_def(TensorType)
    result = result_def(TensorType)
    dimension = prop_def(IntegerAttr)

    FORMAT: ClassVar = OpFormat(" dimension(", Int("dimension", i64), ") ins(", Operand("input"), " : ", Type("input"),
                                ") outs(", Operand("output"), " : ", Type("output"), ")", AttrDict(), " -> ",
                                Type("result"))

    def verify_(self):
        shapes = [t.get_shape() for t in (self.input.type, self.output.type, self.result.type)]
        if not (shapes[0] == shapes[1] == shapes[2]) or len({t.element_type for t in (
                self.input.type, self.output.type, self.result.type)}) != 1:
            raise VerifyException(f"expected input, init and result of one type, got {self.input.type}, "
                                  f"{self.output.type} and {self.result.type}")
        if not isinstance(self.input.type.element_type, AnyFloat):
            raise VerifyException(f"expected a float element type, got {self.input.type.element_type}")
        dim = self.dimension.value.data
        if not 0 <= dim < len(shapes[0]):
            raise VerifyException(f"dimension {dim} is out of range for {self.input.type}")


#: MLIR's aliases for the named ops rt's passes look up by class
Mmt4DOp = NAMED_OP_CLASSES["mmt4d"]
BatchMmt4DOp = NAMED_OP_CLASSES["batch_mmt4d"]
MatmulOp = NAMED_OP_CLASSES["matmul"]
BatchMatmulOp = NAMED_OP_CLASSES["batch_matmul"]

RT_LINALG_OPS = [DivOp, NegFOp, PackOp, UnPackOp, SoftmaxOp, *NAMED_OP_CLASSES.values()]


def _fill_region(inputs, outputs):
    """Body ``yield cast(value)`` (MLIR's ``linalg.fill`` casts its value to the output type)."""
    arg_types = abstract_ops.NamedOperation.body_arg_types((*inputs, *outputs))

    @Builder.implicit_region(arg_types)
    def region(args):
        YieldOp(cast_to(args[0], arg_types[-1]))

    return region


def _with_region(base, build):
    """xDSL's named op ``base`` with its implicit body built by ``build(inputs, outputs)``."""
    doc = f"``{base.name}`` with MLIR's implicit body (its value cast to the output element type)."
    return type(base.__name__, (base,), {"get_hidden_region": classmethod(lambda cls, i, o: build(i, o)),
                                         "__doc__": doc})


#: ``linalg.fill`` with MLIR's casting body (the class the dialect registers)
FillOp = _with_region(xlinalg.FillOp, _fill_region)


def build_dialect():
    """xDSL's linalg Dialect with GenericOp fixed, fill's cast-aware body, the named structured
    ops of ``linalg_named`` (replacing xDSL's contractions, convolutions and poolings) and
    rt's other extra ops."""
    ours = {op.name for op in RT_LINALG_OPS}
    ops = []
    for op in xlinalg_dialect.Linalg.operations:
        if op.name in ours:
            continue
        if op is xlinalg.GenericOp:
            op = GenericOp
        elif op is xlinalg.FillOp:
            op = FillOp
        ops.append(op)
    return Dialect("linalg", ops + RT_LINALG_OPS, list(xlinalg_dialect.Linalg.attributes))
