"""Types, attributes and shared assembly pieces of the ``stream`` dialect.

Types: ``!stream.resource<*|external|transient|constant|variable|staging>``,
``!stream.timepoint``, ``!stream.binding``, ``!stream.channel``. Attribute:
``#stream.timepoint<immediate>``. The helpers and format directives parse/print the fragments
IREE's stream ops share: ``await(%t) =>``, ``type{%size}`` lists, ``with(%r as %a: T{%s})``
captures, ``%x as T{%s}`` result lists, ``@exe::@entry`` lists and ``[%w]`` workloads.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Stream/IR/StreamTypes.td`` and the
``custom<ShapedTiedResult>`` / ``custom<ShapedResultList>`` / ``custom<ResourceRegion>``
directives (``Util/IR/UtilOps.cpp``, ``Stream/IR/StreamOps.cpp``).
"""
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, StringAttr, SymbolRefAttr
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import Parser

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import Directive, Operands, Opt, slot_fields
from rt.compiler.dialects._parameters import NamedParameterBase

INDEX = IndexType()
LIFETIMES = ("*", "external", "transient", "constant", "variable", "staging")
ACCESS_KEYWORDS = ("ro", "wo", "rw")


@irdl_attr_definition
class ResourceType(ParametrizedAttribute, TypeAttribute):
    """``!stream.resource<lifetime>``: a byte buffer whose lifetime is one of LIFETIMES."""

    name = "stream.resource"
    lifetime: StringAttr = param_def()

    def __init__(self, lifetime="*"):
        super().__init__(StringAttr(lifetime) if isinstance(lifetime, str) else lifetime)

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation("*") is not None:
            lifetime = "*"
        else:
            pos = parser.pos
            lifetime = parser.parse_identifier()
            if lifetime not in LIFETIMES:
                parser.raise_error(f"unknown resource lifetime '{lifetime}'; expected one of {', '.join(LIFETIMES)}", pos)
        parser.parse_punctuation(">")
        return (StringAttr(lifetime),)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.lifetime.data}>")


TimepointType = syn.opaque_type(__name__, "TimepointType", "stream.timepoint",
                                "``!stream.timepoint``: a point on a device timeline.")
BindingType = syn.opaque_type(__name__, "BindingType", "stream.binding",
                              "``!stream.binding``: an opaque dispatch argument bound to a resource range.")
ChannelType = syn.opaque_type(__name__, "ChannelType", "stream.channel",
                              "``!stream.channel``: a collective communication channel.")


@irdl_attr_definition
class TimepointAttr(ParametrizedAttribute):
    """``#stream.timepoint<immediate>``: an already-reached timepoint (global initializers)."""

    name = "stream.timepoint"
    value: StringAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        value = parser.parse_identifier()
        parser.parse_punctuation(">")
        if value != "immediate":
            parser.raise_error(f"#stream.timepoint<{value}>: only 'immediate' is valid")
        return (StringAttr(value),)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.value.data}>")


@irdl_attr_definition
class NamedParameterAttr(NamedParameterBase):
    """``#stream.parameter.named<"scope"::"key">``: a constant resource loaded from a parameter file."""

    name = "stream.parameter.named"


def index_array(values):
    """ArrayAttr of index IntegerAttrs (IREE's tied_operands / lifetime_intervals encoding)."""
    return ArrayAttr([IntegerAttr(int(v), INDEX) for v in values])


def int_list(attr):
    """ArrayAttr of IntegerAttrs -> list of Python ints (empty list for None)."""
    return [a.value.data for a in attr.data] if attr is not None else []


def tied_props(props, tied):
    """``props`` plus ``tied_operands`` when any result (``tied``: operand index or -1) is tied."""
    if any(t >= 0 for t in tied):
        props["tied_operands"] = index_array(tied)
    return props


#: `` await(%t, ...) =>``: the timepoints an op waits on (``stream.*`` ops with ``await_timepoint``).
AWAIT = Opt(" await(", Operands("await_timepoint"), ") =>")


def parse_resource_sized(parser):
    """``!stream.resource<x>{%size}`` -> (type, resolved size operand)."""
    pos = parser.pos
    type_, dims = syn.parse_sized_type(parser)
    if len(dims) != 1:
        parser.raise_error(f"expected one size operand in braces after {type_}", pos)
    return type_, dims[0]


def print_resource_sized(printer, type_, size):
    syn.print_sized_type(printer, type_, [size], always_braces=True)


def print_sized_types(printer, values, sizes):
    """``T{%s}, index, ...``: each value's type, with the next of ``sizes`` after each resource."""
    sizes = iter(sizes)
    printer.print_list(values, lambda v: syn.print_sized_type(
        printer, v.type, [next(sizes)] if isinstance(v.type, ResourceType) else []))


class SizedTypes(Directive):
    """``T{%s}, index``: one type per operand of ``slot`` (sizes, in order, into the ``sizes`` group).

    ``slot`` is an operand group or a tuple (operands, results) whose types are the same.
    """

    def __init__(self, slot, sizes):
        self.slot, self.sizes = slot_fields(slot), sizes

    def parse(self, state):
        types, sizes = [], []
        for i in range(len(state.names[self.slot[0]])):
            if i:
                state.parser.parse_punctuation(",")
            types.append(state.parser.parse_type())
            sizes.extend(syn.parse_optional_dims(state.parser))
        state.set_type(self.slot, types)
        state.names[self.sizes] = sizes

    def print(self, op, printer):
        print_sized_types(printer, getattr(op, self.slot[0]), getattr(op, self.sizes))


def find_tied(parser, name, operand_names):
    """Index of the UnresolvedOperand ``name`` among ``operand_names``; parse error if absent."""
    key = (name.operand_name, name.index)
    for i, other in enumerate(operand_names):
        if (other.operand_name, other.index) == key:
            return i
    parser.raise_error(f"tied result names %{name.operand_name}, which is not an operand of this op", name.span)


def parse_tied_result(parser, names, types):
    """``T{%s}``, ``%x{%s}`` or ``%x as T{%s}`` -> (type, resolved sizes, tied operand index or -1).

    ``names`` are the op's operands as parsed (UnresolvedOperands), ``types`` their types: a
    result printed as a bare ``%x`` has the type of operand ``%x``.
    """
    name = parser.parse_optional_unresolved_operand()
    if name is None:
        type_, dims = syn.parse_sized_type(parser)
        return type_, dims, -1
    index = find_tied(parser, name, names)
    if parser.parse_optional_keyword("as") is not None:
        type_, dims = syn.parse_sized_type(parser)
        return type_, dims, index
    return types[index], [parser.resolve_operand(d, INDEX) for d in syn.parse_optional_dims(parser)], index


def parse_shaped_results(parser, names, types):
    """IREE's ``custom<ShapedResultList>``: ``T{%s}, %x, %y as T{%s}`` -> (types, sizes, tied)."""
    items = syn.parse_result_list(parser, lambda: parse_tied_result(parser, names, types))
    return [t for t, _, _ in items], [d for _, ds, _ in items for d in ds], [i for _, _, i in items]


def print_shaped_results(printer, operands, results, sizes, tied):
    """Prints a result list in ``custom<ShapedResultList>`` form (ties as ``%operand``)."""
    sizes = list(sizes)

    def one(i, result):
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

    syn.print_result_list(printer, results, one)


class ShapedResults(Directive):
    """IREE's ``custom<ShapedResultList>`` for results ``field`` with sizes ``sizes``, tied to ``operands``.

    Ties are stored as the ``tied_operands`` property (omitted when no result is tied).
    """

    def __init__(self, field, sizes, operands):
        self.field, self.sizes, self.operands = field, sizes, operands

    def parse(self, state):
        types, sizes, tied = parse_shaped_results(state.parser, state.names[self.operands], state.types[self.operands])
        state.types[self.field], state.values[self.sizes] = types, sizes
        if any(t >= 0 for t in tied):
            state.set_prop("tied_operands", index_array(tied))

    def print(self, op, printer):
        print_shaped_results(printer, getattr(op, self.operands), getattr(op, self.field), getattr(op, self.sizes),
                             int_list(op.tied_operands))


class Captures(Directive):
    """`` with(%x as %a: T{%s}, ...)``: resources ``field`` (sizes ``sizes``) become region ``body``'s arguments."""

    def __init__(self, field, sizes, body="body"):
        self.field, self.sizes, self.body = field, sizes, body

    def parse(self, state):
        parser, names, args, types = state.parser, [], [], []

        def capture():
            names.append(parser.parse_unresolved_operand())
            parser.parse_keyword("as")
            arg = parser.parse_argument(expect_type=False)
            parser.parse_punctuation(":")
            type_, size = parse_resource_sized(parser)
            args.append(arg.resolve(type_))
            types.append(type_)
            sizes.append(size)

        sizes = []
        parser.parse_keyword("with")
        parser.parse_comma_separated_list(Parser.Delimiter.PAREN, capture)
        state.names[self.field], state.types[self.field], state.values[self.sizes] = names, types, sizes
        state.block_args[self.body] = args

    def print(self, op, printer):
        sizes = iter(getattr(op, self.sizes))

        def capture(pair):
            value, arg = pair
            printer.print_ssa_value(value)
            printer.print_string(" as ")
            printer.print_block_argument(arg, print_type=False)
            printer.print_string(": ")
            print_resource_sized(printer, arg.type, next(sizes))

        printer.print_string(" with(")
        printer.print_list(list(zip(getattr(op, self.field), getattr(op, self.body).blocks[0].args)), capture)
        printer.print_string(")")


def parse_entry_points(parser):
    """``@exe::@entry`` or ``{@a::@b, @c::@d}`` -> ArrayAttr of SymbolRefAttr."""
    if parser.parse_optional_punctuation("{") is not None:
        refs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, lambda: syn.parse_entry_point(parser))
        parser.parse_punctuation("}")
        return ArrayAttr(refs)
    return ArrayAttr([syn.parse_entry_point(parser)])


def print_entry_points(printer, entry_points):
    refs = entry_points.data
    if len(refs) == 1:
        printer.print_attribute(refs[0])
        return
    printer.print_string("{")
    printer.print_list(refs, printer.print_attribute)
    printer.print_string("}")


def entry_point_parts(ref):
    """SymbolRefAttr ``@exe::@entry`` -> ("exe", "entry")."""
    if not isinstance(ref, SymbolRefAttr) or len(ref.nested_references.data) != 1:
        return ref.root_reference.data, None
    return ref.root_reference.data, ref.nested_references.data[0].data
