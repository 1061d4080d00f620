"""``affine`` as xDSL 0.74.0 defines it, plus ``affine.linearize_index`` and ``affine.delinearize_index``.

IREE's programs write the two index ops xDSL lacks (``map_load``/``map_store`` regions,
reshapes of index spaces):

* ``%l = affine.linearize_index disjoint [%i, %j] by (4, %n) : index``:
  ``sum_k i_k * prod_{m > k} basis_m``; the basis may leave out its first (outer) bound;
* ``%r:2 = affine.delinearize_index %l into (4, %n) : index, index``: the inverse, ``r_0`` not
  reduced modulo its bound (so a basis without the outer bound gives one more result).

Basis entries are integers or ``index`` operands (``static_basis`` holds ``DYNAMIC`` for each
operand entry, as MLIR's ``custom<DynamicIndexList>``). ``rt-decompose-linalg-ext`` expands
both into ``arith`` index arithmetic wherever they are.

Source followed: MLIR ``AffineOps.td`` (``AffineLinearizeIndexOp``, ``AffineDelinearizeIndexOp``).
"""
from typing import ClassVar

from xdsl.dialects import affine as xaffine
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, UnitAttr, i64
from xdsl.ir import Dialect
from xdsl.irdl import (AttrSizedOperandSegments, irdl_op_definition, operand_def, opt_prop_def, prop_def,
                       result_def, traits_def, var_operand_def, var_result_def)
from xdsl.parser import Parser
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import AttrDict, Directive, Flag, FormattedOp, Operand, Operands, OpFormat

INDEX = IndexType()


class _Basis(Directive):
    """``(4, %n)``: the mixed static/dynamic basis (``static_basis`` and the ``dynamic_basis`` operands)."""

    field = "static_basis"

    def parse(self, state):
        parser, static, dynamic = state.parser, [], []

        def entry():
            value = parser.parse_optional_integer()
            if value is None:
                static.append(DYNAMIC_INDEX)
                dynamic.append(parser.resolve_operand(parser.parse_unresolved_operand(), INDEX))
            else:
                static.append(value)
        parser.parse_comma_separated_list(Parser.Delimiter.PAREN, entry)
        state.set_prop(self.field, DenseArrayBase.from_list(i64, static))
        state.values["dynamic_basis"] = dynamic

    def print(self, op, printer):
        dynamic = iter(op.dynamic_basis)
        printer.print_string("(")
        printer.print_list(op.static_basis.get_values(), lambda v: printer.print_ssa_value(next(dynamic))
                           if v == DYNAMIC_INDEX else printer.print_string(str(v)))
        printer.print_string(")")


class _IndexTypes(Directive):
    """``index`` / ``index, index``: the type of result ``field`` (or of each result of the group)."""

    def __init__(self, field, many=False):
        self.field, self.many = field, many

    def parse(self, state):
        types = state.parser.parse_comma_separated_list(Parser.Delimiter.NONE, state.parser.parse_type)
        if any(t != INDEX for t in types) or (not self.many and len(types) != 1):
            state.parser.raise_error(f"{state.shape.name}: expected {'index types' if self.many else 'index'}")
        state.types[self.field] = types if self.many else types[0]

    def print(self, op, printer):
        printer.print_string(", ".join(["index"] * (len(getattr(op, self.field)) if self.many else 1)))


class _BasisOp(FormattedOp):
    static_basis = prop_def(DenseArrayBase)
    dynamic_basis = var_operand_def(INDEX)
    traits = traits_def(Pure())

    def basis(self):
        """The basis as ints and ``index`` values, in order."""
        dynamic = iter(self.dynamic_basis)
        return [next(dynamic) if v == DYNAMIC_INDEX else v for v in self.static_basis.get_values()]

    def check_basis(self):
        static = self.static_basis.get_values()
        if sum(v == DYNAMIC_INDEX for v in static) != len(self.dynamic_basis):
            raise VerifyException(f"'{self.name}' basis has {sum(v == DYNAMIC_INDEX for v in static)} dynamic entries "
                                  f"but {len(self.dynamic_basis)} basis operands")


@irdl_op_definition
class LinearizeIndexOp(_BasisOp):
    """``affine.linearize_index disjoint [%i, %j] by (4, 4) : index``."""

    name = "affine.linearize_index"
    multi_index = var_operand_def(INDEX)
    disjoint = opt_prop_def(UnitAttr)
    linear_index = result_def(INDEX)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(Flag(" disjoint", "disjoint"), " [", Operands("multi_index"), "] by ", _Basis(),
                                AttrDict(), " : ", _IndexTypes("linear_index"))

    def verify_(self):
        self.check_basis()
        count, basis = len(self.multi_index), len(self.static_basis.get_values())
        if basis not in (count, count - 1):
            raise VerifyException(f"'{self.name}' takes a basis of {count} or {count - 1} entries for {count} "
                                  f"indices, got {basis}")


@irdl_op_definition
class DelinearizeIndexOp(_BasisOp):
    """``affine.delinearize_index %l into (4, 4) : index, index``."""

    name = "affine.delinearize_index"
    linear_index = operand_def(INDEX)
    multi_index = var_result_def(INDEX)
    FORMAT: ClassVar = OpFormat(" ", Operand("linear_index"), " into ", _Basis(), AttrDict(), " : ",
                                _IndexTypes("multi_index", many=True))

    def verify_(self):
        self.check_basis()
        count, basis = len(self.multi_index), len(self.static_basis.get_values())
        if basis not in (count, count - 1):
            raise VerifyException(f"'{self.name}' gives {count} results for a basis of {count} or {count - 1} "
                                  f"entries, got {basis}")


def build_dialect():
    """xDSL's affine Dialect plus the two index ops."""
    return Dialect("affine", list(xaffine.Affine.operations) + [LinearizeIndexOp, DelinearizeIndexOp],
                   list(xaffine.Affine.attributes))
