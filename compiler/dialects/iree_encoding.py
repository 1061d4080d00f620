"""The ``iree_encoding`` dialect: the data-tiling encoding attribute and set/unset ops.

``#iree_encoding.encoding<operand_index = 0 : index, op_type = matmul,
element_types = [f32, f32, f32], user_indexing_maps = [#map0, #map1, #map2],
round_dims_to = array<i64: 32, 32, 32>, iteration_sizes = [?, 16, 32],
layouts = [#iree_cpu.cpu_encoding_layout<...>]>`` describes which operand of which
contraction a tensor feeds; ``iteration_sizes`` are the contraction's static loop sizes
(``?`` when dynamic; resolvers use them to spot narrow matmuls); ``layouts`` holds the
per-device resolved layouts after specialize-encodings (then ``user_indexing_maps`` is
usually dropped). ``iree_encoding.set_encoding`` / ``unset_encoding`` move a tensor into and
out of an encoded type.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Encoding/IR/EncodingAttrs.td``,
``EncodingOps.td`` (and the seed 001 dumps).
"""
from typing import ClassVar

from xdsl.dialects.builtin import (ArrayAttr, DenseArrayBase, IndexType, IntAttr, IntegerAttr, NoneAttr, StringAttr,
                                   TensorType)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition, irdl_op_definition, operand_def, param_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import AttrDict, FormattedOp, Operand, OpFormat, Sized, Type

_FIELDS = ("operand_index", "op_type", "element_types", "user_indexing_maps", "round_dims_to",
           "iteration_sizes", "layouts")
#: ``?`` in ``iteration_sizes`` (a dynamic loop size).
DYNAMIC = -1


def _parse_iteration_sizes(parser):
    def one():
        if parser.parse_optional_punctuation("?") is not None:
            return IntAttr(DYNAMIC)
        return IntAttr(parser.parse_integer(allow_boolean=False, allow_negative=False))

    return ArrayAttr(parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one))


@irdl_attr_definition
class EncodingAttr(ParametrizedAttribute):
    """``#iree_encoding.encoding<...>``; absent fields are stored as ``#builtin.none`` / ``[]``."""

    name = "iree_encoding.encoding"
    operand_index: IntegerAttr = param_def()
    op_type: StringAttr = param_def()
    element_types: ArrayAttr = param_def()
    user_indexing_maps: ArrayAttr = param_def()
    round_dims_to: Attribute = param_def()
    iteration_sizes: ArrayAttr = param_def()
    layouts: ArrayAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        values = {}
        while True:
            pos = parser.pos
            key = parser.parse_identifier()
            if key not in _FIELDS:
                parser.raise_error(f"unknown #iree_encoding.encoding field '{key}'; expected one of {', '.join(_FIELDS)}", pos)
            parser.parse_punctuation("=")
            if key == "op_type":
                values[key] = StringAttr(parser.parse_identifier())
            elif key == "iteration_sizes":
                values[key] = _parse_iteration_sizes(parser)
            else:
                values[key] = parser.parse_attribute()
            if not parser.parse_optional_punctuation(","):
                break
        parser.parse_punctuation(">")
        for required in ("operand_index", "op_type", "element_types"):
            if required not in values:
                parser.raise_error(f"#iree_encoding.encoding is missing '{required} = ...'")
        return (
            values["operand_index"],
            values["op_type"],
            values["element_types"],
            values.get("user_indexing_maps", ArrayAttr([])),
            values.get("round_dims_to", NoneAttr()),
            values.get("iteration_sizes", ArrayAttr([])),
            values.get("layouts", ArrayAttr([])),
        )

    def print_parameters(self, printer):
        printer.print_string("<operand_index = ")
        printer.print_attribute(self.operand_index)
        printer.print_string(f", op_type = {self.op_type.data}, element_types = ")
        printer.print_attribute(self.element_types)
        if self.user_indexing_maps.data:
            printer.print_string(", user_indexing_maps = ")
            printer.print_attribute(self.user_indexing_maps)
        if not isinstance(self.round_dims_to, NoneAttr):
            printer.print_string(", round_dims_to = ")
            printer.print_attribute(self.round_dims_to)
        if self.iteration_sizes.data:
            sizes = ", ".join("?" if a.data == DYNAMIC else str(a.data) for a in self.iteration_sizes.data)
            printer.print_string(f", iteration_sizes = [{sizes}]")
        if self.layouts.data:
            printer.print_string(", layouts = ")
            printer.print_attribute(self.layouts)
        printer.print_string(">")

    def verify(self):
        if self.op_type.data not in ("matmul", "conv"):
            raise VerifyException(f"#iree_encoding.encoding: op_type must be matmul or conv, got {self.op_type.data}")
        if not isinstance(self.round_dims_to, NoneAttr | DenseArrayBase):
            raise VerifyException("#iree_encoding.encoding: round_dims_to must be array<i64: ...>")

    @property
    def index(self):
        return self.operand_index.value.data

    @property
    def sizes(self):
        """The static iteration sizes (None per dynamic one), or None when not recorded."""
        if not self.iteration_sizes.data:
            return None
        return tuple(None if a.data == DYNAMIC else a.data for a in self.iteration_sizes.data)

    def with_layouts(self, layouts):
        """This encoding with ``layouts`` resolved (user_indexing_maps and round_dims_to
        dropped, as IREE's specialize-encodings serializes it)."""
        return EncodingAttr(self.operand_index, self.op_type, self.element_types, ArrayAttr([]),
                            NoneAttr(), ArrayAttr([]), ArrayAttr(list(layouts)))


@irdl_attr_definition
class PackedStorageAttr(ParametrizedAttribute):
    """``#iree_encoding.packed_storage``: the tensor's sub-byte elements are stored densely.

    IREE packs i2 / i4 by default; with this encoding an ``i1`` tensor is packed too, eight
    elements to a byte (element k at bit k % 8). rt keeps such tensors in byte storage inside
    a program and converts where they are bitcast (``rt-unpack-packed-storage``).
    """

    name = "iree_encoding.packed_storage"


def tensor_encoding(type_):
    """The ``EncodingAttr`` of a tensor type, or None."""
    if isinstance(type_, TensorType) and isinstance(type_.encoding, EncodingAttr):
        return type_.encoding
    return None


class _EncodingCastOp(FormattedOp):
    source = operand_def(TensorType)
    result_dims = var_operand_def(IndexType())
    result = result_def(TensorType)
    traits = traits_def(Pure())

    FORMAT: ClassVar = OpFormat(" ", Operand("source"), " : ", Type("source"), " -> ", Sized("result", "result_dims"),
                                AttrDict())

    def verify_(self):
        src, dst = self.source.type, self.result.type
        if src.get_shape() != dst.get_shape() or src.element_type != dst.element_type:
            raise VerifyException(f"{self.name}: source {src} and result {dst} must differ only in encoding")


@irdl_op_definition
class SetEncodingOp(_EncodingCastOp):
    """``iree_encoding.set_encoding %t : tensor<?x?xf32> -> tensor<?x?xf32, #enc>``."""

    name = "iree_encoding.set_encoding"


@irdl_op_definition
class UnsetEncodingOp(_EncodingCastOp):
    """``iree_encoding.unset_encoding %t : tensor<?x?xf32, #enc> -> tensor<?x?xf32>{%d0, %d1}``."""

    name = "iree_encoding.unset_encoding"


def build_dialect():
    """The ``iree_encoding`` Dialect."""
    return Dialect("iree_encoding", [SetEncodingOp, UnsetEncodingOp], [EncodingAttr, PackedStorageAttr])
