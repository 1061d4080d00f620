"""The upstream MLIR ``shard`` dialect's SPMD communication ops (formerly ``mesh``).

Printed forms (upstream's)::

    shard.grid @grid(shape = 2x4)
    %r = shard.all_reduce %x on @grid grid_axes = [1] reduction = max : tensor<4xf32> -> tensor<4xf32>
    %g = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 1 : tensor<2x3xf32> -> tensor<2x6xf32>
    %s = shard.reduce_scatter %x on @grid grid_axes = [0] scatter_axis = 0 : tensor<4x2xf32> -> tensor<2x2xf32>
    %a = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<4x2xf32> -> tensor<2x4xf32>
    %i = shard.process_linear_index on @grid : index

``grid_axes`` (default: none) are the grid axes whose processes form each communication group;
``reduction`` is sum (default), max, min, product or average. Each process runs the same
program on its own shard (SPMD); rt lowers the ops to IREE's flow collectives with
``iree-convert-shard-to-flow``.

Source followed: MLIR ``mlir/include/mlir/Dialect/Shard/IR/ShardOps.td`` (assembly formats and
verifiers) and IREE's ``Dialect/Flow/Conversion/ShardToFlow``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._regions import SymbolName
from rt.compiler.dialects._format import (
    AttrDict,
    Directive,
    FormattedOp,
    Lit,
    Operand,
    OpFormat,
    SymbolRef,
    Type,
)

REDUCTIONS = ("sum", "max", "min", "product", "average")


def _parse_sizes(parser):
    """``2x4``: static sizes joined by ``x`` (the lexer reads ``2`` then ``x4``)."""
    dims = [parser.parse_integer(allow_boolean=False, allow_negative=False)]
    while True:
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word is None:
            return dims
        parts = word.split("x")
        if parts[0] or not all(p.isdigit() for p in parts[1:]):
            parser.raise_error(f"expected static grid sizes such as 2x4, got '{word}'", pos)
        dims += [int(p) for p in parts[1:]]


class _GridShape(Directive):
    """``2x4``: the positive static sizes of a grid's ``shape``."""

    field = "shape"

    def parse(self, state):
        pos = state.parser.pos
        dims = _parse_sizes(state.parser)
        if any(d < 1 for d in dims):
            state.parser.raise_error("shard.grid: sizes must be positive (2x4)", pos)
        state.set_prop(self.field, DenseArrayBase.from_list(i64, dims))

    def print(self, op, printer):
        printer.print_string("x".join(str(d) for d in op.sizes))


@irdl_op_definition
class GridOp(FormattedOp):
    """``shard.grid @name(shape = 2x4)``: a grid of processes (static sizes)."""

    name = "shard.grid"
    sym_name = prop_def(StringAttr)
    shape = prop_def(DenseArrayBase)
    traits = traits_def(SymbolOpInterface())

    FORMAT: ClassVar = OpFormat(" ", SymbolName(), "(shape = ", _GridShape(), ")", AttrDict())

    @property
    def sizes(self):
        return tuple(self.shape.get_values())

    def verify_(self):
        if not self.sizes:
            raise VerifyException("shard.grid: a grid needs at least one axis")


class _AxesDirective(Directive):
    """`` name = [0, 1]`` for an i64 array property (``grid_axes``)."""

    def __init__(self, keyword, field):
        self.keyword, self.field = keyword, field

    def parse(self, state):
        self.parse_optional(state)

    def parse_optional(self, state):
        parser = state.parser
        if parser.parse_optional_keyword(self.keyword) is None:
            return False
        parser.parse_punctuation("=")
        values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        state.set_prop(self.field, DenseArrayBase.from_list(i64, values))
        return True

    def print(self, op, printer):
        value = getattr(op, self.field)
        if value is not None and value.get_values():
            printer.print_string(f" {self.keyword} = [{', '.join(str(v) for v in value.get_values())}]")


class _KeywordValue(Directive):
    """`` name = value`` for an integer (``Int``) or bare-word (``Enum``) property."""

    def __init__(self, keyword, field, integer=True, optional=False):
        self.keyword, self.field, self.integer, self.optional = keyword, field, integer, optional

    def parse(self, state):
        if not self.parse_optional(state) and not self.optional:
            state.parser.raise_error(f"expected '{self.keyword} = ...'")

    def parse_optional(self, state):
        parser = state.parser
        if parser.parse_optional_keyword(self.keyword) is None:
            return False
        parser.parse_punctuation("=")
        if self.integer:
            state.set_prop(self.field, IntegerAttr(parser.parse_integer(), i64))
        else:
            pos = parser.pos
            word = parser.parse_identifier()
            if word not in REDUCTIONS:
                parser.raise_error(f"unknown reduction '{word}'; expected one of {', '.join(REDUCTIONS)}", pos)
            state.set_prop(self.field, StringAttr(word))
        return True

    def print(self, op, printer):
        value = getattr(op, self.field)
        if value is None or (not self.integer and value.data == "sum"):
            return
        text = value.value.data if self.integer else value.data
        printer.print_string(f" {self.keyword} = {text}")


_HEAD = (" ", Operand("input"), " on ", SymbolRef("grid"), _AxesDirective("grid_axes", "grid_axes"))
_TAIL = (AttrDict(), " : ", Type("input"), " -> ", Type("result"))


class _CollectiveOp(FormattedOp):
    input = operand_def(TensorType)
    grid = prop_def(Attribute)
    grid_axes = opt_prop_def(DenseArrayBase)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @property
    def axes(self):
        return tuple(self.grid_axes.get_values()) if self.grid_axes is not None else ()

    @property
    def grid_name(self):
        return self.grid.root_reference.data

    def verify_(self):
        axes = self.axes
        if len(set(axes)) != len(axes) or any(a < 0 for a in axes):
            raise VerifyException(f"{self.name}: grid_axes {list(axes)} must be distinct and >= 0")
        if self.input.type.element_type != self.result.type.element_type:
            raise VerifyException(f"{self.name}: input {self.input.type} and result {self.result.type} "
                                  "must have the same element type")


@irdl_op_definition
class AllReduceOp(_CollectiveOp):
    """Reduces ``input`` over the processes of each group; every process gets the result."""

    name = "shard.all_reduce"
    reduction = opt_prop_def(StringAttr)
    FORMAT: ClassVar = OpFormat(*_HEAD, _KeywordValue("reduction", "reduction", integer=False, optional=True), *_TAIL)

    def verify_(self):
        super().verify_()
        if self.input.type.get_shape() != self.result.type.get_shape():
            raise VerifyException(f"{self.name}: input {self.input.type} and result {self.result.type} differ in shape")


@irdl_op_definition
class AllGatherOp(_CollectiveOp):
    """Concatenates every process's ``input`` of a group along ``gather_axis``."""

    name = "shard.all_gather"
    gather_axis = prop_def(IntegerAttr)
    FORMAT: ClassVar = OpFormat(*_HEAD, _KeywordValue("gather_axis", "gather_axis"), *_TAIL)


@irdl_op_definition
class ReduceScatterOp(_CollectiveOp):
    """Reduces over a group, then process k of the group keeps block k along ``scatter_axis``."""

    name = "shard.reduce_scatter"
    reduction = opt_prop_def(StringAttr)
    scatter_axis = prop_def(IntegerAttr)
    FORMAT: ClassVar = OpFormat(*_HEAD, _KeywordValue("reduction", "reduction", integer=False, optional=True),
                                _KeywordValue("scatter_axis", "scatter_axis"), *_TAIL)


@irdl_op_definition
class AllToAllOp(_CollectiveOp):
    """Splits ``input`` along ``split_axis`` into one block per process of the group, sends
    block k to process k, and concatenates the received blocks along ``concat_axis``."""

    name = "shard.all_to_all"
    split_axis = prop_def(IntegerAttr)
    concat_axis = prop_def(IntegerAttr)
    FORMAT: ClassVar = OpFormat(*_HEAD, _KeywordValue("split_axis", "split_axis"),
                                _KeywordValue("concat_axis", "concat_axis"), *_TAIL)


@irdl_op_definition
class ProcessLinearIndexOp(FormattedOp):
    """``shard.process_linear_index on @grid : index``: this process's row-major index."""

    name = "shard.process_linear_index"
    grid = prop_def(Attribute)
    result = result_def(IndexType())
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(Lit(" on "), SymbolRef("grid"), AttrDict(), " : index")

    @property
    def grid_name(self):
        return self.grid.root_reference.data


SHARD_OPS = [GridOp, AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, ProcessLinearIndexOp]


def build_dialect():
    """The ``shard`` Dialect."""
    return Dialect("shard", SHARD_OPS, [])
