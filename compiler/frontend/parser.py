"""``RtParser``: xDSL's MLIR parser with rt's guards for the xDSL 0.74.0 defects (docs/ARCHITECTURE.md §8).

Guards (each has a regression test in tests/compiler/test_frontend_guards.py):

* hex float literals inside dense lists (``dense<[0x7F800000]> : tensor<1xf32>``) are bit
  patterns, as in MLIR, not integers converted to float;
* decimal float literals out of range for their type (``70000.0 : f16``) are a located parse
  error instead of a bare ``OverflowError``;
* splats and large constants become :class:`~rt.compiler.frontend.elements.ElementsAttr`
  handles (a splat stays O(1) in memory whatever its shape);
* ``dense_resource<key>`` blobs are read from this file's ``{-# dialect_resources #-}`` section
  into the module's own constants, never into xDSL's process-wide builtin resource table;
* any exception raised while building an op (declarative formats raise location-less
  ``VerifyException``/``ValueError``) becomes a parse error at the op's name;
* a plain ``tensor<...>``/``vector<...>`` type (static or dynamic dims, a scalar element type,
  no encoding) is parsed once per spelling and shared: a model repeats a few types thousands
  of times, and xDSL's type parser costs ~0.1 ms a type; so is an ``affine_map<...>`` whose
  dims, symbols and results hold no parentheses (every ``linalg.generic`` repeats its maps);
* string literals are lexed by :class:`~rt.compiler.frontend.lexer.RtLexer`, whose pattern cannot
  backtrack exponentially (xDSL's hangs on an unterminated string of ~30 characters; tested in
  tests/compiler/test_frontend_hostile.py);
* file locations with a range (``loc("f.py":3:5 to :9)``, ``to 4:2``: JAX 0.10 prints them) are
  read as their start, a ``FileLineColLoc`` (xDSL reads only ``"file":line:col``);
* a location alias used before its definition (``loc(#loc7)`` with ``#loc7 = loc(...)`` at the
  end of the file, as MLIR and ``jax.export`` print debug locations) is not an error: the op
  is located in this file instead (xDSL resolves aliases only backwards);
* every parsed op gets a ``loc("file":line:col)`` location at its name (``%0 = linalg.matmul``
  is located at ``linalg``, as mlir-opt and iree-compile locate it), so later passes report
  located errors too.

Source followed: MLIR ``mlir/lib/AsmParser/AttributeParser.cpp`` (dense literal semantics).
"""
import bisect
import re
import warnings

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseResourceAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ShapedType,
    Signedness,
    StringAttr,
    UnknownLoc,
    f64,
    i64,
)
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from rt.compiler.frontend.elements import (
    ConstantPayload,
    ConstantPayloadAttr,
    ElementsAttr,
    make_elements,
    small_float_name,
    storage_dtype,
)
from rt.compiler.frontend.lexer import RtLexer
from rt.compiler.passes.legality import UNSUPPORTED, unsupported_message
from rt.runtime.errors import RtError
from rt.runtime.small_float import FORMATS as SMALL_FLOATS, from_float64

_OP_NAME = re.compile(r'\s*(?:(?:%[\w$.#:-]+\s*,\s*)*%[\w$.#:-]+\s*=\s*)?("[^"]*"|[A-Za-z_][\w$.]*)')
#: a tensor/vector type fully given by its spelling: dims, then a scalar element type
_PLAIN_SHAPED_TYPE = re.compile(r"(?:tensor|vector)<(?:(?:\d+|\?)x)*[a-z][a-z0-9]*>")
#: an affine map given by its spelling alone: ``<(dims)[symbols] -> (results)>`` without nesting
_PLAIN_AFFINE_MAP = re.compile(r"<\([^()<>\[\]]*\)(?:\[[^()<>\[\]]*\])?\s*->\s*\([^()<>\[\]]*\)>")
_FLOAT_MAX = {Float16Type: 65504.0, Float32Type: float(np.finfo(np.float32).max)}


def _float_limit(element_type):
    for cls, limit in _FLOAT_MAX.items():
        if isinstance(element_type, cls):
            return limit
    if (small := small_float_name(element_type)) is not None:
        return float(ml_dtypes.finfo(SMALL_FLOATS[small].dtype).max)
    return None


def _after_previous_token(span):
    """``span`` itself, or, when only blank and comment lines lie between it and the token
    before it, the position just after that token (a ``Span`` of one character)."""
    text = span.input.content
    pos = span.start
    line_start = text.rfind("\n", 0, pos) + 1
    if text[line_start:pos].strip() or line_start == 0:
        return span
    while line_start > 0:
        end = line_start - 1
        line_start = text.rfind("\n", 0, end) + 1
        line = text[line_start:end]
        comment = line.find("//")
        if comment >= 0 and '"' not in line[:comment]:
            line = line[:comment]
        if line.strip():
            end = line_start + len(line.rstrip())
            return Span(end, end + 1, span.input)
    return span


class RtParser(Parser):
    """An xDSL ``Parser`` with rt's guards. Use :func:`rt.compiler.frontend.parse_module`."""

    def __init__(self, ctx, text, name="<input>"):
        super().__init__(ctx, "", name)
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        self._parser_state = ParserState(RtLexer(Input(text, name)))
        self.resource_blobs = {}
        self.resource_spans = {}
        self._shaped_types = {}
        self._affine_maps = {}
        self._first_uses = {}

    # ---------------------------------------------------------------- diagnostics
    def raise_error(self, msg, at_position=None, end_position=None):
        """xDSL's ``raise_error``; a wrong-token error ("expected ...") whose token starts a
        line is reported just after the previous token, as MLIR's ``emitWrongTokenError`` does:
        the missing ``>`` or ``,`` belongs to the line above."""
        current = self._current_token.span
        if end_position is None and at_position in (None, current) and msg[:8].lower() == "expected":
            at_position = _after_previous_token(current)
        super().raise_error(msg, at_position, end_position)

    def _parse_block(self):
        if self._current_token.kind != MLIRTokenKind.CARET_IDENT:  # xDSL says " in block definition"
            self.raise_error("expected '}' to end the region, or a block label '^name:'")
        return super()._parse_block()

    # ----------------------------------------------------------------- SSA values
    def resolve_operand(self, operand, type):
        if operand.operand_name not in self.ssa_values:
            self._first_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module=True):
        """xDSL's module parse, with MLIR's diagnostic for a value used but never defined: at its
        first use (xDSL reports all of them at the end of the file)."""
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError:
            if not self.forward_ssa_references:
                raise
        name = min(self.forward_ssa_references, key=lambda n: self._first_uses[n].start)
        self.raise_error(f"use of undeclared SSA value name '%{name}'", self._first_uses[name])

    def _parse_location(self):
        token = self._current_token
        if token.kind == MLIRTokenKind.HASH_IDENT and token.text not in self.attribute_aliases:
            self._consume_token()  # defined further down: located by parse_operation instead
            return UnknownLoc()
        location = super()._parse_location()
        if isinstance(location, FileLineColLoc) and self.parse_optional_keyword("to") is not None:
            if self.parse_optional_punctuation(":") is None:  # ``to line:col``
                self.parse_integer(False, False)
                self.parse_punctuation(":")
            self.parse_integer(False, False)
        return location

    # ----------------------------------------------------------------- operations
    def parse_operation(self):
        start = self._current_token.span
        match = _OP_NAME.match(start.input.content, start.start)
        name_pos = self._op_name_pos = match.start(1) if match else start.start
        try:
            op = super().parse_operation()
        except (ParseError, RtError):
            raise
        except Exception as exc:  # declarative formats and op builders raise location-less errors
            name = match.group(1).strip('"') if match else "operation"
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            where = Span(name_pos, name_pos + len(match.group(1)), start.input) if match else start
            raise ParseError(where, f"invalid '{name}': {message}") from exc
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(name_pos, start.input)
        return op

    def _location(self, pos, source):
        """``loc("file":line:col)`` of offset ``pos`` (a table of line starts, built once: xDSL's
        Span.get_location counts the newlines before every op, quadratic in the file)."""
        if getattr(self, "_line_starts", None) is None:
            content = source.content
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", content)]
            self._file = StringAttr(Span(0, 0, source).get_location().file)
        line = bisect.bisect_right(self._line_starts, pos)
        return FileLineColLoc(self._file, IntAttr(line), IntAttr(pos - self._line_starts[line - 1] + 1))

    def _get_op_by_name(self, name):
        if (op_type := self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)) is not None:
            if name not in UNSUPPORTED:
                return op_type
        pos = getattr(self, "_op_name_pos", None)
        self.raise_error(unsupported_message(self.ctx, name), pos, pos + len(name) if pos is not None else None)

    # ---------------------------------------------------------------------- types
    def _parse_optional_builtin_parametrized_type(self):
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT or token.text not in ("tensor", "vector"):
            return super()._parse_optional_builtin_parametrized_type()
        match = _PLAIN_SHAPED_TYPE.match(token.span.input.content, token.span.start)
        if match is None:
            return super()._parse_optional_builtin_parametrized_type()
        cached = self._shaped_types.get(match.group(0))
        if cached is None:
            cached = self._shaped_types[match.group(0)] = super()._parse_optional_builtin_parametrized_type()
        else:
            self._resume_from(match.end())
        return cached

    # -------------------------------------------------------------- affine maps
    def _parse_builtin_affine_map(self):
        """``affine_map<...>`` (after the keyword), parsed once per spelling like plain shaped
        types: every ``linalg.generic`` repeats its indexing maps."""
        token = self._current_token
        match = _PLAIN_AFFINE_MAP.match(token.span.input.content, token.span.start)
        if match is None:
            return super()._parse_builtin_affine_map()
        cached = self._affine_maps.get(match.group(0))
        if cached is None:
            cached = self._affine_maps[match.group(0)] = super()._parse_builtin_affine_map()
        else:
            self._resume_from(match.end())
        return cached

    # ------------------------------------------------------------ arrow type lists
    def parse_optional_punctuation(self, punctuation):
        found = super().parse_optional_punctuation(punctuation)
        if found == "->":
            self._arrow_end = self.pos
        return found

    def parse_punctuation(self, punctuation, context_msg=""):
        found = super().parse_punctuation(punctuation, context_msg)
        if found == "->":
            self._arrow_end = self.pos
        return found

    def parse_comma_separated_list(self, delimiter, parse, context_msg=""):
        """MLIR's arrow type lists (``parseArrowTypeList``): right after ``->`` a single type
        needs no parentheses, as MLIR prints ``scf.if %c -> tensor<4xf32>`` and accepts
        ``scf.for ... -> tensor<4xf32>``; xDSL's scf parsers insist on ``(``."""
        if (delimiter == self.Delimiter.PAREN and getattr(self, "_arrow_end", None) == self.pos
                and parse in (self.parse_type, self.parse_attribute)
                and self._current_token.kind != MLIRTokenKind.L_PAREN):
            return [parse()]
        return super().parse_comma_separated_list(delimiter, parse, context_msg)

    # ------------------------------------------------------------ scalar literals
    def parse_optional_builtin_int_or_float_attr(self):
        if (boolean := self.try_parse_builtin_boolean_attr()) is not None:
            return boolean
        span = self._current_token.span
        if self._current_token.kind == MLIRTokenKind.MINUS:
            negative = True
        else:
            negative = False
        is_hex = span.text[:2].lower() == "0x"
        start = span.start
        if (value := self.parse_optional_number()) is None:
            return None
        end = self._current_token.span.start
        if self._current_token.kind != MLIRTokenKind.COLON:
            return FloatAttr(value, f64) if isinstance(value, float) else IntegerAttr(value, i64)
        type_ = self._parse_attribute_type()
        if isinstance(type_, AnyFloat):
            if is_hex and not negative:
                return FloatAttr(self._hex_to_float(value, type_, start, end), type_)
            self._check_float_range(float(value), type_, start, end)
            if (small := small_float_name(type_)) is not None:  # keep the value the type holds
                return FloatAttr(float(from_float64([float(value)], small).astype(np.float64)[0]), type_)
            return FloatAttr(float(value), type_)
        if isinstance(type_, IntegerType | IndexType):
            if isinstance(value, float):
                self.raise_error(f"float literal {value} is not valid for integer type {type_}", start, end)
            self._check_int_range(value, type_, start, end)
            return IntegerAttr(value, type_, truncate_bits=True)
        self.raise_error(f"expected an integer or float type for literal, got {type_}", start, end)

    def _hex_to_float(self, bits, type_, start, end):
        size = max(1, type_.bitwidth // 8) if hasattr(type_, "bitwidth") else storage_dtype(type_).itemsize
        if bits >= 1 << (8 * size):
            self.raise_error(f"hex float literal {bits:#x} does not fit in {type_}", start, end)
        unsigned = np.array([bits], dtype=f"<u{size}")
        return float(unsigned.view(storage_dtype(type_))[0])

    def _check_float_range(self, value, type_, start, end):
        limit = _float_limit(type_)
        if limit is None or not np.isfinite(value) or abs(value) <= limit:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if (small := small_float_name(type_)) is not None:
                rounded = np.isfinite(from_float64([value], small).astype(np.float64)[0])
            else:
                rounded = np.isfinite(np.array(value, dtype=storage_dtype(type_)))
        if not rounded:
            self.raise_error(
                f"float literal {value!r} is out of range for {type_} "
                f"(largest finite magnitude {limit!r}); use a smaller value or a wider type",
                start,
                end,
            )

    def _check_int_range(self, value, type_, start, end):
        if isinstance(type_, IndexType):
            lo, hi = -(1 << 63), (1 << 64) - 1
        else:
            width = type_.width.data
            if type_.signedness.data == Signedness.UNSIGNED:
                lo, hi = 0, (1 << width) - 1
            elif type_.signedness.data == Signedness.SIGNED:
                lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
            else:
                lo, hi = -(1 << (width - 1)), (1 << width) - 1
        if not lo <= int(value) <= hi:
            self.raise_error(
                f"integer literal {value} is out of range for {type_} (valid: {lo}..{hi})", start, end
            )

    # ------------------------------------------------------------- dense literals
    def parse_dense_int_or_fp_elements_attr(self, type_):
        start = self._current_token.span.start
        self.parse_punctuation("<", " in dense attribute")
        contents = None
        if self.parse_optional_punctuation(">") is None:
            if (hex_string := self.parse_optional_str_literal()) is not None:
                contents = hex_string
            else:
                contents = self._parse_tensor_literal()
            self.parse_punctuation(">", " in dense attribute")
        if type_ is None:
            self.parse_punctuation(":", " in dense attribute")
            type_ = self._parse_dense_literal_type()
        end = self._current_token.span.start
        shape = tuple(type_.get_shape())
        count = int(np.prod(shape, dtype=np.int64))
        element_type = type_.get_element_type()
        try:
            dtype = storage_dtype(element_type)
        except RtError as exc:
            self.raise_error(str(exc), start, end)
        if contents is None:
            if count != 0:
                self.raise_error(f"empty dense literal for {type_} with {count} elements", start, end)
            return make_elements(type_, np.zeros(shape, dtype))
        if isinstance(contents, str):
            return self._dense_from_hex(contents, type_, dtype, count, start, end)
        elements, literal_shape = contents
        if literal_shape and tuple(literal_shape) != shape:
            self.raise_error(
                f"dense literal has shape {list(literal_shape)} but the type {type_} has shape "
                f"{list(shape)}",
                start,
                end,
            )
        values = [self._element_value(e, element_type) for e in elements]
        if (small := small_float_name(element_type)) is not None:
            data = from_float64(values, small)  # one rounding, as APFloat parses
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data = np.array([_wrap_int(v, dtype) for v in values], dtype=dtype)
        if not literal_shape:
            return make_elements(type_, data.reshape(()))
        return make_elements(type_, data.reshape(shape))

    def _dense_from_hex(self, text, type_, dtype, count, start, end):
        try:
            raw = bytes.fromhex(text[2:]) if text[:2] in ("0x", "0X") else None
        except ValueError:
            raw = None
        if raw is None:
            self.raise_error('dense hex literal must look like "0x0011AABB..." (even number of hex digits)', start, end)
        if len(raw) % dtype.itemsize:
            self.raise_error(f"dense hex literal of {len(raw)} bytes is not a whole number of {dtype.itemsize}-byte elements", start, end)
        data = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype)
        if data.size == 1 and count != 1:
            return make_elements(type_, data.reshape(()))
        if data.size != count:
            self.raise_error(f"dense hex literal holds {data.size} elements but {type_} needs {count}", start, end)
        return make_elements(type_, data.reshape(tuple(type_.get_shape())))

    def _element_value(self, element, element_type):
        text = element.span.text.lstrip("-").lstrip()
        span = element.span
        if isinstance(element_type, ComplexType) != isinstance(element.value, tuple):
            self.raise_error(f"complex literal (re, im) and element type {element_type} do not match; a "
                             "complex<fN> tensor takes (re, im) pairs, other element types plain numbers", span)
        if isinstance(element_type, ComplexType):
            if any(isinstance(part, bool) for part in element.value):
                self.raise_error(f"boolean parts are not valid for element type {element_type}", span)
            parts = [float(part) for part in element.value]
            for part in parts:
                self._check_float_range(part, element_type.element_type, span.start, span.end)
            return complex(*parts)
        if isinstance(element_type, AnyFloat):
            if isinstance(element.value, int) and text[:2].lower() == "0x" and not isinstance(element.value, bool):
                if element.is_negative:
                    self.raise_error("hex float literals cannot be negated; set the sign bit instead", span)
                return self._hex_to_float_element(element.value, element_type, span)
            if isinstance(element.value, bool):
                self.raise_error(f"boolean literal is not valid for element type {element_type}", span)
            value = float(element.value)
            self._check_float_range(value, element_type, span.start, span.end)
            return value
        if isinstance(element.value, float):
            self.raise_error(f"float literal {element.value} is not valid for element type {element_type}", span)
        if isinstance(element.value, bool):
            if not (isinstance(element_type, IntegerType) and element_type.width.data == 1):
                self.raise_error(f"boolean literal is only valid for i1, not {element_type}", span)
            return int(element.value)
        self._check_int_range(element.value, element_type, span.start, span.end)
        return int(element.value)

    def _hex_to_float_element(self, bits, element_type, span):
        return self._hex_to_float(bits, element_type, span.start, span.end)

    # ---------------------------------------------------------- dense resources
    def _parse_builtin_dense_resource_attr(self):
        self.parse_characters("<", " in dense_resource attribute")
        key_span = self._current_token.span
        key = self.parse_identifier(" for resource handle")
        self.parse_characters(">", " in dense_resource attribute")
        self.parse_characters(":", " in dense_resource attribute")
        type_ = self.parse_type()
        if not isinstance(type_, ShapedType):
            self.raise_error(f"dense_resource needs a shaped type, got {type_}", key_span)
        self.resource_spans.setdefault(key, key_span)
        return DenseResourceAttr.from_params(key, type_)

    def _parse_resource(self, dialect_name, interface):
        key_span = self._current_token.span
        key = self.parse_identifier(" for resource handle")
        self._parse_token(MLIRTokenKind.COLON, "expected `:`")
        value = self.parse_str_literal()
        if dialect_name != "builtin":
            return
        if not value.startswith("0x"):
            self.raise_error(f"resource blob '{key}' must be a hex string \"0x...\"", key_span)
        try:
            blob = bytes.fromhex(value[2:])
        except ValueError:
            self.raise_error(f"resource blob '{key}' is not valid hex", key_span)
        if len(blob) < 4:
            self.raise_error(f"resource blob '{key}' lacks its 4-byte alignment header", key_span)
        self.resource_blobs[key] = blob[4:]

    def resolve_dense_resource(self, attr):
        """Turn ``dense_resource<key> : type`` into an ElementsAttr holding this file's blob."""
        key = attr.resource_handle.data
        span = self.resource_spans.get(key)
        if key not in self.resource_blobs:
            raise ParseError(span, f"dense_resource<{key}> has no blob in this file's dialect_resources")
        type_ = attr.type
        dtype = storage_dtype(type_.get_element_type())
        blob = self.resource_blobs[key]
        shape = tuple(type_.get_shape())
        count = int(np.prod(shape, dtype=np.int64))
        if len(blob) != count * dtype.itemsize:
            raise ParseError(
                span,
                f"dense_resource<{key}> blob has {len(blob)} bytes but {type_} needs "
                f"{count * dtype.itemsize}",
            )
        array = np.frombuffer(blob, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)
        return ElementsAttr(type_, ConstantPayloadAttr(ConstantPayload(shape, dtype, array=array)))


def _wrap_int(value, dtype):
    """Two's-complement wrap of a signless integer literal into its storage dtype."""
    if isinstance(value, float) or dtype.kind not in "iu":
        return value
    bits = dtype.itemsize * 8
    value &= (1 << bits) - 1
    if dtype.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value

