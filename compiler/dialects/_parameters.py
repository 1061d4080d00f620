"""Shared syntax of external parameters (IREE's ``custom<ParameterReference>`` and
``custom<ParameterLoadOperations>``), used by the flow, stream and io_parameters dialects.

* ``#flow.parameter.named<"scope"::"key">`` / ``<"key">`` (``, {config}`` optional): the
  attribute naming a parameter (:class:`NamedParameterBase`);
* ``{ %scope::%key[%offset] : T{%size}, ... }``: the entries of a parameter load, scope and key
  being ``!util.buffer`` values holding the strings (:class:`ParameterEntries`).

Source followed: IREE ``Dialect/Flow/IR/FlowBase.td`` (NamedParameterAttr),
``Dialect/Stream/IR/StreamOps.cpp`` (ParameterReference, ParameterLoadOperations).
"""
from xdsl.dialects.builtin import DictionaryAttr, StringAttr
from xdsl.ir import ParametrizedAttribute
from xdsl.irdl import param_def
from xdsl.parser import Parser

from rt.compiler.dialects._format import Directive


class NamedParameterBase(ParametrizedAttribute):
    """``#<dialect>.parameter.named<"scope"::"key">`` / ``<"key">`` (``, {config}`` optional): a
    parameter in an external file, by optional scope and key (IREE's NamedParameterAttr; the
    tensor type is the type of the global it initializes). ``scope`` is "" when absent."""

    scope: StringAttr = param_def()
    key: StringAttr = param_def()
    config: DictionaryAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        first = parser.parse_str_literal()
        scope, key = "", first
        if parser.parse_optional_punctuation(":") is not None:
            parser.parse_punctuation(":")
            scope, key = first, parser.parse_str_literal()
        config = DictionaryAttr({})
        if parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            config = parser.parse_attribute()
            if not isinstance(config, DictionaryAttr):
                parser.raise_error(f"expected a {{config}} dictionary, got {config}", pos)
        parser.parse_punctuation(">")
        if not key:
            parser.raise_error("a parameter key must not be empty")
        return (StringAttr(scope), StringAttr(key), config)

    def print_parameters(self, printer):
        scope = f'"{self.scope.data}"::' if self.scope.data else ""
        printer.print_string(f'<{scope}"{self.key.data}"')
        if self.config.data:
            printer.print_string(", ")
            printer.print_attribute(self.config)
        printer.print_string(">")

    @property
    def reference(self):
        """``"scope"::"key"`` (or ``"key"``) as users write it, for messages."""
        return f'"{self.scope.data}"::"{self.key.data}"' if self.scope.data else f'"{self.key.data}"'


class ParameterEntries(Directive):
    """`` {\\n  %scope::%key[%offset] : T{%size},\\n ...\\n}``: one entry per loaded parameter; the
    scope (an optional operand) is the same for every entry and is printed on each."""

    def __init__(self, scope, keys, offsets, results, sizes):
        self.scope, self.keys, self.offsets, self.results, self.sizes = scope, keys, offsets, results, sizes
        self.field = keys

    def parse(self, state):
        parser = state.parser
        parser.parse_punctuation("{")
        scopes, keys, offsets, types, sizes = [], [], [], [], []

        def entry():
            first = parser.parse_unresolved_operand()
            if parser.parse_optional_punctuation(":") is not None:
                parser.parse_punctuation(":")
                scopes.append(first)
                keys.append(parser.parse_unresolved_operand())
            else:
                keys.append(first)
            parser.parse_punctuation("[")
            offsets.append(parser.parse_unresolved_operand())
            parser.parse_punctuation("]")
            parser.parse_punctuation(":")
            types.append(parser.parse_type())
            parser.parse_punctuation("{")
            sizes.append(parser.parse_unresolved_operand())
            parser.parse_punctuation("}")

        parser.parse_comma_separated_list(Parser.Delimiter.NONE, entry)
        parser.parse_punctuation("}")
        if scopes and (len(scopes) != len(keys) or len({(s.operand_name, s.index) for s in scopes}) != 1):
            parser.raise_error("every entry of a parameter load must name the same scope (or none)")
        state.names[self.scope] = scopes[:1]
        state.names[self.keys], state.names[self.offsets], state.names[self.sizes] = keys, offsets, sizes
        state.set_type((self.results,), types)

    def print(self, op, printer):
        scope = getattr(op, self.scope)
        scope = scope[0] if isinstance(scope, (list, tuple)) and scope else scope or None
        printer.print_string(" {")
        rows = zip(getattr(op, self.keys), getattr(op, self.offsets), getattr(op, self.results), getattr(op, self.sizes))
        with printer.indented():
            for i, (key, offset, result, size) in enumerate(rows):
                printer.print_string(",\n" if i else "\n")
                if scope is not None:
                    printer.print_ssa_value(scope)
                    printer.print_string("::")
                printer.print_ssa_value(key)
                printer.print_string("[")
                printer.print_ssa_value(offset)
                printer.print_string("] : ")
                printer.print_attribute(result.type)
                printer.print_string("{")
                printer.print_ssa_value(size)
                printer.print_string("}")
        printer.print_string("\n}")
