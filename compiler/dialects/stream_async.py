"""``stream.async.*`` ops: value-semantics resource work and the execution regions holding it.

IREE's printed form (every op may carry ``on(#hal.device.affinity<@dev>)``)::

    %a = stream.async.alloca : !stream.resource<transient>{%s}
    %c = stream.async.constant : !stream.resource<constant>{%s} = dense<...> : tensor<4xf32>
    %p = stream.async.splat %v : f32 -> !stream.resource<*>{%s}
    %k = stream.async.clone %r : !stream.resource<*>{%s} -> !stream.resource<*>{%s}
    %l = stream.async.slice %r[%o to %e] : !stream.resource<*>{%s} -> !stream.resource<*>{%n}
    %f = stream.async.fill %v, %r[%o to %e for %n] : f32 -> %r as !stream.resource<*>{%s}
    %u = stream.async.update %l, %r[%o to %e] : !stream.resource<*>{%n} -> %r as !stream.resource<*>{%s}
    %y = stream.async.copy %a[%o to %e], %b[%o2 to %e2], %n : !stream.resource<*>{%s} -> %b as !stream.resource<*>{%t}
    %t = stream.async.transfer %r : !stream.resource<*>{%s} from(#a) -> to(#b) !stream.resource<*>{%s}
    %x = stream.async.load %r[%o] : !stream.resource<staging>{%s} -> f32
    %w = stream.async.store %x, %r[%o] : f32 -> %r as !stream.resource<staging>{%s}
    %d = stream.async.dispatch @exe::@fn[%w](%r[%c0 to %s for %s], %n) : (!stream.resource<*>{%s}, index) -> !stream.resource<*>{%s}
    %res, %tp = stream.async.execute await(%t0) => with(%r as %arg0: !stream.resource<external>{%s})
                    -> !stream.resource<external>{%s} { ... stream.yield %v : !stream.resource<external>{%s} } => !stream.timepoint
    %c:2 = stream.async.concurrent with(%a as %x: !stream.resource<transient>{%s}) -> (...) { ... stream.yield ... }

Result-to-operand ties (in-place results) are ``tied_operands`` properties: one index per result
into the op's operands, -1 when the result is a new resource.

Source followed: IREE ``Dialect/Stream/IR/StreamOps.td`` (Stream_Async* ops, custom<ResourceRegion>).
"""
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import IsTerminator, Pure

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects.stream_types import (
    INDEX,
    ResourceType,
    TimepointType,
    entry_point_parts,
    find_tied,
    index_array,
    int_list,
    parse_entry_points,
    parse_optional_await,
    parse_optional_workload,
    parse_resource_sized,
    parse_tied_result,
    print_await,
    print_entry_points,
    print_resource_sized,
    print_tied_result,
    print_workload,
)

SEGMENTS = (AttrSizedOperandSegments(as_property=True),)


def _props(affinity, **extra):
    props = dict(extra)
    if affinity is not None:
        props["affinity"] = affinity
    return props


def _print_head(printer, op):
    syn.print_affinity(printer, op.affinity)


def _parse_range(parser, with_length):
    """``[%o to %e]`` or ``[%o to %e for %l]`` -> resolved index operands."""
    parser.parse_punctuation("[")
    values = [parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)]
    parser.parse_keyword("to")
    values.append(parser.resolve_operand(parser.parse_unresolved_operand(), INDEX))
    if with_length:
        parser.parse_keyword("for")
        values.append(parser.resolve_operand(parser.parse_unresolved_operand(), INDEX))
    parser.parse_punctuation("]")
    return values


def _print_range(printer, offset, end, length=None):
    printer.print_string("[")
    printer.print_ssa_value(offset)
    printer.print_string(" to ")
    printer.print_ssa_value(end)
    if length is not None:
        printer.print_string(" for ")
        printer.print_ssa_value(length)
    printer.print_string("]")


def parse_shaped_results(parser, names, types):
    """IREE's ``custom<ShapedResultList>``: ``T{%s}, %x, %y as T{%s}`` -> (types, sizes, tied)."""
    rtypes, rsizes, tied = [], [], []
    while True:
        name = parser.parse_optional_unresolved_operand()
        if name is not None:
            index = find_tied(parser, name, names)
            if parser.parse_optional_keyword("as") is not None:
                type_, dims = syn.parse_sized_type(parser)
            else:
                type_ = types[index]
                dims = [parser.resolve_operand(d, INDEX) for d in syn.parse_optional_dims(parser)]
            tied.append(index)
        else:
            type_, dims = syn.parse_sized_type(parser)
            tied.append(-1)
        rtypes.append(type_)
        rsizes.extend(dims)
        if parser.parse_optional_punctuation(",") is None:
            return rtypes, rsizes, tied


def print_shaped_results(printer, operands, results, sizes, tied):
    """Prints a result list in ``custom<ShapedResultList>`` form (ties as ``%operand``)."""
    sizes = list(sizes)
    for i, result in enumerate(results):
        if i:
            printer.print_string(", ")
        size = sizes.pop(0) if isinstance(result.type, ResourceType) else None
        tie = tied[i] if i < len(tied) else -1
        if tie >= 0:
            printer.print_ssa_value(operands[tie])
            if operands[tie].type != result.type:
                printer.print_string(" as ")
                printer.print_attribute(result.type)
        else:
            printer.print_attribute(result.type)
        if size is not None:
            printer.print_string("{")
            printer.print_ssa_value(size)
            printer.print_string("}")


@irdl_op_definition
class AsyncAllocaOp(IRDLOperation):
    """``stream.async.alloca on(#aff)? : !stream.resource<x>{%size}``: an uninitialized resource."""

    name = "stream.async.alloca"
    storage_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_, size = parse_resource_sized(parser)
        return cls.build(operands=[size], result_types=[type_], properties=_props(affinity), attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        print_resource_sized(printer, self.result.type, self.storage_size)


@irdl_op_definition
class AsyncConstantOp(IRDLOperation):
    """``stream.async.constant on(#aff)? : !stream.resource<constant>{%s} = dense<..>``."""

    name = "stream.async.constant"
    await_timepoint = var_operand_def(TimepointType)
    result_size = operand_def(INDEX)
    value = prop_def(Attribute)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)
    irdl_options = SEGMENTS

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        awaits = parse_optional_await(parser, arrow=False)
        parser.parse_punctuation(":")
        type_, size = parse_resource_sized(parser)
        parser.parse_punctuation("=")
        value = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[awaits, size], result_types=[type_], properties=_props(affinity, value=value),
                         attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        print_await(printer, self.await_timepoint, arrow=False)
        printer.print_string(" : ")
        print_resource_sized(printer, self.result.type, self.result_size)
        printer.print_string(" = ")
        printer.print_attribute(self.value)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncSplatOp(IRDLOperation):
    """``stream.async.splat on(#aff)? %v : f32 -> !stream.resource<*>{%s}``: a resource filled with %v."""

    name = "stream.async.splat"
    value = operand_def()
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        value = syn.parse_typed_operand(parser)
        parser.parse_punctuation("->")
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[value, size], result_types=[type_], properties=_props(affinity), attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        syn.print_typed_operand(printer, self.value, "", "")
        printer.print_string(" -> ")
        print_resource_sized(printer, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncCloneOp(IRDLOperation):
    """``stream.async.clone on(#aff)? %r : !stream.resource<a>{%s} -> !stream.resource<b>{%s}``: a copy."""

    name = "stream.async.clone"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        stype, ssize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, stype), ssize, size], result_types=[type_],
                         properties=_props(affinity), attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        printer.print_string(" -> ")
        print_resource_sized(printer, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncSliceOp(IRDLOperation):
    """``stream.async.slice on(#aff)? %r[%o to %e] : !stream.resource<*>{%s} -> !stream.resource<*>{%n}``."""

    name = "stream.async.slice"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    source_end = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        offset, end = _parse_range(parser, False)
        parser.parse_punctuation(":")
        stype, ssize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, stype), ssize, offset, end, size], result_types=[type_],
                         properties=_props(affinity), attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        _print_range(printer, self.source_offset, self.source_end)
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        printer.print_string(" -> ")
        print_resource_sized(printer, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncFillOp(IRDLOperation):
    """``stream.async.fill on(#aff)? %v, %t[%o to %e for %n] : f32 -> %t as !stream.resource<*>{%s}`` (in place)."""

    name = "stream.async.fill"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_end = operand_def(INDEX)
    target_length = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        offset, end, length = _parse_range(parser, True)
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        type_, (size,), _ = parse_tied_result(parser, [tgt])
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(value, vtype), parser.resolve_operand(tgt, type_), size,
                                   offset, end, length], result_types=[type_], properties=_props(affinity),
                         attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        _print_range(printer, self.target_offset, self.target_end, self.target_length)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        print_tied_result(printer, self, self.result.type, self.target_size, self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncUpdateOp(IRDLOperation):
    """``stream.async.update on(#aff)? %u, %t[%o to %e] : !stream.resource<*>{%n} -> %t as !stream.resource<*>{%s}``."""

    name = "stream.async.update"
    update = operand_def(ResourceType)
    update_size = operand_def(INDEX)
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_end = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        upd = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        offset, end = _parse_range(parser, False)
        parser.parse_punctuation(":")
        utype, usize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        type_, (size,), _ = parse_tied_result(parser, [tgt])
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(upd, utype), usize, parser.resolve_operand(tgt, type_), size,
                                   offset, end], result_types=[type_], properties=_props(affinity), attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.update)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        _print_range(printer, self.target_offset, self.target_end)
        printer.print_string(" : ")
        print_resource_sized(printer, self.update.type, self.update_size)
        printer.print_string(" -> ")
        print_tied_result(printer, self, self.result.type, self.target_size, self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncCopyOp(IRDLOperation):
    """``stream.async.copy on(#aff)? %s[%o to %e], %t[%o2 to %e2], %n : T{%ss} -> %t as T{%ts}`` (in place)."""

    name = "stream.async.copy"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    source_end = operand_def(INDEX)
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    target_end = operand_def(INDEX)
    length = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        soff, send = _parse_range(parser, False)
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        toff, tend = _parse_range(parser, False)
        parser.parse_punctuation(",")
        length = parser.resolve_operand(parser.parse_unresolved_operand(), INDEX)
        parser.parse_punctuation(":")
        stype, ssize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        type_, (size,), _ = parse_tied_result(parser, [tgt])
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, stype), ssize, soff, send,
                                   parser.resolve_operand(tgt, type_), size, toff, tend, length],
                         result_types=[type_], properties=_props(affinity), attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        _print_range(printer, self.source_offset, self.source_end)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        _print_range(printer, self.target_offset, self.target_end)
        printer.print_string(", ")
        printer.print_ssa_value(self.length)
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        printer.print_string(" -> ")
        print_tied_result(printer, self, self.result.type, self.target_size, self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncTransferOp(IRDLOperation):
    """``stream.async.transfer on(#x)? %r : T{%s} from(#a)? -> to(#b)? T2{%s}``: move/copy between affinities."""

    name = "stream.async.transfer"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    result_size = operand_def(INDEX)
    affinity = opt_prop_def(Attribute)
    source_affinity = opt_prop_def(Attribute)
    result_affinity = opt_prop_def(Attribute)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        src_type, src_size = parse_resource_sized(parser)
        props = _props(affinity)
        if (aff := syn.parse_keyword_paren(parser, "from", parser.parse_attribute)) is not None:
            props["source_affinity"] = aff
        parser.parse_punctuation("->")
        if (aff := syn.parse_keyword_paren(parser, "to", parser.parse_attribute)) is not None:
            props["result_affinity"] = aff
        type_, size = parse_resource_sized(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, src_type), src_size, size], result_types=[type_],
                         properties=props, attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        if self.source_affinity is not None:
            printer.print_string(" from(")
            printer.print_attribute(self.source_affinity)
            printer.print_string(")")
        printer.print_string(" -> ")
        if self.result_affinity is not None:
            printer.print_string("to(")
            printer.print_attribute(self.result_affinity)
            printer.print_string(") ")
        print_resource_sized(printer, self.result.type, self.result_size)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncLoadOp(IRDLOperation):
    """``stream.async.load %r[%o] : !stream.resource<staging>{%s} -> f32``."""

    name = "stream.async.load"
    source = operand_def(ResourceType)
    source_size = operand_def(INDEX)
    source_offset = operand_def(INDEX)
    result = result_def()

    @classmethod
    def parse(cls, parser):
        src = parser.parse_unresolved_operand()
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        stype, ssize = parse_resource_sized(parser)
        parser.parse_punctuation("->")
        type_ = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(src, stype), ssize, offset], result_types=[type_],
                         attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        syn.print_operand_list(printer, [self.source_offset])
        printer.print_string(" : ")
        print_resource_sized(printer, self.source.type, self.source_size)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncStoreOp(IRDLOperation):
    """``stream.async.store %v, %r[%o] : f32 -> %r as !stream.resource<staging>{%s}`` (in place)."""

    name = "stream.async.store"
    value = operand_def()
    target = operand_def(ResourceType)
    target_size = operand_def(INDEX)
    target_offset = operand_def(INDEX)
    result = result_def(ResourceType)

    @classmethod
    def parse(cls, parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tgt = parser.parse_unresolved_operand()
        (offset,) = syn.parse_index_list(parser)
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        type_, (size,), _ = parse_tied_result(parser, [tgt])
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[parser.resolve_operand(value, vtype), parser.resolve_operand(tgt, type_), size,
                                   offset], result_types=[type_], attributes=attrs)

    def print(self, printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.target)
        syn.print_operand_list(printer, [self.target_offset])
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" -> ")
        print_tied_result(printer, self, self.result.type, self.target_size, self.target)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class AsyncDispatchOp(IRDLOperation):
    """``stream.async.dispatch on(#aff)? @exe::@fn[%w](%r[%o to %e for %l], %n) : (T{%s}, index) -> T{%s}``.

    ``resource_operands`` mixes resources (each with an offset/end/length range, in order) and
    scalar operands. Results are new resources unless ``tied_operands`` names an operand.
    """

    name = "stream.async.dispatch"
    workload = var_operand_def(INDEX)
    resource_operands = var_operand_def()
    resource_operand_sizes = var_operand_def(INDEX)
    resource_operand_offsets = var_operand_def(INDEX)
    resource_operand_ends = var_operand_def(INDEX)
    resource_operand_lengths = var_operand_def(INDEX)
    result_sizes = var_operand_def(INDEX)
    entry_points = prop_def(ArrayAttr)
    tied_operands = opt_prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    irdl_options = SEGMENTS

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        entry_points = parse_entry_points(parser)
        workload = parse_optional_workload(parser)
        names, offsets, ends, lengths = [], [], [], []
        parser.parse_punctuation("(")
        if parser.parse_optional_punctuation(")") is None:
            while True:
                names.append(parser.parse_unresolved_operand())
                if parser._current_token.text == "[":
                    offset, end, length = _parse_range(parser, True)
                    offsets.append(offset)
                    ends.append(end)
                    lengths.append(length)
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types, sizes = [], []
        parser.parse_punctuation("(")
        if parser.parse_optional_punctuation(")") is None:
            while True:
                type_, dims = syn.parse_sized_type(parser)
                types.append(type_)
                sizes.extend(dims)
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        wrapped = parser.parse_optional_punctuation("(") is not None
        rtypes, rsizes, tied = [], [], []
        if not (wrapped and parser.parse_optional_punctuation(")") is not None):
            rtypes, rsizes, tied = parse_shaped_results(parser, names, types)
            if wrapped:
                parser.parse_punctuation(")")
        props = _props(affinity, entry_points=entry_points)
        if any(t >= 0 for t in tied):
            props["tied_operands"] = index_array(tied)
        operands = syn.resolve_by_types(parser, names, types)
        return cls.build(operands=[workload, operands, sizes, offsets, ends, lengths, rsizes], result_types=[rtypes],
                         properties=props, attributes=attrs)

    def print(self, printer):
        _print_head(printer, self)
        printer.print_string(" ")
        print_entry_points(printer, self.entry_points)
        print_workload(printer, self.workload)
        printer.print_string("(")
        ranges = iter(zip(self.resource_operand_offsets, self.resource_operand_ends, self.resource_operand_lengths))
        for i, value in enumerate(self.resource_operands):
            if i:
                printer.print_string(", ")
            printer.print_ssa_value(value)
            if isinstance(value.type, ResourceType):
                _print_range(printer, *next(ranges))
        printer.print_string(")")
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" : (")
        sizes = iter(self.resource_operand_sizes)
        printer.print_list(self.resource_operands, lambda v: syn.print_sized_type(
            printer, v.type, [next(sizes)] if isinstance(v.type, ResourceType) else []))
        printer.print_string(") -> ")
        many = len(self.results_) != 1
        printer.print_string("(" if many else "")
        print_shaped_results(printer, self.resource_operands, self.results_, self.result_sizes,
                             int_list(self.tied_operands))
        printer.print_string(")" if many else "")

    def entry_point(self):
        """(executable name, export name) of the first entry point."""
        return entry_point_parts(self.entry_points.data[0])


def _parse_resource_region(parser):
    """``with(%x as %a: T{%s}, ...) (-> results)? { region }`` -> pieces for execute/concurrent."""
    parser.parse_keyword("with")
    names, args, types, sizes = [], [], [], []
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is None:
        while True:
            names.append(parser.parse_unresolved_operand())
            parser.parse_keyword("as")
            arg = parser.parse_argument(expect_type=False)
            parser.parse_punctuation(":")
            type_, dims = syn.parse_sized_type(parser)
            args.append(arg.resolve(type_))
            types.append(type_)
            sizes.extend(dims)
            if parser.parse_optional_punctuation(",") is None:
                break
        parser.parse_punctuation(")")
    rtypes, rsizes, tied = [], [], []
    if parser.parse_optional_punctuation("->") is not None:
        wrapped = parser.parse_optional_punctuation("(") is not None
        if not (wrapped and parser.parse_optional_punctuation(")") is not None):
            rtypes, rsizes, tied = parse_shaped_results(parser, names, types)
            if wrapped:
                parser.parse_punctuation(")")
    region = parser.parse_region(args)
    operands = syn.resolve_by_types(parser, names, types)
    return operands, sizes, rtypes, rsizes, tied, region


def _print_resource_region(printer, op, results):
    printer.print_string(" with(")
    sizes = iter(op.resource_operand_sizes)
    block = op.body.blocks[0]
    for i, (value, arg) in enumerate(zip(op.resource_operands, block.args)):
        if i:
            printer.print_string(", ")
        printer.print_ssa_value(value)
        printer.print_string(" as ")
        printer.print_block_argument(arg, print_type=False)
        printer.print_string(": ")
        print_resource_sized(printer, arg.type, next(sizes))
    printer.print_string(")")
    if results:
        printer.print_string(" -> ")
        many = len(results) != 1
        printer.print_string("(" if many else "")
        print_shaped_results(printer, op.resource_operands, results, op.result_sizes, int_list(op.tied_operands))
        printer.print_string(")" if many else "")
    printer.print_string(" ")
    printer.print_region(op.body, print_entry_block_args=False)


@irdl_op_definition
class AsyncExecuteOp(IRDLOperation):
    """``%r, %tp = stream.async.execute on(#aff)? await(%t)? => with(...) -> T{%s} {...} => !stream.timepoint``."""

    name = "stream.async.execute"
    resource_operands = var_operand_def(ResourceType)
    resource_operand_sizes = var_operand_def(INDEX)
    result_sizes = var_operand_def(INDEX)
    await_timepoint = var_operand_def(TimepointType)
    tied_operands = opt_prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    result_timepoint = result_def(TimepointType)
    body = region_def("single_block")
    irdl_options = SEGMENTS

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        awaits = parse_optional_await(parser)
        operands, sizes, rtypes, rsizes, tied, region = _parse_resource_region(parser)
        syn.parse_fat_arrow(parser)
        tp_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        props = _props(affinity)
        if any(t >= 0 for t in tied):
            props["tied_operands"] = index_array(tied)
        return cls.build(operands=[operands, sizes, rsizes, awaits], result_types=[rtypes, tp_type], properties=props,
                         regions=[region], attributes=attrs.data if attrs else {})

    def print(self, printer):
        _print_head(printer, self)
        print_await(printer, self.await_timepoint)
        _print_resource_region(printer, self, self.results_)
        printer.print_string(" => ")
        printer.print_attribute(self.result_timepoint.type)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class AsyncConcurrentOp(IRDLOperation):
    """``%r = stream.async.concurrent on(#aff)? with(...) -> T{%s} { ... stream.yield ... }``: independent work."""

    name = "stream.async.concurrent"
    resource_operands = var_operand_def(ResourceType)
    resource_operand_sizes = var_operand_def(INDEX)
    result_sizes = var_operand_def(INDEX)
    tied_operands = opt_prop_def(ArrayAttr)
    affinity = opt_prop_def(Attribute)
    results_ = var_result_def(ResourceType)
    body = region_def("single_block")
    irdl_options = SEGMENTS

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        operands, sizes, rtypes, rsizes, tied, region = _parse_resource_region(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        props = _props(affinity)
        if any(t >= 0 for t in tied):
            props["tied_operands"] = index_array(tied)
        return cls.build(operands=[operands, sizes, rsizes], result_types=[rtypes], properties=props,
                         regions=[region], attributes=attrs.data if attrs else {})

    def print(self, printer):
        _print_head(printer, self)
        _print_resource_region(printer, self, self.results_)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """``stream.yield %a, %b : !stream.resource<x>{%s}, !stream.resource<y>{%t}``: region results."""

    name = "stream.yield"
    resource_operands = var_operand_def()
    resource_operand_sizes = var_operand_def(INDEX)
    traits = traits_def(IsTerminator(), Pure())
    irdl_options = SEGMENTS

    @classmethod
    def parse(cls, parser):
        attrs = parser.parse_optional_attr_dict()
        names = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand) or []
        types, sizes = [], []
        if names:
            parser.parse_punctuation(":")
            for i in range(len(names)):
                if i:
                    parser.parse_punctuation(",")
                type_, dims = syn.parse_sized_type(parser)
                types.append(type_)
                sizes.extend(dims)
        return cls.build(operands=[syn.resolve_by_types(parser, names, types), sizes], attributes=attrs)

    def print(self, printer):
        syn.print_attr_dict(printer, self.attributes)
        if self.resource_operands:
            printer.print_string(" ")
            printer.print_list(self.resource_operands, printer.print_ssa_value)
            printer.print_string(" : ")
            sizes = iter(self.resource_operand_sizes)
            printer.print_list(self.resource_operands, lambda v: syn.print_sized_type(
                printer, v.type, [next(sizes)] if isinstance(v.type, ResourceType) else []))


def new_region(arg_types):
    """A single-block Region whose block takes ``arg_types``."""
    return Region(Block(arg_types=arg_types))


ASYNC_OPS = [AsyncAllocaOp, AsyncConstantOp, AsyncSplatOp, AsyncCloneOp, AsyncSliceOp, AsyncFillOp, AsyncUpdateOp,
             AsyncCopyOp, AsyncTransferOp, AsyncLoadOp, AsyncStoreOp, AsyncDispatchOp, AsyncExecuteOp,
             AsyncConcurrentOp, YieldOp]
