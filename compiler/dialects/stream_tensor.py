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
from xdsl.dialects.builtin import ArrayAttr, DYNAMIC_INDEX
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
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
from rt.compiler.dialects.stream_types import (
    INDEX,
    ResourceType,
    entry_point_parts,
    index_array,
    int_list,
    parse_entry_points,
    parse_optional_workload,
    parse_resource_sized,
    parse_tied_result,
    print_entry_points,
    print_resource_sized,
    print_workload,
)

SEGMENTS = (AttrSizedOperandSegments(as_property=True),)


def dynamic_count(encoding):
    """Number of ``?`` dims of a tensor encoding type."""
    return sum(1 for d in encoding.get_shape() if d == DYNAMIC_INDEX)


def _check_dims(encoding, dims, what):
    if dynamic_count(encoding) != len(dims):
        raise VerifyException(f"{what} {encoding} has {dynamic_count(encoding)} dynamic dims but {len(dims)} sizes were given")


def _parse_encoded(parser):
    """``tensor<..>{dims} in !stream.resource<x>{%size}`` -> (encoding, dims, type, size)."""
    enc, dims = syn.parse_sized_type(parser)
    parser.parse_keyword("in")
    type_, size = parse_resource_sized(parser)
    return enc, dims, type_, size


def _print_encoded(printer, enc, dims, type_, size, tied=None, elide_same=False):
    syn.print_sized_type(printer, enc, dims)
    printer.print_string(" in ")
    if tied is not None:
        printer.print_ssa_value(tied)
        if elide_same and tied.type == type_:
            printer.print_string("{")
            printer.print_ssa_value(size)
            printer.print_string("}")
            return
        printer.print_string(" as ")
    print_resource_sized(printer, type_, size)


def _parse_optional_indices(parser):
    """``[%i, %j]`` when present -> index operands, else []."""
    if parser.parse_optional_punctuation("[") is None:
        return []
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation("]")
    return [parser.resolve_operand(n, INDEX) for n in names]


def _props(affinity, **extra):
    props = dict(extra)
    if affinity is not None:
        props["affinity"] = affinity
    return props


@irdl_op_definition
class TensorSizeOfOp(IRDLOperation):
    """``stream.tensor.sizeof on(#aff)? tensor<?x?xf32, #enc>{%d0, %d1} : index``: storage bytes."""

    name = "stream.tensor.sizeof"
    encoding = prop_def(Attribute)
    encoding_dims = var_operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    storage_size = result_def(INDEX)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        type_, dims = syn.parse_sized_type(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.build(operands=[dims], result_types=[parser.parse_type()],
                         properties=_props(affinity, encoding=type_), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        syn.print_sized_type(printer, self.encoding, self.encoding_dims)
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.storage_size.type)

    def verify_(self):
        _check_dims(self.encoding, self.encoding_dims, "encoding")


@irdl_op_definition
class TensorImportOp(IRDLOperation):
    """``stream.tensor.import on(#aff)? %bv : !hal.buffer_view -> tensor<..>{dims} in !stream.resource<external>{%size}``."""

    name = "stream.tensor.import"
    source = operand_def()
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = syn.parse_typed_operand(parser)
        parser.parse_punctuation("->")
        enc, dims, type_, size = _parse_encoded(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[src, dims, size], result_types=[type_],
                         properties=_props(affinity, result_encoding=enc), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        syn.print_typed_operand(printer, self.source, "", "")
        printer.print_string(" -> ")
        _print_encoded(printer, self.result_encoding, self.result_encoding_dims, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)

    def verify_(self):
        _check_dims(self.result_encoding, self.result_encoding_dims, "result encoding")


@irdl_op_definition
class TensorExportOp(IRDLOperation):
    """``stream.tensor.export on(#aff)? %r : tensor<..>{dims} in !stream.resource<external>{%size} -> !hal.buffer_view``."""

    name = "stream.tensor.export"
    source = operand_def(ResourceType)
    source_encoding_dims = var_operand_def(INDEX)
    source_size = operand_def(INDEX)
    source_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def()

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        enc, dims, type_, size = _parse_encoded(parser)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, type_), dims, size], result_types=[result_type],
                         properties=_props(affinity, source_encoding=enc), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" : ")
        _print_encoded(printer, self.source_encoding, self.source_encoding_dims, self.source.type, self.source_size)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        syn.print_attr_dict(printer, self.attributes)

    def verify_(self):
        _check_dims(self.source_encoding, self.source_encoding_dims, "source encoding")


@irdl_op_definition
class TensorEmptyOp(IRDLOperation):
    """``stream.tensor.empty on(#aff)? : tensor<?xf32>{%d} in !stream.resource<*>{%size}``."""

    name = "stream.tensor.empty"
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        parser.parse_punctuation(":")
        enc, dims, type_, size = _parse_encoded(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[dims, size], result_types=[type_],
                         properties=_props(affinity, result_encoding=enc), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" : ")
        _print_encoded(printer, self.result_encoding, self.result_encoding_dims, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


    def verify_(self):
        _check_dims(self.result_encoding, self.result_encoding_dims, "result encoding")

@irdl_op_definition
class TensorConstantOp(IRDLOperation):
    """``stream.tensor.constant on(#aff)? : tensor<4xf32> in !stream.resource<constant> = dense<..>``."""

    name = "stream.tensor.constant"
    result_encoding_dims = var_operand_def(INDEX)
    value = prop_def(Attribute)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        parser.parse_punctuation(":")
        enc, dims = syn.parse_sized_type(parser)
        parser.parse_keyword("in")
        type_ = parser.parse_type()
        parser.parse_punctuation("=")
        value = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[dims], result_types=[type_],
                         properties=_props(affinity, result_encoding=enc, value=value), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.result_encoding, self.result_encoding_dims)
        printer.print_string(" in ")
        printer.print_attribute(self.result.type)
        printer.print_string(" = ")
        printer.print_attribute(self.value)
        syn.print_attr_dict(printer, self.attributes)


    def verify_(self):
        _check_dims(self.result_encoding, self.result_encoding_dims, "result encoding")

@irdl_op_definition
class TensorSplatOp(IRDLOperation):
    """``stream.tensor.splat on(#aff)? %v : f32 -> tensor<4xf32> in !stream.resource<*>{%size}``."""

    name = "stream.tensor.splat"
    value = operand_def()
    result_encoding_dims = var_operand_def(INDEX)
    result_size = operand_def(INDEX)
    result_encoding = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        value = syn.parse_typed_operand(parser)
        parser.parse_punctuation("->")
        enc, dims, type_, size = _parse_encoded(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[value, dims, size], result_types=[type_],
                         properties=_props(affinity, result_encoding=enc), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        syn.print_typed_operand(printer, self.value, "", "")
        printer.print_string(" -> ")
        _print_encoded(printer, self.result_encoding, self.result_encoding_dims, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


    def verify_(self):
        _check_dims(self.result_encoding, self.result_encoding_dims, "result encoding")

@irdl_op_definition
class TensorCloneOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        senc, sdims, stype, ssize = _parse_encoded(parser)
        parser.parse_punctuation("->")
        renc, rdims, rtype, rsize = _parse_encoded(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, stype), sdims, ssize, rdims, rsize], result_types=[rtype],
                         properties=_props(affinity, source_encoding=senc, result_encoding=renc), attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" : ")
        _print_encoded(printer, self.source_encoding, self.source_encoding_dims, self.source.type, self.source_size)
        printer.print_string(" -> ")
        _print_encoded(printer, self.result_encoding, self.result_encoding_dims, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorSliceOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        starts = [parser.resolve_operand(o, INDEX) for o in
                  parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)]
        parser.parse_keyword("for")
        lengths = [parser.resolve_operand(o, INDEX) for o in
                   parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)]
        parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        senc, sdims, stype, ssize = _parse_encoded(parser)
        parser.parse_punctuation("->")
        renc, rdims, rtype, rsize = _parse_encoded(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, stype), sdims, ssize, starts, lengths, rdims, rsize],
                         result_types=[rtype], attributes=attrs,
                         properties=_props(affinity, source_encoding=senc, result_encoding=renc))

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string("[")
        printer.print_list(self.start_indices, printer.print_ssa_value)
        printer.print_string(" for ")
        printer.print_list(self.lengths, printer.print_ssa_value)
        printer.print_string("] : ")
        _print_encoded(printer, self.source_encoding, self.source_encoding_dims, self.source.type, self.source_size)
        printer.print_string(" -> ")
        _print_encoded(printer, self.result_encoding, self.result_encoding_dims, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorUpdateOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        upd = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        starts = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        uenc, udims, utype, usize = _parse_encoded(parser)
        parser.parse_punctuation("->")
        tenc, tdims = syn.parse_sized_type(parser)
        parser.parse_keyword("in")
        ttype, (tsize,), _ = parse_tied_result(parser, [tgt])
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(upd, utype), udims, usize, parser.resolve_operand(tgt, ttype),
                                   tdims, tsize, starts], result_types=[ttype], attributes=attrs,
                         properties=_props(affinity, update_encoding=uenc, target_encoding=tenc))

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.update)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        syn.print_operand_list(printer, self.start_indices)
        printer.print_string(" : ")
        _print_encoded(printer, self.update_encoding, self.update_encoding_dims, self.update.type, self.update_size)
        printer.print_string(" -> ")
        _print_encoded(printer, self.target_encoding, self.target_encoding_dims, self.result.type, self.target_size,
                       tied=self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorFillOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        starts, lengths = [], []
        if parser.parse_optional_punctuation("[") is not None:
            starts = [parser.resolve_operand(o, INDEX) for o in
                      parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)]
            parser.parse_keyword("for")
            lengths = [parser.resolve_operand(o, INDEX) for o in
                       parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)]
            parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        tenc, tdims = syn.parse_sized_type(parser)
        parser.parse_keyword("in")
        ttype, (tsize,), _ = parse_tied_result(parser, [tgt])
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(value, vtype), parser.resolve_operand(tgt, ttype), tdims,
                                   tsize, starts, lengths], result_types=[ttype], attributes=attrs,
                         properties=_props(affinity, target_encoding=tenc))

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        if self.start_indices:
            printer.print_string("[")
            printer.print_list(self.start_indices, printer.print_ssa_value)
            printer.print_string(" for ")
            printer.print_list(self.lengths, printer.print_ssa_value)
            printer.print_string("]")
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        _print_encoded(printer, self.target_encoding, self.target_encoding_dims, self.result.type, self.target_size,
                       tied=self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorLoadOp(IRDLOperation):
    """``stream.tensor.load %r[%i] : tensor<8xf32> in !stream.resource<staging>{%s} -> f32``."""

    name = "stream.tensor.load"
    source = operand_def(ResourceType)
    source_encoding_dims = var_operand_def(INDEX)
    source_size = operand_def(INDEX)
    indices = var_operand_def(INDEX)
    source_encoding = prop_def(Attribute)
    result = result_def()
    irdl_options = SEGMENTS

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        indices = _parse_optional_indices(parser)
        parser.parse_punctuation(":")
        enc, dims, type_, size = _parse_encoded(parser)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, type_), dims, size, indices], result_types=[result_type],
                         properties={"source_encoding": enc}, attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        if self.indices:
            syn.print_operand_list(printer, self.indices)
        printer.print_string(" : ")
        _print_encoded(printer, self.source_encoding, self.source_encoding_dims, self.source.type, self.source_size)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorStoreOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        indices = _parse_optional_indices(parser)
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        enc, dims = syn.parse_sized_type(parser)
        parser.parse_keyword("in")
        ttype, (tsize,), _ = parse_tied_result(parser, [tgt])
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(value, vtype), parser.resolve_operand(tgt, ttype), dims, tsize,
                                   indices], result_types=[ttype], properties={"target_encoding": enc}, attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        if self.indices:
            syn.print_operand_list(printer, self.indices)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        _print_encoded(printer, self.target_encoding, self.target_encoding_dims, self.result.type, self.target_size,
                       tied=self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorDispatchOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        entry_points = parse_entry_points(parser)
        workload = parse_optional_workload(parser)
        names = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        types, sizes, encs, enc_dims = [], [], [], []
        if parser.parse_optional_punctuation(")") is None:
            while True:
                enc, dims = syn.parse_sized_type(parser)
                if parser.parse_optional_keyword("in") is not None:
                    type_, size = parse_resource_sized(parser)
                    types.append(type_)
                    sizes.append(size)
                    encs.append(enc)
                    enc_dims.extend(dims)
                else:
                    types.append(enc)
                    encs.append(enc)
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        wrapped = parser.parse_optional_punctuation("(") is not None
        rtypes, rsizes, rencs, rdims, tied = [], [], [], [], []
        if not (wrapped and parser.parse_optional_punctuation(")") is not None):
            while True:
                enc, dims = syn.parse_sized_type(parser)
                parser.parse_keyword("in")
                rtype, rsize, tie = parse_tied_result(parser, names, types)
                rtypes.append(rtype)
                rsizes.extend(rsize)
                rencs.append(enc)
                rdims.extend(dims)
                tied.append(tie)
                if parser.parse_optional_punctuation(",") is None:
                    break
            if wrapped:
                parser.parse_punctuation(")")
        operands = syn.resolve_by_types(parser, names, types)
        props = _props(affinity, entry_points=entry_points, operand_encodings=ArrayAttr(encs),
                       result_encodings=ArrayAttr(rencs))
        if any(t >= 0 for t in tied):
            props["tied_operands"] = index_array(tied)
        return cls.build(operands=[workload, operands, sizes, enc_dims, rsizes, rdims], result_types=[rtypes],
                         properties=props, attributes=attrs)

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        print_entry_points(printer, self.entry_points)
        print_workload(printer, self.workload)
        syn.print_operand_list(printer, self.mixed_operands, "(", ")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : (")
        sizes, dims = iter(self.operand_sizes), list(self.operand_encoding_dims)
        for i, (value, enc) in enumerate(zip(self.mixed_operands, self.operand_encodings.data)):
            if i:
                printer.print_string(", ")
            if isinstance(value.type, ResourceType):
                count = dynamic_count(enc)
                _print_encoded(printer, enc, dims[:count], value.type, next(sizes))
                dims = dims[count:]
            else:
                printer.print_attribute(value.type)
        printer.print_string(") -> ")
        many = len(self.results_) != 1
        printer.print_string("(" if many else "")
        tied = int_list(self.tied_operands) or [-1] * len(self.results_)
        rdims = list(self.result_encoding_dims)
        for i, (result, enc) in enumerate(zip(self.results_, self.result_encodings.data)):
            if i:
                printer.print_string(", ")
            count = dynamic_count(enc)
            _print_encoded(printer, enc, rdims[:count], result.type, self.result_sizes[i],
                           tied=self.mixed_operands[tied[i]] if tied[i] >= 0 else None, elide_same=True)
            rdims = rdims[count:]
        printer.print_string(")" if many else "")

    def entry_point(self):
        """(executable name, export name) of the first entry point."""
        return entry_point_parts(self.entry_points.data[0])


TENSOR_OPS = [TensorSizeOfOp, TensorImportOp, TensorExportOp, TensorEmptyOp, TensorConstantOp, TensorSplatOp,
              TensorCloneOp, TensorSliceOp, TensorUpdateOp, TensorFillOp, TensorLoadOp, TensorStoreOp, TensorDispatchOp]
