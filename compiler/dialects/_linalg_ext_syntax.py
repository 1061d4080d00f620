"""Format pieces of the ``iree_linalg_ext`` op syntax shared by its op modules.

* :class:`IntArray`    ``[0, 1]``: an i64 ``DenseArrayBase`` property (``dimension_map``)
* :class:`Bool`        ``true``/``false``: an i1 ``IntegerAttr`` property (``unique_indices``)
* :class:`ResultTypes` the types of the variadic ``result`` group (for `` -> t, u`` groups)
* :data:`INS` / :data:`OUTS` ``ins(%a, %b : t, u)`` / ``outs(...)`` over the ``inputs`` /
  ``outputs`` operand groups (DPS ops keep their operands in these two groups, as linalg does)
* :data:`REGION`       `` {^bb0(%a: f32, %b: f32): ...}``: the op's region with its block header
* :data:`RESULTS`      `` -> t, u`` when the op has results (tensor form; none on buffers)

Source followed: IREE ``LinalgExtOps.td`` (the ``assemblyFormat`` of each op).
"""
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, i64
from xdsl.parser import Parser

from rt.compiler.dialects._format import Directive, Lit, Operands, Opt, Types
from rt.compiler.dialects._regions import Body


class IntArray(Directive):
    """``[0, 1]``: an i64 ``DenseArrayBase`` property."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        values = state.parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, state.parser.parse_integer)
        state.set_prop(self.field, DenseArrayBase.from_list(i64, values))

    def print(self, op, printer):
        printer.print_string("[" + ", ".join(str(v) for v in getattr(op, self.field).get_values()) + "]")


class Bool(Directive):
    """``true`` / ``false``: an i1 ``IntegerAttr`` property (MLIR's ``BoolAttr``)."""

    def __init__(self, field):
        self.field = field

    def parse(self, state):
        pos = state.parser.pos
        word = state.parser.parse_optional_keyword("true") or state.parser.parse_optional_keyword("false")
        if word is None:
            state.parser.raise_error(f"{state.shape.name}: expected 'true' or 'false'", pos)
        state.set_prop(self.field, IntegerAttr(int(word == "true"), IntegerType(1)))

    def print(self, op, printer):
        printer.print_string("true" if getattr(op, self.field).value.data else "false")


class ResultTypes(Types):
    """The types of the variadic ``result`` group; as the anchor of an optional group, present when
    the op has results."""

    field = "result"

    def __init__(self):
        super().__init__("result")


def group(keyword, field):
    """`` keyword(%a, %b : t, u)`` over operand group ``field``."""
    return (f" {keyword}(", Operands(field), " : ", Types(field), ")")


#: `` ins(%a, %b : t, u)``, left out when the op has no inputs
INS = Opt(*group("ins", "inputs"))
#: `` outs(%a, %b : t, u)``
OUTS = group("outs", "outputs")
#: `` {^bb0(...): ...}``: the region with its entry block header
REGION = (" ", Body("region", print_entry_block_args=True))
#: `` -> t, u`` when the op has results
RESULTS = Opt(Lit(" -> "), ResultTypes())
