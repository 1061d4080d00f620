"""Declarative op formats: an op's custom assembly written once, parser and printer derived from it.

An :class:`OpFormat` is a sequence of directives (after MLIR's ODS ``assemblyFormat``); strings
are literal text, printed as written and parsed token by token::

    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), "[", Operand("source_offset"), "] : ",
                                Sized("source", "source_size"), " -> ", Type("result"), AttrDict())

Directives name op fields by their Python accessor. The op definition says whether a field is
an operand, a result or a property, whether it is variadic, and which operand/result types
are fixed (``index``, ``i32``, ``!hal.fence``), so only the others need a type directive. Ops
subclass :class:`FormattedOp` and set ``FORMAT``; pieces shared by a dialect (``AFFINITY``,
``stream``'s ``AWAIT``, HAL's ``receiver``) are tuples or directives reused across formats.
This is the one way rt ops declare syntax: irregular pieces are custom directives
(:mod:`rt.compiler.dialects._directives`, :mod:`rt.compiler.dialects._regions`, or a
:class:`Directive` subclass in the dialect's module), and an op whose whole syntax no directive
declares uses the one escape, ``OpFormat(Custom())`` (see :class:`Custom`).

Source followed: MLIR ``OpFormatGen`` (the ``assemblyFormat`` directives: literals, variables,
``type``, ``attr-dict(-with-keyword)``, optional groups with an anchor) and IREE's custom
directives (``custom<SizeAwareType>``, ``custom<ShapedTiedResult>``) in ``Util/IR/UtilOps.cpp``.
"""
import re
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, StringAttr, UnitAttr
from xdsl.ir import Attribute, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import BaseAttr, EqAttrConstraint, IRDLOperation, RangeLengthConstraint, RangeOf, VariadicDef
from xdsl.parser import Parser

from rt.compiler.dialects._syntax import (
    INDEX,
    parse_optional_dims,
    parse_sized_type,
    parse_symbol_ref,
    print_attr_dict,
    print_operand_list,
    print_sized_type,
    resolve_by_types,
)


_TOKEN = re.compile(r"->|=>|[A-Za-z_][A-Za-z0-9_$.]*|\S")


def _parse_token(parser, token, optional=False):
    """Parse one keyword or punctuation token; with ``optional`` return False when absent."""
    if token == "=>":
        if optional and parser.parse_optional_punctuation("=") is None:
            return False
        if not optional:
            parser.parse_punctuation("=")
        parser.parse_punctuation(">")
        return True
    if token[0].isalpha() or token[0] == "_":
        if optional:
            return parser.parse_optional_keyword(token) is not None
        parser.parse_keyword(token)
        return True
    if optional:
        return parser.parse_optional_punctuation(token) is not None
    parser.parse_punctuation(token)
    return True


def _present(value):
    """True for a set property or a non-empty operand group."""
    if value is None:
        return False
    return not isinstance(value, (list, tuple)) or len(value) > 0


def _first(value):
    """The value of a single operand field, or the only entry of an optional operand group."""
    return value[0] if isinstance(value, (list, tuple)) else value


class _OpShape:
    """What the op definition says about each field: operand/result/property, variadic, type."""

    def __init__(self, cls):
        opdef = cls.get_irdl_definition()
        self.name = cls.name
        self.operands = opdef.operands
        self.results = opdef.results
        self.prop_names = {k: v[0] for k, v in opdef.accessor_names.items() if v[1] == "property"}
        self.kinds = {n: "operand" for n, _ in opdef.operands} | {n: "result" for n, _ in opdef.results}
        self.kinds |= {n: "property" for n in self.prop_names}
        self.variadic = {n for n, d in opdef.operands + opdef.results if isinstance(d, VariadicDef)}
        self.fixed = {n: _fixed_type(d.constr) for n, d in opdef.operands + opdef.results}
        self.regions = [n for n, _ in opdef.regions]


def _fixed_type(constr):
    """The one type an operand constraint allows (``index``, ``!hal.fence``), else None."""
    if isinstance(constr, RangeLengthConstraint):
        constr = constr.constraint
    if isinstance(constr, RangeOf):
        constr = constr.constr
    if isinstance(constr, EqAttrConstraint):
        return constr.attr
    if isinstance(constr, BaseAttr) and issubclass(constr.attr, ParametrizedAttribute):
        if not constr.attr.get_irdl_definition().parameters:
            return constr.attr()
    return None


class _ParseState:
    """Pieces gathered while parsing one op, turned into ``cls.build(...)`` by :meth:`build`.

    ``names`` holds unresolved operands per field (resolved at the end with ``types`` or the
    field's fixed type), ``values`` operands a directive already resolved, ``block_args`` the
    entry block arguments a directive declared for a region field.
    """

    def __init__(self, cls, parser, shape):
        self.cls, self.parser, self.shape = cls, parser, shape
        self.names, self.types, self.props, self.attrs, self.regions = {}, {}, {}, {}, {}
        self.values, self.block_args, self.op = {}, {}, None

    def set_type(self, slot, type_):
        for field in slot:
            if self.shape.kinds.get(field) == "property":
                self.props[self.shape.prop_names[field]] = type_
            else:
                self.types[field] = type_

    def set_prop(self, field, value):
        self.props[self.shape.prop_names[field]] = value

    def _resolve(self, field, names):
        type_ = self.types.get(field, self.shape.fixed.get(field))
        if names == []:
            return []
        if type_ is None:
            self.parser.raise_error(f"{self.shape.name}: no type given for operand '{field}'")
        if not isinstance(names, list):
            return self.parser.resolve_operand(names, type_)
        types = type_ if isinstance(type_, list) else [type_] * len(names)
        return resolve_by_types(self.parser, names, types)

    def build(self):
        operands = []
        for field, _ in self.shape.operands:
            if field in self.values:
                operands.append(self.values[field])
                continue
            names = self.names.get(field, [])
            if field not in self.shape.variadic and isinstance(names, list):
                if len(names) != 1:
                    self.parser.raise_error(f"{self.shape.name}: expected one '{field}' operand, got {len(names)}")
                names = names[0]
            operands.append(self._resolve(field, names))
        results = []
        for field, _ in self.shape.results:
            type_ = self.types.get(field, [] if field in self.shape.variadic else self.shape.fixed[field])
            if type_ is None:
                self.parser.raise_error(f"{self.shape.name}: the result type is missing")
            results.append(type_)
        return self.cls.build(operands=operands, result_types=results, properties=self.props,
                              attributes=self.attrs, regions=[self.regions.get(n, Region()) for n in self.shape.regions])


class Directive:
    """One piece of an op format. ``field`` names the op field it shows (None for literals)."""

    field = None

    def parse(self, state):
        raise NotImplementedError

    def parse_optional(self, state):
        """Parse when present (the first piece of an optional group); False when absent."""
        raise NotImplementedError(f"{type(self).__name__} cannot start an optional group")

    def print(self, op, printer):
        raise NotImplementedError

    def present(self, op):
        """Whether an optional group anchored on this directive is printed."""
        return _present(getattr(op, self.field))


class Lit(Directive):
    """Literal text: printed as written, parsed token by token (keywords and punctuation)."""

    def __init__(self, text):
        self.text, self.tokens = text, _TOKEN.findall(text)

    def parse(self, state):
        for token in self.tokens:
            _parse_token(state.parser, token)

    def parse_optional(self, state):
        if not _parse_token(state.parser, self.tokens[0], optional=True):
            return False
        for token in self.tokens[1:]:
            _parse_token(state.parser, token)
        return True

    def print(self, op, printer):
        printer.print_string(self.text)


class Operand(Directive):
    """``%x``: one operand (or the single entry of an optional operand group)."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        state.names[self.field] = state.parser.parse_unresolved_operand()

    def parse_optional(self, state):
        name = state.parser.parse_optional_unresolved_operand()
        if name is not None:
            state.names[self.field] = name
        return name is not None

    def print(self, op, printer):
        printer.print_ssa_value(_first(getattr(op, self.field)))


class Operands(Directive):
    """``%a, %b`` (``delims`` "[]"/"()" wrap it and allow it empty): a variadic operand group."""

    def __init__(self, field, delims=None):
        self.field, self.delims = field, delims

    def parse(self, state):
        parser = state.parser
        if self.delims is None:
            names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
        else:
            delimiter = Parser.Delimiter.SQUARE if self.delims == "[]" else Parser.Delimiter.PAREN
            names = parser.parse_comma_separated_list(delimiter, parser.parse_unresolved_operand)
        state.names[self.field] = names

    def parse_optional(self, state):
        if self.delims is not None:
            if state.parser.parse_optional_punctuation(self.delims[0]) is None:
                return False
            names = []
            if state.parser.parse_optional_punctuation(self.delims[1]) is None:
                names = state.parser.parse_comma_separated_list(Parser.Delimiter.NONE,
                                                                state.parser.parse_unresolved_operand)
                state.parser.parse_punctuation(self.delims[1])
            state.names[self.field] = names
            return True
        first = state.parser.parse_optional_unresolved_operand()
        if first is None:
            return False
        names = [first]
        while state.parser.parse_optional_punctuation(",") is not None:
            names.append(state.parser.parse_unresolved_operand())
        state.names[self.field] = names
        return True

    def print(self, op, printer):
        values = getattr(op, self.field)
        if self.delims is None:
            printer.print_list(values, printer.print_ssa_value)
        else:
            print_operand_list(printer, values, self.delims[0], self.delims[1])


def slot_fields(slot):
    """A type slot as a tuple of field names (one name or several fields sharing a type)."""
    return (slot,) if isinstance(slot, str) else tuple(slot)


def _type_of(op, field):
    value = getattr(op, field)
    return value if isinstance(value, Attribute) else _first(value).type


class Type(Directive):
    """A type for ``slot``: one field name, or a tuple of fields sharing it (printed from the first)."""

    def __init__(self, slot):
        self.slot = slot_fields(slot)

    def parse(self, state):
        state.set_type(self.slot, state.parser.parse_type())

    def print(self, op, printer):
        printer.print_attribute(_type_of(op, self.slot[0]))


class Types(Directive):
    """``t, t``: the types of a variadic operand/result group (``slot`` as for :class:`Type`)."""

    def __init__(self, slot):
        self.slot = slot_fields(slot)

    def parse(self, state):
        state.set_type(self.slot, state.parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, state.parser.parse_type))

    def print(self, op, printer):
        printer.print_list([v.type for v in getattr(op, self.slot[0])], printer.print_attribute)


class Sized(Directive):
    """``type{%d, ...}``: a type and its dynamic sizes; a single size operand (``T{%size}``) is required."""

    def __init__(self, slot, dims):
        self.slot, self.dims = slot_fields(slot), dims

    def parse(self, state):
        pos = state.parser.pos
        type_ = state.parser.parse_type()
        dims = parse_optional_dims(state.parser)
        if self.dims not in state.shape.variadic and len(dims) != 1:
            state.parser.raise_error(f"expected one size operand in braces after {type_}", pos)
        state.set_type(self.slot, type_)
        state.names[self.dims] = dims

    def print(self, op, printer):
        dims = getattr(op, self.dims)
        single = isinstance(dims, SSAValue)
        print_sized_type(printer, _type_of(op, self.slot[0]), [dims] if single else dims, always_braces=single)


class SizedOperandList(Directive):
    """``[%a : T{%d}, %b : U]`` (possibly empty): operand group ``field``, each with its type and
    that type's dynamic sizes, which form the operand group ``dims``."""

    def __init__(self, field, dims):
        self.field, self.dims = field, dims

    def parse(self, state):
        parser = state.parser

        def one():
            value = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            type_, dims = parse_sized_type(parser)
            return parser.resolve_operand(value, type_), dims

        pairs = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, one)
        state.values[self.field] = [v for v, _ in pairs]
        state.values[self.dims] = [d for _, dims in pairs for d in dims]

    def print(self, op, printer):
        dims = list(getattr(op, self.dims))
        printer.print_string("[")
        for i, value in enumerate(getattr(op, self.field)):
            if i:
                printer.print_string(", ")
            printer.print_ssa_value(value)
            printer.print_string(" : ")
            count = list(value.type.get_shape()).count(DYNAMIC_INDEX) if hasattr(value.type, "get_shape") else 0
            print_sized_type(printer, value.type, dims[:count])
            dims = dims[count:]
        printer.print_string("]")


class Tied(Directive):
    """``%target as T{%size}``: a result written in place of operand ``target`` (``T{%size}`` also parses)."""

    def __init__(self, target, size, result="result"):
        self.target, self.sized = target, Sized((result, target), size)

    def parse(self, state):
        parser = state.parser
        name = parser.parse_optional_unresolved_operand()
        if name is not None:
            target = state.names[self.target]
            if (name.operand_name, name.index) != (target.operand_name, target.index):
                parser.raise_error(f"{state.shape.name}: tied result names %{name.operand_name}, but the result must be "
                                   f"tied to the target %{target.operand_name}", name.span)
            if parser.parse_optional_keyword("as") is None:
                parser.raise_error("expected 'as' and the result type after the tied operand")
        self.sized.parse(state)

    def print(self, op, printer):
        printer.print_ssa_value(getattr(op, self.target))
        printer.print_string(" as ")
        self.sized.print(op, printer)


class Attr(Directive):
    """An attribute-valued property."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        state.set_prop(self.field, state.parser.parse_attribute())

    def print(self, op, printer):
        printer.print_attribute(getattr(op, self.field))


class Int(Directive):
    """An integer property printed bare (``0``), stored as an ``index`` (or ``type``) IntegerAttr."""

    def __init__(self, field, type_=INDEX):
        self.field, self.type = field, type_

    def parse(self, state):
        state.set_prop(self.field, IntegerAttr(state.parser.parse_integer(), self.type))

    def print(self, op, printer):
        printer.print_string(str(getattr(op, self.field).value.data))


class Str(Directive):
    """A string property printed as a quoted literal (a bare identifier also parses)."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        parser = state.parser
        state.set_prop(self.field, StringAttr(parser.parse_optional_str_literal() or parser.parse_identifier()))

    def parse_optional(self, state):
        text = state.parser.parse_optional_str_literal()
        if text is not None:
            state.set_prop(self.field, StringAttr(text))
        return text is not None

    def print(self, op, printer):
        printer.print_string_literal(getattr(op, self.field).data)


class SymbolRef(Directive):
    """``@name``: a SymbolRefAttr property."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        state.set_prop(self.field, parse_symbol_ref(state.parser))

    def print(self, op, printer):
        printer.print_attribute(getattr(op, self.field))


class Enum(Directive):
    """A string property written bare when it is an identifier (``None``), else quoted (``"A|B"``)."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        parser = state.parser
        state.set_prop(self.field, StringAttr(parser.parse_optional_str_literal() or parser.parse_identifier()))

    def print(self, op, printer):
        text = getattr(op, self.field).data
        if text.isidentifier():
            printer.print_string(text)
        else:
            printer.print_string_literal(text)


class Flag(Directive):
    """`` keyword``: present iff the unit property ``field`` is set."""

    def __init__(self, text, field):
        self.lit, self.field = Lit(text), field

    def parse(self, state):
        if self.lit.parse_optional(state):
            state.set_prop(self.field, UnitAttr())

    def print(self, op, printer):
        if getattr(op, self.field) is not None:
            self.lit.print(op, printer)


class AttrDict(Directive):
    """`` {attrs}`` (or `` attributes {attrs}`` with ``keyword``) when the op has attributes;
    with ``printed=False`` only parsed (an older spelling the printer no longer writes)."""

    def __init__(self, keyword=False, printed=True):
        self.keyword, self.printed = keyword, printed

    def parse(self, state):
        if self.keyword:
            attrs = state.parser.parse_optional_attr_dict_with_keyword()
            state.attrs.update(attrs.data if attrs else {})
        else:
            state.attrs.update(state.parser.parse_optional_attr_dict())

    def print(self, op, printer):
        if not self.printed:
            return
        if self.keyword and op.attributes:
            printer.print_op_attributes(op.attributes, print_keyword=True)
        elif not self.keyword:
            print_attr_dict(printer, op.attributes)


class Either(Directive):
    """An optional group or, when it is absent, fixed text (``await(%t) =>`` | `` :``)."""

    def __init__(self, group, otherwise):
        self.group, self.otherwise, self.field = group, _directive(otherwise), group.field

    def parse(self, state):
        if not self.group.parse_optional(state):
            self.otherwise.parse(state)

    def print(self, op, printer):
        (self.group if self.group.present(op) else self.otherwise).print(op, printer)


class Opt(Directive):
    """An optional group: parsed when its first token is there; printed when its first field is set
    (or non-empty), or always with ``always`` (a clause that may be left out but prints ``kw([])``)."""

    def __init__(self, *items, always=False):
        self.items, self.always = [_directive(i) for i in items], always
        self.anchor = next(i for i in self.items if i.field is not None)
        self.field = self.anchor.field

    def parse(self, state):
        self.parse_optional(state)

    def parse_optional(self, state):
        lead = next(k for k, item in enumerate(self.items) if not isinstance(item, Lit) or item.tokens)
        if not self.items[lead].parse_optional(state):
            return False
        for item in self.items[lead + 1:]:
            item.parse(state)
        return True

    def present(self, op):
        return self.anchor.present(op)

    def print(self, op, printer):
        if self.always or self.present(op):
            for item in self.items:
                item.print(op, printer)


def _directive(item):
    return Lit(item) if isinstance(item, str) else item


class Custom(Directive):
    """The one escape, for an op whose whole syntax no directive declares (a function-like symbol
    op with its signature and body, a dispatch with its region, linalg.generic): the op class's
    ``parse_syntax(parser)`` classmethod returns the op and its ``print_syntax(printer)`` writes
    everything after the op name. ``OpFormat(Custom())`` must be the whole format; every other
    op declares its syntax with directives."""

    def parse(self, state):
        state.op = state.cls.parse_syntax(state.parser)

    def print(self, op, printer):
        op.print_syntax(printer)


class OpFormat:
    """A sequence of directives (strings are :class:`Lit`) giving an op's parser and printer."""

    def __init__(self, *items):
        self.items = [_directive(i) for i in items]
        if len(self.items) > 1 and any(isinstance(i, Custom) for i in self.items):
            raise TypeError("OpFormat: Custom(parse, print) declares a whole op and must be its only item")
        self.shapes = {}

    def parse(self, cls, parser):
        shape = self.shapes.get(cls) or self.shapes.setdefault(cls, _OpShape(cls))
        state = _ParseState(cls, parser, shape)
        for item in self.items:
            item.parse(state)
        return state.op if state.op is not None else state.build()

    def print(self, op, printer):
        for item in self.items:
            item.print(op, printer)


class FormattedOp(IRDLOperation):
    """Base for ops whose ``FORMAT`` (an :class:`OpFormat`) gives their custom parse and print."""

    FORMAT: ClassVar[OpFormat]

    @classmethod
    def parse(cls, parser):
        return cls.FORMAT.parse(cls, parser)

    def print(self, printer):
        self.FORMAT.print(self, printer)


#: `` on(#hal.device.affinity<@dev>)``: the optional affinity clause of Stream/Flow/HAL ops.
AFFINITY = Opt(" on(", Attr("affinity"), ")")
#: `` %a, %b : t, u`` when the ``values`` group is non-empty: the operands of a return-like terminator.
RETURN_VALUES = Opt(" ", Operands("values"), " : ", Types("values"))
