"""Reusable custom directives for op formats, after MLIR's ``custom<Name>(...)`` directives.

Each is a :class:`~rt.compiler.dialects._format.Directive` with a parse and a print for the
fields it names, for syntax the plain directives of :mod:`_format` do not cover:

* :class:`Params`          ``overflow<nsw>``: an attribute printed without its dialect prefix
* :class:`Keyword`         ``to_nearest_even``: a string property written as one of some words
* :class:`FunctionalType`  ``(t, u) -> v``: the types of an operand group and a result group
* :class:`TypedAttr`       ``dense<1.0> : tensor<4xf32>``: a typed value that gives the result type
* :class:`Derived`         (nothing printed) a type computed from another field's type

Source followed: MLIR ``OpFormatGen`` (``functional-type``, unqualified attribute printing) and
``InferTypeOpInterface`` (types an op's syntax leaves out).
"""
from xdsl.dialects.builtin import FunctionType, StringAttr, TensorType
from xdsl.ir import ParametrizedAttribute, TypedAttribute
from xdsl.parser import Parser

from rt.compiler.dialects._format import Directive


class Params(Directive):
    """An attribute property printed without its dialect prefix (``<nsw, nuw>`` for
    ``#arith.overflow<nsw, nuw>``), as ODS prints an attribute whose class is known; ``base`` is
    that class. A value equal to the property's default counts as absent in an optional group."""

    def __init__(self, field, base):
        self.field, self.base = field, base

    def parse(self, state):
        if issubclass(self.base, ParametrizedAttribute):
            value = self.base.new(self.base.parse_parameters(state.parser))
        else:
            value = self.base.new(self.base.parse_parameter(state.parser))
        state.set_prop(self.field, value)

    def present(self, op):
        value = getattr(op, self.field)
        prop = op.get_irdl_definition().accessor_names[self.field][0]
        return value is not None and value != op.get_irdl_definition().properties[prop].default_value

    def print(self, op, printer):
        value = getattr(op, self.field)
        if isinstance(value, ParametrizedAttribute):
            value.print_parameters(printer)
        else:
            value.print_parameter(printer)


class Keyword(Directive):
    """A string property written as one of the bare ``words`` (``to_nearest_even``)."""

    def __init__(self, field, words):
        self.field, self.words = field, tuple(words)

    def parse(self, state):
        if not self.parse_optional(state):
            state.parser.raise_error(f"{state.shape.name}: expected one of {', '.join(self.words)}")

    def parse_optional(self, state):
        word = next((w for w in self.words if state.parser.parse_optional_keyword(w) is not None), None)
        if word is not None:
            state.set_prop(self.field, StringAttr(word))
        return word is not None

    def print(self, op, printer):
        printer.print_string(getattr(op, self.field).data)


class FunctionalType(Directive):
    """``(t, u) -> v`` / ``-> (v, w)``: the types of operand group ``operands`` and result group
    ``results`` (MLIR's ``functional-type``; one result that is not a function type is bare)."""

    def __init__(self, operands, results):
        self.operands, self.results = operands, results

    def parse(self, state):
        parser = state.parser
        state.set_type((self.operands,), parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type))
        parser.parse_punctuation("->")
        if parser.parse_optional_punctuation("(") is None:
            results = [parser.parse_type()]
        elif parser.parse_optional_punctuation(")") is not None:
            results = []
        else:
            results = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
        state.set_type((self.results,), results)

    def print(self, op, printer):
        printer.print_string("(")
        printer.print_list([v.type for v in getattr(op, self.operands)], printer.print_attribute)
        printer.print_string(") -> ")
        types = [v.type for v in getattr(op, self.results)]
        bare = len(types) == 1 and not isinstance(types[0], FunctionType)
        printer.print_string("" if bare else "(")
        printer.print_list(types, printer.print_attribute)
        printer.print_string("" if bare else ")")


class TypedAttr(Directive):
    """A typed attribute property (``dense<..> : tensor<4xf32>``, ``1 : index``); with ``result``
    the value's type is that result's type, with ``tensor`` the value must be tensor-typed."""

    def __init__(self, field, result=None, tensor=False):
        self.field, self.result, self.tensor = field, result, tensor

    def parse(self, state):
        parser = state.parser
        pos = parser.pos
        value = parser.parse_attribute()
        typed = isinstance(value, TypedAttribute)
        if not typed or (self.tensor and not isinstance(value.get_type(), TensorType)):
            parser.raise_error(f"{state.shape.name} needs a {'tensor-' if self.tensor else ''}typed value, got {value}",
                               pos)
        state.set_prop(self.field, value)
        if self.result is not None:
            state.set_type((self.result,), value.get_type())

    def print(self, op, printer):
        printer.print_attribute(getattr(op, self.field))


class Derived(Directive):
    """Prints nothing; when parsed, gives field ``target`` the type ``derive(type of source)``
    (``i1`` of the operand's shape for a predicate, the element type for a splat). It must
    come after the directive that gives ``source`` its type."""

    def __init__(self, target, source, derive):
        self.target, self.source, self.derive = target, source, derive

    def parse(self, state):
        state.set_type((self.target,), self.derive(state.types[self.source]))

    def print(self, op, printer):
        pass
