"""Parsers of StableHLO's struct attributes: ``#stablehlo.gather<...>`` and ``#stablehlo.conv<...>``.

``parse_struct_fields`` reads ``<key = [0, 1], key = 2, ...>`` (MLIR's ``parseStruct``: keys in
any order, each at most once); ``parse_conv_dims`` reads both forms of convolution dimension
numbers: ``raw`` fields, and the compact ``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` where the
position of ``b``/``f``/``i``/``o`` and of the spatial numbers gives each dimension.

Source followed: StableHLO ``StablehloAttrs.td`` and ``StablehloOps.cpp``
(``parseConvDimensions``, ``printConvolutionDimensions``).
"""
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.parser import Parser

CONV_FIELDS = ("input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
               "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
               "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions")


def _value(parser):
    if parser.parse_optional_punctuation("[") is not None:
        values = []
        if parser.parse_optional_punctuation("]") is None:
            values = [parser.parse_integer()]
            while parser.parse_optional_punctuation(",") is not None:
                values.append(parser.parse_integer())
            parser.parse_punctuation("]")
        return ArrayAttr([IntegerAttr(v, i64) for v in values])
    return IntegerAttr(parser.parse_integer(), i64)


def parse_struct_fields(parser, name, fields, opened=False):
    """``<key = value, ...>`` -> {key: ArrayAttr | IntegerAttr}; unknown or repeated keys are errors."""
    if not opened:
        parser.parse_punctuation("<")
    values = {}
    while parser.parse_optional_punctuation(">") is None:
        pos = parser.pos
        key = parser.parse_identifier()
        if key not in fields or key in values:
            what = "repeated" if key in values else "unknown"
            parser.raise_error(f"#{name}: {what} field '{key}'; fields: {', '.join(fields)}", pos)
        parser.parse_punctuation("=")
        values[key] = _value(parser)
        if parser.parse_optional_punctuation(",") is None:
            parser.parse_punctuation(">")
            break
    return values


def _compact_dims(parser, letters):
    """``[b, 0, 1, f]``: the position of each letter and of each spatial number."""
    pos = parser.pos
    items = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, lambda: _compact_item(parser))
    found = {}
    spatial = {}
    for position, item in enumerate(items):
        if item.isdigit():
            spatial[int(item)] = position
        elif item in letters and item not in found:
            found[item] = position
        else:
            parser.raise_error(f"#stablehlo.conv: unexpected '{item}' in {items}; expected {', '.join(letters)} "
                               "and spatial dims 0..N-1", pos)
    if set(found) != set(letters) or sorted(spatial) != list(range(len(spatial))):
        parser.raise_error(f"#stablehlo.conv: {items} must name {', '.join(letters)} once and spatial dims 0..N-1",
                           pos)
    return found, [spatial[k] for k in range(len(spatial))]


def _compact_item(parser):
    integer = parser.parse_optional_integer()
    return str(integer) if integer is not None else parser.parse_identifier()


def parse_conv_dims(parser):
    """Either form of ``#stablehlo.conv<...>`` -> {field: ArrayAttr | IntegerAttr}."""
    parser.parse_punctuation("<")
    if parser.parse_optional_keyword("raw") is not None:
        return parse_struct_fields(parser, "stablehlo.conv", CONV_FIELDS, opened=True)
    fields = _compact_fields(parser)
    parser.parse_punctuation(">")
    return fields


def _compact_fields(parser):
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` -> the raw fields."""
    lhs, lhs_spatial = _compact_dims(parser, ("b", "f"))
    parser.parse_keyword("x")
    rhs, rhs_spatial = _compact_dims(parser, ("i", "o"))
    parser.parse_punctuation("->")
    out, out_spatial = _compact_dims(parser, ("b", "f"))

    def ints(values):
        return ArrayAttr([IntegerAttr(v, i64) for v in values])
    return {
        "input_batch_dimension": IntegerAttr(lhs["b"], i64), "input_feature_dimension": IntegerAttr(lhs["f"], i64),
        "input_spatial_dimensions": ints(lhs_spatial),
        "kernel_input_feature_dimension": IntegerAttr(rhs["i"], i64),
        "kernel_output_feature_dimension": IntegerAttr(rhs["o"], i64), "kernel_spatial_dimensions": ints(rhs_spatial),
        "output_batch_dimension": IntegerAttr(out["b"], i64), "output_feature_dimension": IntegerAttr(out["f"], i64),
        "output_spatial_dimensions": ints(out_spatial),
    }


def struct_text(value):
    if isinstance(value, ArrayAttr):
        return "[" + ", ".join(str(v.value.data) for v in value.data) + "]"
    return str(value.value.data)


#: ``window = {...}`` keys of the pretty convolution -> the op's attributes
_WINDOW_KEYS = {"stride": "window_strides", "lhs_dilate": "lhs_dilation", "rhs_dilate": "rhs_dilation",
                "reverse": "window_reversal"}


def parse_conv_window(parser, attrs):
    """``{stride = [1, 1], pad = [[0, 0], [1, 1]], lhs_dilate = [..], rhs_dilate = [..]}`` into ``attrs``."""
    from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, TensorType

    parser.parse_punctuation("{")
    while parser.parse_optional_punctuation("}") is None:
        pos = parser.pos
        key = parser.parse_identifier()
        parser.parse_punctuation("=")
        if key == "pad":
            pairs = parser.parse_comma_separated_list(
                Parser.Delimiter.SQUARE,
                lambda: parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer))
            flat = [v for pair in pairs for v in pair]
            attrs["padding"] = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(pairs), 2]), flat)
        elif key in _WINDOW_KEYS:
            values = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
            attrs[_WINDOW_KEYS[key]] = DenseArrayBase.from_list(i64, values)
        else:
            parser.raise_error(f"stablehlo.convolution: unknown window key '{key}'; keys: pad, "
                               f"{', '.join(_WINDOW_KEYS)}", pos)
        if parser.parse_optional_punctuation(",") is None:
            parser.parse_punctuation("}")
            break


def conv_window_text(op):
    """The ``window = {...}`` text of ``op``'s window attributes ('' when it has none)."""
    parts = []
    for key, attr in (("stride", "window_strides"), ("pad", "padding"), ("lhs_dilate", "lhs_dilation"),
                      ("rhs_dilate", "rhs_dilation"), ("reverse", "window_reversal")):
        if attr in op.attributes:
            values = [int(v) for v in op.attributes[attr].get_values()]
            if key == "pad":
                text = "[" + ", ".join(f"[{values[i]}, {values[i + 1]}]" for i in range(0, len(values), 2)) + "]"
            else:
                text = "[" + ", ".join(map(str, values)) + "]"
            parts.append(f"{key} = {text}")
    return "{" + ", ".join(parts) + "}" if parts else ""


def compact_conv_text(attr):
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` for a ``#stablehlo.conv`` attribute."""
    def side(prefix, letters):
        first, second, spatial = (attr.get(f"{prefix}_{k}") for k in letters[:3])
        items = [None] * (len(spatial) + 2)
        items[first], items[second] = letters[3], letters[4]
        for i, dim in enumerate(spatial):
            items[dim] = str(i)
        return "[" + ", ".join(items) + "]"
    lhs = side("input", ("batch_dimension", "feature_dimension", "spatial_dimensions", "b", "f"))
    rhs = side("kernel", ("input_feature_dimension", "output_feature_dimension", "spatial_dimensions", "i", "o"))
    out = side("output", ("batch_dimension", "feature_dimension", "spatial_dimensions", "b", "f"))
    return f"{lhs}x{rhs}->{out}"


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
