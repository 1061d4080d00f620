"""Shared pieces of IREE's custom assembly syntax, as parse/print helpers for xDSL ops.

IREE prints many ops with the same fragments; each helper here parses one of them and has a
matching printer, so op classes stay short:

* ``on(#hal.device.affinity<@dev>)``                    affinity clause (Stream/Flow/HAL ops)
* ``tensor<?x?xf32>{%d0, %d1}`` / ``!stream.resource<*>{%size}``   a type with its dynamic sizes
* ``@executable::@export``                               dispatch entry points
* ``[%w0, %w1]``                                         workloads / index lists
* ``(%a : t, %b : t)``                                   typed operand lists
* ``-> T`` / ``-> (T, U)``                               result lists of dispatches and regions

Op formats (:mod:`rt.compiler.dialects._format`) are built from these pieces.
Source followed: IREE ``compiler/src/iree/compiler/Dialect/Util/IR/ClosureOpUtils`` and the
``custom<ShapedTypeList>``/``custom<SizeAwareType>`` directives of the Util dialect.
"""
from xdsl.dialects.builtin import IndexType, StringAttr, SymbolRefAttr
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import Parser

INDEX = IndexType()


def opaque_type(module, class_name, name, doc):
    """A parameterless type ``!<name>`` (an opaque handle such as ``!hal.fence``) as an xDSL class."""
    namespace = {"name": name, "__doc__": doc, "__module__": module, "__qualname__": class_name}
    return irdl_attr_definition(type(class_name, (ParametrizedAttribute, TypeAttribute), namespace))


def parse_optional_affinity(parser):
    """``on(<attr>)`` -> the attribute, or None when the clause is absent."""
    if parser.parse_optional_keyword("on") is None:
        return None
    parser.parse_punctuation("(")
    attr = parser.parse_attribute()
    parser.parse_punctuation(")")
    return attr


def print_affinity(printer, attr):
    if attr is not None:
        printer.print_string(" on(")
        printer.print_attribute(attr)
        printer.print_string(")")


def props_with_affinity(affinity, **props):
    """``props`` plus ``affinity`` when an ``on(...)`` clause gave one."""
    if affinity is not None:
        props["affinity"] = affinity
    return props


def parse_optional_dims(parser):
    """``{%a, %b}`` after a type -> unresolved index operands (empty list when absent)."""
    if parser.parse_optional_punctuation("{") is None:
        return []
    if parser.parse_optional_punctuation("}") is not None:
        return []
    dims = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation("}")
    return dims


def parse_sized_type(parser):
    """``type{%d...}`` -> (type, resolved index operands)."""
    type_ = parser.parse_type()
    dims = parse_optional_dims(parser)
    return type_, [parser.resolve_operand(d, INDEX) for d in dims]


def print_sized_type(printer, type_, dims, always_braces=False):
    printer.print_attribute(type_)
    if dims or always_braces:
        printer.print_string("{")
        printer.print_list(dims, printer.print_ssa_value)
        printer.print_string("}")


def parse_index_list(parser, delimiter=Parser.Delimiter.SQUARE):
    """``[%a, %b]`` -> resolved index operands."""
    ops = parser.parse_comma_separated_list(delimiter, parser.parse_unresolved_operand)
    return [parser.resolve_operand(o, INDEX) for o in ops]


def print_operand_list(printer, values, open_="[", close="]"):
    printer.print_string(open_)
    printer.print_list(values, printer.print_ssa_value)
    printer.print_string(close)


def parse_optional_workload(parser):
    """``[%w0, %w1]`` (a dispatch workload) when present -> resolved index operands, else []."""
    if parser.parse_optional_punctuation("[") is None:
        return []
    if parser.parse_optional_punctuation("]") is not None:
        return []
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation("]")
    return [parser.resolve_operand(n, INDEX) for n in names]


def print_workload(printer, workload):
    if workload:
        print_operand_list(printer, workload)


def parse_entry_point(parser):
    """``@executable::@export`` (or ``@export``) -> SymbolRefAttr."""
    pos = parser.pos
    attr = parser.parse_attribute()
    if not isinstance(attr, SymbolRefAttr):
        parser.raise_error(f"expected an entry point like @executable::@export, got {attr}", pos)
    return attr


def parse_symbol_ref(parser):
    """``@name`` -> SymbolRefAttr."""
    return SymbolRefAttr(parser.parse_symbol_name())


def parse_optional_visibility(parser):
    """``public`` / ``private`` / ``nested`` -> StringAttr or None."""
    for word in ("public", "private", "nested"):
        if parser.parse_optional_keyword(word) is not None:
            return StringAttr(word)
    return None


def print_visibility(printer, visibility, default=None):
    if visibility is not None:
        printer.print_string(f" {visibility.data}")
    elif default is not None:
        printer.print_string(f" {default}")


def print_attr_dict(printer, attributes):
    if attributes:
        printer.print_string(" ")
        printer.print_attr_dict(attributes)


def parse_keyword_paren(parser, keyword, inner):
    """``keyword(<inner>)`` when present -> inner's result, else None."""
    if parser.parse_optional_keyword(keyword) is None:
        return None
    parser.parse_punctuation("(")
    value = inner()
    parser.parse_punctuation(")")
    return value


def parse_typed_operand(parser):
    """``%x : type`` -> resolved operand."""
    operand = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    return parser.resolve_operand(operand, parser.parse_type())


def print_typed_operand(printer, value, open_="<", close=">"):
    printer.print_string(open_)
    printer.print_ssa_value(value)
    printer.print_string(" : ")
    printer.print_attribute(value.type)
    printer.print_string(close)


def resolve_by_types(parser, unresolved, types, pos=None):
    if len(unresolved) != len(types):
        parser.raise_error(f"expected {len(unresolved)} types, got {len(types)}", pos)
    return [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]


def parse_result_list(parser, one):
    """``-> T`` / ``-> (T, ...)`` / ``-> ()``: the results of a dispatch or region, ``one`` parsing each."""
    wrapped = parser.parse_optional_punctuation("(") is not None
    if wrapped and parser.parse_optional_punctuation(")") is not None:
        return []
    items = parser.parse_comma_separated_list(Parser.Delimiter.NONE, one)
    if wrapped:
        parser.parse_punctuation(")")
    return items


def print_result_list(printer, results, print_one):
    """Prints ``T`` for one result, ``(T, ...)`` otherwise; ``print_one(i, result)`` prints each."""
    many = len(results) != 1
    printer.print_string("(" if many else "")
    for i, result in enumerate(results):
        if i:
            printer.print_string(", ")
        print_one(i, result)
    printer.print_string(")" if many else "")


def parse_fat_arrow(parser):
    """``=>`` (lexed by xDSL as ``=`` followed by ``>``)."""
    parser.parse_punctuation("=")
    parser.parse_punctuation(">")


def parse_operand_group(parser, keyword):
    """``keyword(%a, %b : t, t)`` -> resolved operands (empty when the keyword is absent)."""
    pos = parser.pos
    if not parser.parse_optional_keyword(keyword):
        return []
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    if len(names) != len(types):
        parser.raise_error(f"'{keyword}' lists {len(names)} operands but {len(types)} types", pos)
    return parser.resolve_operands(names, types, pos)
