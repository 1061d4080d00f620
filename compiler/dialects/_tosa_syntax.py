"""The region forms of ``tosa.while_loop`` and ``tosa.cond_if`` (``dialects/tosa.py``) as format directives.

``WhileLoopForm``: ``(%x = %init, ...) : (t, ...) -> (t, ...) { cond } do { body }``: the cond
region's arguments are named by the parenthesized list; the body region names its own block
arguments (``^bb0(%x: t)``) or reuses the list's names. ``CondIfForm``: ``%c : tensor<i1> ->
(t, ...) { then } else { else }``.

Source followed: MLIR ``TosaOps.cpp`` (``WhileOp::parse/print``, ``IfOp::parse/print``).
"""
from xdsl.parser import Parser

from rt.compiler.dialects._format import Directive
from rt.compiler.dialects._stablehlo_forms import parse_loop_values
from rt.compiler.dialects._syntax import print_attr_dict


def _parse_types(parser):
    """``t`` or ``(t, ...)`` (possibly empty)."""
    if parser.parse_optional_punctuation("(") is not None:
        if parser.parse_optional_punctuation(")") is not None:
            return []
        types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return types
    return [parser.parse_type()]


def _print_types(printer, types):
    if len(types) == 1:
        printer.print_attribute(types[0])
        return
    printer.print_string("(")
    printer.print_list(types, printer.print_attribute)
    printer.print_string(")")


class WhileLoopForm(Directive):
    """See the module docstring."""

    field = "inputs"

    def parse(self, state):
        parser = state.parser
        names, inits = parse_loop_values(parser)
        state.attrs.update(parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        inputs = _parse_types(parser)
        parser.parse_punctuation("->")
        outputs = _parse_types(parser)
        if len(inputs) != len(inits):
            parser.raise_error(f"tosa.while_loop: {len(inits)} loop values but {len(inputs)} types")
        state.names["inputs"], state.types["inputs"], state.types["outputs"] = inits, inputs, outputs
        state.regions["cond"] = parser.parse_region([n.resolve(t) for n, t in zip(names, inputs)])
        parser.parse_keyword("do")
        body = parser.parse_optional_region([n.resolve(t) for n, t in zip(names, inputs)]) \
            if not self._explicit_block(parser) else parser.parse_region()
        state.regions["body"] = body

    @staticmethod
    def _explicit_block(parser):
        """True when the body region starts with ``^bb(...)`` (its own argument names)."""
        text = parser.lexer.input.content[parser.pos:parser.pos + 64].lstrip()
        return text.startswith("{") and text[1:].lstrip().startswith("^")

    def print(self, op, printer):
        printer.print_string(" (")
        for k, (arg, init) in enumerate(zip(op.cond.block.args, op.inputs)):
            if k:
                printer.print_string(", ")
            printer.print_ssa_value(arg)
            printer.print_string(" = ")
            printer.print_ssa_value(init)
        printer.print_string(")")
        print_attr_dict(printer, op.attributes)
        printer.print_string(" : ")
        _print_types(printer, [v.type for v in op.inputs])
        printer.print_string(" -> ")
        _print_types(printer, [r.type for r in op.outputs])
        printer.print_string(" ")
        printer.print_region(op.cond, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(op.body, print_entry_block_args=True)


class CondIfForm(Directive):
    """See the module docstring."""

    field = "condition"

    def parse(self, state):
        parser = state.parser
        state.names["condition"] = parser.parse_unresolved_operand()
        state.names["inputs"] = []
        state.types["inputs"] = []
        state.attrs.update(parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        state.types["condition"] = parser.parse_type()
        parser.parse_punctuation("->")
        state.types["outputs"] = _parse_types(parser)
        state.regions["then_branch"] = parser.parse_region()
        parser.parse_keyword("else")
        state.regions["else_branch"] = parser.parse_region()

    def print(self, op, printer):
        printer.print_string(" ")
        printer.print_ssa_value(op.condition)
        print_attr_dict(printer, op.attributes)
        printer.print_string(" : ")
        printer.print_attribute(op.condition.type)
        printer.print_string(" -> ")
        _print_types(printer, [r.type for r in op.outputs])
        printer.print_string(" ")
        printer.print_region(op.then_branch)
        printer.print_string(" else ")
        printer.print_region(op.else_branch)
