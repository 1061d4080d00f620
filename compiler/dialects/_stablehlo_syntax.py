"""Op bases and format directives of the ``stablehlo`` dialect (``dialects/stablehlo.py``).

StableHLO's pretty forms print one type when every operand and result share it
(``stablehlo.add %a, %b : tensor<4xf32>``) and a function type otherwise
(``stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xf32>``): :class:`TypesOrFunction`
is that custom directive (StableHLO's ``custom<SameOperandsAndResultType>`` /
``hlo::printFunctionalType``). The structural ops' forms are in ``_stablehlo_forms.py``; every
op also reads MLIR's generic form, as IREE's e2e tests write it.

Source followed: openxla/stablehlo ``stablehlo/dialect/AssemblyFormat.{h,cpp}``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.irdl import (IRDLOperation, irdl_op_definition, operand_def, region_def, result_def, traits_def,
                       var_operand_def, var_result_def)
from xdsl.parser import Parser
from xdsl.traits import IsTerminator, Pure

from rt.compiler.dialects._format import AttrDict, Directive, FormattedOp, Operand, Operands, OpFormat, Opt, Types
from rt.compiler.dialects._stablehlo_attrs import ComparisonDirectionAttr, ComparisonTypeAttr
from rt.compiler.dialects._syntax import print_attr_dict


class PropertiesAsAttributes(IRDLOperation):
    """StableHLO ops keep every parameter as an attribute: the generic form's ``<{...}>``
    properties (as recent MLIR prints JAX's gather, scatter and convolution) join the
    ``{...}`` attributes, so one form or the other reads the same."""

    @classmethod
    def create(cls, *, properties=None, attributes=None, **kwargs):
        merged = dict(attributes or {})
        merged.update(properties or {})
        return super().create(properties={}, attributes=merged, **kwargs)


class HloOp(PropertiesAsAttributes, FormattedOp):
    """Base of the stablehlo ops with a custom format."""


def _is_variadic(state, field):
    return field in state.shape.variadic


class TypesOrFunction(Directive):
    """`` t`` (every operand and result has type t) or ``(t0, t1) -> t2``."""

    def __init__(self, operands, results):
        self.operands, self.results = tuple(operands), tuple(results)

    def parse(self, state):
        parser = state.parser
        if parser.parse_optional_punctuation("(") is None:
            type_ = parser.parse_type()
            if parser.parse_optional_punctuation("->") is not None:  # CHLO's ``t -> t``
                self._assign(state, self.operands, [type_], "operand")
                self._assign(state, self.results, [parser.parse_type()], "result")
                return
            for field in self.operands + self.results:
                state.types[field] = type_
            return
        inputs = []
        if parser.parse_optional_punctuation(")") is None:
            inputs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        if parser.parse_optional_punctuation("(") is not None:
            outputs = []
            if parser.parse_optional_punctuation(")") is None:
                outputs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
        else:
            outputs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        self._assign(state, self.operands, inputs, "operand")
        self._assign(state, self.results, outputs, "result")

    @staticmethod
    def _assign(state, fields, types, what):
        if len(fields) == 1 and _is_variadic(state, fields[0]):
            state.types[fields[0]] = list(types)
            return
        if len(types) != len(fields):
            state.parser.raise_error(f"{state.shape.name}: expected {len(fields)} {what} type(s), got {len(types)}")
        for field, type_ in zip(fields, types):
            state.types[field] = type_

    def print(self, op, printer):
        ins = [v.type for v in op.operands]
        outs = [r.type for r in op.results]
        if len(outs) == 1 and all(t == outs[0] for t in ins):
            printer.print_attribute(outs[0])
            return
        printer.print_string("(")
        printer.print_list(ins, printer.print_attribute)
        printer.print_string(") -> ")
        if len(outs) == 1:
            printer.print_attribute(outs[0])
            return
        printer.print_string("(")
        printer.print_list(outs, printer.print_attribute)
        printer.print_string(")")


class _Keyword(Directive):
    """A bare keyword held in an enum attribute (``EQ`` of ``stablehlo.compare``)."""

    def __init__(self, field, attr_class, optional=False):
        self.field, self.attr_class, self.optional = field, attr_class, optional

    def parse(self, state):
        pos = state.parser.pos
        word = state.parser.parse_identifier()
        attr_class = self.attr_class
        if word not in attr_class.VALUES:
            state.parser.raise_error(f"{state.shape.name}: expected one of {', '.join(attr_class.VALUES)}, "
                                     f"got '{word}'", pos)
        state.attrs[self.field] = attr_class(_string(word))

    def print(self, op, printer):
        printer.print_string(op.attributes[self.field].value.data)


def _string(text):
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(text)


class _CompareType(Directive):
    """``, FLOAT``: the optional comparison type after the operands of ``stablehlo.compare``."""

    field = "compare_type"

    def __init__(self, attr_class):
        self.attr_class = attr_class

    def parse(self, state):
        if state.parser.parse_optional_punctuation(",") is not None:
            _Keyword(self.field, self.attr_class).parse(state)

    def print(self, op, printer):
        if self.field in op.attributes:
            printer.print_string(", ")
            printer.print_string(op.attributes[self.field].value.data)


class HloAttrDict(AttrDict):
    """`` {attrs}`` without the attributes other directives of the format already show."""

    def __init__(self, *shown):
        super().__init__()
        self.shown = shown

    def print(self, op, printer):
        print_attr_dict(printer, {k: v for k, v in op.attributes.items() if k not in self.shown})


class ConstantValue(Directive):
    """`` dense<...> : tensor<..>``: the typed ``value`` attribute, which gives the result type."""

    field = "value"

    def parse(self, state):
        pos = state.parser.pos
        value = state.parser.parse_attribute()
        if not hasattr(value, "get_type"):
            state.parser.raise_error(f"{state.shape.name}: expected a typed value (dense<...> : tensor<...>)", pos)
        state.attrs["value"] = value
        state.types["inputs"], state.types["outputs"] = [], [value.get_type()]

    def print(self, op, printer):
        printer.print_string(" ")
        printer.print_attribute(op.attributes["value"])


class CallTarget(Directive):
    """`` @name``: a custom call's ``call_target_name`` (a string attribute)."""

    field = "call_target_name"

    def parse(self, state):
        state.attrs[self.field] = _string(state.parser.parse_symbol_name().data)

    def print(self, op, printer):
        printer.print_string(" @" + op.attributes[self.field].data)


class Unary(HloOp):
    """``stablehlo.OP %x : t``: one operand, one result."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ",
                                TypesOrFunction(["operand"], ["result"]))


class Binary(HloOp):
    """``stablehlo.OP %a, %b : t``: two operands, one result."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("lhs"), ", ", Operand("rhs"), AttrDict(), " : ",
                                TypesOrFunction(["lhs", "rhs"], ["result"]))


class Convert(HloOp):
    """``stablehlo.OP %x : (tA) -> tB``."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ",
                                TypesOrFunction(["operand"], ["result"]))


class Compare(HloOp):
    """``stablehlo.compare EQ, %a, %b, FLOAT : (t, t) -> i1-tensor``."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", _Keyword("comparison_direction", ComparisonDirectionAttr), ", ", Operand("lhs"), ", ",
                                Operand("rhs"), _CompareType(ComparisonTypeAttr),
                                HloAttrDict("comparison_direction", "compare_type"), " : ",
                                TypesOrFunction(["lhs", "rhs"], ["result"]))


class _SelectTypes(Directive):
    """``tp, t`` (predicate type, then the type of both values and the result) or a function type."""

    def parse(self, state):
        parser = state.parser
        if parser.parse_optional_punctuation("(") is not None:
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            parser.parse_punctuation("->")
            result = parser.parse_type()
            if len(types) != 3:
                parser.raise_error(f"stablehlo.select: expected 3 operand types, got {len(types)}")
            state.types.update(pred=types[0], on_true=types[1], on_false=types[2], result=result)
            return
        pred = parser.parse_type()
        parser.parse_punctuation(",")
        value = parser.parse_type()
        state.types.update(pred=pred, on_true=value, on_false=value, result=value)

    def print(self, op, printer):
        if op.on_true.type == op.on_false.type == op.result.type:
            printer.print_attribute(op.pred.type)
            printer.print_string(", ")
            printer.print_attribute(op.result.type)
            return
        TypesOrFunction(["pred", "on_true", "on_false"], ["result"]).print(op, printer)


class Select(HloOp):
    """``stablehlo.select %pred, %a, %b : tensor<..xi1>, tensor<..>``."""

    pred = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("pred"), ", ", Operand("on_true"), ", ", Operand("on_false"),
                                AttrDict(), " : ", _SelectTypes())


@irdl_op_definition
class ReturnOp(HloOp):
    """``stablehlo.return %v : tensor<f32>``: the terminator of a stablehlo region."""

    name = "stablehlo.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    FORMAT: ClassVar = OpFormat(Opt(" ", Operands("values"), " : ", Types("values")), AttrDict())


class LoopOp(HloOp):
    """Loop-carried values, results and a ``cond`` and a ``body`` region (``stablehlo.while``,
    ``tosa.while_loop``); each op sets its own ``FORMAT``."""

    inputs = var_operand_def()
    outputs = var_result_def()
    cond = region_def()
    body = region_def()
