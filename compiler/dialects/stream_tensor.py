"""``stream.tensor.*`` ops: tensor-typed views of resources before encoding (IREE's printed form).

Each op names its tensor as an *encoding* (``tensor<?x4xf32, #enc>{%d0}``) stored in a
resource (``in !stream.resource<*>{%size}``)::

    %s = stream.tensor.sizeof on(#aff) tensor<?x4xf32>{%d0} : index
    %r = stream.tensor.import on(#aff) %bv : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%s}
    %v = stream.tensor.export on(#aff) %r : tensor<4xf32> in !stream.resource<external>{%s} -> !hal.buffer_view
    %e = stream.tensor.empty on(#aff) : tensor<?xf32>{%d} in !stream.resource<*>{%s}
    %c = stream.tensor.constant on(#aff) : tensor<4xf32> in !stream.resource<constant> = dense<...> : tensor<4xf32>
    %p = stream.tensor.splat on(#aff) %f : f32 -> tensor<4xf32> in !stream.resource<*>{%s}
    %k = stream.tensor.clone on(#aff) %r : tensor<1x4xf32> in !stream.resource<*>{%s} -> tensor<4xf32> in !stream.resource<*>{%s}
    %l = stream.tensor.slice on(#aff) %r[%i for %n] : tensor<8xf32> in !stream.resource<*>{%s} -> tensor<4xf32> in !stream.resource<*>{%t}
    %u = stream.tensor.update on(#aff) %l, %r[%i] : tensor<4xf32> in !stream.resource<*>{%t} -> tensor<8xf32> in %r as !stream.resource<*>{%s}
    %f = stream.tensor.fill on(#aff) %x, %r[%i for %n] : f32 -> tensor<8xf32> in %r as !stream.resource<*>{%s}
    %x = stream.tensor.load %r[%i] : tensor<8xf32> in !stream.resource<staging>{%s} -> f32
    %w = stream.tensor.store %x, %r[%i] : f32 -> tensor<8xf32> in %r as !stream.resource<staging>{%s}
    %d = stream.tensor.dispatch on(#aff) @exe::@fn[%w](%r, %n) : (tensor<?xf32>{%n} in !stream.resource<*>{%s}, index)
             -> tensor<?xf32>{%n} in !stream.resource<*>{%s}

Source followed: IREE ``Dialect/Stream/IR/StreamOps.td`` (Stream_Tensor* ops).
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, DYNAMIC_INDEX
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import (
    AFFINITY,
    Attr,
    AttrDict,
    Custom,
    FormattedOp,
    Operand,
    Operands,
    OpFormat,
    Opt,
    Sized,
    Tied,
    Type,
)
from rt.compiler.dialects.stream_types import (
    INDEX,
    ResourceType,
    entry_point_parts,
    int_list,
    parse_entry_points,
    parse_resource_sized,
    parse_tied_result,
    print_entry_points,
    print_resource_sized,
    tied_props,
)

SEGMENTS = (AttrSizedOperandSegments(as_property=True),)


def dynamic_count(encoding):
    """Number of ``?`` dims of a tensor encoding type."""
    return sum(1 for d in encoding.get_shape() if d == DYNAMIC_INDEX)


def _encoding(prefix):
    """``tensor<..>{%<prefix>_encoding_dims}``: the ``<prefix>_encoding`` property with its dims."""
    return Sized(f"{prefix}_encoding", f"{prefix}_encoding_dims")


def _encoded(prefix, value):
    """``ENC{dims} in T{%<prefix>_size}``: encoding ``prefix`` stored in operand/result ``value``."""
    return _encoding(prefix), " in ", Sized(value, f"{prefix}_size")


def _tied(prefix):
    """``ENC{dims} in %target as T{%<prefix>_size}``: an in-place result of operand ``target``."""
    return _encoding(prefix), " in ", Tied("target", f"{prefix}_size")


#: ``[%i, ... for %n, ...]`` start indices and lengths.
SPAN = ("[", Operands("start_indices"), " for ", Operands("lengths"), "]")


class _EncodedOp(FormattedOp):
    """Checks that each ``<prefix>encoding`` has one ``<prefix>encoding_dims`` value per ``?`` dim."""

    ENCODINGS: ClassVar = ("result_",)

    def verify_(self):
        for prefix in self.ENCODINGS:
            encoding, dims = getattr(self, f"{prefix}encoding"), getattr(self, f"{prefix}encoding_dims")
            if dynamic_count(encoding) != len(dims):
                raise VerifyException(f"{prefix.replace('_', ' ')}encoding {encoding} has {dynamic_count(encoding)} "
                                      f"dynamic dims but {len(dims)} sizes were given")


@irdl_op_definition
class TensorSizeOfOp(_EncodedOp):
    """``stream.tensor.sizeof on(#aff)? tensor<?x?xf32, #enc>{%d0, %d1} : index``: storage bytes."""

    name = "stream.tensor.sizeof"
    encoding = prop_def(Attribute)
    encoding_dims = var_operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    storage_size = result_def(INDEX)
    traits = traits_def(Pure())
    ENCODINGS: ClassVar = ("",)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Sized("encoding", "encoding_dims"), AttrDict(), " : ",
                                Type("storage_size"))


@irdl_op_definition
class TensorImportOp(_EncodedOp):
    """``stream.tensor.import on(#aff)? %bv : !hal.buffer_view -> tensor<..>{dims} in !stream.resource<external>{%size}``."""

    name = "stream.tensor.import"
    source = operand_def()
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), " : ", Type("source"), " -> ",
                                *_encoded("result", "result"), AttrDict())


@irdl_op_definition
class TensorExportOp(_EncodedOp):
    """``stream.tensor.export on(#aff)? %r : tensor<..>{dims} in !stream.resource<external>{%size} -> !hal.buffer_view``."""

    name = "stream.tensor.export"
    source = operand_def(ResourceType)
    source_encoding_dims = var_operand_def(INDEX)
    source_size = operand_def(INDEX)
    source_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def()
    ENCODINGS: ClassVar = ("source_",)
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), " : ", *_encoded("source", "source"), " -> ",
                                Type("result"), AttrDict())


@irdl_op_definition
class TensorEmptyOp(_EncodedOp):
    """``stream.tensor.empty on(#aff)? : tensor<?xf32>{%d} in !stream.resource<*>{%size}``."""

    name = "stream.tensor.empty"
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(AFFINITY, " : ", *_encoded("result", "result"), AttrDict())


@irdl_op_definition
class TensorConstantOp(_EncodedOp):
    """``stream.tensor.constant on(#aff)? : tensor<4xf32> in !stream.resource<constant> = dense<..>``."""

    name = "stream.tensor.constant"
    result_encoding_dims = var_operand_def(INDEX)
    value = prop_def(Attribute)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(AFFINITY, " : ", _encoding("result"), " in ", Type("result"), " = ", Attr("value"),
                                AttrDict())


@irdl_op_definition
class TensorSplatOp(_EncodedOp):
    """``stream.tensor.splat on(#aff)? %v : f32 -> tensor<4xf32> in !stream.resource<*>{%size}``."""

    name = "stream.tensor.splat"
    value = operand_def()
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("value"), " : ", Type("value"), " -> ",
                                *_encoded("result", "result"), AttrDict())


@irdl_op_definition
class TensorCloneOp(FormattedOp):
    """``stream.tensor.clone on(#aff)? %r : ENC{..} in T{%s} -> ENC2{..} in T2{%s2}`` (also reshapes)."""

    name = "stream.tensor.clone"
    source = operand_def(ResourceType)
    source_encoding_dims = var_operand_def(INDEX)
    source_size = operand_def(INDEX)
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    source_encoding = prop_def(Attribute)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), " : ", *_encoded("source", "source"), " -> ",
                                *_encoded("result", "result"), AttrDict())


@irdl_op_definition
class TensorSliceOp(FormattedOp):
    """``stream.tensor.slice on(#aff)? %r[%i, %j for %m, %n] : ENC in T{%s} -> ENC2 in T{%s2}``."""

    name = "stream.tensor.slice"
    source = operand_def(ResourceType)
    source_encoding_dims = var_operand_def(INDEX)
    source_size = operand_def(INDEX)
    start_indices = var_operand_def(INDEX)
    lengths = var_operand_def(INDEX)
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    source_encoding = prop_def(Attribute)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), *SPAN, " : ", *_encoded("source", "source"), " -> ",
                                *_encoded("result", "result"), AttrDict())


@irdl_op_definition
class TensorUpdateOp(FormattedOp):
    """``stream.tensor.update on(#aff)? %u, %t[%i] : ENC in T{%us} -> ENC2 in %t as T{%ts}`` (in place)."""

    name = "stream.tensor.update"
    update = operand_def(ResourceType)
    update_encoding_dims = var_operand_def(INDEX)
    update_size = operand_def(INDEX)
    target = operand_def(ResourceType)
    target_encoding_dims = var_operand_def(INDEX)
    target_size = operand_def(INDEX)
    start_indices = var_operand_def(INDEX)
    update_encoding = prop_def(Attribute)
    target_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("update"), ", ", Operand("target"),
                                Operands("start_indices", "[]"), " : ", *_encoded("update", "update"), " -> ",
                                *_tied("target"), AttrDict())


@irdl_op_definition
class TensorFillOp(FormattedOp):
    """``stream.tensor.fill on(#aff)? %v, %t[%i for %n] : f32 -> ENC in %t as T{%s}`` (in place)."""

    name = "stream.tensor.fill"
    value = operand_def()
    target = operand_def(ResourceType)
    target_encoding_dims = var_operand_def(INDEX)
    target_size = operand_def(INDEX)
    start_indices = var_operand_def(INDEX)
    lengths = var_operand_def(INDEX)
    target_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("value"), ", ", Operand("target"), Opt(*SPAN), " : ",
                                Type("value"), " -> ", *_tied("target"), AttrDict())


@irdl_op_definition
class TensorLoadOp(FormattedOp):
    """``stream.tensor.load %r[%i] : tensor<8xf32> in !stream.resource<staging>{%s} -> f32``."""

    name = "stream.tensor.load"
    source = operand_def(ResourceType)
    source_encoding_dims = var_operand_def(INDEX)
    source_size = operand_def(INDEX)
    indices = var_operand_def(INDEX)
    source_encoding = prop_def(Attribute)
    result = result_def()
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), Opt("[", Operands("indices"), "]"), " : ",
                                *_encoded("source", "source"), " -> ", Type("result"), AttrDict())


@irdl_op_definition
class TensorStoreOp(FormattedOp):
    """``stream.tensor.store %v, %r[%i] : f32 -> tensor<8xf32> in %r as !stream.resource<staging>{%s}``."""

    name = "stream.tensor.store"
    value = operand_def()
    target = operand_def(ResourceType)
    target_encoding_dims = var_operand_def(INDEX)
    target_size = operand_def(INDEX)
    indices = var_operand_def(INDEX)
    target_encoding = prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = SEGMENTS
    FORMAT: ClassVar = OpFormat(" ", Operand("value"), ", ", Operand("target"), Opt("[", Operands("indices"), "]"),
                                " : ", Type("value"), " -> ", *_tied("target"), AttrDict())


def _parse_encoded_operand(parser):
    """``ENC{dims} in T{%s}`` (a resource) or a plain type -> (type, encoding, dims, sizes)."""
    enc, dims = syn.parse_sized_type(parser)
    if parser.parse_optional_keyword("in") is None:
        return enc, enc, [], []
    type_, size = parse_resource_sized(parser)
    return type_, enc, dims, [size]


def _print_encoded(printer, enc, dims, type_, size, tied=None):
    """``ENC{dims} in T{%s}``; a tied one as ``in %t{%s}`` (same type) or ``in %t as T{%s}``."""
    syn.print_sized_type(printer, enc, dims)
    printer.print_string(" in ")
    if tied is not None:
        printer.print_ssa_value(tied)
        if tied.type == type_:
            syn.print_operand_list(printer, [size], "{", "}")
            return
        printer.print_string(" as ")
    print_resource_sized(printer, type_, size)


@irdl_op_definition
class TensorDispatchOp(FormattedOp):
    """``stream.tensor.dispatch on(#aff)? @exe::@fn[%w](%r, %n) : (ENC in T{%s}, index) -> ENC in T{%s}``.

    Properties: ``entry_points`` (ArrayAttr of @exe::@fn), ``operand_encodings`` (one type per
    operand: the tensor encoding for resources, the operand type otherwise), ``result_encodings``
    and ``tied_operands`` (per result: index into the operands or -1).
    """

    name = "stream.tensor.dispatch"
    workload = var_operand_def(INDEX)
    mixed_operands = var_operand_def()
    operand_sizes = var_operand_def(INDEX)
    operand_encoding_dims = var_operand_def(INDEX)
    result_sizes = var_operand_def(INDEX)
    result_encoding_dims = var_operand_def(INDEX)
    entry_points = prop_def(ArrayAttr)
    operand_encodings = prop_def(ArrayAttr)
    result_encodings = prop_def(ArrayAttr)
    tied_operands = opt_prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    irdl_options = SEGMENTS

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        entry_points = parse_entry_points(parser)
        workload = syn.parse_optional_workload(parser)
        names = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, lambda: _parse_encoded_operand(parser))
        types = [t for t, _, _, _ in operands]
        parser.parse_punctuation("->")

        def result():
            enc, dims = syn.parse_sized_type(parser)
            parser.parse_keyword("in")
            type_, sizes, tie = parse_tied_result(parser, names, types)
            return type_, enc, dims, sizes, tie

        results = syn.parse_result_list(parser, result)
        props = syn.props_with_affinity(affinity, entry_points=entry_points,
                                        operand_encodings=ArrayAttr([e for _, e, _, _ in operands]),
                                        result_encodings=ArrayAttr([e for _, e, _, _, _ in results]))
        return cls.build(operands=[workload, syn.resolve_by_types(parser, names, types),
                                   [s for *_, ss in operands for s in ss], [d for _, _, ds, _ in operands for d in ds],
                                   [s for _, _, _, ss, _ in results for s in ss],
                                   [d for _, _, ds, _, _ in results for d in ds]],
                         result_types=[[t for t, *_ in results]], attributes=attrs,
                         properties=tied_props(props, [t for *_, t in results]))

    def print_syntax(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        print_entry_points(printer, self.entry_points)
        syn.print_workload(printer, self.workload)
        syn.print_operand_list(printer, self.mixed_operands, "(", ")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : (")
        sizes, dims = iter(self.operand_sizes), list(self.operand_encoding_dims)

        def operand(pair):
            nonlocal dims
            value, enc = pair
            if not isinstance(value.type, ResourceType):
                printer.print_attribute(value.type)
                return
            count = dynamic_count(enc)
            _print_encoded(printer, enc, dims[:count], value.type, next(sizes))
            dims = dims[count:]

        printer.print_list(list(zip(self.mixed_operands, self.operand_encodings.data)), operand)
        printer.print_string(") -> ")
        tied = int_list(self.tied_operands) or [-1] * len(self.results_)
        rdims = list(self.result_encoding_dims)

        def result(i, value):
            nonlocal rdims
            enc = self.result_encodings.data[i]
            count = dynamic_count(enc)
            _print_encoded(printer, enc, rdims[:count], value.type, self.result_sizes[i],
                           tied=self.mixed_operands[tied[i]] if tied[i] >= 0 else None)
            rdims = rdims[count:]

        syn.print_result_list(printer, self.results_, result)

    def entry_point(self):
        """(executable name, export name) of the first entry point."""
        return entry_point_parts(self.entry_points.data[0])


TENSOR_OPS = [TensorSizeOfOp, TensorImportOp, TensorExportOp, TensorEmptyOp, TensorConstantOp, TensorSplatOp,
              TensorCloneOp, TensorSliceOp, TensorUpdateOp, TensorFillOp, TensorLoadOp, TensorStoreOp, TensorDispatchOp]
