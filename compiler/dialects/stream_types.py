"""Types, attributes and shared assembly pieces of the ``stream`` dialect.

Types: ``!stream.resource<*|external|transient|constant|variable|staging>``,
``!stream.timepoint``, ``!stream.binding``, ``!stream.channel``. Attribute:
``#stream.timepoint<immediate>``. The helpers parse/print the fragments IREE's stream ops
share: ``type{%size}`` (size-aware types), ``await(%t) =>``, ``%target as type{%size}`` (tied
results), ``@exe::@entry`` lists and the ``(%r[%o to %e for %l], %x)`` dispatch operand list.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Stream/IR/StreamTypes.td`` and the
``custom<ShapedTiedResult>`` / ``custom<ShapedResultList>`` / ``custom<DispatchOperands>``
directives (``Util/IR/UtilOps.cpp``, ``Stream/IR/StreamOps.cpp``).
"""
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, StringAttr, SymbolRefAttr
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import Parser

from rt.compiler.dialects import _syntax as syn

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


@irdl_attr_definition
class TimepointType(ParametrizedAttribute, TypeAttribute):
    """``!stream.timepoint``: a point on a device timeline."""

    name = "stream.timepoint"


@irdl_attr_definition
class BindingType(ParametrizedAttribute, TypeAttribute):
    """``!stream.binding``: an opaque dispatch argument bound to a resource range."""

    name = "stream.binding"


@irdl_attr_definition
class ChannelType(ParametrizedAttribute, TypeAttribute):
    """``!stream.channel``: a collective communication channel."""

    name = "stream.channel"


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


def resource(lifetime="*"):
    """``!stream.resource<lifetime>``."""
    return ResourceType(lifetime)


def index_array(values):
    """ArrayAttr of index IntegerAttrs (IREE's tied_operands / lifetime_intervals encoding)."""
    return ArrayAttr([IntegerAttr(int(v), INDEX) for v in values])


def int_list(attr):
    """ArrayAttr of IntegerAttrs -> list of Python ints (empty list for None)."""
    return [a.value.data for a in attr.data] if attr is not None else []


def parse_resource_sized(parser):
    """``!stream.resource<x>{%size}`` -> (type, resolved size operand)."""
    pos = parser.pos
    type_, dims = syn.parse_sized_type(parser)
    if len(dims) != 1:
        parser.raise_error(f"expected one size operand in braces after {type_}", pos)
    return type_, dims[0]


def print_resource_sized(printer, type_, size):
    syn.print_sized_type(printer, type_, [size], always_braces=True)


def parse_optional_await(parser, arrow=True):
    """``await(%t) =>`` (or ``await(%t)`` when ``arrow`` is False) -> operand list (0 or 1)."""
    if parser.parse_optional_keyword("await") is None:
        return []
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(")")
    if arrow:
        syn.parse_fat_arrow(parser)
    return [parser.resolve_operand(n, TimepointType()) for n in names]


def print_await(printer, timepoints, arrow=True):
    if timepoints:
        printer.print_string(" await(")
        printer.print_list(timepoints, printer.print_ssa_value)
        printer.print_string(") =>" if arrow else ")")


def parse_tied_result(parser, operand_names, operand_types=None):
    """``%x as type{%s}`` / ``%x{%s}`` / ``type{%s}`` -> (type, [size], tied index or -1).

    ``operand_names`` are the op's UnresolvedOperands in operand order; ``operand_types`` (same
    order) supply the type of a tied result printed without ``as``.
    """
    tied = -1
    name = parser.parse_optional_unresolved_operand()
    if name is not None:
        tied = find_tied(parser, name, operand_names)
        if parser.parse_optional_keyword("as") is None:
            if operand_types is None:
                parser.raise_error("expected 'as' and the result type after the tied operand")
            dims = [parser.resolve_operand(d, INDEX) for d in syn.parse_optional_dims(parser)]
            return operand_types[tied], dims, tied
    type_, dims = syn.parse_sized_type(parser)
    return type_, dims, tied


def find_tied(parser, name, operand_names):
    """Index of the UnresolvedOperand ``name`` among ``operand_names``; parse error if absent."""
    key = (name.operand_name, name.index)
    for i, other in enumerate(operand_names):
        if (other.operand_name, other.index) == key:
            return i
    parser.raise_error(f"tied result names %{name.operand_name}, which is not an operand of this op", name.span)


def print_tied_result(printer, op, type_, size, tied_operand):
    """Prints ``%x as type{%s}`` when tied, else ``type{%s}``."""
    if tied_operand is not None:
        printer.print_ssa_value(tied_operand)
        printer.print_string(" as ")
    syn.print_sized_type(printer, type_, [size] if size is not None else [], always_braces=size is not None)


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


def parse_optional_workload(parser):
    """``[%w0, %w1]`` after an entry point -> resolved index operands (empty when absent)."""
    if parser.parse_optional_punctuation("[") is None:
        return []
    if parser.parse_optional_punctuation("]") is not None:
        return []
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation("]")
    return [parser.resolve_operand(n, INDEX) for n in names]


def print_workload(printer, workload):
    if workload:
        syn.print_operand_list(printer, workload)


def entry_point_parts(ref):
    """SymbolRefAttr ``@exe::@entry`` -> ("exe", "entry")."""
    if not isinstance(ref, SymbolRefAttr) or len(ref.nested_references.data) != 1:
        return ref.root_reference.data, None
    return ref.root_reference.data, ref.nested_references.data[0].data
