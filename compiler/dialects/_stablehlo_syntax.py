"""Op bases and format directives of the ``stablehlo`` dialect (``dialects/stablehlo.py``).

StableHLO's pretty forms print one type when every operand and result share it
(``stablehlo.add %a, %b : tensor<4xf32>``) and a function type otherwise
(``stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xf32>``): :class:`TypesOrFunction`
is that custom directive (StableHLO's ``custom<SameOperandsAndResultType>`` /
``hlo::printFunctionalType``). Ops without a pretty form here (:class:`Generic`) read and print
MLIR's generic form, as IREE's e2e tests write them.

Source followed: openxla/stablehlo ``stablehlo/dialect/AssemblyFormat.{h,cpp}``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, TensorType, i64
from xdsl.irdl import (IRDLOperation, operand_def, result_def, traits_def, var_operand_def,
                       var_result_def)
from xdsl.parser import Parser
from xdsl.traits import Pure

from rt.compiler.dialects._format import AttrDict, Directive, FormattedOp, Operand, Operands, OpFormat
from rt.compiler.dialects._syntax import print_attr_dict


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
        attr_class = self.attr_class()
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


class Unary(FormattedOp):
    """``stablehlo.OP %x : t``: one operand, one result."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ",
                                TypesOrFunction(["operand"], ["result"]))


class Binary(FormattedOp):
    """``stablehlo.OP %a, %b : t``: two operands, one result."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("lhs"), ", ", Operand("rhs"), AttrDict(), " : ",
                                TypesOrFunction(["lhs", "rhs"], ["result"]))


class Convert(FormattedOp):
    """``stablehlo.OP %x : (tA) -> tB``."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ",
                                TypesOrFunction(["operand"], ["result"]))


def _compare_attrs():
    from rt.compiler.dialects.stablehlo import ComparisonDirectionAttr

    return ComparisonDirectionAttr


def _compare_type_attr():
    from rt.compiler.dialects.stablehlo import ComparisonTypeAttr

    return ComparisonTypeAttr


class Compare(FormattedOp):
    """``stablehlo.compare EQ, %a, %b, FLOAT : (t, t) -> i1-tensor``."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", _Keyword("comparison_direction", _compare_attrs), ", ", Operand("lhs"), ", ",
                                Operand("rhs"), _CompareType(_compare_type_attr),
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


class Select(FormattedOp):
    """``stablehlo.select %pred, %a, %b : tensor<..xi1>, tensor<..>``."""

    pred = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("pred"), ", ", Operand("on_true"), ", ", Operand("on_false"),
                                AttrDict(), " : ", _SelectTypes())


_DOT_FIELDS = ("lhs_batching_dimensions", "rhs_batching_dimensions",
               "lhs_contracting_dimensions", "rhs_contracting_dimensions")


def parse_dot_dims(parser):
    """``<lhs_batching_dimensions = [0], ...>`` (any order, trailing comma, absent lists empty)."""
    values = {k: [] for k in _DOT_FIELDS}
    parser.parse_punctuation("<")
    while parser.parse_optional_punctuation(">") is None:
        pos = parser.pos
        key = parser.parse_identifier()
        if key not in values:
            parser.raise_error(f"#stablehlo.dot: unknown field '{key}'; fields: {', '.join(_DOT_FIELDS)}", pos)
        parser.parse_punctuation("=")
        values[key] = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        if parser.parse_optional_punctuation(",") is None:
            parser.parse_punctuation(">")
            break
    return tuple(ArrayAttr([IntegerAttr(v, i64) for v in values[k]]) for k in _DOT_FIELDS)


def print_dot_dims(attr, printer):
    parts = []
    for key in _DOT_FIELDS:
        dims = [d.value.data for d in getattr(attr, key).data]
        if dims:
            parts.append(f"{key} = [{', '.join(map(str, dims))}]")
    printer.print_string("<" + ", ".join(parts) + ">")


# ---------------------------------------------------------------------------------------------
# The pretty forms of the structural ops: operands, then ``, keyword = value`` clauses


def _int_array(values):
    from xdsl.dialects.builtin import DenseArrayBase

    return DenseArrayBase.from_list(i64, list(values))


def _ints_of(attr):
    from xdsl.dialects.builtin import DenseArrayBase

    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, IntegerAttr):
        return [attr.value.data]
    return None


def _parse_ints(parser):
    return parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)


class _IntList:
    """``[1, 0]`` as ``array<i64: 1, 0>``."""

    @staticmethod
    def parse(parser, attrs, key):
        attrs[key] = _int_array(_parse_ints(parser))

    @staticmethod
    def text(op, key):
        values = _ints_of(op.attributes[key])
        return None if values is None else "[" + ", ".join(map(str, values)) + "]"


class _Int:
    """``0`` as ``0 : i64``."""

    @staticmethod
    def parse(parser, attrs, key):
        attrs[key] = IntegerAttr(parser.parse_integer(), i64)

    @staticmethod
    def text(op, key):
        values = _ints_of(op.attributes[key])
        return None if values is None or len(values) != 1 else str(values[0])


class _DotDims:
    """``[0] x [0]``: one half (batching or contracting) of ``#stablehlo.dot``."""

    def __init__(self, half):
        self.half = half

    def parse(self, parser, attrs, key):
        lhs = _parse_ints(parser)
        parser.parse_keyword("x")
        rhs = _parse_ints(parser)
        parts = attrs.setdefault("__dot__", {})
        parts[f"lhs_{self.half}_dimensions"], parts[f"rhs_{self.half}_dimensions"] = lhs, rhs

    def text(self, op, key):
        dims = op.attributes.get("dot_dimension_numbers")
        if dims is None:
            return None
        lhs = [d.value.data for d in getattr(dims, f"lhs_{self.half}_dimensions").data]
        rhs = [d.value.data for d in getattr(dims, f"rhs_{self.half}_dimensions").data]
        if not lhs and self.half == "batching":
            return None
        return f"[{', '.join(map(str, lhs))}] x [{', '.join(map(str, rhs))}]"


class _Precision:
    """``[DEFAULT, HIGHEST]`` as ``[#stablehlo<precision DEFAULT>, ...]``."""

    @staticmethod
    def parse(parser, attrs, key):
        from rt.compiler.dialects.stablehlo import PrecisionAttr

        words = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_identifier)
        bad = [w for w in words if w not in PrecisionAttr.VALUES]
        if bad:
            parser.raise_error(f"precision: expected {', '.join(PrecisionAttr.VALUES)}, got {bad[0]}")
        attrs[key] = ArrayAttr([PrecisionAttr(_string(w)) for w in words])

    @staticmethod
    def text(op, key):
        attr = op.attributes.get(key)
        return None if attr is None else "[" + ", ".join(a.value.data for a in attr.data) + "]"


#: op name -> {printed keyword: (attribute, value kind)}, StableHLO's pretty printers' clauses
KEYWORDS = {
    "stablehlo.broadcast_in_dim": {"dims": ("broadcast_dimensions", _IntList)},
    "stablehlo.broadcast": {"sizes": ("broadcast_sizes", _IntList)},
    "stablehlo.transpose": {"dims": ("permutation", _IntList)},
    "stablehlo.reverse": {"dims": ("dimensions", _IntList)},
    "stablehlo.iota": {"dim": ("iota_dimension", _Int)},
    "stablehlo.concatenate": {"dim": ("dimension", _Int)},
    "stablehlo.pad": {"low": ("edge_padding_low", _IntList), "high": ("edge_padding_high", _IntList),
                      "interior": ("interior_padding", _IntList)},
    "stablehlo.dynamic_slice": {"sizes": ("slice_sizes", _IntList)},
    "stablehlo.dot_general": {"batching_dims": ("dot_dimension_numbers", _DotDims("batching")),
                              "contracting_dims": ("dot_dimension_numbers", _DotDims("contracting")),
                              "precision": ("precision_config", _Precision)},
    "stablehlo.dot": {"precision": ("precision_config", _Precision)},
}


def _dot_attr(parts):
    from rt.compiler.dialects.stablehlo import DotDimensionNumbersAttr

    keys = ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
            "rhs_contracting_dimensions")
    return DotDimensionNumbersAttr(*(ArrayAttr([IntegerAttr(v, i64) for v in parts.get(k, [])]) for k in keys))


class HloOperands(Directive):
    """`` %a, %b, kw = value, ...`` (``KEYWORDS[op]``), or ``%x [0:2, 1:4:2]`` for ``stablehlo.slice``."""

    field = "inputs"

    def parse(self, state):
        parser, name = state.parser, state.shape.name
        keywords = KEYWORDS.get(name, {})
        names = []
        first = True
        while True:
            if not first and parser.parse_optional_punctuation(",") is None:
                break
            operand = parser.parse_optional_unresolved_operand()
            if operand is not None:
                names.append(operand)
                first = False
                continue
            pos = parser.pos
            word = parser.parse_optional_identifier()
            if word is None:
                if first:
                    break
                parser.raise_error(f"{name}: expected an operand or a keyword clause", pos)
            if word not in keywords:
                expected = ", ".join(keywords) or "no keyword clauses"
                parser.raise_error(f"{name}: unknown clause '{word}'; expected {expected}", pos)
            parser.parse_punctuation("=")
            key, kind = keywords[word]
            kind.parse(parser, state.attrs, key)
            first = False
        if name == "stablehlo.slice" and parser.parse_optional_punctuation("[") is not None:
            self._parse_slice(state)
        if "__dot__" in state.attrs:
            state.attrs["dot_dimension_numbers"] = _dot_attr(state.attrs.pop("__dot__"))
        state.names["inputs"] = names

    @staticmethod
    def _parse_slice(state):
        parser = state.parser
        starts, limits, strides = [], [], []
        while True:
            starts.append(parser.parse_integer())
            parser.parse_punctuation(":")
            limits.append(parser.parse_integer())
            strides.append(parser.parse_integer() if parser.parse_optional_punctuation(":") else 1)
            if parser.parse_optional_punctuation(",") is None:
                break
        parser.parse_punctuation("]")
        state.attrs.update(start_indices=_int_array(starts), limit_indices=_int_array(limits),
                           strides=_int_array(strides))

    def print(self, op, printer):
        clauses = []
        for word, (key, kind) in KEYWORDS.get(op.name, {}).items():
            text = kind.text(op, key) if key in op.attributes else None
            if text is not None and f"{word} = {text}" not in clauses:
                clauses.append(f"{word} = {text}")
        printer.print_string(" ")
        printer.print_list(op.inputs, printer.print_ssa_value)
        if clauses:
            printer.print_string((", " if op.inputs else "") + ", ".join(clauses))


def shown_attributes(op_name):
    """The attributes :class:`HloOperands` prints for ``op_name`` (left out of the attr-dict)."""
    return {key for key, _ in KEYWORDS.get(op_name, {}).values()}


class StructuralAttrDict(AttrDict):
    """`` {attrs}`` without the attributes that :class:`HloOperands` printed as clauses."""

    def print(self, op, printer):
        shown = shown_attributes(op.name)
        print_attr_dict(printer, {k: v for k, v in op.attributes.items() if k not in shown})


class Generic(FormattedOp):
    """Any operands and results; the op's attributes hold its parameters (MLIR's generic form)."""

    inputs = var_operand_def()
    outputs = var_result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(HloOperands(), StructuralAttrDict(), " : ", TypesOrFunction(["inputs"], ["outputs"]))


class ReduceForm(Directive):
    """``(%x init: %z), ... [applies stablehlo.OP] across dimensions = [..] : (...) -> (...)``
    followed, without ``applies``, by ``reducer(%acc: t, %x: t) ... { region }``.

    ``applies stablehlo.add`` stands for a region ``(acc, x) -> add(acc, x)`` on 0-d tensors.
    Source followed: StableHLO ``printReduceOp`` / ``parseReduceOp`` (``StablehloOps.cpp``).
    """

    field = "inputs"

    def parse(self, state):
        parser = state.parser
        inputs, inits = [], []
        while True:
            parser.parse_punctuation("(")
            inputs.append(parser.parse_unresolved_operand())
            parser.parse_keyword("init")
            parser.parse_punctuation(":")
            inits.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(")")
            if parser.parse_optional_punctuation(",") is None:
                break
        applied = None
        if parser.parse_optional_keyword("applies") is not None:
            pos = parser.pos
            applied = parser.ctx.get_optional_op(parser.parse_identifier())
            if applied is None or not issubclass(applied, Binary):
                parser.raise_error("stablehlo.reduce: 'applies' takes a binary stablehlo op (stablehlo.add, ...)", pos)
        parser.parse_keyword("across")
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        state.attrs["dimensions"] = _int_array(_parse_ints(parser))
        state.attrs.update(parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        TypesOrFunction(["inputs"], ["outputs"]).parse(state)
        state.names["inputs"] = inputs + inits
        init_types = state.types["inputs"][len(inputs):]
        if applied is not None:
            state.regions["body"] = _applied_region(applied, init_types)
            return
        parser.parse_keyword("reducer")
        pairs = []
        while parser.parse_optional_punctuation("(") is not None:
            acc = parser.parse_argument()
            parser.parse_punctuation(",")
            pairs.append((acc, parser.parse_argument()))
            parser.parse_punctuation(")")
        args = [p[0] for p in pairs] + [p[1] for p in pairs]
        state.regions["body"] = parser.parse_region(args)

    def print(self, op, printer):
        n = len(op.inputs) // 2
        printer.print_string("(")
        pairs = [f"{printer_name(printer, x)} init: {printer_name(printer, z)}"
                 for x, z in zip(op.inputs[:n], op.inputs[n:])]
        printer.print_string("), (".join(pairs))
        printer.print_string(")")
        dims = ", ".join(map(str, _ints_of(op.attributes["dimensions"]) or []))
        printer.print_string(f" across dimensions = [{dims}]")
        print_attr_dict(printer, {k: v for k, v in op.attributes.items() if k != "dimensions"})
        printer.print_string(" : ")
        TypesOrFunction(["inputs"], ["outputs"]).print(op, printer)
        block = op.body.block
        printer.print_string(" reducer")
        for acc, x in zip(block.args[:n], block.args[n:]):
            printer.print_string("(")
            printer.print_block_argument(acc)
            printer.print_string(", ")
            printer.print_block_argument(x)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(op.body, print_entry_block_args=False)


def printer_name(printer, value):
    """``value``'s SSA name as ``printer`` prints it."""
    import io

    stream, saved = io.StringIO(), printer.stream
    printer.stream = stream
    try:
        printer.print_ssa_value(value)
    finally:
        printer.stream = saved
    return stream.getvalue()


def _applied_region(op_class, init_types):
    """The reduction region ``(acc, x) -> op_class(acc, x)`` on the init values' 0-d types."""
    from xdsl.ir import Block, Region

    from rt.compiler.dialects.stablehlo import ReturnOp

    block = Block(arg_types=list(init_types) * 2)
    combined = op_class.build(operands=[block.args[0], block.args[1]], result_types=[init_types[0]])
    block.add_ops([combined, ReturnOp.build(operands=[[combined.results[0]]])])
    return Region(block)


class WhileForm(Directive):
    """``(%i = %init, ...) : t, ... cond { ... } do { ... }``: the loop-carried values, named
    inside both regions, and the two regions (StableHLO ``printWhileOp``)."""

    field = "inputs"

    def parse(self, state):
        parser = state.parser
        names, inits = [], []
        parser.parse_punctuation("(")
        if parser.parse_optional_punctuation(")") is None:
            while True:
                names.append(parser.parse_argument(expect_type=False))
                parser.parse_punctuation("=")
                inits.append(parser.parse_unresolved_operand())
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
        state.attrs.update(parser.parse_optional_attr_dict())
        types = []
        if parser.parse_optional_punctuation(":") is not None:
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(inits):
            parser.raise_error(f"stablehlo.while: {len(inits)} loop values but {len(types)} types")
        state.names["inputs"], state.types["inputs"], state.types["outputs"] = inits, types, types
        for region in ("cond", "body"):
            parser.parse_keyword("cond" if region == "cond" else "do")
            args = [name.resolve(t) for name, t in zip(names, types)]
            state.regions[region] = parser.parse_region(args)

    def print(self, op, printer):
        printer.print_string("(")
        args = op.body.block.args
        for k, (arg, init) in enumerate(zip(args, op.inputs)):
            if k:
                printer.print_string(", ")
            name = printer.print_ssa_value(arg)
            # the cond region's arguments print under the same names (as MLIR's printer does);
            # xDSL 0.74.0's Printer keeps the names in _ssa_values
            printer._ssa_values[op.cond.block.args[k]] = name
            printer.print_string(" = ")
            printer.print_ssa_value(init)
        printer.print_string(")")
        print_attr_dict(printer, op.attributes)
        if op.inputs:
            printer.print_string(" : ")
            printer.print_list([v.type for v in op.inputs], printer.print_attribute)
        for keyword, region in (("cond", op.cond), ("do", op.body)):
            printer.print_string(f" {keyword} ")
            printer.print_region(region, print_entry_block_args=False)
