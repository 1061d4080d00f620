"""The pretty forms of StableHLO's structural ops (``dialects/stablehlo.py``), as format directives.

:class:`HloOperands` reads operands followed by ``, keyword = value`` clauses (``dims = [1, 0]``,
``contracting_dims = [1] x [0]``, ``precision = [DEFAULT, DEFAULT]``; the table ``KEYWORDS``
maps each clause to the attribute it sets) and ``stablehlo.slice``'s ``[0:2, 1:4:2]``;
:class:`ReduceForm`, :class:`WhileForm` and :class:`ConvolutionForm` read ``reduce``'s
``(%x init: %z) applies stablehlo.add across dimensions = [1]`` / ``reducer(...)`` form,
``while``'s ``(%i = %init) : t cond {...} do {...}`` and ``convolution``'s
``dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...}``. Each prints what it
parses, so a printed module reads back the same.

Source followed: openxla/stablehlo ``stablehlo/dialect/StablehloOps.cpp`` and
``AssemblyFormat.cpp`` (the pretty printers and parsers of these ops).
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.irdl import traits_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.traits import Pure

from rt.compiler.dialects._format import AttrDict, Directive, OpFormat
from rt.compiler.dialects._stablehlo_attrs import (ConvDimensionNumbersAttr, DotDimensionNumbersAttr, FftTypeAttr,
                                                   PrecisionAttr, RngAlgorithmAttr, RngDistributionAttr)
from rt.compiler.dialects._stablehlo_syntax import Binary, HloOp, ReturnOp, TypesOrFunction, _string
from rt.compiler.dialects._syntax import print_attr_dict


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
        words = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_identifier)
        bad = [w for w in words if w not in PrecisionAttr.VALUES]
        if bad:
            parser.raise_error(f"precision: expected {', '.join(PrecisionAttr.VALUES)}, got {bad[0]}")
        attrs[key] = ArrayAttr([PrecisionAttr(_string(w)) for w in words])

    @staticmethod
    def text(op, key):
        attr = op.attributes.get(key)
        return None if attr is None else "[" + ", ".join(a.value.data for a in attr.data) + "]"


class _Word:
    """An enum keyword (``UNIFORM``, ``PHILOX``, ...) as ``#stablehlo<KIND WORD>`` of ``attr_cls``."""

    def __init__(self, attr_cls):
        self.attr_cls = attr_cls

    def parse(self, parser, attrs, key):
        pos = parser.pos
        word = parser.parse_identifier()
        if word not in self.attr_cls.VALUES:
            parser.raise_error(f"{self.attr_cls.name}: expected one of {', '.join(self.attr_cls.VALUES)}, "
                               f"got '{word}'", pos)
        attrs[key] = self.attr_cls(_string(word))

    @staticmethod
    def text(op, key):
        return op.attributes[key].value.data


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
    "stablehlo.rng": {"distribution": ("rng_distribution", _Word(RngDistributionAttr))},
    "stablehlo.rng_bit_generator": {"algorithm": ("rng_algorithm", _Word(RngAlgorithmAttr))},
    "stablehlo.get_dimension_size": {"dim": ("dimension", _Int)},
    "stablehlo.dynamic_broadcast_in_dim": {"dims": ("broadcast_dimensions", _IntList)},
    "stablehlo.dynamic_iota": {"dim": ("iota_dimension", _Int)},
    "stablehlo.fft": {"type": ("fft_type", _Word(FftTypeAttr)), "length": ("fft_length", _IntList)},
}


def _dot_attr(parts):
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


class Generic(HloOp):
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
            acc = _located_argument(parser)
            parser.parse_punctuation(",")
            pairs.append((acc, _located_argument(parser)))
            parser.parse_punctuation(")")
        args = [p[0] for p in pairs] + [p[1] for p in pairs]
        state.regions["body"] = parser.parse_region(args)

    def print(self, op, printer):
        n = len(op.inputs) // 2
        for k, (x, z) in enumerate(zip(op.inputs[:n], op.inputs[n:])):
            printer.print_string(", (" if k else "(")
            printer.print_ssa_value(x)
            printer.print_string(" init: ")
            printer.print_ssa_value(z)
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


def _located_argument(parser):
    """``%x: tensor<f32> [loc(...)]``: a reducer argument; JAX prints each with its location."""
    argument = parser.parse_argument()
    parser.parse_optional_location()
    return argument


def _applied_region(op_class, init_types):
    """The reduction region ``(acc, x) -> op_class(acc, x)`` on the init values' 0-d types."""
    from xdsl.ir import Block, Region


    block = Block(arg_types=list(init_types) * 2)
    combined = op_class.build(operands=[block.args[0], block.args[1]], result_types=[init_types[0]])
    block.add_ops([combined, ReturnOp.build(operands=[[combined.results[0]]])])
    return Region(block)


def parse_loop_values(parser):
    """``(%x = %init, ...)``: the names loop regions give their arguments, and the initial values."""
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
    return names, inits


class WhileForm(Directive):
    """``(%i = %init, ...) : t, ... cond { ... } do { ... }``: the loop-carried values, named
    inside both regions, and the two regions (StableHLO ``printWhileOp``)."""

    field = "inputs"

    def parse(self, state):
        parser = state.parser
        names, inits = parse_loop_values(parser)
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


class ConvolutionForm(Directive):
    """``(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...}
    {attrs} : (...) -> ...`` (StableHLO's pretty ``convolution``)."""

    field = "inputs"

    def parse(self, state):
        from rt.compiler.dialects._stablehlo_structs import _compact_fields, parse_conv_window
        from xdsl.dialects.builtin import DictionaryAttr

        parser = state.parser
        parser.parse_punctuation("(")
        names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(")")
        parser.parse_keyword("dim_numbers")
        parser.parse_punctuation("=")
        state.attrs["dimension_numbers"] = ConvDimensionNumbersAttr(DictionaryAttr(_compact_fields(parser)))
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("window")
            parser.parse_punctuation("=")
            parse_conv_window(parser, state.attrs)
        state.attrs.update(parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        TypesOrFunction(["inputs"], ["outputs"]).parse(state)
        state.names["inputs"] = names

    def print(self, op, printer):
        from rt.compiler.dialects._stablehlo_structs import compact_conv_text, conv_window_text

        printer.print_string("(")
        printer.print_list(op.inputs, printer.print_ssa_value)
        printer.print_string(") dim_numbers = " + compact_conv_text(op.attributes["dimension_numbers"]))
        shown = {"dimension_numbers", "window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal"}
        window = conv_window_text(op)
        if window:
            printer.print_string(", window = " + window)
        print_attr_dict(printer, {k: v for k, v in op.attributes.items() if k not in shown})
        printer.print_string(" : ")
        TypesOrFunction(["inputs"], ["outputs"]).print(op, printer)
